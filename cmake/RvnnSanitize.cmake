# AddressSanitizer and UndefinedBehaviorSanitizer, shared by the fuzz targets
# (fuzz/CMakeLists.txt, RVNN_FUZZ) and the sanitizer build (RVNN_SANITIZE,
# scripts/test.sh --sanitize; docs/user-guide.md, "Sanitizers"). Undefined
# behaviour aborts instead of printing and going on, so it fails a test.
set(RVNN_SANITIZER_FLAGS -fsanitize=address,undefined
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

# RVNN_SANITIZE instruments everything we build: the runtime, the compiler,
# the tools and the unit tests. LibTorch, MLIR and LLVM stay as Debian built
# them (their reports are suppressed in scripts/sanitize/*.supp).
if(RVNN_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "RVNN_SANITIZE needs clang: configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${RVNN_SANITIZER_FLAGS}>")
  add_link_options(${RVNN_SANITIZER_FLAGS})
  # HandleLLVMOptions (cmake/RvnnMLIR.cmake) turns -Wunused-parameter off
  # for MLIR's generated code; GCC keeps that against our later -Wextra,
  # clang lets -Wextra turn it back on.
  if(RVNN_ENABLE_COMPILER)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-unused-parameter>)
  endif()
endif()

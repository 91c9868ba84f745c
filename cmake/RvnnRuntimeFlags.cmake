# Included at the top of the runtime's directories (lib/Runtime, tools/rvnn-run):
# drops what LLVM's HandleLLVMOptions and RvnnMLIR.cmake set for the whole
# tree (compiler flags, LLVM's definitions, the LLVM and MLIR include
# directories). The runtime then compiles with the same command lines
# whether or not the compiler is configured, and ccache (CCACHE_BASEDIR,
# scripts/build.sh) serves scripts/test.sh's runtime-only build from the
# main build's objects instead of compiling the runtime twice.
set(CMAKE_C_FLAGS "${RVNN_RUNTIME_C_FLAGS}")
set(CMAKE_CXX_FLAGS "${RVNN_RUNTIME_CXX_FLAGS}")
set_property(DIRECTORY PROPERTY COMPILE_OPTIONS "${RVNN_RUNTIME_COMPILE_OPTIONS}")
set_property(DIRECTORY PROPERTY COMPILE_DEFINITIONS "")
# RvnnMLIR.cmake's add_definitions(${LLVM_DEFINITIONS}): one string, which
# add_definitions keeps as a flag rather than as definitions.
remove_definitions("${LLVM_DEFINITIONS}")
set_property(DIRECTORY PROPERTY INCLUDE_DIRECTORIES "")

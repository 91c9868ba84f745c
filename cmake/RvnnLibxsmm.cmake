# Matrix products by LIBXSMM's generated kernels where it is installed
# (Debian: libxsmm-dev; lib/Runtime/Ops/JitProduct.cpp). Without it the
# runtime multiplies through LibTorch's BLAS alone.
option(RVNN_LIBXSMM "Multiply through LIBXSMM's kernels when it is found" ON)

# Links `target` with LIBXSMM (a static library) and defines
# RVNN_HAVE_LIBXSMM for its sources.
function(rvnn_link_libxsmm target)
  if(NOT RVNN_LIBXSMM)
    return()
  endif()
  find_path(RVNN_LIBXSMM_INCLUDE_DIR libxsmm.h)
  find_library(RVNN_LIBXSMM_LIBRARY NAMES libxsmm.a xsmm)
  # LIBXSMM's own fallbacks call the BLAS: the libblas.so.3 LibTorch loads,
  # never LIBXSMM's substitute (libxsmmnoblas), which would take the BLAS
  # symbols from LibTorch.
  find_library(RVNN_LIBXSMM_BLAS NAMES blas)
  if(NOT RVNN_LIBXSMM_INCLUDE_DIR OR NOT RVNN_LIBXSMM_LIBRARY OR
     NOT RVNN_LIBXSMM_BLAS)
    message(STATUS "rvnn: LIBXSMM not found; matrix products use the BLAS only")
    return()
  endif()
  target_compile_definitions(${target} PRIVATE RVNN_HAVE_LIBXSMM)
  target_include_directories(${target} PRIVATE ${RVNN_LIBXSMM_INCLUDE_DIR})
  target_link_libraries(${target} PRIVATE ${RVNN_LIBXSMM_LIBRARY}
                        ${RVNN_LIBXSMM_BLAS} ${CMAKE_DL_LIBS} rt m)
endfunction()

# rvnn-run's C heap: jemalloc where it is installed (Debian: libjemalloc-dev).
# LibTorch's CPU allocator is plain malloc, and a training step frees and
# allocates thousands of tensors; glibc's bins and consolidation took 10-15%
# of an EBT-GRC step (perf), jemalloc's size classes a fraction of that
# (docs/architecture.md, "Host memory"). Sanitizer and fuzz builds keep the
# C library's malloc, which the sanitizers intercept.
option(RVNN_JEMALLOC "Link rvnn-run with jemalloc when it is found" ON)

# Links `target` (an executable) with jemalloc and its configuration.
function(rvnn_link_jemalloc target)
  if(NOT RVNN_JEMALLOC OR RVNN_SANITIZE OR RVNN_FUZZ)
    return()
  endif()
  find_library(RVNN_JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT RVNN_JEMALLOC_LIBRARY)
    message(STATUS "rvnn: jemalloc not found; rvnn-run uses the C library's malloc")
    return()
  endif()
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/Runtime/JemallocConf.cpp)
  target_link_libraries(${target} PRIVATE ${RVNN_JEMALLOC_LIBRARY})
endfunction()

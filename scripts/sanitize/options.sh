# Sourced by scripts/test.sh --sanitize: the sanitizer runtime options for
# everything built with -DRVNN_SANITIZE=ON (docs/user-guide.md, "Sanitizers").
# Tools started by lit get them too (test/lit.cfg.py passes them through).
# shellcheck shell=bash
sanitize_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# detect_container_overflow=0: Debian's LibTorch and libstdc++ are not built
# with container annotations, so a std::vector grown in LibTorch and read in
# our (annotated) code, or the reverse, would be reported falsely.
# abort_on_error=1: a report (LeakSanitizer's at exit too) ends the program
# with SIGABRT rather than exit code 1, so a test expecting an error
# (`not rvnn-run ...`) fails on it instead of counting it as the error: LLVM's
# `not` treats a crash as a failure.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_container_overflow=0:detect_leaks=1:abort_on_error=1:suppressions=$sanitize_dir/asan.supp}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$sanitize_dir/lsan.supp:print_suppressions=0}
# Undefined behaviour stops the program (it is also compiled with
# -fno-sanitize-recover=undefined) and prints where it happened; it aborts
# for the same reason as above.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:suppressions=$sanitize_dir/ubsan.supp}
# Symbolized stacks also outside lit (ctest does not put LLVM's tools on PATH).
if [[ -x /usr/lib/llvm-19/bin/llvm-symbolizer ]]; then
  export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-19/bin/llvm-symbolizer}
fi

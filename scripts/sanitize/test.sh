#!/usr/bin/env bash
# scripts/test.sh --sanitize: builds the runtime, the compiler, the tools and
# the unit tests with clang-19, AddressSanitizer and UBSan (-DRVNN_SANITIZE=ON)
# into build-sanitize/ (RVNN_SANITIZE_BUILD_DIR), then runs the lit and
# GoogleTest suites there with the options and suppressions of options.sh.
# Any sanitizer report fails its test (docs/user-guide.md, "Sanitizers").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RVNN_SANITIZE_BUILD_DIR:-$root/build-sanitize}
"$root/scripts/install-deps.sh" --fuzz
# The build runs instrumented programs too (rvnn-tblgen, the GoogleTest
# discovery), so the options apply from here on.
source "$root/scripts/sanitize/options.sh"

# -O1 and line tables: readable stacks at a fraction of -g's build time.
# CUDA off: nvcc would need clang as its host compiler, and the CUDA tests
# need a GPU. Unlike scripts/build.sh, compiler warnings do not fail this
# build: the GCC build of scripts/test.sh checks those, and clang 19 warns
# inside Debian's libstdc++ 12 (its deprecated get_temporary_buffer).
log=$build.log
echo "rvnn: configuring and building $build (log: $log)"
mkdir -p "$build"
if ! cmake -S "$root" -B "$build" -G Ninja -DRVNN_SANITIZE=ON \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRVNN_ENABLE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >"$log" 2>&1; then
  tail -40 "$log"; exit 1
fi
# RVNN_SANITIZE_JOBS: ninja's parallel jobs (default: ninja's own choice).
if ! ninja -C "$build" ${RVNN_SANITIZE_JOBS:+-j "$RVNN_SANITIZE_JOBS"} >>"$log" 2>&1; then
  grep -v '^\[' "$log" | tail -80; exit 1
fi
echo "rvnn: build done"

echo "rvnn: lit suite (sanitizers)"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$build/test"

echo "rvnn: GoogleTest suites and doc checks (sanitizers)"
cd "$build"
ctest --output-on-failure -j2 -LE lit

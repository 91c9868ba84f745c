#!/usr/bin/env bash
# Runs every rvnn test on a fresh Debian 12 machine: installs what is missing,
# builds (warnings fail the build), runs the lit and GoogleTest suites through
# ctest, checks that the runtime builds on its own with MLIR hidden, and runs
# each fuzz target briefly (clang-19 and libFuzzer are installed for them).
#
#   scripts/test.sh --sanitize   instead: builds everything with clang-19,
#                                AddressSanitizer and UBSan into
#                                build-sanitize/ and runs the lit and
#                                GoogleTest suites there (docs/user-guide.md,
#                                "Sanitizers")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == --sanitize ]]; then
  exec "$root/scripts/sanitize/test.sh"
fi
"$root/scripts/install-deps.sh" --fuzz
"$root/scripts/build.sh"

echo "rvnn: runtime-only build (MLIR and LLVM hidden from CMake)"
RVNN_BUILD_DIR=$root/build-runtime-only "$root/scripts/build.sh" \
  -DRVNN_ENABLE_COMPILER=OFF -DRVNN_ENABLE_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON

echo "rvnn: lit suite"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$root/build/test"

echo "rvnn: GoogleTest suites and doc checks"
cd "$root/build"
ctest --output-on-failure -j2 -LE lit

# The fuzz targets' short run (docs/user-guide.md, "Fuzzing"): replays every
# regression input, then fuzzes each target for 5 s.
echo "rvnn: fuzz targets, short run"
"$root/scripts/fuzz.sh" --short

#!/usr/bin/env bash
# Configures and builds rvnn into build/ (Release, Ninja, ccache). Fails when
# the compiler prints any warning. Extra arguments go to CMake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RVNN_BUILD_DIR:-$root/build}
# Paths under the checkout are hashed relative to the build directory, so
# that a second build directory (scripts/test.sh's runtime-only build) hits
# the cache entries of the first.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
log=$build.log
mkdir -p "$build"
echo "rvnn: configuring and building $build (log: $log)"
if ! cmake -S "$root" -B "$build" -G Ninja "$@" >"$log" 2>&1; then
  tail -40 "$log"; exit 1
fi
if ! ninja -C "$build" >>"$log" 2>&1; then
  grep -v '^\[' "$log" | tail -80; exit 1
fi
if grep -q 'warning:' "$log"; then
  echo "rvnn: the build printed compiler warnings:" >&2
  grep 'warning:' "$log" | sort -u >&2
  exit 1
fi
echo "rvnn: build done"

#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang-19 with ASan and UBSan) into
# build-fuzz/ and runs each for SECONDS (default 600), then prints its
# executions per second and corpus size. Fails when a target finds a crash,
# a leak or a hang (the input is kept in build-fuzz/fuzz/artifacts/).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   long runs; new inputs are kept in
#                                           build-fuzz/fuzz/corpus/TARGET
#   scripts/fuzz.sh --short [TARGET...]     the test suite's run: each target
#                                           replays fuzz/regressions/TARGET,
#                                           then fuzzes 5 s from its seeds
#
# Environment: RVNN_FUZZ_BUILD_DIR (default build-fuzz), RVNN_FUZZ_JOBS
# (targets run at once, default 1: exec/s are then comparable).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RVNN_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${RVNN_FUZZ_JOBS:-1}
all=(ListOpsReaderFuzzer LogicReaderFuzzer RunConfigFuzzer CompiledModelFuzzer
  CheckpointFuzzer WeightsFileFuzzer)

short=0
seconds=600
if [[ ${1:-} == --short ]]; then
  short=1; seconds=5; shift
elif [[ ${1:-} =~ ^[0-9]+$ ]]; then
  seconds=$1; shift
fi
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")

if ! command -v clang++-19 >/dev/null ||
  ! compgen -G "/usr/lib/llvm-19/lib/clang/19/lib/*/libclang_rt.fuzzer*.a" >/dev/null; then
  echo "rvnn: fuzzing needs clang-19, libclang-rt-19-dev and libfuzzer-19-dev:" \
    "scripts/install-deps.sh --fuzz" >&2
  exit 1
fi

start=$SECONDS
echo "rvnn: building the fuzz targets in $build (log: $build.log)"
mkdir -p "$build"
if ! cmake -S "$root" -B "$build" -G Ninja -DRVNN_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DRVNN_ENABLE_COMPILER=OFF -DRVNN_ENABLE_TESTS=OFF -DRVNN_ENABLE_CUDA=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON \
  >"$build.log" 2>&1; then
  tail -40 "$build.log"; exit 1
fi
if ! ninja -C "$build" rvnn-fuzzers >>"$build.log" 2>&1; then
  grep -v '^\[' "$build.log" | tail -80; exit 1
fi
echo "rvnn: fuzz build done in $((SECONDS - start)) s"

artifacts=$build/fuzz/artifacts
logs=$build/fuzz/logs
mkdir -p "$artifacts" "$logs"
# LeakSanitizer on, with LibTorch's known leak suppressed (fuzz/lsan.supp);
# matching it needs full stacks, so the targets that read zip archives
# through LibTorch unwind slowly on malloc.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
asan_options() {
  case $1 in
  CheckpointFuzzer | WeightsFileFuzzer) echo "detect_leaks=1:fast_unwind_on_malloc=0" ;;
  *) echo "detect_leaks=1" ;;
  esac
}

# run_target NAME: replays its regressions, then fuzzes; writes logs/NAME.log.
run_target() {
  local name=$1 bin=$build/fuzz/$1 log=$logs/$1.log corpus
  local regressions=$root/fuzz/regressions/$name seeds=$root/fuzz/corpus/$name
  : >"$log"
  if compgen -G "$regressions/*" >/dev/null; then
    ASAN_OPTIONS=${ASAN_OPTIONS:-$(asan_options "$name")} \
      "$bin" -runs=1 "$regressions"/* >>"$log" 2>&1 || return 1
  fi
  if ((short)); then
    corpus=$(mktemp -d)
  else
    corpus=$build/fuzz/corpus/$name
    mkdir -p "$corpus"
  fi
  # New inputs go to the first directory; the seeds are only read.
  ASAN_OPTIONS=${ASAN_OPTIONS:-$(asan_options "$name")} \
    "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
    "$corpus" "$seeds" >>"$log" 2>&1
  local status=$?
  ((short)) && rm -rf "$corpus"
  return $status
}

# summary NAME STATUS: one line from the log's final statistics.
summary() {
  local log=$logs/$1.log execs rate corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)
  printf '  %-22s %-6s %10s execs %8s exec/s  corpus %s\n' "$1" "$2" \
    "${execs:-?}" "${rate:-?}" "${corp:-?}"
}

echo "rvnn: fuzzing ${#targets[@]} targets for $seconds s each" \
  "($jobs at a time; logs: $logs)"
declare -A status
for name in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  (run_target "$name" && echo ok >"$logs/$name.status" ||
    echo FAILED >"$logs/$name.status") &
done
wait
failed=0
for name in "${targets[@]}"; do
  status[$name]=$(cat "$logs/$name.status" 2>/dev/null || echo FAILED)
  summary "$name" "${status[$name]}"
  if [[ ${status[$name]} != ok ]]; then
    failed=1
    grep -E 'ERROR|SUMMARY|Test unit written|uncaught|==[0-9]+==' \
      "$logs/$name.log" | head -20 | sed 's/^/    /'
  fi
done
echo "rvnn: fuzzing took $((SECONDS - start)) s in all"
exit $failed

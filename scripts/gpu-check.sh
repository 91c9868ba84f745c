#!/bin/bash
# The GPU checks of a machine with a GPU and PyTorch but no MLIR (issue 8):
#
#   bash scripts/gpu-check.sh prepare DIR   # here: compile the five acceptance
#       models into DIR/models and copy the build dependencies such a machine
#       may lack (GoogleTest, nlohmann_json, OpenSSL's libcrypto; Debian's)
#       into DIR/prefix
#   bash scripts/gpu-check.sh run DIR [OUT] # there, from the checkout: the
#       runtime-only build against that machine's PyTorch, the CUDA unit
#       tests, the five models' loss and gradients on the GPU (generated
#       kernels and reference bodies) against the CPU and the eager
#       references, compute-sanitizer (memcheck) on one training step, and
#       the cost protocol on the GPU (bench/cost_protocol.py, DEVICE=cuda);
#       the log and the cost table go to OUT (default /tmp/gpu-check);
#       PARTS (default "tests models sanitizer cost") picks some of them
#
# DIR must be inside the checkout (and ignored by git) to travel with it.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODELS="crvnn bbt_grc ebt_grc ndr rir_ebt_grc"

prepare() {
  local dir=$1 prefix=$1/prefix lib=/usr/lib/x86_64-linux-gnu
  rm -rf "$dir" && mkdir -p "$dir/models" "$prefix/include/x86_64-linux-gnu" \
    "$prefix/lib/x86_64-linux-gnu/cmake" "$prefix/share/cmake"
  # Portable CPU kernels (AVX2): that machine's CPU may not run this one's
  # newest level.
  for m in $MODELS; do
    "$ROOT/build/bin/rvnn-run" compile "$ROOT/models/$m.mlir" -o "$dir/models/$m" \
      --cpu x86-64-v3 >/dev/null || exit 1
  done
  cp -r /usr/include/{gtest,gmock,nlohmann,openssl} "$prefix/include/"
  cp -r /usr/include/x86_64-linux-gnu/openssl "$prefix/include/x86_64-linux-gnu/"
  cp $lib/libgtest*.a $lib/libgmock*.a $lib/libcrypto.a "$prefix/lib/x86_64-linux-gnu/"
  cp -r $lib/cmake/GTest "$prefix/lib/x86_64-linux-gnu/cmake/"
  cp -r /usr/share/cmake/nlohmann_json "$prefix/share/cmake/"
  du -sh "$dir"
}

run() {
  local dir; dir=$(cd "$1" && pwd); local out=${2:-/tmp/gpu-check} build=/tmp/rvnn-gpu-build
  mkdir -p "$out"; exec > >(tee "$out/log.txt") 2>&1
  local start; start=$(date +%s)
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  cmake -S "$ROOT" -B $build -G Ninja -DRVNN_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)');$dir/prefix" \
    -DOPENSSL_ROOT_DIR="$dir/prefix" -DOPENSSL_USE_STATIC_LIBS=TRUE -DCMAKE_CUDA_ARCHITECTURES=90 \
    > "$out/cmake.txt" 2>&1 || { tail -30 "$out/cmake.txt"; exit 1; }
  local parts=" ${PARTS:-tests models sanitizer cost} " tests="RvnnCudaTests RvnnRuntimeTests RvnnOpsTests"
  [[ $parts == *" tests "* ]] || tests=""
  ninja -C $build rvnn-run $tests > "$out/build.txt" 2>&1 || { grep -A5 error "$out/build.txt" | head -40; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
  local run=$build/bin/rvnn-run work; work=$(mktemp -d)
  # The GPU tests (ctest label cuda-gpu) of each test binary.
  for t in $tests; do
    echo "== $t, GPU tests"
    find $build/unittests -name $t -type f -exec {} --gtest_filter='*Cuda*' --gtest_brief=1 \; 2>&1 | tail -3
  done
  "$run" gen listops --count 16 --seed 7 --max-length 30 --output "$work/data.tsv" >/dev/null
  [[ $parts == *" models "* ]] || MODELS=""
  for m in $MODELS; do
    local args="--config $ROOT/models/$m.json --model $dir/models/$m --data $work/data.tsv --rows 8"
    echo "== $m"
    "$run" dump-grads $args --output "$work/$m.cpu.json" &&
      "$run" dump-grads $args --device cuda --output "$work/$m.cuda.json" 2>/dev/null &&
      "$run" dump-grads $args --device cuda --kernels reference --output "$work/$m.ref.json" &&
      echo -n "GPU generated vs CPU: " && python3 "$ROOT/bench/reference/compare_dumps.py" "$work/$m.cpu.json" "$work/$m.cuda.json" &&
      echo -n "GPU reference vs CPU: " && python3 "$ROOT/bench/reference/compare_dumps.py" "$work/$m.cpu.json" "$work/$m.ref.json" &&
      python3 "$ROOT/bench/reference/check_equivalence.py" --model $m "$work/$m.cuda.json"
  done
  [[ $parts == *" sanitizer "* ]] && for m in crvnn bbt_grc ebt_grc; do
    echo "== compute-sanitizer memcheck, one training step of $m"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$run" bench --config "$ROOT/models/$m.json" \
      --model "$dir/models/$m" --data "$work/data.tsv" --steps 1 --warmup 0 --device cuda 2>&1 | grep "ERROR SUMMARY"
  done
  [[ $parts == *" cost "* ]] && echo "== cost protocol" && DEVICE=cuda COMPILED="$dir/models" PYTHON=python3 BUILD=$build OUT="$out/cost-protocol-cuda.json" \
    N=${N:-3} TIMEOUT=${TIMEOUT:-100} BUCKETS_ebt_grc=${BUCKETS_ebt_grc:-"200-250 500-600"} \
    python3 "$ROOT/bench/cost_protocol.py" crvnn bbt_grc ebt_grc | tail -16
  echo "total $(( $(date +%s) - start )) s"
}

case "${1:-}" in
  prepare) [ $# -eq 2 ] || { echo "usage: $0 prepare DIR" >&2; exit 2; }; prepare "$2" ;;
  run) [ $# -ge 2 ] || { echo "usage: $0 run DIR [OUT]" >&2; exit 2; }; run "$2" "${3:-}" ;;
  *) sed -n 2,16p "$0"; exit 2 ;;
esac

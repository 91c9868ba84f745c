#!/usr/bin/env bash
# Installs the Debian 12 packages rvnn builds with, only those missing;
# --fuzz (or RVNN_FUZZ=1) adds clang and libFuzzer for scripts/fuzz.sh.
set -euo pipefail
packages=(cmake ninja-build ccache g++ git python3 googletest libgtest-dev
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  libtorch-dev nlohmann-json3-dev python3-torch
  # libcrypto: the runtime checks the SHA-256 of compiled-model files.
  libssl-dev
  # Debian's LibTorch calls libblas.so.3; without OpenBLAS that is the
  # reference BLAS, ~13x slower on the models' matrix products.
  libopenblas0-pthread
  # rvnn-run's malloc (cmake/RvnnJemalloc.cmake).
  libjemalloc-dev
  # Matrix products by generated kernels (cmake/RvnnLibxsmm.cmake).
  libxsmm-dev)
# The fuzz targets (scripts/fuzz.sh): only with --fuzz or RVNN_FUZZ=1.
if [[ ${1:-} == --fuzz || ${RVNN_FUZZ:-0} == 1 ]]; then
  packages+=(clang-19 libclang-rt-19-dev libfuzzer-19-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "rvnn: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

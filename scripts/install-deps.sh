#!/usr/bin/env bash
# Installs the Debian 12 packages rvnn builds with, only those missing.
set -euo pipefail
packages=(cmake ninja-build ccache g++ git python3 googletest libgtest-dev
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  libtorch-dev nlohmann-json3-dev python3-torch
  # libcrypto: the runtime checks the SHA-256 of compiled-model files.
  libssl-dev
  # Debian's LibTorch calls libblas.so.3; without OpenBLAS that is the
  # reference BLAS, ~13x slower on the models' matrix products.
  libopenblas0-pthread)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "rvnn: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test Kiln:
# LLVM/Clang/MLIR 22 with lit and FileCheck, ninja, ccache, GoogleTest, and
# OpenBLAS with LAPACKE (the host's float and complex matrix products; the
# runtime opens OpenBLAS at run time, so programs run without it too).
# Safe to run twice. The CUDA 13 toolkit must already be in /usr/local/cuda.
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools libclang-22-dev clang-22 libclang-rt-22-dev
          llvm-22-tools ninja-build ccache cmake libgtest-dev python3 libopenblas-dev liblapacke-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "setup: error: the CUDA 13 toolkit is missing (expected /usr/local/cuda/bin/nvcc)." >&2
  echo "setup: install it from NVIDIA's packages; no GPU is needed to build Kiln." >&2
  exit 1
fi
# NumPy 2 (from PyPI: Debian's is 1.24, before NEP 50's promotion rules) is
# the oracle of the differential test (test/difftest); test-only.
if ! python3 -c 'import sys, numpy; sys.exit(int(numpy.__version__.split(".")[0]) < 2)' 2>/dev/null; then
  python3 -m pip --version >/dev/null 2>&1 || {
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-pip
  }
  echo "setup: installing NumPy 2 from PyPI (for test/difftest)"
  $SUDO python3 -m pip install -q --break-system-packages 'numpy>=2.1' ||
    echo "setup: warning: NumPy 2 not installed; the difftest will skip" >&2
fi
echo "setup: ok"

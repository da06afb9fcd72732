#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test Kiln:
# LLVM/Clang/MLIR 22 with lit and FileCheck, ninja, ccache, GoogleTest, and
# OpenBLAS with LAPACKE (the host's float and complex matrix products; the
# runtime opens OpenBLAS at run time, so programs run without it too), and
# pocketfft (the host's FFTs; BSD-3, the header NumPy and SciPy use), taken
# from NumPy's source distribution on PyPI, pinned by its SHA-256.
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
# NumPy >= 2.3 (from PyPI: Debian's is 1.24, before NEP 50's promotion rules)
# is the oracle of the differential test (test/difftest) and of printing
# (test/printing: 2.3's repr and float formats); test-only.
if ! python3 -c 'import sys, numpy; sys.exit(tuple(map(int, numpy.__version__.split(".")[:2])) < (2, 3))' 2>/dev/null; then
  python3 -m pip --version >/dev/null 2>&1 || {
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3-pip
  }
  echo "setup: installing NumPy >= 2.3 from PyPI (for test/difftest and test/printing)"
  $SUDO python3 -m pip install -q --break-system-packages 'numpy>=2.3' ||
    echo "setup: warning: NumPy >= 2.3 not installed; the difftest and printing tests will skip" >&2
fi
# SciPy (PyPI, test-only) is the difftest's oracle for kiln::signal.
if ! python3 -c 'import scipy.signal' 2>/dev/null; then
  echo "setup: installing SciPy from PyPI (for test/difftest's signal programs)"
  $SUDO python3 -m pip install -q --break-system-packages 'scipy>=1.13' ||
    echo "setup: warning: SciPy not installed; the difftest leaves out kiln::signal" >&2
fi
# pocketfft: one C++ header, installed where CMake looks (POCKETFFT_DIR
# overrides /usr/local). Debian 12 has no package of it; NumPy's sdist carries
# the upstream header (github.com/mreineck/pocketfft, cpp branch).
pocketfft_prefix=${POCKETFFT_DIR:-/usr/local}
if [ ! -f "$pocketfft_prefix/include/pocketfft/pocketfft_hdronly.h" ]; then
  numpy_sdist=numpy-2.2.6.tar.gz
  numpy_url=https://files.pythonhosted.org/packages/76/21/7d2a95e4bba9dc13d043ee156a356c0a8f0c6309dff6b21b4d71a073b8a8/$numpy_sdist
  numpy_sha256=e29554e2bef54a90aa5cc07da6ce955accb83f21ab5de01a62c8478897b264fd
  tmp=$(mktemp -d)
  echo "setup: installing pocketfft (from $numpy_sdist on PyPI) into $pocketfft_prefix"
  command -v curl >/dev/null || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends curl ca-certificates
  curl -fsSL -o "$tmp/$numpy_sdist" "$numpy_url"
  echo "$numpy_sha256  $tmp/$numpy_sdist" | sha256sum -c --quiet
  tar -xzf "$tmp/$numpy_sdist" -C "$tmp" numpy-2.2.6/numpy/fft/pocketfft/pocketfft_hdronly.h \
    numpy-2.2.6/numpy/fft/pocketfft/LICENSE.md
  $SUDO install -D -m 644 "$tmp/numpy-2.2.6/numpy/fft/pocketfft/pocketfft_hdronly.h" \
    "$pocketfft_prefix/include/pocketfft/pocketfft_hdronly.h"
  $SUDO install -D -m 644 "$tmp/numpy-2.2.6/numpy/fft/pocketfft/LICENSE.md" \
    "$pocketfft_prefix/share/doc/pocketfft/LICENSE.md"
  rm -rf "$tmp"
fi
echo "setup: ok"

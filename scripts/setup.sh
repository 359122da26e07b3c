#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install missing build dependencies (Debian 12), configure build/ once, build.
# Safe to run repeatedly: every step is skipped when there is nothing to do.
#
#   scripts/setup.sh                      everything: all packages, every target
#   scripts/setup.sh --minimal TARGET...  only the packages that configuring
#                                         and building hopt need, and only the
#                                         ninja targets named (scripts/demo.sh)
# Both configure build/ the same way (tests on, Z3 found), so a later full
# run needs no reconfiguration: it installs the rest and builds the rest.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR=build
NATIVE_FILE=meson/llvm16.ini
# What `meson setup` requires (tests included) and what hopt needs to build
# and run.
BUILD_PACKAGES=(
  meson ninja-build g++ pkg-config python3
  llvm-16-dev llvm-16-tools
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libabsl-dev libgtest-dev libgmock-dev
  # valgrind/callgrind.h: hopt -callgrind-per-pass (bench/pipeline_bench.py --callgrind)
  valgrind
  # core/eval/dense_kernels.cc: dot and convolution on OpenBLAS; numpy on
  # OpenBLAS is bench/dot_bench.py's reference and test/differential's
  libopenblas-pthread-dev libopenblas0-pthread python3-numpy
  # core/prove: hopt -prove-equivalence proves rewrites with Z3
  libz3-dev
  # python/: the Python module hopt (docs/python.md)
  pybind11-dev python3-dev
)
# The tests, benchmarks and sanitizer builds besides.
DEV_PACKAGES=(
  libbenchmark-dev graphviz mlir-16-tools time
  # scripts/check_format.py (meson test format)
  clang-format-16
  # python/tests/ (meson test --suite python)
  python3-pytest
  # scripts/sanitize.sh: clang with ASan/UBSan/LSan and libFuzzer
  clang-16 libclang-rt-16-dev libfuzzer-16-dev
)
PACKAGES=("${BUILD_PACKAGES[@]}" "${DEV_PACKAGES[@]}")
TARGETS=()
if [[ "${1:-}" == "--minimal" ]]; then
  shift
  PACKAGES=("${BUILD_PACKAGES[@]}")
  TARGETS=("$@")
  if ((${#TARGETS[@]} == 0)); then
    echo "[setup] --minimal needs the ninja targets to build" >&2
    exit 2
  fi
fi

log() { printf '[setup] %s\n' "$*"; }

# --- 1. packages -------------------------------------------------------------
missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  log "packages: all ${#PACKAGES[@]} present"
else
  log "packages: installing ${missing[*]}"
  if ((EUID == 0)); then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- 2. configure ------------------------------------------------------------
if [[ -f "$BUILD_DIR/build.ninja" ]]; then
  # Already configured; ninja re-runs meson by itself when meson.build changes.
  log "configure: $BUILD_DIR/ already configured"
elif [[ -f "$BUILD_DIR/meson-private/coredata.dat" ]]; then
  # A previous configure started but did not finish: redo it in place.
  log "configure: reconfiguring incomplete $BUILD_DIR/"
  meson setup --reconfigure "$BUILD_DIR" --native-file "$NATIVE_FILE"
else
  log "configure: meson setup $BUILD_DIR --native-file $NATIVE_FILE"
  meson setup "$BUILD_DIR" --native-file "$NATIVE_FILE"
fi

# --- 3. build ----------------------------------------------------------------
log "build: ninja -C $BUILD_DIR -j2 ${TARGETS[*]}"
ninja -C "$BUILD_DIR" -j2 "${TARGETS[@]}"
log "done: $BUILD_DIR/tools/hopt"

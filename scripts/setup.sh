#!/usr/bin/env bash
# Install missing build dependencies (Debian 12), configure build/ once, build.
# Safe to run repeatedly: every step is skipped when there is nothing to do.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR=build
NATIVE_FILE=meson/llvm16.ini
PACKAGES=(
  meson ninja-build g++ pkg-config python3
  llvm-16-dev llvm-16-tools
  libprotobuf-dev protobuf-compiler zlib1g-dev
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  graphviz mlir-16-tools time
  # valgrind/callgrind.h: hopt -callgrind-per-pass (bench/pipeline_bench.py --callgrind)
  valgrind
  # core/eval/dense_kernels.cc: dot and convolution on OpenBLAS; numpy on
  # OpenBLAS is bench/dot_bench.py's reference
  libopenblas-pthread-dev libopenblas0-pthread python3-numpy
  # core/prove: hopt -prove-equivalence proves rewrites with Z3
  libz3-dev
  # scripts/sanitize.sh: clang with ASan/UBSan/LSan and libFuzzer
  clang-16 libclang-rt-16-dev libfuzzer-16-dev
)

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
log "build: ninja -C $BUILD_DIR -j2"
ninja -C "$BUILD_DIR" -j2
log "done: $BUILD_DIR/tools/hopt"

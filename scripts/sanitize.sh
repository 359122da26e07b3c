#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The sanitizer and fuzzing build: clang-16 with AddressSanitizer,
# UndefinedBehaviorSanitizer (every report fatal) and LeakSanitizer, plus
# libFuzzer coverage, in build-san/. Runs the meson test suite there (all
# but the source checks of the suite 'static'), then the fuzz targets side
# by side, each for FUZZ_SECONDS (default 30) of a core, from the seed
# corpus scripts/fuzz_seeds.sh makes. Assumes scripts/setup.sh has run (it
# installs clang-16 and the sanitizer and libFuzzer runtimes).
#
# usage: scripts/sanitize.sh [test|fuzz|all]   (default: all)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR=build-san
WHAT="${1:-all}"
FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
log() { printf '[sanitize] %s\n' "$*"; }

case "$WHAT" in test|fuzz|all) ;; *) echo "usage: $0 [test|fuzz|all]" >&2; exit 2 ;; esac

# Reports are errors; leaks are checked at exit; a crash prints a symbolised stack.
ASAN_DEFAULTS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
ASAN_DEFAULTS+=:detect_stack_use_after_return=1
export ASAN_OPTIONS="${ASAN_OPTIONS:-$ASAN_DEFAULTS}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/fuzz/lsan.supp:print_suppressions=0}"

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  log "configure: $BUILD_DIR (clang-16, address+undefined, libFuzzer coverage)"
  rm -rf "$BUILD_DIR"
  CC=clang-16 CXX=clang++-16 meson setup "$BUILD_DIR" --native-file meson/llvm16.ini \
    -Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true -Dunity=on \
    -Doptimization=1 -Ddebug=false \
    "-Dcpp_args=-gline-tables-only -fno-omit-frame-pointer -fno-sanitize-recover=all" \
    "-Dcpp_link_args=-fno-sanitize-recover=all"
fi
log "build: ninja -C $BUILD_DIR -j2"
ninja -C "$BUILD_DIR" -j2

status=0
if [[ "$WHAT" != fuzz ]]; then
  # The suite 'static' checks source files only; the plain build runs it.
  log "test: meson test -C $BUILD_DIR --no-suite static"
  meson test -C "$BUILD_DIR" --no-suite static --print-errorlogs --num-processes 2 \
    --timeout-multiplier 4 || status=1
fi

if [[ "$WHAT" != test ]]; then
  SEEDS="$BUILD_DIR/fuzz-seeds"
  bash scripts/fuzz_seeds.sh "$BUILD_DIR" "$SEEDS"
  all_fuzzers="text_parser_fuzzer proto_reader_fuzzer pass_pipeline_fuzzer interpreter_fuzzer"
  read -r -a targets <<< "${FUZZ_TARGETS:-$all_fuzzers}"
  # A libFuzzer process uses one core. The targets run side by side, for as
  # long as gives each FUZZ_SECONDS of the machine's cores: 4 targets on 2
  # cores run together for 60 s instead of one after another for 120 s.
  cores=$(nproc)
  ((cores > ${#targets[@]})) && cores=${#targets[@]}
  wall=$(( (FUZZ_SECONDS * ${#targets[@]} + cores - 1) / cores ))
  log "fuzz: ${targets[*]} side by side for ${wall}s (${FUZZ_SECONDS}s of a core each)"
  pids=()
  for target in "${targets[@]}"; do
    corpus="$BUILD_DIR/fuzz-corpus/$target"
    artifacts="$BUILD_DIR/fuzz-artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    "$BUILD_DIR/fuzz/$target" -max_total_time="$wall" -seed="${FUZZ_SEED:-1}" \
      -timeout=10 -rss_limit_mb=4096 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$corpus" "$SEEDS/$target" > "$BUILD_DIR/fuzz-$target.log" 2>&1 &
    pids+=($!)
  done
  for k in "${!targets[@]}"; do
    target="${targets[$k]}"
    if wait "${pids[$k]}"; then
      { grep -aE '^#[0-9]+' "$BUILD_DIR/fuzz-$target.log" | tail -1
        grep -aE '^stat::(number_of_executed_units|peak_rss_mb)' "$BUILD_DIR/fuzz-$target.log" \
          | tail -2
      } | sed "s/^/[sanitize] $target: /" || true
    else
      log "fuzz: $target FOUND A FAILURE (inputs in $BUILD_DIR/fuzz-artifacts/$target):"
      tail -60 "$BUILD_DIR/fuzz-$target.log"
      status=1
    fi
  done
fi

if ((status == 0)); then log "all green"; else log "FAILED"; fi
exit $status

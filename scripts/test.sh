#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up and build, then run every test suite: meson test (unit + lit tests)
# and the XLA conformance corpus (if present). Exits non-zero if anything fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Each stage's wall time, printed at the end: CI has a time budget, and this
# says where it goes.
durations=()
started=$SECONDS
if ! bash scripts/setup.sh; then
  echo "[test] ABORTED: scripts/setup.sh failed; no test suites were run" >&2
  exit 1
fi
durations+=("setup (packages, build): $((SECONDS - started)) s")

passed=0
failed=0
skipped=0
failed_names=()

run_suite() {  # run_suite NAME COMMAND...
  local name="$1"; shift
  local stage_started=$SECONDS status=0
  echo "[test] === $name: $* ==="
  "$@" || status=$?
  local elapsed=$((SECONDS - stage_started))
  durations+=("$name: $elapsed s")
  if ((status == 0)); then
    echo "[test] $name: PASSED in $elapsed s"
    passed=$((passed + 1))
  else
    echo "[test] $name: FAILED (exit $status) after $elapsed s"
    failed=$((failed + 1))
    failed_names+=("$name")
  fi
}

run_suite "meson test" meson test -C build --print-errorlogs --num-processes 2
# hopt as a vendor meets it: installed into a DESTDIR, examples/vendor-plugin
# built through pkg-config alone, its gtest and lit test run, and compared.
run_suite "installed SDK" bash scripts/sdk_check.sh build
# The same suite under ASan + UBSan + LSan (clang, build-san/), then each
# libFuzzer target for FUZZ_SECONDS (30 unless set).
run_suite "sanitizers and fuzzing" bash scripts/sanitize.sh all

CORPUS="$ROOT/../shared/corpus/xla"
if [[ -d "$CORPUS" ]]; then
  CORPUS="$(cd "$CORPUS" && pwd)"
  run_suite "conformance" bash scripts/conformance.sh "$CORPUS"
  run_suite "proto round trip" bash scripts/conformance.sh "$CORPUS" -proto-roundtrip
else
  echo "[test] ************************************************************"
  echo "[test] SKIPPED: conformance corpus not found at $(realpath -m "$CORPUS")"
  echo "[test] ************************************************************"
  skipped=$((skipped + 1))
fi

echo
for line in "${durations[@]}"; do echo "[test] time: $line"; done
echo "[test] time: total $((SECONDS - started)) s"
if ((failed > 0)); then
  echo "[test] failed suites: ${failed_names[*]}"
fi
summary="$passed passed, $failed failed"
((skipped > 0)) && summary+=", $skipped skipped"
echo "$summary"
((failed == 0))

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The interpreter fuzzer (fuzz/interpreter_fuzzer.cc, docs/testing.md)
# longer than CI runs it: SECONDS of a core (default 600) from its seeds,
# in the sanitizer build (made by scripts/sanitize.sh when missing).
#   bash bench/interpreter_fuzz_bench.sh [SECONDS] [SEED]
# Prints the executions, coverage and corpus size; exits 1 on a finding
# (the input is kept in build-san/fuzz-artifacts/interpreter_fuzzer/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_SECONDS="${1:-600}" FUZZ_SEED="${2:-1}" FUZZ_TARGETS=interpreter_fuzzer \
  bash "$root/scripts/sanitize.sh" fuzz

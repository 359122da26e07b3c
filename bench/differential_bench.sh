#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The numpy differential tests (test/differential/, docs/testing.md) with
# more cases and seeds than the test suite runs: every family, CASES random
# cases per opcode (default 3000), for each seed in SEEDS (default 1 2 3).
#   bash bench/differential_bench.sh [CASES] [SEEDS...]
# Prints each family's line per seed and exits 1 if any case differs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hlo_run="$root/build/tools/hlo-run"
if [ ! -x "$hlo_run" ]; then
  echo "differential-bench: $hlo_run is missing; run scripts/setup.sh" >&2
  exit 2
fi
cases="${1:-3000}"
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3)
# numpy comes from Debian's python3-numpy, which a Python earlier on PATH
# (a pyenv one) may not see.
python=python3
"$python" -c 'import numpy' 2>/dev/null || python=/usr/bin/python3
status=0
for family_file in "$root"/test/differential/*_cases.py; do
  family="$(basename "$family_file" _cases.py)"
  for seed in "${seeds[@]}"; do
    "$python" "$root/test/differential/run_differential.py" --hlo-run "$hlo_run" \
      --family "$family" --cases "$cases" --seed "$seed" | tail -n 1 || status=1
  done
done
exit $status

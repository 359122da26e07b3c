#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Which opcodes the interpreter runs, measured on modules that use them.
# Usage: scripts/interp_coverage.sh [DIR...]   (default: test/ and, when
# present beside the repository, the XLA conformance corpus)
# See scripts/interp_coverage.py for how a run tells.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hlo_run="$root/build/tools/hlo-run"
if [ ! -x "$hlo_run" ]; then
  echo "interp-coverage: $hlo_run is missing; run scripts/setup.sh first" >&2
  exit 2
fi
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  dirs=("$root/test/interpreter/coverage")
  corpus="$root/../shared/corpus/xla"
  [ -d "$corpus" ] && dirs+=("$corpus")
fi
exec python3 "$root/scripts/interp_coverage.py" --hlo-run "$hlo_run" "${dirs[@]}"

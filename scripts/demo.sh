#!/usr/bin/env bash
# Set up and build hopt, then round-trip the bundled example through it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

EXAMPLE=examples/mlp_allreduce.hlo
echo "[demo] build/tools/hopt $EXAMPLE"
echo
build/tools/hopt "$EXAMPLE"

echo
echo "[demo] build/tools/hopt -load=libneuron_collectives.so -passes=convert-collectives-to-custom-call -verify-equivalence $EXAMPLE"
echo
build/tools/hopt -load=libneuron_collectives.so -passes=convert-collectives-to-custom-call \
  -verify-equivalence "$EXAMPLE"

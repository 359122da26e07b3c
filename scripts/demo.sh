#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Set up and build hopt and its plugins, then run the whole Neuron pipeline (-passes=neuron,
# all four plugins) on the bundled training step, printing the rewritten
# module and the -time-passes table, with the result checked against the
# input on the interpreter; then the same on a PyTorch/XLA-style
# data-parallel step (examples/torch_dp_step.hlo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Only what the demo runs: hopt and the four plugins (the tests, benchmarks
# and sanitizers' packages and binaries come with a plain scripts/setup.sh).
bash scripts/setup.sh --minimal tools/hopt plugins/libneuron_markers.so \
  plugins/libneuron_collectives.so plugins/libneuron_decompose.so plugins/libneuron_partition.so

# examples/train_step.hlo: hlo-gen -features=all -layers=2 -replicas=2
# -partitions=4 -filler=8 (every kind of instruction the pipeline rewrites).
EXAMPLE=examples/train_step.hlo
PLUGINS=(-load=libneuron_markers.so -load=libneuron_collectives.so
         -load=libneuron_decompose.so -load=libneuron_partition.so)
show_and_run() {  # prints the command line, then runs it
  echo "[demo] $*"
  echo
  "$@"
}
show_and_run build/tools/hopt "${PLUGINS[@]}" -passes=neuron -time-passes -verify-equivalence \
  "$EXAMPLE"

# examples/torch_dp_step.hlo: written as PyTorch/XLA dumps a data-parallel
# step (replica_count=1 with 4-device groups, one mixed-type gradient
# all-reduce, scalar ordering operands, unregistered Neuron custom-calls).
TORCH_EXAMPLE=examples/torch_dp_step.hlo
echo
show_and_run build/tools/hopt "${PLUGINS[@]}" -passes=neuron \
  -debug-only=canonicalize-variadic-collectives -verify-equivalence "$TORCH_EXAMPLE"

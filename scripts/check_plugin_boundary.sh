#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The plugin boundary (docs/writing-a-plugin.md): nothing under core/, include/ or
# tools/ names a Neuron target, pass or plugin; our plugins bring what they
# know through the registrar. hlo-gen may keep making Neuron-style test
# modules. Fails, printing the offending lines, when the grep finds any.
set -euo pipefail

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$ROOT"
if found="$(grep -rniE 'aws_?neuron|neuron_|libneuron|NeuronBoundaryMarker' core include tools \
              --exclude-dir=hlo_gen)"; then
  echo "core/, include/ or tools/ names our plugins' targets, passes or files:" >&2
  echo "$found" >&2
  exit 1
fi
echo "plugin boundary: core/, include/ and tools/ name no plugin of ours"

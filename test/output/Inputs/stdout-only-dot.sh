#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for Graphviz's dot in test/output/graphviz.hlo: draws only to
# its standard output, and fails if asked to open an output file itself
# (-o), which a planted link could redirect.
for arg in "$@"; do
  case "$arg" in
    -o*) echo "Error: asked to write a file of its own: $arg" >&2; exit 9 ;;
  esac
done
echo '<svg>drawn</svg>'

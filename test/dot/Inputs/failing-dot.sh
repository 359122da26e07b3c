#!/bin/sh
# Stands in for Graphviz's dot in test/dot/svg.hlo: always fails.
echo "Error: this dot always fails" >&2
exit 3

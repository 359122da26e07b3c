#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for Graphviz's dot in test/dot/svg.hlo: always fails.
echo "Error: this dot always fails" >&2
exit 3

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for Graphviz's dot in test/output/interrupt-compare.hlo: never
# finishes in time, so that the run calling it can be interrupted there.
exec /bin/sleep 20 </dev/null >/dev/null 2>&1

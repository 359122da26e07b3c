#!/usr/bin/env bash
# Conformance run of hopt over an XLA HLO corpus; see scripts/conformance.py.
# Usage: scripts/conformance.sh DIR [--hopt PATH] [--jobs N] [--min-other-pct P]
#                                   [--verbose] [--write-failures FILE]
set -euo pipefail
exec python3 "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/conformance.py" "$@"

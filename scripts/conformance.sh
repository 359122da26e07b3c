#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Conformance run of hopt's HLO reader/writer over an XLA corpus.
# Usage: scripts/conformance.sh DIR [-min-other-pct=P] [-write-failures=FILE] [-list=N]
#                                   [-proto-roundtrip]
#
# DIR layout:
#   parser_roundtrip/long/*.hlo     printed back with operand shapes: byte-exact
#   parser_roundtrip/short/*.hlo    printed back in the short form: byte-exact
#   parser_roundtrip/nonroundtrip/X.input.hlo -> X.expected.hlo (short form)
#   every other DIR/*/*.hlo         parses, verifies (or is reported cleanly by
#                                   the verifier) and print -> parse -> print is
#                                   a fixpoint
#   manifest.tsv                    kind=parser_test:other_maybe_error marks
#                                   files XLA may reject: they must not crash
# scripts/conformance-verifier-expected.txt lists the texts of XLA's corpus
# that hopt refuses and why (XLA refuses them too, or a difference kept on
# purpose, docs/formats.md); the run then splits its verifier reports and
# rejections by kind. Give -verifier-expected=FILE for another list.
# With -proto-roundtrip, every file that parses is checked instead through
# the protobuf form: text -> pb -> text identical, pb -> text -> pb the same
# bytes (pass rate of the parsed files, target -min-other-pct).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$root/build/tools/hlo-conformance"
if [ ! -x "$tool" ]; then
  echo "conformance: $tool is missing; run scripts/setup.sh first" >&2
  exit 2
fi
list="$root/scripts/conformance-verifier-expected.txt"
for arg in "$@"; do
  case "$arg" in -verifier-expected=*|--verifier-expected=*) list="" ;; esac
done
if [ -n "$list" ] && [ -f "$list" ]; then
  exec "$tool" -verifier-expected="$list" "$@"
fi
exec "$tool" "$@"

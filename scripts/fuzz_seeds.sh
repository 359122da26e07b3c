#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the fuzz targets' seed corpora from the bundled examples, the lit
# tests' HLO files and small hlo-gen modules (every feature set, several
# meshes), plus their .pb and .pbtxt forms for the proto reader.
#
# usage: scripts/fuzz_seeds.sh BUILD_DIR OUT_DIR
#   OUT_DIR/text_parser_fuzzer    HLO text
#   OUT_DIR/proto_reader_fuzzer   one selector byte (0: binary, 1: text format) + the proto
#   OUT_DIR/pass_pipeline_fuzzer  one pass-selector byte + HLO text
#   OUT_DIR/interpreter_fuzzer    bytes its grammar reads (fixed pseudo-random ones)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$1"
OUT="$2"
HOPT="$BUILD/tools/hopt"
GEN="$BUILD/tools/hlo-gen"
MAX_BYTES=65536  # the targets run with -max_len=65536

rm -rf "$OUT"
mkdir -p "$OUT/text_parser_fuzzer" "$OUT/proto_reader_fuzzer" "$OUT/pass_pipeline_fuzzer" \
  "$OUT/.work"
TEXT="$OUT/text_parser_fuzzer"

n=0
add_text() {  # add_text FILE
  local size
  size=$(stat -c %s "$1")
  ((size > 0 && size <= MAX_BYTES)) || return 0
  n=$((n + 1))
  cp "$1" "$TEXT/seed-$n.hlo"
}

while IFS= read -r -d '' file; do add_text "$file"; done \
  < <(find "$ROOT/examples" "$ROOT/test" -name '*.hlo' -print0 | sort -z)

mesh=0
for features in none collectives fuse-reduce-scatter permute send-recv token-all-reduce \
                int-reductions while-loop all; do
  for layers in 1 2; do
    mesh=$((mesh + 1))
    case $((mesh % 3)) in 0) r=8; p=1 ;; 1) r=2; p=4 ;; *) r=1; p=8 ;; esac
    args=(-layers="$layers" -filler=3 -hidden=4 -batch=2 -replicas="$r" -partitions="$p"
          -seed="$mesh")
    [[ "$features" != none ]] && args+=(-features="$features")
    "$GEN" "${args[@]}" -o "$OUT/.work/gen.hlo"
    add_text "$OUT/.work/gen.hlo"
  done
done

# Proto seeds: every text seed hopt reads and writes as a module.
p=0
for file in "$TEXT"/*.hlo; do
  for format in pb pbtxt; do
    if "$HOPT" -verify=false "$file" -o "$OUT/.work/seed.$format" 2>/dev/null; then
      p=$((p + 1))
      if [[ $format == pb ]]; then printf '\x00'; else printf '\x01'; fi \
        > "$OUT/proto_reader_fuzzer/seed-$p"
      cat "$OUT/.work/seed.$format" >> "$OUT/proto_reader_fuzzer/seed-$p"
    fi
  done
done

# Pipeline seeds: each text seed behind a selector byte; the bytes cycle so
# that every pass (and the run of all passes) starts with some seeds.
i=0
for file in "$TEXT"/*.hlo; do
  printf "\\x$(printf %02x $((i % 256)))" > "$OUT/pass_pipeline_fuzzer/seed-$i"
  cat "$file" >> "$OUT/pass_pipeline_fuzzer/seed-$i"
  i=$((i + 1))
done

# Grammar seeds: the interpreter fuzzer writes its modules from bytes, so
# its seeds are bytes, the same ones every run.
mkdir -p "$OUT/interpreter_fuzzer"
python3 - "$OUT/interpreter_fuzzer" <<'PY'
import random, sys
rng = random.Random(42)
for k in range(64):
    with open(f"{sys.argv[1]}/seed-{k}", "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(64 + 4 * k)))
PY

rm -rf "$OUT/.work"
echo "[fuzz-seeds] $n text, $p proto, $i pipeline, 64 grammar seeds in $OUT"

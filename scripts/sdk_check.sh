#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed SDK, as a vendor meets it: installs hopt from BUILD_DIR
# (default build/) into a temporary DESTDIR, builds examples/vendor-plugin/
# from a copy outside the source tree through pkg-config only, and runs
# the installed hopt with it, and runs its gtest (through the installed test
# kit) and its lit test. The build tree is never moved or touched
# (a renamed build/ was lost when the script was interrupted, and nested
# when another build recreated it): the vendor build runs in a clean
# environment (env -i) that names only the DESTDIR, and is then checked
# not to have seen the build tree or the source tree: no path of either
# in its compile commands or build.ninja, and every library its outputs
# load resolves inside the DESTDIR (ldd). The installed hopt needs no
# hiding: only a binary in the build tree reads the build-tree plugin
# marker (tools/meson.build).
#   - the installed hopt runs from the DESTDIR (RUNPATH $ORIGIN) and finds
#     its own plugins by bare name, with no HOPT_PLUGIN_PATH or
#     LD_LIBRARY_PATH;
#   - -override-passes: -list-passes names the override;
#   - -compare-with the faithful replacement: exit 0;
#   - -compare-with the deliberately buggy one: exit 1, the pass named.
# Exits non-zero at the first check that fails, saying which.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="$(cd "${1:-$ROOT/build}" && pwd)"
WORK="$(mktemp -d /tmp/hopt-sdk-check.XXXXXX)"

say() { echo "[sdk] $*"; }
fail() { echo "[sdk] FAILED: $*" >&2; exit 1; }

trap 'rm -rf "$WORK"' EXIT

say "meson install --destdir $WORK/root"
meson install -C "$BUILD_DIR" --destdir "$WORK/root" --no-rebuild --quiet
PREFIX="$WORK/root$(meson introspect "$BUILD_DIR" --buildoptions |
  python3 -c 'import json,sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')"
PC="$(find "$PREFIX" -name hopt.pc -print -quit)"
[[ -n "$PC" ]] || fail "no hopt.pc installed"
HOPT="$PREFIX/bin/hopt"
# The SDK's headers: the public ones only, spelled "hopt/...".
INCLUDEDIR="$(find "$PREFIX" -path '*/include/hopt' -type d -print -quit)"
[[ -f "$INCLUDEDIR/ir/module.h" && -f "$INCLUDEDIR/hopt-config.h" ]] ||
  fail "no hopt/ir/module.h or hopt/hopt-config.h under <includedir>"
[[ ! -e "$INCLUDEDIR/core" ]] || fail "<includedir>/hopt/core exists: internal paths leaked"
installed="$(find "$INCLUDEDIR" -type f \( -name '*.h' -o -name '*.def' \) | wc -l)"
listed="$(grep -cvE '^(#|$)' "$ROOT/include/hopt/public_headers.txt")"
(( installed == listed + 1 )) ||
  fail "$installed headers installed, expected $listed public ones and hopt-config.h"
say "headers: $installed under <includedir>/hopt"
cp -r "$ROOT/examples/vendor-plugin" "$WORK/src"
cp "$ROOT/examples/vendor-plugin/scalar_reduce.hlo" "$WORK/in.hlo"

# A vendor's environment: the system's PATH and the DESTDIR's pkg-config
# directory, nothing inherited (no HOPT_PLUGIN_PATH, LD_LIBRARY_PATH,
# CPATH, LIBRARY_PATH, PKG_CONFIG_PATH of ours).
vendor_env=(env -i HOME="$WORK" PATH=/usr/local/bin:/usr/bin:/bin
            PKG_CONFIG_PATH="$(dirname "$PC")")
unset HOPT_PLUGIN_PATH LD_LIBRARY_PATH

say "pkg-config: $("${vendor_env[@]}" pkg-config --modversion hopt)," \
  "plugindir $("${vendor_env[@]}" pkg-config --variable=plugindir hopt)"
say "building examples/vendor-plugin out of tree (env -i)"
"${vendor_env[@]}" meson setup "$WORK/vbuild" "$WORK/src" > "$WORK/setup.log" 2>&1 ||
  { cat "$WORK/setup.log"; fail "meson setup of the vendor plugin"; }
"${vendor_env[@]}" ninja -C "$WORK/vbuild" > "$WORK/ninja.log" 2>&1 ||
  { cat "$WORK/ninja.log"; fail "building the vendor plugin"; }
VENDOR="$WORK/vbuild/libvendor_scalar_reduce.so"
BUGGY="$WORK/vbuild/libvendor_scalar_reduce_buggy.so"

# The vendor build saw the DESTDIR only: neither the build tree nor the
# source tree appears in how it compiled and linked.
for tree in "$BUILD_DIR" "$ROOT"; do
  if grep -l -F "$tree/" "$WORK/vbuild/compile_commands.json" "$WORK/vbuild/build.ninja"; then
    { grep -h -F "$tree/" "$WORK/vbuild/build.ninja" || true; } | head -3 | cut -c1-300
    fail "the vendor build names $tree"
  fi
done
# ... nor in where what it built looks for libraries at run time.
for built in "$WORK/vbuild"/*.so; do
  runpath="$(readelf -d "$built" | grep -E 'R(UN)?PATH' || true)"
  for tree in "$BUILD_DIR" "$ROOT"; do
    [[ "$runpath" != *"$tree/"* ]] || fail "$built looks for libraries in $tree: $runpath"
  done
done
say "the vendor build names neither $BUILD_DIR nor $ROOT"

# The example's own tests, as its author runs them: the gtest through the
# installed test kit (hopt-testing.pc) and the lit test through the
# installed hopt and LLVM's FileCheck.
say "meson test: the vendor plugin's gtest and lit test"
"${vendor_env[@]}" meson test -C "$WORK/vbuild" --print-errorlogs > "$WORK/test.log" 2>&1 ||
  { cat "$WORK/test.log"; fail "the vendor plugin's tests"; }
grep -E '^ *[0-9]+/[0-9]+ ' "$WORK/test.log"
# How many each ran (gtest's and lit's own summaries).
grep -hE '^\[  PASSED  \]|^ *Passed *:' "$WORK/vbuild/meson-logs/testlog.txt" || true
for name in gtest lit; do
  grep -qE "^ *[0-9]+/[0-9]+ +(vendor-scalar-reduce:)?$name +OK" "$WORK/test.log" ||
    { cat "$WORK/test.log"; fail "the vendor plugin's $name test did not run and pass"; }
done

"$HOPT" -version
"$HOPT" -load=libneuron_decompose.so -passes=aws_neuron_decompose_scalar_reduce \
  "$WORK/in.hlo" -o "$WORK/ours.hlo" || fail "installed hopt with its own plugin"

listing="$("$HOPT" -load=libneuron_decompose.so -load="$VENDOR" -override-passes -list-passes)"
grep -E 'aws_neuron_decompose_scalar_reduce .*vendor_scalar_reduce 1\.0\.0.*'\
'overrides neuron_decompose' \
  <<<"$listing" || { echo "$listing"; fail "-list-passes does not name the override"; }

say "-compare-with the faithful replacement (expect exit 0)"
"$HOPT" -load=libneuron_decompose.so -compare-with="$VENDOR" \
  -passes=aws_neuron_decompose_scalar_reduce "$WORK/in.hlo" -o "$WORK/out.hlo" ||
  fail "-compare-with the faithful replacement exited $?"

say "-compare-with the buggy replacement (expect exit 1)"
status=0
"$HOPT" -load=libneuron_decompose.so -compare-with="$BUGGY" \
  -passes=aws_neuron_decompose_scalar_reduce "$WORK/in.hlo" -o "$WORK/bad.hlo" \
  2> "$WORK/bad.err" || status=$?
cat "$WORK/bad.err"
((status == 1)) || fail "-compare-with the buggy replacement exited $status, not 1"
grep -q "aws_neuron_decompose_scalar_reduce" "$WORK/bad.err" \
  || fail "the report does not name the pass"
[[ ! -e "$WORK/bad.hlo" ]] || fail "an output file was written although the comparison failed"
say "all green"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The mutation table of docs/testing.md ("Mutation testing: the prover
# against wrong passes"): every mutant of test/plugins/mutants.def run with
# -prove-equivalence on its input, and with the random-input
# -verify-equivalence (seed 1, 3 input sets; whole module, then per region),
# then the real passes on the same inputs. Prints markdown.
#
#   scripts/mutation-table.sh BUILD [OUTDIR]
#
# BUILD is a Meson build directory with hopt, hlo-gen, the plugins and the mutants
# test plugin (libhopt_test_mutants.so) built. OUTDIR (default: a temporary
# directory) keeps each mutant's log and counterexample (NAME.args, the
# hlo-run -args file, with NAME.args.before.hlo and NAME.args.after.hlo).
# Exit status 1 if a mutant is not caught with a confirmed counterexample
# or a real pass is not proved.
set -u

build=${1:?usage: scripts/mutation-table.sh BUILD [OUTDIR]}
out=${2:-$(mktemp -d)}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
hopt="$build/tools/hopt"
load=()
for family in markers collectives decompose partition; do
  load+=("-load=$build/plugins/libneuron_$family.so")
done
mutants=("-load=$build/test/plugins/libhopt_test_mutants.so")

# The inputs mutants.def names. The *_calls ones are what
# convert-custom-call-to-collectives reads: the custom-calls its inverse makes.
declare -A input=(
  [train_step]="$src/examples/train_step.hlo"
  [int]="$src/test/prove/Inputs/mutants-int.hlo"
  [variadic]="$src/test/prove/Inputs/mutants-variadic.hlo"
  [train_step_calls]="$out/train_step_calls.hlo"
  [int_calls]="$out/int_calls.hlo"
  [gen_1x8]="$out/gen_1x8.hlo"
)
"$build/tools/hlo-gen" -layers=2 -replicas=1 -partitions=8 -filler=4 -features=all \
  -o "${input[gen_1x8]}" || exit 2
for name in train_step int; do
  "$hopt" "${load[@]}" -passes=convert-collectives-to-custom-call "${input[$name]}" \
    -o "${input[${name}_calls]}" || exit 2
done

# "caught" when the random check reports a difference, "missed" when it
# finds all outputs identical.
random_check() {  # MODE PASS INPUT LOG
  if "$hopt" "${load[@]}" "${mutants[@]}" -passes="$2" -verify-equivalence="$1" "$3" \
      -o "$4.hlo" >"$4" 2>&1; then
    echo missed
  else
    echo caught
  fi
}

status=0
echo "| mutant | pass | corruption | input | -prove-equivalence | where |" \
  "random, whole | random, region |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
# MUTANT("NAME", "PASS", kCORRUPTION, "SITE", "INPUT")
while read -r name pass corruption which; do
  log="$out/$name.log"
  "$hopt" "${load[@]}" "${mutants[@]}" -passes="$name" -prove-equivalence \
    -counterexample-file="$out/$name.args" "${input[$which]}" -o "$out/$name.out" >"$log" 2>&1
  code=$?
  if grep -q "counterexample confirmed by the interpreter" "$log" && [ "$code" = 1 ] &&
      [ ! -e "$out/$name.out" ]; then
    verdict="counterexample, confirmed"
    # When the solver gives no answer the prover still tries random inputs,
    # then inputs at the edges of their types.
    if grep -q "found on random inputs" "$log"; then
      verdict="$verdict (random inputs, after the solver's time-out)"
    elif grep -q "found on inputs with every element" "$log"; then
      verdict="$verdict (edge inputs, after the solver's time-out)"
    fi
    element='device [0-9]* ([^)]*), output {[0-9,]*}, element \[[0-9,]*\]'
    moved='output [^,]*, on every device'
    where=$(grep -o "$element\\|$moved" "$log" | head -1)
  else
    # "proved" here is a wrong verdict; "unknown" carries its reason.
    verdict=$(grep -o "pass $name: .*" "$log" | head -1 |
      sed -e "s/^pass $name: //" -e 's/^proved.*/**proved** (wrong)/' \
          -e 's/^unknown (.*after): /**unknown**: /')
    [ -n "$verdict" ] || verdict="**error**: $(grep -m1 error "$log" | cut -c1-80)"
    where=""
    status=1
  fi
  corruption=$(echo "$corruption" | sed -E 's/([a-z])([A-Z])/\1 \2/g' | tr 'A-Z' 'a-z')
  whole=$(random_check whole "$name" "${input[$which]}" "$out/$name.random-whole.log")
  region=$(random_check region "$name" "${input[$which]}" "$out/$name.random-region.log")
  echo "| \`$name\` | $pass | $corruption | $which | $verdict | $where | $whole | $region |"
done < <(sed -n \
  's/^MUTANT("\([^"]*\)", "\([^"]*\)", k\([A-Za-z]*\), "[^"]*", "\([^"]*\)")$/\1 \2 \3 \4/p' \
  "$src/test/plugins/mutants.def")

echo
echo "| real pass | input | -prove-equivalence |"
echo "| --- | --- | --- |"
while read -r pass which; do
  line=$("$hopt" "${load[@]}" -passes="$pass" -prove-equivalence "${input[$which]}" \
    -o "$out/real.$pass.$which.hlo" 2>&1 | grep "pass $pass:" |
    sed 's/.*: pass [^:]*: //; s/; [0-9.]* s[^)]*)/)/')
  echo "| $pass | $which | $line |"
  case "$line" in proved*) ;; *) status=1 ;; esac
done < <(sed -n 's/^MUTANT("[^"]*", "\([^"]*\)", k[A-Za-z]*, "[^"]*", "\([^"]*\)")$/\1 \2/p' \
  "$src/test/plugins/mutants.def" | sort -u)
exit "$status"

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Which opcodes the interpreter runs, measured by running modules.

  interp_coverage.py --hlo-run build/tools/hlo-run DIR... [--tries N] [--jobs J]

For every opcode in include/hopt/ir/opcodes.def, modules under the DIRs
(HLO text files, searched recursively) that use it are run by hlo-run on
seeded random arguments, smallest first, until one tells: a run that ends
with a result shows the opcode runs; an error naming the opcode as one the
interpreter does not run shows it does not. Runs that fail for another
reason (an argument budget, another opcode, a verifier error) tell
nothing, and the next module is tried. Prints one line per opcode and the
counts; exits 1 when an opcode is found not to run.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# `name = shape opcode(` on an instruction line; the shape may hold spaces
# inside a tuple, so the opcode is the last word before the first '(' that
# follows the shape.
INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(.*)$")
OPCODE_CALL = re.compile(r"(?:^|[\s)\]}])([a-z][a-z0-9\-]*)\(")


def opcodes():
    spellings = []
    with open(os.path.join(ROOT, "include", "hopt", "ir", "opcodes.def")) as f:
        for line in f:
            m = re.match(r'HLO_OPCODE\(\w+, "([^"]+)"', line)
            if m:
                spellings.append(m.group(1))
    return spellings


def opcodes_in(text, known):
    """The opcodes a module's instructions use (async shorthands such as
    custom-call-start count as async-start)."""
    found = set()
    for line in text.splitlines():
        m = INSTRUCTION.match(line)
        if not m:
            continue
        for word in OPCODE_CALL.findall(m.group(1)):
            if word in known:
                found.add(word)
                break
            for suffix in ("-start", "-update", "-done"):
                if word.endswith(suffix) and word[: -len(suffix)] in known:
                    found.add("async" + suffix)
                    break
            else:
                continue
            break
    return found


def run(hlo_run, path):
    try:
        done = subprocess.run([hlo_run, path], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    return done.returncode, done.stderr


def verdict(opcode, code, stderr):
    """'runs', 'not run: ...' or None (the run tells nothing of `opcode`)."""
    if code == 0:
        return "runs"
    if code is None or stderr is None:
        return None
    for m in re.finditer(r"interpreter: \S+ \(([a-z0-9\-]+)\): (.*)", stderr):
        spelled, why = m.group(1), m.group(2).strip()
        if spelled != opcode:
            continue
        if "this opcode is not supported by the interpreter" in why:
            return "not run: " + why
        # infeed and outfeed: no host program feeds or drains them.
        if "which the interpreter does not have" in why:
            return "cannot run: host I/O"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hlo-run", default=os.path.join(ROOT, "build", "tools", "hlo-run"))
    parser.add_argument("--tries", type=int, default=12, help="modules tried per opcode")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()

    known = opcodes()
    users = {op: [] for op in known}
    for directory in args.dirs:
        for base, _, names in os.walk(directory):
            for name in names:
                if not name.endswith(".hlo"):
                    continue
                path = os.path.join(base, name)
                try:
                    with open(path, errors="replace") as f:
                        text = f.read()
                except OSError:
                    continue
                if "ENTRY" not in text:
                    continue
                for op in opcodes_in(text, set(known)):
                    users[op].append((len(text), path))

    def decide(op):
        for _, path in sorted(users[op])[: args.tries]:
            code, stderr = run(args.hlo_run, path)
            v = verdict(op, code, stderr)
            if v is not None:
                return op, v, path
        if not users[op]:
            return op, "no module uses it", ""
        return op, "untold: no module using it ran", ""

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(decide, known))

    counts = {"runs": 0, "not run": 0, "cannot run": 0, "untold": 0}
    for op, v, path in results:
        key = next((k for k in ("runs", "not run", "cannot run") if v.startswith(k)), "untold")
        counts[key] += 1
        where = os.path.relpath(path) if path else ""
        print(f"{op:28} {v:40} {where}")
    print(f"interp-coverage: {len(known)} opcodes: {counts['runs']} run, {counts['not run']} "
          f"not run, {counts['cannot run']} cannot run (host I/O), {counts['untold']} without a "
          "module that tells")
    return 1 if counts["not run"] else 0


if __name__ == "__main__":
    sys.exit(main())

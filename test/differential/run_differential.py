#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Runs a family's random cases on hlo-run and compares them with numpy.

  run_differential.py --hlo-run build/tools/hlo-run --family gather_scatter \
      [--cases 300] [--seed 1] [--ops gather,scatter] [--keep DIR]

Prints one line per opcode (`gather: 300 cases from seed 1, all equal to
numpy`) and exits 1 on the first family with a difference, after writing
each failing case's module to DIR (or a temporary directory) so that
`hlo-run FILE` replays it.
"""

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

SEPARATOR = "// -----"


def run_batch(hlo_run: str, cases, workdir: str, timeout: float):
    """Per case: (stdout lines, ok). One hlo-run process for the batch."""
    path = os.path.join(workdir, "batch.hlo")
    with open(path, "w") as f:
        f.write(f"\n{SEPARATOR}\n".join(case.hlo for case in cases))
    done = subprocess.run([hlo_run, "-split-input-file", path], capture_output=True, text=True,
                          timeout=timeout)
    chunks = [[]]
    for line in done.stdout.splitlines():
        if line == SEPARATOR:
            chunks.append([])
        else:
            chunks[-1].append(line)
    if len(chunks) != len(cases):
        raise RuntimeError(f"hlo-run printed {len(chunks)} results for {len(cases)} modules "
                           f"(exit {done.returncode}):\n{done.stderr[-2000:]}")
    return chunks, done.stderr


def check_case(case, lines):
    """None when the case's result equals numpy's, else a description."""
    results = [l for l in lines if l.startswith("device ")]
    if not results:
        return "hlo-run gave no result"
    try:
        got = harness.parse_result(results[0], case.expected)
    except (ValueError, IndexError) as e:
        return f"cannot read the result ({e}): {results[0][:500]}"
    for k, ((hlo_type, want), have) in enumerate(zip(case.expected, got)):
        diff = harness.first_difference(hlo_type, want, have, case.tolerance)
        if diff is not None:
            index, w, g = diff
            return (f"output {k} ({hlo_type}{list(np.shape(want))}) differs at {index}: numpy "
                    f"{w}, hlo-run {g} (tolerance {case.tolerance})")
    return None


def replay_error(hlo_run: str, path: str) -> str:
    done = subprocess.run([hlo_run, path], capture_output=True, text=True, timeout=120)
    return done.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hlo-run", required=True)
    parser.add_argument("--family", required=True, help="<family>_cases.py beside this script")
    parser.add_argument("--cases", type=int, default=300, help="random cases per opcode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ops", default="", help="comma-separated opcodes (default: all)")
    parser.add_argument("--batch", type=int, default=100, help="modules per hlo-run process")
    parser.add_argument("--keep", default="", help="where failing cases are written")
    args = parser.parse_args()

    family = importlib.import_module(f"{args.family}_cases")
    ops = [op for op in args.ops.split(",") if op] or list(family.GENERATORS)
    unknown = [op for op in ops if op not in family.GENERATORS]
    if unknown:
        print(f"differential: {args.family} has no generator for {', '.join(unknown)}")
        return 2
    keep = args.keep or tempfile.mkdtemp(prefix=f"differential-{args.family}-")
    os.makedirs(keep, exist_ok=True)
    failures = 0
    total = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as workdir:
        for op in ops:
            rng = np.random.default_rng([args.seed, zlib.crc32(op.encode())])
            cases = [family.GENERATORS[op](rng) for _ in range(args.cases)]
            op_failures = 0
            for first in range(0, len(cases), args.batch):
                batch = cases[first:first + args.batch]
                chunks, stderr = run_batch(args.hlo_run, batch, workdir, timeout=600)
                for offset, (case, lines) in enumerate(zip(batch, chunks)):
                    problem = check_case(case, lines)
                    if problem is None:
                        continue
                    op_failures += 1
                    if op_failures <= 3:
                        path = os.path.join(keep, f"{op}-case{first + offset}.hlo")
                        with open(path, "w") as f:
                            f.write(case.hlo + "\n")
                        if problem == "hlo-run gave no result":
                            problem += ": " + replay_error(args.hlo_run, path)
                        print(f"FAIL {op} case {first + offset} (seed {args.seed}): {problem}\n"
                              f"  replay: {args.hlo_run} {path}"
                              + (f"\n  note: {case.note}" if case.note else ""))
            total += len(cases)
            failures += op_failures
            if op_failures:
                print(f"{op}: {op_failures} of {len(cases)} cases from seed {args.seed} differ "
                      "from numpy")
            else:
                print(f"{op}: {len(cases)} cases from seed {args.seed}, all equal to numpy")
    print(f"differential {args.family}: {total - failures} passed, {failures} failed "
          f"in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Reading a large module from XLA's binary protobuf versus from HLO text.

Generates a module with hlo-gen (-layers=96: 503,157 instructions), writes
it as .pb with hopt, then times, best of --repeat runs each,
  hopt in.hlo -time-read -verify=false -o out.pb
  hopt in.pb  -time-read -verify=false -o out.pb
and prints the read time (hopt's -time-read) and the wall time of both and
the ratios. Both runs write the same output, so the wall times differ only
in the reading. Reading the .pb must be faster than reading the text.
"""

import argparse
import os
import re
import sys

from bench_util import (add_record_option, markdown_table, measure, record, run_checked,
                        work_dir)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_run(argv, log, repeat):
    best_read, best_wall = None, None
    for _ in range(repeat):
        status, wall, _ = measure(argv, log)
        with open(log) as f:
            report = f.read()
        if status != 0:
            raise RuntimeError(f"{' '.join(argv)} failed (exit {status}):\n{report[-2000:]}")
        m = re.search(r"^hopt: read .*: ([0-9.]+) s$", report, re.M)
        if not m:
            raise RuntimeError(f"no read time in:\n{report[-2000:]}")
        read = float(m.group(1))
        best_read = read if best_read is None else min(best_read, read)
        best_wall = wall if best_wall is None else min(best_wall, wall)
    return best_read, best_wall


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(REPO_ROOT, "build"),
                        help="build directory (default: build)")
    parser.add_argument("--layers", type=int, default=96, help="hlo-gen -layers (default 96)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per form, best taken")
    parser.add_argument("--keep", help="keep the generated files in this directory")
    add_record_option(parser)
    args = parser.parse_args()
    hopt = os.path.join(args.build, "tools", "hopt")
    hlo_gen = os.path.join(args.build, "tools", "hlo-gen")
    with work_dir(args.keep, "proto_bench.") as work:
        hlo = os.path.join(work, "in.hlo")
        pb = os.path.join(work, "in.pb")
        log = os.path.join(work, "log.txt")
        report, _ = run_checked([hlo_gen, f"-layers={args.layers}", "-report", "-o", hlo], log,
                                "hlo-gen")
        print(report.strip())
        run_checked([hopt, hlo, "-verify=false", "-o", pb], log, "hopt (writing .pb)")
        print(f"text {os.path.getsize(hlo) / 1e6:.1f} MB, pb {os.path.getsize(pb) / 1e6:.1f} MB")
        common = ["-time-read", "-verify=false", "-o", os.path.join(work, "out.pb")]
        text_read, text_wall = best_run([hopt, hlo] + common, log, args.repeat)
        pb_read, pb_wall = best_run([hopt, pb] + common, log, args.repeat)
        print(f"read from text: {text_read:.3f} s   (whole run {text_wall:.3f} s)")
        print(f"read from .pb:  {pb_read:.3f} s   (whole run {pb_wall:.3f} s)")
        print(f"ratio text/pb:  read {text_read / pb_read:.2f}x, whole run "
              f"{text_wall / pb_wall:.2f}x")
        ok = pb_read < text_read
        print("proto_bench:", "PASS (.pb reads faster)" if ok else "FAIL (.pb reads slower)")
        if args.record:
            match = re.search(r"([0-9]+) instructions", report)
            instructions = f": {int(match.group(1)):,} instructions" if match else ""
            figures = markdown_table(
                ["input", f"read (best of {args.repeat})", "whole run (read + write `.pb`)"],
                [["text", f"{text_read:.3f} s", f"{text_wall:.3f} s"],
                 ["`.pb`", f"{pb_read:.3f} s", f"{pb_wall:.3f} s"]])
            figures += (f"\n\n`hlo-gen -layers={args.layers}`"
                        f"{instructions}"
                        f", {os.path.getsize(hlo) / 1e6:.1f} MB of text, "
                        f"{os.path.getsize(pb) / 1e6:.1f} MB of `.pb`. Read time, text over "
                        f"`.pb`: **{text_read / pb_read:.2f}×** (target > 1: "
                        f"{'PASS' if ok else 'FAIL'}).")
            record(args.record, __file__, figures, build=args.build)
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

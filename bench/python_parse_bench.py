#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""hopt.parse + Module.to_text from Python versus the hopt binary, same work.

On the chain of parse_print_bench.py (N elementwise ops over f32[8,128],
500,000 by default), times, best of --repeat runs each:
  driver  `hopt chain.hlo -o out.hlo`, wall time of the process
  python  in a child of the module's interpreter (--python): read the file's
          bytes, hopt.parse (which verifies, as hopt does), to_text, write it; the
          time from before the read to after the write, interpreter start
          and `import hopt` left out
and prints both, the ratio python / driver, and whether it is within the
target (1.2). The outputs are compared byte for byte.
"""

import argparse
import os
import subprocess
import sys

from bench_util import add_record_option, markdown_table, measure, record, resolve, work_dir
from parse_print_bench import write_hlo

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HOPT = os.path.join(REPO_ROOT, "build", "tools", "hopt")
DEFAULT_PYTHONPATH = os.path.join(REPO_ROOT, "build", "python")
TARGET = 1.2

CHILD = """
import sys, time
import hopt
source, out = sys.argv[1], sys.argv[2]
start = time.perf_counter()
with open(source, "rb") as f:
    text = f.read()
module = hopt.parse(text, format="text", name=source)
printed = module.to_text()
with open(out, "w") as f:
    f.write(printed)
print("%.6f" % (time.perf_counter() - start))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500000, help="instructions (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each (default: %(default)s)")
    ap.add_argument("--hopt", default=DEFAULT_HOPT, help="hopt binary (default: %(default)s)")
    add_record_option(ap)
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="the interpreter the module was built for (default: %(default)s)")
    ap.add_argument("--pythonpath", default=DEFAULT_PYTHONPATH,
                    help="where the package hopt is (default: %(default)s)")
    args = ap.parse_args()
    hopt = resolve(args.hopt)
    if hopt is None:
        sys.exit("error: no hopt at %s; build it first" % args.hopt)
    env = dict(os.environ, PYTHONPATH=args.pythonpath)
    with work_dir(None, "hopt-python-bench-") as workdir:
        chain = os.path.join(workdir, "chain.hlo")
        write_hlo(chain, args.n)
        driver_out = os.path.join(workdir, "driver.hlo")
        python_out = os.path.join(workdir, "python.hlo")
        driver, python = [], []
        for i in range(args.repeat):
            code, wall, _ = measure([hopt, chain, "-o", driver_out],
                                    os.path.join(workdir, "driver.log"))
            if code != 0:
                sys.exit("error: hopt failed (exit status %d)" % code)
            driver.append(wall)
            done = subprocess.run([args.python, "-c", CHILD, chain, python_out], env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit("error: the Python run failed:\n" + done.stderr)
            python.append(float(done.stdout))
            print("  run %d: driver %.3f s, python %.3f s" % (i + 1, wall, python[-1]))
        with open(driver_out, "rb") as a, open(python_out, "rb") as b:
            if a.read() != b.read():
                sys.exit("error: the two outputs differ")
    best_driver, best_python = min(driver), min(python)
    ratio = best_python / best_driver
    print("python_parse_bench: %d instructions: driver %.3f s, python %.3f s, ratio %.2f "
          "(target <= %.1f): %s" % (args.n, best_driver, best_python, ratio, TARGET,
                                   "PASS" if ratio <= TARGET else "FAIL"))
    if args.record:
        figures = markdown_table(
            ["%s instructions, best of %d" % (format(args.n, ","), args.repeat), "time"],
            [["`hopt chain.hlo -o out.hlo` (the process)", "%.3f s" % best_driver],
             ["`hopt.parse` + `Module.to_text` (read and write included)",
              "%.3f s" % best_python]])
        figures += ("\n\nRatio **%.2f** (target ≤ %.1f: %s); the two outputs are the same bytes."
                    % (ratio, TARGET, "PASS" if ratio <= TARGET else "FAIL"))
        record(args.record, __file__, figures, build=os.path.dirname(os.path.dirname(hopt)))
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

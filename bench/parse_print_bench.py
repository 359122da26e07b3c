#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Parse + verify + print throughput of hopt versus mlir-opt on one big chain.

Generates the same straight-line program twice in a temporary directory:
  chain.hlo   XLA HLO text (short form), N elementwise ops over f32[8,128]
  chain.mlir  generic MLIR, N unregistered "hlo.*" ops inside one func.func
then times, one after the other,
  hopt chain.hlo -o out.hlo
  mlir-opt-16 --allow-unregistered-dialect chain.mlir -o out.mlir
and reports wall time and peak RSS (ru_maxrss from os.wait4) of each child,
best of --repeat runs.

Note on RSS: Linux carries the parent's high-water RSS over into a child at
exec time, so ru_maxrss of a child can never be below this script's own RSS.
The generators stream to disk to keep that floor small; the floor is printed
so that small figures can be judged.
"""

import argparse
import os
import sys
import time

from bench_util import (add_record_option, markdown_table, measure, record, resolve,
                        work_dir)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HOPT = os.path.join(REPO_ROOT, "build", "tools", "hopt")
OPS = ("add", "multiply", "subtract")
SPEEDUP_TARGET = 5.0   # hopt at least 5x faster than mlir-opt
MEMORY_TARGET = 1 / 3  # hopt at most 1/3 of mlir-opt's peak RSS


def write_hlo(path, n):
    ty = "f32[8,128]{1,0}"
    with open(path, "w", buffering=1 << 20) as f:
        f.write("HloModule chain\n\nENTRY main {\n")
        f.write("  p0 = %s parameter(0)\n" % ty)
        f.write("  p1 = %s parameter(1)\n" % ty)
        prev = "p0"
        for i in range(1, n + 1):
            op = OPS[(i - 1) % len(OPS)]
            name = "%s.%d" % (op, i)
            root = "ROOT " if i == n else ""
            f.write("  %s%s = %s %s(%s, p1)\n" % (root, name, ty, op, prev))
            prev = name
        f.write("}\n")


def write_mlir(path, n):
    t = "tensor<8x128xf32>"
    sig = "(%s, %s) -> %s" % (t, t, t)
    with open(path, "w", buffering=1 << 20) as f:
        f.write("func.func @main(%%p0: %s, %%p1: %s) -> %s {\n" % (t, t, t))
        prev = "%p0"
        for i in range(1, n + 1):
            op = OPS[(i - 1) % len(OPS)]
            f.write('  %%%d = "hlo.%s"(%s, %%p1) : %s\n' % (i, op, prev, sig))
            prev = "%%%d" % i
        f.write("  func.return %s : %s\n}\n" % (prev, t))


def best_of(name, argv, repeat, workdir):
    log_path = os.path.join(workdir, name + ".log")
    times, rss = [], []
    for i in range(repeat):
        code, wall, peak = measure(argv, log_path)
        if code != 0:
            with open(log_path, "rb") as f:
                tail = f.read()[-2000:].decode("utf-8", "replace")
            print("error: %s failed (exit status %d) on run %d:\n  %s\n%s"
                  % (name, code, i + 1, " ".join(argv), tail), file=sys.stderr)
            return None
        times.append(wall)
        rss.append(peak)
        print("  %-8s run %d: %8.3f s  %9.1f MB" % (name, i + 1, wall, peak / 2**20))
    return min(times), min(rss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500000,
                    help="number of elementwise instructions (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per tool; the best is reported (default: %(default)s)")
    ap.add_argument("--hopt", default=DEFAULT_HOPT, help="hopt binary (default: %(default)s)")
    ap.add_argument("--mlir-opt", default="mlir-opt-16",
                    help="mlir-opt binary (default: %(default)s)")
    ap.add_argument("--keep", metavar="DIR",
                    help="generate into DIR and keep the files instead of a temp dir")
    add_record_option(ap)
    args = ap.parse_args()
    if args.n < 1 or args.repeat < 1:
        ap.error("--n and --repeat must be >= 1")

    hopt = resolve(args.hopt)
    mlir_opt = resolve(args.mlir_opt)
    for prog, found in ((args.hopt, hopt), (args.mlir_opt, mlir_opt)):
        if not found:
            print("error: %s not found or not executable" % prog, file=sys.stderr)
            return 1

    with work_dir(args.keep, "hopt-bench-") as workdir:
        return run(args, hopt, mlir_opt, workdir)


def run(args, hopt, mlir_opt, workdir):
    n = args.n
    hlo = os.path.join(workdir, "chain.hlo")
    mlir = os.path.join(workdir, "chain.mlir")
    t0 = time.perf_counter()
    write_hlo(hlo, n)
    write_mlir(mlir, n)
    print("generated %d instructions in %.1f s: chain.hlo %.1f MB, chain.mlir %.1f MB (%s)"
          % (n, time.perf_counter() - t0, os.path.getsize(hlo) / 2**20,
             os.path.getsize(mlir) / 2**20, workdir))

    _, _, floor = measure(["/bin/true"], os.path.join(workdir, "true.log"))
    print("RSS floor inherited from this script: %.1f MB" % (floor / 2**20))

    h = best_of("hopt", [hopt, hlo, "-o", os.path.join(workdir, "out.hlo")],
                args.repeat, workdir)
    if h is None:
        return 1
    m = best_of("mlir-opt", [mlir_opt, "--allow-unregistered-dialect", mlir,
                             "-o", os.path.join(workdir, "out.mlir")],
                args.repeat, workdir)
    if m is None:
        return 1
    for out in ("out.hlo", "out.mlir"):
        if os.path.getsize(os.path.join(workdir, out)) == 0:
            print("error: %s is empty" % out, file=sys.stderr)
            return 1
    (ht, hr), (mt, mr) = h, m

    speedup = mt / ht
    mem_ratio = hr / mr
    rows = [
        ("instructions", "%d" % n),
        ("hopt time (best of %d)" % args.repeat, "%.3f s" % ht),
        ("mlir-opt time (best of %d)" % args.repeat, "%.3f s" % mt),
        ("hopt peak RSS", "%.1f MB" % (hr / 2**20)),
        ("mlir-opt peak RSS", "%.1f MB" % (mr / 2**20)),
        ("time ratio mlir-opt/hopt", "%.2fx  (target >= %.0fx: %s)"
         % (speedup, SPEEDUP_TARGET, "PASS" if speedup >= SPEEDUP_TARGET else "FAIL")),
        ("RSS ratio hopt/mlir-opt", "%.3f  (target <= %.3f: %s)"
         % (mem_ratio, MEMORY_TARGET, "PASS" if mem_ratio <= MEMORY_TARGET else "FAIL")),
        ("hopt peak RSS per instruction", "%.0f bytes" % (hr / n)),
        ("hopt throughput", "%.0f instructions/s" % (n / ht)),
    ]
    print()
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print("  %-*s  %s" % (w, k, v))
    for name, r in (("hopt", hr), ("mlir-opt", mr)):
        if r <= floor * 1.05:
            print("  note: %s peak RSS is at the inherited floor; the real figure may be lower"
                  % name)
    if args.record:
        figures = markdown_table(
            ["tool", "parse + verify + print (best of %d)" % args.repeat, "peak RSS"],
            [["hopt", "%.3f s" % ht, "%.1f MB" % (hr / 2**20)],
             ["mlir-opt-16", "%.3f s" % mt, "%.1f MB" % (mr / 2**20)]])
        figures += ("\n\nOn a chain of %s instructions: hopt is **%.2f× faster** (target"
                    " ≥ %.0f×: %s) and uses **%.3f of the memory** (target ≤ %.3f: %s);"
                    " %.0f bytes of peak per instruction, %s instructions/s."
                    % (format(n, ","), speedup, SPEEDUP_TARGET,
                       "PASS" if speedup >= SPEEDUP_TARGET else "FAIL", mem_ratio,
                       MEMORY_TARGET, "PASS" if mem_ratio <= MEMORY_TARGET else "FAIL",
                       hr / n, format(round(n / ht), ",")))
        record(args.record, __file__, figures, build=os.path.dirname(os.path.dirname(hopt)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

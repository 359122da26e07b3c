#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Throughput of the HLO interpreter (hlo-run) on an elementwise chain.

Generates, in a temporary directory,
  chain.hlo   N elementwise instructions over f32[64,128] (by default), a
              chain v <- (v + a) * b, so every instruction reads the previous
              one: add, multiply, add, multiply...
  base.hlo    the same parameters and a root that is the first parameter:
              everything hlo-run does except the chain (start-up, parsing,
              reading the arguments, printing the results)
  args.txt    the same three arguments for every device (a = 0.25, b = 0.5,
              so the values settle on 0.25: no overflow, no subnormals)
then runs, one after the other, best of --repeat runs each,
  hlo-run chain.hlo -replicas=D -args=args.txt
  hlo-run base.hlo  -replicas=D -args=args.txt
and prints elements processed per second:

  elements per instruction x instructions x devices / wall seconds

both for the whole run and with the base run's time taken off (the chain
alone). No target: this is a measurement to compare builds and changes.
"""

import argparse
import os
import sys

from bench_util import (add_record_option, markdown_table, measure, record, resolve,
                        work_dir)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HLO_RUN = os.path.join(REPO_ROOT, "build", "tools", "hlo-run")


def shape_text(dims):
    return "f32[%s]" % ",".join(str(d) for d in dims)


def element_count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def write_chain(path, n, dims):
    ty = shape_text(dims)
    with open(path, "w", buffering=1 << 20) as f:
        f.write("HloModule chain\n\nENTRY main {\n")
        f.write("  v0 = %s parameter(0)\n" % ty)
        f.write("  a = %s parameter(1)\n" % ty)
        f.write("  b = %s parameter(2)\n" % ty)
        for i in range(1, n + 1):
            op, other = ("add", "a") if i % 2 == 1 else ("multiply", "b")
            root = "ROOT " if i == n else ""
            f.write("  %sv%d = %s %s(v%d, %s)\n" % (root, i, ty, op, i - 1, other))
        f.write("}\n")


def write_base(path, dims):
    ty = shape_text(dims)
    with open(path, "w") as f:
        f.write("HloModule base\n\nENTRY main {\n")
        f.write("  ROOT v0 = %s parameter(0)\n" % ty)
        f.write("  a = %s parameter(1)\n" % ty)
        f.write("  b = %s parameter(2)\n" % ty)
        f.write("}\n")


def literal_text(dims, value):
    """XLA literal text of an array of `dims` filled with `value`."""
    if not dims:
        return value
    inner = literal_text(dims[1:], value)
    return "{" + ", ".join([inner] * dims[0]) + "}"


def write_args(path, dims):
    ty = shape_text(dims)
    with open(path, "w") as f:
        f.write("// v0, a, b: the same for every device\n")
        for value in ("1", "0.25", "0.5"):
            f.write("%s %s\n" % (ty, literal_text(dims, value)))


def best_of(name, argv, repeat, devices, workdir):
    out_path = os.path.join(workdir, name + ".out")
    times = []
    for i in range(repeat):
        code, wall, _ = measure(argv, out_path)
        with open(out_path, "rb") as f:
            output = f.read().decode("utf-8", "replace")
        lines = [l for l in output.splitlines() if l.startswith("device ")]
        if code != 0 or len(lines) != devices:
            print("error: %s failed (exit status %d, %d device lines) on run %d:\n  %s\n%s"
                  % (name, code, len(lines), i + 1, " ".join(argv), output[-2000:]),
                  file=sys.stderr)
            return None
        times.append(wall)
        print("  %-6s run %d: %8.3f s" % (name, i + 1, wall))
    return min(times), lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200,
                    help="number of elementwise instructions (default: %(default)s)")
    ap.add_argument("--devices", type=int, default=8,
                    help="devices, run as -replicas=DEVICES (default: %(default)s)")
    ap.add_argument("--shape", default="64,128",
                    help="dimensions of every value (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each module; the best is reported (default: %(default)s)")
    ap.add_argument("--hlo-run", default=DEFAULT_HLO_RUN,
                    help="hlo-run binary (default: %(default)s)")
    ap.add_argument("--keep", metavar="DIR",
                    help="generate into DIR and keep the files instead of a temp dir")
    add_record_option(ap)
    args = ap.parse_args()
    try:
        dims = [int(d) for d in args.shape.split(",")]
    except ValueError:
        ap.error("--shape takes dimensions like 64,128")
    if args.n < 1 or args.repeat < 1 or args.devices < 1 or any(d < 1 for d in dims):
        ap.error("--n, --devices, --repeat and the dimensions must be >= 1")

    hlo_run = resolve(args.hlo_run)
    if not hlo_run:
        print("error: %s not found or not executable (build it: ninja -C build)"
              % args.hlo_run, file=sys.stderr)
        return 1

    with work_dir(args.keep, "hopt-interp-bench-") as workdir:
        return run(args, hlo_run, dims, workdir)


def run(args, hlo_run, dims, workdir):
    chain = os.path.join(workdir, "chain.hlo")
    base = os.path.join(workdir, "base.hlo")
    arguments = os.path.join(workdir, "args.txt")
    write_chain(chain, args.n, dims)
    write_base(base, dims)
    write_args(arguments, dims)
    per_instruction = element_count(dims)
    print("chain: %d instructions of %s on %d devices (%s)"
          % (args.n, shape_text(dims), args.devices, workdir))

    common = ["-replicas=%d" % args.devices, "-args=%s" % arguments]
    c = best_of("chain", [hlo_run, chain] + common, args.repeat, args.devices, workdir)
    if c is None:
        return 1
    b = best_of("base", [hlo_run, base] + common, args.repeat, args.devices, workdir)
    if b is None:
        return 1
    (chain_time, chain_lines), (base_time, _) = c, b

    elements = per_instruction * args.n * args.devices
    net = chain_time - base_time
    rows = [
        ("elements per instruction", "%d" % per_instruction),
        ("instructions x devices", "%d x %d" % (args.n, args.devices)),
        ("elements processed", "%d" % elements),
        ("chain run (best of %d)" % args.repeat, "%.3f s" % chain_time),
        ("base run (best of %d)" % args.repeat, "%.3f s" % base_time),
        ("throughput, whole run", "%.3g elements/s" % (elements / chain_time)),
        ("throughput, chain alone", "%.3g elements/s" % (elements / net)
         if net > 0 else "n/a (the base run took as long)"),
        ("per element and instruction", "%.1f ns (chain alone)"
         % (net / elements * 1e9) if net > 0 else "n/a"),
    ]
    print()
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print("  %-*s  %s" % (w, k, v))
    # The chain settles on (v + 0.25) * 0.5 = 0.25 (0.5 after an add).
    first = chain_lines[0]
    print("\n  device 0 output starts: %s" % (first[:100] + ("..." if len(first) > 100 else "")))
    if args.record:
        figures = markdown_table(["chain of %d instructions of %s on %d devices"
                                  % (args.n, shape_text(dims), args.devices), ""], rows)
        record(args.record, __file__, figures, build=os.path.dirname(os.path.dirname(hlo_run)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

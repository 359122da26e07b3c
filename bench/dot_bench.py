#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""An f32 [N,N] x [N,N] dot (N = 2048 by default) through hlo-run beside
numpy on OpenBLAS, in one run.

Generates, in a temporary directory, dot.hlo: two f32[N,N] parameters,
their dot, and a root that slices a 2x2 corner of it (so that printing
the result costs nothing), and base.hlo: the same without the dot (the
corner of the first parameter). Then, best of --repeat runs each,
  hlo-run dot.hlo -seed=1 -time
  hlo-run base.hlo -seed=1 -time
whose `hlo-run: run S s` lines are the interpreter's time from arguments
ready to results computed (no parsing, no random arguments, no printing;
the base run is what the interpreter spends on the parameters and the
slice, mostly copying 2 x 32 MB), and numpy's `a @ b` on float32 arrays of
the same shape. The dot's time is the difference: gathering the operands
into the GEMM's layout, sgemm, and storing the result. It prints which
BLAS numpy uses (the shared library mapped into this process after a
product, and the libblas.so.3 alternative): Debian's default reference
BLAS is some 30x slower than OpenBLAS and would make the comparison
meaningless, so a numpy that is not on OpenBLAS fails the run.

Target: hlo-run's time within 3x of numpy's.
"""

import argparse
import os
import re
import subprocess
import sys
import time

from bench_util import (add_record_option, markdown_table, record, resolve, run_checked,
                        work_dir)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_RATIO = 3.0


def write_module(path, n, with_dot=True):
    ty = "f32[%d,%d]" % (n, n)
    with open(path, "w") as f:
        f.write("HloModule dot\n\nENTRY main {\n")
        f.write("  a = %s parameter(0)\n" % ty)
        f.write("  b = %s parameter(1)\n" % ty)
        if with_dot:
            f.write("  d = %s dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
                    % ty)
        f.write("  ROOT corner = f32[2,2] slice(%s), slice={[0:2], [0:2]}\n"
                % ("d" if with_dot else "a"))
        f.write("}\n")


def run_seconds(hlo_run, module, log):
    report, _ = run_checked([hlo_run, module, "-seed=1", "-time"], log, "hlo-run")
    m = re.search(r"^hlo-run: run ([0-9.]+) s$", report, re.M)
    if not m:
        sys.exit("dot_bench: error: no `hlo-run: run` line:\n" + report[-2000:])
    return float(m.group(1))


def numpy_blas():
    """(numpy module, the BLAS library numpy's process has mapped)."""
    try:
        import numpy
    except ImportError:
        # Debian's python3-numpy belongs to /usr/bin/python3; a python3
        # first on PATH (pyenv, a venv) may lack it.
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
                os.access("/usr/bin/python3", os.X_OK):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("dot_bench: error: no numpy (apt-get install python3-numpy)")
    a = numpy.ones((64, 64), dtype=numpy.float32)
    _ = a @ a
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if re.search(r"(blas|lapack)", os.path.basename(path)):
                libs.add(os.path.realpath(path))
    return numpy, sorted(libs)


def blas_alternative():
    try:
        out = subprocess.run(["update-alternatives", "--query", "libblas.so.3-x86_64-linux-gnu"],
                             capture_output=True, text=True, check=False).stdout
    except OSError:
        return "(update-alternatives not found)"
    m = re.search(r"^Value: (.*)$", out, re.M)
    return m.group(1) if m else "(no libblas.so.3 alternative)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(REPO_ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--keep", help="keep the generated files in this directory")
    add_record_option(parser)
    args = parser.parse_args()

    hlo_run = resolve(os.path.join(args.build, "tools", "hlo-run"))
    if hlo_run is None:
        sys.exit("dot_bench: error: no hlo-run in %s/tools (build first)" % args.build)
    numpy, libs = numpy_blas()
    print("numpy %s, BLAS mapped: %s" % (numpy.__version__, ", ".join(libs) or "(none)"))
    print("libblas.so.3 -> %s" % blas_alternative())
    if not any("openblas" in lib for lib in libs):
        sys.exit("dot_bench: error: numpy is not on OpenBLAS (apt-get install "
                 "libopenblas0-pthread, or update-alternatives --config "
                 "libblas.so.3-x86_64-linux-gnu)")

    n = args.size
    with work_dir(args.keep, "dot_bench.") as tmp:
        module = os.path.join(tmp, "dot.hlo")
        base = os.path.join(tmp, "base.hlo")
        write_module(module, n)
        write_module(base, n, with_dot=False)
        log = os.path.join(tmp, "hlo-run.log")
        whole, bases = [], []
        for _ in range(args.repeat):
            whole.append(run_seconds(hlo_run, module, log))
            bases.append(run_seconds(hlo_run, base, log))

    rng = numpy.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype(numpy.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(numpy.float32)
    theirs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        _ = a @ b
        theirs.append(time.perf_counter() - start)

    best_theirs = min(theirs)
    best_ours = max(min(whole) - min(bases), 1e-9)
    flops = 2.0 * n * n * n
    ratio = best_ours / best_theirs
    print("f32[%d,%d] x f32[%d,%d], best of %d:" % (n, n, n, n, args.repeat))
    print("  hlo-run dot.hlo -time         %8.3f s" % min(whole))
    print("  hlo-run base.hlo -time        %8.3f s" % min(bases))
    row = "  %-30s%8.3f s  %6.1f GFLOP/s"
    print(row % ("hlo-run's dot (difference)", best_ours, flops / best_ours / 1e9))
    print(row % ("numpy a @ b", best_theirs, flops / best_theirs / 1e9))
    print("  ratio %.2f (target <= %.0f): %s" % (ratio, TARGET_RATIO,
                                               "PASS" if ratio <= TARGET_RATIO else "FAIL"))
    if args.record:
        figures = markdown_table(
            ["f32[%d,%d] x f32[%d,%d], best of %d" % (n, n, n, n, args.repeat), "time",
             "GFLOP/s"],
            [["hlo-run's dot (dot.hlo minus base.hlo)", "%.3f s" % best_ours,
              "%.1f" % (flops / best_ours / 1e9)],
             ["numpy `a @ b` (%s)" % ", ".join(os.path.basename(lib) for lib in libs),
              "%.3f s" % best_theirs, "%.1f" % (flops / best_theirs / 1e9)]])
        figures += ("\n\nRatio **%.2f×** (target ≤ %.0f×: %s)."
                    % (ratio, TARGET_RATIO, "PASS" if ratio <= TARGET_RATIO else "FAIL"))
        record(args.record, __file__, figures, build=args.build)
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())

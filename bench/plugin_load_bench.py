#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Plugin load time: hopt loading four plugins and listing their passes.

Runs, --repeat times,
  HOPT_REPORT_LOAD_TIME=1 hopt -load=<a> -load=<b> -load=<c> -load=<d> -list-passes
with the four sample plugins of the test suite (build/test/plugins/
libhopt_sample_{a,b,c,d}.so, one source built four times, two passes each).
Under HOPT_REPORT_LOAD_TIME hopt prints to stderr
  hopt: plugin load + list-passes: <ms> ms
measured inside the process from the start of plugin loading to the end of
the listing. The script reports min and median of that figure and of the
whole process's wall time (which also holds libLLVM's own start-up, some
70 ms here, which no plugin loader can avoid), and PASS/FAIL of the
in-process median against --target-ms (50 ms).

  python3 bench/plugin_load_bench.py [--build build] [--repeat 20]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

from bench_util import add_record_option, markdown_table, record

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ("a", "b", "c", "d")
TARGET_MS = 50.0
REPORT_RE = re.compile(r"^hopt: plugin load \+ list-passes: ([0-9]+(?:\.[0-9]*)?) ms", re.M)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build",
                        help="Meson build directory (default: build, relative to the repository)")
    parser.add_argument("--repeat", type=int, default=20, help="number of runs (default: 20)")
    parser.add_argument("--reference", default="opt-16",
                        help="LLVM tool whose `-version` run is the whole-process yardstick "
                        "(default: opt-16)")
    parser.add_argument("--target-ms", type=float, default=TARGET_MS,
                        help="PASS if the in-process median is at most this (default: 50)")
    add_record_option(parser)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def build_dir(path):
    if os.path.isabs(path) or os.path.isdir(path):
        return os.path.abspath(path)
    return os.path.join(REPO_ROOT, path)


def run_once(command, env):
    start = time.perf_counter()
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    wall_ms = (time.perf_counter() - start) * 1000.0
    if result.returncode != 0:
        sys.exit("error: hopt exited with %d:\n%s" % (result.returncode, result.stderr))
    match = REPORT_RE.search(result.stderr)
    if match is None:
        sys.exit("error: hopt printed no 'hopt: plugin load + list-passes: <ms> ms' line "
                 "under HOPT_REPORT_LOAD_TIME=1; stderr was:\n%s" % result.stderr)
    return float(match.group(1)), wall_ms, result.stdout


def main():
    args = parse_args()
    build = build_dir(args.build)
    hopt = os.path.join(build, "tools", "hopt")
    plugin_dir = os.path.join(build, "test", "plugins")
    plugins = [os.path.join(plugin_dir, "libhopt_sample_%s.so" % s) for s in SAMPLES]
    missing = [p for p in [hopt] + plugins if not os.path.isfile(p)]
    if missing:
        sys.exit("error: not built: %s\n(run `ninja -C %s -j2` with the tests option on)"
                 % (", ".join(missing), args.build))

    command = [hopt] + ["-load=%s" % p for p in plugins] + ["-list-passes"]
    env = dict(os.environ)
    env["HOPT_REPORT_LOAD_TIME"] = "1"
    env.pop("HOPT_PLUGIN_PATH", None)

    # One run that is not counted: page cache, and a check of the listing.
    _, _, listing = run_once(command, env)
    expected = ["sample-%s-%s" % (s, p) for s in SAMPLES for p in ("count", "noop")]
    listed = [line.split()[0] for line in listing.splitlines() if line.strip()]
    if listed != expected:
        sys.exit("error: -list-passes listed %s, expected %s" % (listed, expected))

    # The yardstick runs between hopt's runs, so that both see the same
    # machine: their ratio holds when the machine's speed drifts.
    reference = [args.reference, "-version"]
    in_process, wall, reference_wall = [], [], []
    for _ in range(args.repeat):
        ms, wall_ms, _ = run_once(command, env)
        in_process.append(ms)
        wall.append(wall_ms)
        start = time.perf_counter()
        subprocess.run(reference, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        reference_wall.append((time.perf_counter() - start) * 1000.0)

    print("hopt -load x4 -list-passes (%d runs, %s)" % (args.repeat, hopt))
    print("  %-38s %10s %10s" % ("", "min ms", "median ms"))
    print("  %-38s %10.3f %10.3f" % ("in process (plugin load + list-passes)", min(in_process),
                                     statistics.median(in_process)))
    print("  %-38s %10.3f %10.3f" % ("whole process (wall, incl. libLLVM)", min(wall),
                                     statistics.median(wall)))
    print("  %-38s %10.3f %10.3f" % ("%s -version (wall)" % args.reference, min(reference_wall),
                                     statistics.median(reference_wall)))
    print("  whole process / %s -version: %.2f (medians)" %
          (args.reference, statistics.median(wall) / statistics.median(reference_wall)))
    median = statistics.median(in_process)
    verdict = "PASS" if median <= args.target_ms else "FAIL"
    print("%s: in-process median %.3f ms %s %.0f ms" %
          (verdict, median, "<=" if verdict == "PASS" else ">", args.target_ms))
    if args.record:
        figures = markdown_table(
            ["%d runs" % args.repeat, "min", "median"],
            [[what, "%.1f ms" % min(times), "%.1f ms" % statistics.median(times)]
             for what, times in (("in process (plugin load + `-list-passes`)", in_process),
                                 ("whole hopt process", wall),
                                 ("`%s -version`" % args.reference, reference_wall))])
        figures += ("\n\nIn process: %s (target ≤ %.0f ms, median). The whole process takes"
                    " %.2f× `%s -version` (medians)."
                    % (verdict, args.target_ms,
                       statistics.median(wall) / statistics.median(reference_wall),
                       args.reference))
        record(args.record, __file__, figures, build=build)
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())

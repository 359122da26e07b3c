#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Linear-time check of marker-splitter (libneuron_partition.so).

Generates two training steps with hlo-gen on a (2,4) mesh: L layers and 8L
layers, each layer a forward and a backward span (default L = 12: the big
module has 96 layers, 192 spans and about 500,000 instructions). Splits
each with
  -passes='marker-splitter{output-dir=DIR svg=false}'
(the picture is Graphviz's time, not ours) into a fresh directory, and
prints the pass's own time at both sizes (best of --repeat), the time per
instruction, the peak RSS of the 8L run, and the ratio. Linear time gives a
ratio near 8; the target is <= 9. The pass's time includes writing every
stage module, the manifest and stages.dot.

usage: bench/partition_bench.py [--layers 12] [--repeat 3] [--build build]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import (add_record_option, markdown_table, pass_seconds, record,  # noqa: E402
                        run_checked, work_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--layers', type=int, default=12)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    parser.add_argument('--keep', help='keep the generated modules and splits in this directory')
    add_record_option(parser)
    args = parser.parse_args()
    hopt = os.path.abspath(os.path.join(args.build, 'tools', 'hopt'))
    hlo_gen = os.path.abspath(os.path.join(args.build, 'tools', 'hlo-gen'))
    plugin = os.path.abspath(os.path.join(args.build, 'plugins', 'libneuron_partition.so'))
    with work_dir(args.keep, 'hopt-partition-bench-') as tmp:
        best, sizes, stages, rss = {}, {}, {}, {}
        for layers in (args.layers, 8 * args.layers):
            path = os.path.join(tmp, f'train-{layers}.hlo')
            generated = subprocess.run(
                [hlo_gen, f'-layers={layers}', '-replicas=2', '-partitions=4', '-report',
                 '-o', path],
                capture_output=True, text=True, check=True)
            sizes[layers] = int(re.search(r'(\d+) instructions', generated.stderr).group(1))
            for run in range(args.repeat):
                out_dir = os.path.join(tmp, f'split-{layers}')
                shutil.rmtree(out_dir, ignore_errors=True)
                argv = [hopt, '-load=' + plugin,
                        "-passes=marker-splitter{output-dir='" + out_dir + "' svg=false}",
                        '-time-passes', path,
                        '-o', path + '.out.hlo']
                report, peak = run_checked(argv, path + '.log', f'hopt on {path}')
                seconds = pass_seconds(report, 'marker-splitter')
                best[layers] = min(best.get(layers, seconds), seconds)
                rss[layers] = max(rss.get(layers, 0), peak)
                stages[layers] = int(re.search(r'marker-splitter: (\d+) stage', report).group(1))
        n, n8 = args.layers, 8 * args.layers
        print(f'{"layers":>7} {"instructions":>13} {"stages":>7} {"split time":>11} '
              f'{"us/instr":>9} {"peak RSS":>9}')
        for layers in (n, n8):
            print(f'{layers:>7} {sizes[layers]:>13,} {stages[layers]:>7} {best[layers]:>10.4f}s '
                  f'{best[layers] / sizes[layers] * 1e6:>9.3f} {rss[layers] / 2**20:>7.0f}MB')
        ratio = best[n8] / best[n]
        print(f'ratio 8N/N: {ratio:.2f} {"PASS" if ratio <= 9 else "FAIL"} (target <= 9)')
        if args.record:
            figures = markdown_table(
                ['layers', 'instructions', 'stages', 'split time', 'µs/instruction', 'peak RSS'],
                [[layers, f'{sizes[layers]:,}', stages[layers], f'{best[layers] * 1e3:.1f} ms',
                  f'{best[layers] / sizes[layers] * 1e6:.2f}', f'{rss[layers] / 2**20:.0f} MB']
                 for layers in (n, n8)])
            figures += (f'\n\nRatio 8N/N: **{ratio:.2f}** ({"PASS" if ratio <= 9 else "FAIL"}, '
                        f'target ≤ 9); best of {args.repeat}.')
            record(args.record, __file__, figures, build=args.build)
    return 0 if ratio <= 9 else 1


if __name__ == '__main__':
    sys.exit(main())

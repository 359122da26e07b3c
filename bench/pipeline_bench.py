#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""The whole neuron pipeline (-passes=neuron) at N and 8N instructions.

Generates two training steps with hlo-gen on a (2,4) mesh, L and 8L layers
(default L = 192: the module at N has about 1,000,000 instructions, the one
at 8N about 8,000,000), with
every hlo-gen feature the pipeline's passes rewrite (--features, default
`all`). Runs

  hopt -load=<the four plugins> -passes=neuron -time-passes -o out.hlo

on each (best of --repeat, per pass) and prints, for both sizes: the
instruction count, the wall time of the run and of the pipeline, the time
per instruction, the peak RSS; then every pass's time at N and 8N and
their ratio. The ratio judged is the best 8N time over the best N time;
the column "rounds" shows how far the machine moves it: the lowest and
highest ratio of one round (an N run and the 8N run after it). Linear time
gives a ratio near 8; the target is <= 9 for every pass. Passes faster
than --floor seconds at N are reported but their ratio is not judged
(timer resolution and noise dominate there).

With --callgrind, each size also runs once under
`valgrind --tool=callgrind --instr-atstart=no` with hopt's
-callgrind-per-pass, and every pass's instruction count (callgrind's Ir) at
N and 8N and their ratio are printed and judged against the same target.
Instruction counts do not move with the machine's load or its caches: they
tell whether a pass's work is linear, where the wall-time ratio also
carries the cost of each memory access in an 8x larger footprint.

usage: bench/pipeline_bench.py [--layers 192] [--repeat 3] [--build build] [--callgrind]
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import (add_record_option, markdown_table, pass_seconds, record,  # noqa: E402
                        resolve, run_checked, work_dir)

PLUGINS = ('libneuron_markers.so', 'libneuron_collectives.so', 'libneuron_decompose.so',
           'libneuron_partition.so')
RATIO_TARGET = 9.0


def pipeline_passes(hopt, loads):
    # The neuron pipeline comes with the plugins: it is listed only when they are loaded.
    listing = subprocess.run([hopt] + loads + ['-list-pipelines'], capture_output=True,
                             text=True, check=True).stdout
    match = re.search(r'^  neuron .*\n    = (.*)$', listing, re.M)
    if not match:
        raise RuntimeError('hopt -list-pipelines does not list the neuron pipeline')
    return match.group(1).split(',')


def callgrind_counts(hopt, loads, path, out_dir, valgrind):
    """{pass name: instructions} of one -passes=neuron run under callgrind."""
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, 'callgrind.out')
    for old in glob.glob(out + '*'):
        os.remove(old)
    argv = [valgrind, '--tool=callgrind', '--instr-atstart=no', f'--callgrind-out-file={out}',
            hopt] + loads + ['-passes=neuron', '-callgrind-per-pass', path,
                             '-o', path + '.out.hlo']
    run_checked(argv, os.path.join(out_dir, 'valgrind.log'), f'callgrind on {path}')
    counts = {}
    # One dump per pass (callgrind.out.K); callgrind.out itself is the rest
    # of the run, which is not instrumented.
    for dump in glob.glob(out + '.*'):
        with open(dump) as f:
            text = f.read()
        name = re.search(r'^desc: Trigger: Client Request: (.+)$', text, re.M)
        total = re.search(r'^totals: (\d+)', text, re.M)
        if not name or not total:
            raise RuntimeError(f'{dump}: no pass name or totals line')
        counts[name.group(1)] = counts.get(name.group(1), 0) + int(total.group(1))
    return counts


def judge(name, a, b, failed, judged=True):
    """The ratio b / a and the verdict printed after it; adds `name` to
    `failed` when a judged ratio is over the target."""
    ratio = b / a if a > 0 else float('inf')
    if not judged:
        return ratio, '  (under --floor at N: not judged)'
    if ratio > RATIO_TARGET:
        failed.append(name)
        return ratio, '  OVER TARGET'
    return ratio, ''


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--layers', type=int, default=192)
    parser.add_argument('--features', default='all', help='hlo-gen -features (default all)')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--floor', type=float, default=0.005,
                        help='passes under this many seconds at N are not judged')
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    parser.add_argument('--keep', help='keep the generated modules in this directory')
    parser.add_argument('--callgrind', action='store_true',
                        help='also count each pass\'s instructions under callgrind (one run per '
                             'size; about 4 minutes at 8M instructions)')
    add_record_option(parser)
    args = parser.parse_args()
    hopt = os.path.abspath(os.path.join(args.build, 'tools', 'hopt'))
    hlo_gen = os.path.abspath(os.path.join(args.build, 'tools', 'hlo-gen'))
    loads = ['-load=' + os.path.abspath(os.path.join(args.build, 'plugins', p)) for p in PLUGINS]
    passes = pipeline_passes(hopt, loads)
    valgrind = resolve('valgrind') if args.callgrind else None
    if args.callgrind and valgrind is None:
        parser.error('--callgrind needs valgrind on PATH')
    sizes, wall, total, rss, per_pass = {}, {}, {}, {}, {}
    counts = {}  # layers -> {pass: instructions}, with --callgrind
    rounds = []  # per round: {(layers, name): seconds}
    n, n8 = args.layers, 8 * args.layers
    with work_dir(args.keep, 'hopt-pipeline-bench-') as tmp:
        paths = {}
        for layers in (n, n8):
            path = os.path.join(tmp, f'train-{layers}.hlo')
            gen = [hlo_gen, f'-layers={layers}', '-replicas=2', '-partitions=4', '-report',
                   '-o', path]
            if args.features:
                gen.insert(1, f'-features={args.features}')
            generated = subprocess.run(gen, capture_output=True, text=True, check=True)
            sizes[layers] = int(re.search(r'(\d+) instructions', generated.stderr).group(1))
            paths[layers] = path
        # N and 8N alternate, so that a slow spell of the machine hits both.
        for _ in range(args.repeat):
            rounds.append({})
            for layers in (n, n8):
                path = paths[layers]
                argv = [hopt] + loads + ['-passes=neuron', '-time-passes', path,
                                         '-o', path + '.out.hlo']
                started = time.monotonic()
                report, peak = run_checked(argv, path + '.log', f'hopt on {path}')
                seconds = time.monotonic() - started
                wall[layers] = min(wall.get(layers, seconds), seconds)
                rss[layers] = max(rss.get(layers, 0), peak)
                total_match = re.search(r'Total: ([0-9.]+) s', report)
                if total_match:
                    t = float(total_match.group(1))
                    total[layers] = min(total.get(layers, t), t)
                    rounds[-1][(layers, None)] = t
                for name in passes:
                    t = pass_seconds(report, name)
                    key = (layers, name)
                    per_pass[key] = min(per_pass.get(key, t), t)
                    rounds[-1][key] = t
        if args.callgrind:
            for layers in (n, n8):
                counts[layers] = callgrind_counts(hopt, loads, paths[layers],
                                                  os.path.join(tmp, f'callgrind-{layers}'),
                                                  valgrind)

    print(f'{"layers":>7} {"instructions":>13} {"run (wall)":>11} {"pipeline":>10} '
          f'{"us/instr":>9} {"peak RSS":>9}')
    for layers in (n, n8):
        print(f'{layers:>7} {sizes[layers]:>13,} {wall[layers]:>10.3f}s {total[layers]:>9.3f}s '
              f'{1e6 * total[layers] / sizes[layers]:>9.3f} {rss[layers] / 1e6:>7.0f}MB')
    print()

    def spread(name):
        ratios = [r[(n8, name)] / r[(n, name)] for r in rounds
                  if (n, name) in r and (n8, name) in r and r[(n, name)] > 0]
        return f'{min(ratios):5.2f}-{max(ratios):<5.2f}' if ratios else ''

    print(f'{"pass":<38} {"N":>10} {"8N":>10} {"ratio":>7}  {"rounds":<11}')
    failed = []
    pass_rows, count_rows = [], []
    for name in passes:
        a, b = per_pass[(n, name)], per_pass[(n8, name)]
        ratio, verdict = judge(name, a, b, failed, judged=a >= args.floor)
        print(f'{name:<38} {a:>9.4f}s {b:>9.4f}s {ratio:>7.2f}  {spread(name):<11}{verdict}')
        pass_rows.append([name, f'{a:.4f} s', f'{b:.4f} s',
                          f'{ratio:.2f} {verdict.strip()}'.strip(), spread(name).replace(' ', '')])
    ratio = total[n8] / total[n]
    print(f'{"whole pipeline":<38} {total[n]:>9.4f}s {total[n8]:>9.4f}s {ratio:>7.2f}  '
          f'{spread(None):<11}')
    pass_rows.append(['whole pipeline', f'{total[n]:.4f} s', f'{total[n8]:.4f} s',
                      f'{ratio:.2f}', spread(None).replace(' ', '')])
    if ratio > RATIO_TARGET:
        failed.append('whole pipeline')
    size_ratio = sizes[n8] / sizes[n]
    print(f'(instruction ratio 8N/N = {size_ratio:.2f}; target per pass <= {RATIO_TARGET})')
    if counts:
        print()
        print(f'{"pass (callgrind Ir)":<38} {"N":>14} {"8N":>14} {"ratio":>7}')
        for name in passes:
            a, b = counts[n].get(name), counts[n8].get(name)
            if a is None or b is None:
                raise RuntimeError(f'callgrind dumped no counts for {name}')
            ratio, verdict = judge(f'{name} (instructions)', a, b, failed)
            print(f'{name:<38} {a:>14,} {b:>14,} {ratio:>7.2f}{verdict}')
            count_rows.append([name, f'{a:,}', f'{b:,}', f'{ratio:.2f} {verdict.strip()}'.strip()])
        a, b = sum(counts[n].values()), sum(counts[n8].values())
        print(f'{"whole pipeline":<38} {a:>14,} {b:>14,} {b / a:>7.2f}')
        count_rows.append(['whole pipeline', f'{a:,}', f'{b:,}', f'{b / a:.2f}'])
    if args.record:
        figures = markdown_table(
            ['layers', 'instructions', 'run (read, pipeline, write)', 'pipeline',
             'µs / instruction', 'peak RSS'],
            [[layers, f'{sizes[layers]:,}', f'{wall[layers]:.2f} s', f'{total[layers]:.3f} s',
              f'{1e6 * total[layers] / sizes[layers]:.2f}', f'{rss[layers] / 1e6:,.0f} MB']
             for layers in (n, n8)])
        figures += '\n\n' + markdown_table(
            ['pass (wall, best of %d)' % args.repeat, 'N', '8N', 'ratio', 'rounds'], pass_rows)
        if count_rows:
            figures += '\n\nInstructions executed per pass (`--callgrind`):\n\n'
            figures += markdown_table(['pass', 'N', '8N', 'ratio'], count_rows)
        figures += '\n\nVerdict: ' + ('FAIL: ' + ', '.join(failed) if failed else 'PASS') + '.'
        record(args.record, __file__, figures, build=args.build)
    if failed:
        print('pipeline_bench: FAIL: ' + ', '.join(failed))
        return 1
    print('pipeline_bench: PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())

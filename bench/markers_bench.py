#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Linear-time check of the libneuron_markers passes.

Generates a module with N marker pairs (Start ... End spans in the entry,
all four module-marker names, one- and N-operand forms, with and without
backend_config) of about 100 instructions each, every span holding a small
while loop, and one with 8N pairs. Runs the whole lifecycle
  -passes=neuron_add_boundary_marker,canonicalize-boundary-marker,boundary-marker-removal
with -time-passes on both and prints each pass's own time at both sizes and
their ratio, then the same for the whole lifecycle (the sum of the three).
Linear time gives a ratio near 8; the target is <= 9. At the default
N = 10,000 the module at N has 10,000 marker pairs and about 1,000,000
instructions (the size the linear-time target is stated at), the one at 8N 80,000
and 8,000,000.

Below about N = 2,500 the module at N (~25 MB at N = 1,250) stays in the
last-level cache between passes and the one at 8N does not: the ratio there
says more about the cache than about the algorithm (bench/README.md).

usage: bench/markers_bench.py [--n 10000] [--repeat 5] [--everywhere] [--build build]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import (add_record_option, markdown_table, pass_seconds, record,  # noqa: E402
                        run_checked, work_dir)

PASSES = ['neuron_add_boundary_marker', 'canonicalize-boundary-marker', 'boundary-marker-removal']
LIFECYCLE = 'whole lifecycle (3 passes)'
# Elementwise steps inside a span, so that a pair stands for ~100 instructions.
CHAIN = 80
NAMES = [('AwsNeuronModuleMarkerStart-Forward', 'AwsNeuronModuleMarkerEnd-Forward'),
         ('AwsNeuronModuleMarkerStart-Backward', 'AwsNeuronModuleMarkerEnd-Backward')]


def loop(i):
    """A counted loop over (s32[], f32[8]): condition and body computations."""
    return [
        f'cond{i} {{',
        '  p = (s32[], f32[8]) parameter(0)',
        '  c = s32[] get-tuple-element(p), index=0',
        '  k = s32[] constant(2)',
        '  ROOT lt = pred[] compare(c, k), direction=LT',
        '}',
        '',
        f'body{i} {{',
        '  p = (s32[], f32[8]) parameter(0)',
        '  c = s32[] get-tuple-element(p), index=0',
        '  one = s32[] constant(1)',
        '  n = s32[] add(c, one)',
        '  v = f32[8] get-tuple-element(p), index=1',
        '  e = f32[8] exponential(v)',
        '  ROOT t = (s32[], f32[8]) tuple(n, e)',
        '}',
        '',
    ]


def marker(name, result, operands, form, i):
    config = f', backend_config="boundaryCount={i}"' if form % 2 == 0 else ''
    return f'  {result} custom-call({operands}), custom_call_target="{name}"{config}'


def span(i, v, k):
    """Start(v[, k]) ... while ... chain ... End: returns (lines, value, counter)."""
    start, end = NAMES[i % 2]
    form = (i // 2) % 4  # 0, 1: one operand; 2, 3: two operands (tuple result)
    lines = []
    if form < 2:
        lines.append(marker(start, f's{i} = f32[8]', v, form, i))
        x = f's{i}'
    else:
        lines.append(marker(start, f's{i} = (f32[8], s32[])', f'{v}, {k}', form, i))
        lines.append(f'  x{i} = f32[8] get-tuple-element(s{i}), index=0')
        lines.append(f'  k{i} = s32[] get-tuple-element(s{i}), index=1')
        x, k = f'x{i}', f'k{i}'
    lines += [f'  z{i} = s32[] constant(0)',
              f'  i{i} = (s32[], f32[8]) tuple(z{i}, {x})',
              f'  w{i} = (s32[], f32[8]) while(i{i}), condition=cond{i}, body=body{i}',
              f'  c{i}_0 = f32[8] get-tuple-element(w{i}), index=1']
    prev = f'c{i}_0'
    for j in range(1, CHAIN + 1):
        op = ('negate', 'exponential', 'sine', 'cosine')[j % 4]
        lines.append(f'  c{i}_{j} = f32[8] {op}({prev})')
        prev = f'c{i}_{j}'
    if form < 2:
        lines.append(marker(end, f'e{i} = f32[8]', prev, form, i))
        return lines, f'e{i}', k
    lines.append(marker(end, f'e{i} = (f32[8], s32[])', f'{prev}, {k}', form, i))
    lines.append(f'  v{i} = f32[8] get-tuple-element(e{i}), index=0')
    lines.append(f'  q{i} = s32[] get-tuple-element(e{i}), index=1')
    return lines, f'v{i}', f'q{i}'


def module(pairs):
    lines = ['HloModule bench', '']
    for i in range(pairs):
        lines += loop(i)
    lines += ['ENTRY main {', '  v = f32[8] parameter(0)', '  k = s32[] parameter(1)']
    v, k = 'v', 'k'
    for i in range(pairs):
        body, v, k = span(i, v, k)
        lines += body
    lines.append(f'  ROOT out = (f32[8], s32[]) tuple({v}, {k})')
    lines.append('}')
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--n', type=int, default=10000)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--everywhere', action='store_true',
                        help='give the passes everywhere=true (loop bodies too)')
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    parser.add_argument('--keep', help='keep the generated modules in this directory')
    add_record_option(parser)
    args = parser.parse_args()
    hopt = os.path.abspath(os.path.join(args.build, 'tools', 'hopt'))
    plugin = os.path.abspath(os.path.join(args.build, 'plugins', 'libneuron_markers.so'))
    failed = False
    with work_dir(args.keep, 'hopt-markers-bench-') as tmp:
        best = {}
        sizes = {}
        argvs = {}
        for pairs in (args.n, 8 * args.n):
            path = os.path.join(tmp, f'markers-{pairs}.hlo')
            text = module(pairs)
            with open(path, 'w') as f:
                f.write(text)
            # Instruction lines: `name = shape op(...)` inside computations.
            sizes[pairs] = sum(1 for line in text.splitlines()
                               if line.startswith('  ') and ' = ' in line)
            passes = PASSES
            if args.everywhere:
                passes = [p + '{everywhere=true}' if p in ('canonicalize-boundary-marker',
                                                          'boundary-marker-removal') else p
                          for p in PASSES]
            argv = [hopt, '-load=' + plugin, '-passes=' + ','.join(passes), '-time-passes',
                    path, '-o', path + '.out.hlo']
            argvs[pairs] = (argv, path)
        # N and 8N alternate, so that a slow spell of the machine hits both.
        for _ in range(args.repeat):
            for pairs, (argv, path) in argvs.items():
                report, _ = run_checked(argv, path + '.log', f'hopt on {path}')
                lifecycle = 0.0
                for name in PASSES:
                    seconds = pass_seconds(report, name)
                    lifecycle += seconds
                    key = (name, pairs)
                    best[key] = min(best.get(key, seconds), seconds)
                key = (LIFECYCLE, pairs)
                best[key] = min(best.get(key, lifecycle), lifecycle)
        n, n8 = args.n, 8 * args.n
        print(f'modules: {n:,} pairs / {sizes[n]:,} instructions and '
              f'{n8:,} pairs / {sizes[n8]:,} instructions'
              f'{" (everywhere=true)" if args.everywhere else ""}')
        print(f'{"pass":30} {"N time":>9} {"8N time":>9} {"us/pair N":>10} '
              f'{"us/pair 8N":>11} {"ratio":>6}')
        rows = []
        for name in PASSES + [LIFECYCLE]:
            t1, t8 = best[(name, n)], best[(name, n8)]
            ratio = t8 / t1 if t1 > 0 else float('inf')
            verdict = 'PASS' if ratio <= 9 else 'FAIL'
            failed |= ratio > 9
            print(f'{name:30} {t1:>8.4f}s {t8:>8.4f}s {t1 / n * 1e6:>10.2f} {t8 / n8 * 1e6:>11.2f} '
                  f'{ratio:>6.2f} {verdict}', flush=True)
            rows.append([name if name == LIFECYCLE else f'`{name}`', f'{t1 * 1e3:.1f} ms',
                         f'{t8 * 1e3:.1f} ms', f'{t8 / n8 * 1e6:.2f}', f'{ratio:.2f} {verdict}'])
        if args.record:
            figures = markdown_table(['pass', 'N', '8N', 'µs/pair at 8N', 'ratio (≤ 9)'], rows)
            everywhere = ', everywhere=true' if args.everywhere else ''
            figures += (f'\n\nN = {n:,} marker pairs ({sizes[n]:,} instructions), 8N = {n8:,} '
                        f'({sizes[n8]:,} instructions){everywhere}; best of {args.repeat}.')
            record(args.record, __file__, figures, build=args.build)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

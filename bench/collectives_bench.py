#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Linear-time check of the libneuron_collectives passes.

For each pass, generates a module with N collectives (or send/recv channels)
and one with 8N, runs hopt with -time-passes, and prints the pass's own time
at both sizes and their ratio. Linear time gives a ratio near 8; the target
is <= 9. At the default N = 100,000 the module at N has 100,000
collectives (the size the linear-time target is stated at), the one at 8N 800,000.

usage: bench/collectives_bench.py [--n 100000] [--repeat 3] [--passes a,b] [--build build]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import (add_record_option, markdown_table, measure, pass_seconds,  # noqa: E402
                        record, work_dir)

HEADER = """HloModule bench, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

"""


def chain(n, make, root_shape='f32[8]'):
    """A chain of n steps: make(i, prev) returns (lines, name of the value)."""
    lines = [HEADER, 'ENTRY main {', '  v0 = f32[8] parameter(0)']
    prev = 'v0'
    for i in range(1, n + 1):
        body, prev = make(i, prev)
        lines.extend(body)
    lines.append(f'  ROOT out = {root_shape} copy({prev})')
    lines.append('}')
    return '\n'.join(lines) + '\n'


def collectives(i, prev):
    # all-reduce, all-gather and reduce-scatter in turn, shape kept at f32[8].
    kind = i % 3
    if kind == 0:
        return [f'  v{i} = f32[8] all-reduce({prev}), replica_groups={{}}, to_apply=add'], f'v{i}'
    if kind == 1:
        return [f'  g{i} = f32[16] all-gather({prev}), replica_groups={{}}, dimensions={{0}}',
                f'  v{i} = f32[8] slice(g{i}), slice={{[0:8]}}'], f'v{i}'
    return [f'  b{i} = f32[16] concatenate({prev}, {prev}), dimensions={{0}}',
            f'  v{i} = f32[8] reduce-scatter(b{i}), replica_groups={{}}, dimensions={{0}}, '
            'to_apply=add'], f'v{i}'


def send_recv(i, prev):
    pairs = 'frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}'
    return [f'  t{i} = token[] after-all()',
            f'  s{i} = (f32[8], u32[], token[]) send({prev}, t{i}), channel_id={i}, {pairs}',
            f'  r{i} = (f32[8], u32[], token[]) recv(t{i}), channel_id={i}, {pairs}',
            f'  sd{i} = token[] send-done(s{i}), channel_id={i}',
            f'  rd{i} = (f32[8], token[]) recv-done(r{i}), channel_id={i}, '
            f'control-predecessors={{s{i}}}',
            f'  v{i} = f32[8] get-tuple-element(rd{i}), index=0'], f'v{i}'


def reduce_scatter_pairs(i, prev):
    # Two reduce-scatters under one concatenate (c = 1, s = 0): one fusion.
    return [f'  x{i} = f32[8,2] broadcast({prev}), dimensions={{0}}',
            f'  a{i} = f32[4,2] reduce-scatter(x{i}), replica_groups={{}}, '
            'dimensions={0}, to_apply=add',
            f'  b{i} = f32[4,2] reduce-scatter(x{i}), replica_groups={{}}, '
            'dimensions={0}, to_apply=add',
            f'  c{i} = f32[4,4] concatenate(a{i}, b{i}), dimensions={{1}}',
            f'  r{i} = f32[16] reshape(c{i})',
            f'  v{i} = f32[8] slice(r{i}), slice={{[0:8]}}'], f'v{i}'


def permutes(i, prev):
    return [f'  v{i} = f32[8] collective-permute({prev}), '
            'source_target_pairs={{0,1},{1,0}}'], f'v{i}'


PASSES = [
    ('convert-collectives-to-custom-call', collectives, 1),
    ('convert-custom-call-to-collectives', None, 1),  # input: the forward pass's output
    ('fuse-send-recv', send_recv, 1),
    ('fuse-reduce-scatter', reduce_scatter_pairs, 2),
    ('collective-permute-to-all-gather', permutes, 1),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--n', type=int, default=100000)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    parser.add_argument('--keep', help='keep the generated modules in this directory')
    parser.add_argument('--passes', help='comma-separated subset of the passes to measure')
    add_record_option(parser)
    args = parser.parse_args()
    hopt = os.path.abspath(os.path.join(args.build, 'tools', 'hopt'))
    plugin = os.path.abspath(os.path.join(args.build, 'plugins', 'libneuron_collectives.so'))
    failed = False
    rows = []
    with work_dir(args.keep, 'hopt-collectives-bench-') as tmp:
        print(f'{"pass":38} {"collectives":>12} {"N time":>9} {"8N time":>9} '
              f'{"us/coll N":>9} {"us/coll 8N":>10} {"ratio":>6}')
        wanted = set(args.passes.split(',')) if args.passes else None
        for name, make, per_step in PASSES:
            if wanted is not None and name not in wanted:
                continue
            paths = []
            for steps in (args.n, 8 * args.n):
                path = os.path.join(tmp, f'{name}-{steps}.hlo')
                if make is None:
                    source = os.path.join(tmp, f'convert-collectives-to-custom-call-{steps}.hlo')
                    status, _, _ = measure([hopt, '-load=' + plugin,
                                            '-passes=convert-collectives-to-custom-call',
                                            source, '-o', path], path + '.log')
                    if status != 0:
                        raise RuntimeError(f'could not make {path}')
                else:
                    with open(path, 'w') as f:
                        f.write(chain(steps, make))
                paths.append(path)
            # N and 8N alternate, so that a slow spell of the machine hits both.
            times = [None, None]
            for _ in range(args.repeat):
                for k, path in enumerate(paths):
                    log = path + '.log'
                    status, _, _ = measure([hopt, '-load=' + plugin, '-passes=' + name,
                                            '-time-passes', path, '-o', path + '.out.hlo'], log)
                    if status != 0:
                        with open(log) as f:
                            raise RuntimeError(f'{name} failed on {path}:\n{f.read()[-2000:]}')
                    with open(log) as f:
                        seconds = pass_seconds(f.read(), name)
                    times[k] = seconds if times[k] is None else min(times[k], seconds)
            ratio = times[1] / times[0]
            verdict = 'PASS' if ratio <= 9 else 'FAIL'
            failed |= ratio > 9
            per_n = [t / (steps * per_step) * 1e6 for t, steps in zip(times, (args.n, 8 * args.n))]
            print(f'{name:38} {8 * args.n * per_step:>12,} {times[0]:>8.3f}s {times[1]:>8.3f}s '
                  f'{per_n[0]:>9.2f} {per_n[1]:>10.2f} {ratio:>6.2f} {verdict}', flush=True)
            label = f'{name} ({per_step} per step)' if per_step > 1 else name
            rows.append([label, f'{times[0]:.3f} s', f'{times[1]:.3f} s',
                         f'{per_n[0]:.2f} → {per_n[1]:.2f}', f'{ratio:.2f} {verdict}'])
    if args.record:
        figures = markdown_table(['pass', 'N', '8N', 'µs/collective N → 8N', 'ratio (≤ 9)'],
                                 rows)
        figures += (f'\n\nN = {args.n:,} collectives (8N = {8 * args.n:,}), the pass\'s own time '
                    f'from `-time-passes`, best of {args.repeat}.')
        record(args.record, __file__, figures, build=args.build)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""-verify-equivalence of the neuron pipeline on models of real size.

Generates hlo-gen training steps whose weights take 1.5, 3 and 6 GB per
device on 8 devices (24 layers, -hidden=4096, 5793 and 8192, a 2x4 mesh,
every feature) and the Llama 2 13B tp=8 pp=4 preset, and runs
  hopt -passes=neuron -verify-equivalence (auto: by region at these sizes)
on each, once: the wall time, the peak RSS and each pass's region line.
The target is a verdict within 60 s and 4 GB on each. Then runs a
deliberately wrong pass (test-permute-from-wrong-source, from the test
plugin libhopt_test_wrong.so) on the largest module: it must be caught,
with the device and the output instruction named.

usage: bench/equivalence_bench.py [--build build] [--keep DIR] [--sizes 4096,5793,8192]
                                  [--preset llama2-13b-tp8-pp4]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import add_record_option, markdown_table, measure, record, work_dir  # noqa: E402

TARGET_SECONDS = 60
TARGET_BYTES = 4 * 10**9
PLUGINS = ('collectives', 'decompose', 'markers', 'partition')


def generate(hlo_gen, path, extra):
    subprocess.run([hlo_gen, '-filler=4', '-features=all', *extra, '-o', path], check=True)


def weight_bytes(path):
    """Bytes of the module's weight parameters per device (f32, 4 bytes)."""
    total = 0
    with open(path) as f:
        for line in f:
            m = re.match(r'\s*%?w\.\d+ = f32\[(\d+),(\d+)\]', line)
            if m:
                total += 4 * int(m.group(1)) * int(m.group(2))
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    parser.add_argument('--keep', help='keep the generated modules and logs in this directory')
    parser.add_argument('--sizes', default='4096,5793,8192', help='-hidden of the 24-layer steps')
    parser.add_argument('--preset', default='llama2-13b-tp8-pp4', help="'' for none")
    add_record_option(parser)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    hopt = os.path.join(build, 'tools', 'hopt')
    hlo_gen = os.path.join(build, 'tools', 'hlo-gen')
    loads = [f'-load={build}/plugins/libneuron_{p}.so' for p in PLUGINS]
    wrong = os.path.join(build, 'test', 'plugins', 'libhopt_test_wrong.so')
    ok = True
    rows, wrong_line = [], None
    with work_dir(args.keep, 'hopt-equivalence-bench-') as tmp:
        models = []
        for hidden in [int(h) for h in args.sizes.split(',') if h]:
            path = os.path.join(tmp, f'step-h{hidden}.hlo')
            generate(hlo_gen, path, ['-layers=24', f'-hidden={hidden}', '-replicas=2',
                                     '-partitions=4'])
            models.append((f'24 layers, H={hidden}, 2x4', path))
        if args.preset:
            path = os.path.join(tmp, f'{args.preset}.hlo')
            generate(hlo_gen, path, [f'-preset={args.preset}'])
            models.append((f'-preset={args.preset}, 1x8', path))
        print(f'{"model":<34} {"weights/device":>15} {"time":>8} {"peak RSS":>9}  verdict')
        largest = None
        for name, path in models:
            log = path + '.log'
            status, wall, peak = measure(
                [hopt, *loads, '-passes=neuron', '-verify-equivalence', path, '-o', path + '.out'],
                log)
            with open(log) as f:
                report = f.read()
            summary = re.search(r'by region: .*', report)
            verdict = 'equal' if status == 0 and summary else f'exit {status}'
            within = status == 0 and wall <= TARGET_SECONDS and peak <= TARGET_BYTES
            ok = ok and within
            size = weight_bytes(path)
            print(f'{name:<34} {size / 1e9:>12.2f} GB {wall:>7.1f}s {peak / 1e9:>6.2f} GB  '
                  f'{verdict} {"PASS" if within else "FAIL"}')
            rows.append([name, f'{size / 1e9:.2f} GB', f'{wall:.1f} s', f'{peak / 1e9:.2f} GB',
                         f'{verdict} {"PASS" if within else "FAIL"}'])
            for line in re.findall(r'^hopt: verify-equivalence: pass (.*)$', report, re.M):
                print(f'    {line}')
            if largest is None or size > largest[1]:
                largest = (path, size)
        if largest is not None:
            path = largest[0]
            log = path + '.wrong.log'
            status, wall, peak = measure(
                [hopt, f'-load={wrong}', '-passes=test-permute-from-wrong-source',
                 '-verify-equivalence', path, '-o', path + '.wrong'], log)
            with open(log) as f:
                report = f.read()
            error = re.search(r'error: (.*)', report)
            caught = (status == 1 and error is not None and 'on device' in error.group(1)
                      and 'output ' in error.group(1) and not os.path.exists(path + '.wrong'))
            ok = ok and caught
            print(f'wrong pass on the {largest[1] / 1e9:.2f} GB module: {wall:.1f}s, '
                  f'{peak / 1e9:.2f} GB, {"caught PASS" if caught else "not caught FAIL"}')
            print(f'    {error.group(1) if error else report[-500:]}')
            wrong_line = (f'`test-permute-from-wrong-source` on the {largest[1] / 1e9:.2f} GB '
                          f'module: {"caught" if caught else "**not caught**"} in {wall:.1f} s '
                          f'and {peak / 1e9:.2f} GB' + (f': `{error.group(1)}`' if error else '.'))
    print(f'target: a verdict within {TARGET_SECONDS} s and {TARGET_BYTES / 1e9:.0f} GB each: '
          f'{"PASS" if ok else "FAIL"}')
    if args.record:
        figures = markdown_table(['model', 'weights per device', 'time', 'peak RSS', 'verdict'],
                                 rows)
        if wrong_line:
            figures += '\n\n' + wrong_line
        figures += (f'\n\nTarget: a verdict within {TARGET_SECONDS} s and '
                    f'{TARGET_BYTES / 1e9:.0f} GB each: {"PASS" if ok else "FAIL"}.')
        record(args.record, __file__, figures, build=build)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())

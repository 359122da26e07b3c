#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Round trip of convert-collectives-to-custom-call and its inverse over a
directory of HLO texts (e.g. ../shared/corpus/xla).

For each file hopt parses that has an all-reduce, all-gather or
reduce-scatter: print it canonically (hopt, no passes), run the two passes,
and compare. Counts
  identical  the round trip printed the same bytes;
  canonical  the same instructions and attribute values, up to what the
             inverse writes as XLA does (attribute order, `replica_groups={}`
             when the text had none, no spaces in the group lists);
  different  anything else (a failure: the round trip lost something).
Exits non-zero if any file is `different` or a pass fails.

usage: scripts/collectives_roundtrip.py CORPUS_DIR [--build build]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

COLLECTIVE = re.compile(r' (all-reduce|all-gather|reduce-scatter)\(')


def split_top(text):
    """Splits at commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, False, []
    escaped = False
    for ch in text:
        if quote:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == '\\':
                escaped = True
            elif ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in '({[':
            depth += 1
        elif ch in ')}]':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(''.join(current).strip())
            current = []
        else:
            current.append(ch)
    if ''.join(current).strip():
        parts.append(''.join(current).strip())
    return parts


def normalize_line(line):
    """An instruction line with its attributes as a sorted set."""
    m = re.match(r'^(\s*(?:ROOT )?%\S+ = .*? [a-z-]+\()(.*)$', line)
    if not m:
        return line
    head, rest = m.group(1), m.group(2)
    depth, end = 1, None
    quote = False
    for i, ch in enumerate(rest):
        if quote:
            if ch == '"' and rest[i - 1] != '\\':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
            if depth == 0:
                end = i
                break
    if end is None:
        return line
    operands, attrs = rest[:end], rest[end + 1:].lstrip(', ')
    kept = []
    for attr in split_top(attrs):
        if attr == 'replica_groups={}':
            continue
        if attr.startswith('replica_groups='):
            attr = attr.replace(' ', '')
        kept.append(attr)
    return head + operands + ')|' + '|'.join(sorted(kept))


def normalize(text):
    # Group lists the text broke over lines are joined first.
    out, pos = [], 0
    while True:
        start = text.find('replica_groups={', pos)
        if start < 0:
            out.append(text[pos:])
            break
        depth, i = 0, start + len('replica_groups=')
        while i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        out.append(text[pos:start])
        out.append(re.sub(r'\s+', '', text[start:i]))
        pos = i
    return [normalize_line(line) for line in ''.join(out).splitlines()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('corpus')
    parser.add_argument('--build', default=os.path.join(os.path.dirname(__file__), '..', 'build'))
    args = parser.parse_args()
    hopt = os.path.join(args.build, 'tools', 'hopt')
    plugin = os.path.join(args.build, 'plugins', 'libneuron_collectives.so')
    counts = {'identical': 0, 'canonical': 0, 'different': 0, 'failed': 0}
    with tempfile.TemporaryDirectory() as tmp:
        canonical_path = os.path.join(tmp, 'in.hlo')
        for root, _, files in os.walk(args.corpus):
            for name in sorted(files):
                if not name.endswith('.hlo'):
                    continue
                path = os.path.join(root, name)
                with open(path, errors='replace') as f:
                    if not COLLECTIVE.search(f.read()):
                        continue
                if subprocess.run([hopt, path, '-o', canonical_path],
                                  capture_output=True).returncode != 0:
                    continue  # not a module hopt accepts; conformance covers it
                with open(canonical_path) as f:
                    before = f.read()
                run = subprocess.run(
                    [hopt, '-load=' + plugin,
                     '-passes=convert-collectives-to-custom-call,'
                     'convert-custom-call-to-collectives',
                     canonical_path], capture_output=True, text=True)
                if run.returncode != 0:
                    counts['failed'] += 1
                    print(f'FAILED {path}: {run.stderr.strip()[:300]}')
                    continue
                after = run.stdout
                if after == before:
                    counts['identical'] += 1
                elif normalize(before) == normalize(after):
                    counts['canonical'] += 1
                else:
                    counts['different'] += 1
                    print(f'DIFFERENT {path}')
    total = sum(counts.values())
    print(f'round trip over {total} modules with collectives: '
          f'{counts["identical"]} identical, {counts["canonical"]} equal up to XLA\'s '
          f'canonical attribute form, {counts["different"]} different, {counts["failed"]} failed')
    return 0 if counts['different'] == 0 and counts['failed'] == 0 else 1


if __name__ == '__main__':
    sys.exit(main())

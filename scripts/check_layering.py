#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Checks the layering of core/ (run by `meson test`, test 'layering').

Usage: check_layering.py [SOURCE_ROOT]

The libraries under core/ build on one another in one direction:

  core/support (base)  <-  core/ir  <-  core/eval  <-  core/pass_manager
                                  <-  core/proto
                                  <-  core/support's IR consumers

- core/ir includes only core/ir and the base of core/support: the support
  headers that themselves include nothing from core/ir (diagnostics,
  output files, ...). core/support also holds IR consumers (graph_dot,
  split_manifest), which the IR never includes.
- core/eval and core/proto build on core/ir and core/support and include
  neither each other nor core/pass_manager (core/proto reaches float
  encodings through core/ir/float_bits.h, not core/eval).
- core/pass_manager builds on those and on core/eval: the plugin registrar
  fills the interpreter's custom-call table (include/hopt/eval/custom_call_table.h).
- Protobuf (google/protobuf/, the generated core/proto/hlo.pb.h) and zlib
  are core/proto's alone: libhopt_core, and so every plugin, never sees
  them.
- Nothing in core/ includes tools/, plugins/ or examples/.
- The include graph of the files under core/ has no cycle.

A public header lives under include/hopt/ and is included as "hopt/...";
it belongs to the library of the same name: include/hopt/ir/shape.h (and
"hopt/ir/shape.h") counts as core/ir's shape.h here, and messages name it
so.

Prints one line per violation and exits 1, or prints nothing and exits 0.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
SOURCES = ('.h', '.cc', '.def')

# Which core/ directories each may include (besides itself).
ALLOWED = {
    'core/ir': {'core/support'},  # the base of support only; see below
    'core/support': {'core/ir'},
    'core/eval': {'core/ir', 'core/support'},
    'core/pass_manager': {'core/ir', 'core/support', 'core/eval'},
    'core/proto': {'core/ir', 'core/support'},
}
PROTO_ONLY = ('google/protobuf/', 'core/proto/hlo.pb.h', 'zlib.h')
NEVER = ('tools/', 'plugins/', 'examples/')


def logical(path):
    """A public header's place in core/: hopt/ir/x.h -> core/ir/x.h."""
    for prefix in ('include/hopt/', 'hopt/'):
        if path.startswith(prefix):
            return 'core/' + path[len(prefix):]
    return path


def directory_of(path):
    parts = path.split('/')
    return '/'.join(parts[:2]) if len(parts) > 2 else None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    includes = {}  # core file -> included paths, in order (logical names)
    for top in ('core', os.path.join('include', 'hopt')):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(SOURCES):
                    continue
                full = os.path.join(directory, name)
                rel = logical(os.path.relpath(full, root))
                with open(full, encoding='utf-8', errors='replace') as f:
                    includes[rel] = [logical(t) for t in INCLUDE.findall(f.read())
                                     if t != 'hopt/hopt-config.h']

    problems = []
    # Support headers that reach core/ir, directly or through other support
    # headers: the IR must not include them.
    reaches_ir = {}

    def support_reaches_ir(path, seen=()):
        if path in reaches_ir:
            return reaches_ir[path]
        result = False
        for target in includes.get(path, []):
            if target.startswith('core/ir/'):
                result = True
            elif (target.startswith('core/support/') and target not in seen and
                  support_reaches_ir(target, seen + (path,))):
                result = True
        reaches_ir[path] = result
        return result

    for path, targets in sorted(includes.items()):
        own = directory_of(path)
        for target in targets:
            where = f'{path}: includes "{target}"'
            if target.startswith(NEVER):
                problems.append(f'{where}: nothing in core/ includes tools/, plugins/ or examples/')
                continue
            if target.startswith(PROTO_ONLY) and own != 'core/proto':
                problems.append(f'{where}: protobuf and zlib are core/proto\'s alone')
                continue
            if not target.startswith('core/'):
                continue
            other = directory_of(target)
            if other == own:
                continue
            if own in ALLOWED and other not in ALLOWED[own]:
                problems.append(f'{where}: {own} may include only '
                                + ', '.join(sorted({own} | ALLOWED[own])))
            elif own == 'core/ir' and other == 'core/support' and support_reaches_ir(target):
                problems.append(f'{where}: core/ir may include only support headers that '
                                'include nothing from core/ir')

    # Cycles in the include graph (depth-first, colouring files).
    state = {}
    stack = []

    def visit(path):
        state[path] = 'open'
        stack.append(path)
        for target in includes.get(path, []):
            if target not in includes:
                continue
            if state.get(target) == 'open':
                cycle = stack[stack.index(target):] + [target]
                problems.append('include cycle: ' + ' -> '.join(cycle))
            elif target not in state:
                visit(target)
        stack.pop()
        state[path] = 'done'

    sys.setrecursionlimit(10000)
    for path in sorted(includes):
        if path not in state:
            visit(path)

    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Checks that hopt's public headers stand on their own (meson test
"public-headers"; the list is include/hopt/public_headers.txt, explained in
docs/design.md, "Public headers").

  1. The list and the headers under include/hopt/ agree, both ways.
  2. Each public header compiles alone (c++ -fsyntax-only), with the flags
     a plugin is compiled with (taken from build/compile_commands.json),
     and every header of the source tree it reads, directly or through
     others (the same run's -MD listing), is public too.
  3. A plugin's compile command puts no directory on the include path that
     reaches core's own headers: our plugins see what a vendor's sees.

Usage: check_public_headers.py SOURCE_ROOT BUILD_ROOT
Exit status 0 when all hold; 1 with one line per failure otherwise.
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


PUBLIC_DIR = os.path.join("include", "hopt")
HEADER_SUFFIXES = (".h", ".def")


def read_list(source_root):
    """The listed headers, as paths from the source root."""
    path = os.path.join(source_root, PUBLIC_DIR, "public_headers.txt")
    with open(path) as f:
        entries = [line.strip() for line in f]
    return [os.path.join(PUBLIC_DIR, e) for e in entries if e and not e.startswith("#")]


def headers_on_disk(source_root):
    found = []
    for dirpath, _, names in os.walk(os.path.join(source_root, PUBLIC_DIR)):
        for name in names:
            if name.endswith(HEADER_SUFFIXES):
                found.append(os.path.relpath(os.path.join(dirpath, name), source_root))
    return found


def plugin_flags(build_root):
    """The compiler and the -I/-D/-std flags of a plugin's compile command,
    with include directories made absolute."""
    with open(os.path.join(build_root, "compile_commands.json")) as f:
        commands = json.load(f)
    chosen = None
    for entry in commands:
        if "/plugins/" in entry["file"] and "/test/" not in entry["file"]:
            chosen = entry
            break
    if chosen is None:
        chosen = commands[0]
    argv = shlex.split(chosen["command"]) if "command" in chosen else chosen["arguments"]
    directory = chosen["directory"]
    if os.path.basename(argv[0]) == "ccache":
        argv = argv[1:]
    compiler = argv[0]
    flags = []
    k = 1
    while k < len(argv):
        a = argv[k]
        if a in ("-I", "-isystem", "-D"):
            value = argv[k + 1]
            if a != "-D":
                value = os.path.normpath(os.path.join(directory, value))
            flags += [a, value]
            k += 2
            continue
        if a.startswith("-I"):
            flags.append("-I" + os.path.normpath(os.path.join(directory, a[2:])))
        elif a.startswith("-isystem"):
            flags.append("-isystem" + os.path.normpath(os.path.join(directory, a[8:])))
        elif a.startswith(("-D", "-std=", "-pthread", "-W", "-f")) and not a.startswith(
                "-fdiagnostics-color"):
            flags.append(a)
        k += 1
    return compiler, flags


def check_header(header, source_root, compiler, flags, public):
    problems = []
    path = os.path.join(source_root, header)
    with tempfile.TemporaryDirectory(prefix="hopt-public-") as scratch:
        depfile = os.path.join(scratch, "deps.d")
        if header.endswith(".h"):
            # One run both compiles the header alone and lists what it reads.
            run = subprocess.run([compiler, "-x", "c++", "-fsyntax-only", "-Werror", *flags,
                                  "-MD", "-MF", depfile, path], capture_output=True, text=True)
            if run.returncode != 0:
                first = next((l for l in run.stderr.splitlines() if "error" in l),
                             run.stderr.strip()[:300])
                problems.append("%s does not compile alone: %s" % (header, first))
                return problems
        else:  # a .def: included into a context, never compiled alone
            run = subprocess.run([compiler, "-x", "c++", "-M", *flags, "-MF", depfile, path],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append("%s: c++ -M failed: %s" % (header, run.stderr.strip()[:300]))
                return problems
        with open(depfile) as f:
            listing = f.read()
    deps = listing.replace("\\\n", " ").split(":", 1)[1].split()
    root = os.path.realpath(source_root) + os.sep
    for dep in deps:
        real = os.path.realpath(dep if os.path.isabs(dep) else os.path.join(source_root, dep))
        if not real.startswith(root):
            continue  # system, Abseil, LLVM (a generated header in a build
            # directory inside the source tree is caught: it is not public)
        relative = real[len(root):]
        if relative == header:
            continue
        if relative.endswith("include/hopt/hopt-config.h"):
            continue  # generated by Meson from include/hopt/hopt-config.h.in; installed
        if relative not in public:
            problems.append("%s includes %s, which is not public" % (header, relative))
    return problems


def check_plugin_include_path(source_root, flags):
    """No -I of a plugin's compile command (other than include/, the build
    tree's generated include/, and plugins/) lets it reach core/."""
    problems = []
    root = os.path.realpath(source_root)
    for flag in flags:
        if not flag.startswith("-I"):
            continue
        directory = os.path.realpath(flag[2:])
        if os.path.isdir(os.path.join(directory, "core")) and \
                os.path.realpath(os.path.join(directory, "core")).startswith(root):
            problems.append("a plugin's include path has %s, which reaches core/'s own "
                            "headers" % directory)
    return problems


def main(argv):
    if len(argv) != 3:
        print("usage: check_public_headers.py SOURCE_ROOT BUILD_ROOT", file=sys.stderr)
        return 2
    source_root, build_root = argv[1], argv[2]
    headers = read_list(source_root)
    public = set(headers)
    problems = []
    for header in headers:
        if not os.path.isfile(os.path.join(source_root, header)):
            problems.append("%s is listed as public but does not exist" % header)
    for header in sorted(set(headers_on_disk(source_root)) - public):
        problems.append("%s is under include/hopt/ but not in public_headers.txt" % header)
    compiler, flags = plugin_flags(build_root)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda h: check_header(h, source_root, compiler, flags, public),
                           [h for h in headers if os.path.isfile(os.path.join(source_root, h))])
        for found in results:
            problems += found
    problems += check_plugin_include_path(source_root, flags)
    for p in problems:
        print("error: " + p, file=sys.stderr)
    if not problems:
        print("%d public headers: each compiles alone and includes only public ones" %
              len(headers))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

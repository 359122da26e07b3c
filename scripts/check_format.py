#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the repository's source formatting: every C++ file as
clang-format-16 formats it with the root .clang-format, and every source
file (C++, Python, shell, Meson, protobuf) carrying the SPDX licence line,
and scripts (Python, shell, Meson) within 100 columns.

Usage: check_format.py [--fix] [--clang-format PROGRAM] ROOT
       check_format.py --self-test [--clang-format PROGRAM]

Without --fix: lists every file that differs and exits 1 (0 when clean).
With --fix: formats the files in place and adds missing SPDX lines.
Only files git tracks are looked at, so build trees are never touched.
--self-test runs the check on a scratch repository holding one mistake of
each kind, and passes only when exactly those are reported and --fix
repairs the fixable ones.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys

SPDX = "SPDX-License-Identifier: Apache-2.0"
MAX_COLUMNS = 100
CPP_SUFFIXES = (".cc", ".h", ".cpp")
# Where the licence line goes is a comment of the file's language.
COMMENT_BY_SUFFIX = {
    ".cc": "//", ".h": "//", ".cpp": "//", ".def": "//", ".proto": "//",
    ".h.in": "//", ".py": "#", ".py.in": "#", ".sh": "#",
}
COMMENT_BY_NAME = {"meson.build": "#", "meson_options.txt": "#", "run": "#"}


# Fixtures whose line numbers other tests pin (the links check's self-test).
EXCLUDED_DIRS = ("test/links-fixture/",)


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                         capture_output=True).stdout.decode()
    return [name for name in out.split("\0") if name and not name.startswith(EXCLUDED_DIRS)]


def comment_of(path):
    base = os.path.basename(path)
    if base in COMMENT_BY_NAME:
        # `run` only as CI's entry point, not any file so named.
        return None if base == "run" and not path.startswith(".ci/") else COMMENT_BY_NAME[base]
    for suffix in sorted(COMMENT_BY_SUFFIX, key=len, reverse=True):
        if base.endswith(suffix):
            return COMMENT_BY_SUFFIX[suffix]
    return None


def with_spdx(text, comment):
    """Returns text with the licence line on its first line, or on its second
    after a shebang; None when it is already there."""
    lines = text.splitlines(keepends=True)
    head = 1 if lines and lines[0].startswith("#!") else 0
    if any(SPDX in line for line in lines[: head + 3]):
        return None
    line = f"{comment} {SPDX}\n"
    rest = lines[head:]
    # Joins a leading comment block; otherwise stands apart from the code.
    if rest and not rest[0].lstrip().startswith(comment) and rest[0].strip():
        line += "\n"
    return "".join(lines[:head]) + line + "".join(rest)


def formatted_status(root, args, name):
    """Returns "" when clang-format leaves the file as it is, else why not."""
    try:
        result = subprocess.run([args.clang_format, "--style=file", name], cwd=root,
                                capture_output=True)
    except FileNotFoundError:
        return f"{args.clang_format} not found (scripts/setup.sh installs clang-format-16)"
    if result.returncode != 0:
        return f"{args.clang_format} failed: {result.stderr.decode().strip()}"
    with open(os.path.join(root, name), "rb") as f:
        return "" if f.read() == result.stdout else "not as clang-format formats it"


def self_test(clang_format):
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        files = {
            ".clang-format": "BasedOnStyle: Google\nColumnLimit: 100\n",
            "good.cc": f"// {SPDX}\n\nint Good() {{ return 1; }}\n",
            "ugly.cc": f"// {SPDX}\nint  Ugly( ) {{ return 1; }}\n",
            "bare.h": "int Bare();\n",
            "tool.py": f"#!/usr/bin/env python3\n# {SPDX}\nX = '{'x' * 100}'\n",
            "notes.txt": "not a source file\n",
        }
        for name, text in files.items():
            with open(os.path.join(root, name), "w") as f:
                f.write(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        subprocess.run(["git", "-C", root, "add", "."], check=True)
        check = [sys.executable, os.path.abspath(__file__), "--clang-format", clang_format, root]
        found = subprocess.run(check, capture_output=True, text=True).stdout.splitlines()
        expected = ["bare.h: no 'SPDX-License-Identifier: Apache-2.0' line at the top",
                    "tool.py:3: longer than 100 columns",
                    "ugly.cc: not as clang-format formats it"]
        if sorted(found[:-1]) != expected:
            print("check_format self-test: found", found, "expected", expected)
            return 1
        subprocess.run(check[:2] + ["--fix"] + check[2:], check=True, capture_output=True)
        found = subprocess.run(check, capture_output=True, text=True).stdout.splitlines()
        if found[:-1] != ["tool.py:3: longer than 100 columns"]:
            print("check_format self-test: after --fix found", found)
            return 1
    print("check_format self-test: every planted mistake found, --fix repaired the fixable ones")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true")
    parser.add_argument("--clang-format", default="clang-format-16")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("root", nargs="?")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.clang_format)
    if args.root is None:
        parser.error("ROOT is required")
    root = os.path.abspath(args.root)
    problems = []
    cpp = []
    for name in tracked_files(root):
        path = os.path.join(root, name)
        comment = comment_of(name)
        if comment is None or not os.path.isfile(path):
            continue
        if name.endswith(CPP_SUFFIXES):
            cpp.append(name)
        with open(path, encoding="utf-8") as f:
            fixed = with_spdx(f.read(), comment)
        if comment == "#" and not args.fix:
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if len(line.rstrip("\n")) > MAX_COLUMNS:
                        problems.append(f"{name}:{number}: longer than {MAX_COLUMNS} columns")
        if fixed is not None:
            if args.fix:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(fixed)
            else:
                problems.append(f"{name}: no '{SPDX}' line at the top")
    if args.fix:
        for start in range(0, len(cpp), 100):
            batch = cpp[start:start + 100]
            result = subprocess.run([args.clang_format, "--style=file", "-i", *batch], cwd=root,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit(f"check_format: {args.clang_format} failed:\n{result.stderr}")
    else:
        # The formatted text compared with the file, not --dry-run: that one
        # reports no-op replacements in backslash-continued macros.
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for name, status in zip(cpp, pool.map(lambda n: formatted_status(root, args, n), cpp)):
                if status:
                    problems.append(f"{name}: {status}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_format: {len(problems)} problem(s); "
              f"`python3 scripts/check_format.py --fix .` fixes them")
        return 1
    print(f"check_format: {len(cpp)} C++ files formatted, every source file has its SPDX line")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Checks that the repository's references to its own files resolve.

  python3 scripts/check_links.py [ROOT]    # the repository (default: ..)
  python3 scripts/check_links.py --self-test

Checked, in every tracked file (`git ls-files`; a walk of ROOT outside a
git checkout):

  - Markdown (*.md): every relative link `[text](path#anchor)` and
    reference definition `[x]: path` names an existing file or directory
    inside the repository; an anchor into a Markdown file (or `#anchor`
    alone) names one of its headings, spelled as GitHub makes heading ids.
  - Comments of source files (C++, Python, shell, meson, HLO, lit
    configuration, ...) and the prose of Markdown files: a path under one
    of the repository's top directories (`docs/...`, `core/...`, ...) or a
    public header spelled `hopt/...` (found under include/) exists; a
    pointer into a page's section, `docs/design.md, "Heading"` or
    `README "Heading"`, names a heading that page has.
  - No file names the retired uppercase design notes or README section
    files that are not part of the repository.

Prints one line per broken reference (`file:line: what`) and exits 1; or
prints a one-line summary and exits 0. `--self-test` runs the checks on
test/links-fixture/, whose expected findings are listed in its
expected.txt, and fails unless exactly those are found.
"""

import io
import os
import re
import subprocess
import sys
import tokenize

TOP_DIRS = ("docs", "scripts", "core", "include", "tools", "plugins", "test",
            "unittests", "bench", "fuzz", "examples", "meson")
# The fixture holds broken references on purpose; only --self-test reads it.
FIXTURE = "test/links-fixture"

# Names of files that are not in the repository and must not be pointed to
# (assembled so that this file does not name them itself).
FORBIDDEN = re.compile(r"\b(" + "DESIGN" + r"\.md|" + "README" + r"_SECTION_\w*)")

C_LIKE = (".h", ".cc", ".cpp", ".c", ".def", ".proto", ".hlo", ".map", ".h.in")
HASH_LIKE = (".sh", ".cfg", ".ini", ".supp", ".cfg.py.in", ".txt.in")
HASH_NAMES = ("meson.build", "meson_options.txt", "public_headers.txt")

_CHARS = r"(?:[\w.+*-]|/|<[^<>\s]*>|\{[^{}\s]*\})"
# A path under a top directory, or a public header spelled "hopt/...", not
# preceded by what would make it part of a longer path (build/test/...).
PATH_RE = re.compile(
    r"(?<![\w./%$@~<>{}-])((?:" + "|".join(TOP_DIRS) + r"|hopt)/" + _CHARS + r"*)")
# `docs/x.md, "Heading"` or `README "Heading"` / `README, "Heading"`.
SECTION_RE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.md|README(?:\.md)?)(?:'s)?,?\s+\"([^\"]+)\"")
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)")
REFDEF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR_RE = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")


def tracked_files(root):
    """Repository-relative paths of the files to check."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if os.path.realpath(top) == os.path.realpath(root):
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                                 check=True).stdout.decode()
            return [p for p in out.split("\0") if p and os.path.exists(os.path.join(root, p))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        rel = os.path.relpath(dirpath, root)
        for name in filenames:
            files.append(os.path.normpath(os.path.join(rel, name)))
    return files


class Repo:
    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.dirs = {""}
        for path in files:
            parent = os.path.dirname(path)
            while parent not in self.dirs:
                self.dirs.add(parent)
                parent = os.path.dirname(parent)
        self._headings = {}

    def exists(self, rel):
        rel = os.path.normpath(rel).rstrip("/")
        if rel in (".", ""):
            return True
        if rel in self.files or rel in self.dirs:
            return True
        # Generated from a tracked template or a .proto.
        if rel + ".in" in self.files:
            return True
        for suffix in (".pb.h", ".pb.cc"):
            if rel.endswith(suffix) and rel[:-len(suffix)] + ".proto" in self.files:
                return True
        return False

    def glob_exists(self, pattern):
        # `<family>` and `*` stand for any name; `{h,cc}` for each of its words.
        brace = re.search(r"\{([^{}]*)\}", pattern)
        if brace:
            return all(self.glob_exists(pattern[:brace.start()] + word + pattern[brace.end():])
                       for word in brace.group(1).split(","))
        regex = re.escape(pattern)
        regex = re.sub(r"\\<[^>]*\\>|<[^>]*>", "[^/]+", regex)
        regex = regex.replace(r"\*", "[^/]*")
        compiled = re.compile(regex.rstrip("/") + "(/.*)?$")
        return any(compiled.match(p) for p in self.files)

    def headings(self, rel):
        """GitHub ids and plain texts of a Markdown file's headings."""
        if rel not in self._headings:
            ids, texts, seen = set(), set(), {}
            for _, line in markdown_lines(self.read(rel)):
                match = HEADING_RE.match(line)
                if match:
                    text = plain_heading(match.group(2))
                    texts.add(normalize(text))
                    slug = github_slug(text)
                    count = seen.get(slug, 0)
                    seen[slug] = count + 1
                    ids.add(slug if count == 0 else "%s-%d" % (slug, count))
                for anchor in HTML_ANCHOR_RE.findall(line):
                    ids.add(anchor)
            self._headings[rel] = (ids, texts)
        return self._headings[rel]

    def read(self, rel):
        try:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""


def plain_heading(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("`", "").replace("**", "").replace("*", "")


def github_slug(text):
    slug = text.strip().lower()
    slug = re.sub(r"[^\w\- ]", "", slug)
    return slug.replace(" ", "-")


def normalize(text):
    return " ".join(plain_heading(text).split()).lower()


def markdown_lines(text):
    """(line number, line) of a Markdown text outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE_RE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
                continue
            if match.group(1) == fence:
                fence = None
                continue
        if fence is None:
            yield number, line


C_TOKEN_RE = re.compile(r"//|/\*|(?<![\w])R\"|\"|'")


def c_comments(text):
    """(line, text) of each // and /* */ comment of C-like text."""
    out = []
    i, n = 0, len(text)
    while True:
        match = C_TOKEN_RE.search(text, i)
        if match is None:
            return out
        i, token = match.start(), match.group()
        if token == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append((text.count("\n", 0, i) + 1, text[i + 2:end]))
            i = end
        elif token == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            line = text.count("\n", 0, i) + 1
            for k, part in enumerate(text[i + 2:end].split("\n")):
                out.append((line + k, part))
            i = end + 2
        elif token == 'R"':
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren] if open_paren >= 0 else ""
            end = text.find(")" + delimiter + '"', open_paren) if open_paren >= 0 else -1
            if open_paren < 0 or end < 0 or len(delimiter) > 16 or "\n" in delimiter:
                i += 2
            else:
                i = end + len(delimiter) + 2
        elif token == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
            i += 1
        else:  # a character literal, or a digit separator
            literal = re.match(r"'(?:\\[^'\n]{1,8}|[^\\'\n])'", text[i:i + 12])
            i += len(literal.group()) if literal else 1


def hash_comments(text):
    """(line, text) of # comments: a # at the start or after a space, not in quotes."""
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        quote = None
        for k, c in enumerate(line):
            if quote:
                if c == "\\":
                    continue
                if c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c == "#" and (k == 0 or line[k - 1] in " \t"):
                out.append((number, line[k + 1:]))
                break
    return out


def python_comments(text):
    """(line, text) of a Python file's comments and triple-quoted strings."""
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                out.append((token.start[0], token.string[1:]))
            elif token.type == tokenize.STRING and re.match(r"^[rRbBuUfF]*('''|\"\"\")",
                                                              token.string):
                for k, part in enumerate(token.string.split("\n")):
                    out.append((token.start[0] + k, part))
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text)
    return out


def comment_lines(rel, text):
    name = os.path.basename(rel)
    if rel.endswith(".py") or rel.endswith(".cfg.py"):
        return python_comments(text)
    if name in HASH_NAMES or rel.endswith(HASH_LIKE):
        return hash_comments(text)
    if rel.endswith(C_LIKE):
        return c_comments(text)
    if text.startswith("#!"):
        first = text.split("\n", 1)[0]
        return python_comments(text) if "python" in first else hash_comments(text)
    return None


class Checker:
    def __init__(self, repo):
        self.repo = repo
        self.problems = []
        self.links = 0
        self.paths = 0

    def report(self, rel, line, message):
        self.problems.append((rel, line, message))

    def check_file(self, rel):
        text = self.repo.read(rel)
        if rel.endswith(".md"):
            lines = list(markdown_lines(text))
            self.check_markdown_links(rel, lines)
            # A link is checked as a link; its text may name a file relative to
            # the link's target, so it is not read as prose.
            prose = [(n, LINK_RE.sub("", l)) for n, l in lines if not REFDEF_RE.match(l)]
            self.check_names(rel, prose)
            return
        comments = comment_lines(rel, text)
        if comments:
            self.check_names(rel, comments)

    # --- Markdown links.
    def check_markdown_links(self, rel, lines):
        for number, line in lines:
            code_free = re.sub(r"`[^`]*`", "", line)
            targets = [m.group(1) for m in LINK_RE.finditer(code_free)]
            ref = REFDEF_RE.match(code_free)
            if ref:
                targets.append(ref.group(1))
            for target in targets:
                self.links += 1
                message = self.link_problem(rel, target.strip("<>"))
                if message:
                    self.report(rel, number, message)

    def link_problem(self, rel, target):
        if SCHEME_RE.match(target) or target.startswith("//"):
            return None
        path, _, anchor = target.partition("#")
        if path.startswith("/"):
            resolved = path.lstrip("/")
        elif path:
            resolved = os.path.normpath(os.path.join(os.path.dirname(rel), path))
        else:
            resolved = rel
        if resolved.startswith(".."):
            return "link '%s' leaves the repository" % target
        if not self.repo.exists(resolved):
            return "link '%s': no such file" % target
        if anchor and resolved.endswith(".md") and resolved in self.repo.files:
            ids, _ = self.repo.headings(resolved)
            if anchor.lower() not in ids:
                return "link '%s': %s has no heading with id '%s'" % (target, resolved, anchor)
        return None

    # --- Files and sections named in comments and prose.
    def check_names(self, rel, lines):
        for number, text in lines:
            for match in FORBIDDEN.finditer(text):
                self.report(rel, number, "'%s' is not a file of this repository" % match.group(1))
            for match in PATH_RE.finditer(text):
                token = match.group(1).rstrip(".-")
                if FORBIDDEN.search(token):
                    continue  # reported above
                self.paths += 1
                message = self.path_problem(rel, token)
                if message:
                    self.report(rel, number, message)
        # A section pointer may run over two comment lines.
        joined = "\n".join(text for _, text in lines)
        starts = []
        offset = 0
        for number, text in lines:
            starts.append((offset, number))
            offset += len(text) + 1
        for match in SECTION_RE.finditer(joined):
            number = max(n for o, n in starts if o <= match.start())
            message = self.section_problem(rel, match.group(1), " ".join(match.group(2).split()))
            if message:
                self.report(rel, number, message)

    def path_problem(self, rel, token):
        # A one-letter file name (`core/ir/x.h`, `test/X.hlo`) is a placeholder.
        token = re.sub(r"(?<=/)[A-Za-z](?=\.\w+$)", "*", token)
        if token.startswith("hopt/"):
            candidates = ["include/" + token]
        else:
            candidates = [token, os.path.join(os.path.dirname(rel), token)]
        for candidate in candidates:
            if re.search(r"[*<>{}]", candidate):
                if self.repo.glob_exists(candidate):
                    return None
            elif self.repo.exists(candidate):
                return None
        where = " (under include/)" if token.startswith("hopt/") else ""
        return "'%s'%s: no such file or directory" % (token, where)

    def section_problem(self, rel, page, heading):
        if page.startswith("README"):
            candidates = ["README.md"]
        else:
            candidates = [page, os.path.normpath(os.path.join(os.path.dirname(rel), page))]
        target = next((c for c in candidates if c in self.repo.files), None)
        if target is None:
            # A missing page is reported as a missing file when it is path-like.
            if "/" in page:
                return None
            return "'%s, \"%s\"': no such page" % (page, heading)
        ids, texts = self.repo.headings(target)
        wanted = normalize(heading)
        if wanted in texts or github_slug(heading) in ids:
            return None
        # "Heading ..." abbreviates; a heading "A: B" may be named by A or B.
        if wanted.endswith(("...", "\u2026")):
            prefix = wanted.rstrip(".\u2026 ")
            if any(t.startswith(prefix) for t in texts):
                return None
        if any(wanted in [part.strip() for part in t.split(": ")] for t in texts):
            return None
        return "'%s, \"%s\"': %s has no such heading" % (page, heading, target)


def run(root, exclude_fixture=True):
    files = sorted(tracked_files(root))
    checker = Checker(Repo(root, files))
    if exclude_fixture:
        files = [f for f in files if not f.startswith(FIXTURE + "/")]
    self_name = os.path.join("scripts", "check_links.py")
    for rel in files:
        if rel != self_name:
            checker.check_file(rel)
    return checker, len(files)


def self_test(root):
    fixture = os.path.join(root, FIXTURE)
    checker, _ = run(fixture, exclude_fixture=False)
    found = sorted("%s:%d" % (rel, line) for rel, line, _ in checker.problems)
    expected = []
    with open(os.path.join(fixture, "expected.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                expected.append(line)
    expected.sort()
    if found != expected:
        for rel, line, message in checker.problems:
            print("%s:%d: %s" % (rel, line, message))
        print("check_links self-test: found %s, expected %s" % (found, expected))
        return 1
    print("check_links self-test: the fixture's %d broken references found, nothing else"
          % len(expected))
    return 0


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args = [a for a in argv[1:] if a != "--self-test"]
    if args:
        root = args[0]
    root = os.path.abspath(root)
    if "--self-test" in argv[1:]:
        return self_test(root)
    checker, count = run(root)
    for rel, line, message in checker.problems:
        print("%s:%d: %s" % (rel, line, message))
    if checker.problems:
        print("links: %d broken references" % len(checker.problems))
        return 1
    print("links: %d files, %d Markdown links and %d named paths, all resolve"
          % (count, checker.links, checker.paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

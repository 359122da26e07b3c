#!/usr/bin/env python3
"""Run hopt over an XLA HLO conformance corpus and report how much of it works.

Corpus layout (DIR):
  parser_roundtrip/long/*.hlo           hopt -print-operand-shapes F == F (bytes)
  parser_roundtrip/short/*.hlo          hopt -print-style=short F == F (bytes)
  parser_roundtrip/nonroundtrip/X.input.hlo + X.expected.hlo
                                        hopt -print-style=short X.input.hlo
                                        == X.expected.hlo (trailing ws stripped)
  every other *.hlo ("other")           hopt F exits 0 and print -> parse -> print
                                        is a fixpoint
  manifest.tsv                          file / source_path / location / kind;
                                        kind=parser_test:other_maybe_error marks
                                        inputs that XLA may legitimately reject

Exit status: 0 when every golden matches, nothing crashed or timed out, and the
"other" pass rate is at least --min-other-pct; 1 otherwise; 2 on usage errors.
Standard library only.
"""

import argparse
import collections
import concurrent.futures
import csv
import difflib
import os
import re
import signal
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HOPT = os.path.join(REPO_ROOT, "build", "tools", "hopt")

EXPECTED_FAILURE_KIND = "parser_test:other_maybe_error"
DIAG_RE = re.compile(r"^(.*?):(\d+):(\d+):\s*(.*)$", re.MULTILINE)
DETAIL_LINES = 15       # lines of detail shown per failure
LIST_CAP = 60           # failures listed on the console without --verbose
CONSOLE_WIDTH = 200     # long lines (constants...) are cut on the console

# Categories.
LONG, SHORT, NONRT, OTHER, EXPECTED = "long", "short", "nonroundtrip", "other", "expected-failure"

# Failure buckets, in the order they are listed.
HARD, GOLDEN, UNSTABLE, REJECTED = "hard failure", "golden mismatch", "round-trip unstable", "clean rejection"
BUCKET_ORDER = (HARD, GOLDEN, UNSTABLE, REJECTED)


class Case:
    """One test: a category, the input file, and (for nonroundtrip) the expected file."""

    def __init__(self, category, path, expected=None):
        self.category = category
        self.path = path
        self.expected = expected


class Run:
    """Outcome of one hopt invocation."""

    def __init__(self, status, stdout=b"", message=""):
        self.status = status      # "ok" | "rejected" | "hard"
        self.stdout = stdout
        self.message = message    # diagnostic line or description of the problem


class Result:
    def __init__(self, case):
        self.case = case
        self.parsed = False        # first hopt run exited 0
        self.passed = False
        self.bucket = None         # failure bucket when not passed
        self.summary = ""          # one-line description of the failure
        self.detail = []           # extra lines (diff head)
        self.expected_outcome = "" # for expected failures: "accepted" / "rejected"


def run_hopt(hopt, flags, path, timeout):
    try:
        proc = subprocess.run([hopt] + flags + [path], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run("hard", message="timeout after %gs" % timeout)
    except OSError as e:
        return Run("hard", message="cannot run hopt: %s" % e)
    err = proc.stderr.decode("utf-8", "replace")
    rc = proc.returncode
    if rc == 0:
        return Run("ok", stdout=proc.stdout)
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return Run("hard", message="crashed with %s%s" % (name, first_line_suffix(err)))
    if rc == 1:
        m = DIAG_RE.search(err)
        if m:
            return Run("rejected", message=m.group(0).strip())
        return Run("hard", message="exit 1 without a file:line:col: message%s" % first_line_suffix(err))
    return Run("hard", message="unexpected exit status %d%s" % (rc, first_line_suffix(err)))


def first_line_suffix(text):
    for line in text.splitlines():
        if line.strip():
            return ": " + line.strip()
    return ""


def diff_head(expected, actual, exp_name, act_name):
    exp_text = expected.decode("utf-8", "replace")
    act_text = actual.decode("utf-8", "replace")
    lines = list(difflib.unified_diff(exp_text.splitlines(), act_text.splitlines(),
                                      exp_name, act_name, n=1, lineterm=""))
    if not lines:
        # Same lines, so the difference is in line endings / final newline.
        lines = ["(lines are identical; difference is in newlines or trailing whitespace:"
                 " expected ends %r, got %r)" % (exp_text[-4:], act_text[-4:])]
    elif exp_text.rstrip() == act_text.rstrip() or \
            [l.rstrip() for l in exp_text.splitlines()] == [l.rstrip() for l in act_text.splitlines()]:
        lines.insert(0, "(differs only in trailing whitespace: expected ends %r, got %r)"
                     % (exp_text[-8:], act_text[-8:]))
    return lines


def check_golden(case, hopt, timeout):
    res = Result(case)
    flags = {LONG: ["-print-operand-shapes"], SHORT: ["-print-style=short"],
             NONRT: ["-print-style=short"]}[case.category]
    run = run_hopt(hopt, flags, case.path, timeout)
    if run.status != "ok":
        res.bucket = HARD if run.status == "hard" else GOLDEN
        res.summary = run.message
        return res
    res.parsed = True
    golden_path = case.expected if case.category == NONRT else case.path
    try:
        with open(golden_path, "rb") as f:
            golden = f.read()
    except OSError as e:
        res.bucket = GOLDEN
        res.summary = "cannot read expected output: %s" % e
        return res
    if case.category == NONRT:
        same = golden.rstrip() == run.stdout.rstrip()
    else:
        same = golden == run.stdout
    if same:
        res.passed = True
        return res
    res.bucket = GOLDEN
    res.summary = "output differs from %s" % os.path.basename(golden_path)
    res.detail = diff_head(golden, run.stdout, "expected", "hopt " + " ".join(flags))
    return res


def check_other(case, hopt, timeout, tmpdir):
    res = Result(case)
    first = run_hopt(hopt, [], case.path, timeout)
    if case.category == EXPECTED:
        # Either outcome is fine as long as hopt behaves (no crash/timeout,
        # and a rejection comes with a proper diagnostic).
        if first.status == "hard":
            res.bucket = HARD
            res.summary = first.message
        else:
            res.parsed = first.status == "ok"
            res.passed = True
            res.expected_outcome = "accepted" if res.parsed else "rejected"
            res.summary = first.message
        return res
    if first.status == "hard":
        res.bucket, res.summary = HARD, first.message
        return res
    if first.status == "rejected":
        res.bucket, res.summary = REJECTED, first.message
        return res
    res.parsed = True
    fd, tmp = tempfile.mkstemp(suffix=".hlo", dir=tmpdir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(first.stdout)
        second = run_hopt(hopt, [], tmp, timeout)
    finally:
        os.unlink(tmp)
    if second.status == "hard":
        res.bucket = HARD
        res.summary = "re-parsing hopt's own output: " + second.message
        return res
    if second.status == "rejected":
        res.bucket = UNSTABLE
        res.summary = "hopt rejects its own output: " + second.message
        return res
    if second.stdout != first.stdout:
        res.bucket = UNSTABLE
        res.summary = "print -> parse -> print is not a fixpoint"
        res.detail = diff_head(first.stdout, second.stdout, "print 1", "print 2")
        return res
    res.passed = True
    return res


def read_manifest(corpus):
    kinds = {}
    path = os.path.join(corpus, "manifest.tsv")
    if not os.path.isfile(path):
        print("warning: %s not found; no inputs are treated as expected failures" % path,
              file=sys.stderr)
        return kinds
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row.get("file"):
                kinds[os.path.normpath(row["file"])] = row.get("kind", "")
    return kinds


def collect(corpus):
    cases = []
    claimed = set()
    pr = os.path.join(corpus, "parser_roundtrip")

    def hlo_files(d):
        if not os.path.isdir(d):
            return []
        return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".hlo"))

    for category in (LONG, SHORT):
        for p in hlo_files(os.path.join(pr, category)):
            cases.append(Case(category, p))
            claimed.add(p)
    for p in hlo_files(os.path.join(pr, "nonroundtrip")):
        if p.endswith(".input.hlo"):
            exp = p[:-len(".input.hlo")] + ".expected.hlo"
            cases.append(Case(NONRT, p, exp))
            claimed.add(p)
            claimed.add(exp)
        elif p.endswith(".expected.hlo"):
            claimed.add(p)  # paired with its .input.hlo (or reported missing there)

    kinds = read_manifest(corpus)
    others = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames.sort()
        for n in sorted(filenames):
            p = os.path.join(dirpath, n)
            if n.endswith(".hlo") and p not in claimed:
                rel = os.path.normpath(os.path.relpath(p, corpus))
                cat = EXPECTED if kinds.get(rel) == EXPECTED_FAILURE_KIND else OTHER
                others.append(Case(cat, p))
    return cases + others


def pct(n, d):
    return 100.0 * n / d if d else 100.0


def fmt_entry(result, corpus, width):
    rel = os.path.relpath(result.case.path, corpus)

    def cut(s):
        return s if width is None or len(s) <= width else s[:width - 3] + "..."

    out = ["%s [%s]" % (rel, result.case.category), "    " + cut(result.summary)]
    detail = result.detail[:DETAIL_LINES]
    out += ["    " + cut(l) for l in detail]
    if len(result.detail) > DETAIL_LINES:
        out.append("    ... (%d more diff lines)" % (len(result.detail) - DETAIL_LINES))
    return out


def rejection_reason(message):
    """The diagnostic without its file:line:col prefix, for grouping."""
    m = DIAG_RE.match(message)
    text = m.group(4) if m else message
    # Collapse names/numbers so similar messages group together.
    text = re.sub(r"'[^']*'", "'...'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:120]


def main():
    ap = argparse.ArgumentParser(description="hopt conformance run over an XLA HLO corpus")
    ap.add_argument("dir", help="corpus directory (e.g. ../shared/corpus/xla)")
    ap.add_argument("--hopt", default=DEFAULT_HOPT, help="hopt binary (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel hopt processes (default: 2)")
    ap.add_argument("--min-other-pct", type=float, default=99.0,
                    help="required pass rate of 'other' inputs in percent (default: 99)")
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds per hopt run before it counts as hung (default: 10)")
    ap.add_argument("--verbose", action="store_true",
                    help="list every failure, untruncated, and print progress")
    ap.add_argument("--write-failures", metavar="FILE",
                    help="write the complete failure list to FILE")
    args = ap.parse_args()

    corpus = os.path.abspath(args.dir)
    if not os.path.isdir(corpus):
        print("error: corpus directory not found: %s" % corpus, file=sys.stderr)
        return 2
    hopt = os.path.abspath(args.hopt)
    if not (os.path.isfile(hopt) and os.access(hopt, os.X_OK)):
        print("error: hopt binary not found at %s (build it: bash scripts/setup.sh)" % hopt,
              file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("error: --jobs must be >= 1", file=sys.stderr)
        return 2

    cases = collect(corpus)
    if not cases:
        print("error: no .hlo files under %s" % corpus, file=sys.stderr)
        return 2

    results = []
    with tempfile.TemporaryDirectory(prefix="hopt-conformance-") as tmpdir, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = []
        for c in cases:
            if c.category in (LONG, SHORT, NONRT):
                futures.append(pool.submit(check_golden, c, hopt, args.timeout))
            else:
                futures.append(pool.submit(check_other, c, hopt, args.timeout, tmpdir))
        for i, fut in enumerate(futures, 1):
            r = fut.result()
            results.append(r)
            if args.verbose:
                state = "ok" if r.passed else r.bucket
                print("[%d/%d] %-18s %s" % (i, len(cases), state,
                                            os.path.relpath(r.case.path, corpus)),
                      file=sys.stderr)
            elif i % 500 == 0:
                print("... %d/%d" % (i, len(cases)), file=sys.stderr)

    by_cat = collections.defaultdict(list)
    for r in results:
        by_cat[r.case.category].append(r)

    def passed(cat):
        return sum(r.passed for r in by_cat[cat])

    other = by_cat[OTHER]
    other_pass = passed(OTHER)
    other_rate = pct(other_pass, len(other))
    exp = by_cat[EXPECTED]
    exp_ok = [r for r in exp if r.passed]
    buckets = collections.defaultdict(list)
    for r in results:
        if not r.passed:
            buckets[r.bucket].append(r)
    parsed = sum(r.parsed for r in results)
    stable_den = len(other)
    golden_ok = all(passed(c) == len(by_cat[c]) for c in (LONG, SHORT, NONRT))

    rows = [
        ("files", "%d tests  (long %d, short %d, nonroundtrip %d pairs, other %d,"
         " expected-failure %d)"
         % (len(results), len(by_cat[LONG]), len(by_cat[SHORT]), len(by_cat[NONRT]),
            len(other), len(exp))),
        ("parsed", "%d / %d" % (parsed, len(results))),
        ("round-trip stable (other)", "%d / %d  (%.2f%%, need >= %g%%)"
         % (other_pass, stable_den, other_rate, args.min_other_pct)),
        ("golden long", "%d / %d" % (passed(LONG), len(by_cat[LONG]))),
        ("golden short", "%d / %d" % (passed(SHORT), len(by_cat[SHORT]))),
        ("golden nonroundtrip", "%d / %d" % (passed(NONRT), len(by_cat[NONRT]))),
        ("expected failures", "%d / %d behaved  (%d rejected cleanly, %d accepted)"
         % (len(exp_ok), len(exp), sum(r.expected_outcome == "rejected" for r in exp_ok),
            sum(r.expected_outcome == "accepted" for r in exp_ok))),
        ("clean rejections", "%d" % len(buckets[REJECTED])),
        ("round-trip unstable", "%d" % len(buckets[UNSTABLE])),
        ("golden mismatches", "%d" % len(buckets[GOLDEN])),
        ("hard failures", "%d  (crash, timeout, or exit without diagnostic)" % len(buckets[HARD])),
    ]
    print("hopt conformance: %s" % corpus)
    print("hopt binary:      %s" % hopt)
    print()
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print("  %-*s  %s" % (w, k, v))

    failures = [r for b in BUCKET_ORDER for r in buckets[b]]
    if failures:
        print()
        cap = None if args.verbose else LIST_CAP
        width = None if args.verbose else CONSOLE_WIDTH
        shown = 0
        for b in BUCKET_ORDER:
            items = buckets[b]
            if not items or (cap is not None and shown >= cap):
                continue
            print("== %s (%d) ==" % (b, len(items)))
            for r in items:
                if cap is not None and shown >= cap:
                    break
                for line in fmt_entry(r, corpus, width):
                    print(line)
                shown += 1
        if shown < len(failures):
            print("... %d more failures not shown (use --verbose or --write-failures FILE)"
                  % (len(failures) - shown))

    if buckets[REJECTED]:
        reasons = collections.Counter(rejection_reason(r.summary) for r in buckets[REJECTED])
        print()
        print("== most common rejection messages ==")
        for text, n in reasons.most_common(10):
            print("  %5d  %s" % (n, text))

    if args.write_failures:
        with open(args.write_failures, "w", encoding="utf-8") as f:
            f.write("# hopt conformance failures for %s: %d\n" % (corpus, len(failures)))
            for b in BUCKET_ORDER:
                if not buckets[b]:
                    continue
                f.write("\n== %s (%d) ==\n" % (b, len(buckets[b])))
                for r in buckets[b]:
                    f.write("\n".join(fmt_entry(r, corpus, None)) + "\n")
        print()
        print("full failure list written to %s" % args.write_failures)

    problems = []
    if not golden_ok:
        problems.append("golden outputs differ")
    if buckets[HARD]:
        problems.append("%d hard failures" % len(buckets[HARD]))
    if other_rate < args.min_other_pct:
        problems.append("other pass rate %.2f%% < %g%%" % (other_rate, args.min_other_pct))
    print()
    if problems:
        print("CONFORMANCE FAILED: " + "; ".join(problems))
        return 1
    print("CONFORMANCE PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())

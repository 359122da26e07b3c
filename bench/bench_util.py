# SPDX-License-Identifier: Apache-2.0

"""Helpers shared by the benchmark scripts: run a command and measure it,
read a pass's time from -time-passes, find a program, a scratch directory,
and --record: rewrite the script's generated block of docs/benchmarks.md."""

import contextlib
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS_MD = os.path.join(REPO_ROOT, 'docs', 'benchmarks.md')


def measure(argv, log_path):
    """Run argv once with stdout and stderr to log_path.

    Returns (exit status, wall seconds, peak RSS bytes of the child)."""
    with open(log_path, "wb") as log:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, log.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, log.fileno(), 2),
        ]
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss * 1024


def run_checked(argv, log_path, what):
    """Run argv like measure(); returns (its stdout+stderr text, peak RSS
    bytes), raising with the log's tail when it fails."""
    status, _, peak = measure(argv, log_path)
    with open(log_path) as f:
        report = f.read()
    if status != 0:
        raise RuntimeError(f'{what} failed (exit {status}):\n{report[-2000:]}')
    return report, peak


def _pass_row(report, name):
    m = re.search(r'^\s*([0-9.]+)\s+[0-9.]+%\s+(?:([0-9]+)\s+)?' + re.escape(name) + r'\s*$',
                  report, re.M)
    if not m:
        raise RuntimeError(f'no timing line for {name}:\n{report[-2000:]}')
    return m


def pass_seconds(report, name):
    """A pass's wall seconds from hopt's -time-passes report (the text)."""
    return float(_pass_row(report, name).group(1))


def pass_page_faults(report, name):
    """A pass's page faults from hopt's -time-passes report (the text)."""
    faults = _pass_row(report, name).group(2)
    return int(faults) if faults is not None else 0


def resolve(prog):
    """An executable path for prog (a path, or a name on PATH), or None."""
    if os.sep in prog:
        return os.path.abspath(prog) if os.access(prog, os.X_OK) else None
    return shutil.which(prog)


@contextlib.contextmanager
def work_dir(keep, prefix):
    """`keep` (created, kept) if given, else a temporary directory."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        yield os.path.abspath(keep)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as path:
        yield path


# --record: each script owns one block of docs/benchmarks.md between a BEGIN
# and an END marker that name it. Re-running replaces the block, so the
# document holds the last answer to each question, never a log of runs.


def begin_marker(script):
    return f'<!-- BEGIN GENERATED: {script} -->'


def end_marker(script):
    return f'<!-- END GENERATED: {script} -->'


def add_record_option(parser):
    """Adds --record [FILE] (default docs/benchmarks.md) to an argparse parser."""
    parser.add_argument('--record', nargs='?', const=BENCHMARKS_MD, metavar='FILE',
                        help='also rewrite this script\'s generated block of FILE '
                        '(default: docs/benchmarks.md)')


def replace_block(text, script, body):
    """text with the lines between script's markers replaced by body.

    Raises ValueError naming the marker that is missing, repeated or out of
    order; everything outside the markers is returned unchanged."""
    begin, end = begin_marker(script), end_marker(script)
    for marker in (begin, end):
        count = text.count(marker)
        if count != 1:
            raise ValueError(f'{"no" if count == 0 else count} "{marker}" '
                             f'(need exactly one)')
    start = text.index(begin) + len(begin)
    stop = text.index(end)
    if stop < start:
        raise ValueError(f'"{end}" comes before "{begin}"')
    return text[:start] + '\n' + body.strip('\n') + '\n' + text[stop:]


def markdown_table(header, rows):
    """A Markdown table: header is a list of column titles, rows lists of cells."""
    lines = ['| ' + ' | '.join(header) + ' |', '|' + ' --- |' * len(header)]
    lines += ['| ' + ' | '.join(str(cell) for cell in row) + ' |' for row in rows]
    return '\n'.join(lines)


def _python():
    """`python3` if that is the interpreter running us, else its path (the
    scripts that need numpy run under another one)."""
    on_path = shutil.which('python3')
    if on_path and os.path.realpath(on_path) == os.path.realpath(sys.executable):
        return 'python3'
    return sys.executable


def reproduce_command(script, argv, python='python3'):
    """The command line that reproduces this run: argv without --record."""
    args, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            if not arg.startswith('-'):
                continue
        if arg == '--record':
            skip = True
            continue
        if arg.startswith('--record='):
            continue
        args.append(arg)
    return shlex.join([python, 'bench/' + script] + args)


def _build_type(build):
    try:
        with open(os.path.join(build, 'meson-info', 'intro-buildoptions.json')) as f:
            options = json.load(f)
    except (OSError, ValueError):
        return None
    return next((o['value'] for o in options if o['name'] == 'buildtype'), None)


def _cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            match = re.search(r'^model name\s*:\s*(.*)$', f.read(), re.M)
    except OSError:
        return None
    return match.group(1).strip() if match else None


def _commit():
    try:
        out = subprocess.run(['git', '-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD'],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.strip() or None


def machine_facts(build=None, now=None):
    """One line: when, on how many cores of which CPU under what load, which
    build and commit."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    facts = [f'Recorded {now:%Y-%m-%d %H:%M} UTC', f'{os.cpu_count()} cores']
    cpu = _cpu_model()
    if cpu:
        facts[-1] += f' ({cpu})'
    # The machine is shared: the load says how much else ran beside the benchmark.
    facts.append('load average %.1f (1 min), %.1f (5 min)' % os.getloadavg()[:2])
    build_type = _build_type(build) if build else None
    if build_type:
        facts.append(f'{build_type} build')
    commit = _commit()
    if commit:
        facts.append(f'commit {commit}')
    return ', '.join(facts) + '.'


def _wrap(markdown):
    """Prose paragraphs filled to 72 columns (never breaking an option such as
    `-time-passes`); tables and code left alone."""
    def fill(paragraph):
        if paragraph.startswith(('|', '```')):
            return paragraph
        return textwrap.fill(paragraph, 72, break_on_hyphens=False, break_long_words=False)
    return '\n\n'.join(fill(p) for p in markdown.strip().split('\n\n'))


def render_block(figures, command, facts):
    """The generated block's text: the figures, the facts, the command."""
    return f'{_wrap(figures)}\n\n{_wrap(facts + " Reproduce with:")}\n\n```sh\n{command}\n```'


def record(path, script, figures, build=None, argv=None):
    """Rewrites script's block of the Markdown file at path with figures (Markdown
    text), the machine facts and the command that reproduces them."""
    script = os.path.basename(script)
    command = reproduce_command(script, sys.argv[1:] if argv is None else argv, _python())
    body = render_block(figures, command, machine_facts(build))
    with open(path, encoding='utf-8') as f:
        text = f.read()
    try:
        text = replace_block(text, script, body)
    except ValueError as error:
        raise SystemExit(f'error: --record {path}: {error}') from None
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    print(f'recorded in {path} ({begin_marker(script)})')

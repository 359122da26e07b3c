# SPDX-License-Identifier: Apache-2.0

"""Helpers shared by the benchmark scripts: run a command and measure it,
read a pass's time from -time-passes, find a program, and a scratch
directory."""

import contextlib
import os
import re
import shutil
import tempfile
import time


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

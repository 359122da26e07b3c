#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Interrupts a command once it has left a mark on disk, for the tests of
what a signal leaves behind (test/output/interrupt.hlo).

  interrupt.py SIGNAL GLOB DIR -- COMMAND...

Starts COMMAND, waits (at most 30 s) until GLOB matches something, sends
SIGNAL (INT or TERM) to COMMAND alone, and prints how COMMAND ended and
then every path under DIR, one a line, relative to DIR, sorted. Without
the mark it still sends the signal and says so.
"""
import glob
import os
import signal
import subprocess
import sys
import time


def main():
    sig = getattr(signal, 'SIG' + sys.argv[1])
    pattern, root = sys.argv[2], sys.argv[3]
    command = sys.argv[sys.argv.index('--') + 1:]
    # lit's workers ignore SIGINT, and an ignored signal stays ignored
    # across exec; the command gets it as a terminal's Ctrl-C would.
    child = subprocess.Popen(command, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                       signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while not glob.glob(pattern) and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    if not glob.glob(pattern):
        print('mark never appeared: %s' % pattern)
    # Let the command reach the point where it blocks (opening a FIFO).
    time.sleep(0.3)
    child.send_signal(sig)
    code = child.wait(timeout=30)
    ended = 'signal %s' % signal.Signals(-code).name if code < 0 else 'exit %d' % code
    print('ended: %s' % ended)
    for here, dirs, files in os.walk(root):
        dirs.sort()  # the order os.walk descends in
        for name in sorted(dirs + files):
            print(os.path.relpath(os.path.join(here, name), root))


if __name__ == '__main__':
    main()

# SPDX-License-Identifier: Apache-2.0
"""The GIL is released while hopt parses, prints, runs passes and interprets."""

import threading
import time

import hopt


def chain(n):
    lines = ["HloModule chain", "", "ENTRY main {", "  p0 = f32[8,128]{1,0} parameter(0)",
             "  p1 = f32[8,128]{1,0} parameter(1)"]
    prev = "p0"
    for i in range(1, n + 1):
        root = "ROOT " if i == n else ""
        lines.append("  %sadd.%d = f32[8,128]{1,0} add(%s, p1)" % (root, i, prev))
        prev = "add.%d" % i
    return "\n".join(lines + ["}", ""])


def stamps_inside(stamps, start, end):
    """How many of another thread's time stamps fall in the middle half of
    [start, end]: with the GIL held for the whole call, that thread cannot
    run there at all (it may run only around the call, at a switch just
    before or just after it), so a count above zero shows it released."""
    quarter = (end - start) / 4
    return sum(1 for t in stamps if start + quarter <= t <= end - quarter)


def test_other_threads_run_while_hopt_parses_and_prints():
    text = chain(200000)
    stamps = []
    stop = threading.Event()

    def stamp():
        # Wakes every 0.2 ms and needs the GIL to record the time.
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0002)

    stamping = threading.Thread(target=stamp)
    stamping.start()
    try:
        parse_start = time.perf_counter()
        module = hopt.parse(text)
        parse_end = time.perf_counter()
        print_start = time.perf_counter()
        printed = module.to_text()
        print_end = time.perf_counter()
    finally:
        stop.set()
        stamping.join()
    assert printed.count("add(") == 200000
    during_parse = stamps_inside(stamps, parse_start, parse_end)
    during_print = stamps_inside(stamps, print_start, print_end)
    assert during_parse > 0, (during_parse, parse_end - parse_start)
    assert during_print > 0, (during_print, print_end - print_start)

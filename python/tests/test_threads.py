# SPDX-License-Identifier: Apache-2.0
"""The GIL is released while hopt parses, prints, runs passes and interprets."""

import threading

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


def test_other_threads_run_while_hopt_parses_and_prints():
    text = chain(200000)
    counter = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counter[0] += 1

    counting = threading.Thread(target=count)
    counting.start()
    try:
        before = counter[0]
        module = hopt.parse(text)
        during_parse = counter[0] - before
        before = counter[0]
        printed = module.to_text()
        during_print = counter[0] - before
    finally:
        stop.set()
        counting.join()
    assert printed.count("add(") == 200000
    # With the GIL held for the whole call the counting thread could run
    # only around it (a switch or two); released, it counts all along.
    assert during_parse > 1000, during_parse
    assert during_print > 1000, during_print

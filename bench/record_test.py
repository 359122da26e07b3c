#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Tests of bench_util's --record: rewriting one generated block of a
Markdown file (a temporary copy of testdata/record_fixture.md)."""

import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_util  # noqa: E402

FIXTURE = os.path.join(HERE, 'testdata', 'record_fixture.md')
BEGIN = '<!-- BEGIN GENERATED: sample_bench.py -->'
END = '<!-- END GENERATED: sample_bench.py -->'


class RecordTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='record_test.')
        self.path = os.path.join(self.dir, 'benchmarks.md')
        shutil.copy(FIXTURE, self.path)
        with open(FIXTURE, 'rb') as f:
            self.original = f.read()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def read(self):
        with open(self.path, 'rb') as f:
            return f.read()

    def record(self, figures, argv=('--n', '10', '--record')):
        bench_util.record(self.path, '/somewhere/bench/sample_bench.py', figures,
                          argv=list(argv))

    def test_rewrites_only_the_block(self):
        figures = bench_util.markdown_table(['size', 'time'], [['N', '1.5 s'], ['8N', '12 s']])
        self.record(figures)
        new = self.read()
        head, _, rest = self.original.partition(BEGIN.encode())
        _, _, tail = rest.partition(END.encode())
        self.assertTrue(new.startswith(head + BEGIN.encode() + b'\n'))
        self.assertTrue(new.endswith(b'\n' + END.encode() + tail))
        block = new[len(head) + len(BEGIN):len(new) - len(tail) - len(END)].decode()
        self.assertIn('| size | time |\n| --- | --- |\n| N | 1.5 s |\n| 8N | 12 s |', block)
        self.assertNotIn('old', block)
        self.assertIn(' UTC, %d cores' % os.cpu_count(), block)
        self.assertIn(' bench/sample_bench.py --n 10\n```', block)
        # The other script's block is text outside this one: untouched.
        self.assertIn(b"other script's block, untouched", tail)

    def test_prose_is_wrapped_without_breaking_options(self):
        self.record("N = 50,000 collectives (8N = 400,000), the pass's own time from "
                    "`-time-passes`, best of 3.")
        text = self.read().decode()
        self.assertIn('`-time-passes`', text)
        block = text[text.index(BEGIN):text.index(END)]
        self.assertTrue(all(len(line) <= 72 for line in block.splitlines()
                            if not line.startswith(('|', '<!--'))), block)

    def test_rerun_replaces_instead_of_appending(self):
        self.record('first figures')
        self.record('second figures')
        text = self.read().decode()
        self.assertNotIn('first figures', text)
        self.assertEqual(text.count('second figures'), 1)
        self.assertEqual(text.count('Reproduce with'), 1)

    def test_missing_marker_is_an_error_naming_it(self):
        with open(self.path, 'wb') as f:
            f.write(self.original.replace(END.encode(), b''))
        with self.assertRaises(SystemExit) as raised:
            self.record('figures')
        self.assertIn(END, str(raised.exception))
        with self.assertRaises(SystemExit) as raised:
            bench_util.record(self.path, 'absent_bench.py', 'figures', argv=[])
        self.assertIn('<!-- BEGIN GENERATED: absent_bench.py -->', str(raised.exception))
        # A failed record leaves the file as it was.
        self.assertEqual(self.read(), self.original.replace(END.encode(), b''))

    def test_repeated_or_reversed_markers_are_errors(self):
        with self.assertRaisesRegex(ValueError, 'BEGIN GENERATED: sample_bench.py'):
            bench_util.replace_block(BEGIN + BEGIN + END, 'sample_bench.py', 'x')
        with self.assertRaisesRegex(ValueError, 'comes before'):
            bench_util.replace_block(END + '\n' + BEGIN, 'sample_bench.py', 'x')

    def test_reproduce_command_drops_record_and_its_file(self):
        command = bench_util.reproduce_command
        self.assertEqual(command('x.py', ['--record', 'out.md', '--n', '5']),
                         'python3 bench/x.py --n 5')
        self.assertEqual(command('x.py', ['--record', '--repeat', '2']),
                         'python3 bench/x.py --repeat 2')
        self.assertEqual(command('x.py', ['--record=a.md', '--keep', 'dir with space']),
                         "python3 bench/x.py --keep 'dir with space'")

    def test_machine_facts(self):
        now = datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.timezone.utc)
        facts = bench_util.machine_facts(build=self.dir, now=now)
        self.assertTrue(facts.startswith('Recorded 2026-01-02 03:04 UTC, %d cores'
                                         % os.cpu_count()), facts)

    def test_every_block_has_a_script_with_record(self):
        # Each generated block of docs/benchmarks.md names a script whose
        # --record rewrites it.
        with open(bench_util.BENCHMARKS_MD) as f:
            scripts = re.findall(r'<!-- BEGIN GENERATED: (\S+) -->', f.read())
        self.assertGreater(len(scripts), 5)
        for script in scripts:
            path = os.path.join(HERE, script)
            self.assertTrue(os.path.isfile(path), script)
            result = subprocess.run([sys.executable, path, '--help'], capture_output=True,
                                    text=True)
            self.assertEqual(result.returncode, 0, script + ': ' + result.stderr)
            self.assertIn('--record', result.stdout, script)

if __name__ == '__main__':
    unittest.main()

# SPDX-License-Identifier: Apache-2.0
"""Pipelines, plugins, errors and equivalence: as hopt's command line does them."""

import os
import subprocess
import sys

import pytest

import hopt
from conftest import BUILD_DIR, EXAMPLES, HOPT, NEURON_PLUGINS, TEST_PLUGINS, tool

TEST_PLUGIN = os.path.join(TEST_PLUGINS, "libhopt_test_plugin.so")
SIMPLE = """HloModule simple

ENTRY main {
  a = f32[2,3] parameter(0)
  n = f32[2,3] negate(a)
  ROOT r = f32[2,3] add(n, a)
}
"""


@pytest.fixture(scope="module")
def neuron():
    for plugin in NEURON_PLUGINS:  # bare names, found as hopt's -load finds them
        hopt.load_plugin(plugin)
    return ["-load=" + os.path.join(BUILD_DIR, "plugins", p) for p in NEURON_PLUGINS]


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_neuron_pipeline_equals_driver(path, neuron):
    _, driver, _ = tool([HOPT] + neuron + ["-passes=neuron", path])
    result = hopt.run_passes(hopt.load(path), "neuron")
    assert result.module.to_text().encode() == driver
    assert len(result.timings) > 1
    assert all(t.seconds >= 0 for t in result.timings)
    pipeline = {p["name"]: p for p in hopt.list_pipelines()}["neuron"]
    assert [t.pass_name for t in result.timings] == [
        p.split("{")[0] for p in pipeline["passes"].split(",")]


def test_run_passes_leaves_its_input_alone_and_takes_options():
    hopt.load_plugin(TEST_PLUGIN)
    module = hopt.parse(SIMPLE)
    before = module.to_text()
    changed = hopt.run_passes(module, "test-negate-to-copy").module
    assert module.to_text() == before
    assert "negate(" not in changed.to_text()
    renamed = hopt.run_passes(module, "test-append-suffix", suffix="_py").module
    assert renamed.name == "simple_py"
    both = hopt.run_passes(module, "test-noop,test-append-suffix",
                           options={"test-append-suffix": {"suffix": "_opt"}}).module
    assert both.name == "simple_opt"
    assert hopt.run_passes(module, "test-append-suffix{suffix=_t}").module.name == "simple_t"
    listed = {p["name"]: p for p in hopt.list_passes()}
    assert listed["test-append-suffix"]["options"][0]["name"] == "suffix"
    assert listed["test-append-suffix"]["plugin"] == "hopt_test_plugin"


def test_views_are_read_only_and_keep_the_module_alive():
    module = hopt.parse(SIMPLE)
    entry = module.entry
    del module
    root = entry.root
    assert (root.name, root.opcode, root.shape) == ("r", "add", "f32[2,3]{1,0}")
    assert [o.name for o in root.operands] == ["n", "a"]
    assert [i.name for i in entry] == ["a", "n", "r"]
    assert len(entry) == 3
    assert entry.instruction("n").users == [root]
    assert entry.parameters[0].attributes == {}
    with pytest.raises(AttributeError):
        root.name = "x"


def test_bad_text_raises_parse_error_with_the_place():
    with pytest.raises(hopt.ParseError) as raised:
        hopt.parse("HloModule m\n\nENTRY main {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] "
                   "frobnicate(a)\n}\n", name="bad.hlo")
    error = raised.value
    assert (error.file, error.line) == ("bad.hlo", 5)
    assert error.column > 0
    assert str(error).startswith("bad.hlo:5:%d: error: " % error.column)
    assert isinstance(error, hopt.Error)


def test_a_missing_file_is_an_error_but_not_a_parse_error(tmp_path):
    with pytest.raises(hopt.Error) as raised:
        hopt.load(str(tmp_path / "missing.hlo"))
    assert not isinstance(raised.value, hopt.ParseError)
    assert "missing.hlo" in str(raised.value)


def test_unknown_pass_raises_the_drivers_message(tmp_path):
    hopt.load_plugin(TEST_PLUGIN)
    with pytest.raises(hopt.PassError) as raised:
        hopt.run_passes(hopt.parse(SIMPLE), "test-nop")
    path = tmp_path / "simple.hlo"
    path.write_text(SIMPLE)
    code, _, stderr = tool([HOPT, "-load=" + TEST_PLUGIN, "-passes=test-nop", str(path)],
                           check=False)
    assert code == 1
    assert stderr.strip() == "hopt: error: " + str(raised.value)
    assert "did you mean 'test-noop'" in str(raised.value)


def test_failing_pass_raises_pass_error():
    hopt.load_plugin(TEST_PLUGIN)
    with pytest.raises(hopt.PassError, match="test-break-module"):
        hopt.run_passes(hopt.parse(SIMPLE), "test-break-module")


def test_broken_plugin_raises_plugin_error(tmp_path):
    broken = os.path.join(TEST_PLUGINS, "libhopt_test_no_entry.so")
    with pytest.raises(hopt.PluginError) as raised:
        hopt.load_plugin(broken)
    path = tmp_path / "simple.hlo"
    path.write_text(SIMPLE)
    code, _, stderr = tool([HOPT, "-load=" + broken, str(path)], check=False)
    assert code == 1
    assert stderr.strip() == "hopt: error: " + str(raised.value)
    with pytest.raises(hopt.PluginError, match="no-such-plugin.so"):
        hopt.load_plugin("no-such-plugin.so")


def test_crashing_plugin_kills_the_process_naming_it():
    crashing = os.path.join(TEST_PLUGINS, "libhopt_test_fault_pass_segfaults.so")
    script = ("import hopt\nhopt.load_plugin(%r)\n"
              "hopt.run_passes(hopt.parse(%r), 'test-fault-segv')\nprint('survived')\n"
              % (crashing, SIMPLE))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == -11  # SIGSEGV, the signal's default action
    assert "survived" not in done.stdout
    assert ("hopt (python): error: crashed while running pass 'test-fault-segv' "
            "(plugin hopt_test_fault 1.0.0)") in done.stderr


def test_verify_equivalence_gives_the_drivers_verdicts(tmp_path):
    before = hopt.parse(SIMPLE)
    same = hopt.verify_equivalence(before, hopt.parse(SIMPLE.replace("add(n, a)", "add(a, n)")))
    assert same == hopt.Verdict(True, 0, "")
    wrong_text = SIMPLE.replace("add(n, a)", "subtract(n, a)")
    wrong = hopt.verify_equivalence(before, hopt.parse(wrong_text), mesh=(2, 1))
    assert (wrong.equivalent, wrong.exit_status) == (False, 1)
    (tmp_path / "before.hlo").write_text(SIMPLE)
    (tmp_path / "after.hlo").write_text(wrong_text)
    code, _, stderr = tool([HOPT, "-replicas=2", "-verify-equivalence-with=" +
                            str(tmp_path / "before.hlo"), str(tmp_path / "after.hlo")],
                           check=False)
    assert code == wrong.exit_status
    assert "differs on" in stderr and "differs on" in wrong.message
    other = hopt.parse(SIMPLE.replace("f32[2,3]", "f32[3,2]"))
    assert hopt.verify_equivalence(before, other).exit_status == 2


def test_svg_for_notebooks():
    module = hopt.parse(SIMPLE)
    assert "digraph" in module.to_dot()
    assert "<svg" in module._repr_svg_()

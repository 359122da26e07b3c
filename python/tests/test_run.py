# SPDX-License-Identifier: Apache-2.0
"""hopt.run's results equal hlo-run's, element for element, on every device."""

import os
import re

import numpy as np
import pytest

import hopt
from conftest import BUILD_DIR, EXAMPLES, HLO_RUN, NEURON_PLUGINS, tool

NUMBER = re.compile(r"-?(?:inf|nan|\d+(?:\.\d*)?(?:e[+-]?\d+)?)|true|false")


def split_shape(text):
    """'<shape> <literal>' -> the two, the shape ending at the first space
    outside brackets."""
    depth = 0
    for i, c in enumerate(text):
        depth += c in "([{"
        depth -= c in ")]}"
        if c == " " and depth == 0:
            return text[:i], text[i + 1:]
    raise ValueError(text)


def element_types(shape):
    return re.findall(r"([a-z]+\d*)\[", shape)


def hlo_run_results(argv):
    """Per device: (shape, flat values as float64), from hlo-run's lines."""
    _, out, _ = tool([HLO_RUN] + argv)
    results = []
    for line in out.decode().splitlines():
        shape, literal = split_shape(line.split("): ", 1)[1])
        values = [1.0 if v == "true" else 0.0 if v == "false" else float(v)
                  for v in NUMBER.findall(literal)]
        results.append((shape, np.array(values, dtype=np.float64)))
    return results


def arrays_of(result, types):
    """Our result as (element type, flat float64 values) per array, bf16
    decoded from its bits (the documented mapping)."""
    arrays = list(result) if isinstance(result, tuple) else [result]
    assert len(arrays) == len(types)
    out = []
    for array, type_name in zip(arrays, types):
        if type_name == "bf16":
            assert array.dtype == np.uint16
            array = (np.atleast_1d(array).astype(np.uint32) << np.uint32(16)).view(np.float32)
        out.append((type_name, np.asarray(array, dtype=np.float64).ravel()))
    return out


def narrowed(values, type_name):
    """hlo-run's shortest decimal text read back in the element's precision."""
    if type_name == "f16":
        return values.astype(np.float16).astype(np.float64)
    if type_name == "bf16":  # round to nearest even on the f32 bits
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if type_name == "f32":
        return values.astype(np.float32).astype(np.float64)
    return values


def assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for result, (shape, values) in zip(ours, theirs):
        at = 0
        for type_name, flat in arrays_of(result, element_types(shape)):
            expected = narrowed(values[at:at + len(flat)], type_name)
            np.testing.assert_array_equal(flat, expected)
            at += len(flat)
        assert at == len(values)


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_seeded_run_equals_hlo_run(path):
    # The plugins give the markers and collectives their semantics, in both.
    for plugin in NEURON_PLUGINS:
        hopt.load_plugin(plugin)
    loads = ["-load=" + os.path.join(BUILD_DIR, "plugins", p) for p in NEURON_PLUGINS]
    ours = hopt.run(hopt.load(path), seed=3)
    assert_same(ours, hlo_run_results([path, "-seed=3"] + loads))


def literal_text(array):
    if array.ndim == 0:
        return repr(array.item()).lower()
    return "{" + ", ".join(literal_text(a) for a in array) + "}"


def test_numpy_arguments_equal_hlo_run_args(tmp_path):
    text = """HloModule m

ENTRY main {
  a = f32[2,3] parameter(0)
  b = s32[3] parameter(1)
  c = f32[3] convert(b)
  bc = f32[2,3] broadcast(c), dimensions={1}
  m = f32[2,3] multiply(a, bc)
  ROOT t = (f32[2,3], s32[3]) tuple(m, b)
}
"""
    path = tmp_path / "m.hlo"
    path.write_text(text)
    a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    b = np.array([1, -2, 3], dtype=np.int32)
    (tmp_path / "args.txt").write_text("f32[2,3] %s\ns32[3] %s\n" % (literal_text(a),
                                                                     literal_text(b)))
    ours = hopt.run(hopt.parse(text), [a, b])
    assert_same(ours, hlo_run_results([str(path), "-args=" + str(tmp_path / "args.txt")]))
    m, b_out = ours[0]
    np.testing.assert_array_equal(m, a * b.astype(np.float32))
    assert m.dtype == np.float32 and b_out.dtype == np.int32
    assert hopt.run(hopt.parse(text), [a, b], replicas=2)[1][1].tolist() == [1, -2, 3]


def test_bf16_travels_as_its_bits():
    module = hopt.parse("HloModule m\n\nENTRY main {\n  a = bf16[2] parameter(0)\n"
                        "  ROOT n = bf16[2] negate(a)\n}\n")
    bits = (np.array([1.5, -2.0], dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    (out,) = hopt.run(module, [bits])
    assert out.dtype == np.uint16
    assert ((out.astype(np.uint32) << 16).view(np.float32)).tolist() == [-1.5, 2.0]


def test_wrong_arguments_are_refused():
    module = hopt.parse("HloModule m\n\nENTRY main {\n  ROOT a = f32[2] parameter(0)\n}\n")
    with pytest.raises(TypeError, match="expected a float32 array"):
        hopt.run(module, [np.zeros(2, dtype=np.float64)])
    with pytest.raises(ValueError, match="shape is \\(3\\)"):
        hopt.run(module, [np.zeros(3, dtype=np.float32)])
    with pytest.raises(ValueError, match="takes 1 arguments"):
        hopt.run(module, [])

# SPDX-License-Identifier: Apache-2.0
"""parse/to_text byte-equal to hopt's output: the examples, the corpus goldens."""

import glob
import os

import pytest

import hopt
from conftest import EXAMPLES, HOPT, tool


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_round_trip_equals_driver(path):
    with open(path) as f:
        text = f.read()
    _, driver, _ = tool([HOPT, path])
    module = hopt.parse(text, name=path)
    assert module.to_text().encode() == driver
    assert str(module).encode() == driver
    assert hopt.load(path).to_text().encode() == driver
    _, short, _ = tool([HOPT, "-print-style=short", path])
    assert module.to_text(style="short").encode() == short


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_proto_round_trip(path, tmp_path):
    module = hopt.load(path)
    proto = module.to_proto()
    out = tmp_path / "m.pb"
    tool([HOPT, path, "-o", str(out)])
    assert proto == out.read_bytes()
    assert hopt.parse(proto).to_text() == module.to_text()
    assert hopt.parse(module.to_proto(gzip=True)).to_text() == module.to_text()
    assert hopt.parse(module.to_proto_text(), format="pbtxt").to_text() == module.to_text()


def corpus_cases(corpus):
    root = os.path.join(corpus, "parser_roundtrip")
    cases = []
    for path in sorted(glob.glob(os.path.join(root, "long", "*.hlo"))):
        cases.append((path, path, ["-print-operand-shapes"], dict(operand_shapes=True)))
    for path in sorted(glob.glob(os.path.join(root, "short", "*.hlo"))):
        cases.append((path, path, ["-print-style=short"], dict(style="short")))
    for path in sorted(glob.glob(os.path.join(root, "nonroundtrip", "*.input.hlo"))):
        expected = path[:-len(".input.hlo")] + ".expected.hlo"
        cases.append((path, expected, ["-print-style=short"], dict(style="short")))
    return cases


def test_corpus_goldens_equal_driver(corpus):
    cases = corpus_cases(corpus)
    assert len(cases) > 100, "the corpus has no parser_roundtrip goldens"
    mismatches, golden_differs = [], 0
    for path, golden, flags, style in cases:
        with open(path, "rb") as f:
            text = f.read()
        module = hopt.parse(text, format="text", name=path, verify=False)
        ours = module.to_text(**style).encode()
        _, driver, _ = tool([HOPT, "-verify=false"] + flags + [path])
        with open(golden, "rb") as f:
            expected = f.read()
        if ours != driver:
            mismatches.append(os.path.relpath(path, corpus))
        golden_differs += ours != expected
    # The goldens themselves are the conformance stage's business
    # (scripts/conformance.sh); here the module must print what hopt prints.
    print("corpus goldens: %d checked, %d differ from hopt, %d from the golden"
          % (len(cases), len(mismatches), golden_differs))
    assert not mismatches

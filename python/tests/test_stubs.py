# SPDX-License-Identifier: Apache-2.0
"""Every public name of the module is in its stubs (python/hopt.pyi)."""

import ast
import os

import hopt
from conftest import SOURCE_DIR


def stub_names():
    with open(os.path.join(SOURCE_DIR, "python", "hopt.pyi")) as f:
        tree = ast.parse(f.read())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name if not isinstance(n, ast.AnnAssign) else n.target.id
                                for n in node.body
                                if isinstance(n, (ast.FunctionDef, ast.AnnAssign))}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
    return names


def test_every_public_name_is_in_the_stubs():
    stubs = stub_names()
    public = set(hopt.__all__) | {n for n in dir(hopt._hopt) if not n.startswith("_")}
    assert public - set(stubs) == set()
    assert set(stubs) - public == set()
    for cls in (hopt.Module, hopt.Computation, hopt.Instruction):
        members = {n for n in dir(cls) if not n.startswith("__")} - {"_pybind11_conduit_v1_"}
        assert members - stubs[cls.__name__] == set(), cls.__name__


def test_the_stubs_are_beside_the_package():
    here = os.path.dirname(hopt.__file__)
    assert os.path.exists(os.path.join(here, "__init__.pyi"))
    assert os.path.exists(os.path.join(here, "py.typed"))

# SPDX-License-Identifier: Apache-2.0
"""hopt's core from Python: parse and print XLA HLO, run pass pipelines from
plugins, interpret modules on numpy arrays (docs/python.md).

Everything goes through hopt's own code (the extension _hopt over the core
and the in-process driver RunHopt), so results and messages are hopt's.
"""

import collections as _collections
import os as _os

from . import _config
from ._hopt import (Computation, Error, Instruction, Module, ParseError, PassError,
                    PluginError, list_passes, list_pipelines, load, load_plugin,
                    loaded_plugins, parse)
from . import _hopt


def _plugin_dirs():
    """hopt's plugin directory; in the build tree also the build's plugins."""
    dirs = [_os.path.normpath(_os.path.join(_os.path.dirname(__file__), _config.PLUGIN_DIR))]
    marker = _os.path.join(_os.path.dirname(__file__), "build_tree_plugins.txt")
    if _os.path.exists(marker):
        with open(marker) as f:
            built = f.readline().strip()
        if built:
            dirs.append(built)
    return dirs


_hopt._set_plugin_dirs(_plugin_dirs())

PassTiming = _collections.namedtuple("PassTiming", ["pass_name", "seconds"])
PassResult = _collections.namedtuple("PassResult", ["module", "timings"])
Verdict = _collections.namedtuple("Verdict", ["equivalent", "exit_status", "message"])


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _with_options(passes, options, keyword_options):
    """Pipeline text with `options` ({pass: {option: value}}) and, for a
    pipeline of one pass, keyword options (underscores read as '-')."""
    elements = [p.strip() for p in passes.split(",")] if passes.strip() else []
    if keyword_options:
        if len(elements) != 1 or "{" in elements[0]:
            raise ValueError("keyword options need a pipeline of one pass without options; "
                             "give options={'pass': {...}} or pipeline text")
        options = dict(options or {})
        merged = dict(options.get(elements[0], {}))
        merged.update({k.replace("_", "-"): v for k, v in keyword_options.items()})
        options[elements[0]] = merged
    for name, values in (options or {}).items():
        matches = [i for i, e in enumerate(elements) if e == name]
        if not matches:
            raise ValueError("options for '%s': the pipeline has no such pass "
                             "without options" % name)
        text = ",".join("%s=%s" % (k, _option_text(v)) for k, v in values.items())
        for i in matches:
            elements[i] = "%s{%s}" % (name, text)
    return ",".join(elements)


def run_passes(module, passes, *, verify_each=True, verify=True, options=None, load=(),
               **keyword_options):
    """Runs a pipeline as `hopt -passes=PASSES` does, on a copy of `module`.

    `passes` is pipeline text ('a,b{k=v}') or a named pipeline ('neuron').
    Options come in the text, as options={'pass': {'option': value}}, or, for
    a pipeline of one pass, as keyword arguments. `load` names plugins to
    load first (as load_plugin). Returns PassResult(module, timings), the
    timings a list of PassTiming(pass_name, seconds) in the order the passes
    ran. Raises PassError (ParseError for a place in the input).
    """
    for plugin in load:
        load_plugin(plugin)
    text = _with_options(passes, options, keyword_options)
    result, timings = _hopt._run_passes(module, text, verify_each=verify_each, verify=verify)
    return PassResult(result, [PassTiming(name, seconds) for name, seconds in timings])


def verify_equivalence(before, after, *, mesh=None, sets=3, seed=1, mode="auto"):
    """hopt -verify-equivalence-with: `after` against `before` on the same
    seeded inputs on every device of the mesh ((replicas, partitions); None:
    as hopt chooses). Returns Verdict(equivalent, exit_status, message):
    exit_status as hopt's (0 the same, 1 a difference, 2 could not check).
    """
    replicas, partitions = mesh if mesh is not None else (None, None)
    status, message = _hopt._verify_equivalence(before, after, sets, seed, mode, replicas,
                                                partitions)
    return Verdict(status == 0, status, message)


def run(module, args=None, *, replicas=None, partitions=None, seed=1,
        opaque_custom_calls="hash"):
    """Runs `module` on the interpreter, as hlo-run does, on every device of
    the mesh (replicas x partitions; None: as hlo-run chooses).

    `args`: one array per entry parameter, the same on every device; None:
    hlo-run's seeded random arguments (`seed`). Returns one result per
    device, in device order (replica * partitions + partition): an array, a
    tuple for a tuple result. Types numpy lacks travel as their bits (bf16
    as uint16, f8 types as uint8; docs/python.md, "Arrays").
    """
    return _hopt._run(module, args, replicas, partitions, seed, opaque_custom_calls)


__all__ = [
    "Computation", "Error", "Instruction", "Module", "ParseError", "PassError", "PassResult",
    "PassTiming", "PluginError", "Verdict", "list_passes", "list_pipelines", "load",
    "load_plugin", "loaded_plugins", "parse", "run", "run_passes", "verify_equivalence",
]

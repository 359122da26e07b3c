# SPDX-License-Identifier: Apache-2.0

"""Random cases for fusion, async-start/-done and copy-start/-done: the
wrapped computation is a random expression that numpy evaluates itself."""

import numpy as np

from harness import (Case, constant_line, ieee_maximum, ieee_minimum, random_array, shape_text,
                     to_type)

_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "maximum": ieee_maximum, "minimum": ieee_minimum,
}
_UNARY = {"negate": np.negative, "abs": np.abs}
_TYPES = ["s8", "s32", "u16", "s64", "f16", "bf16", "f32", "f64"]


def _shape(rng, max_rank=3):
    return tuple(int(d) for d in rng.integers(0, 5, size=rng.integers(0, max_rank + 1)))


def _expression(rng, params, hlo_type, shape, depth, lines, counter):
    """Appends instructions computing a random expression of `params` (names
    with their numpy values) to `lines`; returns (name, numpy value)."""
    if depth == 0 or rng.random() < 0.25:
        return params[int(rng.integers(len(params)))]
    counter[0] += 1
    name = f"e{counter[0]}"
    text = shape_text(hlo_type, shape)
    if rng.random() < 0.3:
        op = str(rng.choice(list(_UNARY)))
        a, va = _expression(rng, params, hlo_type, shape, depth - 1, lines, counter)
        if op == "abs" and hlo_type.startswith("u"):
            op = "negate"
        lines.append(f"  {name} = {text} {op}({a})")
        wide = va.astype(np.float64) if hlo_type[0] in "fb" else va.astype(np.int64)
        return name, to_type(_UNARY[op](wide), hlo_type)
    op = str(rng.choice(list(_BINARY)))
    a, va = _expression(rng, params, hlo_type, shape, depth - 1, lines, counter)
    b, vb = _expression(rng, params, hlo_type, shape, depth - 1, lines, counter)
    lines.append(f"  {name} = {text} {op}({a}, {b})")
    if hlo_type[0] in "fb":
        value = _BINARY[op](va.astype(np.float64), vb.astype(np.float64))
    else:
        value = _BINARY[op](va.astype(np.int64), vb.astype(np.int64))
    return name, to_type(value, hlo_type)


def _wrapped(rng):
    """A computation `wrapped` over 1-3 parameters, the constants that feed
    it and what numpy makes of them."""
    hlo_type = str(rng.choice(_TYPES))
    shape = _shape(rng)
    count = int(rng.integers(1, 4))
    inputs = [random_array(rng, hlo_type, shape) for _ in range(count)]
    text = shape_text(hlo_type, shape)
    body = [f"  p{k} = {text} parameter({k})" for k in range(count)]
    params = [(f"p{k}", inputs[k]) for k in range(count)]
    root, value = _expression(rng, params, hlo_type, shape, 3, body, [0])
    if root.startswith("p"):
        body.append(f"  copy = {text} copy({root})")
        root = "copy"
    body[-1] = body[-1].replace(f"  {root} =", f"  ROOT {root} =", 1)
    computation = "wrapped {\n" + "\n".join(body) + "\n}\n"
    constants = [constant_line(f"c{k}", inputs[k], hlo_type) for k in range(count)]
    return hlo_type, shape, computation, constants, value


def gen_fusion(rng) -> Case:
    hlo_type, shape, computation, constants, value = _wrapped(rng)
    text = shape_text(hlo_type, shape)
    args = ", ".join(f"c{k}" for k in range(len(constants)))
    kind = str(rng.choice(["kLoop", "kInput", "kOutput", "kCustom"]))
    hlo = (f"HloModule fusion_case\n\n%{computation}\nENTRY main {{\n" + "\n".join(constants) +
           f"\n  ROOT f = {text} fusion({args}), kind={kind}, calls=wrapped\n}}\n")
    return Case(hlo, [(hlo_type, value)])


def gen_async(rng) -> Case:
    hlo_type, shape, computation, constants, value = _wrapped(rng)
    text = shape_text(hlo_type, shape)
    args = ", ".join(f"c{k}" for k in range(len(constants)))
    operands = ", ".join([text] * len(constants))
    state = f"(({operands}), {text}, s32[])"
    updates = int(rng.integers(0, 3))
    lines = [f"  start = {state} async-start({args}), calls=wrapped"]
    last = "start"
    for k in range(updates):
        lines.append(f"  update{k} = {state} async-update({last})")
        last = f"update{k}"
    lines.append(f"  ROOT done = {text} async-done({last})")
    hlo = (f"HloModule async_case\n\n%{computation}\nENTRY main {{\n" + "\n".join(constants) +
           "\n" + "\n".join(lines) + "\n}\n")
    return Case(hlo, [(hlo_type, value)])


def gen_copy_start(rng) -> Case:
    hlo_type = str(rng.choice(_TYPES + ["pred", "c64", "u8"]))
    shape = _shape(rng, 4)
    value = random_array(rng, hlo_type, shape)
    text = shape_text(hlo_type, shape)
    hlo = ("HloModule copy_case\n\nENTRY main {\n" + constant_line("c", value, hlo_type) +
           f"\n  start = ({text}, {text}, u32[]) copy-start(c)\n"
           f"  ROOT done = {text} copy-done(start)\n}}\n")
    return Case(hlo, [(hlo_type, value)])


GENERATORS = {"fusion": gen_fusion, "async-start": gen_async, "copy-start": gen_copy_start}

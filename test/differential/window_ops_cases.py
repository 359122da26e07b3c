# SPDX-License-Identifier: Apache-2.0

"""Random cases for reduce-window, select-and-scatter and map.

numpy builds the dilated, padded base as an array of input positions (-1
for padding and holes) with np.pad and strided assignment, then reads each
window with a strided slice of it: the window's elements are the
non-negative entries in C order. Reductions fold them in that order with
numpy's own arithmetic, rounded to the type at each step."""

import functools

import numpy as np

from harness import (Case, constant_line, ieee_maximum, ieee_minimum, int_range, is_complex,
                     is_float, is_int, numpy_type, random_array, shape_text, to_type)

_SUM_TYPES = ["s4", "s8", "s32", "s64", "u4", "u8", "u32", "u64", "f16", "bf16", "f32", "f64",
              "c64", "c128"]
_ORDER_TYPES = ["s2", "s8", "s16", "s32", "s64", "u2", "u8", "u16", "u32", "u64", "f16", "bf16",
                "f32", "f64", "f8e5m2", "f8e4m3fn", "pred"]
_PRODUCT_TYPES = ["s8", "s32", "u16", "u64", "f32", "f64", "c64"]
_HORNER_TYPES = ["s8", "s32", "s64", "u16", "u64"]


# ---- windows ----------------------------------------------------------------

def _window(rng, rank, dilations=True):
    """Per dimension: size, stride, pad_low, pad_high, lhs_dilate, rhs_dilate."""
    dims = []
    for _ in range(rank):
        dilate = dilations and rng.random() < 0.3
        dims.append(dict(
            size=int(rng.integers(1, 4)),
            stride=int(rng.integers(1, 4)),
            lo=int(rng.integers(-1, 3)) if rng.random() < 0.4 else 0,
            hi=int(rng.integers(-1, 3)) if rng.random() < 0.4 else 0,
            ld=int(rng.integers(1, 4)) if dilate and rng.random() < 0.5 else 1,
            rd=int(rng.integers(1, 3)) if dilate and rng.random() < 0.5 else 1))
    return dims


def _fitting_window(rng, shape, dilations=True):
    """A window, drawn again (a few times) while its output is empty over a
    non-empty input, so that most cases compute something."""
    for _ in range(4):
        window = _window(rng, len(shape), dilations)
        if 0 in shape or 0 not in _windows(shape, window)[0]:
            break
    return window


def _window_text(window):
    if not window:
        return "{}"
    def field(name, values):
        return f" {name}=" + "x".join(values)
    text = "{size=" + "x".join(str(w["size"]) for w in window)
    if any(w["stride"] != 1 for w in window):
        text += field("stride", [str(w["stride"]) for w in window])
    if any(w["lo"] or w["hi"] for w in window):
        text += field("pad", [f"{w['lo']}_{w['hi']}" for w in window])
    if any(w["ld"] != 1 for w in window):
        text += field("lhs_dilate", [str(w["ld"]) for w in window])
    if any(w["rd"] != 1 for w in window):
        text += field("rhs_dilate", [str(w["rd"]) for w in window])
    return text + "}"


def _base_positions(shape, window):
    """The dilated, padded base: each entry the flat input position it
    holds, -1 for padding and the holes of lhs dilation."""
    base = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    for d, w in enumerate(window):
        n = base.shape[d]
        dilated_shape = list(base.shape)
        dilated_shape[d] = (n - 1) * w["ld"] + 1 if n else 0
        dilated = np.full(dilated_shape, -1, dtype=np.int64)
        index = [slice(None)] * base.ndim
        index[d] = slice(None, None, w["ld"])
        dilated[tuple(index)] = base
        lo, hi = w["lo"], w["hi"]
        pads = [(0, 0)] * base.ndim
        pads[d] = (max(lo, 0), max(hi, 0))
        padded = np.pad(dilated, pads, constant_values=-1)
        crop = [slice(None)] * base.ndim
        crop[d] = slice(max(-lo, 0), padded.shape[d] - max(-hi, 0))
        base = padded[tuple(crop)]
    return base


def _windows(shape, window):
    """The output shape and, per output position (C order), the flat input
    positions its window reads in window order."""
    base = _base_positions(shape, window)
    out_shape = []
    for d, w in enumerate(window):
        span = (w["size"] - 1) * w["rd"] + 1
        padded = base.shape[d]
        out_shape.append(0 if padded < span else (padded - span) // w["stride"] + 1)
    reads = []
    for out in np.ndindex(*out_shape):
        index = tuple(slice(o * w["stride"], o * w["stride"] + (w["size"] - 1) * w["rd"] + 1,
                            w["rd"]) for o, w in zip(out, window))
        block = base[index].reshape(-1)
        reads.append(block[block >= 0])
    return tuple(out_shape), reads


def _shape(rng, max_rank=3, max_dim=5):
    """Rank 0 now and then, a zero dimension now and then."""
    rank = int(rng.integers(1, max_rank + 1)) if rng.random() < 0.92 else 0
    return tuple(0 if rng.random() < 0.05 else int(rng.integers(1, max_dim + 1))
                 for _ in range(rank))


# ---- scalar arithmetic of the element types ---------------------------------

def _scalar(value, hlo_type):
    return to_type(np.asarray(value), hlo_type)[()]


def _apply(op, a, b, hlo_type):
    """op(a, b) as the type computes it."""
    if hlo_type == "pred":
        return {"maximum": a or b, "minimum": a and b}[op]
    if op == "horner":
        return _apply("add", _apply("multiply", a, 3, hlo_type), b, hlo_type)
    if is_int(hlo_type):
        a, b = int(a), int(b)
        value = {"add": a + b, "multiply": a * b, "maximum": max(a, b),
                 "minimum": min(a, b)}[op]
        low, high = int_range(hlo_type)
        value = (value - low) % (high - low + 1) + low  # wraps around
        return numpy_type(hlo_type)(value)
    if is_complex(hlo_type):
        value = {"add": complex(a) + complex(b), "multiply": complex(a) * complex(b)}[op]
        return _scalar(value, hlo_type)
    a, b = np.float64(a), np.float64(b)
    value = {"add": a + b, "multiply": a * b, "maximum": ieee_maximum(a, b),
             "minimum": ieee_minimum(a, b)}[op]
    if hlo_type.startswith("f8"):  # only max/min: the value is one of the inputs
        return np.float32(value)
    return _scalar(value, hlo_type)


def _binary_computation(name, op, hlo_type):
    if op == "horner":  # acc * 3 + x: the order of the fold shows
        return (f"{name} {{\n  a = {hlo_type}[] parameter(0)\n  b = {hlo_type}[] parameter(1)\n"
                f"  three = {hlo_type}[] constant(3)\n  m = {hlo_type}[] multiply(a, three)\n"
                f"  ROOT r = {hlo_type}[] add(m, b)\n}}\n")
    return (f"{name} {{\n  a = {hlo_type}[] parameter(0)\n  b = {hlo_type}[] parameter(1)\n"
            f"  ROOT r = {hlo_type}[] {op}(a, b)\n}}\n")


def _module(computations, lines, root):
    body = "\n".join(lines)
    called = "".join(c + "\n" for c in computations)
    return f"HloModule m\n\n{called}ENTRY e {{\n{body}\n  ROOT {root}\n}}\n"


# ---- reduce-window ----------------------------------------------------------

def _fold_case(rng):
    op = str(rng.choice(["add", "maximum", "minimum", "multiply", "horner"]))
    hlo_type = str(rng.choice({"add": _SUM_TYPES, "maximum": _ORDER_TYPES,
                               "minimum": _ORDER_TYPES, "multiply": _PRODUCT_TYPES,
                               "horner": _HORNER_TYPES}[op]))
    shape = _shape(rng, max_dim=7)
    window = _fitting_window(rng, shape)
    x = random_array(rng, hlo_type, shape)
    if (hlo_type in ("f32", "f64") and op in ("maximum", "minimum") and x.size
            and rng.random() < 0.3):
        x.reshape(-1)[int(rng.integers(x.size))] = np.nan
    if op == "multiply" and not is_int(hlo_type):
        # Small factors keep float products exact.
        x = random_array(rng, "s8", shape).astype(np.int64) % 3 - 1
        x = to_type(x, hlo_type)
    init = random_array(rng, hlo_type, ())
    out_shape, reads = _windows(shape, window)
    flat = x.reshape(-1)
    values = [functools.reduce(lambda acc, at: _apply(op, acc, flat[at], hlo_type), r, init[()])
              for r in reads]
    expected = np.array(values, dtype=x.dtype).reshape(out_shape) if values else \
        np.zeros(out_shape, dtype=x.dtype)
    hlo = _module([_binary_computation("combine", op, hlo_type)],
                  [constant_line("x", x, hlo_type), constant_line("init", init, hlo_type)],
                  f"r = {shape_text(hlo_type, out_shape)} reduce-window(x, init), "
                  f"window={_window_text(window)}, to_apply=combine")
    return Case(hlo=hlo, expected=[(hlo_type, expected)], note=f"{op} {hlo_type}")


_ARGMAX = """argmax {{
  v0 = {v}[] parameter(0)
  i0 = {i}[] parameter(1)
  v1 = {v}[] parameter(2)
  i1 = {i}[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  eq = pred[] compare(v1, v0), direction=EQ
  lower = pred[] compare(i1, i0), direction=LT
  tie = pred[] and(eq, lower)
  take = pred[] or(gt, tie)
  v = {v}[] select(take, v1, v0)
  i = {i}[] select(take, i1, i0)
  ROOT t = ({v}[], {i}[]) tuple(v, i)
}}
"""


def _argmax_case(rng):
    """Two inputs (values, their positions): the window's largest value and
    the smallest position holding it."""
    v_type = str(rng.choice(["f32", "f64", "bf16", "s32", "u8"]))
    i_type = str(rng.choice(["s32", "s64", "u32"]))
    shape = _shape(rng, max_dim=7)
    window = _fitting_window(rng, shape)
    # Few distinct values, so that ties happen.
    x = to_type(random_array(rng, "s8", shape).astype(np.int64) % 4 + (4 if v_type == "u8" else 0),
                v_type)
    positions = np.arange(x.size, dtype=np.int64).reshape(shape)
    positions = to_type(positions, i_type)
    low = -np.inf if is_float(v_type) else 0
    init_v = to_type(np.asarray(low), v_type)
    init_i = to_type(np.asarray(x.size + 7), i_type)
    out_shape, reads = _windows(shape, window)
    flat = x.reshape(-1)
    best_v, best_i = [], []
    for r in reads:
        candidates = [(flat[at], int(at)) for at in r] + [(init_v[()], int(init_i[()]))]
        top = max(v for v, _ in candidates)
        best_v.append(top)
        best_i.append(min(i for v, i in candidates if v == top))
    values = np.array(best_v, dtype=x.dtype).reshape(out_shape)
    index = to_type(np.array(best_i, dtype=np.int64).reshape(out_shape), i_type)
    out_v, out_i = shape_text(v_type, out_shape), shape_text(i_type, out_shape)
    hlo = _module([_ARGMAX.format(v=v_type, i=i_type)],
                  [constant_line("x", x, v_type), constant_line("p", positions, i_type),
                   constant_line("iv", init_v, v_type), constant_line("ii", init_i, i_type)],
                  f"r = ({out_v}, {out_i}) reduce-window(x, p, iv, ii), "
                  f"window={_window_text(window)}, to_apply=argmax")
    return Case(hlo=hlo, expected=[(v_type, values), (i_type, index)],
                note=f"argmax {v_type}/{i_type}")


def gen_reduce_window(rng):
    return _argmax_case(rng) if rng.random() < 0.25 else _fold_case(rng)


# ---- select-and-scatter -----------------------------------------------------

def gen_select_and_scatter(rng):
    """The max-pool gradient and its variants: select by GE (first largest),
    GT (last largest), LE (first smallest) or LT (last smallest), scatter
    by add."""
    hlo_type = str(rng.choice(["f32", "f64", "f16", "bf16", "s32", "s8", "u16", "s64"]))
    direction = str(rng.choice(["GE", "GT", "LE", "LT"]))
    shape = _shape(rng, max_rank=3, max_dim=6)
    window = _fitting_window(rng, shape, dilations=rng.random() < 0.3)
    x = random_array(rng, hlo_type, shape)
    if rng.random() < 0.5:  # ties
        x = to_type(x.astype(np.float64) // 2 if is_float(hlo_type) else x // 4, hlo_type)
    out_shape, reads = _windows(shape, window)
    source = random_array(rng, hlo_type, out_shape)
    init = random_array(rng, hlo_type, ())
    flat = x.reshape(-1).astype(np.float64)
    result = [init[()]] * x.size
    for s, r in zip(source.reshape(-1), reads):
        if r.size == 0:
            continue
        values = flat[r]
        target = values.max() if direction in ("GE", "GT") else values.min()
        hits = np.flatnonzero(values == target)
        picked = int(r[hits[0] if direction in ("GE", "LE") else hits[-1]])
        result[picked] = _apply("add", s, result[picked], hlo_type)
    expected = np.array(result, dtype=x.dtype).reshape(shape) if result else \
        np.zeros(shape, dtype=x.dtype)
    select = (f"select {{\n  a = {hlo_type}[] parameter(0)\n  b = {hlo_type}[] parameter(1)\n"
              f"  ROOT c = pred[] compare(a, b), direction={direction}\n}}\n")
    hlo = _module([select, _binary_computation("scatter", "add", hlo_type)],
                  [constant_line("x", x, hlo_type), constant_line("s", source, hlo_type),
                   constant_line("init", init, hlo_type)],
                  f"r = {shape_text(hlo_type, shape)} select-and-scatter(x, s, init), "
                  f"window={_window_text(window)}, select=select, scatter=scatter")
    return Case(hlo=hlo, expected=[(hlo_type, expected)], note=f"{direction} {hlo_type}")


# ---- map --------------------------------------------------------------------

def _map_form(rng):
    """(operand types, result type, computation body lines, numpy function)."""
    form = int(rng.integers(0, 5))
    if form == 0:  # unary
        t = str(rng.choice(["s8", "s32", "f16", "bf16", "f32", "f64", "c64"]))
        op = str(rng.choice(["negate", "abs"])) if not is_complex(t) else "negate"
        fn = {"negate": lambda a: -a, "abs": np.abs}[op]
        return [t], t, [f"  ROOT r = {t}[] {op}(p0)"], \
            lambda a: to_type(fn(a.astype(np.complex128 if is_complex(t) else
                                          np.float64 if is_float(t) else np.int64)), t)
    if form == 1:  # binary, same type, either operand order
        t = str(rng.choice(["s8", "s32", "u32", "s64", "f16", "bf16", "f32", "f64"]))
        op = str(rng.choice(["add", "subtract", "multiply", "maximum", "minimum"]))
        fn = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
              "maximum": ieee_maximum, "minimum": ieee_minimum}[op]
        swap = rng.random() < 0.5
        wide = np.float64 if is_float(t) else np.int64
        return [t, t], t, [f"  ROOT r = {t}[] {op}({'p1, p0' if swap else 'p0, p1'})"], \
            lambda a, b: to_type(fn(b.astype(wide), a.astype(wide)) if swap else
                                 fn(a.astype(wide), b.astype(wide)), t)
    if form == 2:  # mixed types
        t = str(rng.choice(["f32", "f64", "bf16"]))
        i = str(rng.choice(["s32", "s8", "u16"]))
        return [t, i], t, [f"  c = {t}[] convert(p1)", f"  ROOT r = {t}[] multiply(p0, c)"], \
            lambda a, b: to_type(a.astype(np.float64) * b.astype(np.float64), t)
    if form == 3:  # compare: a pred result
        t = str(rng.choice(["s32", "f32", "u8"]))
        return [t, t], "pred", ["  ROOT r = pred[] compare(p0, p1), direction=GT"], \
            lambda a, b: a > b
    # three operands: select(p, a + b, a)
    t = str(rng.choice(["s16", "f32", "f64", "u64"]))
    return ["pred", t, t], t, [f"  s = {t}[] add(p1, p2)", f"  ROOT r = {t}[] select(p0, s, p1)"], \
        lambda p, a, b: np.where(p, to_type(a.astype(np.float64 if is_float(t) else np.int64) +
                                            b.astype(np.float64 if is_float(t) else np.int64), t),
                                 a)


def gen_map(rng):
    types, result_type, body, fn = _map_form(rng)
    shape = _shape(rng, max_rank=3, max_dim=4)
    operands = [random_array(rng, t, shape) for t in types]
    params = [f"  p{k} = {t}[] parameter({k})" for k, t in enumerate(types)]
    computation = "apply {\n" + "\n".join(params + body) + "\n}\n"
    lines = [constant_line(f"x{k}", x, t) for k, (x, t) in enumerate(zip(operands, types))]
    names = ", ".join(f"x{k}" for k in range(len(types)))
    dims = ",".join(str(d) for d in range(len(shape)))
    expected = np.asarray(fn(*operands)).astype(to_type(np.zeros(()), result_type).dtype)
    hlo = _module([computation], lines,
                  f"r = {shape_text(result_type, shape)} map({names}), dimensions={{{dims}}}, "
                  f"to_apply=apply")
    return Case(hlo=hlo, expected=[(result_type, expected.reshape(shape))],
                note=f"{types}->{result_type}")


GENERATORS = {
    "reduce-window": gen_reduce_window,
    "select-and-scatter": gen_select_and_scatter,
    "map": gen_map,
}

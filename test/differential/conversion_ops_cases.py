# SPDX-License-Identifier: Apache-2.0

"""Random cases for bitcast, reduce-precision, stochastic-convert and the
dynamic-shape ops.

bitcast: numpy transposes each side to its memory order (major to minor)
and reinterprets the bytes with ndarray views. reduce-precision: a
numpy rounding of each value to the kept mantissa bits at its own exponent
(the source format's smallest exponent for its denormals), then the reduced
format's overflow to infinity and underflow (below its smallest normal) to
zero. stochastic-convert: floor, fraction scaled by 2^W against the random
bits, saturation. f16 and bf16 results are compared as their bits.
"""

import numpy as np

from harness import Case, constant_line, shape_text, to_type

# numpy dtypes of the bitcast types' bits in memory (bf16 goes through u16).
_MEMORY = {"s8": np.int8, "u8": np.uint8, "pred": np.uint8, "s16": np.int16, "u16": np.uint16,
           "f16": np.float16, "bf16": np.uint16, "s32": np.int32, "u32": np.uint32,
           "f32": np.float32, "s64": np.int64, "u64": np.uint64, "f64": np.float64,
           "c64": np.complex64, "c128": np.complex128}
_BYTES = {t: np.dtype(d).itemsize for t, d in _MEMORY.items()}
_UNSIGNED_OF = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}


def _shape(rng, max_rank=4, max_dim=4):
    return tuple(int(d) for d in rng.integers(0, max_dim + 1, size=rng.integers(0, max_rank + 1)))


def _factor(rng, count, max_rank=4):
    """Random dimensions whose product is `count`."""
    if count == 0:
        dims = list(_shape(rng, max_rank))
        if not dims or 0 not in dims:
            dims.insert(int(rng.integers(0, len(dims) + 1)), 0)
        return tuple(dims)
    dims = []
    rest = count
    for _ in range(int(rng.integers(0, max_rank))):
        divisors = [d for d in range(1, min(rest, 8) + 1) if rest % d == 0]
        d = int(rng.choice(divisors))
        dims.append(d)
        rest //= d
    if rest != 1 or not dims or rng.random() < 0.5:
        dims.append(rest)
    order = rng.permutation(len(dims))
    return tuple(int(dims[k]) for k in order)


def _layout_text(minor_to_major):
    return "{" + ",".join(str(d) for d in minor_to_major) + "}"


def _memory_view(values, minor_to_major):
    """The elements in memory order."""
    major_to_minor = list(reversed(minor_to_major))
    return np.transpose(values, axes=major_to_minor).reshape(-1)


def _from_memory(flat, dims, minor_to_major):
    major_to_minor = list(reversed(minor_to_major))
    stored = flat.reshape([dims[d] for d in major_to_minor])
    return np.transpose(stored, axes=np.argsort(major_to_minor))


def _random_values(rng, hlo_type, shape):
    """Values of every bit pattern but NaN (their text would lose the
    payload), held as the harness holds the type."""
    if hlo_type == "pred":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    size = int(np.prod(shape)) * _BYTES[hlo_type]
    raw = np.frombuffer(rng.integers(0, 256, size=size, dtype=np.uint8).tobytes(),
                        dtype=_MEMORY[hlo_type]).reshape(shape).copy()
    if hlo_type == "bf16":
        values = (raw.astype(np.uint32) << np.uint32(16)).view(np.float32)
        return np.where(np.isnan(values), np.float32(1.5), values)
    if hlo_type[0] in "fc":
        real = np.real(raw)
        bad = np.isnan(raw) if hlo_type[0] == "f" else np.isnan(real) | np.isnan(np.imag(raw))
        raw[bad] = 1.5
    return raw


def _to_memory(values, hlo_type):
    if hlo_type == "bf16":
        return (np.asarray(values, np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return np.asarray(values).astype(_MEMORY[hlo_type])


def _bits_of(values, hlo_type):
    """f16 and bf16 values as their u16 bits."""
    if hlo_type == "bf16":
        return _to_memory(values, "bf16")
    return np.asarray(values, np.float16).view(np.uint16)


def gen_bitcast(rng) -> Case:
    source = str(rng.choice(list(_MEMORY)))
    shape = _shape(rng)
    values = _random_values(rng, source, shape)
    in_layout = [int(d) for d in rng.permutation(len(shape))]
    total = int(np.prod(shape)) * _BYTES[source]
    targets = [t for t in _MEMORY if total % _BYTES[t] == 0 and (t != "pred" or source == "pred")]
    target = str(rng.choice(targets))
    count = total // _BYTES[target]
    dims = _factor(rng, count)
    out_layout = [int(d) for d in rng.permutation(len(dims))]

    memory = _to_memory(_memory_view(values, in_layout), source)
    flat = np.frombuffer(memory.tobytes(), dtype=_MEMORY[target])
    result = _from_memory(flat, dims, out_layout)
    def with_layout(hlo_type, dims_, layout):
        return shape_text(hlo_type, dims_) + (_layout_text(layout) if dims_ else "")

    constant = constant_line("x", values, source).replace(
        shape_text(source, shape), with_layout(source, shape, in_layout), 1)
    lines = [constant]
    if target in ("f16", "bf16"):
        # Compared as bits: the printed value of a narrow denormal is too
        # short to read back through the harness's rounding.
        lines += [f"  b = {with_layout(target, dims, out_layout)} bitcast(x)",
                  f"  ROOT bits = {shape_text('u16', dims)} bitcast-convert(b)"]
        expected = [("u16", result.view(np.uint16) if target == "f16" else result)]
    else:
        lines.append(f"  ROOT b = {with_layout(target, dims, out_layout)} bitcast(x)")
        expected = [(target, result.astype(np.bool_) if target == "pred" else result)]
    hlo = "HloModule bitcast_case\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"
    return Case(hlo, expected)


# ---- reduce-precision --------------------------------------------------------

# (exponent bits, mantissa bits, smallest normal exponent) of the formats the
# operation runs in: f64 on its own, everything narrower as f32.
_FORMATS = {"f64": (11, 52, -1022), "f32": (8, 23, -126)}
_TYPE_BITS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}


def reduce_precision_reference(x, exponent_bits, mantissa_bits, working):
    """numpy float64 values of `working` format ("f32" or "f64") reduced."""
    src_e, src_m, emin = _FORMATS[working]
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
    finite = np.isfinite(x) & (x != 0)
    _, exponent = np.frexp(np.where(finite, x, 1.0))
    kept = min(mantissa_bits, src_m)
    quantum = np.maximum(exponent - 1, emin) - kept
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp(x, -quantum)
        rounded = np.rint(scaled)  # ties to the even multiple of the quantum
        if kept == 0:
            # No mantissa bit is left: XLA rounds the encoding, so a tie
            # (1.5 * 2^k) goes to whichever of 2^k and 2^(k+1) has an even
            # biased exponent.
            src_bias = 2 ** (src_e - 1) - 1
            down = (exponent - 1 + src_bias) % 2 == 0
            rounded = np.where(np.abs(scaled) == 1.5,
                               np.copysign(np.where(down, 1.0, 2.0), scaled), rounded)
        y = np.where(finite, np.ldexp(rounded, quantum), x)
        src_max = np.ldexp(1.0, 2 ** (src_e - 1))  # 2^(emax + 1), inf for f64
        y = np.where(np.abs(y) >= src_max, np.copysign(np.inf, y), y)
        if exponent_bits < src_e:
            bias = 2 ** (exponent_bits - 1) - 1
            y = np.where(np.abs(y) >= np.ldexp(1.0, bias + 1), np.copysign(np.inf, y), y)
            y = np.where(np.abs(y) < np.ldexp(1.0, 1 - bias), np.copysign(0.0, y), y)
    nan = np.isnan(x)
    return np.where(nan, np.nan if mantissa_bits > 0 else np.inf, y)


def _reduce_inputs(rng, hlo_type, exponent_bits, shape):
    """Bit patterns of the type around the reduced range, with ties, and
    specials (NaN only where the results are compared as values)."""
    e_bits, m_bits = _TYPE_BITS[hlo_type]
    bias = 2 ** (e_bits - 1) - 1
    reduced_bias = 2 ** (min(exponent_bits, 12) - 1) - 1
    n = int(np.prod(shape))
    exponent = rng.integers(-reduced_bias - 4, reduced_bias + 5, size=n) + bias
    exponent = np.clip(exponent, 0, 2 ** e_bits - 1)
    mantissa = np.array([int(rng.integers(0, 2 ** min(m_bits, 62))) << max(0, m_bits - 62)
                         for _ in range(n)], dtype=object)
    for k in range(n):
        if rng.random() < 0.3:  # a tie at some position
            cut = int(rng.integers(1, m_bits + 1))
            mantissa[k] = (mantissa[k] >> cut << cut) | (1 << (cut - 1))
    sign = rng.integers(0, 2, size=n)
    bits = [(int(s) << (e_bits + m_bits)) | (int(e) << m_bits) | int(m)
            for s, e, m in zip(sign, exponent, mantissa)]
    if hlo_type == "f64":
        values = np.array(bits, dtype=np.uint64).view(np.float64)
    elif hlo_type == "f32":
        values = np.array(bits, dtype=np.uint32).view(np.float32)
    elif hlo_type == "f16":
        values = np.array(bits, dtype=np.uint16).view(np.float16)
    else:
        values = (np.array(bits, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    values = values.copy()
    specials = [0.0, -0.0, np.inf, -np.inf, 1.0]
    if hlo_type in ("f32", "f64"):
        specials.append(np.nan)
    for k in range(n):
        if rng.random() < 0.08:
            values[k] = specials[int(rng.integers(len(specials)))]
        elif np.isnan(values[k]) and hlo_type not in ("f32", "f64"):
            values[k] = 2.0
    return values.reshape(shape)


def gen_reduce_precision(rng) -> Case:
    hlo_type = str(rng.choice(["f32", "f64", "f16", "bf16"]))
    working = "f64" if hlo_type == "f64" else "f32"
    src_e, src_m, _ = _FORMATS[working]
    exponent_bits = int(rng.integers(1, src_e + 2))
    mantissa_bits = int(rng.integers(0, src_m + 2))
    shape = _shape(rng, max_rank=2, max_dim=8)
    x = _reduce_inputs(rng, hlo_type, exponent_bits, shape)
    reduced = reduce_precision_reference(x, exponent_bits, mantissa_bits, working)
    text = shape_text(hlo_type, shape)
    lines = [constant_line("x", x, hlo_type),
             f"  r = {text} reduce-precision(x), exponent_bits={exponent_bits}, "
             f"mantissa_bits={mantissa_bits}"]
    if hlo_type in ("f16", "bf16"):
        lines.append(f"  ROOT bits = {shape_text('u16', shape)} bitcast-convert(r)")
        expected = [("u16", _bits_of(to_type(reduced, hlo_type), hlo_type))]
    else:
        lines[-1] = lines[-1].replace("  r =", "  ROOT r =", 1)
        expected = [(hlo_type, reduced.astype(np.float32 if hlo_type == "f32" else np.float64))]
    hlo = "HloModule reduce_precision_case\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"
    return Case(hlo, expected, note=f"exponent_bits={exponent_bits} mantissa_bits={mantissa_bits}")


# ---- stochastic-convert ------------------------------------------------------

_RANDOM_OF = {"f16": "u16", "bf16": "u16", "f32": "u32", "f64": "u64"}


def gen_stochastic_convert(rng) -> Case:
    source = str(rng.choice(list(_RANDOM_OF)))
    target = str(rng.choice(["s8", "s16", "s32", "s64"]))
    width = 16 if source in ("f16", "bf16") else int(source[1:])
    result_bits = int(target[1:])
    shape = _shape(rng, max_rank=2, max_dim=8)
    n = int(np.prod(shape))
    limit = 2.0 ** (result_bits - 1)
    magnitude = np.where(rng.random(n) < 0.2, rng.random(n) * limit * 1.5,
                         rng.integers(0, 300, size=n).astype(np.float64))
    fraction = rng.integers(0, 2 ** 20, size=n) / 2.0 ** rng.integers(1, 21, size=n)
    values = (magnitude + fraction % 1.0) * np.where(rng.random(n) < 0.5, -1, 1)
    specials = [np.inf, -np.inf, np.nan, -0.0, limit, -limit, limit - 0.5, -limit - 0.5]
    for k in range(n):
        if rng.random() < 0.1:
            values[k] = specials[int(rng.integers(len(specials)))]
    with np.errstate(over="ignore"):
        x = to_type(values, source).reshape(shape)
    random_type = _RANDOM_OF[source]
    random = np.array([int(rng.integers(0, 2 ** 32)) << 32 | int(rng.integers(0, 2 ** 32))
                       for _ in range(n)], dtype=object) % (2 ** width)
    if rng.random() < 0.3:  # ties with the fraction: 0 and halves
        random = np.array([int(rng.choice([0, 2 ** (width - 1), 2 ** (width - 1) - 1]))
                           for _ in range(n)], dtype=object)
    random_array = np.array([int(v) for v in random], dtype=np.uint64).reshape(shape)

    # The limits as the operand's type holds them.
    with np.errstate(over="ignore"):
        low = float(to_type(np.array([-limit]), source)[0])
        high = float(to_type(np.array([limit - 1]), source)[0])
    flat_x = np.asarray(x, np.float64).reshape(-1)
    with np.errstate(all="ignore"):  # inf - inf for the infinities, which saturate
        whole = np.floor(np.abs(flat_x))
        fixed = np.ldexp(np.abs(flat_x) - whole, width)
    out = []
    for k in range(n):
        v = flat_x[k]
        if np.isnan(v):
            out.append(0)
        elif v <= low:
            out.append(-int(limit))
        elif v >= high:
            out.append(int(limit) - 1)
        else:
            up = 1 if int(random[k]) < int(fixed[k]) else 0
            r = int(whole[k]) + up
            out.append(-r if v < 0 else r)
    expected = to_type(np.array(out, dtype=np.int64), target).reshape(shape)
    hlo = ("HloModule stochastic_convert_case\n\nENTRY main {\n" +
           constant_line("x", x, source) + "\n" +
           constant_line("r", random_array, random_type) + "\n" +
           f"  ROOT c = {shape_text(target, shape)} stochastic-convert(x, r)\n}}\n")
    return Case(hlo, [(target, expected)])


# ---- dynamic shapes ----------------------------------------------------------

_VALUE_TYPES = ["s32", "f32", "u8", "f64", "s64"]


def _values(rng, hlo_type, shape):
    if hlo_type[0] == "f":
        return (rng.integers(-64, 64, size=shape) / 4.0).astype(np.float32 if hlo_type == "f32"
                                                                 else np.float64)
    return to_type(rng.integers(-100, 100, size=shape), hlo_type)


def _dynamic_text(hlo_type, dims, dynamic):
    return f"{hlo_type}[" + ",".join(("<=" if dyn else "") + str(d)
                                     for d, dyn in zip(dims, dynamic)) + "]"


def gen_set_dimension_size(rng) -> Case:
    """Sets a dimension's size to its bound (the interpreter refuses less)
    and reads it back with get-dimension-size."""
    hlo_type = str(rng.choice(_VALUE_TYPES))
    shape = _shape(rng, max_rank=3)
    if not shape:
        shape = (int(rng.integers(0, 5)),)
    d = int(rng.integers(len(shape)))
    x = _values(rng, hlo_type, shape)
    dynamic = [k == d for k in range(len(shape))]
    out = _dynamic_text(hlo_type, shape, dynamic)
    hlo = ("HloModule set_dimension_size_case\n\nENTRY main {\n" + constant_line("x", x, hlo_type) +
           f"\n  size = s32[] constant({shape[d]})\n"
           f"  s = {out} set-dimension-size(x, size), dimensions={{{d}}}\n"
           f"  g = s32[] get-dimension-size(s), dimensions={{{d}}}\n"
           f"  ROOT t = ({out}, s32[]) tuple(s, g)\n}}\n")
    return Case(hlo, [(hlo_type, x), ("s32", np.array(shape[d], dtype=np.int32))])


def gen_get_dimension_size(rng) -> Case:
    shape = _shape(rng, max_rank=4, max_dim=7)
    if not shape:
        shape = (int(rng.integers(0, 8)),)
    d = int(rng.integers(len(shape)))
    x = _values(rng, "s32", shape)
    hlo = ("HloModule get_dimension_size_case\n\nENTRY main {\n" + constant_line("x", x, "s32") +
           f"\n  ROOT g = s32[] get-dimension-size(x), dimensions={{{d}}}\n}}\n")
    return Case(hlo, [("s32", np.array(shape[d], dtype=np.int32))])


def gen_dynamic_reshape(rng) -> Case:
    hlo_type = str(rng.choice(_VALUE_TYPES))
    shape = _shape(rng, max_rank=3, max_dim=5)
    x = _values(rng, hlo_type, shape)
    dims = _factor(rng, int(np.prod(shape)), max_rank=3)
    if not dims:
        dims = (1,)
    dynamic = [bool(rng.random() < 0.5) for _ in dims]
    sizes = [f"  n{k} = s32[] constant({d})" for k, d in enumerate(dims)]
    args = ", ".join(["x"] + [f"n{k}" for k in range(len(dims))])
    hlo = ("HloModule dynamic_reshape_case\n\nENTRY main {\n" + constant_line("x", x, hlo_type) +
           "\n" + "\n".join(sizes) +
           f"\n  ROOT r = {_dynamic_text(hlo_type, dims, dynamic)} dynamic-reshape({args})\n}}\n")
    return Case(hlo, [(hlo_type, np.asarray(x).reshape(dims))])


GENERATORS = {
    "bitcast": gen_bitcast,
    "reduce-precision": gen_reduce_precision,
    "stochastic-convert": gen_stochastic_convert,
    "get-dimension-size": gen_get_dimension_size,
    "set-dimension-size": gen_set_dimension_size,
    "dynamic-reshape": gen_dynamic_reshape,
}

# SPDX-License-Identifier: Apache-2.0

"""Differential testing of the interpreter against numpy: the shared part.

A family file (`<family>_cases.py` beside this one) maps opcodes to
generators. A generator draws one random case: a complete HLO module whose
entry takes no parameters (its inputs are constants) and whose root is the
operation under test, plus the result numpy computes for it on its own. The
runner (run_differential.py) batches cases into one `hlo-run
-split-input-file` call, reads the printed literals back and compares.
"""

import dataclasses
import math
import re
from typing import List, Sequence, Tuple

import numpy as np

# Element types the generators draw from, by what numpy holds them in.
SIGNED = ["s8", "s16", "s32", "s64"]
UNSIGNED = ["u8", "u16", "u32", "u64"]
NARROW_INTS = ["s2", "s4", "u2", "u4"]
INTS = SIGNED + UNSIGNED
FLOATS = ["f16", "bf16", "f32", "f64"]
F8 = ["f8e5m2", "f8e4m3fn"]
COMPLEX = ["c64", "c128"]
ALL_TYPES = ["pred"] + INTS + NARROW_INTS + FLOATS + F8 + COMPLEX

_NUMPY = {
    "pred": np.bool_,
    "s2": np.int8, "s4": np.int8, "s8": np.int8, "s16": np.int16, "s32": np.int32,
    "s64": np.int64,
    "u2": np.uint8, "u4": np.uint8, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
    "f8e5m2": np.float32, "f8e4m3fn": np.float32,
    "c64": np.complex64, "c128": np.complex128,
}

_INT_BITS = {"s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
             "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64}

# Values every f8 type above holds exactly.
_F8_VALUES = np.array([0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3], dtype=np.float32)


def numpy_type(hlo_type: str):
    return _NUMPY[hlo_type]


def is_int(hlo_type: str) -> bool:
    return hlo_type in _INT_BITS


def is_signed(hlo_type: str) -> bool:
    return hlo_type.startswith("s")


def is_float(hlo_type: str) -> bool:
    return hlo_type in FLOATS or hlo_type in F8


def is_complex(hlo_type: str) -> bool:
    return hlo_type in COMPLEX


def int_range(hlo_type: str) -> Tuple[int, int]:
    """[low, high] of an integer type."""
    bits = _INT_BITS[hlo_type]
    if is_signed(hlo_type):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def random_array(rng: np.random.Generator, hlo_type: str, shape: Sequence[int]) -> np.ndarray:
    """Values the type holds exactly: integers in [-8, 8) or [0, 16) (within
    the type), floats that are multiples of 1/8 in [-4, 4), complex numbers of
    two such parts, f8 values from a small exact set."""
    shape = tuple(int(d) for d in shape)
    dtype = _NUMPY[hlo_type]
    if hlo_type == "pred":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if is_int(hlo_type):
        low, high = int_range(hlo_type)
        signed = is_signed(hlo_type)
        low, high = max(low, -8 if signed else 0), min(high, 7 if signed else 15)
        return rng.integers(low, high + 1, size=shape).astype(dtype)
    if hlo_type in F8:
        values = rng.choice(_F8_VALUES, size=shape)
        signs = np.where(rng.integers(0, 2, size=shape) == 1, -1, 1)
        return (values * signs).astype(dtype)
    if is_complex(hlo_type):
        real = rng.integers(-32, 32, size=shape) / 8.0
        imag = rng.integers(-32, 32, size=shape) / 8.0
        return (real + 1j * imag).astype(dtype)
    return (rng.integers(-32, 32, size=shape) / 8.0).astype(dtype)


def _round_bf16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest even), kept in float32."""
    as_f32 = np.asarray(values, dtype=np.float32)
    bits = as_f32.view(np.uint32).astype(np.int64)
    nan = np.isnan(as_f32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(nan, np.float32(np.nan), out)


def to_type(values, hlo_type: str) -> np.ndarray:
    """numpy values made into what the HLO type holds: integers wrap around,
    floats round to nearest even (bf16 through float32)."""
    values = np.asarray(values)
    if hlo_type == "pred":
        return values.astype(np.bool_)
    if is_int(hlo_type):
        bits = _INT_BITS[hlo_type]
        as_int = values.astype(np.int64) if values.dtype != np.uint64 else values
        if bits == 64:
            return as_int.astype(_NUMPY[hlo_type])
        wrapped = np.bitwise_and(as_int.astype(np.int64), (1 << bits) - 1)
        if is_signed(hlo_type):
            wrapped = np.where(wrapped >= (1 << (bits - 1)), wrapped - (1 << bits), wrapped)
        return wrapped.astype(_NUMPY[hlo_type])
    if hlo_type == "bf16":
        return _round_bf16(values.astype(np.float32))
    if hlo_type in F8:
        raise ValueError("to_type: rounding to f8 types is not modelled; draw exact values")
    return values.astype(_NUMPY[hlo_type])


def ieee_minimum(a, b):
    """XLA's minimum, as the interpreter computes it: NaN wins and -0 is
    below +0 (numpy's minimum returns either zero)."""
    a, b = np.asarray(a), np.asarray(b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), a, b), np.minimum(a, b))[()]


def ieee_maximum(a, b):
    """XLA's maximum: NaN wins and +0 is above -0."""
    a, b = np.asarray(a), np.asarray(b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), b, a), np.maximum(a, b))[()]


def shape_text(hlo_type: str, shape: Sequence[int]) -> str:
    return f"{hlo_type}[{','.join(str(int(d)) for d in shape)}]"


def _element_text(value, hlo_type: str) -> str:
    if hlo_type == "pred":
        return "true" if bool(value) else "false"
    if is_int(hlo_type):
        return str(int(value))
    if is_complex(hlo_type):
        return f"({_float_text(value.real)}, {_float_text(value.imag)})"
    return _float_text(value)


def _float_text(value) -> str:
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def hlo_literal(array, hlo_type: str) -> str:
    """The literal text of a constant of `array`'s shape."""
    array = np.asarray(array)
    if array.ndim == 0:
        return _element_text(array[()], hlo_type)

    def nest(sub) -> str:
        if sub.ndim == 1:
            return "{" + ", ".join(_element_text(v, hlo_type) for v in sub) + "}"
        return "{" + ", ".join(nest(s) for s in sub) + "}"

    return nest(array)


def constant_line(name: str, array, hlo_type: str) -> str:
    """`name = T[dims] constant(...)`, one instruction line of an entry."""
    array = np.asarray(array)
    shape, literal = shape_text(hlo_type, array.shape), hlo_literal(array, hlo_type)
    return f"  {name} = {shape} constant({literal})"


@dataclasses.dataclass
class Case:
    """One random case: `hlo` a whole module (entry without parameters),
    `expected` the root's results as (hlo_type, array) in root order,
    `tolerance` 0 for bit-exact floats (NaN equals NaN, the sign of zero
    counts) or the relative and absolute tolerance of float results."""
    hlo: str
    expected: List[Tuple[str, np.ndarray]]
    tolerance: float = 0.0
    note: str = ""


# ---- reading hlo-run's output ----------------------------------------------

_TOKEN = re.compile(r"/\*.*?\*/|[(){},]|[^\s(){},]+")


def _tokens(text: str) -> List[str]:
    return [t for t in _TOKEN.findall(text) if not t.startswith("/*")]


# Significand bits (without the implicit one) of the narrow float types,
# whose printed values are the shortest text that reads back as the same
# value of the type, not of a double.
_MANTISSA_BITS = {"f16": 10, "bf16": 7, "f8e5m2": 2, "f8e4m3fn": 3, "f8e4m3": 3,
                  "f8e4m3fnuz": 3, "f8e5m2fnuz": 2, "f8e4m3b11fnuz": 3, "f8e3m4": 4}


def _round_to_type(value: float, hlo_type: str) -> float:
    bits = _MANTISSA_BITS.get(hlo_type)
    if bits is None or not math.isfinite(value) or value == 0.0:
        return value
    mantissa, exponent = math.frexp(value)
    scaled = mantissa * (1 << (bits + 1))
    return math.ldexp(float(np.round(scaled)), exponent - bits - 1)


def _atom(token: str, hlo_type: str):
    if hlo_type == "pred":
        return token in ("true", "1")
    if is_int(hlo_type):
        return int(token)
    return _round_to_type(float(token), hlo_type)


class _Reader:
    def __init__(self, tokens: List[str]):
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def take(self, expected: str = None) -> str:
        token = self.peek()
        if expected is not None and token != expected:
            raise ValueError(f"expected '{expected}' at token {self.at}, found '{token}'")
        self.at += 1
        return token

    def element(self, hlo_type: str):
        if is_complex(hlo_type):
            self.take("(")
            real = float(self.take())
            self.take(",")
            imag = float(self.take())
            self.take(")")
            return complex(real, imag)
        return _atom(self.take(), hlo_type)

    def array(self, hlo_type: str, rank: int, out: list):
        if rank == 0:
            out.append(self.element(hlo_type))
            return
        self.take("{")
        first = True
        while self.peek() != "}":
            if not first:
                self.take(",")
            first = False
            if rank == 1:
                out.append(self.element(hlo_type))
            else:
                self.array(hlo_type, rank - 1, out)
        self.take("}")


def parse_result(line: str, expected: List[Tuple[str, np.ndarray]]) -> List[np.ndarray]:
    """The arrays of one `device D (...): <shape> <literal>` line, shaped
    like `expected`."""
    _, _, rest = line.partition("): ")
    if rest.startswith("("):
        depth = 0
        for end, char in enumerate(rest):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                break
        literal = rest[end + 1:].strip()
        is_tuple = True
    else:
        literal = rest.partition(" ")[2]
        is_tuple = False
    reader = _Reader(_tokens(literal))
    if is_tuple:
        reader.take("(")
    results = []
    for index, (hlo_type, array) in enumerate(expected):
        if index:
            reader.take(",")
        flat: list = []
        reader.array(hlo_type, np.ndim(array), flat)
        values = np.array(flat, dtype=_NUMPY[hlo_type]) if flat else np.zeros(0, _NUMPY[hlo_type])
        results.append(values.reshape(np.shape(array)))
    if is_tuple:
        reader.take(")")
    return results


def first_difference(hlo_type: str, want: np.ndarray, got: np.ndarray, tolerance: float):
    """None when equal, else (flat index, wanted, got)."""
    want = np.asarray(want)
    got = np.asarray(got)
    if want.shape != got.shape:
        return (None, f"shape {want.shape}", f"shape {got.shape}")
    flat_want = want.reshape(-1)
    flat_got = got.reshape(-1)
    if is_float(hlo_type) or is_complex(hlo_type):
        parts = [(np.real(flat_want), np.real(flat_got))]
        if is_complex(hlo_type):
            parts.append((np.imag(flat_want), np.imag(flat_got)))
        bad = np.zeros(flat_want.shape, dtype=bool)
        for w, g in parts:
            w = w.astype(np.float64)
            g = g.astype(np.float64)
            both_nan = np.isnan(w) & np.isnan(g)
            if tolerance == 0.0:
                same = (w == g) & (np.signbit(w) == np.signbit(g))
            else:
                same = np.isclose(g, w, rtol=tolerance, atol=tolerance) | (w == g)
            bad |= ~(same | both_nan)
    else:
        bad = flat_want != flat_got
    where = np.flatnonzero(bad)
    if where.size == 0:
        return None
    k = int(where[0])
    return (np.unravel_index(k, want.shape) if want.ndim else (), flat_want[k], flat_got[k])

# SPDX-License-Identifier: Apache-2.0

"""Random cases for rng-bit-generator, rng and rng-get-and-update-state.

rng-bit-generator is compared bit for bit with a numpy implementation of
Threefry-2x32-20 and Philox-4x32-10 that builds the output the way XLA's
prng library does (Threefry: counters over half the shape, the two words
stacked along the split dimension and sliced; Philox: blocks of four words
flattened in order). rng is random by design: its module computes whether
every value is in range and how far the sample's moments are from the
distribution's, in units of their standard error, and those are compared.
"""

import numpy as np

from harness import Case, constant_line, shape_text

MASK32 = np.uint64(0xFFFFFFFF)
BITS_TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "u4", "s4"]
_WIDTH = {"u4": 4, "s4": 4, "u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32,
          "u64": 64, "s64": 64}


# ---- the ciphers -------------------------------------------------------------

def _rotl(x, r):
    return ((x << np.uint32(r)) | (x >> np.uint32(32 - r))).astype(np.uint32)


def threefry2x32(c0, c1, key):
    """Threefry-2x32, 20 rounds: counter words c0, c1 (uint32 arrays), key a
    pair of ints. Returns the two output words."""
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    ks = [k0, k1, np.uint32(0x1BD11BDA) ^ k0 ^ k1]
    rotations = [[13, 15, 26, 6], [17, 29, 16, 24]]
    with np.errstate(over="ignore"):
        x0 = np.asarray(c0, np.uint32) + ks[0]
        x1 = np.asarray(c1, np.uint32) + ks[1]
        for group in range(5):
            for r in rotations[group % 2]:
                x0 = x0 + x1
                x1 = _rotl(x1, r) ^ x0
            x0 = x0 + ks[(group + 1) % 3]
            x1 = x1 + ks[(group + 2) % 3] + np.uint32(group + 1)
    return x0.astype(np.uint32), x1.astype(np.uint32)


def philox4x32(c, key):
    """Philox-4x32, 10 rounds, on four uint32 counter arrays."""
    x = [np.asarray(v, np.uint64) for v in c]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0 = x[0] * np.uint64(0xD2511F53)
        p1 = x[2] * np.uint64(0xCD9E8D57)
        x = [(p1 >> np.uint64(32)) ^ x[1] ^ k0, p1 & MASK32,
             (p0 >> np.uint64(32)) ^ x[3] ^ k1, p0 & MASK32]
        k0 = (k0 + np.uint64(0x9E3779B9)) & MASK32
        k1 = (k1 + np.uint64(0xBB67AE85)) & MASK32
    return [v.astype(np.uint32) for v in x]


def _split_u64(words):
    words = np.asarray(words, np.uint64)
    return (words & MASK32).astype(np.uint32), (words >> np.uint64(32)).astype(np.uint32)


def _join(low, high):
    return low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))


def _counters(start: int, count: int):
    """start + 0..count-1 as uint64 (wrapping)."""
    with np.errstate(over="ignore"):
        return np.uint64(start) + np.arange(count, dtype=np.uint64)


def threefry_bits(shape, key_word, counter, width):
    """The unsigned bits (uint64 array of `shape`) and the new counter."""
    key = _split_u64(key_word)
    n = int(np.prod(shape)) if shape else 1
    if width == 64:
        lo, hi = threefry2x32(*_split_u64(_counters(counter, n)), key)
        return _join(lo, hi).reshape(shape), counter + n
    if not shape:
        w0, _ = threefry2x32(*_split_u64(_counters(counter, 1)), key)
        return w0.astype(np.uint64).reshape(()), counter + 1
    even = [d for d, size in enumerate(shape) if size % 2 == 0]
    split = even[0] if even else int(np.argmax(shape))
    half = list(shape)
    half[split] = (shape[split] + 1) // 2
    blocks = int(np.prod(half))
    w0, w1 = threefry2x32(*_split_u64(_counters(counter, blocks)), key)
    stacked = np.stack([w0.reshape(half), w1.reshape(half)], axis=split + 1)
    doubled = list(shape)
    doubled[split] = 2 * half[split]
    full = stacked.reshape(doubled)
    bits = np.take(full, np.arange(shape[split]), axis=split)
    return bits.astype(np.uint64), counter + blocks


def philox_bits(shape, key_word, counter_low, counter_high, width):
    """The unsigned bits, and the new 128-bit counter as (low, high)."""
    key = _split_u64(key_word)
    n = int(np.prod(shape)) if shape else 1
    per_block = 2 if width == 64 else 4
    blocks = -(-n // per_block)
    low = _counters(counter_low, blocks)
    carry = (low < np.uint64(counter_low)).astype(np.uint64)
    with np.errstate(over="ignore"):
        high = np.uint64(counter_high) + carry
    words = philox4x32([*_split_u64(low), *_split_u64(high)], key)
    if width == 64:
        flat = np.stack([_join(words[0], words[1]), _join(words[2], words[3])], axis=1)
    else:
        flat = np.stack(words, axis=1).astype(np.uint64)
    bits = flat.reshape(-1)[:n].reshape(shape)
    total = (counter_high << 64 | counter_low) + blocks
    return bits, (total & (2**64 - 1), (total >> 64) & (2**64 - 1))


def _as_type(bits, hlo_type):
    width = _WIDTH[hlo_type]
    masked = bits & np.uint64((1 << width) - 1) if width < 64 else bits
    if hlo_type.startswith("u"):
        return masked.astype({4: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32,
                              64: np.uint64}[width])
    as_int = masked.astype(np.int64) if width < 64 else masked.view(np.int64)
    if width < 64:
        as_int = np.where(as_int >= (1 << (width - 1)), as_int - (1 << width), as_int)
    return as_int.astype({4: np.int8, 8: np.int8, 16: np.int16, 32: np.int32,
                          64: np.int64}[width])


def _state_word(rng):
    kind = rng.integers(0, 4)
    if kind == 0:
        return int(rng.integers(0, 16))
    if kind == 1:
        return 2**64 - int(rng.integers(1, 40))  # the counter wraps or carries
    return int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2))


def _shape(rng, max_rank=3, max_dim=6):
    return tuple(int(d) for d in rng.integers(0, max_dim + 1, size=rng.integers(0, max_rank + 1)))


def gen_rng_bit_generator(rng) -> Case:
    algorithm = str(rng.choice(["rng_three_fry", "rng_philox", "rng_default"]))
    words = 3 if algorithm != "rng_three_fry" and rng.random() < 0.4 else 2
    state = [_state_word(rng) for _ in range(words)]
    bits_type = str(rng.choice(BITS_TYPES))
    width = _WIDTH[bits_type]
    shape = _shape(rng)
    if algorithm == "rng_three_fry":
        bits, counter = threefry_bits(shape, state[0], state[1], width)
        new_state = [state[0], counter % 2**64]
    else:
        high = state[2] if words == 3 else state[0]
        bits, (low, high) = philox_bits(shape, state[0], state[1], high, width)
        new_state = [state[0], low] + ([high] if words == 3 else [])
    state_text = shape_text("u64", [words])
    bits_text = shape_text(bits_type, shape)
    hlo = (f"HloModule rng_bit_generator_case\n\nENTRY main {{\n"
           f"{constant_line('s', np.array(state, dtype=np.uint64), 'u64')}\n"
           f"  ROOT r = ({state_text}, {bits_text}) rng-bit-generator(s), algorithm={algorithm}\n"
           f"}}\n")
    return Case(hlo, [("u64", np.array(new_state, dtype=np.uint64)),
                      (bits_type, _as_type(np.asarray(bits, np.uint64), bits_type))])


# ---- rng: statistics computed in the module ---------------------------------

_STATS_COMPUTATIONS = """
add_f64 {
  x = f64[] parameter(0)
  y = f64[] parameter(1)
  ROOT s = f64[] add(x, y)
}

and_pred {
  x = pred[] parameter(0)
  y = pred[] parameter(1)
  ROOT a = pred[] and(x, y)
}
"""


def _sample_shape(rng):
    """A shape of 400 to 2000 elements, rank 1 to 3."""
    while True:
        rank = int(rng.integers(1, 4))
        shape = tuple(int(d) for d in rng.integers(1, 50, size=rank))
        if 400 <= int(np.prod(shape)) <= 2000:
            return shape


def _scalar(value, hlo_type):
    return repr(float(value)) if hlo_type[0] in "fb" else str(int(value))


def _uniform_bounds(rng, hlo_type):
    """(a, b, mean and standard deviation of a draw minus a)."""
    if hlo_type[0] in "fb":
        # Wide enough for the type's spacing not to bias the moments.
        a = float(rng.integers(-16, 9))
        b = a + float(rng.integers(8, 17))
        return a, b, (b - a) / 2, (b - a) / np.sqrt(12)
    bits = int(hlo_type[1:])
    low, high = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if hlo_type[0] == "s"
                 else (0, (1 << bits) - 1))
    # b is a value of the type too, so the widest range is [low, high).
    span = high - low
    width = int(rng.integers(1, 9)) if rng.random() < 0.5 else max(1, int(rng.random() * span))
    a = low + min(int(rng.random() * (span - width + 1)), span - width)
    return a, a + width, (width - 1) / 2, np.sqrt((width * width - 1) / 12)


def gen_rng(rng) -> Case:
    """Uniform (floats and integers) or normal. Outputs: whether every value
    is in [a, b) (uniform), and, for the draws' offsets from a (uniform) or
    the mean (normal), (mean - mu) / sigma and sd / sigma - 1, which are 0
    within 6/sqrt(n) (over six standard errors)."""
    shape = _sample_shape(rng)
    n = int(np.prod(shape))
    dims = "[" + ",".join(map(str, shape)) + "]"
    all_dims = ",".join(map(str, range(len(shape))))
    normal = rng.random() < 0.3
    floats = ["f32", "f64", "f16", "bf16"]
    hlo_type = str(rng.choice(floats if normal else
                              floats + ["s8", "s32", "s64", "u8", "u32", "u64"]))
    if normal:
        a, b = float(rng.integers(-8, 9)), float(rng.integers(1, 5))
        mu, sigma = 0.0, b
    else:
        a, b, mu, sigma = _uniform_bounds(rng, hlo_type)
    distribution = "rng_normal" if normal else "rng_uniform"
    lines = [
        f"  a = {hlo_type}[] constant({_scalar(a, hlo_type)})",
        f"  b = {hlo_type}[] constant({_scalar(b, hlo_type)})",
        f"  r = {hlo_type}{dims} rng(a, b), distribution={distribution}",
        f"  ab = {hlo_type}{dims} broadcast(a), dimensions={{}}",
    ]
    if hlo_type[0] in "fb":
        lines += [f"  d = {hlo_type}{dims} subtract(r, ab)",
                  f"  off = f64{dims} convert(d)"]
    else:
        # The offset from a in the unsigned type of the width: exact.
        unsigned = "u" + hlo_type[1:]
        lines += [f"  ru = {unsigned}{dims} bitcast-convert(r)",
                  f"  au = {unsigned}{dims} bitcast-convert(ab)",
                  f"  d = {unsigned}{dims} subtract(ru, au)",
                  f"  off = f64{dims} convert(d)"]
    outputs, expected = [], []
    if not normal:
        lines += [
            f"  bb = {hlo_type}{dims} broadcast(b), dimensions={{}}",
            f"  ge = pred{dims} compare(r, ab), direction=GE",
            f"  lt = pred{dims} compare(r, bb), direction=LT",
            f"  in = pred{dims} and(ge, lt)",
            "  true = pred[] constant(true)",
            f"  all_in = pred[] reduce(in, true), dimensions={{{all_dims}}}, to_apply=and_pred",
        ]
        outputs.append(("all_in", "pred[]"))
        expected.append(("pred", np.array(True)))
    if sigma > 0:
        lines += [
            "  zero = f64[] constant(0)",
            f"  sum = f64[] reduce(off, zero), dimensions={{{all_dims}}}, to_apply=add_f64",
            f"  sq = f64{dims} multiply(off, off)",
            f"  sumsq = f64[] reduce(sq, zero), dimensions={{{all_dims}}}, to_apply=add_f64",
            f"  n = f64[] constant({n})",
            "  mean = f64[] divide(sum, n)",
            "  meansq = f64[] divide(sumsq, n)",
            f"  mu = f64[] constant({repr(float(mu))})",
            f"  sigma = f64[] constant({repr(float(sigma))})",
            "  dmean = f64[] subtract(mean, mu)",
            "  zmean = f64[] divide(dmean, sigma)",
            "  m2 = f64[] multiply(mean, mean)",
            "  var = f64[] subtract(meansq, m2)",
            "  sd = f64[] sqrt(var)",
            "  ratio = f64[] divide(sd, sigma)",
            "  one = f64[] constant(1)",
            "  zsd = f64[] subtract(ratio, one)",
        ]
        outputs += [("zmean", "f64[]"), ("zsd", "f64[]")]
        expected += [("f64", np.array(0.0)), ("f64", np.array(0.0))]
    types = ", ".join(t for _, t in outputs)
    lines.append(f"  ROOT t = ({types}) tuple({', '.join(name for name, _ in outputs)})")
    hlo = ("HloModule rng_case\n" + _STATS_COMPUTATIONS + "\nENTRY main {\n" + "\n".join(lines) +
           "\n}\n")
    return Case(hlo, expected, tolerance=float(6.0 / np.sqrt(n)),
                note=f"{distribution} {hlo_type} a={a} b={b} n={n}")


# ---- rng-get-and-update-state ------------------------------------------------

def gen_rng_get_and_update_state(rng) -> Case:
    """A chain of calls ordered by control edges; each returns the state
    before it: 0x7012395 plus the deltas before, as {low, high}."""
    calls = int(rng.integers(1, 5))
    deltas = [int(rng.integers(0, 2**63)) if rng.random() < 0.5 else int(rng.integers(0, 100))
              for _ in range(calls)]
    lines, expected = [], []
    state = 0x7012395
    for k, delta in enumerate(deltas):
        after = f", control-predecessors={{g{k - 1}}}" if k else ""
        lines.append(f"  g{k} = u64[2] rng-get-and-update-state(), delta={delta}{after}")
        expected.append(("u64", np.array([state % 2**64, state >> 64], dtype=np.uint64)))
        state += delta
    names = ", ".join(f"g{k}" for k in range(calls))
    types = ", ".join(["u64[2]"] * calls)
    lines.append(f"  ROOT t = ({types}) tuple({names})")
    hlo = "HloModule rng_state_case\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"
    return Case(hlo, expected)


GENERATORS = {
    "rng-bit-generator": gen_rng_bit_generator,
    "rng": gen_rng,
    "rng-get-and-update-state": gen_rng_get_and_update_state,
}

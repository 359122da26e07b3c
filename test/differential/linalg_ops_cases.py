# SPDX-License-Identifier: Apache-2.0

"""Differential cases of the linalg family: fft, cholesky, triangular-solve
and the batch-norm ops, against numpy.fft, numpy.linalg and the batch-norm
formulas of XLA's BatchNormExpander written with numpy.

numpy computes in double (numpy.fft and numpy.linalg upcast), the
interpreter in double too; both round once to the result type, so they can
differ by rounding only. Tolerance (relative and absolute, see
harness.first_difference): 1e-4 for f32/c64 results, 1e-10 for f64/c128,
2e-2 for f16/bf16.
"""

import numpy as np

from harness import Case, constant_line, random_array, shape_text, to_type

TOLERANCE = {"f16": 2e-2, "bf16": 2e-2, "f32": 1e-4, "c64": 1e-4, "f64": 1e-10, "c128": 1e-10}

REAL_OF = {"c64": "f32", "c128": "f64"}
COMPLEX_OF = {"f32": "c64", "f64": "c128"}


def module(lines, root: str) -> str:
    body = "\n".join(lines)
    return f"HloModule m\n\nENTRY main {{\n{body}\n  ROOT r = {root}\n}}\n"


def small_dims(rng, rank, low=1, high=4):
    return [int(rng.integers(low, high + 1)) for _ in range(rank)]


def fft_length(rng, rank):
    # Odd, even, prime and power-of-two lengths; the product stays small.
    choices = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16]
    if rank == 1:
        # Over 64, lengths other than powers of two take Bluestein's path.
        choices += [10, 11, 13, 15, 17, 24, 32, 65, 100, 127, 128, 200]
    return [int(rng.choice(choices)) for _ in range(rank)]


# ---- fft ---------------------------------------------------------------------


def gen_fft(rng: np.random.Generator) -> Case:
    kind = str(rng.choice(["FFT", "IFFT", "RFFT", "IRFFT"]))
    rank = int(rng.integers(1, 4))
    lengths = fft_length(rng, rank)
    while int(np.prod(lengths)) > 300:
        lengths = fft_length(rng, rank)
    batch = small_dims(rng, int(rng.integers(0, 3)), 1, 3)
    axes = tuple(range(len(batch), len(batch) + rank))
    if kind == "RFFT":
        in_type = str(rng.choice(["f32", "f64"]))
        out_type = COMPLEX_OF[in_type]
        x = random_array(rng, in_type, batch + lengths)
        want = np.fft.rfftn(x.astype(np.float64), axes=axes)
    elif kind == "IRFFT":
        in_type = str(rng.choice(["c64", "c128"]))
        out_type = REAL_OF[in_type]
        x = random_array(rng, in_type, batch + lengths[:-1] + [lengths[-1] // 2 + 1])
        want = np.fft.irfftn(x.astype(np.complex128), s=lengths, axes=axes)
    else:
        in_type = out_type = str(rng.choice(["c64", "c128"]))
        x = random_array(rng, in_type, batch + lengths)
        transform = np.fft.fftn if kind == "FFT" else np.fft.ifftn
        want = transform(x.astype(np.complex128), axes=axes)
    want = to_type(want, out_type)
    lengths_text = ",".join(str(n) for n in lengths)
    hlo = module([constant_line("x", x, in_type)],
                 f"{shape_text(out_type, want.shape)} fft(x), fft_type={kind}, "
                 f"fft_length={{{lengths_text}}}")
    return Case(hlo, [(out_type, want)], TOLERANCE[out_type], f"{kind} {lengths}")


# ---- cholesky ----------------------------------------------------------------


def gen_cholesky(rng: np.random.Generator) -> Case:
    hlo_type = str(rng.choice(["f32", "f64", "c64", "c128", "f16", "bf16"]))
    complex_type = hlo_type in ("c64", "c128")
    n = int(rng.integers(1, 7))
    batch = small_dims(rng, int(rng.integers(0, 3)), 1, 3)
    lower = bool(rng.integers(0, 2))
    m = random_array(rng, hlo_type, batch + [n, n]).astype(
        np.complex128 if complex_type else np.float64)
    # Hermitian positive definite: M M^H / 4 + n I, kept exact in the type.
    spd = m @ np.conj(np.swapaxes(m, -1, -2)) / 4 + n * np.eye(n)
    if complex_type:
        spd = spd.real.round(3) + 1j * spd.imag.round(3)
        spd = (spd + np.conj(np.swapaxes(spd, -1, -2))) / 2
    else:
        spd = spd.round(3)
    spd = to_type(spd, hlo_type).astype(np.complex128 if complex_type else np.float64)
    # Some matrices are made indefinite: a negative diagonal entry fails
    # the factorization, which XLA reports as an all-NaN matrix.
    flat = spd.reshape(-1, n, n)
    failing = rng.random(flat.shape[0]) < 0.15
    for b in np.flatnonzero(failing):
        k = int(rng.integers(0, n))
        flat[b, k, k] = -2.0
    spd = flat.reshape(spd.shape)
    # The other triangle holds junk that must not be read.
    junk = random_array(rng, hlo_type, batch + [n, n]) * 7
    named = np.tril(np.ones((n, n), dtype=bool)) if lower else np.triu(np.ones((n, n), dtype=bool))
    given = np.where(named, spd, junk)
    want = np.full(flat.shape, np.nan, dtype=flat.dtype)
    for b in range(flat.shape[0]):
        if failing[b]:
            continue
        l = np.linalg.cholesky(flat[b])
        want[b] = l if lower else np.conj(l).T
    want = to_type(want.reshape(spd.shape), hlo_type)
    hlo = module([constant_line("a", to_type(given, hlo_type), hlo_type)],
                 f"{shape_text(hlo_type, want.shape)} cholesky(a), lower={str(lower).lower()}")
    return Case(hlo, [(hlo_type, want)], TOLERANCE[hlo_type], f"n={n} lower={lower}")


# ---- triangular-solve --------------------------------------------------------


def gen_triangular_solve(rng: np.random.Generator) -> Case:
    hlo_type = str(rng.choice(["f32", "f64", "c64", "c128"]))
    complex_type = hlo_type in ("c64", "c128")
    wide = np.complex128 if complex_type else np.float64
    m = int(rng.integers(1, 7))
    k = int(rng.integers(1, 6))
    batch = small_dims(rng, int(rng.integers(0, 3)), 1, 3)
    left = bool(rng.integers(0, 2))
    lower = bool(rng.integers(0, 2))
    unit = bool(rng.integers(0, 3) == 0)
    transpose = str(rng.choice(["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]))
    # Well conditioned: off-diagonal entries in [-1, 1), diagonal entries of
    # magnitude 2 to 4.
    a = (random_array(rng, hlo_type, batch + [m, m]) / 4).astype(wide)
    diagonal = (rng.integers(16, 33, size=batch + [m]) / 8.0) * np.where(
        rng.integers(0, 2, size=batch + [m]) == 1, -1, 1)
    idx = np.arange(m)
    a[..., idx, idx] = diagonal
    named = np.tril(np.ones((m, m), dtype=bool)) if lower else np.triu(np.ones((m, m), dtype=bool))
    t = np.where(named, a, 0)
    if unit:
        t[..., idx, idx] = 1
    # What the interpreter is given: junk in the other triangle, and on the
    # diagonal when it is taken as ones.
    junk = random_array(rng, hlo_type, batch + [m, m]).astype(wide) * 5
    given = np.where(named, a, junk)
    if unit:
        given[..., idx, idx] = junk[..., idx, idx]
    if transpose == "TRANSPOSE":
        op = np.swapaxes(t, -1, -2)
    elif transpose == "ADJOINT":
        op = np.conj(np.swapaxes(t, -1, -2))
    else:
        op = t
    b = random_array(rng, hlo_type, batch + ([m, k] if left else [k, m]))
    if left:
        x = np.linalg.solve(op, b.astype(wide))
    else:
        x = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2),
                                        np.swapaxes(b.astype(wide), -1, -2)), -1, -2)
    want = to_type(x, hlo_type)
    attributes = (f"left_side={str(left).lower()}, lower={str(lower).lower()}, "
                  f"unit_diagonal={str(unit).lower()}, transpose_a={transpose}")
    hlo = module([constant_line("a", to_type(given, hlo_type), hlo_type),
                  constant_line("b", b, hlo_type)],
                 f"{shape_text(hlo_type, want.shape)} triangular-solve(a, b), {attributes}")
    return Case(hlo, [(hlo_type, want)], TOLERANCE[hlo_type], attributes)


# ---- batch norm --------------------------------------------------------------


def batch_norm_setup(rng):
    hlo_type = str(rng.choice(["f32", "f64", "f32", "f64", "f16", "bf16"]))
    rank = int(rng.integers(1, 5))
    dims = small_dims(rng, rank, 1, 5)
    feature = int(rng.integers(0, rank))
    epsilon = float(rng.choice([0.001, 1e-5, 0.1, 0.5]))
    # XLA keeps epsilon as an f32, converted to the element type.
    eps = float(to_type(np.float32(epsilon).astype(np.float64), hlo_type))
    others = tuple(d for d in range(rank) if d != feature)
    shape = [1] * rank
    shape[feature] = dims[feature]
    return hlo_type, dims, feature, epsilon, eps, others, shape


def per_feature(rng, hlo_type, size, positive=False):
    values = random_array(rng, hlo_type, [size])
    if positive:
        values = to_type(np.abs(values.astype(np.float64)) + 0.5, hlo_type)
    return values


def batch_norm_root(hlo_type, dims, op, operands, epsilon, feature, tuple_result):
    f = dims[feature]
    shape = shape_text(hlo_type, dims)
    if tuple_result:
        shape = f"({shape}, {shape_text(hlo_type, [f])}, {shape_text(hlo_type, [f])})"
    return f"{shape} {op}({', '.join(operands)}), epsilon={epsilon!r}, feature_index={feature}"


def gen_batch_norm_training(rng: np.random.Generator) -> Case:
    hlo_type, dims, feature, epsilon, eps, others, shape = batch_norm_setup(rng)
    f = dims[feature]
    x = random_array(rng, hlo_type, dims)
    scale = per_feature(rng, hlo_type, f)
    offset = per_feature(rng, hlo_type, f)
    xd = x.astype(np.float64)
    mean = xd.mean(axis=others)
    var = (xd * xd).mean(axis=others) - mean * mean
    out = ((xd - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
           * scale.astype(np.float64).reshape(shape) + offset.astype(np.float64).reshape(shape))
    hlo = module([constant_line("x", x, hlo_type), constant_line("scale", scale, hlo_type),
                  constant_line("offset", offset, hlo_type)],
                 batch_norm_root(hlo_type, dims, "batch-norm-training", ["x", "scale", "offset"],
                                 epsilon, feature, True))
    expected = [(hlo_type, to_type(out, hlo_type)), (hlo_type, to_type(mean, hlo_type)),
                (hlo_type, to_type(var, hlo_type))]
    return Case(hlo, expected, TOLERANCE[hlo_type], f"{dims} feature {feature}")


def gen_batch_norm_inference(rng: np.random.Generator) -> Case:
    hlo_type, dims, feature, epsilon, eps, others, shape = batch_norm_setup(rng)
    f = dims[feature]
    x = random_array(rng, hlo_type, dims)
    scale, offset, mean = (per_feature(rng, hlo_type, f) for _ in range(3))
    var = per_feature(rng, hlo_type, f, positive=True)
    xd = x.astype(np.float64)
    out = ((xd - mean.astype(np.float64).reshape(shape))
           / np.sqrt(var.astype(np.float64).reshape(shape) + eps)
           * scale.astype(np.float64).reshape(shape) + offset.astype(np.float64).reshape(shape))
    names = ["x", "scale", "offset", "mean", "var"]
    lines = [constant_line(n, v, hlo_type) for n, v in zip(names, [x, scale, offset, mean, var])]
    hlo = module(lines, batch_norm_root(hlo_type, dims, "batch-norm-inference", names, epsilon,
                                        feature, False))
    return Case(hlo, [(hlo_type, to_type(out, hlo_type))], TOLERANCE[hlo_type],
                f"{dims} feature {feature}")


def gen_batch_norm_grad(rng: np.random.Generator) -> Case:
    hlo_type, dims, feature, epsilon, eps, others, shape = batch_norm_setup(rng)
    f = dims[feature]
    x = random_array(rng, hlo_type, dims)
    grad = random_array(rng, hlo_type, dims)
    scale, mean = (per_feature(rng, hlo_type, f) for _ in range(2))
    var = per_feature(rng, hlo_type, f, positive=True)
    xd, gd = x.astype(np.float64), grad.astype(np.float64)
    n = xd.size // f
    centered = xd - mean.astype(np.float64).reshape(shape)
    var_eps = var.astype(np.float64) + eps
    sum_g = gd.sum(axis=others)
    sum_gc = (gd * centered).sum(axis=others)
    grad_scale = sum_gc / np.sqrt(var_eps)
    # d/dx of scale * (x - mean) / sqrt(var + eps) with mean and var the
    # batch's own statistics, as XLA's expander writes it.
    grad_x = (scale.astype(np.float64) / np.sqrt(var_eps) / n).reshape(shape) * (
        n * gd - sum_g.reshape(shape) - centered * (sum_gc / var_eps).reshape(shape))
    names = ["x", "scale", "mean", "var", "grad"]
    lines = [constant_line(nm, v, hlo_type) for nm, v in zip(names, [x, scale, mean, var, grad])]
    hlo = module(lines, batch_norm_root(hlo_type, dims, "batch-norm-grad", names, epsilon, feature,
                                        True))
    expected = [(hlo_type, to_type(grad_x, hlo_type)), (hlo_type, to_type(grad_scale, hlo_type)),
                (hlo_type, to_type(sum_g, hlo_type))]
    return Case(hlo, expected, TOLERANCE[hlo_type], f"{dims} feature {feature}")


GENERATORS = {
    "fft": gen_fft,
    "cholesky": gen_cholesky,
    "triangular-solve": gen_triangular_solve,
    "batch-norm-training": gen_batch_norm_training,
    "batch-norm-inference": gen_batch_norm_inference,
    "batch-norm-grad": gen_batch_norm_grad,
}

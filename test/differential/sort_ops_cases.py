# SPDX-License-Identifier: Apache-2.0

"""Random cases for sort, topk, ragged-dot and scaled-dot.

numpy computes each result its own way: sort by np.lexsort over order keys
(XLA's total order of floats made into integers), topk by a stable argsort,
ragged-dot by masking each group's elements and np.einsum, scaled-dot by
np.repeat of the scales and np.einsum."""

import string

import numpy as np

from harness import (Case, constant_line, is_float, random_array, shape_text, to_type)

_SORT_KEY_TYPES = ["s8", "s32", "s64", "u8", "u32", "f16", "bf16", "f32", "f64"]
_SORT_PAYLOAD_TYPES = _SORT_KEY_TYPES + ["pred", "u16"]
_SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0])


def _with_specials(rng, values: np.ndarray, hlo_type: str) -> np.ndarray:
    """Some elements replaced by NaN, infinities and zeros of both signs."""
    if not is_float(hlo_type) or values.size == 0:
        return values
    out = values.copy()
    hit = rng.random(size=out.shape) < 0.25
    out[hit] = rng.choice(_SPECIALS, size=int(hit.sum())).astype(out.dtype)
    return out


def _order_key(values: np.ndarray, hlo_type: str, total_order: bool, descending: bool):
    """An array numpy sorts ascending in the order the comparison gives."""
    if is_float(hlo_type):
        v = values.astype(np.float64)
        if not total_order:
            return -v if descending else v
        bits = v.view(np.int64)
        key = np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)
    else:
        key = values.astype(np.int64)
    return ~key if descending else key


def _sorted_along(array: np.ndarray, order: np.ndarray, dim: int) -> np.ndarray:
    moved = np.moveaxis(array, dim, -1)
    return np.moveaxis(np.take_along_axis(moved, order, axis=-1), -1, dim)


def gen_sort(rng) -> Case:
    rank = int(rng.integers(1, 4))
    shape = [int(d) for d in rng.integers(1, 6, size=rank)]
    if rng.random() < 0.1:
        shape[int(rng.integers(rank))] = 0
    if rank == 1 and rng.random() < 0.3:
        shape = [int(rng.integers(10, 60))]
    dim = int(rng.integers(rank))
    count = int(rng.integers(1, 4))
    types = [str(rng.choice(_SORT_PAYLOAD_TYPES)) for _ in range(count)]
    # Which operands are keys, most significant first (the others ride along).
    key_count = int(rng.integers(1, count + 1))
    keys = [int(k) for k in rng.permutation(count)[:key_count]]
    for k in keys:
        if types[k] == "pred" or types[k] == "u16":
            types[k] = str(rng.choice(_SORT_KEY_TYPES))
    total = {k: is_float(types[k]) and bool(rng.random() < 0.6) for k in keys}
    descending = {k: bool(rng.random() < 0.5) for k in keys}
    arrays = []
    for k in range(count):
        values = random_array(rng, types[k], shape)
        if k in keys and total[k]:
            values = _with_specials(rng, values, types[k])
        elif is_float(types[k]):
            # Without the total order NaN has no place; -0 equals +0.
            zeros = rng.random(size=values.shape) < 0.2
            values = np.where(zeros, -0.0, values).astype(values.dtype)
        arrays.append(values)

    params = []
    for k in range(count):
        params.append(f"  a{k} = {types[k]}[] parameter({2 * k})")
        params.append(f"  b{k} = {types[k]}[] parameter({2 * k + 1})")
    body = []

    def compare(name, k, direction):
        suffix = ", type=TOTALORDER" if total[k] else ""
        # compare(b, a) with the opposite direction is the same test.
        if direction != "EQ" and rng.random() < 0.3:
            flipped = {"LT": "GT", "GT": "LT"}[direction]
            return f"  {name} = pred[] compare(b{k}, a{k}), direction={flipped}{suffix}"
        return f"  {name} = pred[] compare(a{k}, b{k}), direction={direction}{suffix}"

    last = keys[-1]
    body.append(compare(f"before{len(keys) - 1}", last, "GT" if descending[last] else "LT"))
    for j in range(len(keys) - 2, -1, -1):
        k = keys[j]
        body.append(compare(f"eq{j}", k, "EQ"))
        body.append(compare(f"first{j}", k, "GT" if descending[k] else "LT"))
        body.append(f"  before{j} = pred[] select(eq{j}, before{j + 1}, first{j})")
    body[-1] = body[-1].replace(f"  before{0} =", "  ROOT before0 =", 1)
    comparator = "cmp {\n" + "\n".join(params + body) + "\n}\n"

    constants = [constant_line(f"c{k}", arrays[k], types[k]) for k in range(count)]
    texts = [shape_text(types[k], shape) for k in range(count)]
    result = texts[0] if count == 1 else "(" + ", ".join(texts) + ")"
    stable = str(rng.choice(["true", "false", ""]))
    stable_attr = f", is_stable={stable}" if stable else ""
    operands = ", ".join(f"c{k}" for k in range(count))
    hlo = (f"HloModule sort_case\n\n{comparator}\nENTRY main {{\n" + "\n".join(constants) +
           f"\n  ROOT s = {result} sort({operands}), dimensions={{{dim}}}{stable_attr}, "
           "to_apply=cmp\n}\n")

    # lexsort's last key is the primary one.
    order_keys = [np.moveaxis(_order_key(arrays[k], types[k], total[k], descending[k]), dim, -1)
                  for k in reversed(keys)]
    order = np.lexsort(order_keys, axis=-1)
    expected = [(types[k], _sorted_along(arrays[k], order, dim)) for k in range(count)]
    return Case(hlo, expected)


_TOPK_TYPES = ["s8", "s32", "s64", "u8", "u32", "f16", "bf16", "f32", "f64"]


def gen_topk(rng) -> Case:
    rank = int(rng.integers(1, 4))
    shape = [int(d) for d in rng.integers(1, 5, size=rank)]
    shape[-1] = int(rng.integers(0, 12))
    hlo_type = str(rng.choice(_TOPK_TYPES))
    values = _with_specials(rng, random_array(rng, hlo_type, shape), hlo_type)
    k = int(rng.integers(0, shape[-1] + 1))
    largest = str(rng.choice(["true", "false", ""]))
    attr = f", largest={largest}" if largest else ""
    out_shape = shape[:-1] + [k]
    hlo = (f"HloModule topk_case\n\nENTRY main {{\n{constant_line('x', values, hlo_type)}\n"
           f"  ROOT t = ({shape_text(hlo_type, out_shape)}, {shape_text('s32', out_shape)}) "
           f"topk(x), k={k}{attr}\n}}\n")
    key = _order_key(values, hlo_type, True, largest != "false")
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return Case(hlo, [(hlo_type, np.take_along_axis(values, order, axis=-1)),
                      ("s32", order.astype(np.int32))])


# ---- ragged-dot -------------------------------------------------------------

_DOT_TYPES = [("f32", "f32"), ("bf16", "f32"), ("f16", "f16"), ("s32", "s32"), ("s8", "s32"),
              ("f64", "f64"), ("bf16", "bf16")]


def _layout(rng, roles):
    """A random order of the axes named in `roles` ({name: size}); returns
    (sizes in that order, {name: axis})."""
    names = list(roles)
    rng.shuffle(names)
    return [roles[n] for n in names], {n: i for i, n in enumerate(names)}


def _group_sizes(rng, extent: int, groups: int, shape) -> np.ndarray:
    """Non-negative sizes per row, summing to about `extent` (sometimes less,
    leaving positions in no group, sometimes more)."""
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    out = np.zeros((rows, groups), dtype=np.int64)
    for r in range(rows):
        total = extent + int(rng.choice([0, 0, -1, -2, 1]))
        total = max(total, 0)
        cuts = np.sort(rng.integers(0, total + 1, size=groups - 1))
        out[r] = np.diff(np.concatenate([[0], cuts, [total]]))
    return out.reshape(shape)


def _letters(count):
    return list(string.ascii_letters[:count])


def gen_ragged_dot(rng) -> Case:
    mode = str(rng.choice(["non-contracting", "contracting", "batch"]))
    in_type, out_type = _DOT_TYPES[int(rng.integers(len(_DOT_TYPES)))]
    size = lambda: int(rng.integers(1, 5))
    batch = [f"b{i}" for i in range(int(rng.integers(1 if mode == "batch" else 0, 3)))]
    free_l = [f"m{i}" for i in range(int(rng.integers(1 if mode == "non-contracting" else 0, 3)))]
    contracting = [f"k{i}" for i in range(int(rng.integers(1, 3)))]
    free_r = [f"n{i}" for i in range(int(rng.integers(0, 3)))]
    sizes = {n: size() for n in batch + free_l + contracting + free_r}
    if rng.random() < 0.15 and free_r:
        sizes[free_r[0]] = 0
    groups = int(rng.integers(1, 5))
    ragged = str(rng.choice({"non-contracting": free_l, "contracting": contracting,
                             "batch": batch}[mode]))
    sizes[ragged] = int(rng.integers(1, 8))
    lhs_shape, lhs_axis = _layout(rng, {n: sizes[n] for n in batch + free_l + contracting})
    rhs_roles = {n: sizes[n] for n in batch + contracting + free_r}
    if mode == "non-contracting":
        rhs_roles["g"] = groups
    rhs_shape, rhs_axis = _layout(rng, rhs_roles)
    # The lists' own order need not follow the axes'.
    batch_order = list(rng.permutation(batch)) if batch else []
    contracting_order = list(rng.permutation(contracting))

    # group_sizes: [g], or [prefix..., g] with the prefix XLA defines.
    prefix = list(batch_order)
    if mode == "batch":
        prefix = batch_order[:batch_order.index(ragged)]
    elif mode == "contracting":
        prefix += contracting_order[:contracting_order.index(ragged)]
    else:
        prefix += sorted((n for n in free_l if lhs_axis[n] < lhs_axis[ragged]),
                         key=lambda n: lhs_axis[n])
    full_form = bool(rng.random() < 0.5)
    gs_shape = [sizes[n] for n in prefix] + [groups] if full_form else [groups]
    gs = _group_sizes(rng, sizes[ragged], groups, gs_shape)
    gs_type = str(rng.choice(["s32", "s64", "u32"]))

    lhs = random_array(rng, in_type, lhs_shape)
    rhs = random_array(rng, in_type, rhs_shape)

    attrs = []
    def dims(name, values):
        if values:
            attrs.append(f"{name}={{{','.join(str(v) for v in values)}}}")
    dims("lhs_batch_dims", [lhs_axis[n] for n in batch_order])
    dims("rhs_batch_dims", [rhs_axis[n] for n in batch_order])
    dims("lhs_contracting_dims", [lhs_axis[n] for n in contracting_order])
    dims("rhs_contracting_dims", [rhs_axis[n] for n in contracting_order])
    dims("lhs_ragged_dims", [lhs_axis[ragged]])
    if mode == "non-contracting":
        dims("rhs_group_dims", [rhs_axis["g"]])

    # numpy: einsum letters per axis name; output batch (listed order), lhs
    # free (axis order), rhs free (axis order).
    names = batch + free_l + contracting + free_r + ["g"]
    letter = dict(zip(names, _letters(len(names))))
    lhs_names = sorted(lhs_axis, key=lambda n: lhs_axis[n])
    rhs_names = sorted(rhs_axis, key=lambda n: rhs_axis[n])
    out_names = (batch_order + [n for n in lhs_names if n in free_l] +
                 [n for n in rhs_names if n in free_r])
    out_shape = [sizes[n] for n in out_names]
    wide = np.float64 if is_float(in_type) else np.int64
    lhs_w, rhs_w = lhs.astype(wide), rhs.astype(wide)

    def owned(g):
        """Mask of the lhs elements group g owns."""
        index = np.indices(lhs_shape)
        position = index[lhs_axis[ragged]]
        ends = np.cumsum(gs, axis=-1)
        starts = ends - gs
        if full_form:
            at = tuple(index[lhs_axis[n]] for n in prefix)
            start, end = starts[at + (g,)], ends[at + (g,)]
        else:
            start, end = starts[g], ends[g]
        return ((start <= position) & (position < end)).astype(wide)

    subscripts = lambda ns: "".join(letter[n] for n in ns)
    if mode == "batch":
        spec = f"{subscripts(lhs_names)},{subscripts(rhs_names)}->{subscripts(out_names)}"
        value = np.einsum(spec, lhs_w, rhs_w)
    elif mode == "non-contracting":
        rhs_free_names = [n for n in rhs_names if n != "g"]
        spec = f"{subscripts(lhs_names)},{subscripts(rhs_free_names)}->{subscripts(out_names)}"
        value = np.zeros(out_shape, dtype=wide)
        for g in range(groups):
            rhs_g = np.take(rhs_w, g, axis=rhs_axis["g"])
            value = value + np.einsum(spec, lhs_w * owned(g), rhs_g)
    else:
        spec = f"{subscripts(lhs_names)},{subscripts(rhs_names)}->{subscripts(out_names)}"
        value = np.stack([np.einsum(spec, lhs_w * owned(g), rhs_w) for g in range(groups)])
        out_shape = [groups] + out_shape
    value = to_type(value.reshape(out_shape), out_type)

    hlo = (f"HloModule ragged_dot_case\n\nENTRY main {{\n{constant_line('lhs', lhs, in_type)}\n"
           f"{constant_line('rhs', rhs, in_type)}\n{constant_line('sizes', gs, gs_type)}\n"
           f"  ROOT d = {shape_text(out_type, out_shape)} ragged-dot(lhs, rhs, sizes), "
           f"{', '.join(attrs)}\n}}\n")
    tolerance = 0.0 if not is_float(out_type) else (1e-2 if out_type in ("bf16", "f16") else 1e-6)
    return Case(hlo, [(out_type, value)], tolerance=tolerance, note=f"mode {mode}")


# ---- scaled-dot -------------------------------------------------------------

_SCALED_OPERANDS = ["f8e4m3fn", "f8e5m2", "bf16", "f32"]
_SCALES = ["f8e8m0fnu", "bf16", "f32"]
_WIDTH = {"f8e4m3fn": 8, "f8e5m2": 8, "f8e8m0fnu": 8, "bf16": 16, "f16": 16, "f32": 32,
          "f64": 64}


def _compute_type(a: str, b: str) -> str:
    """XLA's scaled-dot lowering: the type an operand and its scale meet in."""
    if _WIDTH[a] < 16 and _WIDTH[b] < 16:
        return "bf16"
    if a == b:
        return a
    if _WIDTH[a] == _WIDTH[b]:
        return "f32"
    return a if _WIDTH[a] > _WIDTH[b] else b


def _scale_values(rng, scale_type, shape):
    if scale_type == "f8e8m0fnu":
        return np.ldexp(1.0, rng.integers(-2, 3, size=shape)).astype(np.float32)
    return random_array(rng, scale_type, shape)


def _scaled(rng, operand, operand_type, contracting_axes):
    """(scale, scale type, the operand scaled as XLA computes it)."""
    scale_type = str(rng.choice(_SCALES))
    if rng.random() < 0.15:
        # A rank-0 scale: XLA's lowering leaves the operand unscaled.
        scale = np.asarray(_scale_values(rng, scale_type, ()))
        return scale, scale_type, operand.astype(np.float64)
    blocks = []
    for axis, extent in enumerate(operand.shape):
        divisors = [d for d in range(1, extent + 1) if extent % d == 0]
        if axis in contracting_axes or rng.random() < 0.2:
            blocks.append(int(rng.choice(divisors)))
        else:
            blocks.append(1)
    scale_shape = [e // b for e, b in zip(operand.shape, blocks)]
    scale = _scale_values(rng, scale_type, scale_shape)
    repeated = scale
    for axis, block in enumerate(blocks):
        repeated = np.repeat(repeated, block, axis=axis)
    meet = _compute_type(operand_type, scale_type)
    value = to_type(operand.astype(np.float64), meet).astype(np.float64) * \
        to_type(repeated.astype(np.float64), meet).astype(np.float64)
    return scale, scale_type, to_type(value, meet).astype(np.float64)


def gen_scaled_dot(rng) -> Case:
    batch = int(rng.integers(0, 2))
    m, n = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    k = int(rng.choice([2, 4, 6, 8]))
    lhs_type, rhs_type = str(rng.choice(_SCALED_OPERANDS)), str(rng.choice(_SCALED_OPERANDS))
    out_type = str(rng.choice(["f32", "bf16"]))
    b = [int(rng.integers(1, 3))] if batch else []
    # lhs [b, m, k] and rhs [b, n, k] or [b, k, n].
    rhs_k_last = bool(rng.random() < 0.5)
    lhs_shape = b + [m, k]
    rhs_shape = b + ([n, k] if rhs_k_last else [k, n])
    lhs = random_array(rng, lhs_type, lhs_shape)
    rhs = random_array(rng, rhs_type, rhs_shape)
    lhs_c = batch + 1
    rhs_c = batch + (1 if rhs_k_last else 0)
    lhs_scale, lhs_scale_type, lhs_v = _scaled(rng, lhs, lhs_type, {lhs_c})
    rhs_scale, rhs_scale_type, rhs_v = _scaled(rng, rhs, rhs_type, {rhs_c})
    rhs_mk = rhs_v if rhs_k_last else np.swapaxes(rhs_v, -1, -2)
    value = to_type(np.einsum("...mk,...nk->...mn", lhs_v, rhs_mk), out_type)
    attrs = [f"lhs_contracting_dims={{{lhs_c}}}", f"rhs_contracting_dims={{{rhs_c}}}"]
    if batch:
        attrs += ["lhs_batch_dims={0}", "rhs_batch_dims={0}"]
    hlo = (f"HloModule scaled_dot_case\n\nENTRY main {{\n"
           f"{constant_line('lhs', lhs, lhs_type)}\n{constant_line('rhs', rhs, rhs_type)}\n"
           f"{constant_line('ls', lhs_scale, lhs_scale_type)}\n"
           f"{constant_line('rs', rhs_scale, rhs_scale_type)}\n"
           f"  ROOT d = {shape_text(out_type, value.shape)} scaled-dot(lhs, rhs, ls, rs), "
           f"{', '.join(attrs)}\n}}\n")
    # f32 accumulation of products of up to 16 significant bits may round.
    return Case(hlo, [(out_type, value)], tolerance=1e-2 if out_type == "bf16" else 1e-4)


GENERATORS = {
    "sort": gen_sort,
    "topk": gen_topk,
    "ragged-dot": gen_ragged_dot,
    "scaled-dot": gen_scaled_dot,
}

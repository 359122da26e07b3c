# SPDX-License-Identifier: Apache-2.0

"""Random cases for gather and scatter: random ranks, dimension numbers
(batching dimensions some of the time, the index vector dimension anywhere,
implicit or not), indices of every integer type with out-of-bounds and
negative values. numpy computes each result from the operation's definition
(docs/interpreter-semantics.md, "Gather and scatter"), output element by output element
for gather and update element by update element for scatter."""

import itertools
import math

import numpy as np

from harness import Case, constant_line, ieee_maximum, ieee_minimum, random_array, shape_text
import harness

_INDEX_TYPES = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"]
_GATHER_TYPES = ["pred", "s8", "s32", "u16", "s64", "u64", "f16", "bf16", "f32", "f64",
                 "c64", "c128", "f8e5m2", "s4"]
_SCATTER_TYPES = ["pred", "s8", "s16", "s32", "s64", "u8", "u32", "u64", "f16", "bf16", "f32",
                  "f64", "c64"]


def _pick(rng, items, count):
    """`count` distinct items of `items`, in random order."""
    items = list(items)
    return [items[k] for k in rng.permutation(len(items))[:count]]


def _subset(rng, items, probability):
    return sorted(x for x in items if rng.random() < probability)


def _int_list(values):
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def _index_type(rng, high):
    """An index type that holds [0, high] (and negatives when signed)."""
    while True:
        t = str(rng.choice(_INDEX_TYPES))
        if harness.int_range(t)[1] >= high:
            return t


def _index_values(rng, index_type, low, high, shape):
    """Values in [low, high], unsigned types keeping to what they hold, and
    now and then a u64 above INT64_MAX (which XLA reads as negative)."""
    t_low, t_high = harness.int_range(index_type)
    values = rng.integers(max(low, t_low), min(high, t_high) + 1, size=shape)
    if index_type == "u64" and rng.random() < 0.2 and values.size:
        big = np.array(values, dtype=np.uint64)
        big.reshape(-1)[int(rng.integers(values.size))] = np.uint64(2**63 + 5)
        return big
    return values.astype(harness.numpy_type(index_type))


def _as_signed(value):
    """An index as XLA's evaluator reads it: a 64-bit two's complement."""
    value = int(value)
    return value - (1 << 64) if value >= (1 << 63) else value


class _Indices:
    """Random start indices: `batch_sizes` the dimensions other than the index
    vector's, `vector_size` the index vector's length, the vector dimension
    placed at random (or implicit when the length is 1)."""

    def __init__(self, rng, batch_sizes, vector_size):
        self.batch_sizes = list(batch_sizes)
        nbatch = len(batch_sizes)
        implicit = vector_size == 1 and rng.random() < 0.5
        self.index_vector_dim = nbatch if implicit else int(rng.integers(0, nbatch + 1))
        self.implicit = implicit
        self.vector_size = vector_size
        shape = list(batch_sizes)
        if not implicit:
            shape.insert(self.index_vector_dim, vector_size)
        self.shape = shape

    def indices_dim(self, batch_position):
        """The dimension of the indices array that is batch dimension `batch_position`."""
        if self.implicit or batch_position < self.index_vector_dim:
            return batch_position
        return batch_position + 1

    def fill(self, rng, index_type, lows, highs):
        """Index vector entry k drawn from [lows[k], highs[k]]."""
        if self.implicit:
            self.values = _index_values(rng, index_type, lows[0], highs[0], self.shape)
            return
        self.values = np.zeros(self.shape, dtype=harness.numpy_type(index_type))
        moved = np.moveaxis(self.values, self.index_vector_dim, -1)
        for k in range(self.vector_size):
            moved[..., k] = _index_values(rng, index_type, lows[k], highs[k], moved.shape[:-1])

    def vector(self, batch_index):
        """The index vector at batch position `batch_index`, as int."""
        if self.implicit:
            return [_as_signed(self.values[tuple(batch_index)])]
        moved = np.moveaxis(self.values, self.index_vector_dim, -1)
        return [_as_signed(v) for v in moved[tuple(batch_index)]]


def _operand_dims(rng, rank):
    """Dimensions of 1-4, now and then one of 0; and the batching dimensions
    (some of the time), among those of size 1 or more."""
    dims = [int(rng.integers(1, 5)) for _ in range(rank)]
    if rng.random() < 0.05:
        dims[int(rng.integers(rank))] = 0
    batching = []
    if rng.random() < 0.35:
        batching = _subset(rng, [d for d in range(rank) if dims[d] >= 1], 0.3)
    return dims, batching


# ---- gather ---------------------------------------------------------------

def gen_gather(rng) -> Case:
    rank = int(rng.integers(1, 5))
    dims, batching = _operand_dims(rng, rank)
    free = [d for d in range(rank) if d not in batching]
    collapsed = _subset(rng, [d for d in free if dims[d] >= 1], 0.4)
    slice_sizes = []
    for d in range(rank):
        if d in batching or d in collapsed:
            slice_sizes.append(1)
        else:
            slice_sizes.append(int(rng.integers(0 if rng.random() < 0.1 else min(1, dims[d]),
                                                dims[d] + 1)))
    start_index_map = _pick(rng, free, int(rng.integers(0, len(free) + 1)))
    # The batch dimensions of the indices: the batching ones take the
    # operand's sizes.
    nbatch = len(batching) + int(rng.integers(0, 3))
    batch_sizes = [int(rng.integers(1, 5)) for _ in range(nbatch)]
    batch_slots = _pick(rng, range(nbatch), len(batching))
    for slot, d in zip(batch_slots, batching):
        batch_sizes[slot] = dims[d]
    indices = _Indices(rng, batch_sizes, len(start_index_map))
    start_indices_batching = [indices.indices_dim(s) for s in batch_slots]
    lows = [-3] * len(start_index_map)
    highs = [dims[d] - slice_sizes[d] + 3 for d in start_index_map]
    index_type = _index_type(rng, max(highs + [0]))
    indices.fill(rng, index_type, lows, highs)

    offset_sizes = [slice_sizes[d] for d in range(rank) if d not in batching and d not in collapsed]
    out_rank = nbatch + len(offset_sizes)
    offset_dims = sorted(_pick(rng, range(out_rank), len(offset_sizes)))
    out_shape, b, o = [], 0, 0
    for k in range(out_rank):
        if k in offset_dims:
            out_shape.append(offset_sizes[o])
            o += 1
        else:
            out_shape.append(batch_sizes[b])
            b += 1

    hlo_type = str(rng.choice(_GATHER_TYPES))
    operand = random_array(rng, hlo_type, dims)
    expected = np.zeros(out_shape, dtype=operand.dtype)
    kept = [d for d in range(rank) if d not in batching and d not in collapsed]
    if operand.size:
        for out_index in np.ndindex(*out_shape):
            batch_index = [out_index[k] for k in range(out_rank) if k not in offset_dims]
            offset_index = [out_index[k] for k in offset_dims]
            vector = indices.vector(batch_index)
            start = [0] * rank
            for k, d in enumerate(start_index_map):
                start[d] = vector[k]
            for slot, d in zip(batch_slots, batching):
                start[d] = batch_index[slot]
            where = []
            for d in range(rank):
                extent = 1 if d in batching or d in collapsed else slice_sizes[d]
                where.append(min(max(start[d], 0), dims[d] - extent))
            for k, d in enumerate(kept):
                where[d] += offset_index[k]
            expected[out_index] = operand[tuple(where)]

    attrs = (f"offset_dims={_int_list(offset_dims)}, "
             f"collapsed_slice_dims={_int_list(collapsed)}, "
             f"start_index_map={_int_list(start_index_map)}, ")
    if batching or rng.random() < 0.2:
        attrs += (f"operand_batching_dims={_int_list(batching)}, "
                  f"start_indices_batching_dims={_int_list(start_indices_batching)}, ")
    attrs += f"index_vector_dim={indices.index_vector_dim}, slice_sizes={_int_list(slice_sizes)}"
    if rng.random() < 0.3:
        attrs += f", indices_are_sorted={'true' if rng.random() < 0.5 else 'false'}"
    hlo = ("HloModule gather_case\n\nENTRY main {\n"
           + constant_line("operand", operand, hlo_type) + "\n"
           + constant_line("indices", indices.values, index_type) + "\n"
           + f"  ROOT g = {shape_text(hlo_type, out_shape)} gather(operand, indices), "
           + f"{attrs}\n}}\n")
    return Case(hlo, [(hlo_type, expected)])


# ---- scatter --------------------------------------------------------------

def _wrap_int(value, hlo_type):
    bits = int(hlo_type[1:])
    value = int(value) & ((1 << bits) - 1)
    if hlo_type[0] == "s" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _round_float(value, hlo_type):
    """A double rounded once to the type (values stay far from its limits)."""
    if hlo_type == "f64":
        return float(value)
    if hlo_type == "f32":
        return float(np.float32(value))
    if hlo_type == "f16":
        return float(np.float16(value))
    if math.isnan(value) or math.isinf(value) or value == 0.0:
        return value
    mantissa, exponent = math.frexp(value)  # bf16: 8 significant bits
    return math.ldexp(float(np.round(mantissa * 256)), exponent - 8)


def _fix(value, hlo_type):
    """A Python scalar made into what the type holds."""
    if hlo_type == "pred":
        return bool(value)
    if hlo_type[0] in "su":
        return _wrap_int(value, hlo_type)
    if hlo_type.startswith("c"):
        part = "f32" if hlo_type == "c64" else "f64"
        return complex(_round_float(value.real, part), _round_float(value.imag, part))
    return _round_float(value, hlo_type)


# Update computations of (current, update): name -> (steps, value), each step
# (result, opcode, lhs, rhs) over "cur", "upd" and earlier results, `value`
# the name the computation returns. Every step rounds to the type, as the
# interpreter does.
_UPDATES = {
    "add": ([("r", "add", "cur", "upd")], "r"),
    "multiply": ([("r", "multiply", "cur", "upd")], "r"),
    "subtract": ([("r", "subtract", "cur", "upd")], "r"),
    "maximum": ([("r", "maximum", "cur", "upd")], "r"),
    "minimum": ([("r", "minimum", "cur", "upd")], "r"),
    "overwrite": ([], "upd"),
    "keep": ([], "cur"),
    # Not a plain op(p0, p1): run as a computation call per element.
    "reversed-subtract": ([("r", "subtract", "upd", "cur")], "r"),
    "multiply-add": ([("t", "multiply", "cur", "upd"), ("r", "add", "t", "upd")], "r"),
    "or": ([("r", "or", "cur", "upd")], "r"),
    "and": ([("r", "and", "cur", "upd")], "r"),
}
_PYTHON_OPS = {
    "add": lambda a, b: a + b, "multiply": lambda a, b: a * b,
    "subtract": lambda a, b: a - b, "maximum": ieee_maximum, "minimum": ieee_minimum,
    "or": lambda a, b: a or b, "and": lambda a, b: a and b,
}


def _update_name(rng, hlo_type):
    if hlo_type == "pred":
        return str(rng.choice(["or", "and", "overwrite", "keep"]))
    names = [n for n in _UPDATES if n not in ("or", "and")]
    if hlo_type.startswith("c"):
        names = [n for n in names if n not in ("maximum", "minimum")]
    return str(rng.choice(names))


def _evaluate(name, current, update, hlo_type):
    steps, value = _UPDATES[name]
    env = {"cur": current, "upd": update}
    for result, op, lhs, rhs in steps:
        env[result] = _fix(_PYTHON_OPS[op](env[lhs], env[rhs]), hlo_type)
    return env[value]


def _computation(names, types, mixed):
    """The update computation of N = len(types) results, result k = update
    `names[k]` of (p_k, p_{N+k}); with `mixed` the last result is also less
    the current first value, so results read each other's operands. Returns
    the HLO text and the Python function of (currents, updates)."""
    n = len(types)
    params = [f"  p{k} = {types[k % n]}[] parameter({k})" for k in range(2 * n)]
    body = []
    values = []
    for k, (name, t) in enumerate(zip(names, types)):
        rename = {"cur": f"p{k}", "upd": f"p{n + k}"}
        steps, value = _UPDATES[name]
        for result, op, lhs, rhs in steps:
            rename[result] = f"{result}{k}"
            body.append(f"  {rename[result]} = {t}[] {op}({rename[lhs]}, {rename[rhs]})")
        values.append(rename[value])
    if mixed:
        body.append(f"  m = {types[0]}[] subtract({values[-1]}, p0)")
        values[-1] = "m"
    if n == 1:
        root = values[0]
        lines = params + body
        lines = [line.replace(f"  {root} =", f"  ROOT {root} =", 1) if
                 line.startswith(f"  {root} =") else line for line in lines]
    else:
        tuple_type = "(" + ", ".join(f"{t}[]" for t in types) + ")"
        lines = params + body + [f"  ROOT out = {tuple_type} tuple({', '.join(values)})"]

    def apply(current, update):
        out = [_evaluate(names[k], current[k], update[k], types[k]) for k in range(n)]
        if mixed:
            out[-1] = _fix(out[-1] - current[0], types[0])
        return out

    return "update {\n" + "\n".join(lines) + "\n}\n", apply


def _python_value(value, hlo_type):
    if hlo_type == "pred":
        return bool(value)
    if hlo_type[0] in "su":
        return int(value)
    if hlo_type.startswith("c"):
        return complex(value)
    return float(value)


def gen_scatter(rng) -> Case:
    rank = int(rng.integers(1, 5))
    dims, batching = _operand_dims(rng, rank)
    free = [d for d in range(rank) if d not in batching]
    inserted = _subset(rng, [d for d in free if dims[d] >= 1], 0.4)
    kept = [d for d in free if d not in inserted]
    extent = [1] * rank
    for d in kept:
        extent[d] = int(rng.integers(0 if rng.random() < 0.05 else min(1, dims[d]), dims[d] + 1))
    to_operand = _pick(rng, free, int(rng.integers(0, len(free) + 1)))
    nscatter = len(batching) + int(rng.integers(0, 3))
    scatter_sizes = [int(rng.integers(1, 4)) for _ in range(nscatter)]
    if rng.random() < 0.05 and nscatter:
        scatter_sizes[int(rng.integers(nscatter))] = 0
    slots = _pick(rng, range(nscatter), len(batching))
    for slot, d in zip(slots, batching):
        scatter_sizes[slot] = dims[d]
    indices = _Indices(rng, scatter_sizes, len(to_operand))
    indices_batching = [indices.indices_dim(s) for s in slots]
    out_of_bounds = rng.random() < 0.5
    lows = [(-2 if out_of_bounds else 0)] * len(to_operand)
    highs = [dims[d] - extent[d] + (2 if out_of_bounds else 0) for d in to_operand]
    highs = [max(h, lows[k]) for k, h in enumerate(highs)]
    index_type = _index_type(rng, max(highs + [0]))
    indices.fill(rng, index_type, lows, highs)

    update_rank = len(kept) + nscatter
    window_dims = sorted(_pick(rng, range(update_rank), len(kept)))
    update_shape, w, s = [], 0, 0
    for k in range(update_rank):
        if k in window_dims:
            update_shape.append(extent[kept[w]])
            w += 1
        else:
            update_shape.append(scatter_sizes[s])
            s += 1

    n = 2 if rng.random() < 0.2 else 1
    types = [str(rng.choice(_SCATTER_TYPES))]
    if n == 2:
        types.append(types[0] if rng.random() < 0.5 else str(rng.choice(_SCATTER_TYPES)))
    names = [_update_name(rng, t) for t in types]
    mixed = n == 2 and types[0] == types[1] and types[0] != "pred"
    computation, apply = _computation(names, types, mixed)

    operands = [random_array(rng, t, dims) for t in types]
    updates = [random_array(rng, t, update_shape) for t in types]
    results = [[_python_value(v, t) for v in np.asarray(o).reshape(-1)]
               for o, t in zip(operands, types)]
    flat_dims = [int(np.prod(dims[d + 1:])) for d in range(rank)]
    scatter_positions = [k for k in range(update_rank) if k not in window_dims]
    for scatter_index in itertools.product(*[range(update_shape[k]) for k in scatter_positions]):
        vector = indices.vector(list(scatter_index))
        start = [0] * rank
        for k, d in enumerate(to_operand):
            start[d] = vector[k]
        for slot, d in zip(slots, batching):
            start[d] = scatter_index[slot]
        if any(start[d] < 0 or start[d] + extent[d] > dims[d] for d in range(rank)):
            continue  # the whole window is skipped
        for window_index in itertools.product(*[range(update_shape[k]) for k in window_dims]):
            full = [0] * update_rank
            for k, p in zip(scatter_positions, scatter_index):
                full[k] = p
            for k, p in zip(window_dims, window_index):
                full[k] = p
            where = list(start)
            for k, d in enumerate(kept):
                where[d] += window_index[k]
            flat = sum(where[d] * flat_dims[d] for d in range(rank))
            current = [results[j][flat] for j in range(n)]
            update = [_python_value(updates[j][tuple(full)], types[j]) for j in range(n)]
            combined = apply(current, update)
            for j in range(n):
                results[j][flat] = _fix(combined[j], types[j])
    expected = []
    for j in range(n):
        array = np.array(results[j], dtype=harness.numpy_type(types[j])) if results[j] else \
            np.zeros(0, dtype=harness.numpy_type(types[j]))
        expected.append((types[j], array.reshape(dims)))

    attrs = (f"update_window_dims={_int_list(window_dims)}, "
             f"inserted_window_dims={_int_list(inserted)}, "
             f"scatter_dims_to_operand_dims={_int_list(to_operand)}, ")
    if batching or rng.random() < 0.2:
        attrs += (f"input_batching_dims={_int_list(batching)}, "
                  f"scatter_indices_batching_dims={_int_list(indices_batching)}, ")
    attrs += f"index_vector_dim={indices.index_vector_dim}"
    if rng.random() < 0.3:
        attrs += ", indices_are_sorted=true"
    if rng.random() < 0.3:
        attrs += ", unique_indices=false"
    attrs += ", to_apply=update"
    lines = [constant_line(f"operand{j}", operands[j], types[j]) for j in range(n)]
    lines.append(constant_line("indices", indices.values, index_type))
    lines += [constant_line(f"updates{j}", updates[j], types[j]) for j in range(n)]
    args = [f"operand{j}" for j in range(n)] + ["indices"] + [f"updates{j}" for j in range(n)]
    result_type = (shape_text(types[0], dims) if n == 1 else
                   "(" + ", ".join(shape_text(t, dims) for t in types) + ")")
    hlo = ("HloModule scatter_case\n\n" + computation + "\nENTRY main {\n" + "\n".join(lines)
           + f"\n  ROOT s = {result_type} scatter({', '.join(args)}), {attrs}\n}}\n")
    return Case(hlo, expected)


GENERATORS = {"gather": gen_gather, "scatter": gen_scatter}

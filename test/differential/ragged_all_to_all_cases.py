# SPDX-License-Identifier: Apache-2.0

"""Random cases for ragged-all-to-all, run on a mesh of 1 to 4 replicas.

Each replica picks its input, output and metadata from constant tables by
its replica id; the results are all-gathered so that device 0's line, which
the harness reads, holds every replica's. numpy lays the updates out first
(non-overlapping segments of each receiver's rows, in a random order of
senders and updates, with gaps) and computes each receiver's result as a
gather: an index array says for every output row which sender's input row
it takes, if any."""

import numpy as np

from harness import Case, constant_line, random_array, shape_text

_DATA_TYPES = ["f32", "bf16", "f64", "s8", "s32", "s64", "u8", "pred"]
_METADATA_TYPES = ["s32", "s64"]


def _dims(shape):
    return ",".join(str(int(d)) for d in shape)


def _pick(name, table, hlo_type, shape, lines):
    """`name` = this replica's row of `table` (its dimension 0 by replica id)."""
    zeros = ", ".join(["zero"] * len(shape))
    lines.append(f"  {name}_row = {shape_text(hlo_type, [1, *shape])} dynamic-slice({table}, id"
                 f"{', ' + zeros if zeros else ''}), dynamic_slice_sizes={{1{',' if shape else ''}"
                 f"{_dims(shape)}}}")
    lines.append(f"  {name} = {shape_text(hlo_type, shape)} reshape({name}_row)")


def gen_ragged_all_to_all(rng: np.random.Generator) -> Case:
    n = int(rng.integers(1, 5))
    k = int(rng.integers(1, 4))
    data_type = str(rng.choice(_DATA_TYPES))
    meta_type = str(rng.choice(_METADATA_TYPES))
    row = [int(d) for d in rng.integers(1, 4, size=int(rng.integers(0, 3)))]
    in_rows = int(rng.integers(0, 7))
    out_rows = int(rng.integers(0, 9))
    inputs = random_array(rng, data_type, [n, in_rows, *row])
    outputs = random_array(rng, data_type, [n, out_rows, *row])

    # Indexed [sender or receiver][peer * k + update].
    io = np.zeros((n, n * k), dtype=np.int64)
    ss = np.zeros((n, n * k), dtype=np.int64)
    oo = np.zeros((n, n * k), dtype=np.int64)
    rs = np.zeros((n, n * k), dtype=np.int64)
    # Per receiver and output row: the sender and input row it takes, or -1.
    from_sender = np.full((n, out_rows), -1, dtype=np.int64)
    from_row = np.zeros((n, out_rows), dtype=np.int64)
    for receiver in range(n):
        position = 0
        for pair in rng.permutation(n * k):
            sender, update = divmod(int(pair), k)
            gap = int(rng.integers(0, 2))
            size = int(rng.integers(0, 4))
            if size > in_rows or position + gap + size > out_rows:
                size = 0
            entry = receiver * k + update
            if size == 0:
                # An empty update's offsets may be anything.
                io[sender, entry] = int(rng.integers(-3, 12))
                oo[sender, entry] = int(rng.integers(-3, 12))
            else:
                io[sender, entry] = int(rng.integers(0, in_rows - size + 1))
                oo[sender, entry] = position + gap
                rows = np.arange(position + gap, position + gap + size)
                from_sender[receiver, rows] = sender
                from_row[receiver, rows] = io[sender, entry] + np.arange(size)
                position += gap + size
            ss[sender, entry] = size
            rs[receiver, sender * k + update] = size

    taken = from_sender >= 0
    gathered = inputs[np.where(taken, from_sender, 0), from_row] if in_rows else outputs
    mask = taken.reshape(taken.shape + (1,) * len(row))
    expected = np.where(mask, gathered, outputs).astype(outputs.dtype)

    lines = [f"HloModule ragged, replica_count={n}", "", "ENTRY e {"]
    lines.append(constant_line("inputs", inputs, data_type))
    lines.append(constant_line("outputs", outputs, data_type))
    for name, table in (("io", io), ("ss", ss), ("oo", oo), ("rs", rs)):
        lines.append(constant_line(f"{name}_all", table, meta_type))
    lines.append("  id = u32[] replica-id()")
    lines.append("  zero = u32[] constant(0)")
    _pick("input", "inputs", data_type, [in_rows, *row], lines)
    _pick("output", "outputs", data_type, [out_rows, *row], lines)
    for name in ("io", "ss", "oo", "rs"):
        _pick(name, f"{name}_all", meta_type, [n * k], lines)
    result = shape_text(data_type, [out_rows, *row])
    lines.append(f"  r = {result} ragged-all-to-all(input, output, io, ss, oo, rs), "
                 "replica_groups={}")
    lines.append(f"  r1 = {shape_text(data_type, [1, out_rows, *row])} reshape(r)")
    lines.append(f"  ROOT all = {shape_text(data_type, [n, out_rows, *row])} all-gather(r1), "
                 "dimensions={0}, replica_groups={}")
    lines.append("}")
    return Case(hlo="\n".join(lines), expected=[(data_type, expected)], tolerance=0.0)


GENERATORS = {"ragged-all-to-all": gen_ragged_all_to_all}

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0

"""Writes old-schema.pbtxt's module as a binary HloModuleProto.

The wire format is written by hand (no protobuf package needed), with the
field numbers of the XLA schema of about 2021 that old-schema.pbtxt uses.

  old_schema_pb.py OUT.pb            the module of old-schema.pbtxt
  old_schema_pb.py --sparse OUT.pb   the same, x's layout SPARSE
  old_schema_pb.py --newer OUT.pb    the same, plus fields hopt's schema does
                                     not declare: LayoutProto field 99 in
                                     neg's shape, HloInstructionProto field
                                     200 on neg, HloModuleProto field 300
"""

import sys

VARINT, LENGTH = 0, 2
F32, S32 = 11, 4
DENSE, SPARSE = 1, 2


def varint(value):
    value &= (1 << 64) - 1  # negative int64s take ten bytes
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number, wire_type):
    return varint((number << 3) | wire_type)


def int_field(number, value):
    return tag(number, VARINT) + varint(value)


def bytes_field(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(number, LENGTH) + varint(len(payload)) + payload


def layout(minor_to_major, fmt=DENSE, max_sparse_elements=0, extra=b""):
    out = b"".join(int_field(1, d) for d in minor_to_major)  # minor_to_major
    out += int_field(4, fmt)  # format (legacy)
    if max_sparse_elements:
        out += int_field(5, max_sparse_elements)  # max_sparse_elements (legacy)
    return out + extra


def shape(element_type, dimensions, **layout_args):
    out = int_field(2, element_type)  # element_type
    out += b"".join(int_field(3, d) for d in dimensions)  # dimensions
    return out + bytes_field(5, layout(list(range(len(dimensions))), **layout_args))


def program_shape(names):
    out = bytes_field(1, shape(F32, [4]))  # parameters
    out += bytes_field(1, shape(S32, []))
    out += bytes_field(2, shape(F32, [4]))  # result
    return out + b"".join(bytes_field(3, n) for n in names)  # parameter_names


def instruction(name, opcode, id_, shape_bytes, rest=b""):
    return (bytes_field(1, name) + bytes_field(2, opcode) + bytes_field(3, shape_bytes) +
            int_field(35, id_) + rest)


def module(sparse, newer):
    x = instruction("x", "parameter", 1,
                    shape(F32, [4], fmt=SPARSE if sparse else DENSE, max_sparse_elements=16),
                    int_field(9, 0) +  # parameter_number
                    bytes_field(7, bytes_field(2, "jit(f)/x") +  # metadata.op_name
                                int_field(6, -1)))  # metadata.creation_pass_id (legacy)
    size = instruction("size", "parameter", 2, shape(S32, []), int_field(9, 1))
    neg_layout_extra = int_field(99, 7) if newer else b""
    neg = instruction("neg", "negate", 3, shape(F32, [4], extra=neg_layout_extra),
                      int_field(36, 1) +  # operand_ids
                      int_field(64, 2) +  # outer_dimension_partitions (legacy)
                      (int_field(200, 5) if newer else b""))
    computation = (bytes_field(1, "main") +
                   b"".join(bytes_field(2, i) for i in (x, size, neg)) +  # instructions
                   bytes_field(4, program_shape(["x", "size"])) +
                   int_field(5, 1) + int_field(6, 3))  # id, root_id
    binding = bytes_field(1, int_field(1, 1) + int_field(3, 0) + int_field(5, 0))  # entries
    out = (bytes_field(1, "old_schema") + bytes_field(2, "main") +
           bytes_field(3, computation) +  # computations
           bytes_field(4, program_shape(["x", "size"])) +  # host_program_shape
           int_field(6, 1) +  # entry_computation_id
           bytes_field(9, binding))  # dynamic_parameter_binding (legacy)
    if newer:
        out += int_field(300, 1)
    return out


def main(argv):
    flags = [a for a in argv[1:] if a.startswith("--")]
    paths = [a for a in argv[1:] if not a.startswith("--")]
    if len(paths) != 1 or not set(flags) <= {"--sparse", "--newer"}:
        sys.exit(__doc__)
    with open(paths[0], "wb") as out:
        out.write(module("--sparse" in flags, "--newer" in flags))


if __name__ == "__main__":
    main(sys.argv)

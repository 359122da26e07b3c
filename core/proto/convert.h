// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_CONVERT_H_
#define HOPT_CORE_PROTO_CONVERT_H_

// Conversion between hopt's IR and XLA's HloModuleProto (core/proto/
// hlo.proto). The structure (computations, instructions, operands, control
// edges, called computations, shapes, literals, the module header) is
// converted here; the other instruction attributes by the codec in
// core/proto/attributes.h.
//
// Ids: XLA names instructions and computations by id in the proto and by
// name in the text. Reading maps ids to the names the proto carries;
// writing numbers instructions and computations afresh (0, 1, ... in the
// order they are written), so ids do not survive a proto -> IR -> proto
// trip, everything else does.
//
// What the text form can say and the proto cannot travels in hopt's own
// fields (numbers 10001 and up, which XLA skips): HloInstructionProto.
// hopt_text_attributes, HloModuleProto.hopt_header_attributes,
// LayoutProto.hopt_layout_tail. Proto content the IR does not model goes
// into a ProtoSideTable (side_table.h) when the caller passes one, and is
// written back from it; without one it is dropped.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/side_table.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"

namespace hopt {

// Consumes `proto` (its unmodelled parts are moved into `side`, which is
// cleared first, and tied to the module on success; what could not be kept
// is listed in side->dropped_fields(), legacy_fields.h). A legacy field
// hopt cannot read (a SPARSE layout) is an error naming where it is. Errors (dangling or
// colliding ids, cycles, a missing entry, an unknown opcode, a malformed
// shape or literal) name the computation and the instruction.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(xla::HloModuleProto* proto,
                                                           ProtoSideTable* side = nullptr);

// A computation still in wire form: its fields but the instructions, and
// each instruction as a serialized HloInstructionProto. Reading a large
// dump this way parses one instruction at a time into a reused message
// instead of materialising hundreds of thousands of messages (see
// wire.h).
struct EncodedComputation {
  xla::HloComputationProto fields;  // `instructions` unused
  std::vector<absl::string_view> instructions;
};
// The same as ModuleFromProto for a module whose `computations` field is
// given as `computations` (the field itself is ignored; the computations'
// fields lose their legacy fields as they are read). A payload that is
// not an HloInstructionProto is an error naming its computation and index.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromEncodedProto(
    xla::HloModuleProto* fields, std::vector<EncodedComputation>* computations,
    ProtoSideTable* side = nullptr);
// `side`: what the module was read with (ModuleFromProto), put back; a
// non-empty table read with another module is an error.
// HloModuleProto.stack_frame_index from the module's tables (nothing when
// they are empty).
void StackFramesToProto(const StackFrameIndex& index, xla::HloModuleProto* proto);

absl::Status ModuleToProto(const HloModule& module, xla::HloModuleProto* proto,
                           const ProtoSideTable* side = nullptr);
// The serialized HloModuleProto as `pieces` to concatenate, byte for byte
// what serializing ModuleToProto's message deterministically gives, but
// written one instruction at a time (a fraction of the time and memory for
// a large module).
absl::Status ModuleToEncodedProto(const HloModule& module, std::vector<std::string>* pieces,
                                  const ProtoSideTable* side = nullptr);

absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto);
void ShapeToProto(const Shape& shape, xla::ShapeProto* proto);

// A constant's value. `shape` is the instruction's shape (the literal's own
// shape field is not needed to read it); the element order in the proto is
// the layout's physical order, as XLA writes it.
absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto, const Shape& shape);
absl::Status LiteralToProto(const Literal& literal, xla::LiteralProto* proto);

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_CONVERT_H_

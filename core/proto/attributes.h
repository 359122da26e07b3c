// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_ATTRIBUTES_H_
#define HOPT_CORE_PROTO_ATTRIBUTES_H_

// The per-instruction attribute codec between hopt's text attributes and the
// typed fields of xla::HloInstructionProto. The structure (names, operands,
// shapes, computation references, control predecessors, parameter numbers,
// constant literals) is proto_convert's business; this codec handles every
// other attribute.
//
// Guarantee: text -> proto -> text is byte-identical. An attribute gets a typed
// field only when formatting that field back reproduces the attribute's text
// exactly; anything else (no typed field, a spelling XLA would not print, a
// text the codec cannot read) goes verbatim into hopt_text_attributes. When
// the attributes are not in the order XLA prints them, the order is recorded
// in a hopt_text_attributes entry named kAttributeOrderEntry.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/proto/hlo.pb.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/opcode.h"

namespace hopt {

// Name of the hopt_text_attributes entry that records the attribute order
// (comma-separated names) when it is not XLA's. The '.' keeps it apart from
// every attribute name the text form can spell.
inline constexpr char kAttributeOrderEntry[] = "hopt.order";

// Typed xla::HloInstructionProto fields from the instruction's text
// attributes; an attribute with no typed field (or whose text the codec cannot
// read) goes verbatim into proto->hopt_text_attributes (name, value), so
// nothing is lost.
absl::Status AttributesToProto(const HloInstruction& instruction, xla::HloInstructionProto* proto);

// The reverse: every typed field that is set, plus hopt_text_attributes, as
// (name, canonical value text) pairs in the order hopt's printer prints them,
// such that text -> proto -> text is byte-identical.
absl::Status AttributesFromProto(const xla::HloInstructionProto& proto, HloOpcode opcode,
                                 std::vector<std::pair<std::string, std::string>>* attributes);

// Whether the codec leaves this attribute to the structure converter
// (computation references, control-predecessors).
bool IsStructuralAttribute(absl::string_view name);

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_ATTRIBUTES_H_

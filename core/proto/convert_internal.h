// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_CONVERT_INTERNAL_H_
#define HOPT_CORE_PROTO_CONVERT_INTERNAL_H_

// Shared between the writer (convert.cc) and the reader
// (import.cc): the converter's own hopt_text_attributes entries and
// the mapping between called_computation_ids and computation attributes.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/opcode.h"

namespace hopt {
namespace proto_convert_internal {

// hopt_text_attributes entries of the converter's own (the codec keeps to
// names without a '.'): the constant's text when the typed literal would not
// print it back the same way, and the computation attributes when they are
// not the ones XLA's printer would choose for the opcode.
inline constexpr absl::string_view kLiteralEntry = "hopt.literal";
inline constexpr absl::string_view kCallsEntry = "hopt.calls";
// The order of all attributes, when placing the computation references and
// control predecessors where XLA prints them would not restore it.
inline constexpr absl::string_view kAttributeOrder = "hopt.attributes";

// One computation-reference attribute: its name, whether it is a list, and
// how many computations it holds.
struct CallAttribute {
  std::string name;
  bool list = false;
  int count = 1;
  bool operator==(const CallAttribute& o) const {
    return name == o.name && list == o.list && count == o.count;
  }
};

// The attributes XLA's printer uses for `count` called computations.
std::vector<CallAttribute> DefaultCalls(HloOpcode opcode, int count, bool pred_selector);
// `name,name{count},...` and back; parsing fails on a name that is not a
// computation-reference attribute.
std::string FormatCalls(const std::vector<CallAttribute>& calls);
bool ParseCalls(absl::string_view text, std::vector<CallAttribute>* calls);
// Positions, in XLA's called_computation_ids order, of the computations
// of `calls` taken in attribute order.
std::vector<int> XlaCallOrder(const std::vector<CallAttribute>& calls);
// Whether a conditional selects its branch with a pred (true/false
// computations) rather than an index.
bool PredSelector(const HloInstruction& instruction);

}  // namespace proto_convert_internal
}  // namespace hopt

#endif  // HOPT_CORE_PROTO_CONVERT_INTERNAL_H_

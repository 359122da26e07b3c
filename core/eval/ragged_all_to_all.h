// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_RAGGED_ALL_TO_ALL_H_
#define HOPT_CORE_EVAL_RAGGED_ALL_TO_ALL_H_

// XLA's ragged-all-to-all as an array function over what the members of a
// group hold, internal to the interpreter (not installed): the device
// evaluator exchanges the operands (device_communication.cc), this makes one
// member's result (docs/interpreter-semantics.md, "ragged-all-to-all").

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/literal.h"

namespace hopt {
namespace eval {

// One member's operands, in XLA's operand order.
struct RaggedAllToAllOperands {
  const Literal* input = nullptr;
  const Literal* output = nullptr;
  const Literal* input_offsets = nullptr;
  const Literal* send_sizes = nullptr;
  const Literal* output_offsets = nullptr;
  const Literal* recv_sizes = nullptr;
};

// The result of the member at position `me` of `group` (every member's
// operands, in group order; `devices` names them in errors). With n
// members and the metadata operands of n * k entries, entry j * k + u of a
// sender's metadata describes its update u to member j: rows
// [input_offsets, input_offsets + send_sizes) of its input land at rows
// [output_offsets, ...) of member j's output, and member j's recv_sizes
// entry (sender * k + u) must say the same size. The result starts as
// `me`'s output; updates are written sender by sender in group order, then
// by update, so a later one wins where two overlap. Out-of-range or
// inconsistent offsets and sizes are errors prefixed with `name`.
absl::StatusOr<Literal> RaggedAllToAll(absl::string_view name,
                                       absl::Span<const RaggedAllToAllOperands> group,
                                       absl::Span<const int64_t> devices, int64_t me);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_RAGGED_ALL_TO_ALL_H_

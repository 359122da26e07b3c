// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_FORWARDING_H_
#define HOPT_CORE_EVAL_FORWARDING_H_

// Data movement, known without running it. A custom-call registered as
// forwarding (PluginRegistrar::AddForwardingCustomCall) runs by copying
// the operand parts it names; the same description lets a region check
// follow every array of a value back to where it was made: through
// tuple, get-tuple-element, copy, opt-barrier, domain and the forwarding
// custom-calls. When both sides of a region give an output the same
// arrays of the same inputs, the two sides are equal for every input on
// every device, and the output need not be run (docs/hlo-run.md, "Data
// movement").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"

namespace hopt {
namespace eval {

// The part of `shape` at `index` (empty: all of it); null when the index
// does not lead into it.
const Shape* SubshapeAt(const Shape& shape, absl::Span<const int64_t> index);

// `forwarding`'s description of `call`, checked: each source exists and
// has its part's shape (layouts aside), and the parts cover the result
// exactly once. Errors name the call.
absl::StatusOr<std::vector<ForwardedValue>> CheckedForwarding(
    const CustomCallForwarding& forwarding, const HloInstruction& call);

// The call's result, made of copies of the operand parts `parts` names.
absl::StatusOr<Literal> ForwardOperands(const HloInstruction& call,
                                        const std::vector<ForwardedValue>& parts,
                                        absl::Span<const Literal* const> operands);

// Where one array of a value comes from: array `index` of `value`, an
// instruction outside the region followed. A token holds nothing: every
// token is the same (`value` null).
struct ArraySource {
  const HloInstruction* value = nullptr;
  std::vector<int64_t> index;
  bool operator==(const ArraySource& other) const {
    return value == other.value && index == other.index;
  }
};

// The arrays of a value, depth-first (a non-tuple value is one array);
// nullopt where an array is computed, not moved.
using ArraySources = std::vector<std::optional<ArraySource>>;

// Follows the instructions of `region` back to the values outside it (the
// region's inputs), through data movement only.
class ForwardingAnalysis {
 public:
  ForwardingAnalysis(const absl::flat_hash_set<const HloInstruction*>& region,
                     const CustomCallTable* custom_calls)
      : region_(region), custom_calls_(custom_calls) {}

  // The sources of `value`'s arrays. A value outside the region is its
  // own source.
  const ArraySources& SourcesOf(const HloInstruction* value);

 private:
  ArraySources Follow(const HloInstruction* value);

  const absl::flat_hash_set<const HloInstruction*>& region_;
  const CustomCallTable* custom_calls_;
  absl::flat_hash_map<const HloInstruction*, ArraySources> sources_;
};

// The arrays of `shape`, depth-first, by index.
std::vector<std::vector<int64_t>> ArrayIndexes(const Shape& shape);

// "%w.0" or "%w.0 {1, 0}" for a source, "a token" for none.
std::string DescribeSource(const ArraySource& source);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_FORWARDING_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_EVAL_CUSTOM_CALL_TABLE_H_
#define HOPT_EVAL_CUSTOM_CALL_TABLE_H_

// What custom-calls compute, for the interpreter: filled by the plugins
// that create the targets (through their PluginRegistrar) into a table the
// tool owns, and handed to the interpreter in EvalOptions. There is no
// process-wide table: two tools (or two tests) in one process see only
// what they registered.
//
// A call is looked up by its target name first; then the matchers are
// asked in registration order. A matcher serves targets whose name is not
// known when the plugin registers, e.g. a pass option that names the
// target it emits (docs/writing-a-plugin.md, "Interpreter semantics").

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

struct DeviceId {
  int64_t replica = 0;
  int64_t partition = 0;
};

// What a custom-call computes on one device.
using CustomCallSemantics = std::function<absl::StatusOr<Literal>(
    const HloInstruction& call, absl::Span<const Literal* const> operands, DeviceId device)>;
// A custom-call that stands for a collective: reads the call (its
// backend_config, say) and says which collective it is on `mesh`; the
// interpreter then runs it exactly as it runs the native op, rendezvous
// included.
using CollectiveCustomCallDescriber = std::function<absl::StatusOr<CollectiveDescription>(
    const HloInstruction& call, const Mesh& mesh)>;
// Whether a matcher's semantics apply to `call` (a custom-call).
using CustomCallMatcher = std::function<bool(const HloInstruction& call)>;

// A custom-call that only moves data (a marker returning its operand, or
// the tuple of its operands): part `result_index` of its result is part
// `operand_index` of operand `operand`, unchanged. An empty index is the
// whole value; {1, 0} is element 0 of tuple element 1.
struct ForwardedValue {
  std::vector<int64_t> result_index;
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
};
// Where the parts of `call`'s result come from; together they must cover
// the result exactly once, each with the shape of its source (layouts
// aside). An error when the call's form is not one the plugin forwards.
using CustomCallForwarding =
    std::function<absl::StatusOr<std::vector<ForwardedValue>>(const HloInstruction& call)>;

class CustomCallTable {
 public:
  // A later registration of the same target replaces the earlier one.
  void Register(absl::string_view target, CustomCallSemantics semantics);
  void RegisterCollective(absl::string_view target, CollectiveCustomCallDescriber describe);
  void RegisterCollectiveMatcher(CustomCallMatcher matches, CollectiveCustomCallDescriber describe);
  void RegisterMatcher(CustomCallMatcher matches, CustomCallSemantics semantics);
  // Semantics that forward operands as `forwarding` says. The interpreter
  // runs them like any other; a region check (-verify-equivalence=region)
  // also reads them, and shows data movement equal without running it.
  void RegisterForwarding(absl::string_view target, CustomCallForwarding forwarding);

  // The semantics that apply to `call`; at most one of the two is set.
  struct Found {
    const CustomCallSemantics* semantics = nullptr;
    const CollectiveCustomCallDescriber* collective = nullptr;
    bool any() const { return semantics != nullptr || collective != nullptr; }
  };
  Found Find(const HloInstruction& call) const;
  bool Handles(const HloInstruction& call) const { return Find(call).any(); }
  // The forwarding registered for `call`'s target; null when its semantics
  // are anything else (or there are none).
  const CustomCallForwarding* FindForwarding(const HloInstruction& call) const;
  bool empty() const;

 private:
  std::map<std::string, CustomCallSemantics, std::less<>> plain_;
  std::map<std::string, CollectiveCustomCallDescriber, std::less<>> collective_;
  std::vector<std::pair<CustomCallMatcher, CustomCallSemantics>> plain_matchers_;
  std::vector<std::pair<CustomCallMatcher, CollectiveCustomCallDescriber>> collective_matchers_;
};

// What `table` (may be null: no semantics) says of `call` on `mesh`;
// nullopt when no collective semantics apply.
absl::StatusOr<std::optional<CollectiveDescription>> DescribeCollectiveCustomCall(
    const HloInstruction& call, const Mesh& mesh, const CustomCallTable* table);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_EVAL_CUSTOM_CALL_TABLE_H_

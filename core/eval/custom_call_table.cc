// SPDX-License-Identifier: Apache-2.0

#include "hopt/eval/custom_call_table.h"

#include <utility>

#include "core/eval/forwarding.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

// The semantics of a forwarding target: the table keeps it as any other
// CustomCallSemantics, and FindForwarding recognises it by its type.
struct ForwardingSemantics {
  CustomCallForwarding forwarding;
  absl::StatusOr<Literal> operator()(const HloInstruction& call,
                                     absl::Span<const Literal* const> operands, DeviceId) const {
    HOPT_ASSIGN_OR_RETURN(std::vector<ForwardedValue> parts, CheckedForwarding(forwarding, call));
    return ForwardOperands(call, parts, operands);
  }
};

}  // namespace

void CustomCallTable::Register(absl::string_view target, CustomCallSemantics semantics) {
  plain_[std::string(target)] = std::move(semantics);
}

void CustomCallTable::RegisterCollective(absl::string_view target,
                                         CollectiveCustomCallDescriber describe) {
  collective_[std::string(target)] = std::move(describe);
}

void CustomCallTable::RegisterCollectiveMatcher(CustomCallMatcher matches,
                                                CollectiveCustomCallDescriber describe) {
  collective_matchers_.emplace_back(std::move(matches), std::move(describe));
}

void CustomCallTable::RegisterMatcher(CustomCallMatcher matches, CustomCallSemantics semantics) {
  plain_matchers_.emplace_back(std::move(matches), std::move(semantics));
}

void CustomCallTable::RegisterForwarding(absl::string_view target,
                                         CustomCallForwarding forwarding) {
  plain_[std::string(target)] = ForwardingSemantics{std::move(forwarding)};
}

const CustomCallForwarding* CustomCallTable::FindForwarding(const HloInstruction& call) const {
  const CustomCallSemantics* semantics = Find(call).semantics;
  if (semantics == nullptr) return nullptr;
  const auto* forwarding = semantics->target<ForwardingSemantics>();
  return forwarding == nullptr ? nullptr : &forwarding->forwarding;
}

CustomCallTable::Found CustomCallTable::Find(const HloInstruction& call) const {
  Found found;
  std::string target = call.custom_call_target();
  if (auto it = collective_.find(target); it != collective_.end()) {
    found.collective = &it->second;
    return found;
  }
  if (auto it = plain_.find(target); it != plain_.end()) {
    found.semantics = &it->second;
    return found;
  }
  for (const auto& [matches, describe] : collective_matchers_)
    if (matches(call)) {
      found.collective = &describe;
      return found;
    }
  for (const auto& [matches, semantics] : plain_matchers_)
    if (matches(call)) {
      found.semantics = &semantics;
      return found;
    }
  return found;
}

bool CustomCallTable::empty() const {
  return plain_.empty() && collective_.empty() && plain_matchers_.empty() &&
         collective_matchers_.empty();
}

absl::StatusOr<std::optional<CollectiveDescription>> DescribeCollectiveCustomCall(
    const HloInstruction& call, const Mesh& mesh, const CustomCallTable* table) {
  if (table == nullptr) return std::optional<CollectiveDescription>();
  CustomCallTable::Found found = table->Find(call);
  if (found.collective == nullptr) return std::optional<CollectiveDescription>();
  HOPT_ASSIGN_OR_RETURN(CollectiveDescription description, (*found.collective)(call, mesh));
  return std::optional<CollectiveDescription>(std::move(description));
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// convert-custom-call-to-collectives
//
// The inverse of convert-collectives-to-custom-call, for every computation:
// a custom-call whose target follows the naming contract becomes the native
// collective again, with the name, operands, shape and other attributes it
// had, and the collective attributes read back from its backend_config.
// Booleans are written only when true and an empty group list as
// replica_groups={}, as XLA prints them; the iota form and the collective's
// own backend_config come back from the keys the forward pass added.
//
// A call whose name does not match what it carries (the dtype suffix vs. its
// shape, the reduce-op infix vs. its to_apply) or whose backend_config is
// malformed is an error: converting it would change what the module means.
// docs/plugins/collectives.md describes the contract and the round trip.

#include "collectives/convert_custom_call_to_collectives.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;

// Attributes of the custom-call that do not carry over to the collective.
bool IsCustomCallAttribute(absl::string_view name) {
  static const auto* names = new absl::flat_hash_set<absl::string_view>{
      "custom_call_target", "backend_config",      "to_apply",
      "api_version",        "called_computations", "custom_call_has_side_effect"};
  return names->contains(name);
}

absl::Status Mismatch(const HloInstruction& call, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("custom-call ", call.name(), " (", call.custom_call_target(), "): ", what));
}

absl::Status Revert(HloInstruction* call, const CollectiveTarget& target) {
  auto config = ParseCollectiveConfig(call->backend_config());
  if (!config.ok()) return Mismatch(*call, config.status().message());
  // The name must still describe the call: rebuild it from a collective
  // with the call's shape and reduction and compare.
  hopt::HloComputation* computation = call->parent();
  std::vector<HloInstruction*> operands(call->operands().begin(), call->operands().end());
  HloInstruction* collective =
      computation->AddInstructionInPlaceOf(call, target.opcode, call->shape(), operands);
  bool reduces = target.opcode != HloOpcode::kAllGather;
  if (reduces) {
    if (call->to_apply() == nullptr) {
      (void)computation->RemoveInstruction(collective);
      return Mismatch(*call, "a reducing collective needs its reduction as to_apply");
    }
    collective->SetComputationAttribute("to_apply", call->to_apply());
  }
  std::string rebuilt = CollectiveTargetName(*collective);
  if (rebuilt != call->custom_call_target()) {
    (void)computation->RemoveInstruction(collective);
    return Mismatch(*call, absl::StrCat("its shape and reduction make it ", rebuilt,
                                        "; the name no longer describes the call"));
  }
  if (target.opcode != HloOpcode::kAllReduce && !config->dimension) {
    (void)computation->RemoveInstruction(collective);
    return Mismatch(*call, "backend_config: \"dimension\" is missing");
  }

  if (config->channel_id) collective->set_channel_id(config->channel_id);
  collective->SetAttributeText(
      "replica_groups",
      config->iota_replica_groups
          ? *config->iota_replica_groups
          : hopt::ReplicaGroupList::FromGroups(config->replica_groups).ToString());
  if (config->constrain_layout) collective->SetAttributeText("constrain_layout", "true");
  if (config->dimension) collective->set_dimensions({*config->dimension});
  if (config->use_global_device_ids) collective->SetAttributeText("use_global_device_ids", "true");
  for (const hopt::HloAttribute& attr : call->attributes()) {
    if (IsCustomCallAttribute(attr.name) || attr.kind == hopt::HloAttribute::Kind::kInstructionList)
      continue;
    if (attr.kind == hopt::HloAttribute::Kind::kText)
      collective->SetAttributeText(attr.name, attr.value);
    else
      collective->AddAttribute(attr);
  }
  if (config->original_backend_config)
    collective->SetAttributeText("backend_config", *config->original_backend_config);
  computation->RelayControlDependencies(call, collective);
  HOPT_RETURN_IF_ERROR(call->ReplaceAllUsesWith(collective));
  return computation->RemoveInstruction(call);
}

}  // namespace

absl::StatusOr<bool> ConvertCustomCallToCollectives::Run(hopt::HloModule& module) {
  // Only pointers are kept during the walk: the targets are parsed again
  // when rewriting, cheaper than moving their strings around.
  std::vector<HloInstruction*> matches;
  for (hopt::HloComputation* computation : module.MakeComputationPostOrder())
    for (HloInstruction* instruction :
         computation->InstructionsWithOpcodeInPostOrder({HloOpcode::kCustomCall}))
      if (ParseCollectiveTargetName(instruction->custom_call_target()))
        matches.push_back(instruction);
  for (HloInstruction* call : matches) {
    HOPT_RETURN_IF_ERROR(Revert(call, *ParseCollectiveTargetName(call->custom_call_target())));
  }
  return !matches.empty();
}

}  // namespace neuron

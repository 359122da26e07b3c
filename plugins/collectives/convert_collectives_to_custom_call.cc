// SPDX-License-Identifier: Apache-2.0
// convert-collectives-to-custom-call
//
// The Neuron runtime launches collectives as named custom-calls. As in the
// reference compiler, all-reduce, reduce-scatter and all-gather of the
// entry computation become custom-calls; all-to-all, collective-permute and
// everything else are left alone, as are collectives in other computations.
// Each custom-call
// - is named by the contract (neuron_collective_targets.h), e.g.
//   AwsNeuronAllReduceAdd_bf16, AwsNeuronAllGather_f16,
//   AwsNeuronReduceScatterUNKNOWNOP_UNKNOWNDTYPE;
// - keeps the operands, the shape, the name and every attribute that is not
//   the collective's own (metadata, frontend_attributes, sharding, control
//   edges);
// - carries replica groups, channel_id, dimension and flags as JSON in its
//   backend_config, and the reduction computation as its to_apply, so the
//   call still says what it computes (an UNKNOWNOP reduction included).
// Matches are collected in one post-order walk and rewritten after it.
// docs/plugins/collectives.md describes the contract and the round trip.

#include "collectives/convert_collectives_to_custom_call.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;

// The attributes the backend_config and to_apply take over.
bool IsCollectiveAttribute(absl::string_view name) {
  static const auto* names = new absl::flat_hash_set<absl::string_view>{
      "replica_groups",   "channel_id",     "dimensions", "use_global_device_ids",
      "constrain_layout", "backend_config", "to_apply"};
  return names->contains(name);
}

absl::Status Convert(HloInstruction* collective) {
  hopt::HloComputation* computation = collective->parent();
  std::string target = CollectiveTargetName(*collective);
  std::string config = FormatCollectiveConfig(CollectiveConfigOf(*collective));
  std::vector<HloInstruction*> operands(collective->operands().begin(),
                                        collective->operands().end());
  // The call takes the collective's name and place, so the inverse gives
  // them back.
  HloInstruction* call = computation->AddInstructionInPlaceOf(collective, HloOpcode::kCustomCall,
                                                              collective->shape(), operands);
  call->set_custom_call_target(target);
  if (collective->to_apply() != nullptr)
    call->SetComputationAttribute("to_apply", collective->to_apply());
  for (const hopt::HloAttribute& attr : collective->attributes()) {
    if (IsCollectiveAttribute(attr.name) || attr.kind == hopt::HloAttribute::Kind::kInstructionList)
      continue;
    if (attr.kind == hopt::HloAttribute::Kind::kText) {
      call->SetAttributeText(attr.name, attr.value);
    } else {
      call->AddAttribute(attr);
    }
  }
  call->set_backend_config(config, /*raw=*/true);
  computation->RelayControlDependencies(collective, call);
  HOPT_DEBUG("convert-collectives-to-custom-call",
             dbgs << hopt::AsRef(collective->name()) << " -> " << target << "\n");
  HOPT_RETURN_IF_ERROR(collective->ReplaceAllUsesWith(call));
  return computation->RemoveInstruction(collective);
}

}  // namespace

absl::StatusOr<bool> ConvertCollectivesToCustomCall::Run(hopt::HloModule& module) {
  hopt::HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return false;
  std::vector<HloInstruction*> matches = entry->InstructionsWithOpcodeInPostOrder(
      {HloOpcode::kAllReduce, HloOpcode::kReduceScatter, HloOpcode::kAllGather});
  for (HloInstruction* collective : matches) {
    HOPT_RETURN_IF_ERROR(Convert(collective));
  }
  return !matches.empty();
}

}  // namespace neuron

// What the plugin's custom-calls compute, for the interpreter: each is the
// collective it stands for, run by the interpreter's own collective code.

#include "plugins/collectives/collective_semantics.h"

#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/ir/attributes.h"
#include "core/ir/collective_modes.h"
#include "plugins/collectives/neuron_collective_targets.h"

namespace neuron {
namespace {

using hopt::eval::CollectiveDescription;
using hopt::eval::Mesh;

absl::StatusOr<CollectiveDescription> DescribeNeuronCollective(const hopt::HloInstruction& call,
                                                               const Mesh&) {
  auto target = ParseCollectiveTargetName(call.custom_call_target());
  if (!target) return absl::InvalidArgumentError("not a collective target of the naming contract");
  auto config = ParseCollectiveConfig(call.backend_config());
  if (!config.ok()) return config.status();
  CollectiveDescription description;
  description.kind = target->opcode;
  description.mode =
      hopt::GetGroupMode(target->opcode, config->channel_id.has_value(),
                         config->use_global_device_ids);
  description.replica_groups = config->replica_groups;
  description.dimension = config->dimension.value_or(-1);
  description.reduction = call.to_apply();
  if (target->opcode != hopt::HloOpcode::kAllGather && description.reduction == nullptr)
    return absl::InvalidArgumentError("a reducing collective needs its reduction as to_apply");
  return description;
}

// A fused send/recv: ids in `_xla_send_recv_source_target_pairs` are
// partition ids on a mesh with partitions, replica ids otherwise (as for the
// send/recv it replaced).
absl::StatusOr<CollectiveDescription> DescribeSendRecv(const hopt::HloInstruction& call,
                                                       const Mesh& mesh) {
  CollectiveDescription description;
  description.kind = hopt::HloOpcode::kCollectivePermute;
  description.mode = mesh.partitions > 1 ? hopt::GroupMode::kCrossPartition
                                         : hopt::GroupMode::kCrossReplica;
  description.point_to_point = true;
  for (const auto& [key, value] : call.frontend_attributes()) {
    if (key != "_xla_send_recv_source_target_pairs") continue;
    auto pairs = hopt::ParseSourceTargetPairs(value);
    if (!pairs.ok())
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed _xla_send_recv_source_target_pairs: ", pairs.status().message()));
    description.source_target_pairs = *std::move(pairs);
  }
  if (call.operand_count() != 1) return absl::InvalidArgumentError("needs one operand (the data)");
  return description;
}

}  // namespace

void RegisterNeuronCollectiveSemantics() {
  for (const std::string& target : AllCollectiveTargetNames())
    hopt::eval::RegisterCollectiveCustomCall(target, DescribeNeuronCollective);
}

void RegisterSendRecvSemantics(const std::string& target) {
  hopt::eval::RegisterCollectiveCustomCall(target, DescribeSendRecv);
}

}  // namespace neuron

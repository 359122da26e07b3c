// SPDX-License-Identifier: Apache-2.0
// What the plugin's custom-calls compute, for the interpreter: each is the
// collective it stands for, run by the interpreter's own collective code.
// A collective target is read from its NAME (the contract of
// neuron_collective_targets.h): the kind, the reduction and the element
// type it says are the ones that run, and a call whose to_apply or shapes
// disagree with its name is an error (docs/hlo-run.md, "Collective
// custom-calls").

#include "collectives/collective_semantics.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::eval::CollectiveDescription;
using hopt::eval::Mesh;

// The elementwise op a reduce-op infix names; nullopt for UNKNOWNOP (and
// all-gather's empty infix).
std::optional<hopt::HloOpcode> ReduceOpcode(absl::string_view infix) {
  if (infix == "Add") return hopt::HloOpcode::kAdd;
  if (infix == "Max") return hopt::HloOpcode::kMaximum;
  if (infix == "Min") return hopt::HloOpcode::kMinimum;
  return std::nullopt;
}

// Every array in `shape` (the result or an operand) of element type
// `dtype`; UNKNOWNDTYPE takes any shape, tuples and other types included.
absl::Status CheckDType(const hopt::Shape& shape, absl::string_view dtype, absl::string_view what) {
  if (dtype == "UNKNOWNDTYPE") return absl::OkStatus();
  if (!shape.IsArray() || hopt::PrimitiveTypeString(shape.element_type()) != dtype)
    return absl::InvalidArgumentError(
        absl::StrCat("the target name says element type ", dtype, ", but ", what, " is ",
                     shape.ToString(false), " (a tuple or another type needs _UNKNOWNDTYPE)"));
  return absl::OkStatus();
}

absl::StatusOr<CollectiveDescription> DescribeNeuronCollective(const hopt::HloInstruction& call,
                                                               const Mesh&) {
  auto target = ParseCollectiveTargetName(call.custom_call_target());
  if (!target) return absl::InvalidArgumentError("not a collective target of the naming contract");
  HOPT_ASSIGN_OR_RETURN(auto config, ParseCollectiveConfig(call.backend_config()));
  std::optional<hopt::HloOpcode> reduce_opcode = ReduceOpcode(target->reduce_op);
  if (reduce_opcode) {
    const hopt::HloComputation* to_apply = call.to_apply();
    const hopt::HloInstruction* root = to_apply != nullptr ? to_apply->root_instruction() : nullptr;
    if (root == nullptr || root->opcode() != *reduce_opcode)
      return absl::InvalidArgumentError(absl::StrCat(
          "the target name says ", target->reduce_op, " (", hopt::HloOpcodeString(*reduce_opcode),
          "), but to_apply ",
          root == nullptr ? std::string("is missing")
                          : absl::StrCat("computes ", hopt::HloOpcodeString(root->opcode()), " (%",
                                         to_apply->name(), ")")));
  }
  HOPT_RETURN_IF_ERROR(CheckDType(call.shape(), target->dtype, "the result"));
  for (int64_t k = 0; k < call.operand_count(); ++k)
    HOPT_RETURN_IF_ERROR(
        CheckDType(call.operand(k)->shape(), target->dtype, absl::StrCat("operand ", k)));
  CollectiveDescription description;
  description.kind = target->opcode;
  description.mode = hopt::GetGroupMode(target->opcode, config.channel_id.has_value(),
                                        config.use_global_device_ids);
  description.replica_groups = config.replica_groups;
  description.dimension = config.dimension.value_or(-1);
  description.reduction = call.to_apply();
  // The name's reduction runs; UNKNOWNOP runs to_apply, whatever it is.
  description.reduction_opcode = reduce_opcode;
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
  description.mode =
      mesh.partitions > 1 ? hopt::GroupMode::kCrossPartition : hopt::GroupMode::kCrossReplica;
  description.point_to_point = true;
  for (const auto& [key, value] : call.frontend_attributes()) {
    if (key != "_xla_send_recv_source_target_pairs") continue;
    auto pairs = hopt::ParseSourceTargetPairs(value);
    if (!pairs.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("malformed _xla_send_recv_source_target_pairs: ", pairs.status().message()));
    description.source_target_pairs = *std::move(pairs);
  }
  if (call.operand_count() != 1) return absl::InvalidArgumentError("needs one operand (the data)");
  return description;
}

}  // namespace

bool IsFusedSendRecv(const hopt::HloInstruction& call) {
  const hopt::Shape& shape = call.shape();
  if (call.operand_count() != 1 || !shape.IsTuple() || shape.tuple_shapes().size() != 2 ||
      !shape.tuple_shapes()[1].IsToken())
    return false;
  std::string config = call.backend_config();
  absl::string_view id = config;
  int64_t channel;
  return absl::ConsumePrefix(&id, "channel_id=") && absl::SimpleAtoi(id, &channel);
}

void AddNeuronCollectiveSemantics(hopt::PluginRegistrar& registrar) {
  for (const std::string& target : AllCollectiveTargetNames())
    registrar.AddCollectiveCustomCall(target, DescribeNeuronCollective);
}

void AddSendRecvSemantics(hopt::PluginRegistrar& registrar) {
  registrar.AddCollectiveCustomCallMatcher(IsFusedSendRecv, DescribeSendRecv);
}

}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0
// aws_neuron_decompose_int_all_reduce: the header says what and why;
// docs/plugins/decompose.md has the emitted graph and the cases left alone.

#include "decompose/decompose_int_all_reduce.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decompose/decompose_common.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;
using hopt::PrimitiveType;

#define DECOMPOSE_DEBUG(...) HOPT_DEBUG(DecomposeIntAllReduce::kName, __VA_ARGS__)

// Devices per group, or nullopt (with `why`) when the all-reduce is left
// alone. XLA's group modes decide, through ParticipantCount: the first
// group's size, times num_partitions in cross-replica-and-partition mode,
// and the mode's whole count from the module's mesh when the groups are
// empty (docs/plugins/decompose.md).
std::optional<int64_t> GroupSize(const HloInstruction& all_reduce, std::string* why) {
  const hopt::HloModule* module = all_reduce.GetModule();
  std::optional<hopt::ReplicaGroupList> groups = all_reduce.replica_groups();
  const bool empty = !groups.has_value() || groups->empty();
  if (empty && module->replica_count() == 1 && module->num_partitions() == 1) {
    *why = "empty replica_groups and no mesh in the header (replica_count=1, num_partitions=1)";
    return std::nullopt;
  }
  if (!empty && !groups->is_iota) {
    for (const std::vector<int64_t>& group : groups->groups) {
      if (group.size() != groups->groups[0].size()) {
        *why = "uneven replica groups";
        return std::nullopt;
      }
    }
  }
  int64_t size =
      hopt::ParticipantCount(all_reduce, module->replica_count(), module->num_partitions());
  if (size < 1) {
    *why = "a replica group is empty";
    return std::nullopt;
  }
  return size;
}

// Why a gated all-reduce is left alone, or nullopt when it is rewritten
// (then `group_size` is set).
std::optional<std::string> Refusal(const HloInstruction& all_reduce, int64_t* group_size) {
  const hopt::Shape& shape = all_reduce.shape();
  if (all_reduce.operand_count() != 1) return std::string("not exactly one operand");
  if (!shape.is_static() || !all_reduce.operand(0)->shape().is_static())
    return std::string("dynamic shape");
  if (!IsPlainBinaryReduction(all_reduce.to_apply(), HloOpcode::kAdd, shape.element_type()))
    return std::string("the reduction computation is not exactly add(p0, p1)");
  std::string why;
  std::optional<int64_t> size = GroupSize(all_reduce, &why);
  if (!size) return why;
  *group_size = *size;
  return std::nullopt;
}

}  // namespace

bool IsDecomposableIntAllReduce(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kAllReduce) return false;
  std::optional<HloOpcode> root = ReductionRootOpcode(instruction);
  if (!root || *root != HloOpcode::kAdd) return false;
  PrimitiveType type = instruction.shape().element_type();
  if (!hopt::IsIntegralType(type)) return false;
  if (TrueNumDimensions(instruction.shape()) != 0) return false;
  return type == PrimitiveType::S32 || type == PrimitiveType::U32;
}

absl::StatusOr<HloInstruction*> DecomposeIntAllReduceInstruction(HloInstruction* all_reduce) {
  int64_t group_size = 0;
  if (std::optional<std::string> why = Refusal(*all_reduce, &group_size)) {
    DECOMPOSE_DEBUG(dbgs << "left alone %" << hopt::AsRef(all_reduce->name()) << ": " << *why
                         << "\n");
    return nullptr;
  }
  std::vector<HloInstruction*> created;
  // Each builder's result is recorded so that metadata lands on all of them.
  auto keep = [&](absl::StatusOr<HloInstruction*> made) -> absl::StatusOr<HloInstruction*> {
    if (made.ok()) created.push_back(*made);
    return made;
  };

  // The value as a scalar, then as a [2] vector (broadcast: the reference's
  // scalar -> [2] reshape would not preserve the element count).
  HloInstruction* value = all_reduce->mutable_operand(0);
  if (value->shape().rank() != 0) {
    HOPT_ASSIGN_OR_RETURN(value, keep(hopt::MakeReshape(value, {})));
  }
  HOPT_ASSIGN_OR_RETURN(auto pair, keep(hopt::MakeBroadcast(value, {2}, {})));

  // Every device's pair, in group order.
  hopt::CollectiveOptions options;
  if (auto groups = all_reduce->replica_groups()) options.replica_groups = *groups;
  options.channel_id = all_reduce->channel_id();
  options.use_global_device_ids = all_reduce->use_global_device_ids();
  options.constrain_layout = all_reduce->constrain_layout();
  HOPT_ASSIGN_OR_RETURN(auto gathered,
                        keep(hopt::MakeAllGather(pair, /*dimension=*/0, group_size, options)));

  // The unrolled integer add chain over the G gathered pairs.
  const int64_t count = 2 * group_size;
  HOPT_ASSIGN_OR_RETURN(HloInstruction * sum, keep(hopt::MakeSlice(gathered, {0}, {2}, {1})));
  for (int64_t b = 2; b < count; b += 2) {
    HOPT_ASSIGN_OR_RETURN(auto next, keep(hopt::MakeSlice(gathered, {b}, {b + 2}, {1})));
    HOPT_ASSIGN_OR_RETURN(sum, keep(hopt::MakeBinary(HloOpcode::kAdd, sum, next)));
  }

  // One lane, back in the all-reduce's shape (and layout).
  HOPT_ASSIGN_OR_RETURN(auto lane, keep(hopt::MakeSlice(sum, {1}, {2}, {1})));
  const hopt::Shape& shape = all_reduce->shape();
  HOPT_ASSIGN_OR_RETURN(auto result, keep(hopt::MakeReshape(lane, shape.dimensions())));
  result->set_shape(shape);

  for (HloInstruction* made : created) CopyMetadata(*all_reduce, made);
  // The result inherits the all-reduce's control edges when the driver
  // replaces it (HloComputation::ReplaceInstruction); the all-gather must
  // wait for the same predecessors.
  if (all_reduce->has_control_predecessors())
    gathered->set_control_predecessors(all_reduce->control_predecessors());
  DECOMPOSE_DEBUG(dbgs << "decomposed %" << hopt::AsRef(all_reduce->name()) << ": G=" << group_size
                       << ", all-gather of " << count << " lanes, " << (group_size - 1)
                       << " add(s)\n");
  return result;
}

}  // namespace neuron

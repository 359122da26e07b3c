// SPDX-License-Identifier: Apache-2.0

#include "hopt/eval/collective_groups.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/eval/ops.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {

int64_t CollectivePermuteId(GroupMode mode, const Mesh& mesh, int64_t device) {
  return mode == GroupMode::kCrossPartition ? device % mesh.partitions : device / mesh.partitions;
}

int64_t CollectivePermuteId(const HloInstruction& permute, const Mesh& mesh, int64_t device) {
  return CollectivePermuteId(GetGroupMode(permute), mesh, device);
}

absl::StatusOr<CollectiveDescription> DescribeCollective(const HloInstruction& i) {
  CollectiveDescription d;
  // An async shorthand (`reduce-scatter-start(...)`) carries the wrapped
  // collective's attributes itself.
  HloOpcode opcode = i.opcode();
  if (opcode == HloOpcode::kAsyncStart && i.async_wrapped_opcode())
    opcode = *i.async_wrapped_opcode();
  // The asynchronous forms compute at their start what the synchronous
  // op computes (docs/interpreter-semantics.md, "Fusion, async pairs and copy-start/copy-done").
  if (opcode == HloOpcode::kAllReduceStart) opcode = HloOpcode::kAllReduce;
  if (opcode == HloOpcode::kAllGatherStart) opcode = HloOpcode::kAllGather;
  if (opcode == HloOpcode::kCollectivePermuteStart) opcode = HloOpcode::kCollectivePermute;
  if (!IsSynchronousCollective(opcode))
    return absl::InvalidArgumentError(absl::StrCat(i.name(), " is not a collective"));
  d.kind = opcode;
  d.mode = GetGroupMode(d.kind, i.channel_id().has_value(), i.use_global_device_ids());
  if (d.kind != HloOpcode::kCollectivePermute)
    if (auto groups = i.replica_groups()) d.replica_groups = groups->ExpandedGroups();
  std::vector<int64_t> dims = i.dimensions();
  if (dims.size() == 1) d.dimension = dims[0];
  d.reduction = i.to_apply();
  if (d.kind == HloOpcode::kCollectivePermute) d.source_target_pairs = i.source_target_pairs();
  return d;
}

absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& i, const Mesh& mesh,
                                                          int64_t device) {
  HOPT_ASSIGN_OR_RETURN(CollectiveDescription description, DescribeCollective(i));
  return ParticipatingDevices(description, i.name(), mesh, device);
}

absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const CollectiveDescription& c,
                                                          absl::string_view name, const Mesh& mesh,
                                                          int64_t device) {
  int64_t replica = device / mesh.partitions, partition = device % mesh.partitions;
  GroupMode mode = c.mode;
  int64_t space = mode == GroupMode::kCrossPartition ? mesh.partitions
                  : mode == GroupMode::kFlattenedId  ? mesh.replicas * mesh.partitions
                                                     : mesh.replicas;
  int64_t my_id = mode == GroupMode::kCrossPartition ? partition
                  : mode == GroupMode::kFlattenedId  ? device
                                                     : replica;
  std::vector<int64_t> group;
  bool permute = c.kind == HloOpcode::kCollectivePermute;
  if (permute || c.replica_groups.empty()) {
    for (int64_t id = 0; id < space; ++id) group.push_back(id);
  } else {
    std::vector<bool> seen(space, false);
    for (const std::vector<int64_t>& candidate : c.replica_groups)
      for (int64_t id : candidate) {
        if (id < 0 || id >= space) continue;  // reported below
        if (seen[id])
          return absl::InvalidArgumentError(absl::StrCat(name, ": replica groups overlap: id ", id,
                                                         " is in more than one group"));
        seen[id] = true;
      }
    for (const std::vector<int64_t>& candidate : c.replica_groups) {
      for (int64_t id : candidate)
        if (id < 0 || id >= space)
          return absl::InvalidArgumentError(absl::StrCat(name, ": replica group id ", id,
                                                         " is out of range for ", space, " ids"));
      if (std::find(candidate.begin(), candidate.end(), my_id) != candidate.end()) {
        group = candidate;
        break;
      }
    }
    if (group.empty())
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": device ", device, " is in none of the replica groups"));
  }
  std::vector<int64_t> devices;
  switch (mode) {
    case GroupMode::kCrossReplica:
      for (int64_t r : group) devices.push_back(r * mesh.partitions + partition);
      break;
    case GroupMode::kCrossPartition:
      for (int64_t p : group) devices.push_back(replica * mesh.partitions + p);
      break;
    case GroupMode::kCrossReplicaAndPartition:
      for (int64_t r : group)
        for (int64_t p = 0; p < mesh.partitions; ++p) devices.push_back(r * mesh.partitions + p);
      break;
    case GroupMode::kFlattenedId: devices = group; break;
  }
  return devices;
}

}  // namespace eval
}  // namespace hopt

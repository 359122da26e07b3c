// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/collective_modes.h"

#include <limits>

namespace hopt {

GroupMode GetGroupMode(HloOpcode opcode, bool has_channel_id, bool use_global_device_ids) {
  bool no_global_field = opcode == HloOpcode::kCollectivePermute ||
                         opcode == HloOpcode::kCollectivePermuteStart ||
                         opcode == HloOpcode::kAllToAll || opcode == HloOpcode::kRaggedAllToAll;
  if (!has_channel_id) return GroupMode::kCrossReplica;
  if (no_global_field) return GroupMode::kCrossPartition;
  return use_global_device_ids ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

GroupMode GetGroupMode(const HloInstruction& i) {
  return GetGroupMode(i.opcode(), i.channel_id().has_value(), i.use_global_device_ids());
}

int64_t ParticipantCount(const HloInstruction& i, int64_t replicas, int64_t partitions) {
  // Header counts are as large as the text says: saturate rather than wrap,
  // so a shape computed from the count overflows visibly.
  auto times = [](int64_t a, int64_t b) {
    int64_t product;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<int64_t>::max() : product;
  };
  GroupMode mode = GetGroupMode(i);
  auto groups = i.replica_groups();
  int64_t listed = -1;
  if (groups && !groups->empty())
    listed = groups->is_iota ? groups->group_size : static_cast<int64_t>(groups->groups[0].size());
  switch (mode) {
    case GroupMode::kCrossReplica: return listed >= 0 ? listed : replicas;
    case GroupMode::kCrossPartition: return listed >= 0 ? listed : partitions;
    case GroupMode::kCrossReplicaAndPartition:
      return times(listed >= 0 ? listed : replicas, partitions);
    case GroupMode::kFlattenedId: return listed >= 0 ? listed : times(replicas, partitions);
  }
  return 1;
}

}  // namespace hopt

#include "core/ir/collective_modes.h"

namespace hopt {

GroupMode GetGroupMode(const HloInstruction& i) {
  bool channel = i.channel_id().has_value();
  bool no_global_field = i.opcode() == HloOpcode::kCollectivePermute ||
                         i.opcode() == HloOpcode::kCollectivePermuteStart ||
                         i.opcode() == HloOpcode::kAllToAll;
  if (!channel) return GroupMode::kCrossReplica;
  if (no_global_field) return GroupMode::kCrossPartition;
  return i.use_global_device_ids() ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

int64_t ParticipantCount(const HloInstruction& i, int64_t replicas, int64_t partitions) {
  GroupMode mode = GetGroupMode(i);
  auto groups = i.replica_groups();
  int64_t listed = -1;
  if (groups && !groups->empty())
    listed = groups->is_iota ? groups->group_size : static_cast<int64_t>(groups->groups[0].size());
  switch (mode) {
    case GroupMode::kCrossReplica:
      return listed >= 0 ? listed : replicas;
    case GroupMode::kCrossPartition:
      return listed >= 0 ? listed : partitions;
    case GroupMode::kCrossReplicaAndPartition:
      return (listed >= 0 ? listed : replicas) * partitions;
    case GroupMode::kFlattenedId:
      return listed >= 0 ? listed : replicas * partitions;
  }
  return 1;
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_COLLECTIVE_MODES_H_
#define HOPT_IR_COLLECTIVE_MODES_H_

// XLA's group modes: which ids a collective's replica_groups name.
// - no channel_id: cross-replica (replica ids, within each partition);
// - collective-permute / all-to-all / ragged-all-to-all with a channel: cross-partition;
// - all-reduce / all-gather / reduce-scatter with a channel:
//   cross-replica-and-partition (replica ids, all partitions of each), or
//   flattened ids (replica * partitions + partition) with
//   use_global_device_ids.

#include <cstdint>

#include "hopt/ir/instruction.h"

namespace hopt {

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

GroupMode GetGroupMode(const HloInstruction& collective);
// The same rule from its inputs: `opcode` is the collective's kind (for
// collective-permute, all-to-all and ragged-all-to-all a channel means
// cross-partition).
GroupMode GetGroupMode(HloOpcode opcode, bool has_channel_id, bool use_global_device_ids);

// How many devices take part in each group of `collective` on a mesh of
// replicas x partitions (the size of its first group; groups may be uneven).
int64_t ParticipantCount(const HloInstruction& collective, int64_t replicas, int64_t partitions);

}  // namespace hopt

#endif  // HOPT_IR_COLLECTIVE_MODES_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_EVAL_COLLECTIVE_GROUPS_H_
#define HOPT_EVAL_COLLECTIVE_GROUPS_H_

// Which devices take part in a collective, with XLA's group modes:
// - no channel_id: cross-replica (groups of replica ids, within a partition);
// - collective-permute / all-to-all / ragged-all-to-all with a channel: cross-partition;
// - all-reduce / all-gather / reduce-scatter with a channel:
//   cross-replica-and-partition (groups of replica ids, every partition), or
//   with use_global_device_ids, flattened ids (replica * P + partition).
// Devices are numbered d = replica * partitions + partition.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/ir/instruction.h"

namespace hopt {
namespace eval {

struct Mesh {
  int64_t replicas = 1;
  int64_t partitions = 1;
};

// What a collective does, apart from the instruction that carries it: a
// native collective, or a custom-call a plugin says stands for one.
struct CollectiveDescription {
  // kAllReduce, kAllGather, kReduceScatter, kAllToAll, kRaggedAllToAll, kCollectivePermute or
  // kCollectiveBroadcast (every member gets the first member's operands).
  HloOpcode kind = HloOpcode::kAllReduce;
  GroupMode mode = GroupMode::kCrossReplica;
  // Explicit groups of ids in the mode's id space; empty: one group of all.
  std::vector<std::vector<int64_t>> replica_groups;
  // all-gather / reduce-scatter / array all-to-all dimension; -1 if none.
  int64_t dimension = -1;
  // all-reduce / reduce-scatter reduction.
  const HloComputation* reduction = nullptr;
  // When set, the reduction is this elementwise binary op, whatever
  // `reduction` computes (a custom-call whose target name says it).
  std::optional<HloOpcode> reduction_opcode;
  // collective-permute: (source, target) ids in the mode's id space.
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  // Point-to-point transfers (a fused send/recv): the pairs may repeat a
  // source or a target (the last pair naming a target wins), and the
  // result is (value, token[]).
  bool point_to_point = false;
};

// The description of a native collective instruction.
absl::StatusOr<CollectiveDescription> DescribeCollective(const HloInstruction& collective);

// The devices in `device`'s group, in the group's order (the order of
// all-gather pieces and reduce-scatter chunks). For collective-permute, all
// devices that share the permute's id space with `device`.
absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& collective,
                                                          const Mesh& mesh, int64_t device);
absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const CollectiveDescription& collective,
                                                          absl::string_view name, const Mesh& mesh,
                                                          int64_t device);
// The id source_target_pairs use for `device`: its replica id without a
// channel, its partition id with one.
int64_t CollectivePermuteId(const HloInstruction& permute, const Mesh& mesh, int64_t device);
int64_t CollectivePermuteId(GroupMode mode, const Mesh& mesh, int64_t device);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_EVAL_COLLECTIVE_GROUPS_H_

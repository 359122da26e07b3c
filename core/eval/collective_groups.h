#ifndef HOPT_CORE_EVAL_COLLECTIVE_GROUPS_H_
#define HOPT_CORE_EVAL_COLLECTIVE_GROUPS_H_

// Which devices take part in a collective, with XLA's group modes:
// - no channel_id: cross-replica (groups of replica ids, within a partition);
// - collective-permute / all-to-all with a channel: cross-partition;
// - all-reduce / all-gather / reduce-scatter with a channel:
//   cross-replica-and-partition (groups of replica ids, every partition), or
//   with use_global_device_ids, flattened ids (replica * P + partition).
// Devices are numbered d = replica * partitions + partition.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/collective_modes.h"
#include "core/ir/instruction.h"

namespace hopt {
namespace eval {

struct Mesh {
  int64_t replicas = 1;
  int64_t partitions = 1;
};


// The devices in `device`'s group, in the group's order (the order of
// all-gather pieces and reduce-scatter chunks). For collective-permute, all
// devices that share the permute's id space with `device`.
absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& collective,
                                                          const Mesh& mesh, int64_t device);
// The id source_target_pairs use for `device`: its replica id without a
// channel, its partition id with one.
int64_t CollectivePermuteId(const HloInstruction& permute, const Mesh& mesh, int64_t device);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_COLLECTIVE_GROUPS_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_TOOLING_MESH_INFERENCE_H_
#define HOPT_CORE_EVAL_TOOLING_MESH_INFERENCE_H_

// Which mesh to run a module on. Real dumps often say replica_count=1 (or
// nothing) while their collectives name more devices; running them on the
// header's mesh would only fail. docs/hlo-run.md, "Mesh inference".

#include <cstdint>
#include <string>

#include "hopt/eval/collective_groups.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

struct MeshChoice {
  Mesh mesh;
  // Empty when the mesh is the header's (or what the options said);
  // otherwise one line saying what was inferred from what, e.g. "mesh: 4
  // replicas x 1 partition, inferred from replica_groups of %ar (module says
  // replica_count=1); -replicas/-partitions override".
  std::string note;
};

// The smallest mesh at least as large as the header's on which every group
// of every collective names existing ids: replica_groups (iota forms too)
// and source_target_pairs of the native collectives, the groups and pairs
// of the custom-calls that a plugin describes as collectives
// (in `custom_calls`, when not null), and the pairs of send/recv. `replicas`
// and `partitions` above 0 are taken as they are (the user's -replicas and
// -partitions); the other is inferred. Flattened ids (use_global_device_ids)
// fix only replicas x partitions: the partitions are kept and the replicas
// grown, and the note says so.
MeshChoice ChooseMesh(const HloModule& module, int64_t replicas = 0, int64_t partitions = 0,
                      const CustomCallTable* custom_calls = nullptr);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_TOOLING_MESH_INFERENCE_H_

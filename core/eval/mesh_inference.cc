// SPDX-License-Identifier: Apache-2.0

#include "core/eval/tooling/mesh_inference.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"

namespace hopt {
namespace eval {
namespace {

// The most ids one space needs, and the first instruction that needs them.
struct Need {
  int64_t ids = 1;
  std::string what;  // "replica_groups of %ar"

  void Raise(int64_t wanted, absl::string_view field, const HloInstruction& i) {
    if (wanted <= ids) return;
    ids = wanted;
    what = absl::StrCat(field, " of %", i.name());
  }
};

struct Needs {
  Need replicas, partitions, devices;  // devices: flattened ids

  Need& For(GroupMode mode) {
    switch (mode) {
      case GroupMode::kCrossPartition: return partitions;
      case GroupMode::kFlattenedId: return devices;
      case GroupMode::kCrossReplica:
      case GroupMode::kCrossReplicaAndPartition: break;
    }
    return replicas;
  }

  void Add(const CollectiveDescription& c, const HloInstruction& i) {
    Need& need = For(c.mode);
    for (const std::vector<int64_t>& group : c.replica_groups)
      for (int64_t id : group)
        if (id >= 0) need.Raise(id + 1, "replica_groups", i);
    for (const auto& [source, target] : c.source_target_pairs)
      need.Raise(std::max(source, target) + 1, "source_target_pairs", i);
  }
};

std::string Count(int64_t n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace

MeshChoice ChooseMesh(const HloModule& module, int64_t replicas, int64_t partitions,
                      const CustomCallTable* custom_calls) {
  const Mesh header{module.replica_count(), module.num_partitions()};
  Needs needs;
  for (const HloComputation* computation : module.computations())
    for (const HloInstruction* i : computation->instructions()) {
      switch (i->opcode()) {
        case HloOpcode::kAllReduce:
        case HloOpcode::kAllGather:
        case HloOpcode::kReduceScatter:
        case HloOpcode::kAllToAll:
        case HloOpcode::kRaggedAllToAll:
        case HloOpcode::kCollectivePermute: {
          auto description = DescribeCollective(*i);
          if (description.ok()) needs.Add(*description, *i);
          break;
        }
        case HloOpcode::kCustomCall: {
          // A description the plugin cannot give is reported when the call
          // runs; here it only has nothing to say about the mesh.
          auto description = DescribeCollectiveCustomCall(*i, header, custom_calls);
          if (description.ok() && description->has_value()) needs.Add(**description, *i);
          break;
        }
        case HloOpcode::kSend:
        case HloOpcode::kRecv:
        case HloOpcode::kSendDone:
        case HloOpcode::kRecvDone:
          // The interpreter's rule: partition ids on a mesh with
          // partitions, replica ids otherwise.
          for (const auto& [key, value] : i->frontend_attributes()) {
            if (key != "_xla_send_recv_source_target_pairs") continue;
            auto pairs = ParseSourceTargetPairs(value);
            if (!pairs.ok()) continue;
            Need& need = header.partitions > 1 ? needs.partitions : needs.replicas;
            for (const auto& [source, target] : *pairs)
              need.Raise(std::max(source, target) + 1, "_xla_send_recv_source_target_pairs", *i);
          }
          break;
        default: break;
      }
    }

  MeshChoice choice;
  Mesh& mesh = choice.mesh;
  mesh.replicas = replicas > 0 ? replicas : std::max(header.replicas, needs.replicas.ids);
  mesh.partitions = partitions > 0 ? partitions : std::max(header.partitions, needs.partitions.ids);
  bool flattened_decided = false;
  if (replicas <= 0 && mesh.replicas * mesh.partitions < needs.devices.ids) {
    mesh.replicas = (needs.devices.ids + mesh.partitions - 1) / mesh.partitions;
    flattened_decided = true;
  }
  if (mesh.replicas == header.replicas && mesh.partitions == header.partitions) return choice;

  std::vector<std::string> sources, says;
  if (replicas <= 0 && mesh.replicas != header.replicas) {
    const Need& why = flattened_decided ? needs.devices : needs.replicas;
    sources.push_back(why.what);
    says.push_back(absl::StrCat("replica_count=", header.replicas));
  }
  if (partitions <= 0 && mesh.partitions != header.partitions) {
    sources.push_back(needs.partitions.what);
    says.push_back(absl::StrCat("num_partitions=", header.partitions));
  }
  if (sources.empty()) return choice;  // only what the user asked for
  if (sources.size() == 2 && sources[0] == sources[1]) sources.pop_back();
  choice.note = absl::StrCat("mesh: ", Count(mesh.replicas, "replica"), " x ",
                             Count(mesh.partitions, "partition"), ", inferred from ",
                             absl::StrJoin(sources, " and "), " (module says ",
                             absl::StrJoin(says, ", "), ")");
  if (flattened_decided)
    absl::StrAppend(&choice.note, "; ", needs.devices.what,
                    " use global device ids, which fix only replicas x partitions = ",
                    needs.devices.ids, ": -replicas/-partitions decide the split");
  else
    absl::StrAppend(&choice.note, "; -replicas/-partitions override");
  return choice;
}

}  // namespace eval
}  // namespace hopt

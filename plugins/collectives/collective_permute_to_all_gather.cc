// SPDX-License-Identifier: Apache-2.0
// collective-permute-to-all-gather: Neuron has no primitive for a
// collective-permute's point-to-point transfer but does have an all-gather,
// so each permute becomes "gather everyone's operand, then slice out the
// block my source sent":
//
//   ag     = all-gather(x), dimensions={0}, a fresh channel_id
//   map    = s32[N] constant: map[target] = source (identity elsewhere)
//   id     = replica-id() or partition-id(), by XLA's group mode
//   result = dynamic-slice(ag, map[id] * dims[0], 0, ...)
//
// plus a zero mask when the pairs leave a device without a source (XLA
// gives it zeros). Groups follow XLA's group modes, and a permute is left
// alone wherever the rewrite could change what it computes.
// docs/plugins/collectives.md lists the exact chain, what stays, and where
// and why this departs from the reference compiler.
//
// Linear time: one post-order walk per computation collects the permutes,
// the rewrite runs after the walk, the channel id is computed once for the
// module and incremented, and each permute costs O(N + rank).

#include "collectives/collective_permute_to_all_gather.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/printer.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloModule;
using hopt::HloOpcode;
using hopt::PrimitiveType;
using hopt::Shape;

constexpr char kPermuteDebugType[] = "collective-permute-to-all-gather";

#define CP_DEBUG(...) HOPT_DEBUG(kPermuteDebugType, __VA_ARGS__)

// A permute that passed the gate, with what the rewrite needs to know.
struct Candidate {
  HloInstruction* permute;
  int64_t n;          // ids in the group mode's space
  bool by_partition;  // channel_id: partition ids; else replica ids
  bool needs_mask;    // some id in [0, n) is no target
};

// Why `cp` cannot be rewritten with `n` ids, or "" when it can. Sets
// `*needs_mask` when the pairs leave some id without a source.
std::string RejectReason(const HloInstruction& cp, int64_t n, bool* needs_mask) {
  if (cp.operand_count() != 1) return "it does not have exactly one operand";
  const Shape& shape = cp.shape();
  if (!shape.IsArray() || !shape.is_static()) return "its shape is not a static array";
  if (!cp.operand(0)->shape().Compatible(shape)) return "its operand's shape differs from its own";
  if (n <= 1) return absl::StrCat("there are ", n, " ids in its group mode (need at least 2)");
  int64_t block = shape.rank() == 0 ? 1 : shape.dimensions(0);
  // The largest offset, block * (n - 1), is an s32 index.
  if (block > 0 && block > std::numeric_limits<int32_t>::max() / n)
    return "the gathered dimension overflows an s32 offset";
  std::vector<uint8_t> is_source(n, 0), is_target(n, 0);
  int64_t targets = 0;
  for (const auto& [source, target] : cp.source_target_pairs()) {
    if (source < 0 || source >= n || target < 0 || target >= n)
      return absl::StrCat("pair {", source, ",", target, "} leaves the id range [0, ", n, ")");
    if (is_source[source]) return absl::StrCat("source ", source, " repeats");
    if (is_target[target]) return absl::StrCat("target ", target, " repeats");
    is_source[source] = is_target[target] = 1;
    ++targets;
  }
  *needs_mask = targets != n;
  return "";
}

// `shape` with the layout of `like` (same rank), so a rewrite keeps the
// layouts the module chose.
Shape WithLayoutOf(Shape shape, const Shape& like) {
  if (like.has_layout() && like.rank() == shape.rank())
    shape.set_layout(like.minor_to_major(), like.layout_tail());
  return shape;
}

hopt::ReplicaGroupList DeviceGroups(int64_t replicas, int64_t partitions, bool by_partition) {
  std::vector<std::vector<int64_t>> groups;
  if (by_partition) {
    groups.resize(replicas);
    for (int64_t r = 0; r < replicas; ++r)
      for (int64_t p = 0; p < partitions; ++p) groups[r].push_back(r * partitions + p);
  } else {
    groups.resize(partitions);
    for (int64_t p = 0; p < partitions; ++p)
      for (int64_t r = 0; r < replicas; ++r) groups[p].push_back(r * partitions + p);
  }
  return hopt::ReplicaGroupList::FromGroups(std::move(groups));
}

// Looks up entry `id` of the rank-1 constant `table`, as a scalar.
absl::StatusOr<HloInstruction*> Lookup(HloInstruction* table, HloInstruction* id) {
  HOPT_ASSIGN_OR_RETURN(HloInstruction * slice, hopt::MakeDynamicSlice(table, {id}, {1}));
  return hopt::MakeReshape(slice, {});
}

absl::Status Rewrite(const Candidate& c, int64_t replicas, int64_t partitions, int64_t channel_id) {
  HloInstruction* cp = c.permute;
  HloComputation* computation = cp->parent();
  // The gather, its index arithmetic and the mask all stand for the permute.
  hopt::MetadataFrom metadata(*cp);
  const Shape& shape = cp->shape();
  const int64_t n = c.n;
  const bool scalar = shape.rank() == 0;
  const std::vector<std::pair<int64_t, int64_t>> pairs = cp->source_target_pairs();

  // All-gather needs a dimension to concatenate on.
  HloInstruction* data = cp->mutable_operand(0);
  if (scalar) {
    HOPT_ASSIGN_OR_RETURN(data, hopt::MakeReshape(data, {1}));
  }
  const Shape& data_shape = data->shape();

  hopt::CollectiveOptions options;
  options.replica_groups = DeviceGroups(replicas, partitions, c.by_partition);
  options.channel_id = channel_id;
  options.constrain_layout = true;
  options.use_global_device_ids = true;
  HOPT_ASSIGN_OR_RETURN(HloInstruction * gather, hopt::MakeAllGather(data, 0, n, options));
  gather->set_shape(WithLayoutOf(gather->shape(), data_shape));

  std::vector<int64_t> mapping(n, -1);
  for (const auto& [source, target] : pairs) mapping[target] = source;
  for (int64_t i = 0; i < n; ++i)
    if (mapping[i] == -1) mapping[i] = i;
  hopt::Literal mapping_literal(Shape(PrimitiveType::S32, {n}));
  for (int64_t i = 0; i < n; ++i) mapping_literal.SetFromInt64(i, mapping[i]);
  HOPT_ASSIGN_OR_RETURN(HloInstruction * map, hopt::MakeConstant(computation, mapping_literal));
  CP_DEBUG(dbgs << "Created mapping array constant: " << hopt::PrintInstruction(*map)
                << " with values:\n");
  for (int64_t i = 0; i < n; ++i)
    CP_DEBUG(dbgs << "  mapping_array[" << i << "] = " << mapping[i] << "\n");

  HloInstruction* id =
      c.by_partition ? hopt::MakePartitionId(computation) : hopt::MakeReplicaId(computation);
  HOPT_ASSIGN_OR_RETURN(HloInstruction * source, Lookup(map, id));
  const int64_t block = data_shape.dimensions(0);
  HOPT_ASSIGN_OR_RETURN(
      HloInstruction * block_size,
      hopt::MakeScalarConstant(computation, PrimitiveType::S32, static_cast<double>(block)));
  HOPT_ASSIGN_OR_RETURN(HloInstruction * offset,
                        hopt::MakeBinary(HloOpcode::kMultiply, source, block_size));
  std::vector<HloInstruction*> offsets = {offset};
  for (int64_t d = 1; d < data_shape.rank(); ++d) {
    HOPT_ASSIGN_OR_RETURN(HloInstruction * zero,
                          hopt::MakeScalarConstant(computation, PrimitiveType::S32, 0));
    offsets.push_back(zero);
  }
  HOPT_ASSIGN_OR_RETURN(HloInstruction * result,
                        hopt::MakeDynamicSlice(gather, offsets, data_shape.dimensions()));
  if (scalar) {
    HOPT_ASSIGN_OR_RETURN(result, hopt::MakeReshape(result, {}));
  }
  result->set_shape(WithLayoutOf(result->shape(), shape));

  if (c.needs_mask) {
    hopt::Literal targets(Shape(PrimitiveType::PRED, {n}));
    for (const auto& pair : pairs) targets.SetFromInt64(pair.second, 1);
    HOPT_ASSIGN_OR_RETURN(HloInstruction * table, hopt::MakeConstant(computation, targets));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * is_target, Lookup(table, id));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * zero,
                          hopt::MakeScalarConstant(computation, shape.element_type(), 0));
    if (!scalar) {
      std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
      HOPT_ASSIGN_OR_RETURN(is_target, hopt::MakeBroadcast(is_target, dims, {}));
      HOPT_ASSIGN_OR_RETURN(zero, hopt::MakeBroadcast(zero, dims, {}));
      is_target->set_shape(WithLayoutOf(is_target->shape(), shape));
      zero->set_shape(WithLayoutOf(zero->shape(), shape));
    }
    HOPT_ASSIGN_OR_RETURN(result, hopt::MakeSelect(is_target, result, zero));
    result->set_shape(WithLayoutOf(result->shape(), shape));
  }

  // Raw text, so metadata fields OpMetadata does not model survive.
  result->CopyTextAttributeFrom(*cp, "metadata");
  HOPT_RETURN_IF_ERROR(cp->ReplaceAllUsesWith(result));
  return computation->RemoveInstruction(cp);
}

}  // namespace

CollectivePermuteToAllGather::CollectivePermuteToAllGather(std::string platform_version,
                                                           int64_t nc_divisor,
                                                           int64_t override_core_count)
    : platform_version_(std::move(platform_version)),
      nc_divisor_(nc_divisor),
      override_core_count_(override_core_count),
      core_count_(32) {
  if (platform_version_ != "3.0") return;
  if (nc_divisor_ <= 0) {
    // Reported by Run: a pass cannot fail while it is being made.
    core_count_ = 0;
    return;
  }
  core_count_ = override_core_count_ > 0 ? override_core_count_ : 128 / nc_divisor_;
}

// Above this many devices on the permute's axis the pass refuses the module.
constexpr int64_t kMaxMappingDevices = 65536;

absl::StatusOr<bool> CollectivePermuteToAllGather::Run(HloModule& module) {
  // The constructor runs before -debug-only is known to the pass, so its
  // lines are written here.
  CP_DEBUG(dbgs << "Platform Version: " << platform_version_ << "\n");
  const bool platform3 = platform_version_ == "3.0";
  if (platform3 && nc_divisor_ <= 0)
    return absl::InvalidArgumentError(
        absl::StrCat("nc-divisor must be positive on platform version 3.0 (got ", nc_divisor_,
                     "): the core count is 128 / nc-divisor"));
  if (!platform3)
    CP_DEBUG(dbgs << "Platform version '" << platform_version_
                  << "' is not 3.0. Defaulting to 32 cores\n");
  CP_DEBUG(dbgs << "core count " << core_count_ << "\n");
  CP_DEBUG(dbgs << "override_core_count " << override_core_count_ << "\n");

  const int64_t replicas = module.replica_count();
  const int64_t partitions = module.num_partitions();
  CP_DEBUG(dbgs << "Initial replica_count from config = " << replicas << "\n");
  CP_DEBUG(dbgs << "Initial num_partitions from config = " << partitions << "\n");

  std::vector<Candidate> candidates;
  for (HloComputation* computation : module.computations()) {
    std::vector<HloInstruction*> permutes =
        computation->InstructionsWithOpcodeInPostOrder({HloOpcode::kCollectivePermute});
    for (HloInstruction* cp : permutes) {
      CP_DEBUG(dbgs << "Found collective-permute: " << hopt::PrintInstruction(*cp) << "\n");
      bool by_partition = cp->channel_id().has_value();
      int64_t n = by_partition ? partitions : replicas;
      // The rewrite materialises n-element constants per permute (the
      // mapping, the mask): a mesh count from a hostile or mistaken header
      // must not turn into gigabytes.
      if (n > kMaxMappingDevices)
        return absl::InvalidArgumentError(absl::StrCat(
            "'", cp->name(), "': the ", by_partition ? "num_partitions" : "replica_count", " of ",
            n, " is above the ", kMaxMappingDevices,
            " devices this pass rewrites (its mapping constant has one element per device)"));
      bool needs_mask = false;
      std::string reason = RejectReason(*cp, n, &needs_mask);
      // Removing the permute would drop its ordering edges.
      if (reason.empty() && cp->has_control_edges()) reason = "it has control edges";
      if (!reason.empty()) {
        CP_DEBUG(dbgs << "Leaving " << hopt::AsRef(cp->name()) << " alone: " << reason << "\n");
        continue;
      }
      candidates.push_back({cp, n, by_partition, needs_mask});
    }
  }
  if (candidates.empty()) return false;

  int64_t channel_id = NextFreeChannelId(module);
  for (const Candidate& candidate : candidates) {
    absl::Status status = Rewrite(candidate, replicas, partitions, channel_id++);
    if (!status.ok())
      return absl::InternalError(
          absl::StrCat("rewriting ", candidate.permute->name(), ": ", status.message()));
  }
  return true;
}

}  // namespace neuron

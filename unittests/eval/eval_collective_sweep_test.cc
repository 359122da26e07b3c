// SPDX-License-Identifier: Apache-2.0
// The interpreter's collectives against a reference: every collective in
// every group mode that applies, on the meshes 4x1, 1x4, 2x2 and 2x4, with
// all the replica-group sets of a size (include/hopt/eval/evaluator.h).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"
#include "hopt/ir/verifier.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// ---------------------------------------------------------------------------
// The sweep: every collective in every group mode that applies, on the
// meshes (4,1), (1,4), (2,2) and (2,4), against a reference written from the
// definitions (docs/design.md, "Collective group modes"; XLA's
// collective_ops_utils semantics).

struct MeshParam {
  int64_t replicas;
  int64_t partitions;
};

std::string MeshName(const testing::TestParamInfo<MeshParam>& info) {
  return absl::StrCat(info.param.replicas, "x", info.param.partitions);
}

enum class Mode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kCrossReplica: return "cross-replica";
    case Mode::kCrossPartition: return "cross-partition";
    case Mode::kCrossReplicaAndPartition: return "cross-replica-and-partition";
    case Mode::kFlattenedId: return "flattened-id";
  }
  return "?";
}

std::string ModeAttributes(Mode mode) {
  switch (mode) {
    case Mode::kCrossReplica: return "";
    case Mode::kCrossPartition:
    case Mode::kCrossReplicaAndPartition: return "channel_id=1";
    case Mode::kFlattenedId: return "channel_id=1, use_global_device_ids=true";
  }
  return "";
}

// The ids replica groups list in `mode`.
int64_t IdSpace(Mode mode, int64_t replicas, int64_t partitions) {
  if (mode == Mode::kCrossPartition) return partitions;
  if (mode == Mode::kFlattenedId) return replicas * partitions;
  return replicas;
}

// Device d's group: the devices that take part, in the group's order.
std::vector<int64_t> ReferenceGroup(Mode mode, int64_t replicas, int64_t partitions,
                                    const Groups& groups, int64_t d) {
  const int64_t replica = d / partitions, partition = d % partitions;
  const int64_t mine = mode == Mode::kCrossPartition ? partition
                       : mode == Mode::kFlattenedId  ? d
                                                     : replica;
  std::vector<int64_t> ids;
  if (groups.empty()) {
    for (int64_t id = 0; id < IdSpace(mode, replicas, partitions); ++id) ids.push_back(id);
  } else {
    for (const std::vector<int64_t>& group : groups)
      if (std::find(group.begin(), group.end(), mine) != group.end()) ids = group;
  }
  std::vector<int64_t> devices;
  for (int64_t id : ids) {
    switch (mode) {
      case Mode::kCrossReplica: devices.push_back(id * partitions + partition); break;
      case Mode::kCrossPartition: devices.push_back(replica * partitions + id); break;
      case Mode::kCrossReplicaAndPartition:
        for (int64_t p = 0; p < partitions; ++p) devices.push_back(id * partitions + p);
        break;
      case Mode::kFlattenedId: devices.push_back(id); break;
    }
  }
  return devices;
}

// Group lists over `space` ids, all groups of one size: everyone (empty),
// everyone in reverse, and for 4 or more ids interleaved pairs and reversed
// neighbour pairs.
std::vector<Groups> GroupSets(int64_t space, bool allow_empty) {
  std::vector<Groups> sets;
  if (allow_empty) sets.push_back({});
  std::vector<int64_t> reversed;
  for (int64_t id = space - 1; id >= 0; --id) reversed.push_back(id);
  sets.push_back({reversed});
  if (space >= 4 && space % 2 == 0) {
    Groups interleaved, neighbours;
    for (int64_t k = 0; k < space / 2; ++k) interleaved.push_back({k, k + space / 2});
    for (int64_t k = 0; k < space; k += 2) neighbours.push_back({k + 1, k});
    sets.push_back(interleaved);
    sets.push_back(neighbours);
  }
  return sets;
}

class CollectiveSweepTest : public testing::TestWithParam<MeshParam> {
 protected:
  int64_t R() const { return GetParam().replicas; }
  int64_t P() const { return GetParam().partitions; }
  int64_t devices() const { return R() * P(); }

  // Group size of a case (the group sets above are uniform).
  int64_t GroupSize(Mode mode, const Groups& groups) const {
    return static_cast<int64_t>(ReferenceGroup(mode, R(), P(), groups, 0).size());
  }

  std::string Attributes(Mode mode, const Groups& groups, const std::string& rest) const {
    std::vector<std::string> parts;
    if (!ModeAttributes(mode).empty()) parts.push_back(ModeAttributes(mode));
    if (!groups.empty()) parts.push_back("replica_groups=" + GroupsText(groups));
    parts.push_back(rest);
    return absl::StrJoin(parts, ", ");
  }

  void Check(const std::string& text, int64_t n, const std::vector<Values>& expected) {
    SCOPED_TRACE(text);
    ExpectPerDevice(RunOrFail(text, IotaArguments(devices(), n), R(), P()), expected);
  }
};

TEST_P(CollectiveSweepTest, AllReduce) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossReplicaAndPartition, Mode::kFlattenedId}) {
    for (const Groups& groups : GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
      SCOPED_TRACE(absl::StrCat(ModeName(mode), " groups=", GroupsText(groups)));
      std::vector<Values> expected;
      for (int64_t d = 0; d < devices(); ++d) {
        Values sum(3, 0.0);
        for (int64_t e : ReferenceGroup(mode, R(), P(), groups, d))
          for (int64_t k = 0; k < 3; ++k) sum[k] += DeviceIota(e, 3)[k];
        expected.push_back(sum);
      }
      Check(OneCollective(R(), P(), "f32[3]", "f32[3]", "all-reduce",
                          Attributes(mode, groups, "to_apply=add")),
            3, expected);
    }
  }
}

TEST_P(CollectiveSweepTest, AllGather) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossReplicaAndPartition, Mode::kFlattenedId}) {
    for (const Groups& groups : GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
      SCOPED_TRACE(absl::StrCat(ModeName(mode), " groups=", GroupsText(groups)));
      int64_t size = GroupSize(mode, groups);
      std::vector<Values> expected;
      for (int64_t d = 0; d < devices(); ++d) {
        Values gathered;
        for (int64_t e : ReferenceGroup(mode, R(), P(), groups, d))
          for (double v : DeviceIota(e, 2)) gathered.push_back(v);
        expected.push_back(gathered);
      }
      Check(OneCollective(R(), P(), "f32[2]", absl::StrCat("f32[", 2 * size, "]"), "all-gather",
                          Attributes(mode, groups, "dimensions={0}")),
            2, expected);
    }
  }
}

TEST_P(CollectiveSweepTest, ReduceScatter) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossReplicaAndPartition, Mode::kFlattenedId}) {
    for (const Groups& groups : GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
      SCOPED_TRACE(absl::StrCat(ModeName(mode), " groups=", GroupsText(groups)));
      int64_t size = GroupSize(mode, groups), n = 2 * size;
      std::vector<Values> expected;
      for (int64_t d = 0; d < devices(); ++d) {
        std::vector<int64_t> group = ReferenceGroup(mode, R(), P(), groups, d);
        int64_t position = std::find(group.begin(), group.end(), d) - group.begin();
        Values sum(n, 0.0);
        for (int64_t e : group)
          for (int64_t k = 0; k < n; ++k) sum[k] += DeviceIota(e, n)[k];
        expected.push_back({sum[2 * position], sum[2 * position + 1]});
      }
      Check(OneCollective(R(), P(), absl::StrCat("f32[", n, "]"), "f32[2]", "reduce-scatter",
                          Attributes(mode, groups, "dimensions={0}, to_apply=add")),
            n, expected);
    }
  }
}

TEST_P(CollectiveSweepTest, AllToAll) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossPartition}) {
    for (const Groups& groups : GroupSets(IdSpace(mode, R(), P()), true)) {
      SCOPED_TRACE(absl::StrCat(ModeName(mode), " groups=", GroupsText(groups)));
      int64_t size = GroupSize(mode, groups), n = 2 * size;
      std::vector<Values> expected;
      for (int64_t d = 0; d < devices(); ++d) {
        std::vector<int64_t> group = ReferenceGroup(mode, R(), P(), groups, d);
        int64_t position = std::find(group.begin(), group.end(), d) - group.begin();
        Values received;
        for (int64_t e : group) {
          received.push_back(DeviceIota(e, n)[2 * position]);
          received.push_back(DeviceIota(e, n)[2 * position + 1]);
        }
        expected.push_back(received);
      }
      std::string shape = absl::StrCat("f32[", n, "]");
      Check(OneCollective(R(), P(), shape, shape, "all-to-all",
                          Attributes(mode, groups, "dimensions={0}")),
            n, expected);
    }
  }
}

TEST_P(CollectiveSweepTest, CollectivePermute) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossPartition}) {
    int64_t space = IdSpace(mode, R(), P());
    std::vector<std::vector<std::pair<int64_t, int64_t>>> pair_sets;
    std::vector<std::pair<int64_t, int64_t>> ring, partial;
    for (int64_t id = 0; id < space; ++id) ring.push_back({id, (id + 1) % space});
    pair_sets.push_back(ring);
    partial.push_back({0, space - 1});
    if (space >= 4) partial.push_back({space - 1, 1});
    pair_sets.push_back(partial);
    for (const auto& pairs : pair_sets) {
      std::vector<std::string> texts;
      for (const auto& [source, target] : pairs)
        texts.push_back(absl::StrCat("{", source, ",", target, "}"));
      std::string pairs_text = absl::StrCat("{", absl::StrJoin(texts, ","), "}");
      SCOPED_TRACE(absl::StrCat(ModeName(mode), " source_target_pairs=", pairs_text));
      std::vector<Values> expected;
      for (int64_t d = 0; d < devices(); ++d) {
        int64_t replica = d / P(), partition = d % P();
        int64_t mine = mode == Mode::kCrossPartition ? partition : replica;
        Values received = {0, 0};  // no source: zeros
        for (const auto& [source, target] : pairs) {
          if (target != mine) continue;
          int64_t from =
              mode == Mode::kCrossPartition ? replica * P() + source : source * P() + partition;
          received = DeviceIota(from, 2);
        }
        expected.push_back(received);
      }
      std::string attributes = ModeAttributes(mode);
      if (!attributes.empty()) attributes += ", ";
      Check(OneCollective(R(), P(), "f32[2]", "f32[2]", "collective-permute",
                          attributes + "source_target_pairs=" + pairs_text),
            2, expected);
    }
  }
}

// hlo-run verifies a module before running it: every module of the sweep is
// valid XLA and must pass the verifier too.
TEST_P(CollectiveSweepTest, VerifierAcceptsTheSweepModules) {
  for (Mode mode : {Mode::kCrossReplica, Mode::kCrossReplicaAndPartition, Mode::kFlattenedId}) {
    for (const Groups& groups : GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
      int64_t size = GroupSize(mode, groups);
      for (const std::string& text :
           {OneCollective(R(), P(), "f32[2]", absl::StrCat("f32[", 2 * size, "]"), "all-gather",
                          Attributes(mode, groups, "dimensions={0}")),
            OneCollective(R(), P(), absl::StrCat("f32[", 2 * size, "]"), "f32[2]", "reduce-scatter",
                          Attributes(mode, groups, "dimensions={0}, to_apply=add"))}) {
        std::unique_ptr<HloModule> module = ParseOrFail(text);
        if (module == nullptr) continue;
        absl::Status valid = VerifyModule(*module);
        EXPECT_TRUE(valid.ok()) << valid << "\n--- module ---\n" << text;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, CollectiveSweepTest,
                         testing::Values(MeshParam{4, 1}, MeshParam{1, 4}, MeshParam{2, 2},
                                         MeshParam{2, 4}),
                         MeshName);

}  // namespace
}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for the multi-device HLO interpreter's collectives
// (include/hopt/eval/evaluator.h and include/hopt/eval/collective_groups.h):
// every XLA group mode on several meshes, and replica groups (explicit,
// uneven, iota).
//
// Every device gets a distinct input, usually element k of device d =
// k + 100 * d, so a result names the devices that contributed to it. The
// expectations are computed by hand (the literal numbers in the tests) or,
// for the mesh sweep, by a small reference written from the definitions of
// the group modes (docs/design.md, "Collective group modes"), independent
// of the interpreter.

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
// The group modes on a 2x4 mesh (device d = replica * 4 + partition), by hand.

TEST(CollectiveGroupsTest, GroupModeFollowsChannelAndGlobalIds) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  ar0 = f32[8] all-reduce(x), to_apply=add
  ar1 = f32[8] all-reduce(x), channel_id=1, to_apply=add
  ar2 = f32[8] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  a2a0 = f32[8] all-to-all(x), dimensions={0}
  a2a1 = f32[8] all-to-all(x), channel_id=3, dimensions={0}
  cp0 = f32[8] collective-permute(x), source_target_pairs={{0,1}}
  cp1 = f32[8] collective-permute(x), channel_id=4, source_target_pairs={{0,1}}
  ROOT t = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) tuple(ar0, ar1, ar2, a2a0, a2a1, cp0, cp1)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  auto mode = [&](const char* name) { return GetGroupMode(*entry->GetInstructionWithName(name)); };
  EXPECT_EQ(mode("ar0"), GroupMode::kCrossReplica);
  EXPECT_EQ(mode("ar1"), GroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(mode("ar2"), GroupMode::kFlattenedId);
  EXPECT_EQ(mode("a2a0"), GroupMode::kCrossReplica);
  EXPECT_EQ(mode("a2a1"), GroupMode::kCrossPartition);
  EXPECT_EQ(mode("cp0"), GroupMode::kCrossReplica);
  EXPECT_EQ(mode("cp1"), GroupMode::kCrossPartition);

  Mesh mesh{2, 4};
  auto devices = [&](const char* name, int64_t device) {
    auto result = ParticipatingDevices(*entry->GetInstructionWithName(name), mesh, device);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : std::vector<int64_t>{};
  };
  // Cross-replica: the same partition of every replica.
  EXPECT_THAT(devices("ar0", 6), ElementsAre(2, 6));
  // Cross-replica-and-partition without groups: everyone, replica-major.
  EXPECT_THAT(devices("ar1", 5), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(devices("ar2", 3), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  // Cross-partition: every partition of the same replica.
  EXPECT_THAT(devices("a2a1", 6), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(devices("a2a0", 1), ElementsAre(1, 5));
  // Permute ids: replica ids without a channel, partition ids with one.
  EXPECT_EQ(CollectivePermuteId(*entry->GetInstructionWithName("cp0"), mesh, 6), 1);
  EXPECT_EQ(CollectivePermuteId(*entry->GetInstructionWithName("cp1"), mesh, 6), 2);
}

TEST(CollectiveGroupsTest, ExplicitAndIotaGroupsOn2x4) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  crp = f32[8] all-reduce(x), channel_id=1, replica_groups={{1},{0}}, to_apply=add
  flat = f32[8] all-reduce(x), channel_id=2, replica_groups={{7,0},{1,6},{2,5},{3,4}}, use_global_device_ids=true, to_apply=add
  iota = f32[8] all-reduce(x), channel_id=3, replica_groups=[2,4]<=[2,4]T(1,0), use_global_device_ids=true, to_apply=add
  a2a = f32[8] all-to-all(x), channel_id=4, replica_groups={{3,0},{1,2}}, dimensions={0}
  ROOT t = (f32[8], f32[8], f32[8], f32[8]) tuple(crp, flat, iota, a2a)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  Mesh mesh{2, 4};
  auto devices = [&](const char* name, int64_t device) {
    auto result = ParticipatingDevices(*entry->GetInstructionWithName(name), mesh, device);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : std::vector<int64_t>{};
  };
  EXPECT_THAT(devices("crp", 2), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(devices("crp", 7), ElementsAre(4, 5, 6, 7));
  EXPECT_THAT(devices("flat", 0), ElementsAre(7, 0));
  EXPECT_THAT(devices("flat", 6), ElementsAre(1, 6));
  // iota [2,4] transposed: {{0,4},{1,5},{2,6},{3,7}} read column-wise ->
  // groups {0,4,1,5} and {2,6,3,7}.
  EXPECT_THAT(devices("iota", 5), ElementsAre(0, 4, 1, 5));
  EXPECT_THAT(devices("iota", 3), ElementsAre(2, 6, 3, 7));
  EXPECT_THAT(devices("a2a", 4), ElementsAre(7, 4));
  EXPECT_THAT(devices("a2a", 6), ElementsAre(5, 6));
}

TEST(CollectiveGroupsTest, BadGroupsAreErrors) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8] parameter(0)
  partial = f32[8] all-reduce(x), replica_groups={{0,1}}, to_apply=add
  range = f32[8] all-reduce(x), replica_groups={{0,5},{1,2,3}}, to_apply=add
  ROOT t = (f32[8], f32[8]) tuple(partial, range)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  Mesh mesh{4, 1};
  auto missing = ParticipatingDevices(*entry->GetInstructionWithName("partial"), mesh, 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("device 3 is in none of the replica groups"));
  auto range = ParticipatingDevices(*entry->GetInstructionWithName("range"), mesh, 1);
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("replica group id 5 is out of range for 4 ids"));
}

// ---------------------------------------------------------------------------
// all-reduce

TEST(AllReduceTest, EveryGroupModeOn2x4) {
  // Device d holds {100d, 100d+1}; d = 4r + p.
  auto arguments = IotaArguments(8, 2);
  // Cross-replica: partition p of replicas 0 and 1 -> devices p and 4+p:
  // {100p + 100(4+p), ... + 2} = {200p + 400, 200p + 402}.
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"),
                            arguments, 2, 4),
                  {{400, 402},
                   {600, 602},
                   {800, 802},
                   {1000, 1002},
                   {400, 402},
                   {600, 602},
                   {800, 802},
                   {1000, 1002}});
  // Cross-replica-and-partition, groups of one replica: the 4 partitions of
  // the replica: replica 0 -> 0+100+200+300 = 600; replica 1 -> 2200.
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups={{0},{1}}, to_apply=add"),
                            arguments, 2, 4),
                  {{600, 604},
                   {600, 604},
                   {600, 604},
                   {600, 604},
                   {2200, 2204},
                   {2200, 2204},
                   {2200, 2204},
                   {2200, 2204}});
  // Cross-replica-and-partition without groups: all 8 devices: 2800.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce", "channel_id=1, to_apply=add"),
                arguments, 2, 4),
      std::vector<Values>(8, Values{2800, 2808}));
  // Flattened ids, uneven groups {0,7}, {1,2}, {3,4,5,6}.
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups={{0,7},{1,2},{3,4,5,6}}, "
                                          "use_global_device_ids=true, to_apply=add"),
                            arguments, 2, 4),
                  {{700, 702},
                   {300, 302},
                   {300, 302},
                   {1800, 1804},
                   {1800, 1804},
                   {1800, 1804},
                   {1800, 1804},
                   {700, 702}});
}

TEST(AllReduceTest, EveryGroupModeOn2x2) {
  // Devices 0 (r0 p0), 1 (r0 p1), 2 (r1 p0), 3 (r1 p1).
  auto arguments = IotaArguments(4, 2);
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"),
                            arguments, 2, 2),
                  {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups={{0},{1}}, to_apply=add"),
                            arguments, 2, 2),
                  {{100, 102}, {100, 102}, {500, 502}, {500, 502}});
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups={{0,1}}, to_apply=add"),
                            arguments, 2, 2),
                  std::vector<Values>(4, Values{600, 604}));
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups={{0,1,3},{2}}, "
                                          "use_global_device_ids=true, to_apply=add"),
                            arguments, 2, 2),
                  {{400, 403}, {400, 403}, {200, 201}, {400, 403}});
}

TEST(AllReduceTest, OneDimensionalMeshes) {
  // (4,1): no channel -> all 4 replicas.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[3]", "f32[3]", "all-reduce", "to_apply=add"),
                            IotaArguments(4, 3), 4, 1),
                  std::vector<Values>(4, Values{600, 604, 608}));
  // (1,4): no channel -> each device alone (one replica).
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[3]", "f32[3]", "all-reduce", "to_apply=add"),
                            IotaArguments(4, 3), 1, 4),
                  {{0, 1, 2}, {100, 101, 102}, {200, 201, 202}, {300, 301, 302}});
  // (1,4): channel, replica group {0} -> the 4 partitions.
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[3]", "f32[3]", "all-reduce",
                                          "channel_id=1, replica_groups={{0}}, to_apply=add"),
                            IotaArguments(4, 3), 1, 4),
                  std::vector<Values>(4, Values{600, 604, 608}));
  // (1,4): flattened ids {1,3} and {0,2}.
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[3]", "f32[3]", "all-reduce",
                                          "channel_id=1, replica_groups={{1,3},{0,2}}, "
                                          "use_global_device_ids=true, to_apply=add"),
                            IotaArguments(4, 3), 1, 4),
                  {{200, 202, 204}, {400, 402, 404}, {200, 202, 204}, {400, 402, 404}});
}

TEST(AllReduceTest, UnevenReplicaGroups) {
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{0},{1,2,3}}, to_apply=add"),
                            IotaArguments(4, 2), 4, 1),
                  {{0, 1}, {600, 603}, {600, 603}, {600, 603}});
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{3,1,0},{2}}, to_apply=add"),
                            IotaArguments(4, 2), 4, 1),
                  {{400, 403}, {400, 403}, {200, 201}, {400, 403}});
}

TEST(AllReduceTest, IotaReplicaGroups) {
  // [2,2]<=[4]: {0,1}, {2,3}.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups=[2,2]<=[4], to_apply=add"),
                            IotaArguments(4, 2), 4, 1),
                  {{100, 102}, {100, 102}, {500, 502}, {500, 502}});
  // [2,2]<=[2,2]T(1,0): {0,2}, {1,3}.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add"),
                            IotaArguments(4, 2), 4, 1),
                  {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  // The same groups as flattened ids on a 2x2 mesh.
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                                          "channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), "
                                          "use_global_device_ids=true, to_apply=add"),
                            IotaArguments(4, 2), 2, 2),
                  {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  // [1,4]<=[4]: one group of everyone.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups=[1,4]<=[4], to_apply=add"),
                            IotaArguments(4, 2), 4, 1),
                  std::vector<Values>(4, Values{600, 604}));
}

TEST(AllReduceTest, Maximum) {
  // Device inputs are not monotone in the device id.
  std::vector<std::vector<Literal>> arguments;
  arguments.push_back({S32({0, 0, 0})});
  arguments.push_back({S32({1, -1, 5})});
  arguments.push_back({S32({2, -2, 3})});
  arguments.push_back({S32({3, -3, 1})});
  const std::string module = R"(HloModule m, replica_count=4
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = s32[3] parameter(0)
  all = s32[3] all-reduce(x), to_apply=max
  pairs = s32[3] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=max
  ROOT t = (s32[3], s32[3]) tuple(all, pairs)
}
)";
  std::vector<Literal> outputs = RunOrFail(module, arguments, 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  const Values pair_max[] = {{1, 0, 5}, {1, 0, 5}, {3, -2, 3}, {3, -2, 3}};
  for (int d = 0; d < 4; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[0]), ElementsAre(3, 0, 5)) << "device " << d;
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[1]), ElementsAreArray(pair_max[d]))
        << "device " << d;
  }
}

TEST(AllReduceTest, MaximumThroughAGeneralReductionComputation) {
  // Not a single binary op of the two parameters: the interpreter calls the
  // computation element by element.
  const std::string module = R"(HloModule m, replica_count=4
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  gt = pred[] compare(a, b), direction=GT
  ROOT m = f32[] select(gt, a, b)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT all = f32[3] all-reduce(x), replica_groups={{0,2},{3,1}}, to_apply=max
}
)";
  std::vector<std::vector<Literal>> arguments;
  arguments.push_back({F32({5, -1, 0.5})});
  arguments.push_back({F32({1, 7, -3})});
  arguments.push_back({F32({2, -2, 0.25})});
  arguments.push_back({F32({-4, 6, -2})});
  ExpectPerDevice(RunOrFail(module, arguments, 4, 1),
                  {{5, -1, 0.5}, {1, 7, -2}, {5, -1, 0.5}, {1, 7, -2}});
}

TEST(AllReduceTest, TupleWithTwoOperands) {
  const std::string module =
      absl::StrCat("HloModule m, replica_count=2, num_partitions=2\n", kAddF32, R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[1,3] parameter(1)
  ROOT ar = (f32[2], f32[1,3]) all-reduce(x, y), replica_groups={{0,1}}, to_apply=add
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    arguments.push_back({F32(DeviceIota(d, 2)),
                         MakeArray(PrimitiveType::F32, {1, 3}, {1.0 * d, 2.0 * d, 3.0 * d})});
  }
  std::vector<Literal> outputs = RunOrFail(module, arguments, 2, 2);
  ASSERT_EQ(outputs.size(), 4u);
  // Cross-replica: devices {0,2} and {1,3}.
  const Values first[] = {{200, 202}, {400, 402}, {200, 202}, {400, 402}};
  const Values second[] = {{2, 4, 6}, {4, 8, 12}, {2, 4, 6}, {4, 8, 12}};
  for (int d = 0; d < 4; ++d) {
    ASSERT_TRUE(outputs[d].shape().IsTuple()) << outputs[d].shape().ToString();
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_EQ(outputs[d].tuple_elements()[1].shape().ToString(false), "f32[1,3]");
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[0]), ElementsAreArray(first[d]))
        << "device " << d;
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[1]), ElementsAreArray(second[d]))
        << "device " << d;
  }
}

// ---------------------------------------------------------------------------
// all-gather, reduce-scatter, all-to-all, collective-permute on 2x4 by hand

TEST(AllGatherTest, EveryGroupModeOn2x4) {
  auto arguments = IotaArguments(8, 2);
  // Cross-replica: {p, 4+p} in replica order.
  std::vector<Values> cross_replica;
  for (int64_t d = 0; d < 8; ++d) {
    int64_t p = d % 4;
    cross_replica.push_back({100.0 * p, 100.0 * p + 1, 100.0 * (4 + p), 100.0 * (4 + p) + 1});
  }
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[4]", "all-gather", "dimensions={0}"),
                            arguments, 2, 4),
                  cross_replica);
  // Cross-replica-and-partition, groups {1},{0}: the replica's 4 partitions.
  const Values replica0 = {0, 1, 100, 101, 200, 201, 300, 301};
  const Values replica1 = {400, 401, 500, 501, 600, 601, 700, 701};
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[8]", "all-gather",
                                          "channel_id=1, replica_groups={{1},{0}}, dimensions={0}"),
                            arguments, 2, 4),
                  {replica0, replica0, replica0, replica0, replica1, replica1, replica1, replica1});
  // Flattened ids, pieces in the group's order.
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[4]", "all-gather",
                                          "channel_id=1, replica_groups={{3,0},{1,6},{2,5},{7,4}}, "
                                          "use_global_device_ids=true, dimensions={0}"),
                            arguments, 2, 4),
                  {{300, 301, 0, 1},
                   {100, 101, 600, 601},
                   {200, 201, 500, 501},
                   {300, 301, 0, 1},
                   {700, 701, 400, 401},
                   {200, 201, 500, 501},
                   {100, 101, 600, 601},
                   {700, 701, 400, 401}});
}

TEST(AllGatherTest, SecondDimensionWithIotaGroups) {
  // (4,1), [2,2]<=[2,2]T(1,0): groups {0,2}, {1,3}; x_d = {{100d}, {100d+1}}.
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d)
    arguments.push_back({MakeArray(PrimitiveType::F32, {2, 1}, DeviceIota(d, 2))});
  std::vector<Literal> outputs =
      RunOrFail(OneCollective(4, 1, "f32[2,1]", "f32[2,2]", "all-gather",
                              "replica_groups=[2,2]<=[2,2]T(1,0), dimensions={1}"),
                arguments, 4, 1);
  ExpectPerDevice(outputs,
                  {{0, 200, 1, 201}, {100, 300, 101, 301}, {0, 200, 1, 201}, {100, 300, 101, 301}});
  if (!outputs.empty()) {
    EXPECT_EQ(outputs[0].shape().ToString(false), "f32[2,2]");
  }
}

TEST(AllGatherTest, ReplicaAndPartitionIds) {
  // Every device contributes 10 * replica + partition; a flattened all-gather
  // in reverse device order shows who is who.
  const std::string module = R"(HloModule m, replica_count=2, num_partitions=4
ENTRY main {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ten = u32[] constant(10)
  r10 = u32[] multiply(r, ten)
  id = u32[] add(r10, p)
  id1 = u32[1] reshape(id)
  ag = u32[8] all-gather(id1), channel_id=1, replica_groups={{7,6,5,4,3,2,1,0}}, use_global_device_ids=true, dimensions={0}
  ROOT t = (u32[], u32[], u32[8]) tuple(r, p, ag)
}
)";
  std::vector<std::vector<Literal>> arguments(8);
  std::vector<Literal> outputs = RunOrFail(module, arguments, 2, 4);
  ASSERT_EQ(outputs.size(), 8u);
  for (int64_t d = 0; d < 8; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 3u);
    EXPECT_EQ(outputs[d].tuple_elements()[0].shape().ToString(false), "u32[]");
    EXPECT_EQ(outputs[d].tuple_elements()[0].GetAsInt64(0), d / 4) << "device " << d;
    EXPECT_EQ(outputs[d].tuple_elements()[1].GetAsInt64(0), d % 4) << "device " << d;
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[2]), ElementsAre(13, 12, 11, 10, 3, 2, 1, 0))
        << "device " << d;
  }
}

TEST(ReduceScatterTest, EveryGroupModeOn2x4) {
  // Cross-replica: group {p, 4+p}; x_d = 100d + {0,1,2,3}; the sum is
  // (200p + 400) + {0,2,4,6}; replica 0 gets the first half.
  std::vector<Values> cross_replica;
  for (int64_t d = 0; d < 8; ++d) {
    double base = 200.0 * (d % 4) + 400;
    cross_replica.push_back(d < 4 ? Values{base, base + 2} : Values{base + 4, base + 6});
  }
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[4]", "f32[2]", "reduce-scatter",
                                          "dimensions={0}, to_apply=add"),
                            IotaArguments(8, 4), 2, 4),
                  cross_replica);
  // Flattened {0,1,2,3} and {4,5,6,7}: sums {600,604,608,612} and
  // {2200,2204,2208,2212}, one element each in group order.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[4]", "f32[1]", "reduce-scatter",
                              "channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, "
                              "use_global_device_ids=true, dimensions={0}, to_apply=add"),
                IotaArguments(8, 4), 2, 4),
      {{600}, {604}, {608}, {612}, {2200}, {2204}, {2208}, {2212}});
  // Cross-replica-and-partition, group {0,1}: all 8 devices; sum of
  // 100d + k over d = 2800 + 8k; device d gets element d.
  std::vector<Values> everyone;
  for (int64_t d = 0; d < 8; ++d) everyone.push_back({2800.0 + 8 * d});
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[8]", "f32[1]", "reduce-scatter",
                              "channel_id=1, replica_groups={{0,1}}, dimensions={0}, to_apply=add"),
                IotaArguments(8, 8), 2, 4),
      everyone);
  // Flattened, reversed group order: position = index in {3,2,1,0}.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[4]", "f32[1]", "reduce-scatter",
                              "channel_id=1, replica_groups={{3,2,1,0},{7,6,5,4}}, "
                              "use_global_device_ids=true, dimensions={0}, to_apply=add"),
                IotaArguments(8, 4), 2, 4),
      {{612}, {608}, {604}, {600}, {2212}, {2208}, {2204}, {2200}});
}

TEST(AllToAllTest, EveryGroupModeOn2x4) {
  // Cross-replica (no channel): group {p, 4+p}, x_d = {100d, 100d+1};
  // position 0 (replica 0) gets element 0 of both, position 1 element 1.
  std::vector<Values> cross_replica;
  for (int64_t d = 0; d < 8; ++d) {
    double p = d % 4, k = d / 4;
    cross_replica.push_back({100 * p + k, 100 * (4 + p) + k});
  }
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-to-all", "dimensions={0}"),
                            IotaArguments(8, 2), 2, 4),
                  cross_replica);
  // Cross-partition (channel): group {4r..4r+3}; device at position q gets
  // element q of each.
  std::vector<Values> cross_partition;
  for (int64_t d = 0; d < 8; ++d) {
    double r = d / 4, q = d % 4;
    cross_partition.push_back(
        {400 * r + q, 400 * r + 100 + q, 400 * r + 200 + q, 400 * r + 300 + q});
  }
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[4]", "f32[4]", "all-to-all",
                                          "channel_id=1, dimensions={0}"),
                            IotaArguments(8, 4), 2, 4),
                  cross_partition);
  // Cross-partition with groups {0,3} and {1,2}.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-to-all",
                              "channel_id=1, replica_groups={{0,3},{1,2}}, dimensions={0}"),
                IotaArguments(8, 2), 2, 4),
      {{0, 300}, {100, 200}, {101, 201}, {1, 301}, {400, 700}, {500, 600}, {501, 601}, {401, 701}});
}

TEST(AllToAllTest, SecondDimensionOn1x4) {
  // x_d[i][j] = 100d + 10i + j (f32[2,4]); split along dimension 1: the
  // device at position q gets column q of every device: out[i][s] =
  // 100s + 10i + q.
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    Values x;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) x.push_back(100.0 * d + 10 * i + j);
    arguments.push_back({MakeArray(PrimitiveType::F32, {2, 4}, x)});
  }
  std::vector<Values> expected;
  for (int64_t q = 0; q < 4; ++q) {
    Values out;
    for (int i = 0; i < 2; ++i)
      for (int s = 0; s < 4; ++s) out.push_back(100.0 * s + 10 * i + q);
    expected.push_back(out);
  }
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[2,4]", "f32[2,4]", "all-to-all",
                                          "channel_id=1, dimensions={1}"),
                            arguments, 1, 4),
                  expected);
}

TEST(AllToAllTest, TupleForm) {
  // Operand j of device d is {100d + 10j}; device at position k receives
  // operand k of every device: element s of the result is {100s + 10k}.
  const std::string module = R"(HloModule m, replica_count=4
ENTRY main {
  a = f32[1] parameter(0)
  b = f32[1] parameter(1)
  c = f32[1] parameter(2)
  d = f32[1] parameter(3)
  ROOT t = (f32[1], f32[1], f32[1], f32[1]) all-to-all(a, b, c, d), replica_groups={{0,1,2,3}}
}
)";
  std::vector<std::vector<Literal>> arguments(4);
  for (int64_t d = 0; d < 4; ++d)
    for (int64_t j = 0; j < 4; ++j) arguments[d].push_back(F32({100.0 * d + 10 * j}));
  std::vector<Literal> outputs = RunOrFail(module, arguments, 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  for (int64_t k = 0; k < 4; ++k) {
    ASSERT_EQ(outputs[k].tuple_elements().size(), 4u);
    for (int64_t s = 0; s < 4; ++s)
      EXPECT_EQ(outputs[k].tuple_elements()[s].GetAsDouble(0), 100.0 * s + 10 * k)
          << "device " << k << " element " << s;
  }
}

TEST(AllToAllTest, TupleFormWithOneParticipant) {
  // Without a channel on a 1x2 mesh every group is one device: the tuple
  // form with one operand returns a one-element tuple (XLA's shape for the
  // tuple form), holding the device's own operand.
  const std::string module = R"(HloModule m, num_partitions=2
ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) all-to-all(a)
  ROOT g = f32[2] get-tuple-element(t), index=0
}
)";
  ExpectPerDevice(RunOrFail(module, IotaArguments(2, 2), 1, 2), {{0, 1}, {100, 101}});
}

TEST(CollectivePermuteTest, RingsAndPartialPermutesOn2x4) {
  auto arguments = IotaArguments(8, 2);
  // Cross-replica (no channel), swap the two replicas: d <-> d xor 4.
  std::vector<Values> swap;
  for (int64_t d = 0; d < 8; ++d) swap.push_back(DeviceIota(d ^ 4, 2));
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "collective-permute",
                                          "source_target_pairs={{0,1},{1,0}}"),
                            arguments, 2, 4),
                  swap);
  // Cross-partition ring p -> p+1 within each replica.
  std::vector<Values> ring;
  for (int64_t d = 0; d < 8; ++d) ring.push_back(DeviceIota(d / 4 * 4 + (d % 4 + 3) % 4, 2));
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "collective-permute",
                              "channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}"),
                arguments, 2, 4),
      ring);
  // Partial, cross-partition: only partition 2 receives (from partition 0);
  // everyone else gets zeros.
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "collective-permute",
                                          "channel_id=1, source_target_pairs={{0,2}}"),
                            arguments, 2, 4),
                  {{0, 0}, {0, 0}, {0, 1}, {0, 0}, {0, 0}, {0, 0}, {400, 401}, {0, 0}});
  // Partial, cross-replica: replica 1 receives from replica 0; replica 0
  // gets zeros.
  std::vector<Values> down;
  for (int64_t d = 0; d < 8; ++d) down.push_back(d < 4 ? Values{0, 0} : DeviceIota(d - 4, 2));
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "collective-permute",
                                          "source_target_pairs={{0,1}}"),
                            arguments, 2, 4),
                  down);
}

TEST(CollectivePermuteTest, OneDimensionalMeshes) {
  // (4,1) ring backwards: r receives from r+1.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "collective-permute",
                                          "source_target_pairs={{1,0},{2,1},{3,2},{0,3}}"),
                            IotaArguments(4, 2), 4, 1),
                  {{100, 101}, {200, 201}, {300, 301}, {0, 1}});
  // (4,1) partial: 1 -> 3 only; 0, 1, 2 get zeros.
  ExpectPerDevice(RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "collective-permute",
                                          "source_target_pairs={{1,3}}"),
                            IotaArguments(4, 2), 4, 1),
                  {{0, 0}, {0, 0}, {0, 0}, {100, 101}});
  // (1,4) with a channel: partitions; 0 -> 1, 1 -> 0, 2 and 3 get zeros.
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[2]", "f32[2]", "collective-permute",
                                          "channel_id=1, source_target_pairs={{0,1},{1,0}}"),
                            IotaArguments(4, 2), 1, 4),
                  {{100, 101}, {0, 1}, {0, 0}, {0, 0}});
  // (1,4) without a channel: replica ids; the only replica is 0, so
  // 0 -> 0 keeps every device's own value.
  ExpectPerDevice(RunOrFail(OneCollective(1, 4, "f32[2]", "f32[2]", "collective-permute",
                                          "source_target_pairs={{0,0}}"),
                            IotaArguments(4, 2), 1, 4),
                  {{0, 1}, {100, 101}, {200, 201}, {300, 301}});
}

TEST(CollectivePermuteTest, ZerosKeepTheElementType) {
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 2; ++d) arguments.push_back({S32({7.0 + d, -3.0 - d})});
  std::vector<Literal> outputs = RunOrFail(
      R"(HloModule m, replica_count=2
ENTRY main {
  x = s32[2] parameter(0)
  ROOT cp = s32[2] collective-permute(x), source_target_pairs={{0,1}}
}
)",
      arguments, 2, 1);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape().ToString(false), "s32[2]");
  EXPECT_THAT(ValuesOf(outputs[0]), ElementsAre(0, 0));
  EXPECT_THAT(ValuesOf(outputs[1]), ElementsAre(7, -3));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

// Tests for the multi-device HLO interpreter (include/hopt/eval/evaluator.h and
// include/hopt/eval/collective_groups.h): collectives in every XLA group mode on
// several meshes, replica groups (explicit, uneven, iota), control flow with
// collectives inside, deadlocks, custom-calls, the budgets, BitwiseEqual and
// RandomArguments.
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
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"
#include "hopt/ir/verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;

using Groups = std::vector<std::vector<int64_t>>;
using Values = std::vector<double>;

// ---------------------------------------------------------------------------
// Helpers

Literal MakeArray(PrimitiveType type, std::vector<int64_t> dims, const Values& values) {
  Literal literal(Shape(type, dims));
  EXPECT_EQ(literal.element_count(), static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size() && static_cast<int64_t>(k) < literal.element_count(); ++k)
    literal.SetFromDouble(static_cast<int64_t>(k), values[k]);
  return literal;
}

Literal F32(const Values& values) {
  return MakeArray(PrimitiveType::F32, {static_cast<int64_t>(values.size())}, values);
}

Literal S32(const Values& values) {
  return MakeArray(PrimitiveType::S32, {static_cast<int64_t>(values.size())}, values);
}

// k + 100 * device, k = 0..n-1.
Values DeviceIota(int64_t device, int64_t n) {
  Values values;
  for (int64_t k = 0; k < n; ++k) values.push_back(static_cast<double>(k + 100 * device));
  return values;
}

Values ValuesOf(const Literal& literal) {
  Values values;
  for (int64_t k = 0; k < literal.element_count(); ++k) values.push_back(literal.GetAsDouble(k));
  return values;
}

// One f32[n] argument per device: DeviceIota(d, n).
std::vector<std::vector<Literal>> IotaArguments(int64_t devices, int64_t n) {
  std::vector<std::vector<Literal>> arguments(devices);
  for (int64_t d = 0; d < devices; ++d) arguments[d].push_back(F32(DeviceIota(d, n)));
  return arguments;
}

// The custom-call semantics the tests below register (a tool owns such a
// table; here the test binary does).
CustomCallTable& TestCustomCalls() {
  static auto* table = new CustomCallTable();
  return *table;
}

EvalOptions MeshOptions(int64_t replicas, int64_t partitions) {
  EvalOptions options;
  options.custom_calls = &TestCustomCalls();
  options.replicas = replicas;
  options.partitions = partitions;
  // Nothing here legitimately waits long; a hang shows up as an error.
  options.rendezvous_timeout_ms = 10000;
  return options;
}

// Runs `text` on a replicas x partitions mesh; on failure records a test
// failure and returns no outputs.
std::vector<Literal> RunOrFail(const std::string& text,
                               const std::vector<std::vector<Literal>>& arguments,
                               int64_t replicas, int64_t partitions) {
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  if (module == nullptr) return {};
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, arguments, MeshOptions(replicas, partitions));
  if (!outputs.ok()) {
    ADD_FAILURE() << "RunModule failed: " << outputs.status() << "\n--- module ---\n" << text;
    return {};
  }
  EXPECT_EQ(static_cast<int64_t>(outputs->size()), replicas * partitions);
  return *std::move(outputs);
}

// Expects device d's output (an array) to hold expected[d].
void ExpectPerDevice(const std::vector<Literal>& outputs, const std::vector<Values>& expected) {
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t d = 0; d < outputs.size(); ++d)
    EXPECT_THAT(ValuesOf(outputs[d]), ElementsAreArray(expected[d])) << "device " << d;
}

std::string GroupsText(const Groups& groups) {
  std::vector<std::string> parts;
  for (const std::vector<int64_t>& group : groups)
    parts.push_back(absl::StrCat("{", absl::StrJoin(group, ","), "}"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// A module whose entry is `x = <in> parameter(0)` and `ROOT out = <out>
// <op>(x), <attributes>`.
std::string OneCollective(int64_t replicas, int64_t partitions, const std::string& in,
                          const std::string& out, const std::string& op,
                          const std::string& attributes) {
  return absl::StrCat("HloModule m, replica_count=", replicas, ", num_partitions=", partitions,
                      "\n", kAddF32, "\nENTRY main {\n  x = ", in, " parameter(0)\n  ROOT out = ",
                      out, " ", op, "(x)", attributes.empty() ? "" : ", ", attributes, "\n}\n");
}

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
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"),
                arguments, 2, 4),
      {{400, 402}, {600, 602}, {800, 802}, {1000, 1002},
       {400, 402}, {600, 602}, {800, 802}, {1000, 1002}});
  // Cross-replica-and-partition, groups of one replica: the 4 partitions of
  // the replica: replica 0 -> 0+100+200+300 = 600; replica 1 -> 2200.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce",
                              "channel_id=1, replica_groups={{0},{1}}, to_apply=add"),
                arguments, 2, 4),
      {{600, 604}, {600, 604}, {600, 604}, {600, 604},
       {2200, 2204}, {2200, 2204}, {2200, 2204}, {2200, 2204}});
  // Cross-replica-and-partition without groups: all 8 devices: 2800.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce", "channel_id=1, to_apply=add"),
                arguments, 2, 4),
      std::vector<Values>(8, Values{2800, 2808}));
  // Flattened ids, uneven groups {0,7}, {1,2}, {3,4,5,6}.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-reduce",
                              "channel_id=1, replica_groups={{0,7},{1,2},{3,4,5,6}}, "
                              "use_global_device_ids=true, to_apply=add"),
                arguments, 2, 4),
      {{700, 702}, {300, 302}, {300, 302}, {1800, 1804},
       {1800, 1804}, {1800, 1804}, {1800, 1804}, {700, 702}});
}

TEST(AllReduceTest, EveryGroupModeOn2x2) {
  // Devices 0 (r0 p0), 1 (r0 p1), 2 (r1 p0), 3 (r1 p1).
  auto arguments = IotaArguments(4, 2);
  ExpectPerDevice(RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"),
                            arguments, 2, 2),
                  {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                              "channel_id=1, replica_groups={{0},{1}}, to_apply=add"),
                arguments, 2, 2),
      {{100, 102}, {100, 102}, {500, 502}, {500, 502}});
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                              "channel_id=1, replica_groups={{0,1}}, to_apply=add"),
                arguments, 2, 2),
      std::vector<Values>(4, Values{600, 604}));
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
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
  ExpectPerDevice(
      RunOrFail(OneCollective(1, 4, "f32[3]", "f32[3]", "all-reduce",
                              "channel_id=1, replica_groups={{0}}, to_apply=add"),
                IotaArguments(4, 3), 1, 4),
      std::vector<Values>(4, Values{600, 604, 608}));
  // (1,4): flattened ids {1,3} and {0,2}.
  ExpectPerDevice(
      RunOrFail(OneCollective(1, 4, "f32[3]", "f32[3]", "all-reduce",
                              "channel_id=1, replica_groups={{1,3},{0,2}}, "
                              "use_global_device_ids=true, to_apply=add"),
                IotaArguments(4, 3), 1, 4),
      {{200, 202, 204}, {400, 402, 404}, {200, 202, 204}, {400, 402, 404}});
}

TEST(AllReduceTest, UnevenReplicaGroups) {
  ExpectPerDevice(
      RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                              "replica_groups={{0},{1,2,3}}, to_apply=add"),
                IotaArguments(4, 2), 4, 1),
      {{0, 1}, {600, 603}, {600, 603}, {600, 603}});
  ExpectPerDevice(
      RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                              "replica_groups={{3,1,0},{2}}, to_apply=add"),
                IotaArguments(4, 2), 4, 1),
      {{400, 403}, {400, 403}, {200, 201}, {400, 403}});
}

TEST(AllReduceTest, IotaReplicaGroups) {
  // [2,2]<=[4]: {0,1}, {2,3}.
  ExpectPerDevice(
      RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                              "replica_groups=[2,2]<=[4], to_apply=add"),
                IotaArguments(4, 2), 4, 1),
      {{100, 102}, {100, 102}, {500, 502}, {500, 502}});
  // [2,2]<=[2,2]T(1,0): {0,2}, {1,3}.
  ExpectPerDevice(
      RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                              "replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add"),
                IotaArguments(4, 2), 4, 1),
      {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  // The same groups as flattened ids on a 2x2 mesh.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 2, "f32[2]", "f32[2]", "all-reduce",
                              "channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), "
                              "use_global_device_ids=true, to_apply=add"),
                IotaArguments(4, 2), 2, 2),
      {{200, 202}, {400, 402}, {200, 202}, {400, 402}});
  // [1,4]<=[4]: one group of everyone.
  ExpectPerDevice(
      RunOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
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
  const std::string module = absl::StrCat("HloModule m, replica_count=2, num_partitions=2\n",
                                          kAddF32, R"(
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[1,3] parameter(1)
  ROOT ar = (f32[2], f32[1,3]) all-reduce(x, y), replica_groups={{0,1}}, to_apply=add
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    arguments.push_back(
        {F32(DeviceIota(d, 2)), MakeArray(PrimitiveType::F32, {1, 3}, {1.0 * d, 2.0 * d, 3.0 * d})});
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
    cross_replica.push_back(
        {100.0 * p, 100.0 * p + 1, 100.0 * (4 + p), 100.0 * (4 + p) + 1});
  }
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[4]", "all-gather", "dimensions={0}"), arguments,
                2, 4),
      cross_replica);
  // Cross-replica-and-partition, groups {1},{0}: the replica's 4 partitions.
  const Values replica0 = {0, 1, 100, 101, 200, 201, 300, 301};
  const Values replica1 = {400, 401, 500, 501, 600, 601, 700, 701};
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[8]", "all-gather",
                              "channel_id=1, replica_groups={{1},{0}}, dimensions={0}"),
                arguments, 2, 4),
      {replica0, replica0, replica0, replica0, replica1, replica1, replica1, replica1});
  // Flattened ids, pieces in the group's order.
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[4]", "all-gather",
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
  ExpectPerDevice(outputs, {{0, 200, 1, 201}, {100, 300, 101, 301}, {0, 200, 1, 201},
                            {100, 300, 101, 301}});
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
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[2]),
                ElementsAre(13, 12, 11, 10, 3, 2, 1, 0))
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
  ExpectPerDevice(
      RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "all-to-all", "dimensions={0}"),
                IotaArguments(8, 2), 2, 4),
      cross_replica);
  // Cross-partition (channel): group {4r..4r+3}; device at position q gets
  // element q of each.
  std::vector<Values> cross_partition;
  for (int64_t d = 0; d < 8; ++d) {
    double r = d / 4, q = d % 4;
    cross_partition.push_back({400 * r + q, 400 * r + 100 + q, 400 * r + 200 + q,
                               400 * r + 300 + q});
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
      {{0, 300}, {100, 200}, {101, 201}, {1, 301},
       {400, 700}, {500, 600}, {501, 601}, {401, 701}});
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
  ExpectPerDevice(RunOrFail(OneCollective(2, 4, "f32[2]", "f32[2]", "collective-permute",
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
      case Mode::kCrossReplica:
        devices.push_back(id * partitions + partition);
        break;
      case Mode::kCrossPartition:
        devices.push_back(replica * partitions + id);
        break;
      case Mode::kCrossReplicaAndPartition:
        for (int64_t p = 0; p < partitions; ++p) devices.push_back(id * partitions + p);
        break;
      case Mode::kFlattenedId:
        devices.push_back(id);
        break;
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
    for (const Groups& groups :
         GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
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
    for (const Groups& groups :
         GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
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
    for (const Groups& groups :
         GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
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
          int64_t from = mode == Mode::kCrossPartition ? replica * P() + source
                                                       : source * P() + partition;
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
    for (const Groups& groups :
         GroupSets(IdSpace(mode, R(), P()), mode != Mode::kFlattenedId)) {
      int64_t size = GroupSize(mode, groups);
      for (const std::string& text :
           {OneCollective(R(), P(), "f32[2]", absl::StrCat("f32[", 2 * size, "]"), "all-gather",
                          Attributes(mode, groups, "dimensions={0}")),
            OneCollective(R(), P(), absl::StrCat("f32[", 2 * size, "]"), "f32[2]",
                          "reduce-scatter",
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

// ---------------------------------------------------------------------------
// Control flow around collectives

TEST(ControlFlowTest, WhileLoopWithAnAllReduceInTheBody) {
  // x <- all-reduce(x) - x three times on 4 replicas, x_d = {d, d*d}:
  //   start  {0,0} {1,1} {2,4} {3,9}        sum {6,14}
  //   1      {6,14} {5,13} {4,10} {3,5}     sum {18,42}
  //   2      {12,28} {13,29} {14,32} {15,37} sum {54,126}
  //   3      {42,98} {41,97} {40,94} {39,89}
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  sum = f32[2] all-reduce(x), to_apply=add
  others = f32[2] subtract(sum, x)
  ROOT t = (s32[], f32[2]) tuple(next, others)
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(w), index=1
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) arguments.push_back({F32({1.0 * d, 1.0 * d * d})});
  ExpectPerDevice(RunOrFail(module, arguments, 4, 1), {{42, 98}, {41, 97}, {40, 94}, {39, 89}});
}

TEST(ControlFlowTest, WhileLoopWithAnAllReduceInTheCondition) {
  // Double v while the sum over the replicas is below 100: v_d = d + 1,
  // sums 10, 20, 40, 80, 160 -> 4 iterations, v_d = 16 (d + 1).
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (s32[], f32[]) parameter(0)
  v = f32[] get-tuple-element(s), index=1
  total = f32[] all-reduce(v), to_apply=add
  limit = f32[] constant(100)
  ROOT lt = pred[] compare(total, limit), direction=LT
}

body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  twice = f32[] add(v, v)
  ROOT t = (s32[], f32[]) tuple(next, twice)
}

ENTRY main {
  v = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, v)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    Literal v(Shape(PrimitiveType::F32, {}));
    v.SetFromDouble(0, d + 1.0);
    arguments.push_back({v});
  }
  std::vector<Literal> outputs = RunOrFail(module, arguments, 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_EQ(outputs[d].tuple_elements()[0].GetAsInt64(0), 4) << "device " << d;
    EXPECT_EQ(outputs[d].tuple_elements()[1].GetAsDouble(0), 16.0 * (d + 1)) << "device " << d;
  }
}

TEST(ControlFlowTest, CallRunsTheCollectiveOfTheCalleeEachTime) {
  // f(x) = 2 * all-reduce(x), called twice from the entry (one callee, two
  // call sites): x_d = {100d, 100d+1} -> {1200, 1208} -> {9600, 9664}.
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
f {
  x = f32[2] parameter(0)
  sum = f32[2] all-reduce(x), to_apply=add
  ROOT twice = f32[2] add(sum, sum)
}

ENTRY main {
  x = f32[2] parameter(0)
  c1 = f32[2] call(x), to_apply=f
  c2 = f32[2] call(c1), to_apply=f
  ROOT t = (f32[2], f32[2]) tuple(c1, c2)
}
)");
  std::vector<Literal> outputs = RunOrFail(module, IotaArguments(4, 2), 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[0]), ElementsAre(1200, 1208));
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[1]), ElementsAre(9600, 9664));
  }
}

TEST(ControlFlowTest, ConditionalIndexedByPartitionId) {
  // branch 0: x + 1, branch 1: 2x, branch 2: -x; partition 3 is out of range
  // and runs the last branch, as in XLA.
  const std::string module = R"(HloModule m, num_partitions=4
b0 {
  x = f32[2] parameter(0)
  one = f32[] constant(1)
  ones = f32[2] broadcast(one), dimensions={}
  ROOT y = f32[2] add(x, ones)
}

b1 {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
}

b2 {
  x = f32[2] parameter(0)
  ROOT y = f32[2] negate(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  p = u32[] partition-id()
  index = s32[] convert(p)
  ROOT c = f32[2] conditional(index, x, x, x), branch_computations={b0, b1, b2}
}
)";
  ExpectPerDevice(RunOrFail(module, IotaArguments(4, 2), 1, 4),
                  {{1, 2}, {200, 202}, {-200, -201}, {-300, -301}});
}

TEST(ControlFlowTest, ConditionalWithACollectiveTakenByEveryDevice) {
  // A flag that is the same on every device picks the branch; the true
  // branch sums over all four devices (flattened ids).
  const std::string module = absl::StrCat("HloModule m, replica_count=2, num_partitions=2\n",
                                          kAddF32, R"(
yes {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}

no {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  flag = pred[] parameter(1)
  ROOT c = f32[2] conditional(flag, x, x), true_computation=yes, false_computation=no
}
)");
  for (bool flag : {false, true}) {
    SCOPED_TRACE(flag ? "true" : "false");
    std::vector<std::vector<Literal>> arguments = IotaArguments(4, 2);
    for (auto& a : arguments) {
      Literal value(Shape(PrimitiveType::PRED, {}));
      value.SetFromInt64(0, flag ? 1 : 0);
      a.push_back(value);
    }
    ExpectPerDevice(RunOrFail(module, arguments, 2, 2),
                    flag ? std::vector<Values>(4, Values{600, 604})
                         : std::vector<Values>{{0, -1}, {-100, -101}, {-200, -201}, {-300, -301}});
  }
}

TEST(ControlFlowTest, BranchesWithTheirOwnCollectivesForDisjointGroups) {
  // Replicas 0 and 1 take the true branch (a sum over {0,1}); 2 and 3 the
  // false branch (a maximum over {2,3}). Each collective only involves the
  // devices that reach it, so nothing waits.
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

low {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
}

high {
  x = f32[2] parameter(0)
  ROOT m = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=max
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  two = u32[] constant(2)
  is_low = pred[] compare(r, two), direction=LT
  ROOT c = f32[2] conditional(is_low, x, x), true_computation=low, false_computation=high
}
)");
  ExpectPerDevice(RunOrFail(module, IotaArguments(4, 2), 4, 1),
                  {{100, 102}, {100, 102}, {300, 301}, {300, 301}});
}

// ---------------------------------------------------------------------------
// Errors: deadlocks, failures while others wait, bad arguments

constexpr char kCollectiveOnReplicaZeroOnly[] = R"(HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

reduce {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), to_apply=add
}

skip {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(r, zero), direction=EQ
  ROOT c = f32[2] conditional(first, x, x), true_computation=reduce, false_computation=skip
}
)";

TEST(DeadlockTest, CollectiveReachedByOnlySomeDevicesIsAnError) {
  auto module = ParseOrFail(kCollectiveOnReplicaZeroOnly);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kDeadlineExceeded) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("device(s) 1,2,3 never arrived"));
  EXPECT_LT(seconds, 10.0);
}

TEST(DeadlockTest, DifferentTripCountsAroundACollectiveIsAnError) {
  // Replica r runs r + 1 all-reduces: the second one never completes.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (u32[], f32[2]) parameter(0)
  i = u32[] get-tuple-element(s), index=0
  r = u32[] replica-id()
  ROOT le = pred[] compare(i, r), direction=LE
}

body {
  s = (u32[], f32[2]) parameter(0)
  i = u32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = u32[] constant(1)
  next = u32[] add(i, one)
  sum = f32[2] all-reduce(x), to_apply=add
  ROOT t = (u32[], f32[2]) tuple(next, sum)
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = u32[] constant(0)
  init = (u32[], f32[2]) tuple(zero, x)
  ROOT w = (u32[], f32[2]) while(init), condition=cond, body=body
}
)");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kDeadlineExceeded) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("never arrived"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("device(s) 0 never arrived"));
  EXPECT_LT(seconds, 10.0);
}

TEST(DeadlockTest, AFailingDeviceReleasesTheOthersAtOnce) {
  // Replica 0 fails (an unregistered custom-call) before the all-reduce the
  // others wait at: the run reports that failure, without waiting for the
  // rendezvous timeout.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
broken {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.never_registered"
}

fine {
  x = f32[2] parameter(0)
  ROOT y = f32[2] copy(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(r, zero), direction=EQ
  c = f32[2] conditional(first, x, x), true_computation=broken, false_computation=fine
  ROOT sum = f32[2] all-reduce(c), to_apply=add
}
)");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 60000;
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("hopt_test.never_registered"));
  EXPECT_LT(seconds, 10.0);
}

TEST(RunModuleTest, ReplicaGroupsThatMissADeviceAreAnError) {
  auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{0,1},{2}}, to_apply=add"));
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 60000;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 3 (replica 3, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("in none of the replica groups"));
}

TEST(RunModuleTest, OverlappingReplicaGroupsAreAnErrorNotADeadlock) {
  // Replica 1 is in two groups. Device 1 takes the first, devices 2 and 3
  // the second and wait for device 1 forever: the groups are invalid, which
  // deserves an InvalidArgument naming them rather than a deadlock report
  // after the rendezvous timeout.
  auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{0,1},{1,2,3}}, to_apply=add"));
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
}

TEST(RunModuleTest, InvalidSourceTargetPairsAreAnError) {
  // 4 replicas: id 7 does not exist; a target listed twice has two sources.
  // Quietly giving zeros (or the last source's value) hides a broken module.
  for (const char* pairs : {"{{0,7},{1,2}}", "{{0,2},{1,2}}"}) {
    SCOPED_TRACE(pairs);
    auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "collective-permute",
                                            absl::StrCat("source_target_pairs=", pairs)));
    ASSERT_NE(module, nullptr);
    absl::StatusOr<std::vector<Literal>> outputs =
        RunModule(*module, IotaArguments(4, 2), MeshOptions(4, 1));
    if (outputs.ok()) {
      ADD_FAILURE() << "accepted; device 2 got " << (*outputs)[2].ToText();
      continue;
    }
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
  }
}

// Runs `text` on 2 replicas in this (child) process and exits with 0 when
// RunModule returns an error, 1 when it succeeds (a crash is neither).
void ExitZeroIfRunModuleFails(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) std::_Exit(2);
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(**module, IotaArguments(2, 2), MeshOptions(2, 1));
  if (!outputs.ok()) std::fprintf(stderr, "%s\n", std::string(outputs.status().message()).c_str());
  std::_Exit(outputs.ok() ? 1 : 0);
}

TEST(RunModuleTest, OutOfRangeCollectiveDimensionIsAnErrorNotACrash) {
  // dimensions={1} on an f32[2] operand: the verifier lets it through (no
  // replica groups, so no shape check), and the interpreter must return an
  // error rather than index past the shape's dimensions.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const struct {
    const char* op;
    const char* result;
    const char* extra;
  } cases[] = {
      {"all-gather", "f32[4]", "dimensions={1}"},
      {"reduce-scatter", "f32[1]", "dimensions={1}, to_apply=add"},
      {"all-to-all", "f32[2]", "dimensions={1}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    std::string text = OneCollective(2, 1, "f32[2]", c.result, c.op, c.extra);
    EXPECT_EXIT(ExitZeroIfRunModuleFails(text), testing::ExitedWithCode(0), "");
  }
}

TEST(RunModuleTest, MeshFromTheModuleOrTheOptions) {
  const std::string text =
      OneCollective(2, 1, "f32[2]", "f32[2]", "all-reduce", "to_apply=add");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  // Default options: the header's 2 replicas.
  absl::StatusOr<std::vector<Literal>> two = RunModule(*module, IotaArguments(2, 2));
  ASSERT_TRUE(two.ok()) << two.status();
  ExpectPerDevice(*two, {{100, 102}, {100, 102}});
  // Overridden: 3 replicas.
  absl::StatusOr<std::vector<Literal>> three =
      RunModule(*module, IotaArguments(3, 2), MeshOptions(3, 1));
  ASSERT_TRUE(three.ok()) << three.status();
  ExpectPerDevice(*three, std::vector<Values>(3, Values{300, 303}));
  // Arguments for the wrong number of devices.
  absl::StatusOr<std::vector<Literal>> wrong = RunModule(*module, IotaArguments(3, 2));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("arguments for 3 devices, the mesh has 2"));
}

TEST(RunModuleTest, WrongNumberOfParametersIsAnError) {
  auto module = ParseOrFail(OneCollective(2, 1, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"));
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments(2);  // no parameters at all
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, MeshOptions(2, 1));
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("takes 1 arguments, got 0"));
}

TEST(RunModuleTest, ArgumentOfTheWrongShapeIsAnError) {
  // The entry takes f32[4]; device 1 is given f32[2]. Running on anyway
  // would return a value of the wrong shape (or fail somewhere deep inside);
  // the interpreter must refuse the argument.
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments;
  arguments.push_back({F32({1, 2, 3, 4})});
  arguments.push_back({F32({1, 2})});
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, MeshOptions(2, 1));
  EXPECT_FALSE(outputs.ok()) << "device 1's output: "
                             << (outputs.ok() ? (*outputs)[1].shape().ToString() : "");
  if (!outputs.ok()) {
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

// ---------------------------------------------------------------------------
// custom-call

TEST(CustomCallTest, RegisteredSemanticsSeeTheirDevice) {
  // Output = operand * (10 * replica + partition + 1).
  TestCustomCalls().Register(
      "hopt_test.scale_by_device",
      [](const HloInstruction& call, absl::Span<const Literal* const> operands,
         DeviceId device) -> absl::StatusOr<Literal> {
        if (operands.size() != 1) return absl::InvalidArgumentError("one operand");
        Literal out(call.shape());
        double factor = 10.0 * device.replica + device.partition + 1;
        for (int64_t k = 0; k < out.element_count(); ++k)
          out.SetFromDouble(k, operands[0]->GetAsDouble(k) * factor);
        return out;
      });
  const std::string module = R"(HloModule m, replica_count=2, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.scale_by_device"
}
)";
  std::vector<std::vector<Literal>> arguments;
  for (int d = 0; d < 4; ++d) arguments.push_back({F32({1, -2})});
  // Factors: d0 (0,0) 1, d1 (0,1) 2, d2 (1,0) 11, d3 (1,1) 12.
  ExpectPerDevice(RunOrFail(module, arguments, 2, 2), {{1, -2}, {2, -4}, {11, -22}, {12, -24}});
}

TEST(CustomCallTest, SemanticsErrorsAreReported) {
  TestCustomCalls().Register(
      "hopt_test.always_fails",
      [](const HloInstruction&, absl::Span<const Literal* const>,
         DeviceId device) -> absl::StatusOr<Literal> {
        return absl::FailedPreconditionError(
            absl::StrCat("always_fails on partition ", device.partition));
      });
  auto module = ParseOrFail(R"(HloModule m, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.always_fails"
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, IotaArguments(2, 2), MeshOptions(1, 2));
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("always_fails on partition 0"));
}

TEST(CustomCallTest, UnregisteredTargetIsAClearErrorWhenRefused) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.unregistered"
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(2, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("no semantics registered for custom-call target 'hopt_test.unregistered'"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("y (custom-call)"));
}

// ---------------------------------------------------------------------------
// Budgets

TEST(BudgetTest, MemoryBudgetIsAClearError) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[1024] parameter(0)
  y = f32[1024] negate(x)
  ROOT z = f32[1024] add(x, y)
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.max_bytes_per_device = 1000;
  std::vector<std::vector<Literal>> arguments(2);
  for (auto& a : arguments) a.push_back(Literal(Shape(PrimitiveType::F32, {1024})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(), HasSubstr("budget of 1000 bytes per device"));
  // The same module within the default budget runs.
  EXPECT_TRUE(RunModule(*module, arguments, MeshOptions(2, 1)).ok());
}

TEST(BudgetTest, MemoryBudgetCountsLiveValues) {
  // A chain of 64 negates of f32[1024]: at most two values (an operand and
  // its user) are live at a time, 8 KiB as f32 (16 KiB as the interpreter's
  // doubles); the values of all 65 instructions together take over 260 KiB.
  // The header promises a bound on live values, so 64 KiB must be enough.
  std::string text = "HloModule chain\nENTRY main {\n  v0 = f32[1024] parameter(0)\n";
  for (int k = 1; k <= 64; ++k)
    absl::StrAppend(&text, "  ", k == 64 ? "ROOT " : "", "v", k, " = f32[1024] negate(v", k - 1,
                    ")\n");
  text += "}\n";
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_bytes_per_device = 64 * 1024;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::F32, {1024})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
}

TEST(BudgetTest, MemoryBudgetCountsTheCallersLiveValuesToo) {
  // f32[100] values take 800 bytes each as the interpreter counts them. The
  // entry keeps x (800) while the callee holds its parameter and one more
  // value (1600): 2400 bytes live on the device at once, over a budget of
  // 2000, although neither computation alone exceeds it.
  auto module = ParseOrFail(R"(HloModule m
f {
  p = f32[100] parameter(0)
  n = f32[100] negate(p)
  ROOT m = f32[100] negate(n)
}

ENTRY main {
  x = f32[100] parameter(0)
  ROOT c = f32[100] call(x), to_apply=f
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_bytes_per_device = 2000;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::F32, {100})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok()) << "2400 live bytes passed a budget of 2000";
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  // With room for it, the same module runs.
  options.max_bytes_per_device = 4000;
  EXPECT_TRUE(RunModule(*module, arguments, options).ok());
}

TEST(BudgetTest, WhileStepBudgetIsAClearError) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.max_while_iterations = 10;
  std::vector<std::vector<Literal>> arguments(2);
  for (auto& a : arguments) a.push_back(Literal(Shape(PrimitiveType::S32, {})));
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(), HasSubstr("while loops ran more than 10 iterations"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("at while loop w"));
  EXPECT_LT(seconds, 10.0);
}

TEST(BudgetTest, WhileStepBudgetAllowsExactlyTheLimit) {
  // Counts to 10 with a budget of 10 iterations.
  auto module = ParseOrFail(R"(HloModule m
cond {
  s = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(s, ten), direction=LT
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_while_iterations = 10;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::S32, {})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].GetAsInt64(0), 10);
  options.max_while_iterations = 9;
  EXPECT_FALSE(RunModule(*module, arguments, options).ok());
}

// Each nested computation is a native frame of the interpreter: nesting
// past max_call_depth is refused instead of running out of stack.
std::string NestedCalls(int depth) {
  std::string text = "HloModule nested\n\nc0 {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n"
                     "  ROOT r = s32[] add(p, one)\n}\n\n";
  for (int i = 1; i < depth; ++i)
    absl::StrAppend(&text, "c", i, " {\n  p = s32[] parameter(0)\n  ROOT r = s32[] call(p), to_apply=c",
                    i - 1, "\n}\n\n");
  absl::StrAppend(&text, "ENTRY e {\n  p = s32[] parameter(0)\n  ROOT r = s32[] call(p), to_apply=c",
                  depth - 1, "\n}\n");
  return text;
}

// Runs NestedCalls(depth) on one device with the given depth budget.
absl::StatusOr<std::vector<Literal>> RunNestedCalls(int depth, int64_t max_call_depth) {
  auto module = ParseOrFail(NestedCalls(depth));
  if (module == nullptr) return absl::InternalError("NestedCalls did not parse");
  EvalOptions options = MeshOptions(1, 1);
  options.max_call_depth = max_call_depth;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::S32, {})));
  return RunModule(*module, arguments, options);
}

TEST(BudgetTest, CallDepthBudgetAllowsExactlyTheLimit) {
  // The entry plus 9 nested computations: 10 levels.
  absl::StatusOr<std::vector<Literal>> outputs = RunNestedCalls(9, 10);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].GetAsInt64(0), 1);
  outputs = RunNestedCalls(9, 9);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("interpreter: computations nest more than 9 deep (at computation c0)"));
}

TEST(BudgetTest, DeepCallChainsAreRefusedNotOverflowed) {
  // 20,000 levels overflowed the 8 MB stack before the budget existed.
  absl::StatusOr<std::vector<Literal>> outputs =
      RunNestedCalls(20000, EvalOptions().max_call_depth);
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("computations nest more than 256 deep"));
}

TEST(BudgetTest, StackGuardCatchesWhatTheDepthLimitLetsThrough) {
  // With the depth limit out of the way, the stack guard stops the
  // recursion before the device thread's stack runs out.
  absl::StatusOr<std::vector<Literal>> outputs = RunNestedCalls(200000, 1000000);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("interpreter: computations nest too deeply for the stack ("));
}

// ---------------------------------------------------------------------------
// Many devices, many instructions: every device walks the same computations
// at the same time.

std::string LongChain(int64_t replicas, int instructions) {
  std::string text = absl::StrCat("HloModule chain, replica_count=", replicas,
                                  "\nENTRY main {\n  v0 = f32[16] parameter(0)\n"
                                  "  one = f32[] constant(1)\n"
                                  "  ones = f32[16] broadcast(one), dimensions={}\n");
  for (int k = 1; k <= instructions; ++k)
    absl::StrAppend(&text, "  ", k == instructions ? "ROOT " : "", "v", k, " = f32[16] add(v",
                    k - 1, ", ones)\n");
  return text + "}\n";
}

// Runs in a child process (a crash there fails the test instead of ending
// the whole binary): 8 devices x 1000 instructions, 40 runs; every run must
// succeed with x_d + 1000 on every device.
void RunLongChainOnEightDevices() {
  auto module = ParseHloModule(LongChain(8, 1000));
  if (!module.ok()) std::_Exit(2);
  auto arguments = IotaArguments(8, 16);
  for (int run = 0; run < 40; ++run) {
    absl::StatusOr<std::vector<Literal>> outputs =
        RunModule(**module, arguments, MeshOptions(8, 1));
    if (!outputs.ok()) {
      std::fprintf(stderr, "run %d: %s\n", run, std::string(outputs.status().message()).c_str());
      std::_Exit(3);
    }
    for (int64_t d = 0; d < 8; ++d)
      for (int64_t k = 0; k < 16; ++k)
        if ((*outputs)[d].GetAsDouble(k) != k + 100.0 * d + 1000) std::_Exit(4);
  }
  std::_Exit(0);
}

TEST(ConcurrencyTest, EightDevicesRunALongChainRepeatedly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunLongChainOnEightDevices(), testing::ExitedWithCode(0), "");
}

// What the devices' threads share: the post order of one computation,
// computed by every device at the same time, must come out complete.
TEST(ConcurrencyTest, PostOrderOfASharedComputationIsCompleteInEveryThread) {
  auto module = ParseOrFail(LongChain(8, 2000));
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  const size_t expected = static_cast<size_t>(entry->instruction_count());
  std::vector<size_t> smallest(8, expected);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 50; ++run)
        smallest[t] = std::min(smallest[t], entry->MakeInstructionPostOrder().size());
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(smallest[t], expected) << "thread " << t << " saw an incomplete post order";
}

// ---------------------------------------------------------------------------
// BitwiseEqual

double DoubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

double FloatNanWithPayload(uint32_t payload) {
  uint32_t bits = 0x7fc00000u | payload;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return static_cast<double>(value);
}

TEST(BitwiseEqualTest, IdenticalLiteralsAreEqual) {
  std::string difference = "untouched";
  EXPECT_TRUE(BitwiseEqual(F32({1, -2, 0.5}), F32({1, -2, 0.5}), &difference));
  Literal nan1(Shape(PrimitiveType::F64, {1})), nan2(Shape(PrimitiveType::F64, {1}));
  nan1.SetFromDouble(0, DoubleFromBits(0x7ff8000000000005ull));
  nan2.SetFromDouble(0, DoubleFromBits(0x7ff8000000000005ull));
  EXPECT_TRUE(BitwiseEqual(nan1, nan2, &difference));
}

TEST(BitwiseEqualTest, NegativeZeroDiffersFromZero) {
  for (PrimitiveType type : {PrimitiveType::F32, PrimitiveType::F64, PrimitiveType::BF16,
                             PrimitiveType::F16}) {
    Literal a = MakeArray(type, {3}, {1, 0.0, 2});
    Literal b = MakeArray(type, {3}, {1, -0.0, 2});
    std::string difference;
    EXPECT_FALSE(BitwiseEqual(a, b, &difference)) << PrimitiveTypeString(type);
    EXPECT_EQ(difference, "element 1: 0 vs -0") << PrimitiveTypeString(type);
  }
}

TEST(BitwiseEqualTest, NanPayloadsDiffer) {
  Literal a(Shape(PrimitiveType::F64, {2})), b(Shape(PrimitiveType::F64, {2}));
  a.SetFromDouble(1, DoubleFromBits(0x7ff8000000000001ull));
  b.SetFromDouble(1, DoubleFromBits(0x7ff8000000000002ull));
  std::string difference;
  EXPECT_FALSE(BitwiseEqual(a, b, &difference));
  EXPECT_THAT(difference, HasSubstr("element 1: "));
  // f32 NaNs with different payloads.
  Literal c(Shape(PrimitiveType::F32, {1})), e(Shape(PrimitiveType::F32, {1}));
  c.SetFromDouble(0, FloatNanWithPayload(1));
  e.SetFromDouble(0, FloatNanWithPayload(2));
  EXPECT_FALSE(BitwiseEqual(c, e, &difference));
  EXPECT_THAT(difference, HasSubstr("element 0: "));
  // The sign of a NaN counts too.
  Literal f(Shape(PrimitiveType::F32, {1})), g(Shape(PrimitiveType::F32, {1}));
  f.SetFromDouble(0, std::numeric_limits<double>::quiet_NaN());
  g.SetFromDouble(0, -std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(BitwiseEqual(f, g, &difference));
}

TEST(BitwiseEqualTest, NanPayloadSurvivesACollective) {
  // An all-gather moves values bit for bit: the payloads of device 0's NaNs
  // reach device 1 unchanged.
  std::vector<std::vector<Literal>> arguments(2);
  Literal x0(Shape(PrimitiveType::F64, {1})), x1(Shape(PrimitiveType::F64, {1}));
  x0.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abcull));
  x1.SetFromDouble(0, -0.0);
  arguments[0].push_back(x0);
  arguments[1].push_back(x1);
  std::vector<Literal> outputs = RunOrFail(
      OneCollective(2, 1, "f64[1]", "f64[2]", "all-gather", "dimensions={0}"), arguments, 2, 1);
  ASSERT_EQ(outputs.size(), 2u);
  Literal expected(Shape(PrimitiveType::F64, {2}));
  expected.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abcull));
  expected.SetFromDouble(1, -0.0);
  std::string difference;
  EXPECT_TRUE(BitwiseEqual(outputs[1], expected, &difference)) << difference;
  Literal other_payload(Shape(PrimitiveType::F64, {2}));
  other_payload.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abdull));
  other_payload.SetFromDouble(1, -0.0);
  EXPECT_FALSE(BitwiseEqual(outputs[1], other_payload, &difference));
}

TEST(BitwiseEqualTest, DescribesIntegerTupleAndShapeDifferences) {
  std::string difference;
  EXPECT_FALSE(BitwiseEqual(S32({1, 3, 5}), S32({1, 4, 5}), &difference));
  EXPECT_EQ(difference, "element 1: 3 vs 4");

  Literal t1(Shape::MakeTuple({Shape(PrimitiveType::S32, {1}), Shape(PrimitiveType::F32, {2})}));
  Literal t2 = t1;
  t1.mutable_tuple_elements()[1] = F32({1, 2});
  t2.mutable_tuple_elements()[1] = F32({1, 2.5});
  EXPECT_FALSE(BitwiseEqual(t1, t2, &difference));
  EXPECT_EQ(difference, "tuple element 1, element 1: 2 vs 2.5");

  EXPECT_FALSE(BitwiseEqual(F32({1, 2}), F32({1, 2, 3}), &difference));
  EXPECT_THAT(difference, HasSubstr("shapes differ"));
  EXPECT_FALSE(BitwiseEqual(F32({1, 2}), S32({1, 2}), &difference));
  EXPECT_THAT(difference, HasSubstr("shapes differ"));

  // u64 values above 2^63 compare as bit patterns.
  Literal u1(Shape(PrimitiveType::U64, {1})), u2(Shape(PrimitiveType::U64, {1}));
  u1.SetFromInt64(0, static_cast<int64_t>(0x8000000000000001ull));
  u2.SetFromInt64(0, static_cast<int64_t>(0x8000000000000002ull));
  EXPECT_FALSE(BitwiseEqual(u1, u2, &difference));
}

// ---------------------------------------------------------------------------
// RandomArguments

TEST(RandomArgumentsTest, SeededPerDeviceAndInRange) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
ENTRY main {
  x = f32[64] parameter(0)
  i = s32[64] parameter(1)
  u = u8[64] parameter(2)
  p = pred[64] parameter(3)
  t = (f32[64], s32[64]) tuple(x, i)
  ROOT r = (f32[64], s32[64]) copy(t)
}
)");
  ASSERT_NE(module, nullptr);
  auto a = RandomArguments(*module, 4, 7);
  auto b = RandomArguments(*module, 4, 7);
  auto c = RandomArguments(*module, 4, 8);
  ASSERT_EQ(a.size(), 4u);
  std::string difference;
  for (int d = 0; d < 4; ++d) {
    ASSERT_EQ(a[d].size(), 4u);
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(BitwiseEqual(a[d][k], b[d][k], &difference)) << "same seed: " << difference;
    EXPECT_EQ(a[d][0].shape().ToString(false), "f32[64]");
    for (int64_t e = 0; e < 64; ++e) {
      double x = a[d][0].GetAsDouble(e);
      EXPECT_GE(x, -2.0);
      EXPECT_LT(x, 2.0);
      EXPECT_EQ(x * 8, std::floor(x * 8)) << "multiples of 1/8";
      EXPECT_GE(a[d][1].GetAsInt64(e), -8);
      EXPECT_LT(a[d][1].GetAsInt64(e), 8);
      EXPECT_GE(a[d][2].GetAsInt64(e), 0);
      EXPECT_LT(a[d][2].GetAsInt64(e), 16);
      EXPECT_TRUE(a[d][3].GetAsInt64(e) == 0 || a[d][3].GetAsInt64(e) == 1);
    }
  }
  // Devices get different inputs; another seed gives other inputs.
  EXPECT_FALSE(BitwiseEqual(a[0][0], a[1][0], &difference));
  EXPECT_FALSE(BitwiseEqual(a[0][0], c[0][0], &difference));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

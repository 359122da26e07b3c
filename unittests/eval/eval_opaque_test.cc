// SPDX-License-Identifier: Apache-2.0
// Custom-calls without registered semantics (opaque calls) and the mesh the
// tools infer from a module's groups (docs/hlo-run.md).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/mesh_compare.h"
#include "core/eval/tooling/mesh_inference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::hopt::testing_util::ParseOrFail;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<Literal> RunOrFail(const HloModule& module, int64_t devices, uint64_t seed,
                               RunLog* log = nullptr, EvalOptions options = {}) {
  auto outputs = RunModule(module, RandomArguments(module, devices, seed), options, log);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  return outputs.ok() ? *std::move(outputs) : std::vector<Literal>{};
}

std::string Text(const Literal& value) { return value.ToText(); }

// The same call on the same values, under two names and with different
// metadata: the same result. Another backend_config or other values: another.
TEST(OpaqueCallTest, SameCallSameValuesSameResult) {
  auto a = ParseOrFail(R"(HloModule a
ENTRY main {
  p = f32[8] parameter(0)
  ROOT c = f32[8] custom-call(p), custom_call_target="AwsNeuronTransferWithStaticRing", backend_config="ring=0", metadata={op_name="one"}
})");
  auto b = ParseOrFail(R"(HloModule b
ENTRY main {
  q = f32[8] parameter(0)
  ROOT renamed = f32[8] custom-call(q), custom_call_target="AwsNeuronTransferWithStaticRing", backend_config="ring=0", metadata={op_name="two"}
})");
  auto other_config = ParseOrFail(R"(HloModule c
ENTRY main {
  p = f32[8] parameter(0)
  ROOT c = f32[8] custom-call(p), custom_call_target="AwsNeuronTransferWithStaticRing", backend_config="ring=1"
})");
  auto other_target = ParseOrFail(R"(HloModule d
ENTRY main {
  p = f32[8] parameter(0)
  ROOT c = f32[8] custom-call(p), custom_call_target="AwsNeuronSomethingElse", backend_config="ring=0"
})");
  ASSERT_TRUE(a && b && other_config && other_target);
  std::string first = Text(RunOrFail(*a, 1, 7)[0]);
  EXPECT_EQ(first, Text(RunOrFail(*a, 1, 7)[0]));
  EXPECT_EQ(first, Text(RunOrFail(*b, 1, 7)[0]));
  EXPECT_NE(first, Text(RunOrFail(*a, 1, 8)[0]));
  EXPECT_NE(first, Text(RunOrFail(*other_config, 1, 7)[0]));
  EXPECT_NE(first, Text(RunOrFail(*other_target, 1, 7)[0]));
}

// Floats are finite multiples of 1/64 in [-2, 2); integers small; every
// leaf of a tuple gets values of its own.
TEST(OpaqueCallTest, ResultValuesFitTheirTypes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = s32[3] parameter(0)
  ROOT c = (f32[64], bf16[64], s8[64], u32[64], pred[64], f32[64]) custom-call(p), custom_call_target="vendor.kernel"
})");
  ASSERT_NE(module, nullptr);
  std::vector<Literal> out = RunOrFail(*module, 1, 1);
  ASSERT_EQ(out.size(), 1u);
  const std::vector<Literal>& leaves = out[0].tuple_elements();
  ASSERT_EQ(leaves.size(), 6u);
  bool any_nonzero = false;
  for (int64_t k = 0; k < 64; ++k) {
    for (int leaf : {0, 1, 5}) {
      double x = leaves[leaf].GetAsDouble(k);
      EXPECT_TRUE(std::isfinite(x));
      EXPECT_GE(x, -2.0);
      EXPECT_LT(x, 2.0);
      EXPECT_EQ(x * 64, std::floor(x * 64));
      any_nonzero |= x != 0;
    }
    EXPECT_GE(leaves[2].GetAsInt64(k), -128);
    EXPECT_LT(leaves[2].GetAsInt64(k), 128);
    EXPECT_LT(leaves[3].GetAsInt64(k), 256);
    EXPECT_GE(leaves[4].GetAsInt64(k), 0);
    EXPECT_LE(leaves[4].GetAsInt64(k), 1);
  }
  EXPECT_TRUE(any_nonzero);
  EXPECT_NE(Text(leaves[0]), Text(leaves[5]));
}

TEST(OpaqueCallTest, EveryDeviceLogsItsCallsUsedOrNot) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  unused = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  ROOT used = f32[4] custom-call(p), custom_call_target="vendor.kernel"
})");
  ASSERT_NE(module, nullptr);
  RunLog log;
  RunOrFail(*module, 2, 1, &log);
  ASSERT_EQ(log.opaque_calls.size(), 2u);
  for (const std::vector<OpaqueCall>& calls : log.opaque_calls) {
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_NE(calls[0].target, calls[1].target);
  }
}

constexpr char kTwoCalls[] = R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  first = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  second = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="b"
  ROOT r = f32[4] copy(p)
})";

// The outputs do not show the calls: only the log does.
TEST(OpaqueCallTest, CompareOnMeshCatchesADroppedUnusedCall) {
  auto before = ParseOrFail(kTwoCalls);
  auto after = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  first = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  ROOT r = f32[4] copy(p)
})");
  ASSERT_TRUE(before && after);
  MeshComparison compared = CompareOnMesh(*before, *after, 2, 1);
  EXPECT_EQ(compared.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_THAT(compared.message, StartsWith("device 0 (replica 0, partition 0), input set 0"));
  EXPECT_THAT(compared.message, HasSubstr("opaque custom-call 'vendor.effect' (%second)"));
  EXPECT_THAT(compared.message, HasSubstr("ran 1 time(s) before, 0 after"));
}

TEST(OpaqueCallTest, CompareOnMeshCatchesADuplicatedCall) {
  auto before = ParseOrFail(kTwoCalls);
  auto after = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  first = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  again = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  second = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="b"
  ROOT r = f32[4] copy(p)
})");
  ASSERT_TRUE(before && after);
  MeshComparison compared = CompareOnMesh(*before, *after, 1, 1);
  EXPECT_EQ(compared.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_THAT(compared.message, HasSubstr("ran 1 time(s) before, 2 after"));
}

TEST(OpaqueCallTest, CompareOnMeshCatchesARewiredCall) {
  auto before = ParseOrFail(kTwoCalls);
  auto after = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  first = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  second = f32[4] custom-call(n), custom_call_target="vendor.effect", backend_config="b"
  ROOT r = f32[4] copy(p)
})");
  ASSERT_TRUE(before && after);
  MeshComparison compared = CompareOnMesh(*before, *after, 1, 1);
  EXPECT_EQ(compared.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_THAT(compared.message, HasSubstr("'vendor.effect'"));
}

// The log is a multiset: independent calls in another order are the same.
TEST(OpaqueCallTest, CompareOnMeshAcceptsReorderedCalls) {
  auto before = ParseOrFail(kTwoCalls);
  auto after = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  p = f32[4] parameter(0)
  second = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="b"
  first = f32[4] custom-call(p), custom_call_target="vendor.effect", backend_config="a"
  ROOT r = f32[4] copy(p)
})");
  ASSERT_TRUE(before && after);
  MeshComparison compared = CompareOnMesh(*before, *after, 2, 1);
  EXPECT_EQ(compared.outcome, MeshComparison::Outcome::kEqual) << compared.message;
}

TEST(OpaqueCallTest, RefuseNamesTheCallAndItsPlace) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), custom_call_target="vendor.kernel"
})",
                            "dump.hlo");
  ASSERT_NE(module, nullptr);
  absl::Status refused = RefuseOpaqueCustomCalls(*module, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.message()),
              StartsWith("dump.hlo:4:8: error: interpreter: %c: no semantics "
                         "registered for custom-call target 'vendor.kernel'"));
  EvalOptions options;
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  auto outputs = RunModule(*module, RandomArguments(*module, 1, 1), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(std::string(outputs.status().message()), HasSubstr("'vendor.kernel'"));
}

// ---------------------------------------------------------------------------
// Mesh inference

TEST(MeshInferenceTest, HeaderThatFitsIsKept) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={{0,1}}, to_apply=add
})");
  ASSERT_NE(module, nullptr);
  MeshChoice choice = ChooseMesh(*module);
  EXPECT_EQ(choice.mesh.replicas, 4);
  EXPECT_EQ(choice.mesh.partitions, 1);
  EXPECT_EQ(choice.note, "");
}

TEST(MeshInferenceTest, ReplicaGroupsNameMoreReplicas) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=1
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[2] parameter(0)
  ar = f32[2] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
  ROOT ag = f32[8] all-gather(ar), replica_groups=[2,4]<=[8], dimensions={0}
})");
  ASSERT_NE(module, nullptr);
  MeshChoice choice = ChooseMesh(*module);
  EXPECT_EQ(choice.mesh.replicas, 8);
  EXPECT_EQ(choice.mesh.partitions, 1);
  EXPECT_EQ(choice.note,
            "mesh: 8 replicas x 1 partition, inferred from replica_groups of %ag (module says "
            "replica_count=1); -replicas/-partitions override");
  // The user's word wins, and the other dimension is still inferred.
  MeshChoice given = ChooseMesh(*module, 2, 0);
  EXPECT_EQ(given.mesh.replicas, 2);
  EXPECT_EQ(given.note, "");
  MeshChoice partitions = ChooseMesh(*module, 0, 2);
  EXPECT_EQ(partitions.mesh.replicas, 8);
  EXPECT_EQ(partitions.mesh.partitions, 2);
}

TEST(MeshInferenceTest, ChannelPermuteNamesPartitions) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), channel_id=1, source_target_pairs={{0,1},{1,2},{2,0}}
})");
  ASSERT_NE(module, nullptr);
  MeshChoice choice = ChooseMesh(*module);
  EXPECT_EQ(choice.mesh.replicas, 1);
  EXPECT_EQ(choice.mesh.partitions, 3);
  EXPECT_THAT(choice.note, HasSubstr("inferred from source_target_pairs of %cp (module says "
                                     "num_partitions=1)"));
}

TEST(MeshInferenceTest, GlobalDeviceIdsLeaveTheSplitToTheOptions) {
  auto module = ParseOrFail(R"(HloModule m, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
})");
  ASSERT_NE(module, nullptr);
  MeshChoice choice = ChooseMesh(*module);
  EXPECT_EQ(choice.mesh.replicas, 4);
  EXPECT_EQ(choice.mesh.partitions, 2);
  EXPECT_THAT(choice.note, HasSubstr("-replicas/-partitions decide the split"));
  MeshChoice given = ChooseMesh(*module, 0, 8);
  EXPECT_EQ(given.mesh.replicas, 1);
  EXPECT_EQ(given.mesh.partitions, 8);
}

// Groups inside a custom-call's backend_config reach the inference through
// the collective describer its plugin registered; core knows no names.
TEST(MeshInferenceTest, CollectiveCustomCallsSayTheirGroups) {
  CustomCallTable table;
  table.RegisterCollective(
      "hopt_test.mesh_all_reduce",
      [](const HloInstruction& call, const Mesh&) -> absl::StatusOr<CollectiveDescription> {
        CollectiveDescription description;
        description.kind = HloOpcode::kAllReduce;
        description.replica_groups = {{0, 1, 2, 3, 4, 5}};
        description.reduction_opcode = HloOpcode::kAdd;
        return description;
      });
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(p), custom_call_target="hopt_test.mesh_all_reduce"
})");
  ASSERT_NE(module, nullptr);
  // Without the table the call says nothing about the mesh.
  EXPECT_EQ(ChooseMesh(*module).mesh.replicas, 1);
  MeshChoice choice = ChooseMesh(*module, 0, 0, &table);
  EXPECT_EQ(choice.mesh.replicas, 6);
  EXPECT_THAT(choice.note, HasSubstr("replica_groups of %c"));
  // reduction_opcode: the sum, without any to_apply.
  EvalOptions options;
  options.custom_calls = &table;
  options.replicas = 6;
  std::vector<std::vector<Literal>> arguments(6);
  for (int64_t d = 0; d < 6; ++d) {
    Literal value(Shape(PrimitiveType::F32, {2}));
    value.SetFromDouble(0, d);
    value.SetFromDouble(1, 1);
    arguments[d].push_back(value);
  }
  auto outputs = RunModule(*module, arguments, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[3].ToText(), "{15, 6}");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

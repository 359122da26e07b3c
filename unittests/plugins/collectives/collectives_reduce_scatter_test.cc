// SPDX-License-Identifier: Apache-2.0
// fuse-reduce-scatter: the structure of each rewrite, its results on the
// standard meshes (bit for bit, through the interpreter), and the shapes the
// pass must leave alone.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "collectives/fuse_reduce_scatter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloModule;
using hopt::HloOpcode;
using hopt::testing_util::ExpectSameResults;
using hopt::testing_util::MeshShape;
using hopt::testing_util::ParseOrFail;
using hopt::testing_util::RunPassOrFail;
using hopt::testing_util::StandardMeshes;

std::vector<HloInstruction*> Find(const HloModule& module, HloOpcode opcode) {
  std::vector<HloInstruction*> found;
  for (HloInstruction* instruction : module.entry_computation()->instructions())
    if (instruction->opcode() == opcode) found.push_back(instruction);
  return found;
}

int64_t Count(const HloModule& module, HloOpcode opcode) {
  return static_cast<int64_t>(Find(module, opcode).size());
}

// The one reduce-scatter of the entry computation (the test fails if there
// are others).
HloInstruction* OnlyReduceScatter(const HloModule& module) {
  std::vector<HloInstruction*> found = Find(module, HloOpcode::kReduceScatter);
  EXPECT_EQ(found.size(), 1u) << hopt::PrintModule(module);
  return found.empty() ? nullptr : found[0];
}

// Runs the pass, expects a change, checks the results on every standard
// mesh and returns the rewritten module.
std::unique_ptr<HloModule> FuseAndCheck(const std::string& text,
                                        const std::vector<MeshShape>& meshes = StandardMeshes()) {
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  if (module == nullptr) return nullptr;
  FuseReduceScatter pass;
  auto [after, changed] = RunPassOrFail(pass, *module);
  if (after == nullptr) return nullptr;
  EXPECT_TRUE(changed) << hopt::PrintModule(*after);
  for (const MeshShape& mesh : meshes) ExpectSameResults(*module, *after, mesh);
  return std::move(after);
}

// Runs the pass and expects it to leave the module exactly as it was.
void ExpectUnchanged(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  FuseReduceScatter pass;
  auto [after, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(after, nullptr);
  EXPECT_FALSE(changed);
  EXPECT_EQ(hopt::PrintModule(*after), hopt::PrintModule(*module));
}

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// channel_id with empty groups: every device of the mesh is in the one
// group (cross-replica-and-partition), so group size 8 on every standard
// mesh.
constexpr char kDirectF32[] = R"(
HloModule direct, replica_count=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add, metadata={op_name="first"}
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add, metadata={op_name="second"}
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
)";

TEST(FuseReduceScatterTest, DirectConcatenateF32) {
  std::unique_ptr<HloModule> after = FuseAndCheck(kDirectF32);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(after->entry_computation()->root_instruction(), rs);
  EXPECT_EQ(rs->shape().ToString(), "f32[2,8]{1,0}");
  EXPECT_EQ(rs->dimensions(), std::vector<int64_t>{0});
  EXPECT_EQ(rs->channel_id(), 3);  // fresh: 1 and 2 were taken
  EXPECT_EQ(rs->replica_groups()->ToString(), "{}");
  EXPECT_FALSE(rs->use_global_device_ids());
  EXPECT_EQ(rs->to_apply()->name(), "add");
  ASSERT_TRUE(rs->metadata().has_value());
  EXPECT_EQ(rs->metadata()->op_name, "first");
  // The one concatenate left joins the inputs, on the same dimension.
  const HloInstruction* joined = rs->operand(0);
  EXPECT_EQ(joined->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(joined->shape().ToString(), "f32[16,8]{1,0}");
  EXPECT_EQ(joined->dimensions(), std::vector<int64_t>{1});
  EXPECT_EQ(joined->operand(0)->name(), "x0");
  EXPECT_EQ(joined->operand(1)->name(), "x1");
  EXPECT_EQ(Count(*after, HloOpcode::kConcatenate), 1);
}

// Flattened ids in two groups of four, three members, scatter dimension 1,
// bf16; the reductions are two computations that both add their
// parameters.
constexpr char kGlobalIdsBf16[] = R"(
HloModule global_ids, replica_count=2, num_partitions=4
add_a {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
add_b {
  p = bf16[] parameter(0)
  q = bf16[] parameter(1)
  ROOT t = bf16[] add(p, q)
}
ENTRY main {
  x0 = bf16[3,8] parameter(0)
  x1 = bf16[2,8] parameter(1)
  x2 = bf16[1,8] parameter(2)
  rs0 = bf16[3,2] reduce-scatter(x0), channel_id=5, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={1}, to_apply=add_a
  rs1 = bf16[2,2] reduce-scatter(x1), channel_id=6, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={1}, to_apply=add_b
  rs2 = bf16[1,2] reduce-scatter(x2), channel_id=7, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={1}, to_apply=add_a
  c = bf16[6,2] concatenate(rs0, rs1, rs2), dimensions={0}
  ROOT n = bf16[6,2] negate(c)
}
)";

TEST(FuseReduceScatterTest, ThreeMembersGlobalIdsBf16) {
  std::unique_ptr<HloModule> after = FuseAndCheck(kGlobalIdsBf16);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->shape().ToString(), "bf16[6,2]{1,0}");
  EXPECT_EQ(rs->dimensions(), std::vector<int64_t>{1});
  EXPECT_EQ(rs->channel_id(), 8);
  EXPECT_TRUE(rs->use_global_device_ids());
  EXPECT_EQ(rs->replica_groups()->ToString(), "{{0,1,2,3},{4,5,6,7}}");
  EXPECT_EQ(rs->to_apply()->name(), "add_a");
  EXPECT_EQ(rs->operand(0)->shape().ToString(), "bf16[6,8]{1,0}");
  EXPECT_EQ(after->entry_computation()->root_instruction()->operand(0), rs);
}

// Without a channel the groups are replica ids: the shapes follow the
// mesh's replica count, so the module is written per mesh.
std::string CrossReplicaS32(int64_t replicas) {
  std::string text = R"(
HloModule cross_replica
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x0 = s32[4,$IN] parameter(0)
  x1 = s32[4,$IN] parameter(1)
  rs0 = s32[4,2] reduce-scatter(x0), replica_groups={}, dimensions={1}, to_apply=add
  rs1 = s32[4,2] reduce-scatter(x1), replica_groups={}, dimensions={1}, to_apply=add
  ROOT c = s32[8,2] concatenate(rs0, rs1), dimensions={0}
}
)";
  return absl::StrReplaceAll(text, {{"$IN", absl::StrCat(2 * replicas)}});
}

TEST(FuseReduceScatterTest, CrossReplicaS32) {
  for (const MeshShape& mesh : StandardMeshes()) {
    SCOPED_TRACE(absl::StrCat("mesh ", mesh.replicas, "x", mesh.partitions));
    std::unique_ptr<HloModule> after = FuseAndCheck(CrossReplicaS32(mesh.replicas), {mesh});
    ASSERT_NE(after, nullptr);
    HloInstruction* rs = OnlyReduceScatter(*after);
    ASSERT_NE(rs, nullptr);
    EXPECT_FALSE(rs->channel_id().has_value());
    EXPECT_EQ(rs->shape().ToString(), "s32[8,2]{1,0}");
    EXPECT_EQ(after->entry_computation()->root_instruction(), rs);
  }
}

// The groups as an iota list on one member and written out on the other
// are the same groups.
TEST(FuseReduceScatterTest, IotaAndExplicitGroupsAgree) {
  std::string fusible = absl::StrCat("HloModule iota\n", kAddF32, R"(
ENTRY main {
  x0 = f32[8,1] parameter(0)
  x1 = f32[8,1] parameter(1)
  rs0 = f32[2,1] reduce-scatter(x0), channel_id=1, replica_groups=[2,4]<=[8], use_global_device_ids=true, dimensions={0}, to_apply=add
  rs1 = f32[2,1] reduce-scatter(x1), channel_id=2, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  ROOT c = f32[2,2] concatenate(rs0, rs1), dimensions={1}
}
)");
  std::unique_ptr<HloModule> after = FuseAndCheck(fusible);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->replica_groups()->ExpandedGroups(),
            (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

// Through opt-barrier(tuple): the plumbing and the concatenate stay, each
// member becomes a slice of the wide result.
constexpr char kOptBarrierF32[] = R"(
HloModule barrier
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x0 = f32[16,3] parameter(0)
  x1 = f32[16,5] parameter(1)
  rs0 = f32[2,3] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,5] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  t = (f32[2,3], f32[2,5]) tuple(rs0, rs1)
  ob = (f32[2,3], f32[2,5]) opt-barrier(t)
  g0 = f32[2,3] get-tuple-element(ob), index=0
  g1 = f32[2,5] get-tuple-element(ob), index=1
  ROOT c = f32[2,8] concatenate(g0, g1), dimensions={1}
}
)";

TEST(FuseReduceScatterTest, ThroughOptBarrierF32) {
  std::unique_ptr<HloModule> after = FuseAndCheck(kOptBarrierF32);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->shape().ToString(), "f32[2,8]{1,0}");
  EXPECT_EQ(Count(*after, HloOpcode::kOptimizationBarrier), 1);
  HloInstruction* root = after->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kConcatenate);
  std::vector<HloInstruction*> tuples = Find(*after, HloOpcode::kTuple);
  ASSERT_EQ(tuples.size(), 1u);
  HloInstruction* tuple = tuples[0];
  ASSERT_EQ(tuple->operand_count(), 2);
  for (int64_t k = 0; k < 2; ++k) {
    const HloInstruction* slice = tuple->operand(k);
    EXPECT_EQ(slice->opcode(), HloOpcode::kSlice);
    EXPECT_EQ(slice->operand(0), rs);
  }
  EXPECT_EQ(tuple->operand(0)->GetAttributeText("slice"), "{[0:2], [0:3]}");
  EXPECT_EQ(tuple->operand(1)->GetAttributeText("slice"), "{[0:2], [3:8]}");
}

// Through a plain tuple, mixed with a direct member.
TEST(FuseReduceScatterTest, ThroughTupleMixedWithDirectS32) {
  std::string text = R"(
HloModule tuple_plumbing
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x0 = s32[16,2] parameter(0)
  x1 = s32[16,2] parameter(1)
  rs0 = s32[2,2] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = s32[2,2] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  t = (s32[2,2]) tuple(rs0)
  g0 = s32[2,2] get-tuple-element(t), index=0
  ROOT c = s32[2,4] concatenate(g0, rs1), dimensions={1}
}
)";
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  ASSERT_NE(OnlyReduceScatter(*after), nullptr);
  EXPECT_EQ(Count(*after, HloOpcode::kSlice), 2);
  EXPECT_EQ(Count(*after, HloOpcode::kTuple), 1);
}

// A member with a user outside the pattern keeps it through a slice; the
// concatenate itself is still replaced.
TEST(FuseReduceScatterTest, MemberWithOtherUserF32) {
  std::string text = absl::StrCat("HloModule other_user\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
  e = f32[2,4] exponential(rs1)
  ROOT t = (f32[2,8], f32[2,4]) tuple(c, e)
}
)");
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  HloInstruction* root = after->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0), rs);
  const HloInstruction* exp = root->operand(1);
  ASSERT_EQ(exp->operand(0)->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(exp->operand(0)->operand(0), rs);
  EXPECT_EQ(exp->operand(0)->GetAttributeText("slice"), "{[0:2], [4:8]}");
}

// A reduce-scatter two concatenates share goes to the first one (in post
// order); the second is left alone.
TEST(FuseReduceScatterTest, SharedMemberFusesOnce) {
  std::string text = absl::StrCat("HloModule shared\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  x2 = f32[16,4] parameter(2)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  rs2 = f32[2,4] reduce-scatter(x2), channel_id=3, replica_groups={}, dimensions={0}, to_apply=add
  c0 = f32[2,8] concatenate(rs0, rs1), dimensions={1}
  c1 = f32[2,8] concatenate(rs1, rs2), dimensions={1}
  ROOT t = (f32[2,8], f32[2,8]) tuple(c0, c1)
}
)");
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(Count(*after, HloOpcode::kReduceScatter), 2);
  EXPECT_NE(after->entry_computation()->GetInstructionWithName("rs2"), nullptr);
  EXPECT_NE(after->entry_computation()->GetInstructionWithName("c1"), nullptr);
}

// Two independent groups: two new reduce-scatters with distinct fresh ids.
TEST(FuseReduceScatterTest, TwoGroupsGetDistinctChannels) {
  std::string text = absl::StrCat("HloModule two_groups\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  rs2 = f32[2,4] reduce-scatter(x0), channel_id=3, replica_groups={}, dimensions={0}, to_apply=add
  rs3 = f32[2,4] reduce-scatter(x1), channel_id=4, replica_groups={}, dimensions={0}, to_apply=add
  c0 = f32[2,8] concatenate(rs0, rs1), dimensions={1}
  c1 = f32[2,8] concatenate(rs2, rs3), dimensions={1}
  ROOT t = (f32[2,8], f32[2,8]) tuple(c0, c1)
}
)");
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  std::vector<HloInstruction*> found = Find(*after, HloOpcode::kReduceScatter);
  ASSERT_EQ(found.size(), 2u);
  std::vector<int64_t> ids = {*found[0]->channel_id(), *found[1]->channel_id()};
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre(5, 6));
}

// The mean idiom: one division after the one reduce-scatter.
constexpr char kMeanF32[] = R"(
HloModule mean
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  k = f32[] constant(3)
  k0 = f32[2,4] broadcast(k), dimensions={}
  k1 = f32[2,4] broadcast(k), dimensions={}
  d0 = f32[2,4] divide(rs0, k0)
  d1 = f32[2,4] divide(rs1, k1)
  ROOT c = f32[2,8] concatenate(d0, d1), dimensions={1}
}
)";

TEST(FuseReduceScatterTest, MeanF32) {
  std::unique_ptr<HloModule> after = FuseAndCheck(kMeanF32);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  HloInstruction* root = after->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kDivide);
  EXPECT_EQ(root->shape().ToString(), "f32[2,8]{1,0}");
  EXPECT_EQ(root->operand(0), rs);
  const HloInstruction* divisor = root->operand(1);
  ASSERT_EQ(divisor->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(divisor->operand(0)->name(), "k");
  EXPECT_EQ(Count(*after, HloOpcode::kDivide), 1);
  // Reduce first, divide after: the reduce-scatter reads the joined inputs.
  EXPECT_EQ(rs->operand(0)->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(rs->operand(0)->operand(0)->opcode(), HloOpcode::kParameter);
}

// Integer division by a constant written out in full (no broadcast): a new
// scalar constant carries the common value.
TEST(FuseReduceScatterTest, MeanS32FullConstantDivisor) {
  std::string text = R"(
HloModule mean_s32
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x0 = s32[8,2] parameter(0)
  x1 = s32[8,2] parameter(1)
  rs0 = s32[1,2] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = s32[1,2] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  k0 = s32[1,2] constant({{3, 3}})
  k1 = s32[1,2] constant({{3, 3}})
  d0 = s32[1,2] divide(rs0, k0)
  d1 = s32[1,2] divide(rs1, k1)
  ROOT c = s32[1,4] concatenate(d0, d1), dimensions={1}
}
)";
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  ASSERT_NE(OnlyReduceScatter(*after), nullptr);
  HloInstruction* root = after->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kDivide);
  const HloInstruction* divisor = root->operand(1);
  ASSERT_EQ(divisor->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(divisor->operand(0)->shape().ToString(), "s32[]");
  EXPECT_EQ(divisor->operand(0)->literal_text(), "3");
  EXPECT_EQ(Count(*after, HloOpcode::kConstant), 1);
}

// bf16, the divisor a broadcast of a uniform non-scalar constant, one
// member through opt-barrier plumbing, global ids.
TEST(FuseReduceScatterTest, MeanBf16ThroughPlumbing) {
  std::string text = R"(
HloModule mean_bf16
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x0 = bf16[2,8] parameter(0)
  x1 = bf16[2,8] parameter(1)
  rs0 = bf16[2,2] reduce-scatter(x0), channel_id=1, replica_groups={{0,2,4,6},{1,3,5,7}}, use_global_device_ids=true, dimensions={1}, to_apply=add
  rs1 = bf16[2,2] reduce-scatter(x1), channel_id=2, replica_groups={{0,2,4,6},{1,3,5,7}}, use_global_device_ids=true, dimensions={1}, to_apply=add
  t = (bf16[2,2]) tuple(rs1)
  ob = (bf16[2,2]) opt-barrier(t)
  g1 = bf16[2,2] get-tuple-element(ob), index=0
  k = bf16[2] constant({6, 6})
  kb = bf16[2,2] broadcast(k), dimensions={0}
  d0 = bf16[2,2] divide(rs0, kb)
  d1 = bf16[2,2] divide(g1, kb)
  c = bf16[4,2] concatenate(d0, d1), dimensions={0}
  n = bf16[2,2] negate(g1)
  ROOT r = (bf16[4,2], bf16[2,2]) tuple(c, n)
}
)";
  std::unique_ptr<HloModule> after = FuseAndCheck(text);
  ASSERT_NE(after, nullptr);
  HloInstruction* rs = OnlyReduceScatter(*after);
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->shape().ToString(), "bf16[4,2]{1,0}");
  HloInstruction* mean = after->entry_computation()->root_instruction()->mutable_operand(0);
  ASSERT_EQ(mean->opcode(), HloOpcode::kDivide);
  EXPECT_EQ(mean->operand(0), rs);
  EXPECT_EQ(mean->operand(1)->operand(0)->literal_text(), "6");
  // The plumbing still feeds the negate; the plumbed member now reads its
  // rows of the wide result.
  EXPECT_EQ(Count(*after, HloOpcode::kOptimizationBarrier), 1);
  std::vector<HloInstruction*> tuples = Find(*after, HloOpcode::kTuple);
  ASSERT_EQ(tuples.size(), 2u);
  HloInstruction* tuple = tuples[0]->operand_count() == 1 ? tuples[0] : tuples[1];
  EXPECT_EQ(tuple->operand(0)->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(tuple->operand(0)->GetAttributeText("slice"), "{[2:4], [0:2]}");
}

// --- left alone -----------------------------------------------------------

// Replaces `from` with `to` in kDirectF32 (the fusible base case).
std::string DirectWith(absl::string_view from, absl::string_view to) {
  std::string text = kDirectF32;
  size_t at = text.find(std::string(from));
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), std::string(to));
  return text;
}

// Why c == s is left alone: the merged reduce-scatter, written by hand,
// hands each device a different part of the joined dimension.
TEST(FuseReduceScatterTest, MergeOnScatterDimensionWouldDiffer) {
  std::string head = absl::StrCat("HloModule same_dim\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
)");
  std::unique_ptr<HloModule> before = ParseOrFail(absl::StrCat(head, R"(
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[4,4] concatenate(rs0, rs1), dimensions={0}
}
)"));
  std::unique_ptr<HloModule> merged = ParseOrFail(absl::StrCat(head, R"(
  c = f32[32,4] concatenate(x0, x1), dimensions={0}
  ROOT rs = f32[4,4] reduce-scatter(c), channel_id=3, replica_groups={}, dimensions={0}, to_apply=add
}
)"));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(merged, nullptr);
  hopt::eval::EvalOptions options;
  options.custom_calls = hopt::testing_util::TestCustomCalls();
  options.replicas = 8;
  auto arguments = hopt::eval::RandomArguments(*before, 8, /*seed=*/1);
  auto expected = hopt::eval::RunModule(*before, arguments, options);
  auto actual = hopt::eval::RunModule(*merged, arguments, options);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  int differing = 0;
  for (int64_t d = 0; d < 8; ++d) {
    std::string difference;
    if (!hopt::eval::BitwiseEqual((*expected)[d], (*actual)[d], &difference)) ++differing;
  }
  EXPECT_GT(differing, 0);
  ExpectUnchanged(absl::StrCat(head, R"(
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[4,4] concatenate(rs0, rs1), dimensions={0}
}
)"));
}

// Modules the pass must leave exactly as they were: what may not be
// merged, and what is no fusion candidate at all.
struct UnchangedCase {
  const char* name;
  std::string (*module_text)();
};

// Failures and --gtest_list_tests show the case's name.
void PrintTo(const UnchangedCase& c, std::ostream* os) { *os << c.name; }

class FuseReduceScatterLeavesTest : public ::testing::TestWithParam<UnchangedCase> {};

TEST_P(FuseReduceScatterLeavesTest, ModuleIsUnchanged) {
  ExpectUnchanged(GetParam().module_text());
}

const UnchangedCase kUnchangedCases[] = {
    {"DifferentReplicaGroups",
     []() -> std::string {
       return absl::StrCat("HloModule groups\n", kAddF32, R"(
ENTRY main {
  x0 = f32[8,4] parameter(0)
  x1 = f32[8,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={{0,2,4,6},{1,3,5,7}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
)");
     }},
    {"DifferentReductions",
     []() {
       std::string text = DirectWith(
           "rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, "
           "to_apply=add",
           "rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, "
           "to_apply=max");
       text = absl::StrReplaceAll(text, {{"ENTRY main", R"(max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main)"}});
       return text;
     }},
    // The same op with its parameters swapped is not taken as the same
    // reduction (NaN payloads may depend on the order).
    {"SwappedParameterReduction",
     []() {
       std::string text = DirectWith("to_apply=add, metadata={op_name=\"second\"}",
                                     "to_apply=add_swapped, metadata={op_name=\"second\"}");
       text = absl::StrReplaceAll(text, {{"ENTRY main", R"(add_swapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(b, a)
}
ENTRY main)"}});
       return text;
     }},
    {"DifferentScatterDimensions",
     []() -> std::string {
       return absl::StrCat("HloModule scatter_dims\n", kAddF32, R"(
ENTRY main {
  x0 = f32[8,2,1] parameter(0)
  x1 = f32[1,16,1] parameter(1)
  rs0 = f32[1,2,1] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[1,2,1] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={1}, to_apply=add
  ROOT c = f32[1,2,2] concatenate(rs0, rs1), dimensions={2}
}
)");
     }},
    // One with a channel, one without.
    {"ChannelOnOneOnly",
     []() -> std::string {
       return absl::StrCat("HloModule channel\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
)");
     }},
    // use_global_device_ids on one only.
    {"GlobalDeviceIdsOnOneOnly",
     []() -> std::string {
       return absl::StrCat("HloModule global_ids\n", kAddF32, R"(
ENTRY main {
  x0 = f32[8,4] parameter(0)
  x1 = f32[8,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={{0,1,2,3},{4,5,6,7}}, dimensions={0}, to_apply=add
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
)");
     }},
    // constrain_layout on one only.
    {"ConstrainLayoutOnOneOnly",
     []() -> std::string {
       return DirectWith("channel_id=2, replica_groups={},",
                         "channel_id=2, replica_groups={}, constrain_layout=true,");
     }},
    {"DifferentDivisors",
     []() -> std::string {
       return absl::StrReplaceAll(
           kMeanF32,
           {{"k1 = f32[2,4] broadcast(k)", "k1 = f32[2,4] broadcast(k2)"},
            {"k = f32[] constant(3)", "k = f32[] constant(3)\n  k2 = f32[] constant(4)"}});
     }},
    // +0 and -0 divide differently (signed infinities).
    {"PositiveAndNegativeZeroDivisors",
     []() -> std::string {
       return absl::StrReplaceAll(
           kMeanF32,
           {{"k1 = f32[2,4] broadcast(k)", "k1 = f32[2,4] broadcast(k2)"},
            {"k = f32[] constant(3)", "k = f32[] constant(0)\n  k2 = f32[] constant(-0)"}});
     }},
    {"NonUniformDivisor",
     []() -> std::string {
       return absl::StrReplaceAll(kMeanF32,
                                  {{"k1 = f32[2,4] broadcast(k), dimensions={}",
                                    "k1 = f32[2,4] constant({{3, 3, 3, 3}, {3, 3, 3, 2}})"}});
     }},
    // A divisor that is not a constant at all.
    {"DivisorThatIsNoConstant",
     []() -> std::string {
       return absl::StrReplaceAll(
           kMeanF32, {{"k1 = f32[2,4] broadcast(k), dimensions={}", "k1 = f32[2,4] parameter(2)"}});
     }},
    {"NonEntryComputation",
     []() -> std::string {
       return absl::StrCat("HloModule callee\n", kAddF32, R"(
body {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
ENTRY main {
  p0 = f32[16,4] parameter(0)
  p1 = f32[16,4] parameter(1)
  ROOT r = f32[2,8] call(p0, p1), to_apply=body
}
)");
     }},
    {"ConcatWithOtherOperand",
     []() -> std::string {
       return absl::StrCat("HloModule other_operand\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  y = f32[2,4] parameter(2)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[2,12] concatenate(rs0, y, rs1), dimensions={1}
}
)");
     }},
    // One member: nothing to fuse.
    {"OneMember",
     []() -> std::string {
       return absl::StrCat("HloModule one\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[2,4] concatenate(rs0), dimensions={1}
}
)");
     }},
    // The same reduce-scatter twice.
    {"SameReduceScatterTwice",
     []() -> std::string {
       return absl::StrCat("HloModule twice\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  ROOT c = f32[2,8] concatenate(rs0, rs0), dimensions={1}
}
)");
     }},
    // Tuple-shaped (two-operand) reduce-scatters.
    {"TupleShapedReduceScatter",
     []() -> std::string {
       return absl::StrCat("HloModule tuple_rs\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs = (f32[2,4], f32[2,4]) reduce-scatter(x0, x1), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  g0 = f32[2,4] get-tuple-element(rs), index=0
  g1 = f32[2,4] get-tuple-element(rs), index=1
  ROOT c = f32[2,8] concatenate(g0, g1), dimensions={1}
}
)");
     }},
    // A member ordered by a control dependency.
    {"MemberOrderedByAControlEdge",
     []() -> std::string {
       return absl::StrCat("HloModule control\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add, control-predecessors={rs0}
  ROOT c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
}
)");
     }},
    // A concatenate nothing uses.
    {"UnusedConcatenate",
     []() -> std::string {
       return absl::StrCat("HloModule dead\n", kAddF32, R"(
ENTRY main {
  x0 = f32[16,4] parameter(0)
  x1 = f32[16,4] parameter(1)
  rs0 = f32[2,4] reduce-scatter(x0), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add
  rs1 = f32[2,4] reduce-scatter(x1), channel_id=2, replica_groups={}, dimensions={0}, to_apply=add
  c = f32[2,8] concatenate(rs0, rs1), dimensions={1}
  ROOT n = f32[2,4] negate(rs1)
}
)");
     }},
    // A scheduled module keeps its schedule.
    {"ScheduledModule",
     []() -> std::string {
       return absl::StrReplaceAll(kDirectF32,
                                  {{"replica_count=8", "is_scheduled=true, replica_count=8"}});
     }},
};

INSTANTIATE_TEST_SUITE_P(FuseReduceScatterTest, FuseReduceScatterLeavesTest,
                         ::testing::ValuesIn(kUnchangedCases),
                         [](const ::testing::TestParamInfo<UnchangedCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace neuron

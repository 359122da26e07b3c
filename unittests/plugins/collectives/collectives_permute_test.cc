// SPDX-License-Identifier: Apache-2.0
// collective-permute-to-all-gather: the emitted chain and its attributes,
// the gate, the core-count logic, and (with the interpreter) that the rewrite
// computes what the permute computed on the standard meshes.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collectives/collective_permute_to_all_gather.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloModule;
using hopt::HloOpcode;
using hopt::testing_util::ExpectSameResults;
using hopt::testing_util::MeshShape;
using hopt::testing_util::ParseOrFail;
using hopt::testing_util::RewriteWith;
using hopt::testing_util::Rewritten;
using hopt::testing_util::RunPassOrFail;
using hopt::testing_util::StandardMeshes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

std::string Header(int64_t replicas, int64_t partitions) {
  return absl::StrCat("HloModule m, replica_count=", replicas, ", num_partitions=", partitions,
                      "\n\n");
}

std::string PairsText(const Pairs& pairs) {
  std::vector<std::string> parts;
  for (const auto& [s, t] : pairs) parts.push_back(absl::StrCat("{", s, ",", t, "}"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// A module with one permute of a parameter of `shape`.
std::string OnePermute(int64_t replicas, int64_t partitions, const std::string& shape,
                       const Pairs& pairs, const std::string& extra = "") {
  return absl::StrCat(Header(replicas, partitions), "ENTRY main {\n  p = ", shape,
                      " parameter(0)\n  ROOT cp = ", shape, " collective-permute(p)", extra,
                      ", source_target_pairs=", PairsText(pairs), "\n}\n");
}

std::vector<HloInstruction*> WithOpcode(const HloComputation* computation, HloOpcode opcode) {
  std::vector<HloInstruction*> found;
  for (HloInstruction* i : computation->MakeInstructionPostOrder())
    if (i->opcode() == opcode) found.push_back(i);
  return found;
}

std::vector<int64_t> Values(const HloInstruction* constant) {
  std::vector<int64_t> values;
  auto literal = constant->literal();
  EXPECT_TRUE(literal.ok()) << literal.status();
  if (!literal.ok()) return values;
  for (int64_t i = 0; i < literal->element_count(); ++i) values.push_back(literal->GetAsInt64(i));
  return values;
}

Rewritten Rewrite(const std::string& text, CollectivePermuteToAllGather pass = {}) {
  return RewriteWith(pass, text);
}

// ---------------------------------------------------------------------------
// The emitted chain.

TEST(PermuteToAllGatherTest, FullPermutationEmitsTheSpecChain) {
  Rewritten r = Rewrite(OnePermute(
      8, 1, "f32[4,3]", {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 0}}));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  const HloComputation* entry = r.after->entry_computation();
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kCollectivePermute).empty());

  // The printed (post) order is the spec's order.
  std::vector<std::string> order;
  for (HloInstruction* i : entry->MakeInstructionPostOrder())
    order.push_back(hopt::HloOpcodeString(i->opcode()).data());
  EXPECT_THAT(order,
              ElementsAre("parameter", "all-gather", "constant", "replica-id", "dynamic-slice",
                          "reshape", "constant", "multiply", "constant", "dynamic-slice"));

  HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kDynamicSlice);
  EXPECT_EQ(root->shape().ToString(), "f32[4,3]{1,0}");
  EXPECT_EQ(root->dynamic_slice_sizes(), (std::vector<int64_t>{4, 3}));
  ASSERT_EQ(root->operand_count(), 3);

  const HloInstruction* gather = root->operand(0);
  ASSERT_EQ(gather->opcode(), HloOpcode::kAllGather);
  EXPECT_EQ(gather->shape().ToString(), "f32[32,3]{1,0}");
  EXPECT_EQ(gather->dimensions(), (std::vector<int64_t>{0}));
  EXPECT_EQ(gather->channel_id(), 1);
  EXPECT_TRUE(gather->constrain_layout());
  EXPECT_TRUE(gather->use_global_device_ids());
  EXPECT_EQ(gather->replica_groups()->ToString(), "{{0,1,2,3,4,5,6,7}}");
  EXPECT_EQ(gather->operand(0)->opcode(), HloOpcode::kParameter);

  const HloInstruction* offset = root->operand(1);
  ASSERT_EQ(offset->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(offset->shape().ToString(), "s32[]");
  const HloInstruction* index = offset->operand(0);
  ASSERT_EQ(index->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(index->shape().ToString(), "s32[]");
  const HloInstruction* lookup = index->operand(0);
  ASSERT_EQ(lookup->opcode(), HloOpcode::kDynamicSlice);
  EXPECT_EQ(lookup->shape().ToString(), "s32[1]{0}");
  EXPECT_EQ(lookup->dynamic_slice_sizes(), (std::vector<int64_t>{1}));
  ASSERT_EQ(lookup->operand(0)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(lookup->operand(0)->shape().ToString(), "s32[8]{0}");
  // mapping[target] = source.
  EXPECT_THAT(Values(lookup->operand(0)), ElementsAre(7, 0, 1, 2, 3, 4, 5, 6));
  EXPECT_EQ(lookup->operand(1)->opcode(), HloOpcode::kReplicaId);
  EXPECT_EQ(lookup->operand(1)->shape().ToString(), "u32[]");
  ASSERT_EQ(offset->operand(1)->opcode(), HloOpcode::kConstant);
  EXPECT_THAT(Values(offset->operand(1)), ElementsAre(4));  // the block: dims[0]
  ASSERT_EQ(root->operand(2)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->operand(2)->shape().ToString(), "s32[]");
  EXPECT_THAT(Values(root->operand(2)), ElementsAre(0));

  // A full permutation needs no zero mask.
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kSelect).empty());
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kBroadcast).empty());
}

TEST(PermuteToAllGatherTest, OneZeroOffsetPerTrailingDimension) {
  Rewritten r = Rewrite(OnePermute(2, 1, "s32[2,3,4]", {{0, 1}, {1, 0}}));
  ASSERT_NE(r.after, nullptr);
  HloInstruction* root = r.after->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kDynamicSlice);
  ASSERT_EQ(root->operand_count(), 4);
  EXPECT_EQ(root->operand(0)->shape().ToString(), "s32[4,3,4]{2,1,0}");
  EXPECT_EQ(root->dynamic_slice_sizes(), (std::vector<int64_t>{2, 3, 4}));
  for (int k = 2; k < 4; ++k) EXPECT_THAT(Values(root->operand(k)), ElementsAre(0));
  EXPECT_THAT(Values(root->operand(1)->operand(1)), ElementsAre(2));
}

TEST(PermuteToAllGatherTest, LayoutIsKept) {
  Rewritten r = Rewrite(OnePermute(2, 1, "f32[2,3]{0,1}", {{0, 1}, {1, 0}}));
  ASSERT_NE(r.after, nullptr);
  HloInstruction* root = r.after->entry_computation()->root_instruction();
  EXPECT_EQ(root->shape().ToString(), "f32[2,3]{0,1}");
  EXPECT_EQ(root->operand(0)->shape().ToString(), "f32[4,3]{0,1}");
}

TEST(PermuteToAllGatherTest, PartialPairsBackfillAndMask) {
  Rewritten r = Rewrite(OnePermute(4, 1, "f32[2,2]", {{0, 1}, {1, 2}}));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  const HloComputation* entry = r.after->entry_computation();
  HloInstruction* root = entry->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kSelect);
  EXPECT_EQ(root->shape().ToString(), "f32[2,2]{1,0}");

  // Mapping: targets 1, 2 read sources 0, 1; ids 0 and 3 are backfilled.
  const HloInstruction* data = root->operand(1);
  ASSERT_EQ(data->opcode(), HloOpcode::kDynamicSlice);
  const HloInstruction* mapping = data->operand(1)->operand(0)->operand(0)->operand(0);
  ASSERT_EQ(mapping->opcode(), HloOpcode::kConstant);
  EXPECT_THAT(Values(mapping), ElementsAre(0, 0, 1, 3));

  // The mask: is-target per id, looked up by the same id, broadcast.
  const HloInstruction* mask = root->operand(0);
  ASSERT_EQ(mask->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(mask->shape().ToString(), "pred[2,2]{1,0}");
  const HloInstruction* mask_lookup = mask->operand(0)->operand(0);
  ASSERT_EQ(mask_lookup->opcode(), HloOpcode::kDynamicSlice);
  EXPECT_EQ(mask_lookup->operand(0)->shape().ToString(), "pred[4]{0}");
  EXPECT_THAT(Values(mask_lookup->operand(0)), ElementsAre(0, 1, 1, 0));
  EXPECT_EQ(mask_lookup->operand(1), data->operand(1)->operand(0)->operand(0)->operand(1));
  EXPECT_EQ(WithOpcode(entry, HloOpcode::kReplicaId).size(), 1u);

  const HloInstruction* zeros = root->operand(2);
  ASSERT_EQ(zeros->opcode(), HloOpcode::kBroadcast);
  EXPECT_THAT(Values(zeros->operand(0)), ElementsAre(0));
}

TEST(PermuteToAllGatherTest, CrossReplicaGroupsOnePerPartition) {
  Rewritten r = Rewrite(OnePermute(2, 4, "f32[3]", {{0, 1}, {1, 0}}));
  ASSERT_NE(r.after, nullptr);
  const HloComputation* entry = r.after->entry_computation();
  ASSERT_EQ(WithOpcode(entry, HloOpcode::kAllGather).size(), 1u);
  const HloInstruction* gather = WithOpcode(entry, HloOpcode::kAllGather)[0];
  EXPECT_EQ(gather->replica_groups()->ToString(), "{{0,4},{1,5},{2,6},{3,7}}");
  EXPECT_EQ(gather->shape().ToString(), "f32[6]{0}");
  EXPECT_EQ(WithOpcode(entry, HloOpcode::kReplicaId).size(), 1u);
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kPartitionId).empty());
}

TEST(PermuteToAllGatherTest, ChannelPermuteUsesPartitionIdsAndAFreshChannel) {
  std::string text = Header(2, 4) + R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[3] parameter(0)
  ar = f32[3] all-reduce(p), channel_id=9, replica_groups={}, to_apply=add
  cp = f32[3] collective-permute(ar), channel_id=5, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  ROOT cp2 = f32[3] collective-permute(cp), channel_id=6, source_target_pairs={{0,3},{3,0},{1,2},{2,1}}
}
)";
  Rewritten r = Rewrite(text);
  ASSERT_NE(r.after, nullptr);
  const HloComputation* entry = r.after->entry_computation();
  std::vector<HloInstruction*> gathers = WithOpcode(entry, HloOpcode::kAllGather);
  ASSERT_EQ(gathers.size(), 2u);
  // Post order: the first permute's gather comes first.
  EXPECT_EQ(gathers[0]->channel_id(), 10);
  EXPECT_EQ(gathers[1]->channel_id(), 11);
  for (HloInstruction* g : gathers) {
    EXPECT_EQ(g->replica_groups()->ToString(), "{{0,1,2,3},{4,5,6,7}}");
    EXPECT_EQ(g->shape().ToString(), "f32[12]{0}");
  }
  EXPECT_EQ(WithOpcode(entry, HloOpcode::kPartitionId).size(), 2u);
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kReplicaId).empty());
  EXPECT_TRUE(WithOpcode(entry, HloOpcode::kSelect).empty());
  ExpectSameResults(*r.before, *r.after, {2, 4});
}

TEST(PermuteToAllGatherTest, MetadataIsCopied) {
  Rewritten r =
      Rewrite(OnePermute(2, 1, "f32[2]", {{0, 1}, {1, 0}},
                         ", metadata={op_type=\"CollectivePermute\" op_name=\"jit/ppermute\"}"));
  ASSERT_NE(r.after, nullptr);
  HloInstruction* root = r.after->entry_computation()->root_instruction();
  auto metadata = root->metadata();
  ASSERT_TRUE(metadata.has_value());
  EXPECT_EQ(metadata->op_type, "CollectivePermute");
  EXPECT_EQ(metadata->op_name, "jit/ppermute");
}

TEST(PermuteToAllGatherTest, ScalarIsReshapedAroundTheGather) {
  Rewritten r = Rewrite(OnePermute(4, 1, "s32[]", {{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  HloInstruction* root = r.after->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(root->shape().ToString(), "s32[]");
  ASSERT_EQ(root->operand(0)->opcode(), HloOpcode::kDynamicSlice);
  EXPECT_EQ(root->operand(0)->operand(0)->shape().ToString(), "s32[4]{0}");
  ExpectSameResults(*r.before, *r.after, {4, 1});
}

TEST(PermuteToAllGatherTest, NestedComputationsAreRewritten) {
  std::string text = Header(4, 1) + R"(helper {
  x = f32[2] parameter(0)
  ROOT c = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,0},{2,3},{3,2}}
}

ENTRY main {
  p = f32[2] parameter(0)
  k = f32[2] call(p), to_apply=helper
  ROOT d = f32[2] collective-permute(k), source_target_pairs={{0,3},{1,2}}
}
)";
  Rewritten r = Rewrite(text);
  ASSERT_NE(r.after, nullptr);
  for (HloComputation* c : r.after->computations())
    EXPECT_TRUE(WithOpcode(c, HloOpcode::kCollectivePermute).empty()) << c->name();
  ExpectSameResults(*r.before, *r.after, {4, 1});
}

// ---------------------------------------------------------------------------
// The gate: these stay as they are.

void ExpectUnchanged(const std::string& text) {
  Rewritten r = Rewrite(text);
  ASSERT_NE(r.after, nullptr);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(hopt::PrintModule(*r.after), hopt::PrintModule(*r.before));
}

TEST(PermuteToAllGatherTest, RepeatedSourceIsLeftAlone) {
  ExpectUnchanged(OnePermute(4, 1, "f32[2]", {{0, 1}, {0, 2}}));
}

TEST(PermuteToAllGatherTest, RepeatedTargetIsLeftAlone) {
  ExpectUnchanged(OnePermute(4, 1, "f32[2]", {{0, 1}, {2, 1}}));
}

TEST(PermuteToAllGatherTest, OutOfRangeIdIsLeftAlone) {
  ExpectUnchanged(OnePermute(4, 1, "f32[2]", {{0, 4}, {4, 0}}));
  // Partition ids: 4 partitions, so 4 is out of range even on 8 devices.
  ExpectUnchanged(OnePermute(2, 4, "f32[2]", {{0, 4}}, ", channel_id=1"));
  // Replica ids on a 2x4 mesh: only 0 and 1 exist.
  ExpectUnchanged(OnePermute(2, 4, "f32[2]", {{0, 2}, {2, 0}}));
}

TEST(PermuteToAllGatherTest, SingleParticipantIsLeftAlone) {
  ExpectUnchanged(OnePermute(1, 1, "f32[2]", {{0, 0}}));
  ExpectUnchanged(OnePermute(1, 8, "f32[2]", {{0, 0}}));                    // R == 1
  ExpectUnchanged(OnePermute(8, 1, "f32[2]", {{0, 0}}, ", channel_id=3"));  // P == 1
}

TEST(PermuteToAllGatherTest, ControlEdgesAreLeftAlone) {
  ExpectUnchanged(Header(2, 1) + R"(ENTRY main {
  p = f32[2] parameter(0)
  n = f32[2] negate(p)
  cp = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,0}}, control-predecessors={n}
  ROOT t = (f32[2], f32[2]) tuple(cp, n)
}
)");
  ExpectUnchanged(Header(2, 1) + R"(ENTRY main {
  p = f32[2] parameter(0)
  cp = f32[2] collective-permute(p), source_target_pairs={{0,1},{1,0}}
  n = f32[2] negate(p), control-predecessors={cp}
  ROOT t = (f32[2], f32[2]) tuple(cp, n)
}
)");
}

TEST(PermuteToAllGatherTest, NoPermutesNoChange) {
  ExpectUnchanged(Header(2, 1) + "ENTRY main {\n  ROOT p = f32[2] parameter(0)\n}\n");
}

// ---------------------------------------------------------------------------
// The constructor's core count, and the divisor check.

TEST(PermuteToAllGatherTest, CoreCount) {
  EXPECT_EQ(CollectivePermuteToAllGather("3.0", 1, 0).core_count(), 128);
  EXPECT_EQ(CollectivePermuteToAllGather("3.0", 2, 0).core_count(), 64);
  EXPECT_EQ(CollectivePermuteToAllGather("3.0", 4, -1).core_count(), 32);
  EXPECT_EQ(CollectivePermuteToAllGather("3.0", 2, 16).core_count(), 16);
  EXPECT_EQ(CollectivePermuteToAllGather("2.0", 2, 16).core_count(), 32);
  EXPECT_EQ(CollectivePermuteToAllGather("", 1, 0).core_count(), 32);
  EXPECT_EQ(CollectivePermuteToAllGather("3", 1, 0).core_count(), 32);
  EXPECT_EQ(CollectivePermuteToAllGather().core_count(), 32);
}

TEST(PermuteToAllGatherTest, NonPositiveDivisorIsAnError) {
  for (int64_t divisor : {0, -2}) {
    CollectivePermuteToAllGather pass("3.0", divisor, 0);
    auto module = ParseOrFail(OnePermute(2, 1, "f32[2]", {{0, 1}, {1, 0}}));
    ASSERT_NE(module, nullptr);
    absl::StatusOr<bool> result = pass.Run(*module);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(result.status().message()), HasSubstr("nc-divisor must be positive"));
    // Nothing was touched.
    EXPECT_EQ(WithOpcode(module->entry_computation(), HloOpcode::kAllGather).size(), 0u);
  }
  // Other platforms never divide.
  CollectivePermuteToAllGather other("2.0", 0, 0);
  auto module = ParseOrFail(OnePermute(2, 1, "f32[2]", {{0, 1}, {1, 0}}));
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(other.Run(*module).ok());
}

TEST(PermuteToAllGatherTest, CoreCountDoesNotChangeTheRewrite) {
  std::string text = OnePermute(2, 4, "f32[2]", {{0, 1}, {1, 0}});
  Rewritten a = Rewrite(text, CollectivePermuteToAllGather("3.0", 2, 0));
  Rewritten b = Rewrite(text, CollectivePermuteToAllGather("", 1, 0));
  ASSERT_NE(a.after, nullptr);
  ASSERT_NE(b.after, nullptr);
  EXPECT_EQ(hopt::PrintModule(*a.after), hopt::PrintModule(*b.after));
}

// ---------------------------------------------------------------------------
// Semantics: the interpreter runs the module before and after on each
// standard mesh; the header names the mesh the rewrite assumes.

// Pair patterns over n ids.
Pairs Shift(int64_t n, int64_t k) {
  Pairs p;
  for (int64_t i = 0; i < n; ++i) p.push_back({i, (i + k) % n});
  return p;
}
Pairs Reverse(int64_t n) {
  Pairs p;
  for (int64_t i = 0; i < n; ++i) p.push_back({i, n - 1 - i});
  return p;
}
Pairs Identity(int64_t n) {
  Pairs p;
  for (int64_t i = 0; i < n; ++i) p.push_back({i, i});
  return p;
}
Pairs Swaps(int64_t n) {  // {0,1},{1,0},{2,3},{3,2}...; an odd last id is no target
  Pairs p;
  for (int64_t i = 0; i + 1 < n; i += 2) {
    p.push_back({i, i + 1});
    p.push_back({i + 1, i});
  }
  return p;
}
Pairs PartialChain(int64_t n) {  // 0 -> 1 -> ... -> n-1, id 0 is no target
  Pairs p;
  for (int64_t i = 0; i + 1 < n; ++i) p.push_back({i, i + 1});
  return p;
}
Pairs OnePair(int64_t n) { return {{n - 1, 0}}; }

struct PatternCase {
  const char* name;
  Pairs (*make)(int64_t n);
};

const std::vector<PatternCase>& Patterns() {
  static const std::vector<PatternCase> patterns = {
      {"shift1", [](int64_t n) { return Shift(n, 1); }},
      {"shift_back", [](int64_t n) { return Shift(n, n - 1); }},
      {"reverse", Reverse},
      {"identity", Identity},
      {"swaps", Swaps},
      {"partial_chain", PartialChain},
      {"one_pair", OnePair},
      {"empty", [](int64_t) { return Pairs{}; }},
  };
  return patterns;
}

const std::vector<std::string>& Shapes() {
  static const std::vector<std::string> shapes = {"f32[4]",   "bf16[2,3]", "f16[2,2,2]",
                                                  "s32[3,2]", "u32[5]",    "s64[2,1,3]",
                                                  "f32[]",    "pred[3]",   "f32[0,2]"};
  return shapes;
}

void CheckSemantics(const std::string& text, MeshShape mesh, bool expect_change) {
  SCOPED_TRACE(text);
  Rewritten r = Rewrite(text);
  ASSERT_NE(r.after, nullptr);
  EXPECT_EQ(r.changed, expect_change);
  if (expect_change) {
    for (HloComputation* c : r.after->computations())
      EXPECT_TRUE(WithOpcode(c, HloOpcode::kCollectivePermute).empty());
  }
  ExpectSameResults(*r.before, *r.after, mesh, 2);
}

TEST(PermuteToAllGatherSemanticsTest, PatternsShapesAndModesOnStandardMeshes) {
  for (const MeshShape& mesh : StandardMeshes()) {
    for (bool channel : {false, true}) {
      int64_t n = channel ? mesh.partitions : mesh.replicas;
      for (const PatternCase& pattern : Patterns()) {
        if (n <= 1) continue;
        for (const std::string& shape : Shapes()) {
          SCOPED_TRACE(absl::StrCat("mesh ", mesh.replicas, "x", mesh.partitions, ", ",
                                    channel ? "channel" : "no channel", ", ", pattern.name, ", ",
                                    shape));
          CheckSemantics(OnePermute(mesh.replicas, mesh.partitions, shape, pattern.make(n),
                                    channel ? ", channel_id=1" : ""),
                         mesh, true);
        }
      }
    }
  }
}

TEST(PermuteToAllGatherSemanticsTest, SingleParticipantStaysAndStaysCorrect) {
  // Channel permutes on 8x1 and plain ones on 1x8 have one participant.
  CheckSemantics(OnePermute(8, 1, "f32[3]", {{0, 0}}, ", channel_id=1"), {8, 1}, false);
  CheckSemantics(OnePermute(1, 8, "f32[3]", {}), {1, 8}, false);
}

// Several permutes per module, with and without channels, chained and side
// by side, feeding other work.
std::string ManyPermutes(MeshShape mesh) {
  int64_t r = mesh.replicas, p = mesh.partitions;
  auto replica_pairs = [&](Pairs pairs) { return PairsText(r > 1 ? pairs : Pairs{{0, 0}}); };
  auto partition_pairs = [&](Pairs pairs) { return PairsText(p > 1 ? pairs : Pairs{{0, 0}}); };
  return absl::StrCat(
      Header(r, p), "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n",
      "  ROOT s = f32[] add(a, b)\n}\n\nENTRY main {\n",
      "  x = f32[4,2] parameter(0)\n  y = s32[3] parameter(1)\n",
      "  a = f32[4,2] collective-permute(x), source_target_pairs=", replica_pairs(Shift(r, 1)),
      "\n  b = f32[4,2] collective-permute(a), channel_id=2, source_target_pairs=",
      partition_pairs(Reverse(p)),
      "\n  c = f32[4,2] collective-permute(x), channel_id=3, source_target_pairs=",
      partition_pairs(PartialChain(p)), "\n  d = f32[4,2] add(b, c)\n",
      "  e = s32[3] collective-permute(y), source_target_pairs=", replica_pairs(Swaps(r)),
      "\n  f = s32[3] collective-permute(e), channel_id=4, source_target_pairs=",
      partition_pairs(Shift(p, p > 1 ? p - 1 : 0)),
      "\n  g = f32[4,2] all-reduce(d), channel_id=1, replica_groups={}, to_apply=add\n",
      "  ROOT t = (f32[4,2], s32[3], f32[4,2]) tuple(g, f, a)\n}\n");
}

TEST(PermuteToAllGatherSemanticsTest, SeveralPermutesPerModule) {
  for (const MeshShape& mesh : StandardMeshes()) {
    SCOPED_TRACE(absl::StrCat("mesh ", mesh.replicas, "x", mesh.partitions));
    Rewritten r = Rewrite(ManyPermutes(mesh));
    ASSERT_NE(r.after, nullptr);
    EXPECT_TRUE(r.changed);
    // Only permutes with one participant are left.
    int64_t left = WithOpcode(r.after->entry_computation(), HloOpcode::kCollectivePermute).size();
    EXPECT_EQ(left, (mesh.replicas == 1 ? 2 : 0) + (mesh.partitions == 1 ? 3 : 0));
    // Fresh channel ids, all distinct and above the module's.
    std::vector<int64_t> ids;
    for (HloInstruction* g : WithOpcode(r.after->entry_computation(), HloOpcode::kAllGather))
      ids.push_back(*g->channel_id());
    for (size_t i = 0; i < ids.size(); ++i) {
      EXPECT_GE(ids[i], 5);
      for (size_t j = 0; j < i; ++j) EXPECT_NE(ids[i], ids[j]);
    }
    ExpectSameResults(*r.before, *r.after, mesh);
  }
}

// ---------------------------------------------------------------------------
// 100,000 permutes in a chain all convert, each with its own channel (the
// time is measured by bench/collectives_bench.py, not here).

TEST(PermuteToAllGatherTest, HundredThousandPermutesAllConvert) {
  constexpr int kPermutes = 100000;
  std::string text = Header(2, 1) + "ENTRY main {\n  c0 = f32[2] parameter(0)\n";
  for (int i = 1; i <= kPermutes; ++i)
    absl::StrAppend(&text, i == kPermutes ? "  ROOT c" : "  c", i, " = f32[2] collective-permute(c",
                    i - 1, "), source_target_pairs={{0,1},{1,0}}\n");
  text += "}\n";
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  CollectivePermuteToAllGather pass;
  absl::StatusOr<bool> changed = pass.Run(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(WithOpcode(module->entry_computation(), HloOpcode::kAllGather).size(),
            static_cast<size_t>(kPermutes));
  HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->channel_id(), kPermutes);
}

}  // namespace
}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0
// aws_neuron_decompose_int_all_reduce: the gate's truth table, the emitted
// graph and its attributes, the cases the rewriter leaves alone, and (with
// the interpreter) that the rewrite computes what the all-reduce computed,
// wrap-around included, on the standard meshes.

#include "decompose/decompose_int_all_reduce.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/shape.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloModule;
using hopt::HloOpcode;
using hopt::PrimitiveType;
using hopt::testing_util::ArrayTypes;
using hopt::testing_util::BinaryCombiner;
using hopt::testing_util::ExpectSameResults;
using hopt::testing_util::MeshHeader;
using hopt::testing_util::MeshShape;
using hopt::testing_util::Named;
using hopt::testing_util::ParseOrFail;
using hopt::testing_util::PostOrderOpcodes;
using hopt::testing_util::RewriteWith;
using hopt::testing_util::Rewritten;
using hopt::testing_util::RunPassOrFail;
using hopt::testing_util::StandardMeshes;
using ::testing::ElementsAre;

std::string Spelling(PrimitiveType type) { return std::string(hopt::PrimitiveTypeString(type)); }

// One all-reduce `ar` of a `type[dims]` parameter. `offset`, when set, is
// added to the parameter first (so that sums wrap around); `attrs` are the
// collective's attributes.
std::string AllReduceModule(const std::string& header, const std::string& type,
                            const std::string& dims, const std::string& attrs,
                            const std::string& offset = "", const std::string& root = "add") {
  std::string shape = absl::StrCat(type, "[", dims, "]");
  std::string body = absl::StrCat("  p = ", shape, " parameter(0)\n");
  std::string value = "p";
  if (!offset.empty()) {
    absl::StrAppend(&body, "  c = ", type, "[] constant(", offset, ")\n  cb = ", shape,
                    " broadcast(c), dimensions={}\n  v = ", shape, " add(p, cb)\n");
    value = "v";
  }
  absl::StrAppend(&body, "  ROOT ar = ", shape, " all-reduce(", value, "), ", attrs,
                  ", to_apply=comb\n");
  return absl::StrCat(header, BinaryCombiner("comb", type, root), "ENTRY main {\n", body, "}\n");
}

Rewritten Rewrite(const std::string& text) {
  DecomposeIntAllReduce pass;
  return RewriteWith(pass, text);
}

void ExpectLeftAlone(const std::string& text) {
  Rewritten r = Rewrite(text);
  ASSERT_NE(r.after, nullptr);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(hopt::PrintModule(*r.after), hopt::PrintModule(*r.before));
}

// ---------------------------------------------------------------------------
// The gate.

// One instruction per opcode class over a `type[dims]` value, all applying
// (or carrying) a computation with `root`: all-reduce `ar`, reduce `rd`
// (dimensions={}, same shape), reduce-scatter `rs` (only for rank >= 1),
// and an elementwise `el` of the root's opcode.
std::string GateModule(const std::string& type, const std::string& dims, bool rank_positive,
                       const std::string& root) {
  std::string shape = absl::StrCat(type, "[", dims, "]");
  std::string text = absl::StrCat(
      MeshHeader(8, 1), BinaryCombiner("comb", type, root), "ENTRY main {\n", "  p = ", shape,
      " parameter(0)\n  i = ", type, "[] parameter(1)\n  ar = ", shape,
      " all-reduce(p), replica_groups={}, to_apply=comb\n  rd = ", shape,
      " reduce(p, i), dimensions={}, to_apply=comb\n  el = ", shape, " ", root, "(p, p)\n");
  std::string tuple = absl::StrCat("  ROOT t = (", shape, ", ", shape, ", ", shape);
  std::string operands = "ar, rd, el";
  if (rank_positive) {
    absl::StrAppend(&text, "  rs = ", shape,
                    " reduce-scatter(p), replica_groups={{0}}, dimensions={0}, to_apply=comb\n");
    absl::StrAppend(&tuple, ", ", shape);
    absl::StrAppend(&operands, ", rs");
  }
  return absl::StrCat(text, tuple, ") tuple(", operands, ")\n}\n");
}

TEST(DecomposeIntAllReduceGateTest, TruthTableOverTypesOpcodesRootsAndShapes) {
  const std::vector<std::string> roots = {"add", "maximum", "minimum", "multiply", "subtract"};
  // Shape classes: the gate wants every dimension of size 1.
  struct ShapeClass {
    std::string dims;
    bool all_ones;
  };
  const std::vector<ShapeClass> shapes = {{"", true},      {"1", true},  {"1,1", true},
                                          {"1,1,1", true}, {"2", false}, {"1,2", false},
                                          {"8,8", false}};
  int64_t matched = 0, checked = 0;
  for (PrimitiveType type : ArrayTypes()) {
    for (const std::string& root : roots) {
      for (const ShapeClass& shape : shapes) {
        std::unique_ptr<HloModule> module =
            ParseOrFail(GateModule(Spelling(type), shape.dims, !shape.dims.empty(), root));
        ASSERT_NE(module, nullptr);
        const bool expected = root == "add" && shape.all_ones &&
                              (type == PrimitiveType::S32 || type == PrimitiveType::U32);
        for (HloInstruction* i : module->entry_computation()->instructions()) {
          const bool match = IsDecomposableIntAllReduce(*i);
          EXPECT_EQ(match, expected && i->name() == "ar")
              << Spelling(type) << "[" << shape.dims << "] " << root << " " << i->name();
          matched += match;
          ++checked;
        }
      }
    }
  }
  // s32 and u32, add, four all-ones shapes.
  EXPECT_EQ(matched, 8);
  EXPECT_GT(checked, 2000);
}

TEST(DecomposeIntAllReduceGateTest, NarrowIntegralTypesAreRejectedExplicitly) {
  for (const char* type :
       {"s8", "s16", "s64", "u8", "u16", "u64", "s4", "u4", "pred", "f32", "bf16", "f16", "f64"}) {
    std::unique_ptr<HloModule> module =
        ParseOrFail(AllReduceModule(MeshHeader(8, 1), type, "", "replica_groups={}"));
    ASSERT_NE(module, nullptr);
    EXPECT_FALSE(IsDecomposableIntAllReduce(*Named(*module, "ar"))) << type;
  }
}

TEST(DecomposeIntAllReduceGateTest, OtherOpcodesAndCombinedAllReducesAreRejected) {
  std::unique_ptr<HloModule> module =
      ParseOrFail(absl::StrCat(MeshHeader(8, 1), BinaryCombiner("comb", "s32", "add"), R"(
ENTRY main {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  v = s32[1] parameter(2)
  both = (s32[], s32[]) all-reduce(p, q), replica_groups={}, to_apply=comb
  gathered = s32[8] all-gather(v), replica_groups={}, dimensions={0}
  zero = s32[] constant(0)
  reduced = s32[] reduce(v, zero), dimensions={0}, to_apply=comb
  sum = s32[] add(p, q)
  ROOT t = ((s32[], s32[]), s32[8], s32[], s32[]) tuple(both, gathered, reduced, sum)
}
)"));
  ASSERT_NE(module, nullptr);
  for (const char* name : {"both", "gathered", "reduced", "sum", "p", "zero", "t"})
    EXPECT_FALSE(IsDecomposableIntAllReduce(*Named(*module, name))) << name;
}

TEST(DecomposeIntAllReduceGateTest, PassRunsNothingOnRejectedModules) {
  ExpectLeftAlone(AllReduceModule(MeshHeader(8, 1), "s64", "", "replica_groups={}"));
  ExpectLeftAlone(AllReduceModule(MeshHeader(8, 1), "u16", "1", "replica_groups={}"));
  ExpectLeftAlone(AllReduceModule(MeshHeader(8, 1), "f32", "", "replica_groups={}"));
  ExpectLeftAlone(AllReduceModule(MeshHeader(8, 1), "s32", "2", "replica_groups={}"));
  ExpectLeftAlone(AllReduceModule(MeshHeader(8, 1), "s32", "", "replica_groups={}", "", "maximum"));
}

// ---------------------------------------------------------------------------
// The emitted graph.

TEST(DecomposeIntAllReduceGraphTest, EmitsBroadcastGatherSliceAddChainInBuildOrder) {
  Rewritten r = Rewrite(AllReduceModule(
      MeshHeader(8, 1), "s32", "",
      "channel_id=5, replica_groups={{0,1,2,3},{4,5,6,7}}, constrain_layout=true, "
      "use_global_device_ids=true, metadata={op_type=\"psum\" op_name=\"jit(f)/psum\"}"));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(PostOrderOpcodes(*r.after),
              ElementsAre("parameter", "broadcast", "all-gather", "slice", "slice", "add", "slice",
                          "add", "slice", "add", "slice", "reshape"));

  const HloInstruction* root = r.after->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(root->shape().ToString(), "s32[]");
  const HloInstruction* lane = root->operand(0);
  ASSERT_EQ(lane->opcode(), HloOpcode::kSlice);
  EXPECT_EQ(lane->shape().ToString(), "s32[1]{0}");
  ASSERT_EQ(lane->slice().size(), 1u);
  EXPECT_EQ(lane->slice()[0].start, 1);
  EXPECT_EQ(lane->slice()[0].limit, 2);

  // The chain: add(add(add(slice[0:2], slice[2:4]), slice[4:6]), slice[6:8]).
  const HloInstruction* acc = lane->operand(0);
  std::vector<int64_t> starts;
  while (acc->opcode() == HloOpcode::kAdd) {
    EXPECT_EQ(acc->shape().ToString(), "s32[2]{0}");
    ASSERT_EQ(acc->operand(1)->opcode(), HloOpcode::kSlice);
    starts.insert(starts.begin(), acc->operand(1)->slice()[0].start);
    EXPECT_EQ(acc->operand(1)->slice()[0].limit, acc->operand(1)->slice()[0].start + 2);
    acc = acc->operand(0);
  }
  ASSERT_EQ(acc->opcode(), HloOpcode::kSlice);
  starts.insert(starts.begin(), acc->slice()[0].start);
  EXPECT_THAT(starts, ElementsAre(0, 2, 4, 6));

  const HloInstruction* gather = acc->operand(0);
  ASSERT_EQ(gather->opcode(), HloOpcode::kAllGather);
  EXPECT_EQ(gather->shape().ToString(), "s32[8]{0}");
  EXPECT_EQ(gather->dimensions(), (std::vector<int64_t>{0}));
  EXPECT_EQ(gather->channel_id(), 5);
  EXPECT_EQ(gather->replica_groups()->ToString(), "{{0,1,2,3},{4,5,6,7}}");
  EXPECT_TRUE(gather->constrain_layout());
  EXPECT_TRUE(gather->use_global_device_ids());

  const HloInstruction* pair = gather->operand(0);
  ASSERT_EQ(pair->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(pair->shape().ToString(), "s32[2]{0}");
  EXPECT_TRUE(pair->dimensions().empty());
  EXPECT_EQ(pair->operand(0)->opcode(), HloOpcode::kParameter);

  // Metadata on every new instruction; nothing of the all-reduce is left.
  for (HloInstruction* i : r.after->entry_computation()->instructions()) {
    EXPECT_NE(i->opcode(), HloOpcode::kAllReduce);
    if (i->opcode() == HloOpcode::kParameter) continue;
    ASSERT_TRUE(i->metadata().has_value()) << i->name();
    EXPECT_EQ(i->metadata()->op_name, "jit(f)/psum") << i->name();
  }
}

TEST(DecomposeIntAllReduceGraphTest, AllOnesShapesAreReshapedToAScalarFirstAndBack) {
  Rewritten r = Rewrite(AllReduceModule(MeshHeader(2, 1), "u32", "1,1", "replica_groups={{0,1}}"));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(PostOrderOpcodes(*r.after),
              ElementsAre("parameter", "reshape", "broadcast", "all-gather", "slice", "slice",
                          "add", "slice", "reshape"));
  const HloInstruction* root = r.after->entry_computation()->root_instruction();
  EXPECT_EQ(root->shape().ToString(), "u32[1,1]{1,0}");
  // Without flags the all-gather has none; no metadata, none invented.
  const HloInstruction* gather = nullptr;
  for (HloInstruction* i : r.after->entry_computation()->instructions())
    if (i->opcode() == HloOpcode::kAllGather) gather = i;
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->shape().ToString(), "u32[4]{0}");
  EXPECT_FALSE(gather->channel_id().has_value());
  EXPECT_FALSE(gather->constrain_layout());
  EXPECT_FALSE(gather->use_global_device_ids());
  EXPECT_FALSE(gather->metadata().has_value());
}

TEST(DecomposeIntAllReduceGraphTest, SingleDeviceGroupsGiveOneSliceAndNoAdd) {
  Rewritten r =
      Rewrite(AllReduceModule(MeshHeader(4, 1), "s32", "1", "replica_groups={{0},{1},{2},{3}}"));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_THAT(PostOrderOpcodes(*r.after), ElementsAre("parameter", "reshape", "broadcast",
                                                      "all-gather", "slice", "slice", "reshape"));
  for (const MeshShape& mesh : {MeshShape{4, 1}}) ExpectSameResults(*r.before, *r.after, mesh);
}

// G under each group mode: gathered lanes = 2G.
TEST(DecomposeIntAllReduceGraphTest, GroupSizeFollowsTheGroupModes) {
  struct Case {
    int64_t replicas, partitions;
    std::string attrs;
    int64_t lanes;
  };
  const std::vector<Case> cases = {
      // Cross-replica: the first group, or every replica.
      {2, 4, "replica_groups={{0,1}}", 4},
      {2, 4, "replica_groups={}", 4},
      {8, 1, "replica_groups={}", 16},
      {1, 8, "replica_groups={}", 2},
      // Cross-replica-and-partition: replicas of the group times partitions.
      {2, 4, "channel_id=1, replica_groups={{0,1}}", 16},
      {2, 4, "channel_id=1, replica_groups={{0},{1}}", 8},
      {2, 4, "channel_id=1, replica_groups={}", 16},
      // Flattened ids: the group as written, or every device.
      {2, 4, "channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true", 8},
      {2, 4, "channel_id=1, replica_groups=[4,2]<=[8], use_global_device_ids=true", 4},
      {2, 4, "channel_id=1, replica_groups={}, use_global_device_ids=true", 16},
  };
  for (const Case& c : cases) {
    Rewritten r =
        Rewrite(AllReduceModule(MeshHeader(c.replicas, c.partitions), "s32", "", c.attrs));
    ASSERT_NE(r.after, nullptr);
    EXPECT_TRUE(r.changed) << c.attrs;
    int64_t gathers = 0, adds = 0;
    for (HloInstruction* i : r.after->entry_computation()->instructions()) {
      if (i->opcode() == HloOpcode::kAllGather) {
        ++gathers;
        EXPECT_EQ(i->shape().dimensions(0), c.lanes) << c.attrs;
      }
      adds += i->opcode() == HloOpcode::kAdd;
    }
    EXPECT_EQ(gathers, 1);
    EXPECT_EQ(adds, c.lanes / 2 - 1) << c.attrs;
    ExpectSameResults(*r.before, *r.after, {c.replicas, c.partitions}, 1);
  }
}

TEST(DecomposeIntAllReduceGraphTest, ControlEdgesMoveToTheResultAndTheGather) {
  Rewritten r = Rewrite(absl::StrCat(MeshHeader(4, 1), BinaryCombiner("comb", "s32", "add"), R"(
ENTRY main {
  p = s32[] parameter(0)
  before = s32[] negate(p)
  ar = s32[] all-reduce(p), replica_groups={}, to_apply=comb, control-predecessors={before}
  after = s32[] abs(p), control-predecessors={ar}
  ROOT t = (s32[], s32[], s32[]) tuple(before, ar, after)
}
)"));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  const hopt::HloComputation* entry = r.after->entry_computation();
  HloInstruction* result = entry->root_instruction()->mutable_operand(1);
  ASSERT_EQ(result->opcode(), HloOpcode::kReshape);
  HloInstruction* before = Named(*r.after, "before");
  EXPECT_THAT(result->control_predecessors(), ElementsAre(before));
  EXPECT_THAT(Named(*r.after, "after")->control_predecessors(), ElementsAre(result));
  int64_t gathers = 0;
  for (HloInstruction* i : entry->instructions()) {
    if (i->opcode() != HloOpcode::kAllGather) continue;
    ++gathers;
    EXPECT_THAT(i->control_predecessors(), ElementsAre(before));
  }
  EXPECT_EQ(gathers, 1);
}

// ---------------------------------------------------------------------------
// What the rewriter leaves alone although the gate matches.

TEST(DecomposeIntAllReduceRefusalTest, ComputationThatIsNotAPlainAdd) {
  std::string text = absl::StrCat(MeshHeader(4, 1), R"(
twice {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, a)
}

ENTRY main {
  p = s32[] parameter(0)
  ROOT ar = s32[] all-reduce(p), replica_groups={}, to_apply=twice
}
)");
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(IsDecomposableIntAllReduce(*Named(*module, "ar")));
  ExpectLeftAlone(text);
}

TEST(DecomposeIntAllReduceRefusalTest, UnevenGroupsAndMeshlessEmptyGroups) {
  ExpectLeftAlone(AllReduceModule(MeshHeader(4, 1), "s32", "", "replica_groups={{0,1,2},{3}}"));
  ExpectLeftAlone(absl::StrCat("HloModule m\n\n", BinaryCombiner("comb", "s32", "add"), R"(
ENTRY main {
  p = s32[] parameter(0)
  ROOT ar = s32[] all-reduce(p), replica_groups={}, to_apply=comb
}
)"));
  // Explicit groups need no header.
  Rewritten r = Rewrite(absl::StrCat("HloModule m\n\n", BinaryCombiner("comb", "s32", "add"), R"(
ENTRY main {
  p = s32[] parameter(0)
  ROOT ar = s32[] all-reduce(p), replica_groups={{0}}, to_apply=comb
}
)"));
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
}

// ---------------------------------------------------------------------------
// Semantics: bit-identical results on every device of the standard meshes.

// Explicit groups valid on `mesh` for the given mode: replica ids without
// global ids, flattened device ids with them.
std::string ExplicitGroups(const MeshShape& mesh, bool global_ids) {
  if (global_ids) return "{{0,1,2,3},{4,5,6,7}}";
  if (mesh.replicas == 8) return "{{0,2,4,6},{1,3,5,7}}";
  if (mesh.replicas == 2) return "{{1,0}}";
  return "{{0}}";
}

TEST(DecomposeIntAllReduceSemanticsTest, SameResultsOnStandardMeshesWithWrapAround) {
  struct TypeCase {
    std::string type;
    std::vector<std::string> offsets;  // added to the [-8,8) / [0,16) inputs
  };
  const std::vector<TypeCase> types = {
      {"s32", {"", "2147483640", "-2147483641", "1073741824"}},
      {"u32", {"", "4294967290", "2147483648", "536870912"}},
  };
  int64_t runs = 0;
  for (const MeshShape& mesh : StandardMeshes()) {
    for (const TypeCase& t : types) {
      for (const char* dims : {"", "1", "1,1"}) {
        for (const std::string& offset : t.offsets) {
          for (int flags = 0; flags < 4; ++flags) {
            const bool channel = flags & 1, global = flags & 2;
            if (global && !channel) continue;  // global ids need a channel
            for (bool explicit_groups : {false, true}) {
              std::string attrs;
              if (channel) attrs = "channel_id=3, ";
              absl::StrAppend(
                  &attrs, "replica_groups=", explicit_groups ? ExplicitGroups(mesh, global) : "{}");
              if (global) absl::StrAppend(&attrs, ", use_global_device_ids=true");
              std::string text = AllReduceModule(MeshHeader(mesh.replicas, mesh.partitions), t.type,
                                                 dims, attrs, offset);
              SCOPED_TRACE(text);
              Rewritten r = Rewrite(text);
              ASSERT_NE(r.after, nullptr);
              ASSERT_TRUE(r.changed);
              ExpectSameResults(*r.before, *r.after, mesh, 2);
              ++runs;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 3 * 2 * 3 * 4 * 3 * 2);
}

TEST(DecomposeIntAllReduceSemanticsTest, SeveralAllReducesAndNestedComputations) {
  // Two all-reduces in the entry (one feeding the other) and one inside a
  // called computation; all three rewritten, results unchanged.
  for (const MeshShape& mesh : StandardMeshes()) {
    std::string text = absl::StrCat(MeshHeader(mesh.replicas, mesh.partitions),
                                    BinaryCombiner("comb", "u32", "add"), R"(
inner {
  x = u32[1] parameter(0)
  ROOT y = u32[1] all-reduce(x), channel_id=9, replica_groups={}, to_apply=comb
}

ENTRY main {
  p = u32[] parameter(0)
  big = u32[] constant(4294967295)
  v = u32[] multiply(p, big)
  a = u32[] all-reduce(v), replica_groups={}, to_apply=comb
  b = u32[] all-reduce(a), channel_id=4, replica_groups={}, use_global_device_ids=true, to_apply=comb
  r = u32[1] reshape(b)
  c = u32[1] call(r), to_apply=inner
  ROOT t = (u32[], u32[1]) tuple(b, c)
}
)");
    Rewritten r = Rewrite(text);
    ASSERT_NE(r.after, nullptr);
    EXPECT_TRUE(r.changed);
    for (const hopt::HloComputation* c : r.after->computations())
      for (HloInstruction* i : c->instructions()) EXPECT_NE(i->opcode(), HloOpcode::kAllReduce);
    ExpectSameResults(*r.before, *r.after, mesh);
  }
}

}  // namespace
}  // namespace neuron

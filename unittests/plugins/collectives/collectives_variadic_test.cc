// SPDX-License-Identifier: Apache-2.0
// Variadic collectives: the scalar operand of all-gather / reduce-scatter
// (shape inference and the interpreter's rule, docs/formats.md "Extension:
// scalar operands of all-gather and reduce-scatter") and
// canonicalize-variadic-collectives (what it emits, what it keeps, and with
// the interpreter that nothing changes meaning).

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "collectives/canonicalize_variadic_collectives.h"
#include "collectives/collective_semantics.h"
#include "collectives/convert_collectives_to_custom_call.h"
#include "core/ir/shape_inference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::HloOpcode;
using ::hopt::Literal;
using ::hopt::PrimitiveType;
using ::hopt::Shape;
using ::hopt::testing_util::ExpectSameResults;
using ::hopt::testing_util::MeshShape;
using ::hopt::testing_util::Named;
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::RewriteWith;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// Shape inference: the scalar keeps its shape beside the scaled array.

TEST(ScalarOperandShapeTest, AllGatherAndReduceScatterKeepTheScalar) {
  Shape array(PrimitiveType::BF16, {8, 4});
  Shape scalar = Shape::MakeScalar(PrimitiveType::BF16);
  const Shape* operands[] = {&array, &scalar};
  absl::StatusOr<Shape> gathered = hopt::InferAllGatherShape(operands, 0, 4);
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  EXPECT_EQ(gathered->ToString(false), "(bf16[32,4], bf16[])");
  absl::StatusOr<Shape> scattered = hopt::InferReduceScatterShape(operands, 0, 4);
  ASSERT_TRUE(scattered.ok()) << scattered.status();
  EXPECT_EQ(scattered->ToString(false), "(bf16[2,4], bf16[])");
  // The array operand's dimension is still checked.
  EXPECT_FALSE(hopt::InferReduceScatterShape(operands, 0, 3).ok());
  EXPECT_FALSE(hopt::InferAllGatherShape(operands, 2, 4).ok());
}

// ---------------------------------------------------------------------------
// The interpreter's rule, on device-distinct inputs: device d's scalar is
// 10 * d + 1, its array holds d in every element.

std::vector<std::vector<Literal>> ScalarRuleArguments(int64_t devices) {
  std::vector<std::vector<Literal>> arguments(devices);
  for (int64_t d = 0; d < devices; ++d) {
    Literal array(Shape(PrimitiveType::F32, {4}));
    for (int64_t k = 0; k < 4; ++k) array.SetFromDouble(k, static_cast<double>(d));
    Literal scalar(Shape::MakeScalar(PrimitiveType::F32));
    scalar.SetFromDouble(0, static_cast<double>(10 * d + 1));
    arguments[d].push_back(std::move(array));
    arguments[d].push_back(std::move(scalar));
  }
  return arguments;
}

// Element k of each tuple output: (reduce-scatter array, its scalar,
// all-gather array, its scalar).
std::vector<std::vector<double>> RunScalarRule(const std::string& groups, int64_t group_size,
                                               int64_t devices) {
  std::string text = absl::StrReplaceAll(
      R"(HloModule m, replica_count=$DEVICES
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  t = f32[] parameter(1)
  rs = (f32[$SCATTERED], f32[]) reduce-scatter(x, t), replica_groups=$GROUPS, dimensions={0}, to_apply=add
  ag = (f32[$GATHERED], f32[]) all-gather(x, t), replica_groups=$GROUPS, dimensions={0}
  rs0 = f32[$SCATTERED] get-tuple-element(rs), index=0
  rs1 = f32[] get-tuple-element(rs), index=1
  ag0 = f32[$GATHERED] get-tuple-element(ag), index=0
  ag1 = f32[] get-tuple-element(ag), index=1
  ROOT out = (f32[$SCATTERED], f32[], f32[$GATHERED], f32[]) tuple(rs0, rs1, ag0, ag1)
}
)",
      {{"$DEVICES", absl::StrCat(devices)},
       {"$GROUPS", groups},
       {"$SCATTERED", absl::StrCat(4 / group_size)},
       {"$GATHERED", absl::StrCat(4 * group_size)}});
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  if (module == nullptr) return {};
  hopt::eval::EvalOptions options;
  options.custom_calls = hopt::testing_util::TestCustomCalls();
  options.replicas = devices;
  auto outputs = hopt::eval::RunModule(*module, ScalarRuleArguments(devices), options);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  std::vector<std::vector<double>> scalars;
  for (const Literal& output : *outputs) {
    const auto& parts = output.tuple_elements();
    scalars.push_back({parts[0].GetAsDouble(0), parts[1].GetAsDouble(0), parts[2].GetAsDouble(0),
                       parts[3].GetAsDouble(0)});
  }
  return scalars;
}

TEST(ScalarOperandRuleTest, GroupsOfOneAreTheIdentity) {
  std::vector<std::vector<double>> out = RunScalarRule("{{0},{1},{2},{3}}", 1, 4);
  ASSERT_EQ(out.size(), 4u);
  for (int64_t d = 0; d < 4; ++d)
    EXPECT_THAT(out[d], ElementsAre(d, 10 * d + 1, d, 10 * d + 1)) << "device " << d;
}

TEST(ScalarOperandRuleTest, ReduceScatterReducesAllGatherTakesTheFirstMember) {
  // Groups {3,1} and {0,2}: the first member is the group's first id, not
  // the lowest.
  std::vector<std::vector<double>> out = RunScalarRule("{{3,1},{0,2}}", 2, 4);
  ASSERT_EQ(out.size(), 4u);
  // reduce-scatter: the array's first chunk is the sum of the group's
  // arrays; the scalar the sum of its scalars. all-gather: element 0 is the
  // first member's array, the scalar the first member's scalar.
  EXPECT_THAT(out[0], ElementsAre(0 + 2, 1 + 21, 0, 1));
  EXPECT_THAT(out[2], ElementsAre(0 + 2, 1 + 21, 0, 1));
  EXPECT_THAT(out[1], ElementsAre(3 + 1, 31 + 11, 3, 31));
  EXPECT_THAT(out[3], ElementsAre(3 + 1, 31 + 11, 3, 31));
}

// ---------------------------------------------------------------------------
// The pass.

class CanonicalizeVariadicTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    AddNeuronCollectiveSemantics(hopt::testing_util::TestRegistrar());
  }
  CanonicalizeVariadicCollectives pass_;
};

int64_t Count(const HloModule& module, HloOpcode opcode) {
  int64_t count = 0;
  for (const hopt::HloComputation* c : module.computations())
    for (const HloInstruction* i : c->instructions()) count += i->opcode() == opcode;
  return count;
}

std::vector<const HloInstruction*> Collectives(const HloModule& module) {
  std::vector<const HloInstruction*> found;
  for (const hopt::HloComputation* c : module.computations())
    for (const HloInstruction* i : c->instructions())
      if (i->opcode() == HloOpcode::kAllReduce || i->opcode() == HloOpcode::kAllGather ||
          i->opcode() == HloOpcode::kReduceScatter)
        found.push_back(i);
  return found;
}

constexpr char kCombinedAllReduce[] = R"(HloModule m, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p0 = f32[8,4] parameter(0)
  p1 = f32[3] parameter(1)
  p2 = bf16[6] parameter(2)
  p3 = f32[] parameter(3)
  p4 = bf16[2,2] parameter(4)
  p5 = s32[2] parameter(5)
  ROOT ar = (f32[8,4], f32[3], bf16[6], f32[], bf16[2,2], s32[2]) all-reduce(p0, p1, p2, p3, p4, p5), channel_id=7, replica_groups={{0,1},{2,3}}, to_apply=sum, metadata={op_name="grads"}, frontend_attributes={a="b"}
}
)";

TEST_F(CanonicalizeVariadicTest, AllReduceOnePerElementType) {
  auto r = RewriteWith(pass_, kCombinedAllReduce);
  ASSERT_NE(r.after, nullptr);
  EXPECT_TRUE(r.changed);
  std::vector<const HloInstruction*> collectives = Collectives(*r.after);
  ASSERT_EQ(collectives.size(), 3u) << hopt::PrintModule(*r.after);
  std::set<PrimitiveType> types;
  std::set<int64_t> channels;
  for (const HloInstruction* c : collectives) {
    EXPECT_EQ(c->opcode(), HloOpcode::kAllReduce);
    ASSERT_TRUE(c->shape().IsArray());
    EXPECT_EQ(c->shape().rank(), 1);
    types.insert(c->shape().element_type());
    // The reduction works on the collective's element type.
    EXPECT_EQ(c->to_apply()->root_instruction()->shape().element_type(), c->shape().element_type());
    ASSERT_TRUE(c->channel_id().has_value());
    channels.insert(*c->channel_id());
    EXPECT_NE(*c->channel_id(), 7);
    EXPECT_EQ(c->replica_groups()->ToString(), "{{0,1},{2,3}}");
    ASSERT_TRUE(c->metadata().has_value());
    EXPECT_EQ(c->metadata()->op_name, "grads");
    EXPECT_EQ(c->frontend_attributes().size(), 1u);
  }
  EXPECT_EQ(types.size(), 3u);
  EXPECT_EQ(channels.size(), 3u);
  // f32: 32 + 3 + 1 elements in one buffer; bf16: 6 + 4; s32 alone, as is.
  const HloInstruction* f32 = Named(*r.after, "ar.f32");
  const HloInstruction* bf16 = Named(*r.after, "ar.bf16");
  const HloInstruction* s32 = Named(*r.after, "ar.s32");
  ASSERT_TRUE(f32 && bf16 && s32);
  EXPECT_EQ(f32->shape().dimensions(0), 36);
  EXPECT_EQ(f32->operand(0)->opcode(), HloOpcode::kConcatenate);
  EXPECT_EQ(bf16->shape().dimensions(0), 10);
  EXPECT_EQ(s32->operand(0)->name(), "p5");
  // The root was the tuple: a tuple of the pieces stands in its place.
  EXPECT_EQ(r.after->entry_computation()->root_instruction()->opcode(), HloOpcode::kTuple);
  for (MeshShape mesh : {MeshShape{4, 1}, MeshShape{2, 2}}) {
    std::string text = absl::StrReplaceAll(
        kCombinedAllReduce,
        {{"replica_count=4",
          mesh.partitions == 1 ? "replica_count=4" : "replica_count=2, num_partitions=2"}});
    auto m = RewriteWith(pass_, text);
    ASSERT_NE(m.after, nullptr);
    ExpectSameResults(*m.before, *m.after, mesh);
  }
}

TEST_F(CanonicalizeVariadicTest, FreshChannelIdsSkipThoseInBackendConfigs) {
  // A converted collective holds channel 9 in its backend_config.
  auto r = RewriteWith(pass_, absl::StrCat(R"(HloModule m, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  t = f32[] parameter(1)
  c = f32[4] custom-call(x), custom_call_target="AwsNeuronAllReduceAdd_f32", to_apply=sum, backend_config={"replica_groups":[[0,1]],"channel_id":9,"use_global_device_ids":false,"constrain_layout":false}
  ROOT rs = (f32[2], f32[]) reduce-scatter(c, t), channel_id=1, replica_groups={{0,1}}, dimensions={0}, to_apply=sum
}
)"));
  ASSERT_NE(r.after, nullptr);
  for (const HloInstruction* c : Collectives(*r.after)) {
    ASSERT_TRUE(c->channel_id().has_value());
    EXPECT_GT(*c->channel_id(), 9) << c->name();
  }
  ExpectSameResults(*r.before, *r.after, MeshShape{2, 1});
}

constexpr char kTorchStep[] = R"(HloModule m, replica_count=4
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  g = bf16[8,4] parameter(0)
  tok = bf16[] parameter(1)
  w = bf16[2,4] parameter(2)
  before = bf16[] negate(tok)
  rs = (bf16[2,4], bf16[]) reduce-scatter(g, tok), replica_groups=$GROUPS, dimensions={0}, to_apply=add, control-predecessors={before}
  rs0 = bf16[2,4] get-tuple-element(rs), index=0
  rs1 = bf16[] get-tuple-element(rs), index=1
  ag = (bf16[8,4], bf16[]) all-gather(w, rs1), replica_groups=$GROUPS, constrain_layout=true, dimensions={0}
  ag0 = bf16[8,4] get-tuple-element(ag), index=0
  ag1 = bf16[] get-tuple-element(ag), index=1
  after = bf16[8,4] negate(ag0), control-predecessors={rs}
  ROOT out = (bf16[2,4], bf16[8,4], bf16[]) tuple(rs0, after, ag1)
}
)";

TEST_F(CanonicalizeVariadicTest, GatherAndScatterSplitPerOperand) {
  auto r = RewriteWith(pass_, absl::StrReplaceAll(kTorchStep, {{"$GROUPS", "{{0,1,2,3}}"}}));
  ASSERT_NE(r.after, nullptr);
  // reduce-scatter + all-reduce of the scalar; all-gather + all-gather of
  // the [1] vector.
  EXPECT_EQ(Count(*r.after, HloOpcode::kReduceScatter), 1);
  EXPECT_EQ(Count(*r.after, HloOpcode::kAllReduce), 1);
  EXPECT_EQ(Count(*r.after, HloOpcode::kAllGather), 2);
  EXPECT_EQ(Count(*r.after, HloOpcode::kGetTupleElement), 0);
  // Read only through get-tuple-element: no tuple stands in for them.
  EXPECT_EQ(Count(*r.after, HloOpcode::kTuple), Count(*r.before, HloOpcode::kTuple));
  for (const HloInstruction* c : Collectives(*r.after)) {
    EXPECT_TRUE(c->shape().IsArray()) << c->name();
    EXPECT_FALSE(c->channel_id().has_value()) << c->name();
    if (c->opcode() == HloOpcode::kAllGather) EXPECT_TRUE(c->constrain_layout()) << c->name();
  }
  // Control edges: `before` precedes both pieces of rs; `after` waits for both.
  const HloInstruction* rs0 = Named(*r.after, "rs.0");
  const HloInstruction* rs1 = Named(*r.after, "rs.1");
  ASSERT_TRUE(rs0 && rs1);
  EXPECT_EQ(rs1->opcode(), HloOpcode::kAllReduce);
  EXPECT_THAT(rs0->control_predecessors(), ElementsAre(Named(*r.after, "before")));
  EXPECT_THAT(rs1->control_predecessors(), ElementsAre(Named(*r.after, "before")));
  EXPECT_THAT(Named(*r.after, "after")->control_predecessors(), ElementsAre(rs0, rs1));
  ExpectSameResults(*r.before, *r.after, MeshShape{4, 1});
}

TEST_F(CanonicalizeVariadicTest, ControlEdgesThroughChainsOfRewrites) {
  // s1 makes no collective (a scalar in groups of one): whoever waited for
  // it waits for its predecessor p. ar waits for s1; `after` for both; the
  // get-tuple-element g has a control edge of its own.
  auto r = RewriteWith(pass_, R"(HloModule m, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  t = f32[] parameter(1)
  p = f32[] negate(t)
  s1 = (f32[]) all-gather(t), replica_groups={{0},{1},{2},{3}}, dimensions={0}, control-predecessors={p}
  ar = (f32[4], f32[]) all-reduce(x, t), replica_groups={{0,1,2,3}}, to_apply=sum, control-predecessors={s1}
  g = f32[4] get-tuple-element(ar), index=0, control-predecessors={p}
  h = f32[4] negate(g)
  after = f32[4] negate(x), control-predecessors={ar, s1}
  k = f32[4] negate(x), control-predecessors={g}
  ROOT out = ((f32[]), f32[4], f32[4], f32[4]) tuple(s1, h, after, k)
}
)");
  ASSERT_NE(r.after, nullptr);
  const HloInstruction* p = Named(*r.after, "p");
  const HloInstruction* reduced = Named(*r.after, "ar.f32");
  ASSERT_TRUE(p && reduced);
  EXPECT_THAT(reduced->control_predecessors(), ElementsAre(p));
  EXPECT_THAT(Named(*r.after, "after")->control_predecessors(), ElementsAre(reduced, p));
  // g's piece took over g's edges.
  const HloInstruction* piece = Named(*r.after, "h")->operand(0);
  EXPECT_THAT(piece->control_predecessors(), ElementsAre(p));
  EXPECT_THAT(Named(*r.after, "k")->control_predecessors(), ElementsAre(piece));
  ExpectSameResults(*r.before, *r.after, MeshShape{4, 1});
}

TEST_F(CanonicalizeVariadicTest, GroupsOfOneKeepTheScalar) {
  auto r = RewriteWith(
      pass_,
      absl::StrReplaceAll(absl::StrReplaceAll(kTorchStep, {{"$GROUPS", "{{0},{1},{2},{3}}"}}),
                          {{"bf16[8,4]", "bf16[2,4]"}, {"(g, tok)", "(w, tok)"}}));
  ASSERT_NE(r.after, nullptr);
  EXPECT_EQ(Collectives(*r.after).size(), 2u) << hopt::PrintModule(*r.after);
  EXPECT_EQ(Count(*r.after, HloOpcode::kAllReduce), 0);
  // The root's scalar is the ordering operand itself.
  const HloInstruction* root = r.after->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(2)->name(), "tok");
  ExpectSameResults(*r.before, *r.after, MeshShape{4, 1});
}

TEST_F(CanonicalizeVariadicTest, ChannelGroupsOfOneReplicaSpanPartitions) {
  // With a channel and without flattened ids, group {0} is replica 0 of
  // every partition: on 1x2 two devices, so the scalar is not the identity.
  auto r = RewriteWith(pass_, R"(HloModule m, replica_count=1, num_partitions=2
ENTRY main {
  w = f32[3] parameter(0)
  t = f32[] parameter(1)
  ROOT ag = (f32[6], f32[]) all-gather(w, t), channel_id=1, replica_groups={{0}}, dimensions={0}
}
)");
  ASSERT_NE(r.after, nullptr);
  EXPECT_EQ(Count(*r.after, HloOpcode::kAllGather), 2);
  ExpectSameResults(*r.before, *r.after, MeshShape{1, 2});
}

TEST_F(CanonicalizeVariadicTest, LeavesOtherCollectivesAlone) {
  auto r = RewriteWith(pass_, R"(HloModule m, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  ar = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
  ag = f32[8] all-gather(x), replica_groups={{0,1}}, dimensions={0}
  ROOT sh = (f32[4], f32[4]) all-reduce(ar, x), replica_groups={{0,1}}, to_apply=sum, sharding={{replicated}, {replicated}}
}
)");
  ASSERT_NE(r.after, nullptr);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(hopt::PrintModule(*r.after), hopt::PrintModule(*r.before));
}

TEST_F(CanonicalizeVariadicTest, RetypesOnlyReductionsOfElementwiseOperations) {
  // A constant's text need not fit another type: mixed types are left
  // alone with such a reduction; one type needs no retyping.
  std::string text = R"(HloModule m, replica_count=2
clamped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  c = f32[] constant(0.5)
  ROOT m = f32[] maximum(s, c)
}
ENTRY main {
  x = f32[4] parameter(0)
  y = $TYPE[3] parameter(1)
  ROOT ar = (f32[4], $TYPE[3]) all-reduce(x, y), replica_groups={{0,1}}, to_apply=clamped
}
)";
  auto mixed = RewriteWith(pass_, absl::StrReplaceAll(text, {{"$TYPE", "s32"}}));
  ASSERT_NE(mixed.after, nullptr);
  EXPECT_FALSE(mixed.changed);
  auto same = RewriteWith(pass_, absl::StrReplaceAll(text, {{"$TYPE", "f32"}}));
  ASSERT_NE(same.after, nullptr);
  EXPECT_TRUE(same.changed);
  EXPECT_EQ(Collectives(*same.after).size(), 1u);
  ExpectSameResults(*same.before, *same.after, MeshShape{2, 1});
}

TEST_F(CanonicalizeVariadicTest, ThenEveryCustomCallNamesItsDType) {
  auto r = RewriteWith(pass_, kCombinedAllReduce);
  ASSERT_NE(r.after, nullptr);
  ConvertCollectivesToCustomCall convert;
  ASSERT_TRUE(convert.Run(*r.after).ok());
  std::string printed = hopt::PrintModule(*r.after);
  EXPECT_THAT(printed, HasSubstr("AwsNeuronAllReduceAdd_f32"));
  EXPECT_THAT(printed, HasSubstr("AwsNeuronAllReduceAdd_bf16"));
  EXPECT_THAT(printed, HasSubstr("AwsNeuronAllReduceAdd_s32"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("UNKNOWNDTYPE")));
  ExpectSameResults(*r.before, *r.after, MeshShape{4, 1});
}

}  // namespace
}  // namespace neuron

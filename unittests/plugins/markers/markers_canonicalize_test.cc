// SPDX-License-Identifier: Apache-2.0
// canonicalize-boundary-marker: one- and N-operand markers become
// marker(tuple(...)), what is kept and what is not, the entry-only walk and
// its option, errors, control edges, scheduled modules, equivalence.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "markers/canonicalize_boundary_marker.h"
#include "markers/marker_semantics.h"
#include "markers/marker_utils.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloComputation;
using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::HloOpcode;
using ::hopt::testing_util::ExpectSameResults;
using ::hopt::testing_util::MeshShape;
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::RunPassOrFail;
using ::hopt::testing_util::StandardMeshes;
using ::testing::HasSubstr;

std::vector<const HloInstruction*> Markers(const HloComputation& computation) {
  std::vector<const HloInstruction*> found;
  for (const HloInstruction* i : computation.MakeInstructionPostOrder())
    if (markers::IsMarker(*i)) found.push_back(i);
  return found;
}

bool IsCanonical(const HloInstruction& marker) {
  return marker.operand_count() == 1 && marker.operand(0)->opcode() == HloOpcode::kTuple;
}

TEST(CanonicalizeBoundaryMarkerTest, OneOperandBecomesTupleAndGetTupleElement) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  m = f32[4] custom-call(p), custom_call_target="NeuronBoundaryMarker-Start", api_version=API_VERSION_STATUS_RETURNING, metadata={op_name="layer0" source_file="model.py" source_line=7}, backend_config="boundaryCount=3"
  ROOT n = f32[4] negate(m)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(changed);
  const HloComputation* entry = out->entry_computation();
  auto found = Markers(*entry);
  ASSERT_EQ(found.size(), 1u);
  const HloInstruction* marker = found[0];
  EXPECT_EQ(marker->name(), "m");
  EXPECT_TRUE(IsCanonical(*marker));
  EXPECT_EQ(marker->shape().ToString(false), "(f32[4])");
  EXPECT_EQ(marker->operand(0)->operand(0)->name(), "p");
  EXPECT_EQ(marker->custom_call_target(), "NeuronBoundaryMarker-Start");
  EXPECT_EQ(marker->backend_config(), "boundaryCount=3");
  EXPECT_EQ(marker->api_version(), "API_VERSION_ORIGINAL");
  EXPECT_FALSE(marker->HasAttribute("api_version"));
  const HloInstruction* root = entry->root_instruction();
  const HloInstruction* gte = root->operand(0);
  ASSERT_EQ(gte->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(gte->tuple_index(), 0);
  EXPECT_EQ(gte->operand(0), marker);
  // The metadata rides on all three.
  for (const HloInstruction* i : {marker, marker->operand(0), gte})
    EXPECT_EQ(i->GetAttributeText("metadata"),
              "{op_name=\"layer0\" source_file=\"model.py\" source_line=7}")
        << i->name();
}

TEST(CanonicalizeBoundaryMarkerTest, NOperandMarkerGetsOneTupleOperand) {
  // As frontends emit them: N operands, a tuple result, no backend_config.
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[2,3] parameter(1)
  m = (f32[4], s32[2,3]) custom-call(a, b), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  x = f32[4] get-tuple-element(m), index=0
  y = s32[2,3] get-tuple-element(m), index=1
  ROOT r = (s32[2,3], f32[4]) tuple(y, x)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(changed);
  auto found = Markers(*out->entry_computation());
  ASSERT_EQ(found.size(), 1u);
  const HloInstruction* marker = found[0];
  EXPECT_TRUE(IsCanonical(*marker));
  EXPECT_EQ(marker->shape().ToString(false), "(f32[4], s32[2,3])");
  const HloInstruction* tuple = marker->operand(0);
  ASSERT_EQ(tuple->operand_count(), 2);
  EXPECT_EQ(tuple->operand(0)->name(), "a");
  EXPECT_EQ(tuple->operand(1)->name(), "b");
  EXPECT_FALSE(marker->HasAttribute("backend_config"));
  // The get-tuple-elements read the rewritten marker; no new one is added.
  ASSERT_EQ(marker->user_count(), 2);
  for (const HloInstruction* user : marker->users())
    EXPECT_THAT(std::string(user->name()), ::testing::AnyOf("x", "y"));
}

TEST(CanonicalizeBoundaryMarkerTest, RawJsonConfigAndFrontendAttributesStay) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[2] parameter(0)
  m = f32[2] custom-call(a), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", frontend_attributes={layer="3"}, backend_config={"boundaryCount":3}
  ROOT n = f32[2] negate(m)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  auto found = Markers(*out->entry_computation());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->GetAttributeText("backend_config"), "{\"boundaryCount\":3}");
  EXPECT_THAT(found[0]->frontend_attributes(),
              ::testing::ElementsAre(::testing::Pair("layer", "3")));
}

TEST(CanonicalizeBoundaryMarkerTest, CanonicalMarkersAreLeftAlone) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[2] parameter(0)
  p = (f32[2], s32[]) parameter(1)
  t = (f32[2]) tuple(a)
  m1 = (f32[2]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  m2 = (f32[2], s32[]) custom-call(p), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT r = ((f32[2]), (f32[2], s32[])) tuple(m1, m2)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  EXPECT_FALSE(changed);
  EXPECT_EQ(hopt::PrintModule(*out), hopt::PrintModule(*module));
}

TEST(CanonicalizeBoundaryMarkerTest, ZeroOperandMarkerGetsAnEmptyTuple) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  ROOT m = () custom-call(), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloInstruction* root = out->entry_computation()->root_instruction();
  EXPECT_TRUE(IsCanonical(*root));
  EXPECT_EQ(root->operand(0)->operand_count(), 0);
}

constexpr char kLoopMarkers[] = R"(HloModule m

cond {
  c = s32[] parameter(0)
  k = s32[] constant(3)
  ROOT lt = pred[] compare(c, k), direction=LT
}

body {
  c = s32[] parameter(0)
  one = s32[] constant(1)
  s = s32[] add(c, one)
  start = s32[] custom-call(s), custom_call_target="NeuronBoundaryMarker-Start", api_version=API_VERSION_STATUS_RETURNING, backend_config="boundaryCount=0"
  ROOT end = s32[] custom-call(start), custom_call_target="NeuronBoundaryMarker-End", api_version=API_VERSION_STATUS_RETURNING, backend_config="boundaryCount=0"
}

ENTRY main {
  c0 = s32[] parameter(0)
  m = s32[] custom-call(c0), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  ROOT w = s32[] while(m), condition=cond, body=body
}
)";

TEST(CanonicalizeBoundaryMarkerTest, EntryOnlyUnlessEverywhere) {
  auto module = ParseOrFail(kLoopMarkers);
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker entry_only;
  auto [out, changed] = RunPassOrFail(entry_only, *module);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(changed);
  for (const HloInstruction* m : Markers(*out->entry_computation())) EXPECT_TRUE(IsCanonical(*m));
  for (const HloInstruction* m : Markers(*out->GetComputationWithName("body")))
    EXPECT_FALSE(IsCanonical(*m)) << m->name();

  CanonicalizeBoundaryMarker everywhere(/*everywhere=*/true);
  auto [all, changed_all] = RunPassOrFail(everywhere, *module);
  ASSERT_NE(all, nullptr);
  const HloComputation* body = all->GetComputationWithName("body");
  auto found = Markers(*body);
  ASSERT_EQ(found.size(), 2u);
  for (const HloInstruction* m : found) EXPECT_TRUE(IsCanonical(*m)) << m->name();
  // The body still returns s32[]: get-tuple-element(end'), index=0.
  EXPECT_EQ(body->root_instruction()->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(body->root_instruction()->shape().ToString(false), "s32[]");
}

TEST(CanonicalizeBoundaryMarkerTest, WrongShapeFailsAndChangesNothing) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  ok = f32[4] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  bad = f32[2] custom-call(ok), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT n = f32[2] negate(bad)
}
)");
  ASSERT_NE(module, nullptr);
  std::string before = hopt::PrintModule(*module);
  CanonicalizeBoundaryMarker pass;
  auto status = pass.Run(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()),
              HasSubstr("boundary marker 'bad' has shape f32[2]"));
  EXPECT_EQ(hopt::PrintModule(*module), before);
}

TEST(CanonicalizeBoundaryMarkerTest, ControlEdgesStayOnTheRewrittenMarker) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  early = f32[4] negate(a)
  m = f32[4] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward", control-predecessors={early}
  late = f32[4] exponential(a), control-predecessors={m}
  ROOT r = (f32[4], f32[4], f32[4]) tuple(m, early, late)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  auto found = Markers(*entry);
  ASSERT_EQ(found.size(), 1u);
  auto predecessors = found[0]->control_predecessors();
  ASSERT_EQ(predecessors.size(), 1u);
  EXPECT_EQ(predecessors[0]->name(), "early");
  auto late = entry->GetInstructionWithName("late")->control_predecessors();
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0], found[0]);
}

// Markers with and without control edges in one computation: all are
// canonicalized, and the edges stay on the rewritten marker.
TEST(CanonicalizeBoundaryMarkerTest, MarkersWithAndWithoutControlEdgesTogether) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  early = f32[4] negate(a)
  m1 = f32[4] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  m2 = f32[4] custom-call(m1), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", control-predecessors={early}
  m3 = f32[4] custom-call(m2), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  late = f32[4] exponential(a), control-predecessors={m2}
  ROOT r = (f32[4], f32[4], f32[4]) tuple(m3, late, early)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker canonicalize;
  auto [out, changed] = RunPassOrFail(canonicalize, *module);
  ASSERT_TRUE(out != nullptr && changed);
  int markers = 0;
  const HloComputation* entry = out->entry_computation();
  for (const HloInstruction* i : entry->instructions()) {
    if (!markers::IsMarker(*i)) continue;
    ++markers;
    ASSERT_EQ(i->operand_count(), 1) << i->name();
    EXPECT_EQ(i->operand(0)->opcode(), HloOpcode::kTuple) << i->name();
  }
  EXPECT_EQ(markers, 3);
  const HloInstruction* m2 = entry->GetInstructionWithName("m2");
  ASSERT_NE(m2, nullptr);
  ASSERT_EQ(m2->control_predecessors().size(), 1u);
  EXPECT_EQ(m2->control_predecessors()[0]->name(), "early");
  auto late = entry->GetInstructionWithName("late")->control_predecessors();
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0], m2);
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

TEST(CanonicalizeBoundaryMarkerTest, ScheduledModuleKeepsDefinitionsBeforeUses) {
  auto module = ParseOrFail(R"(HloModule m, is_scheduled=true

ENTRY main {
  a = f32[4] parameter(0)
  m = f32[4] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  n = f32[4] negate(m)
  e = f32[4] custom-call(n), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT x = f32[4] exponential(e)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  std::vector<const HloInstruction*> seen;
  for (const HloInstruction* i : out->entry_computation()->instructions()) {
    for (const HloInstruction* operand : i->operands())
      EXPECT_NE(std::find(seen.begin(), seen.end(), operand), seen.end())
          << operand->name() << " is listed after its user " << i->name() << "\n"
          << hopt::PrintModule(*out);
    seen.push_back(i);
  }
  // The old order otherwise stays: the parameter first, the root last.
  EXPECT_EQ(seen.front()->name(), "a");
  EXPECT_EQ(seen.back()->name(), "x");
}

TEST(CanonicalizeBoundaryMarkerTest, SameResultsOnEveryMesh) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(R"(HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[3] parameter(1)
  s = (f32[4], s32[3]) custom-call(a, b), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  sa = f32[4] get-tuple-element(s), index=0
  sb = s32[3] get-tuple-element(s), index=1
  ar = f32[4] all-reduce(sa), replica_groups={}, to_apply=add
  id = u32[] replica-id()
  idc = s32[] convert(id)
  idb = s32[3] broadcast(idc), dimensions={}
  sum = s32[3] add(sb, idb)
  e = f32[4] custom-call(ar), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=0"
  bs = (s32[3]) custom-call(sum), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  be = (s32[3]) custom-call(bs), custom_call_target="AwsNeuronModuleMarkerEnd-Backward"
  g = s32[3] get-tuple-element(be), index=0
  ROOT r = (f32[4], s32[3]) tuple(e, g)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  for (const HloInstruction* m : Markers(*out->entry_computation()))
    EXPECT_EQ(m->operand(0)->shape().IsTuple(), true) << m->name();
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

}  // namespace
}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0
// boundary-marker-removal: modes A and B, NCC_ITUP001, marker chains, the
// entry-only walk and its option, control edges, and the whole
// add -> canonicalize -> remove pipeline, with equivalence on every mesh.

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "markers/add_boundary_marker.h"
#include "markers/boundary_marker_removal.h"
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

int CountMarkers(const HloComputation& computation) {
  int n = 0;
  for (const HloInstruction* i : computation.instructions()) n += markers::IsMarker(*i);
  return n;
}

int Count(const HloComputation& computation, HloOpcode opcode) {
  int n = 0;
  for (const HloInstruction* i : computation.instructions()) n += i->opcode() == opcode;
  return n;
}

TEST(BoundaryMarkerRemovalTest, ModeAPassesTheOperandThrough) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  s = f32[4] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  n = f32[4] negate(s)
  ROOT e = f32[4] custom-call(n), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=1"
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(changed);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  EXPECT_EQ(entry->instruction_count(), 2);
  EXPECT_EQ(entry->root_instruction()->name(), "n");
  EXPECT_EQ(entry->root_instruction()->operand(0)->name(), "a");
}

TEST(BoundaryMarkerRemovalTest, ModeBRewiresGetTupleElementsAndDropsTheTuple) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  t = (f32[4], s32[]) tuple(a, b)
  m = (f32[4], s32[]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  x = f32[4] get-tuple-element(m), index=0
  y = s32[] get-tuple-element(m), index=1
  y2 = s32[] get-tuple-element(m), index=1
  z = s32[] add(y, y2)
  ROOT r = (f32[4], s32[]) tuple(x, z)
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  EXPECT_EQ(Count(*entry, HloOpcode::kGetTupleElement), 0);
  EXPECT_EQ(entry->GetInstructionWithName("t"), nullptr);
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->operand(0)->name(), "a");
  EXPECT_EQ(root->operand(1)->operand(0)->name(), "b");
  EXPECT_EQ(root->operand(1)->operand(1)->name(), "b");
}

TEST(BoundaryMarkerRemovalTest, TupleOfOperandsMarkerWithoutCanonicalization) {
  // Passing operand 0 through (the spec's mode A) would be wrong here.
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  m = (f32[4], s32[]) custom-call(a, b), custom_call_target="AwsNeuronModuleMarkerEnd-Backward"
  y = s32[] get-tuple-element(m), index=1
  x = f32[4] get-tuple-element(m), index=0
  ROOT r = (s32[], f32[4]) tuple(y, x)
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloInstruction* root = out->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->name(), "b");
  EXPECT_EQ(root->operand(1)->name(), "a");
  EXPECT_EQ(out->entry_computation()->instruction_count(), 3);
}

TEST(BoundaryMarkerRemovalTest, TupleMarkerAtTheRootLeavesTheTuple) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  ROOT m = (f32[4], s32[]) custom-call(a, b), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloInstruction* root = out->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kTuple);
  EXPECT_EQ(root->operand(0)->name(), "a");
  EXPECT_EQ(root->operand(1)->name(), "b");
}

constexpr char kNonGte[] = R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  t = (f32[4]) tuple(a)
  m = (f32[4]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  x = f32[4] get-tuple-element(m), index=0
  ROOT r = ((f32[4]), f32[4]) tuple(m, x)
}
)";

TEST(BoundaryMarkerRemovalTest, NonGteUserIsNccItup001AndChangesNothing) {
  auto module = ParseOrFail(kNonGte);
  ASSERT_NE(module, nullptr);
  std::string before = hopt::PrintModule(*module);
  BoundaryMarkerRemoval pass;
  auto status = pass.Run(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(status.status()));
  std::string message(status.status().message());
  EXPECT_THAT(message, HasSubstr("NCC_ITUP001"));
  EXPECT_THAT(message, HasSubstr("'m' used by non-GTE instruction 'r' (tuple)"));
  EXPECT_THAT(message,
              HasSubstr("Use GetTupleElement to access tuple components in boundary markers"));
  EXPECT_EQ(hopt::PrintModule(*module), before);
}

TEST(BoundaryMarkerRemovalTest, NonGteUserReachedThroughAChainIsNccItup001) {
  // The End's operand becomes a tuple only once the Start is gone.
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  t = (f32[4]) tuple(a)
  s = (f32[4]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  e = (f32[4]) custom-call(s), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT c = (f32[4]) copy(e)
}
)");
  ASSERT_NE(module, nullptr);
  std::string before = hopt::PrintModule(*module);
  BoundaryMarkerRemoval pass;
  auto status = pass.Run(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()),
              HasSubstr("NCC_ITUP001: boundary marker 'e' used by non-GTE instruction 'c'"));
  EXPECT_EQ(hopt::PrintModule(*module), before);
}

TEST(BoundaryMarkerRemovalTest, MarkerReadByMarkerIsNoError) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(a, b)
  s = (f32[4], f32[4]) custom-call(t), custom_call_target="NeuronBoundaryMarker-Start"
  e = (f32[4], f32[4]) custom-call(s), custom_call_target="NeuronBoundaryMarker-End"
  x = f32[4] get-tuple-element(e), index=1
  ROOT n = f32[4] negate(x)
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  EXPECT_EQ(entry->root_instruction()->operand(0)->name(), "b");
  EXPECT_EQ(entry->instruction_count(), 3);
}

TEST(BoundaryMarkerRemovalTest, MalformedMarkerFails) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  m = f32[2] custom-call(a), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  ROOT n = f32[2] negate(m)
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto status = pass.Run(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("'m' has shape f32[2]"));
}

TEST(BoundaryMarkerRemovalTest, ControlEdgesSkipTheRemovedMarker) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  early = f32[4] negate(a)
  b = f32[4] exponential(a)
  m = f32[4] custom-call(b), custom_call_target="AwsNeuronModuleMarkerStart-Forward", control-predecessors={early}
  user = f32[4] sine(m)
  late = f32[4] cosine(a), control-predecessors={m}
  ROOT r = (f32[4], f32[4], f32[4]) tuple(user, late, early)
}
)");
  ASSERT_NE(module, nullptr);
  BoundaryMarkerRemoval pass;
  auto [out, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  auto names = [](std::vector<HloInstruction*> list) {
    std::vector<std::string> out;
    for (const HloInstruction* i : list) out.emplace_back(i->name());
    std::sort(out.begin(), out.end());
    return out;
  };
  // `late` ran after the marker: after its predecessor and its value.
  EXPECT_THAT(names(entry->GetInstructionWithName("late")->control_predecessors()),
              ::testing::ElementsAre("b", "early"));
  // `user` read the marker: it still comes after the marker's predecessor.
  EXPECT_THAT(names(entry->GetInstructionWithName("user")->control_predecessors()),
              ::testing::ElementsAre("early"));
  EXPECT_EQ(entry->GetInstructionWithName("user")->operand(0)->name(), "b");
}

// The removal's output for `module` (null, with the failure reported, if
// the pass fails).
std::unique_ptr<HloModule> RemoveMarkers(const HloModule& module) {
  BoundaryMarkerRemoval pass;
  return RunPassOrFail(pass, module).first;
}

// The pass removes each marker's pieces as it goes; a tuple that a later
// marker still reads must stay until that one is gone, and go exactly once.
TEST(BoundaryMarkerRemovalTest, TupleReadByTwoMarkersGoesWithTheSecond) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  t = (f32[4], s32[]) tuple(a, b)
  m1 = (f32[4], s32[]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  m2 = (f32[4], s32[]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  x = f32[4] get-tuple-element(m1), index=0
  y = s32[] get-tuple-element(m2), index=1
  n = f32[4] negate(x)
  ROOT r = (f32[4], s32[]) tuple(n, y)
}
)");
  ASSERT_NE(module, nullptr);
  auto out = RemoveMarkers(*module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  EXPECT_EQ(entry->GetInstructionWithName("t"), nullptr);
  EXPECT_EQ(Count(*entry, HloOpcode::kTuple), 1);  // the root
  EXPECT_EQ(Count(*entry, HloOpcode::kGetTupleElement), 0);
  EXPECT_EQ(entry->GetInstructionWithName("n")->operand(0)->name(), "a");
  EXPECT_EQ(entry->root_instruction()->operand(1)->name(), "b");
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

// A removed marker's control predecessor reaches a tuple that later goes
// with its own marker: the tuple goes (no edge may keep it), and the readers
// of what it carried still come after the predecessor. Two markers read the
// tuple here; each passes the edge on.
TEST(BoundaryMarkerRemovalTest, ControlEdgeOnADoomedTupleMovesToItsReaders) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  n = f32[4] negate(x)
  m = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", control-predecessors={n}
  t = (f32[4], f32[4]) tuple(m, y)
  s1 = (f32[4], f32[4]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  s2 = (f32[4], f32[4]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  g0 = f32[4] get-tuple-element(s1), index=0
  g1 = f32[4] get-tuple-element(s2), index=1
  a = f32[4] add(g0, g1)
  ROOT r = (f32[4], f32[4]) tuple(a, n)
}
)");
  ASSERT_NE(module, nullptr);
  auto out = RemoveMarkers(*module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  EXPECT_EQ(entry->GetInstructionWithName("t"), nullptr);
  EXPECT_EQ(Count(*entry, HloOpcode::kTuple), 1);  // the root
  const HloInstruction* a = entry->GetInstructionWithName("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->control_predecessors().size(), 1u);
  EXPECT_EQ(a->control_predecessors()[0]->name(), "n");
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

// A tuple a marker and an ordinary instruction both read stays.
TEST(BoundaryMarkerRemovalTest, TupleAlsoReadElsewhereStays) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  t = (f32[4]) tuple(a)
  m = (f32[4]) custom-call(t), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  x = f32[4] get-tuple-element(m), index=0
  ROOT r = ((f32[4]), f32[4]) tuple(t, x)
}
)");
  ASSERT_NE(module, nullptr);
  auto out = RemoveMarkers(*module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  ASSERT_NE(entry->GetInstructionWithName("t"), nullptr);
  EXPECT_EQ(entry->root_instruction()->operand(0)->name(), "t");
  EXPECT_EQ(entry->root_instruction()->operand(1)->name(), "a");
}

// Pieces with control edges wait for the batch at the end, the others go
// at once; both in one computation, with the edges kept.
TEST(BoundaryMarkerRemovalTest, ControlEdgesOnAGetTupleElementDeferOnlyThatMarker) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  early = f32[4] negate(a)
  t1 = (f32[4]) tuple(a)
  m1 = (f32[4]) custom-call(t1), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  x = f32[4] get-tuple-element(m1), index=0, control-predecessors={early}
  late = f32[4] cosine(b), control-predecessors={x}
  t2 = (f32[4]) tuple(b)
  m2 = (f32[4]) custom-call(t2), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  y = f32[4] get-tuple-element(m2), index=0
  s = f32[4] add(x, y)
  ROOT r = (f32[4], f32[4], f32[4]) tuple(s, late, early)
}
)");
  ASSERT_NE(module, nullptr);
  auto out = RemoveMarkers(*module);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  for (const char* gone : {"t1", "m1", "x", "t2", "m2", "y"})
    EXPECT_EQ(entry->GetInstructionWithName(gone), nullptr) << gone;
  const HloInstruction* s = entry->GetInstructionWithName("s");
  EXPECT_EQ(s->operand(0)->name(), "a");
  EXPECT_EQ(s->operand(1)->name(), "b");
  // `late` ran after x: after x's predecessor and the value x forwarded.
  std::vector<std::string> late;
  for (const HloInstruction* p : entry->GetInstructionWithName("late")->control_predecessors())
    late.emplace_back(p->name());
  std::sort(late.begin(), late.end());
  EXPECT_THAT(late, ::testing::ElementsAre("a", "early"));
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

constexpr char kLoop[] = R"(HloModule m

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  e = f32[4] exponential(v)
  ROOT t = (s32[], f32[4]) tuple(next, e)
}

ENTRY main {
  x = f32[4] parameter(0)
  s = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=0"
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, s)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  v = f32[4] get-tuple-element(w), index=1
  ROOT e = f32[4] custom-call(v), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=0"
}
)";

// add -> canonicalize -> remove, as -passes= runs them.
std::unique_ptr<HloModule> Pipeline(const HloModule& module, bool everywhere) {
  AddBoundaryMarker add;
  CanonicalizeBoundaryMarker canonicalize(everywhere);
  BoundaryMarkerRemoval removal(everywhere);
  auto [added, c1] = RunPassOrFail(add, module);
  if (added == nullptr) return nullptr;
  auto [canonical, c2] = RunPassOrFail(canonicalize, *added);
  if (canonical == nullptr) return nullptr;
  auto [removed, c3] = RunPassOrFail(removal, *canonical);
  return std::move(removed);
}

TEST(BoundaryMarkerRemovalTest, PipelineLeavesNoMarkerInTheEntry) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(kLoop);
  ASSERT_NE(module, nullptr);
  auto out = Pipeline(*module, /*everywhere=*/false);
  ASSERT_NE(out, nullptr);
  const HloComputation* entry = out->entry_computation();
  EXPECT_EQ(CountMarkers(*entry), 0);
  // The entry's dataflow is the input's without the markers.
  EXPECT_EQ(entry->instruction_count(), module->entry_computation()->instruction_count() - 2);
  EXPECT_EQ(entry->root_instruction()->name(), "v");
  EXPECT_EQ(entry->GetInstructionWithName("init")->operand(1)->name(), "x");
  // The loop body keeps its markers: the spec's removal walks the entry only.
  EXPECT_EQ(CountMarkers(*out->GetComputationWithName("body")), 2);
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

TEST(BoundaryMarkerRemovalTest, PipelineEverywhereLeavesNoMarkerAtAll) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(kLoop);
  ASSERT_NE(module, nullptr);
  auto out = Pipeline(*module, /*everywhere=*/true);
  ASSERT_NE(out, nullptr);
  for (const HloComputation* computation : out->computations())
    EXPECT_EQ(CountMarkers(*computation), 0) << computation->name();
  // The body is as it was: End(Start(t)) over a tuple root leaves t the root.
  const HloComputation* body = out->GetComputationWithName("body");
  EXPECT_EQ(body->root_instruction()->name(), "t");
  EXPECT_EQ(body->instruction_count(), module->GetComputationWithName("body")->instruction_count());
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
}

TEST(BoundaryMarkerRemovalTest, EverywhereAlsoStripsMarkersLeftByAdd) {
  // Without canonicalization: End(Start(t)) over the tuple root t.
  auto module = ParseOrFail(kLoop);
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker add;
  auto [added, c1] = RunPassOrFail(add, *module);
  ASSERT_NE(added, nullptr);
  BoundaryMarkerRemoval removal(/*everywhere=*/true);
  auto [out, c2] = RunPassOrFail(removal, *added);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->GetComputationWithName("body")->root_instruction()->name(), "t");
  EXPECT_EQ(CountMarkers(*out->GetComputationWithName("body")), 0);
}

TEST(BoundaryMarkerRemovalTest, SameResultsOnEveryMesh) {
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
  pid = u32[] partition-id()
  pc = s32[] convert(pid)
  pb = s32[3] broadcast(pc), dimensions={}
  sum = s32[3] multiply(sb, pb)
  e = f32[4] custom-call(ar), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=0"
  bs = (s32[3]) custom-call(sum), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  g = s32[3] get-tuple-element(bs), index=0
  ROOT r = (f32[4], s32[3]) tuple(e, g)
}
)");
  ASSERT_NE(module, nullptr);
  CanonicalizeBoundaryMarker canonicalize;
  auto [canonical, c1] = RunPassOrFail(canonicalize, *module);
  ASSERT_NE(canonical, nullptr);
  BoundaryMarkerRemoval removal;
  for (const HloModule* input : {module.get(), canonical.get()}) {
    auto [out, changed] = RunPassOrFail(removal, *input);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(CountMarkers(*out->entry_computation()), 0);
    for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *out, mesh);
  }
}

}  // namespace
}  // namespace neuron

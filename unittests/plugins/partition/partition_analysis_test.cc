// SPDX-License-Identifier: Apache-2.0
// The pairing rules of analyze-layer-boundary and the stage assignment:
// boundaryCount pairs, dataflow pairs, each malformed case's message, and
// where layer code, weights, glue, results and cheap producers go.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "partition/layer_boundary_analysis.h"
#include "partition/stage_assignment.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace partition {
namespace {

using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::testing_util::Named;
using ::hopt::testing_util::ParseOrFail;
using ::testing::HasSubstr;

// `name = f32[4] custom-call(operand)` with a module-marker target.
std::string Marker(const std::string& name, const std::string& target, const std::string& operand,
                   const std::string& count = "") {
  std::string line = "  " + name + " = f32[4] custom-call(" + operand +
                     "), custom_call_target=\"AwsNeuronModuleMarker" + target + "\"";
  if (!count.empty()) line += ", backend_config=\"boundaryCount=" + count + "\"";
  return line + "\n";
}

std::string Module(const std::string& body, const std::string& root) {
  return "HloModule m\n\nENTRY main {\n  p = f32[4] parameter(0)\n  q = f32[4] parameter(1)\n" +
         body + "  ROOT r = f32[4] add(" + root + ", p)\n}\n";
}

absl::StatusOr<LayerBoundaries> Analyze(const HloModule& module) {
  return AnalyzeLayerBoundaries(module.entry_computation()->MakeInstructionPostOrder());
}

absl::StatusOr<StageAssignment> Assign(const HloModule& module) {
  auto post_order = module.entry_computation()->MakeInstructionPostOrder();
  auto boundaries = AnalyzeLayerBoundaries(post_order);
  if (!boundaries.ok()) return boundaries.status();
  return AssignStages(post_order, *boundaries);
}

std::vector<std::string> SpanNames(const LayerBoundaries& boundaries) {
  std::vector<std::string> names;
  for (const LayerSpan& span : boundaries.spans)
    names.push_back(std::string(span.start->name()) + ".." + std::string(span.end->name()));
  return names;
}

// Two forward layers and their backward layers, all with boundaryCount;
// forward and backward share the numbers.
const char* kCountedTrainingStep = R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  sf0 = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=0"
  a0 = f32[4] tanh(sf0)
  ef0 = f32[4] custom-call(a0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=0"
  sf1 = f32[4] custom-call(ef0), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=1"
  a1 = f32[4] tanh(sf1)
  ef1 = f32[4] custom-call(a1), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=1"
  sb1 = f32[4] custom-call(ef1), custom_call_target="AwsNeuronModuleMarkerStart-Backward", backend_config="boundaryCount=1"
  g1 = f32[4] multiply(sb1, a1)
  eb1 = f32[4] custom-call(g1), custom_call_target="AwsNeuronModuleMarkerEnd-Backward", backend_config="boundaryCount=1"
  sb0 = f32[4] custom-call(eb1), custom_call_target="AwsNeuronModuleMarkerStart-Backward", backend_config="boundaryCount=0"
  g0 = f32[4] multiply(sb0, a0)
  eb0 = f32[4] custom-call(g0), custom_call_target="AwsNeuronModuleMarkerEnd-Backward", backend_config="boundaryCount=0"
  ROOT out = (f32[4]) tuple(eb0)
}
)";

TEST(LayerBoundaryAnalysisTest, PairsByBoundaryCountAndDirection) {
  auto module = ParseOrFail(kCountedTrainingStep);
  ASSERT_NE(module, nullptr);
  auto boundaries = Analyze(*module);
  ASSERT_TRUE(boundaries.ok()) << boundaries.status();
  EXPECT_EQ(boundaries->marker_count, 8);
  EXPECT_THAT(SpanNames(*boundaries),
              ::testing::ElementsAre("sf0..ef0", "sf1..ef1", "sb1..eb1", "sb0..eb0"));
  EXPECT_EQ(boundaries->spans[2].direction, markers::MarkerDirection::kBackward);
  EXPECT_EQ(boundaries->spans[2].boundary_count, 1);
  EXPECT_EQ(DescribeSpan(boundaries->spans[0]), "forward, boundaryCount=0");
}

TEST(LayerBoundaryAnalysisTest, PairsCountlessMarkersByDataflow) {
  // The second layer is written first: the order is dataflow's, not the
  // text's.
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  s1 = f32[4] custom-call(e0), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  n1 = f32[4] negate(s1)
  e1 = f32[4] custom-call(n1), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  s0 = f32[4] custom-call(p), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  n0 = f32[4] negate(s0)
  e0 = f32[4] custom-call(n0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT r = f32[4] add(e1, p)
}
)");
  ASSERT_NE(module, nullptr);
  auto boundaries = Analyze(*module);
  ASSERT_TRUE(boundaries.ok()) << boundaries.status();
  EXPECT_THAT(SpanNames(*boundaries), ::testing::ElementsAre("s0..e0", "s1..e1"));
  EXPECT_FALSE(boundaries->spans[0].boundary_count.has_value());
  EXPECT_EQ(DescribeSpan(boundaries->spans[1]), "forward, no boundaryCount");
}

TEST(LayerBoundaryAnalysisTest, ParallelSpansPairWithTheStartTheyDependOn) {
  // Two independent spans whose Ends come in the opposite order of their
  // Starts: order alone would pair them wrongly.
  auto module =
      ParseOrFail(Module(Marker("sa", "Start-Forward", "p") + Marker("sb", "Start-Forward", "q") +
                             "  nb = f32[4] negate(sb)\n" + Marker("eb", "End-Forward", "nb") +
                             "  na = f32[4] negate(sa)\n" + Marker("ea", "End-Forward", "na") +
                             "  both = f32[4] add(ea, eb)\n",
                         "both"));
  ASSERT_NE(module, nullptr);
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  auto boundaries = Analyze(*module);
  ASSERT_TRUE(boundaries.ok());
  for (const LayerSpan& span : boundaries->spans)
    EXPECT_EQ(span.start->name().substr(1), span.end->name().substr(1));
}

TEST(LayerBoundaryAnalysisTest, CountedAndCountlessMarkersDoNotPair) {
  auto module = ParseOrFail(Module(Marker("s", "Start-Forward", "p", "4") +
                                       "  n = f32[4] negate(s)\n" + Marker("e", "End-Forward", "n"),
                                   "e"));
  ASSERT_NE(module, nullptr);
  auto boundaries = Analyze(*module);
  ASSERT_FALSE(boundaries.ok());
  EXPECT_THAT(boundaries.status().message(),
              HasSubstr("unpaired marker 'e' (AwsNeuronModuleMarkerEnd-Forward): it depends on no "
                        "open Start without a boundaryCount (End before Start?)"));
}

TEST(LayerBoundaryAnalysisTest, LoopMarkersAreNoCutPoints) {
  auto module = ParseOrFail(
      Module("  s = f32[4] custom-call(p), custom_call_target=\"NeuronBoundaryMarker-Start\", "
             "backend_config=\"boundaryCount=0\"\n"
             "  e = f32[4] custom-call(s), custom_call_target=\"NeuronBoundaryMarker-End\", "
             "backend_config=\"boundaryCount=0\"\n",
             "e"));
  ASSERT_NE(module, nullptr);
  auto boundaries = Analyze(*module);
  ASSERT_TRUE(boundaries.ok()) << boundaries.status();
  EXPECT_EQ(boundaries->marker_count, 0);
  EXPECT_TRUE(boundaries->spans.empty());
}

struct MalformedCase {
  const char* name;
  std::string body;
  std::string root;
  const char* message;
};

class MalformedMarkersTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedMarkersTest, FailsWithAPreciseMessage) {
  auto module = ParseOrFail(Module(GetParam().body, GetParam().root));
  ASSERT_NE(module, nullptr);
  auto assignment = Assign(*module);
  ASSERT_FALSE(assignment.ok()) << GetParam().name;
  EXPECT_EQ(assignment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(assignment.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedMarkersTest,
    ::testing::Values(
        MalformedCase{
            "duplicate_start",
            Marker("s", "Start-Forward", "p", "1") + Marker("t", "Start-Forward", "q", "1") +
                Marker("e", "End-Forward", "s", "1") + "  n = f32[4] add(e, t)\n",
            "n",
            "two AwsNeuronModuleMarkerStart-Forward markers with boundaryCount=1: 's' and 't'"},
        MalformedCase{
            "start_without_end", Marker("s", "Start-Backward", "p", "2"), "s",
            "unpaired marker 's' (AwsNeuronModuleMarkerStart-Backward, boundaryCount=2): no "
            "End of that direction has boundaryCount=2"},
        MalformedCase{"end_without_start", Marker("e", "End-Forward", "p", "3"), "e",
                      "unpaired marker 'e' (AwsNeuronModuleMarkerEnd-Forward, boundaryCount=3): no "
                      "Start of that direction has boundaryCount=3"},
        MalformedCase{
            "direction_mismatch_counted",
            Marker("s", "Start-Forward", "p", "1") + Marker("e", "End-Backward", "s", "1"), "e",
            "unpaired marker"},
        MalformedCase{
            "bad_count",
            "  s = f32[4] custom-call(p), custom_call_target=\"AwsNeuronModuleMarkerStart-"
            "Forward\", backend_config=\"boundaryCount=x\"\n",
            "s", "marker 's': "},
        MalformedCase{
            "countless_end_first", Marker("e", "End-Forward", "p"), "e",
            "unpaired marker 'e' (AwsNeuronModuleMarkerEnd-Forward): it depends on no open "
            "Start without a boundaryCount (End before Start?)"},
        MalformedCase{"countless_start_unclosed", Marker("s", "Start-Forward", "p"), "s",
                      "unpaired marker 's' (AwsNeuronModuleMarkerStart-Forward): no End without a "
                      "boundaryCount depends on it"},
        MalformedCase{"countless_other_direction",
                      Marker("s", "Start-Forward", "p") + Marker("e", "End-Backward", "s"), "e",
                      "marker 'e' (AwsNeuronModuleMarkerEnd-Backward) would close 's' "
                      "(AwsNeuronModuleMarkerStart-Forward) of the other direction"},
        MalformedCase{
            "end_before_start",
            Marker("e", "End-Forward", "p", "0") + Marker("s", "Start-Forward", "e", "0") +
                "  n = f32[4] negate(s)\n",
            "n",
            "marker 'e' (AwsNeuronModuleMarkerEnd-Forward, boundaryCount=0) does not depend "
            "on its Start 's' (AwsNeuronModuleMarkerStart-Forward, boundaryCount=0) (End "
            "before Start?)"},
        MalformedCase{"nested",
                      Marker("s0", "Start-Forward", "p", "0") +
                          Marker("s1", "Start-Forward", "s0", "1") +
                          Marker("e1", "End-Forward", "s1", "1") + "  n = f32[4] negate(e1)\n" +
                          Marker("e0", "End-Forward", "n", "0"),
                      "e0", "the spans cross or nest"},
        MalformedCase{
            "crossing",
            Marker("s0", "Start-Forward", "p", "0") + Marker("s1", "Start-Forward", "q", "1") +
                "  m = f32[4] add(s0, s1)\n" + Marker("e0", "End-Forward", "m", "0") +
                Marker("e1", "End-Forward", "s1", "1") + "  n = f32[4] add(e0, e1)\n",
            "n",
            "the spans cross or nest: marker 'e0' (AwsNeuronModuleMarkerEnd-Forward, "
            "boundaryCount=0) depends on marker 's1' (AwsNeuronModuleMarkerStart-Forward, "
            "boundaryCount=1)"},
        MalformedCase{"countless_nested",
                      Marker("s0", "Start-Forward", "p") + Marker("s1", "Start-Forward", "s0") +
                          Marker("e1", "End-Forward", "s1") + "  n = f32[4] negate(e1)\n" +
                          Marker("e0", "End-Forward", "n"),
                      "e0", "the spans cross or nest"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(StageAssignmentTest, PlacesLayerCodeWeightsGlueAndResults) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  pre = f32[4] exponential(x)
  s0 = f32[4] custom-call(pre), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  a0 = f32[4] tanh(s0)
  e0 = f32[4] custom-call(a0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  glue = f32[4] negate(e0)
  s1 = f32[4] custom-call(glue), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  wt = f32[4] sqrt(w)
  c = f32[] constant(2)
  cb = f32[4] broadcast(c), dimensions={}
  a1 = f32[4] multiply(s1, wt)
  a2 = f32[4] add(a1, cb)
  e1 = f32[4] custom-call(a2), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  kept = f32[4] add(a0, x)
  post = f32[4] add(e1, kept)
  ROOT out = (f32[4], f32[4]) tuple(post, cb)
}
)");
  ASSERT_NE(module, nullptr);
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  auto at = [&](const char* name) { return assignment->PositionOf(*Named(*module, name)); };
  EXPECT_EQ(assignment->position_count(), 5);
  EXPECT_EQ(at("x"), StageAssignment::kParameter);
  EXPECT_EQ(at("pre"), 0);   // feeds the first Start: prologue
  EXPECT_EQ(at("a0"), 1);    // layer 0
  EXPECT_EQ(at("kept"), 1);  // reads layer 0's open span: an activation kept
  EXPECT_EQ(at("glue"), 2);  // between the layers
  EXPECT_EQ(at("wt"), 3);    // weights prepared where they are used
  EXPECT_EQ(at("a2"), 3);
  EXPECT_EQ(at("post"), 4);  // epilogue
  EXPECT_EQ(at("c"), StageAssignment::kRematerialized);
  EXPECT_EQ(at("cb"), StageAssignment::kRematerialized);
}

TEST(StageAssignmentTest, ControlEdgesCountAsDataflow) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  s0 = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  a0 = f32[4] tanh(s0)
  e0 = f32[4] custom-call(a0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  late = f32[4] negate(x), control-predecessors={e0}
  ROOT out = f32[4] add(e0, late)
}
)");
  ASSERT_NE(module, nullptr);
  auto assignment = Assign(*module);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  EXPECT_EQ(assignment->PositionOf(*Named(*module, "late")), 2);
}

// ... except an edge into a parameter: parameters reach every stage from
// outside, so the edge neither raises nor lowers its predecessor, in a
// module with a span or without one.
TEST(StageAssignmentTest, ControlEdgesIntoParametersConstrainNothing) {
  struct Case {
    const char* text;
    int32_t a0_position;
  };
  for (const Case& c : {Case{R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  a0 = f32[4] tanh(x)
  y = f32[4] parameter(1), control-predecessors={a0}
  ROOT out = f32[4] add(a0, y)
}
)",
                             0},
                        Case{R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  s0 = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  a0 = f32[4] tanh(s0)
  e0 = f32[4] custom-call(a0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  y = f32[4] parameter(1), control-predecessors={a0}
  ROOT out = f32[4] add(e0, y)
}
)",
                             1}}) {
    auto module = ParseOrFail(c.text);
    ASSERT_NE(module, nullptr);
    auto assignment = Assign(*module);
    ASSERT_TRUE(assignment.ok()) << assignment.status();
    EXPECT_EQ(assignment->PositionOf(*Named(*module, "a0")), c.a0_position);
    EXPECT_EQ(assignment->PositionOf(*Named(*module, "y")), StageAssignment::kParameter);
  }
}

}  // namespace
}  // namespace partition
}  // namespace neuron

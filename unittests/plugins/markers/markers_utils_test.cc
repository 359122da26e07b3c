// SPDX-License-Identifier: Apache-2.0
// marker_utils: the six target names, their classification, and the
// boundaryCount parser and printer.

#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "markers/marker_utils.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace markers {
namespace {

using ::hopt::HloInstruction;
using ::hopt::testing_util::ParseOrFail;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MarkerUtilsTest, SixTargetNamesVerbatim) {
  EXPECT_THAT(
      AllMarkerTargets(),
      ElementsAre("NeuronBoundaryMarker-Start", "NeuronBoundaryMarker-End",
                  "AwsNeuronModuleMarkerStart-Forward", "AwsNeuronModuleMarkerStart-Backward",
                  "AwsNeuronModuleMarkerEnd-Forward", "AwsNeuronModuleMarkerEnd-Backward"));
}

struct Expected {
  absl::string_view target;
  MarkerFamily family;
  MarkerEdge edge;
  MarkerDirection direction;
};

TEST(MarkerUtilsTest, ClassifiesEveryTarget) {
  const Expected expected[] = {
      {kLoopStart, MarkerFamily::kLoop, MarkerEdge::kStart, MarkerDirection::kNone},
      {kLoopEnd, MarkerFamily::kLoop, MarkerEdge::kEnd, MarkerDirection::kNone},
      {kModuleStartForward, MarkerFamily::kModule, MarkerEdge::kStart, MarkerDirection::kForward},
      {kModuleStartBackward, MarkerFamily::kModule, MarkerEdge::kStart, MarkerDirection::kBackward},
      {kModuleEndForward, MarkerFamily::kModule, MarkerEdge::kEnd, MarkerDirection::kForward},
      {kModuleEndBackward, MarkerFamily::kModule, MarkerEdge::kEnd, MarkerDirection::kBackward},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.target);
    auto kind = ClassifyMarkerTarget(e.target);
    ASSERT_TRUE(kind.has_value());
    EXPECT_EQ(kind->family, e.family);
    EXPECT_EQ(kind->edge, e.edge);
    EXPECT_EQ(kind->direction, e.direction);
    EXPECT_TRUE(IsMarkerTarget(e.target));
    EXPECT_EQ(MarkerTarget(*kind), e.target);
  }
}

TEST(MarkerUtilsTest, OtherTargetsAreNoMarkers) {
  for (absl::string_view target :
       {"", "NeuronBoundaryMarker", "NeuronBoundaryMarker-start", "neuronboundarymarker-start",
        "NeuronBoundaryMarker-Start ", "AwsNeuronModuleMarkerStart", "AwsNeuronModuleMarkerStart-",
        "AwsNeuronModuleMarkerStart-Forward-", "AwsNeuronModuleMarkerMiddle-Forward",
        "AwsNeuronAllReduceAdd_f32"})
    EXPECT_FALSE(IsMarkerTarget(target)) << "'" << target << "'";
}

TEST(MarkerUtilsTest, NoTargetForImpossibleKinds) {
  EXPECT_EQ(MarkerTarget({MarkerFamily::kLoop, MarkerEdge::kStart, MarkerDirection::kForward}), "");
  EXPECT_EQ(MarkerTarget({MarkerFamily::kModule, MarkerEdge::kEnd, MarkerDirection::kNone}), "");
}

TEST(MarkerUtilsTest, InstructionPredicates) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[2] parameter(0)
  ls = f32[2] custom-call(p), custom_call_target="NeuronBoundaryMarker-Start"
  le = f32[2] custom-call(ls), custom_call_target="NeuronBoundaryMarker-End"
  sf = f32[2] custom-call(le), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  ef = f32[2] custom-call(sf), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  sb = f32[2] custom-call(ef), custom_call_target="AwsNeuronModuleMarkerStart-Backward"
  eb = f32[2] custom-call(sb), custom_call_target="AwsNeuronModuleMarkerEnd-Backward"
  other = f32[2] custom-call(eb), custom_call_target="Something"
  ROOT neg = f32[2] negate(other)
}
)");
  ASSERT_NE(module, nullptr);
  auto* entry = module->entry_computation();
  auto get = [&](absl::string_view name) -> const HloInstruction& {
    return *entry->GetInstructionWithName(name);
  };
  struct Row {
    const char* name;
    bool marker, start, end, loop, module, forward, backward;
  };
  const Row rows[] = {
      {"ls", true, true, false, true, false, false, false},
      {"le", true, false, true, true, false, false, false},
      {"sf", true, true, false, false, true, true, false},
      {"ef", true, false, true, false, true, true, false},
      {"sb", true, true, false, false, true, false, true},
      {"eb", true, false, true, false, true, false, true},
      {"other", false, false, false, false, false, false, false},
      {"neg", false, false, false, false, false, false, false},
      {"p", false, false, false, false, false, false, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const HloInstruction& i = get(row.name);
    EXPECT_EQ(IsMarker(i), row.marker);
    EXPECT_EQ(IsMarkerStart(i), row.start);
    EXPECT_EQ(IsMarkerEnd(i), row.end);
    EXPECT_EQ(IsLoopMarker(i), row.loop);
    EXPECT_EQ(IsModuleMarker(i), row.module);
    EXPECT_EQ(IsForwardMarker(i), row.forward);
    EXPECT_EQ(IsBackwardMarker(i), row.backward);
    EXPECT_EQ(ClassifyMarker(i).has_value(), row.marker);
  }
}

TEST(MarkerUtilsTest, BoundaryCountRoundTrips) {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{42}, int64_t{9223372036854775807}}) {
    std::string text = FormatBoundaryCount(n);
    EXPECT_EQ(text, absl::StrCat("boundaryCount=", n));
    auto parsed = ParseBoundaryCount(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, n);
  }
}

TEST(MarkerUtilsTest, BoundaryCountAmongOtherEntries) {
  EXPECT_EQ(ParseBoundaryCount("layer=3,boundaryCount=7").value(), 7);
  EXPECT_EQ(ParseBoundaryCount(" boundaryCount = 12 , x=y").value(), 12);
  EXPECT_EQ(ParseBoundaryCount("boundaryCount=007").value(), 7);
}

TEST(MarkerUtilsTest, MissingBoundaryCountIsNotFound) {
  for (absl::string_view config : {"", "layer=3", "boundaryCounts=3", "xboundaryCount=1"}) {
    auto parsed = ParseBoundaryCount(config);
    EXPECT_TRUE(absl::IsNotFound(parsed.status())) << "'" << config << "': " << parsed.status();
  }
}

TEST(MarkerUtilsTest, MalformedBoundaryCountIsInvalid) {
  for (absl::string_view config :
       {"boundaryCount", "boundaryCount=", "boundaryCount=-1", "boundaryCount=+1",
        "boundaryCount=1x", "boundaryCount=0x10", "boundaryCount=1.5", "boundaryCount=abc",
        "boundaryCount=1,boundaryCount=1", "boundaryCount=1 2"}) {
    auto parsed = ParseBoundaryCount(config);
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status()))
        << "'" << config << "': " << parsed.status();
  }
  EXPECT_THAT(std::string(ParseBoundaryCount("boundaryCount=x").status().message()),
              HasSubstr("boundaryCount=x"));
}

TEST(MarkerUtilsTest, BoundaryCountAboveInt64IsOutOfRange) {
  // Well formed, but no counter can go above it: its own code, so that
  // neuron_add_boundary_marker can refuse it.
  for (absl::string_view config :
       {"boundaryCount=9223372036854775808", "boundaryCount=99999999999999999999"}) {
    auto parsed = ParseBoundaryCount(config);
    EXPECT_TRUE(absl::IsOutOfRange(parsed.status())) << "'" << config << "': " << parsed.status();
  }
  EXPECT_EQ(*ParseBoundaryCount("boundaryCount=9223372036854775807"),
            std::numeric_limits<int64_t>::max());
}

TEST(MarkerUtilsTest, BoundaryCountOfInstructions) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] custom-call(p), custom_call_target="NeuronBoundaryMarker-Start", backend_config="boundaryCount=5"
  b = f32[2] custom-call(a), custom_call_target="NeuronBoundaryMarker-End", backend_config="boundaryCount=x"
  c = f32[2] custom-call(b), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  ROOT d = f32[2] negate(c)
}
)");
  ASSERT_NE(module, nullptr);
  auto* entry = module->entry_computation();
  EXPECT_EQ(BoundaryCountOf(*entry->GetInstructionWithName("a")), 5);
  EXPECT_EQ(BoundaryCountOf(*entry->GetInstructionWithName("b")), std::nullopt);
  EXPECT_EQ(BoundaryCountOf(*entry->GetInstructionWithName("c")), std::nullopt);
  EXPECT_EQ(BoundaryCountOf(*entry->GetInstructionWithName("d")), std::nullopt);
}

}  // namespace
}  // namespace markers
}  // namespace neuron

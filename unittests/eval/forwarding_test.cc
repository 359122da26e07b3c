// SPDX-License-Identifier: Apache-2.0
// Tests for data movement known without running it (core/eval/forwarding.h):
// a custom-call registered as forwarding runs as the copy it describes, a
// description that does not fit the call is refused, and a region check
// shows outputs that both sides only move from the same inputs equal with
// no run at all, and names the input when they move different ones.

#include "core/eval/forwarding.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/region_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// "Marker" returns the tuple of its operands; "Swap" a tuple of its
// second operand then its first; "Twice" claims operand 0 for the whole
// result and again for its first element.
CustomCallTable Table() {
  CustomCallTable table;
  table.RegisterForwarding("Marker", [](const HloInstruction& call) {
    std::vector<ForwardedValue> parts;
    for (int64_t k = 0; k < call.operand_count(); ++k) parts.push_back({{k}, k, {}});
    return absl::StatusOr<std::vector<ForwardedValue>>(parts);
  });
  table.RegisterForwarding("Swap", [](const HloInstruction&) {
    return absl::StatusOr<std::vector<ForwardedValue>>(
        std::vector<ForwardedValue>{{{0}, 1, {}}, {{1}, 0, {}}});
  });
  table.RegisterForwarding("Twice", [](const HloInstruction&) {
    return absl::StatusOr<std::vector<ForwardedValue>>(
        std::vector<ForwardedValue>{{{}, 0, {}}, {{0}, 0, {0}}});
  });
  table.Register("Plain", [](const HloInstruction& call, absl::Span<const Literal* const> ops,
                             DeviceId) { return absl::StatusOr<Literal>(*ops[0]); });
  return table;
}

TEST(ForwardingTest, AForwardingCallRunsAsTheCopyItDescribes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  y = s32[3]{0} parameter(1)
  ROOT s = (s32[3], f32[2]) custom-call(x, y), custom_call_target="Swap"
})");
  ASSERT_NE(module, nullptr);
  CustomCallTable table = Table();
  EvalOptions options;
  options.custom_calls = &table;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(*Literal::Parse(Shape(PrimitiveType::F32, {2}), "{1.5, -2}"));
  arguments[0].push_back(*Literal::Parse(Shape(PrimitiveType::S32, {3}), "{7, 8, 9}"));
  auto outputs = RunModule(*module, arguments, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].ToText(), "( {7, 8, 9}, {1.5, -2} )");
  EXPECT_NE(table.FindForwarding(*module->entry_computation()->root_instruction()), nullptr);
}

TEST(ForwardingTest, ADescriptionThatDoesNotFitTheCallIsRefused) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  y = s32[3] parameter(1)
  twice = (f32[2]) custom-call(x), custom_call_target="Twice"
  ROOT swap = (f32[2], s32[3]) custom-call(x, y), custom_call_target="Swap"
})");
  ASSERT_NE(module, nullptr);
  CustomCallTable table = Table();
  const HloInstruction* twice = module->entry_computation()->GetInstructionWithName("twice");
  const HloInstruction* swap = module->entry_computation()->root_instruction();
  auto parts = CheckedForwarding(*table.FindForwarding(*twice), *twice);
  ASSERT_FALSE(parts.ok());
  // Operand 0 is an f32[2], not the (f32[2]) tuple, and has no element 0.
  EXPECT_THAT(parts.status().message(),
              HasSubstr("custom-call twice (Twice): its registered forwarding puts operand 0 "
                        "part {} (f32[2]) at result part {} ((f32[2]))"));
  parts = CheckedForwarding(*table.FindForwarding(*swap), *swap);
  ASSERT_FALSE(parts.ok());
  EXPECT_THAT(parts.status().message(),
              HasSubstr("custom-call swap (Swap): its registered forwarding puts operand 1 part "
                        "{} (s32[3]) at result part {0} (f32[2])"));
}

TEST(ForwardingTest, OnlyForwardingSemanticsAreFound) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT p = f32[2] custom-call(x), custom_call_target="Plain"
})");
  ASSERT_NE(module, nullptr);
  CustomCallTable table = Table();
  const HloInstruction* plain = module->entry_computation()->root_instruction();
  EXPECT_TRUE(table.Handles(*plain));
  EXPECT_EQ(table.FindForwarding(*plain), nullptr);
}

// A pass that took a marker away and kept its users: every output of the
// region only moves data.
constexpr char kMarked[] = R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  w = f32[1000000] parameter(2)
  m = (f32[4], f32[4], f32[1000000]) custom-call(x, y, w), custom_call_target="Marker"
  a = f32[4] get-tuple-element(m), index=0
  b = f32[1000000] get-tuple-element(m), index=2
  n = f32[4] negate(a)
  ROOT r = (f32[4], f32[1000000]) tuple(n, b)
})";

std::string Unmarked(const std::string& tuple) {
  return absl::StrCat(R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  w = f32[1000000] parameter(2)
  t = (f32[4], f32[4], f32[1000000]) tuple()",
                      tuple, R"()
  a = f32[4] get-tuple-element(t), index=0
  b = f32[1000000] get-tuple-element(t), index=2
  n = f32[4] negate(a)
  ROOT r = (f32[4], f32[1000000]) tuple(n, b)
})");
}

TEST(ForwardingTest, MovedDataIsEqualWithoutARun) {
  auto before = ParseOrFail(kMarked);
  auto after = ParseOrFail(Unmarked("x, y, w"));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  CustomCallTable table = Table();
  EvalOptions options = MeshOptions(2, 1);
  options.custom_calls = &table;
  options.max_bytes_per_device = 64;  // w alone takes 8 MB: nothing may run
  auto check = CheckChangedRegions(*before, *after, 1, 1, options);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->comparison.outcome, MeshComparison::Outcome::kEqual);
  // a and b read the marker's tuple (t after): one output, all of whose
  // arrays both sides take from x, y and w.
  EXPECT_EQ(check->forwarded, 1);
  EXPECT_EQ(check->checked, 0);
  EXPECT_TRUE(check->unchecked.empty());
  // Without the table the marker is a computation like any other: the
  // region must run, and w does not fit.
  options.custom_calls = nullptr;
  check = CheckChangedRegions(*before, *after, 1, 1, options);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->forwarded, 0);
  ASSERT_EQ(check->unchecked.size(), 1u);
  EXPECT_THAT(check->unchecked[0], HasSubstr("the arguments need"));
}

TEST(ForwardingTest, DataMovedFromAnotherInputIsADifferenceOnEveryDevice) {
  auto before = ParseOrFail(kMarked);
  auto after = ParseOrFail(Unmarked("y, x, w"));
  ASSERT_NE(after, nullptr);
  CustomCallTable table = Table();
  EvalOptions options = MeshOptions(2, 1);
  options.custom_calls = &table;
  auto check = CheckChangedRegions(*before, *after, 1, 1, options);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->comparison.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_EQ(check->region, "e");
  EXPECT_EQ(check->comparison.message,
            "output t {0}, on every device: before, it is %x; after, %y");
}

TEST(ForwardingTest, AComputedArrayIsRunAndTheRestNotKept) {
  // b still moves w alike; a is now computed, so only a runs (the marker
  // before it still reads all three inputs).
  auto before = ParseOrFail(kMarked);
  auto after = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  w = f32[1000000] parameter(2)
  t = (f32[4], f32[4], f32[1000000]) tuple(x, y, w)
  a = f32[4] abs(x)
  b = f32[1000000] get-tuple-element(t), index=2
  n = f32[4] negate(a)
  ROOT r = (f32[4], f32[1000000]) tuple(n, b)
})");
  ASSERT_NE(after, nullptr);
  CustomCallTable table = Table();
  auto regions = FindChangedRegions(*before, *after, &table);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 1u);
  const ChangedRegion& region = (*regions)[0];
  EXPECT_EQ(region.forwarded, 1);
  EXPECT_EQ(region.output_names, std::vector<std::string>{"a"});
  EXPECT_EQ(region.inputs, 3);  // x, y, w: the marker before reads them all
  EvalOptions options = MeshOptions(2, 1);
  options.custom_calls = &table;
  auto check = CheckChangedRegions(*before, *after, 1, 1, options);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->comparison.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_THAT(check->comparison.message, HasSubstr("output a, element"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for the changed-region check (core/eval/tooling/region_check.h): which
// instructions form a pass's region, its inputs and outputs, how it splits
// into independent parts, and that running the parts tells a wrong
// rewrite from a right one.

#include "core/eval/tooling/region_check.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_util::ParseOrFail;

constexpr char kBefore[] = R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  n = f32[4] negate(ar)
  m = f32[4] multiply(y, y)
  ROOT t = (f32[4], f32[4]) tuple(n, m)
})";

// The all-reduce replaced by a differently named instruction; its user n
// is rewired, so n itself stays outside the region.
std::string Replaced(const std::string& replacement) {
  return absl::StrCat(R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  )",
                      replacement, R"(
  n = f32[4] negate(new)
  m = f32[4] multiply(y, y)
  ROOT t = (f32[4], f32[4]) tuple(n, m)
})");
}

TEST(FindChangedRegionsTest, AnUnchangedModuleHasNoRegion) {
  auto before = ParseOrFail(kBefore);
  auto after = ParseOrFail(kBefore);
  ASSERT_NE(before, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  EXPECT_TRUE(regions->empty());
}

TEST(FindChangedRegionsTest, AReplacedInstructionIsTheRegionAndItsUserReadsTheOutput) {
  auto before = ParseOrFail(kBefore);
  auto after =
      ParseOrFail(Replaced("new = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add"));
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 1u);
  const ChangedRegion& region = (*regions)[0];
  EXPECT_EQ(region.computation, "e");
  EXPECT_EQ(region.changed_before, 1);  // ar
  EXPECT_EQ(region.changed_after, 1);   // new
  EXPECT_EQ(region.inputs, 1);          // x
  EXPECT_THAT(region.output_names, ElementsAre("new"));
  // Each side is a module whose entry takes x and returns its value.
  EXPECT_EQ(region.before->entry_computation()->num_parameters(), 1);
  EXPECT_EQ(region.after->entry_computation()->num_parameters(), 1);
}

// Two independent changes: n and m changed opcode, far apart.
std::string TwoChanges(const std::string& dims, bool changed) {
  return absl::StrCat(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[)",
                      dims, R"(] parameter(0)
  y = f32[)",
                      dims, R"(] parameter(1)
  ar = f32[)",
                      dims, R"(] all-reduce(x), replica_groups={}, to_apply=add
  n = f32[)",
                      dims, "] ", changed ? "abs" : "negate", R"((ar)
  m = f32[)",
                      dims, "] ", changed ? "add" : "multiply", R"((y, y)
  ROOT t = (f32[)",
                      dims, "], f32[", dims, R"(]) tuple(n, m)
})");
}

TEST(FindChangedRegionsTest, SmallIndependentPartsRunTogether) {
  auto before = ParseOrFail(TwoChanges("4", false));
  auto after = ParseOrFail(TwoChanges("4", true));
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 1u);
  EXPECT_THAT((*regions)[0].output_names, ElementsAre("n", "m"));
  EXPECT_EQ((*regions)[0].inputs, 2);  // ar, y
}

TEST(FindChangedRegionsTest, LargeIndependentPartsRunAlone) {
  // Each part reads 72 MB per device (8 bytes an element as stored),
  // more than two may take together.
  auto before = ParseOrFail(TwoChanges("9000000", false));
  auto after = ParseOrFail(TwoChanges("9000000", true));
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 2u);
  EXPECT_THAT((*regions)[0].output_names, ElementsAre("n"));
  EXPECT_THAT((*regions)[1].output_names, ElementsAre("m"));
}

TEST(FindChangedRegionsTest, ANewRootIsAnOutputAndTheOldOneAnInput) {
  // The pass wrapped the old root: the old root is read from the
  // unchanged part on both sides.
  const std::string after_text = R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  n = f32[4] negate(ar)
  m = f32[4] multiply(y, y)
  t = (f32[4], f32[4]) tuple(n, m)
  ROOT wrapped = (f32[4], f32[4]) copy(t)
})";
  auto before = ParseOrFail(kBefore);
  auto after = ParseOrFail(after_text);
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 1u);
  EXPECT_EQ((*regions)[0].changed_before, 0);
  EXPECT_EQ((*regions)[0].changed_after, 1);
  // The copy only moves t's arrays: equal without a run, so the region
  // module keeps neither the output nor its input.
  EXPECT_EQ((*regions)[0].forwarded, 1);
  EXPECT_EQ((*regions)[0].inputs, 0);
  EXPECT_THAT((*regions)[0].output_names, IsEmpty());
  EXPECT_EQ((*regions)[0].forwarding_difference, "");
}

TEST(FindChangedRegionsTest, AChangedParameterHasNoRegion) {
  std::string after_text = kBefore;
  after_text.replace(after_text.find("y = f32[4] parameter(1)"), 23, "y = f32[4] parameter(0)");
  after_text.replace(after_text.find("x = f32[4] parameter(0)"), 23, "x = f32[4] parameter(1)");
  auto before = ParseOrFail(kBefore);
  auto after = ParseOrFail(after_text);
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_FALSE(regions.ok());
  EXPECT_THAT(regions.status().message(), HasSubstr("parameter"));
}

// A constant the region reads is copied into both sides, not made an
// input: the two-stage reduce below applies its init twice, which is right
// for init 0 and would differ for a random init.
TEST(FindChangedRegionsTest, AConstantTheRegionReadsIsCopiedNotAnInput) {
  const std::string head = R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[4,2] parameter(0)
  zero = s32[] constant(0)
)";
  auto before = ParseOrFail(head +
                            "  ROOT r = s32[] reduce(x, zero), dimensions={0,1}, "
                            "to_apply=add\n}\n");
  auto after = ParseOrFail(head +
                           "  p = s32[4] reduce(x, zero), dimensions={1}, to_apply=add\n"
                           "  ROOT r = s32[] reduce(p, zero), dimensions={0}, "
                           "to_apply=add\n}\n");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  auto regions = FindChangedRegions(*before, *after);
  ASSERT_TRUE(regions.ok()) << regions.status();
  ASSERT_EQ(regions->size(), 1u);
  EXPECT_EQ((*regions)[0].inputs, 1);  // x; zero is copied
  EXPECT_EQ((*regions)[0].before->entry_computation()->num_parameters(), 1);
  EXPECT_EQ((*regions)[0].after->entry_computation()->num_parameters(), 1);
  auto check = CheckChangedRegions(*before, *after, 1, 1, MeshOptions(1, 1));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->comparison.outcome, MeshComparison::Outcome::kEqual);
}

TEST(CheckChangedRegionsTest, ARightRewriteIsEqualAndAWrongOneNamesItsOutput) {
  auto before = ParseOrFail(kBefore);
  // Same sum over both replicas: equal.
  auto right =
      ParseOrFail(Replaced("new = f32[4] all-reduce(x), replica_groups={{1,0}}, to_apply=add"));
  // Each replica alone: differs on every device.
  auto wrong =
      ParseOrFail(Replaced("new = f32[4] all-reduce(x), replica_groups={{0},{1}}, to_apply=add"));
  ASSERT_NE(right, nullptr);
  ASSERT_NE(wrong, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  auto equal = CheckChangedRegions(*before, *right, 2, 1, options);
  ASSERT_TRUE(equal.ok()) << equal.status();
  EXPECT_EQ(equal->comparison.outcome, MeshComparison::Outcome::kEqual);
  EXPECT_EQ(equal->checked, 1);
  auto differs = CheckChangedRegions(*before, *wrong, 2, 1, options);
  ASSERT_TRUE(differs.ok()) << differs.status();
  EXPECT_EQ(differs->comparison.outcome, MeshComparison::Outcome::kDiffer);
  EXPECT_EQ(differs->region, "e");
  EXPECT_THAT(differs->comparison.message, HasSubstr("output new, element"));
}

TEST(CheckChangedRegionsTest, APartOverTheBudgetIsReportedUncheckedNotRun) {
  auto before = ParseOrFail(kBefore);
  auto after =
      ParseOrFail(Replaced("new = f32[4] all-reduce(x), replica_groups={{0},{1}}, to_apply=add"));
  ASSERT_NE(after, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.max_bytes_per_device = 16;  // x alone takes 32 bytes
  auto check = CheckChangedRegions(*before, *after, 1, 1, options);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->checked, 0);
  ASSERT_EQ(check->unchecked.size(), 1u);
  EXPECT_THAT(check->unchecked[0], HasSubstr("with outputs new: interpreter: the arguments need"));
  EXPECT_EQ(check->comparison.outcome, MeshComparison::Outcome::kEqual);
}

}  // namespace
}  // namespace eval
}  // namespace hopt

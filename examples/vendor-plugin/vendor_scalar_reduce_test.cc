// SPDX-License-Identifier: Apache-2.0
// The vendor plugin's gtest, through hopt's test kit (hopt/testing/,
// pkg-config hopt-testing): the plugin's own source is compiled into this
// test and registered from its entry function, so no .so is needed; the
// reference plugin and the buggy build are loaded from their files.
// docs/writing-a-plugin.md, "Testing your plugin".

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/testing/assertions.h"
#include "hopt/testing/plugin_harness.h"

// The plugin's entry point, from vendor_scalar_reduce.cc (linked in).
extern "C" HoptPluginInfo hoptGetPluginInfo();

namespace {

using hopt::testkit::MatchesFileCheck;
using hopt::testkit::PluginHarness;

constexpr char kPass[] = "aws_neuron_decompose_scalar_reduce";

// A maximum reduction (rewritten) beside an add reduction (left alone).
constexpr char kInput[] = R"(
HloModule m

max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

ENTRY main {
  x = s32[4,256]{1,0} parameter(0)
  lowest = s32[] constant(-2147483648)
  one = s32[] constant(1)
  largest = s32[] reduce(x, lowest), dimensions={0,1}, to_apply=max_s32
  total = s32[] reduce(x, one), dimensions={0,1}, to_apply=add_s32
  ROOT both = (s32[], s32[]) tuple(largest, total)
}
)";

class VendorScalarReduceTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(harness_.RegisterPlugin(&hoptGetPluginInfo).ok()); }
  PluginHarness harness_;
};

TEST_F(VendorScalarReduceTest, SplitsTheMaximumIntoTwoStages) {
  EXPECT_TRUE(MatchesFileCheck(harness_.RunToText(kPass, kInput), R"(
    CHECK:      ENTRY
    CHECK:      s32[128,8]{1,0} reshape(%x)
    CHECK:      s32[128]{0} reduce({{.*}}), dimensions={1}, to_apply=%max_s32
    CHECK-NEXT: s32[128]{0} maximum(
    CHECK-NEXT: s32[] reduce({{.*}}), dimensions={0}, to_apply=%max_s32
    CHECK-NOT:  add_s32
    CHECK:      reduce(%x, %one), dimensions={0,1}, to_apply=%add_s32
  )"));
}

TEST_F(VendorScalarReduceTest, LeavesAddReductionsAlone) {
  absl::StatusOr<std::string> text = harness_.RunToText(kPass, R"(
HloModule m
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = s32[4,256]{1,0} parameter(0)
  one = s32[] constant(1)
  ROOT total = s32[] reduce(x, one), dimensions={0,1}, to_apply=add_s32
})");
  EXPECT_TRUE(MatchesFileCheck(text, "CHECK-NOT: reshape"));
}

TEST_F(VendorScalarReduceTest, KeepsTheValues) {
  EXPECT_TRUE(hopt::testkit::IsOkAndEquivalent(harness_.VerifyEquivalence(kPass, kInput)));
}

// The minimal pass (idempotent_max.h): the copy keeps the maximum's name,
// so its user still reads %m.
TEST_F(VendorScalarReduceTest, IdempotentMaxKeepsTheName) {
  constexpr char kMax[] = R"(
HloModule m
ENTRY main {
  x = f32[8]{0} parameter(0)
  m = f32[8]{0} maximum(x, x)
  ROOT n = f32[8]{0} negate(m)
})";
  absl::StatusOr<std::string> text = harness_.RunToText("vendor-idempotent-max", kMax);
  EXPECT_TRUE(MatchesFileCheck(text, R"(
    CHECK:      %x = f32[8]{0} parameter(0)
    CHECK-NEXT: %m = f32[8]{0} copy(%x)
    CHECK-NEXT: ROOT %n = f32[8]{0} negate(%m)
  )"));
  EXPECT_TRUE(
      hopt::testkit::IsOkAndEquivalent(harness_.VerifyEquivalence("vendor-idempotent-max", kMax)));
}

// The replacement against the reference pass: the same graph, up to names.
TEST_F(VendorScalarReduceTest, BuildsWhatTheReferenceBuilds) {
  PluginHarness reference;
  ASSERT_TRUE(reference.LoadPlugin(VENDOR_REFERENCE_PLUGIN).ok());
  absl::StatusOr<std::unique_ptr<hopt::HloModule>> ours = harness_.Run(kPass, kInput);
  absl::StatusOr<std::string> theirs = reference.RunToText(kPass, kInput);
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_TRUE(hopt::testkit::SameStructureAs(**ours, *theirs));
}

// What the kit is for: the deliberately buggy build is caught.
TEST(VendorScalarReduceBuggyTest, IsNotEquivalent) {
  PluginHarness buggy;
  ASSERT_TRUE(buggy.LoadPlugin(VENDOR_BUGGY_PLUGIN).ok());
  absl::StatusOr<hopt::testkit::EquivalenceVerdict> verdict =
      buggy.VerifyEquivalence(kPass, kInput);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_FALSE(verdict->equivalent);
  EXPECT_NE(verdict->difference.find("tuple element 1"), std::string::npos) << verdict->difference;
}

}  // namespace

// SPDX-License-Identifier: Apache-2.0
// The test kit's plugin harness (include/hopt/testing/plugin_harness.h):
// loading with hopt's checks, registering an entry function, running
// pipeline text with the verifier, and the in-process equivalence check.

#include "hopt/testing/plugin_harness.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/testing/assertions.h"

namespace hopt {
namespace testkit {
namespace {

using ::testing::HasSubstr;

std::string TestPlugin(const std::string& file) {
  return std::string(HOPT_TEST_PLUGIN_DIR) + "/" + file;
}

constexpr char kNegate[] = R"(
HloModule m

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%x)
}
)";

constexpr char kSubtract[] = R"(
HloModule m

ENTRY %main (a: s32[4], b: s32[4]) -> s32[4] {
  %a = s32[4]{0} parameter(0)
  %b = s32[4]{0} parameter(1)
  ROOT %d = s32[4]{0} subtract(%a, %b)
}
)";

// A plugin compiled into this test: what a vendor's gtest does with its own
// plugin's source. rename-root{name=S} renames the entry's root.
class RenameRoot : public Pass {
 public:
  RenameRoot() = default;
  absl::string_view name() const override { return "rename-root"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    module.entry_computation()->root_instruction()->SetName("renamed");
    return true;
  }
};

HoptPluginInfo LinkedPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "linked", "0.1", [](PluginRegistrar& registrar) {
            (void)registrar.AddPass<RenameRoot>("renames the root");
          }};
}

HoptPluginInfo WrongTagInfo() {
  return {HOPT_PLUGIN_API_VERSION, "gcc-0;llvm-0", "wrong_tag", "0.1", [](PluginRegistrar&) {}};
}

TEST(PluginHarnessTest, RunsALoadedPluginsPass) {
  PluginHarness harness;
  ASSERT_TRUE(harness.LoadPlugin(TestPlugin("libhopt_test_plugin.so")).ok());
  absl::StatusOr<std::string> text = harness.RunToText("test-negate-to-copy", kNegate);
  EXPECT_TRUE(MatchesFileCheck(text, R"(
    CHECK: ENTRY
    CHECK-NOT: negate
    CHECK: ROOT {{.*}} subtract(
  )"));
}

TEST(PluginHarnessTest, OptionsInPipelineText) {
  PluginHarness harness;
  ASSERT_TRUE(harness.LoadPlugin(TestPlugin("libhopt_test_plugin.so")).ok());
  auto module = harness.Run("test-append-suffix{suffix=_kit},test-noop", kNegate);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->name(), "m_kit");
}

TEST(PluginHarnessTest, RegistersAnEntryFunctionWithoutASharedObject) {
  PluginHarness harness;
  ASSERT_TRUE(harness.RegisterPlugin(&LinkedPluginInfo).ok());
  auto module = harness.Run("rename-root", kNegate);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->entry_computation()->root_instruction()->name(), "renamed");
  // Not in another harness: nothing is process-wide.
  PluginHarness other;
  EXPECT_THAT(std::string(other.Run("rename-root", kNegate).status().message()),
              HasSubstr("rename-root"));
}

TEST(PluginHarnessTest, LoaderChecksNameTheFile) {
  PluginHarness harness;
  absl::Status missing = harness.LoadPlugin(TestPlugin("libno_such_plugin.so"));
  EXPECT_THAT(std::string(missing.message()), HasSubstr("is not a loadable shared object"));
  absl::Status no_entry = harness.LoadPlugin(TestPlugin("libhopt_test_no_entry.so"));
  EXPECT_THAT(std::string(no_entry.message()),
              HasSubstr("does not export the entry point 'hoptGetPluginInfo'"));
  absl::Status bad_tag = harness.LoadPlugin(TestPlugin("libhopt_test_bad_tag.so"));
  EXPECT_THAT(std::string(bad_tag.message()), HasSubstr("was built for"));
  absl::Status bad_api = harness.LoadPlugin(TestPlugin("libhopt_test_bad_api.so"));
  EXPECT_THAT(std::string(bad_api.message()), HasSubstr("plugin API version"));
  absl::Status linked = harness.RegisterPlugin(&WrongTagInfo);
  EXPECT_THAT(std::string(linked.message()), HasSubstr("plugin 'wrong_tag' was built for"));
}

TEST(PluginHarnessTest, ATakenPassNameFailsUnlessOverriding) {
  PluginHarness harness;
  ASSERT_TRUE(harness.RegisterPlugin(&LinkedPluginInfo).ok());
  absl::Status again = harness.RegisterPlugin(&LinkedPluginInfo);
  EXPECT_THAT(std::string(again.message()), HasSubstr("rename-root"));
  PluginHarness overriding;
  overriding.set_allow_override(true);
  ASSERT_TRUE(overriding.RegisterPlugin(&LinkedPluginInfo).ok());
  EXPECT_TRUE(overriding.RegisterPlugin(&LinkedPluginInfo).ok());
}

TEST(PluginHarnessTest, ErrorsAsHoptWordsThem) {
  PluginHarness harness;
  ASSERT_TRUE(harness.LoadPlugin(TestPlugin("libhopt_test_plugin.so")).ok());
  EXPECT_THAT(std::string(harness.Run("test-fail", kNegate).status().message()),
              HasSubstr("pass 'test-fail'"));
  EXPECT_THAT(std::string(harness.Run("test-break-module", kNegate).status().message()),
              HasSubstr("pass 'test-break-module' (plugin hopt_test_plugin 1.2.3) produced an "
                        "invalid module: verifier:"));
  EXPECT_THAT(std::string(harness.Run("test-nop", kNegate).status().message()),
              HasSubstr("test-noop"));
  EXPECT_THAT(std::string(harness.Run("test-noop", "HloModule m\nENTRY %e {").status().message()),
              HasSubstr("<input>:"));
}

TEST(PluginHarnessTest, EquivalenceVerdicts) {
  PluginHarness harness;
  ASSERT_TRUE(harness.LoadPlugin(TestPlugin("libhopt_test_plugin.so")).ok());
  ASSERT_TRUE(harness.LoadPlugin(TestPlugin("libhopt_test_wrong.so")).ok());
  absl::StatusOr<EquivalenceVerdict> good =
      harness.VerifyEquivalence("test-negate-to-copy", kNegate);
  EXPECT_TRUE(IsOkAndEquivalent(good));
  EXPECT_EQ(good->devices, 1);
  absl::StatusOr<EquivalenceVerdict> bad =
      harness.VerifyEquivalence("test-swap-subtract-operands", kSubtract, {/*sets=*/2});
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE(bad->equivalent);
  EXPECT_THAT(bad->difference, HasSubstr("device 0 (replica 0, partition 0), input set 0"));
  EXPECT_FALSE(IsOkAndEquivalent(bad));
  // A mesh of the test's choosing.
  EquivalenceOptions mesh;
  mesh.replicas = 2;
  mesh.partitions = 3;
  absl::StatusOr<EquivalenceVerdict> on_mesh =
      harness.VerifyEquivalence("test-negate-to-copy", kNegate, mesh);
  ASSERT_TRUE(on_mesh.ok()) << on_mesh.status();
  EXPECT_EQ(on_mesh->devices, 6);
}

TEST(PluginHarnessTest, SameStructureAsComparesModuloNames) {
  PluginHarness harness;
  ASSERT_TRUE(harness.RegisterPlugin(&LinkedPluginInfo).ok());
  auto module = harness.Run("rename-root", kNegate);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_TRUE(SameStructureAs(**module, kNegate));
  ::testing::AssertionResult differs = SameStructureAs(**module, kSubtract);
  EXPECT_FALSE(differs);
  EXPECT_THAT(differs.message(), HasSubstr("expected (canonical):"));
}

}  // namespace
}  // namespace testkit
}  // namespace hopt

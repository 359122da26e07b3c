// SPDX-License-Identifier: Apache-2.0
// hopt's driver called in process (tools/hopt_driver/hopt_main.h): RunHopt
// on a HoptConfig, with libhopt_test_plugin.so loaded as -load would, from
// a buffer to a buffer, several times in one process. The command line
// around it is tested by lit (test/), which runs the binary.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/pass_manager/registrar.h"
#include "tools/common/provider_compare.h"
#include "tools/hopt_driver/hopt_config.h"
#include "tools/hopt_driver/hopt_main.h"

namespace hopt {
namespace tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kModule[] = R"(HloModule m

ENTRY main {
  a = f32[2,3] parameter(0)
  n = f32[2,3] negate(a)
  ROOT r = f32[2,3] add(n, a)
}
)";

std::string Message(const absl::Status& status) { return std::string(status.message()); }

HoptExtensions TestPlugin() {
  HoptExtensions extensions;
  extensions.load = {HOPT_TEST_PLUGIN_DIR "/libhopt_test_plugin.so"};
  return extensions;
}

HoptConfig Pipeline(std::string passes) {
  HoptConfig config;
  config.passes = std::move(passes);
  return config;
}

TEST(RunHoptTest, RunsThePipelineFromBufferToBuffer) {
  std::string result;
  absl::Status status = RunHopt(Pipeline("test-negate-to-copy"), TestPlugin(),
                                HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(result, StartsWith("HloModule m"));
  EXPECT_THAT(result, HasSubstr("subtract("));
  EXPECT_THAT(result, Not(HasSubstr("negate(")));
}

// Each call starts afresh: its own registry, the same plugin loaded again,
// options that do not carry over.
TEST(RunHoptTest, RunsManyTimesInOneProcess) {
  for (int i = 0; i < 3; ++i) {
    std::string renamed, short_style;
    HoptConfig suffix = Pipeline("test-append-suffix{suffix=_" + std::to_string(i) + "}");
    ASSERT_TRUE(
        RunHopt(suffix, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&renamed))
            .ok());
    EXPECT_THAT(renamed, StartsWith("HloModule m_" + std::to_string(i)));

    HoptConfig noop = Pipeline("test-noop");
    noop.print_style = HoptConfig::PrintStyle::kShort;
    ASSERT_TRUE(
        RunHopt(noop, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&short_style))
            .ok());
    EXPECT_THAT(short_style, StartsWith("HloModule m,"));
    EXPECT_THAT(short_style, Not(HasSubstr("%")));
  }
}

// One registry the caller keeps, loaded once, used by two runs.
TEST(RunHoptTest, UsesTheCallersRegistry) {
  Extensions registry;
  HoptExtensions first = TestPlugin();
  first.registry = &registry;
  std::string result;
  ASSERT_TRUE(
      RunHopt(Pipeline("test-noop"), first, HoptInput::Buffer(kModule), HoptOutput::Buffer(&result))
          .ok());
  ASSERT_NE(registry.passes.Find("test-noop"), nullptr);
  HoptExtensions again;
  again.registry = &registry;
  again.loaded = first.load;
  EXPECT_TRUE(RunHopt(Pipeline("test-negate-to-copy"), again, HoptInput::Buffer(kModule),
                      HoptOutput::Buffer(&result))
                  .ok());
  EXPECT_THAT(result, HasSubstr("subtract("));
}

TEST(RunHoptTest, ListsPassesIntoTheBuffer) {
  HoptConfig config;
  config.list_passes = true;
  std::string listing;
  ASSERT_TRUE(
      RunHopt(config, TestPlugin(), HoptInput::Buffer(""), HoptOutput::Buffer(&listing)).ok());
  EXPECT_THAT(listing, HasSubstr("test-break-module"));
  EXPECT_THAT(listing, HasSubstr("suffix=<string>"));
}

// -verify-each=false: no pass is checked, the result still is, and nothing
// is written.
TEST(RunHoptTest, VerifiesTheResultWithoutVerifyEach) {
  HoptConfig config = Pipeline("test-break-module,test-noop");
  config.verify_each = false;
  std::string result = "untouched";
  absl::Status status =
      RunHopt(config, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(status), HasSubstr("the pipeline produced an invalid module"));
  EXPECT_THAT(Message(status), HasSubstr("verifier: [shape]"));
  EXPECT_EQ(result, "untouched");
  EXPECT_EQ(HoptExitStatus(config, status), 1);

  config.verify_each = true;
  status = RunHopt(config, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(status), HasSubstr("pass 'test-break-module' (plugin hopt_test_plugin"));
  EXPECT_EQ(result, "untouched");
}

TEST(RunHoptTest, LocatesErrorsInTheBufferByItsName) {
  const char* broken = "HloModule m\n\nENTRY main {\n  a = f32[2] ??\n}\n";
  std::string result;
  absl::Status status =
      RunHopt(Pipeline("test-noop"), TestPlugin(), HoptInput::Buffer(broken, "in-memory.hlo"),
              HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(status), StartsWith("in-memory.hlo:4:"));
}

TEST(RunHoptTest, RefusesUnknownPassesAndPrintedPasses) {
  std::string result;
  absl::Status unknown = RunHopt(Pipeline("test-nop"), TestPlugin(), HoptInput::Buffer(kModule),
                                 HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(unknown), HasSubstr("test-nop"));
  HoptConfig print = Pipeline("test-noop");
  print.print_after = {"test-nope"};
  absl::Status printed =
      RunHopt(print, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(printed), HasSubstr("-print-after: unknown pass 'test-nope'"));
}

// A pipeline with -split-input-file's separator gives each module its run.
TEST(RunHoptTest, SplitsTheBufferIntoModules) {
  HoptConfig config = Pipeline("test-append-suffix");
  config.split_input_file = true;
  std::string two = std::string(kModule) + "// -----\n" + kModule;
  std::string result;
  ASSERT_TRUE(
      RunHopt(config, TestPlugin(), HoptInput::Buffer(two), HoptOutput::Buffer(&result)).ok());
  EXPECT_THAT(result, HasSubstr("// -----\nHloModule m_x"));
  EXPECT_THAT(result, StartsWith("HloModule m_x"));
}

// Proto bytes in memory, both ways: the format comes from the names.
TEST(RunHoptTest, ReadsAndWritesProtosInMemory) {
  for (const char* name : {"m.pb", "m.pbtxt"}) {
    std::string proto, text;
    ASSERT_TRUE(RunHopt(Pipeline("test-negate-to-copy"), TestPlugin(), HoptInput::Buffer(kModule),
                        HoptOutput::Buffer(&proto, name))
                    .ok());
    EXPECT_THAT(proto, Not(StartsWith("HloModule")));
    absl::Status status = RunHopt(Pipeline("test-noop"), TestPlugin(),
                                  HoptInput::Buffer(proto, name), HoptOutput::Buffer(&text));
    ASSERT_TRUE(status.ok()) << name << ": " << status;
    EXPECT_THAT(text, StartsWith("HloModule m"));
    EXPECT_THAT(text, HasSubstr("subtract("));
  }
}

TEST(RunHoptTest, CompareWithNeedsTheCommandLine) {
  HoptConfig config = Pipeline("test-noop");
  config.compare_with = "libhopt_vendor_test.so";
  std::string result;
  absl::Status status =
      RunHopt(config, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(status), HasSubstr("HoptConfig::command_line"));
  EXPECT_EQ(HoptExitStatus(config, status), kCompareCouldNotRun);
}

TEST(RunHoptTest, RefusesAMeshThatIsNotPositive) {
  HoptConfig config = Pipeline("test-noop");
  config.verify_equivalence = "";
  config.replicas = 0;
  std::string result;
  absl::Status status =
      RunHopt(config, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_THAT(Message(status), HasSubstr("-replicas=0: must be a positive integer"));
}

TEST(RunHoptTest, ChecksEquivalenceInProcess) {
  HoptConfig config = Pipeline("test-negate-to-copy");
  config.verify_equivalence = "whole,2";
  std::string result;
  absl::Status status =
      RunHopt(config, TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Buffer(&result));
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(result, HasSubstr("subtract("));
}

// A module in memory in, the result modules out: nothing printed or parsed
// on the way, the caller's module left as it was.
TEST(RunHoptTest, TakesAndReturnsModulesInMemory) {
  std::vector<std::unique_ptr<HloModule>> parsed;
  ASSERT_TRUE(
      RunHopt(Pipeline(""), TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Modules(&parsed))
          .ok());
  ASSERT_EQ(parsed.size(), 1u);
  std::vector<std::unique_ptr<HloModule>> result;
  std::vector<PassTiming> timings = {{"stale", 1.0}};
  HoptOutput output = HoptOutput::Modules(&result);
  output.pass_timings = &timings;
  absl::Status status = RunHopt(Pipeline("test-negate-to-copy,test-noop"), TestPlugin(),
                                HoptInput::Module(*parsed[0]), output);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(result.size(), 1u);
  EXPECT_THAT(PrintModule(*result[0]), Not(HasSubstr("negate(")));
  EXPECT_THAT(PrintModule(*parsed[0]), HasSubstr("negate("));
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].pass, "test-negate-to-copy");
  EXPECT_EQ(timings[1].pass, "test-noop");
  EXPECT_GE(timings[0].seconds, 0.0);
}

// -verify-equivalence-with against a module in memory: the verdicts and
// exit statuses of the file's check, the module named as the caller says.
TEST(RunHoptTest, ChecksEquivalenceWithAModuleInMemory) {
  std::vector<std::unique_ptr<HloModule>> before;
  ASSERT_TRUE(
      RunHopt(Pipeline(""), TestPlugin(), HoptInput::Buffer(kModule), HoptOutput::Modules(&before))
          .ok());
  HoptConfig config;
  config.verify_equivalence_with = "<before>";
  config.verify_equivalence_with_module = before[0].get();
  std::vector<std::unique_ptr<HloModule>> result;
  absl::Status same =
      RunHopt(config, TestPlugin(), HoptInput::Module(*before[0]), HoptOutput::Modules(&result));
  EXPECT_TRUE(same.ok()) << same;
  EXPECT_EQ(HoptExitStatus(config, same), 0);
  std::string other(kModule);
  other.replace(other.find("add(n, a)"), 9, "add(a, a)");
  absl::Status differs =
      RunHopt(config, TestPlugin(), HoptInput::Buffer(other), HoptOutput::Modules(&result));
  EXPECT_THAT(Message(differs), HasSubstr("-verify-equivalence-with: <before> differs"));
  EXPECT_EQ(HoptExitStatus(config, differs), 1);
}

}  // namespace
}  // namespace tools
}  // namespace hopt

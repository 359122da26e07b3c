// SPDX-License-Identifier: Apache-2.0
// pass_manager_test: libhopt_core's pass manager. PassRegistry, pipeline
// parsing, RunPipeline's instrumentation and OpExpanderPass; the plugin
// loader's tests are in plugin_loader_test.cc.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "core/pass_manager/tooling/plugin_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/pass_registry.h"
#include "hopt/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "unittests/pass_manager/pass_test_util.h"
#include "unittests/test_util.h"

#ifndef HOPT_TEST_PLUGIN_DIR
#error "the build passes -DHOPT_TEST_PLUGIN_DIR=\"<build>/test/plugins\""
#endif

namespace hopt {
namespace {

using pass_testing::CountOpcode;
using pass_testing::kModule;
using pass_testing::PluginPath;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using testing_util::ParseOrFail;

// --- passes used by the tests ----------------------------------------------

// Appends a suffix to the module name; counts its runs.
class RenamePass : public Pass {
 public:
  explicit RenamePass(std::string name = "rename", std::string suffix = "_r", int* runs = nullptr)
      : name_(std::move(name)), suffix_(std::move(suffix)), runs_(runs) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    if (runs_ != nullptr) ++*runs_;
    module.set_name(absl::StrCat(module.name(), suffix_));
    return true;
  }

 private:
  std::string name_, suffix_;
  int* runs_;
};

class NoChangePass : public Pass {
 public:
  explicit NoChangePass(std::string name = "nochange", int* runs = nullptr)
      : name_(std::move(name)), runs_(runs) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule&) override {
    if (runs_ != nullptr) ++*runs_;
    return false;
  }

 private:
  std::string name_;
  int* runs_;
};

class FailingPass : public Pass {
 public:
  absl::string_view name() const override { return "fail"; }
  absl::StatusOr<bool> Run(HloModule&) override { return absl::InvalidArgumentError("boom"); }
};

// Gives the entry root a shape that contradicts its operands.
class BreakingPass : public Pass {
 public:
  absl::string_view name() const override { return "break"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    HloComputation* entry = module.entry_computation();
    HloInstruction* root = entry->root_instruction();
    HloInstruction* copy =
        entry->AddInstruction(HloOpcode::kCopy, Shape(PrimitiveType::F32, {7, 7}), {root});
    absl::Status status = entry->set_root_instruction(copy, /*accept_different_shape=*/true);
    if (!status.ok()) return status;
    return true;
  }
};

// A default-constructible pass for PassRegistry::Register<P>.
class DefaultNamedPass : public Pass {
 public:
  absl::string_view name() const override { return "default-named"; }
  absl::StatusOr<bool> Run(HloModule&) override { return false; }
};

PassFactory Factory(std::string name) {
  return [name] { return std::make_unique<NoChangePass>(name); };
}

// --- PassRegistry -----------------------------------------------------------

TEST(PassRegistryTest, RegisterAndFindRecordsTheProvider) {
  PassRegistry registry;
  registry.BeginPlugin("plugin_one", "1.0");
  EXPECT_TRUE(registry.Register("alpha", "First pass", Factory("alpha")).ok());
  EXPECT_TRUE(registry.EndPlugin().ok());

  const PassInfo* info = registry.Find("alpha");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "alpha");
  EXPECT_EQ(info->description, "First pass");
  EXPECT_EQ(info->plugin, "plugin_one");
  EXPECT_EQ(info->plugin_version, "1.0");
  ASSERT_TRUE(info->factory);
  std::unique_ptr<Pass> pass = info->factory(PassOptions());
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->name(), "alpha");
  EXPECT_EQ(registry.Find("beta"), nullptr);
}

TEST(PassRegistryTest, OutsideAPluginTheProviderIsHopt) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register("builtin", "A built-in pass", Factory("builtin")).ok());
  ASSERT_NE(registry.Find("builtin"), nullptr);
  EXPECT_EQ(registry.Find("builtin")->plugin, "hopt");
  // After a plugin's registration, back to hopt.
  registry.BeginPlugin("p", "1");
  ASSERT_TRUE(registry.Register("from-p", "", Factory("from-p")).ok());
  ASSERT_TRUE(registry.EndPlugin().ok());
  ASSERT_TRUE(registry.Register("builtin2", "", Factory("builtin2")).ok());
  EXPECT_EQ(registry.Find("from-p")->plugin, "p");
  EXPECT_EQ(registry.Find("builtin2")->plugin, "hopt");
}

TEST(PassRegistryTest, TemplateRegisterUsesThePassName) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register<DefaultNamedPass>("Made by Register<P>").ok());
  const PassInfo* info = registry.Find("default-named");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->description, "Made by Register<P>");
  EXPECT_EQ(info->factory(PassOptions())->name(), "default-named");
}

TEST(PassRegistryTest, RejectsEmptyNameAndMissingFactory) {
  PassRegistry registry;
  EXPECT_FALSE(registry.Register("", "nameless", Factory("x")).ok());
  EXPECT_FALSE(registry.Register("no-factory", "", PassFactory()).ok());
  EXPECT_EQ(registry.Find("no-factory"), nullptr);
  EXPECT_THAT(registry.List(), IsEmpty());
}

TEST(PassRegistryTest, DuplicateNamesBothProviders) {
  PassRegistry registry;
  registry.BeginPlugin("first_plugin", "1.2.3");
  ASSERT_TRUE(registry.Register("shared-name", "from first", Factory("shared-name")).ok());
  ASSERT_TRUE(registry.EndPlugin().ok());

  registry.BeginPlugin("second_plugin", "2.0.0");
  absl::Status status = registry.Register("shared-name", "from second", Factory("shared-name"));
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "pass 'shared-name' is registered by both 'first_plugin' 1.2.3 and "
            "'second_plugin' 2.0.0; pass -override-passes to let the later plugin replace it");
  // A later, fine registration does not hide the first error.
  EXPECT_TRUE(registry.Register("other-name", "", Factory("other-name")).ok());
  absl::Status plugin_status = registry.EndPlugin();
  EXPECT_EQ(plugin_status, status);
  // The first provider keeps the name.
  EXPECT_EQ(registry.Find("shared-name")->plugin, "first_plugin");
  EXPECT_EQ(registry.Find("shared-name")->description, "from first");

  // EndPlugin reset the error: the next plugin starts clean.
  registry.BeginPlugin("third_plugin", "3");
  ASSERT_TRUE(registry.Register("third-name", "", Factory("third-name")).ok());
  EXPECT_TRUE(registry.EndPlugin().ok());
}

TEST(PassRegistryTest, OverrideLetsTheLaterPluginWin) {
  PassRegistry registry;
  registry.set_allow_override(true);
  registry.BeginPlugin("first_plugin", "1.2.3");
  ASSERT_TRUE(registry.Register("shared-name", "from first", Factory("shared-name")).ok());
  ASSERT_TRUE(registry.EndPlugin().ok());
  registry.BeginPlugin("second_plugin", "2.0.0");
  ASSERT_TRUE(registry.Register("shared-name", "from second", Factory("shared-name")).ok());
  ASSERT_TRUE(registry.EndPlugin().ok());
  const PassInfo* info = registry.Find("shared-name");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->plugin, "second_plugin");
  EXPECT_EQ(info->plugin_version, "2.0.0");
  EXPECT_EQ(info->description, "from second");
  EXPECT_EQ(registry.List().size(), 1u);
}

TEST(PassRegistryTest, ListIsSortedByName) {
  PassRegistry registry;
  for (const char* name : {"zeta", "alpha", "mid-pass", "beta", "alpha-2"})
    ASSERT_TRUE(registry.Register(name, "", Factory(name)).ok());
  std::vector<std::string> names;
  for (const PassInfo* info : registry.List()) names.push_back(info->name);
  EXPECT_THAT(names, ElementsAre("alpha", "alpha-2", "beta", "mid-pass", "zeta"));
}

TEST(PassRegistryTest, ClosestNames) {
  PassRegistry registry;
  for (const char* name :
       {"test-append-suffix", "test-noop", "test-fail", "canonicalize", "dce", "cse"})
    ASSERT_TRUE(registry.Register(name, "", Factory(name)).ok());
  std::vector<std::string> close = registry.ClosestNames("test-apend-suffix");
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "test-append-suffix");
  close = registry.ClosestNames("canonicalise");
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "canonicalize");
  // Nothing near.
  EXPECT_THAT(registry.ClosestNames("xyz-completely-unrelated"), IsEmpty());
  // The closest come first, and the limit holds.
  close = registry.ClosestNames("dse");
  ASSERT_GE(close.size(), 2u);
  EXPECT_THAT(close, ::testing::Contains("dce"));
  EXPECT_THAT(close, ::testing::Contains("cse"));
  EXPECT_LE(registry.ClosestNames("test-nop", 1).size(), 1u);
  EXPECT_EQ(registry.ClosestNames("test-nop", 1).front(), "test-noop");
  EXPECT_THAT(registry.ClosestNames("test-nop", 0), IsEmpty());
}

// --- ParsePipeline ----------------------------------------------------------

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"test-append-suffix", "test-noop", "test-fail"})
      ASSERT_TRUE(registry_.Register(name, "", Factory(name)).ok());
  }
  std::vector<std::string> Names(const std::vector<std::unique_ptr<Pass>>& passes) {
    std::vector<std::string> names;
    for (const auto& pass : passes) names.emplace_back(pass->name());
    return names;
  }
  PassRegistry registry_;
};

TEST_F(PipelineTest, ParsesPassesInOrder) {
  auto passes = ParsePipeline("test-noop,test-append-suffix,test-noop", registry_);
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_THAT(Names(*passes), ElementsAre("test-noop", "test-append-suffix", "test-noop"));
  // Each entry is its own instance.
  EXPECT_NE((*passes)[0].get(), (*passes)[2].get());
}

TEST_F(PipelineTest, WhitespaceAroundNamesIsIgnored) {
  auto passes = ParsePipeline("  test-noop , test-append-suffix\t,\ntest-fail ", registry_);
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_THAT(Names(*passes), ElementsAre("test-noop", "test-append-suffix", "test-fail"));
}

TEST_F(PipelineTest, EmptyPipelineHasNoPasses) {
  auto passes = ParsePipeline("", registry_);
  ASSERT_TRUE(passes.ok()) << passes.status();
  EXPECT_THAT(*passes, IsEmpty());
}

TEST_F(PipelineTest, EmptyEntriesAreRejected) {
  for (const char* text :
       {"test-noop,,test-fail", ",test-noop", "test-noop,", "test-noop, ,test-fail", ","}) {
    auto passes = ParsePipeline(text, registry_);
    EXPECT_FALSE(passes.ok()) << "'" << text << "' was accepted";
    if (!passes.ok()) {
      EXPECT_THAT(std::string(passes.status().message()), HasSubstr("empty"));
    }
  }
}

TEST_F(PipelineTest, UnknownPassWithSuggestion) {
  auto passes = ParsePipeline("test-noop,test-apend-suffix", registry_);
  ASSERT_FALSE(passes.ok());
  EXPECT_EQ(passes.status().message(),
            "unknown pass 'test-apend-suffix'; did you mean 'test-append-suffix'?");
}

TEST_F(PipelineTest, UnknownPassWithoutSuggestion) {
  auto passes = ParsePipeline("xyz", registry_);
  ASSERT_FALSE(passes.ok());
  EXPECT_EQ(passes.status().message(), "unknown pass 'xyz'; see -list-passes");
}

TEST_F(PipelineTest, UnknownPassAnywhereFailsTheWholePipeline) {
  // The error names the unknown pass even after good ones: nothing is
  // returned to run.
  auto passes = ParsePipeline("test-noop,nope-nope-nope,test-fail", registry_);
  ASSERT_FALSE(passes.ok());
  EXPECT_EQ(passes.status().message(), "unknown pass 'nope-nope-nope'; see -list-passes");
}

// --- RunPipeline ------------------------------------------------------------

class RunPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = ParseOrFail(kModule);
    ASSERT_NE(module_, nullptr);
    instrumentation_.out = &out_;
  }
  absl::StatusOr<bool> Run(std::vector<std::unique_ptr<Pass>> passes) {
    passes_ = std::move(passes);
    absl::StatusOr<bool> result = RunPipeline(*module_, passes_, instrumentation_);
    out_.flush();
    return result;
  }
  static std::vector<std::unique_ptr<Pass>> Passes(std::unique_ptr<Pass> a,
                                                   std::unique_ptr<Pass> b = nullptr,
                                                   std::unique_ptr<Pass> c = nullptr) {
    std::vector<std::unique_ptr<Pass>> passes;
    for (auto* p : {&a, &b, &c})
      if (*p) passes.push_back(std::move(*p));
    return passes;
  }
  static size_t Count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  }

  std::unique_ptr<HloModule> module_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::string captured_;
  llvm::raw_string_ostream out_{captured_};
  Instrumentation instrumentation_;
};

TEST_F(RunPipelineTest, RunsInOrderAndReportsChange) {
  auto changed = Run(
      Passes(std::make_unique<RenamePass>("one", "_1"), std::make_unique<RenamePass>("two", "_2")));
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(module_->name(), "m_1_2");
  EXPECT_EQ(captured_, "");  // no instrumentation asked for
}

TEST_F(RunPipelineTest, NothingChangedIsFalse) {
  auto changed = Run(Passes(std::make_unique<NoChangePass>()));
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(module_->name(), "m");
}

TEST_F(RunPipelineTest, PrintBefore) {
  instrumentation_.print_before = {"rename"};
  ASSERT_TRUE(Run(Passes(std::make_unique<NoChangePass>(), std::make_unique<RenamePass>())).ok());
  EXPECT_THAT(captured_, StartsWith("// *** IR Dump Before rename ***\nHloModule m"));
  EXPECT_THAT(captured_, Not(HasSubstr("HloModule m_r")));
  EXPECT_THAT(captured_, Not(HasSubstr("nochange")));
  EXPECT_EQ(Count(captured_, "// *** IR Dump"), 1u);
}

TEST_F(RunPipelineTest, PrintAfter) {
  instrumentation_.print_after = {"rename"};
  ASSERT_TRUE(Run(Passes(std::make_unique<RenamePass>(), std::make_unique<NoChangePass>())).ok());
  EXPECT_THAT(captured_, StartsWith("// *** IR Dump After rename ***\nHloModule m_r"));
  EXPECT_THAT(captured_, HasSubstr("ROOT %r = f32[2,3]{1,0} add("));
  EXPECT_EQ(Count(captured_, "// *** IR Dump"), 1u);
}

TEST_F(RunPipelineTest, PrintAfterAll) {
  instrumentation_.print_after_all = true;
  ASSERT_TRUE(Run(Passes(std::make_unique<RenamePass>(), std::make_unique<NoChangePass>())).ok());
  EXPECT_THAT(captured_, HasSubstr("// *** IR Dump After rename ***\nHloModule m_r"));
  EXPECT_THAT(captured_, HasSubstr("// *** IR Dump After nochange ***\nHloModule m_r"));
  EXPECT_LT(captured_.find("After rename"), captured_.find("After nochange"));
  EXPECT_EQ(Count(captured_, "// *** IR Dump"), 2u);
}

TEST_F(RunPipelineTest, PrintChangedOnlyAfterChangingPasses) {
  instrumentation_.print_changed = true;
  ASSERT_TRUE(Run(Passes(std::make_unique<NoChangePass>("quiet1"),
                         std::make_unique<RenamePass>("loud", "_l"),
                         std::make_unique<NoChangePass>("quiet2")))
                  .ok());
  EXPECT_THAT(captured_, StartsWith("// *** IR Dump After loud (changed) ***\nHloModule m_l"));
  EXPECT_THAT(captured_, Not(HasSubstr("quiet")));
  EXPECT_EQ(Count(captured_, "// *** IR Dump"), 1u);
}

TEST_F(RunPipelineTest, VerifyEachNamesTheBreakingPass) {
  int later_runs = 0;
  auto changed = Run(Passes(std::make_unique<NoChangePass>(), std::make_unique<BreakingPass>(),
                            std::make_unique<NoChangePass>("after", &later_runs)));
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(std::string(changed.status().message()),
              StartsWith("pass 'break' produced an invalid module: verifier: ["));
  EXPECT_EQ(later_runs, 0);
}

TEST_F(RunPipelineTest, VerifyEachOffLetsABrokenModuleThrough) {
  instrumentation_.verify_each = false;
  instrumentation_.print_after = {"break"};
  auto changed = Run(Passes(std::make_unique<BreakingPass>()));
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_FALSE(VerifyModule(*module_).ok());
  EXPECT_THAT(captured_, HasSubstr("// *** IR Dump After break ***"));
}

TEST_F(RunPipelineTest, PassErrorNamesThePassAndStopsThePipeline) {
  int later_runs = 0;
  instrumentation_.print_after_all = true;
  auto changed = Run(Passes(std::make_unique<FailingPass>(),
                            std::make_unique<NoChangePass>("after", &later_runs)));
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(), "pass 'fail': boom");
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(later_runs, 0);
  EXPECT_THAT(captured_, Not(HasSubstr("IR Dump After fail")));
}

TEST_F(RunPipelineTest, PrintStyleFollowsPrintOptions) {
  instrumentation_.print_after = {"nochange"};
  instrumentation_.print_options = PrintOptions::Short();
  ASSERT_TRUE(Run(Passes(std::make_unique<NoChangePass>())).ok());
  EXPECT_THAT(captured_, HasSubstr("ROOT r = f32[2,3]{1,0} add(n, a)"));
}

// --- OpExpanderPass ---------------------------------------------------------

// negate(x) -> subtract(broadcast(0), x). Records what it saw; can be told to
// decline (return null) or to fail.
class NegateExpander : public OpExpanderPass {
 public:
  enum class Mode { kRewrite, kDecline, kFail };
  explicit NegateExpander(Mode mode = Mode::kRewrite) : mode_(mode) {}
  absl::string_view name() const override { return "negate-expander"; }
  int matcher_calls = 0;
  std::vector<std::string> expanded;

 protected:
  bool InstructionMatchesPattern(HloInstruction* instruction) override {
    ++matcher_calls;
    return instruction->opcode() == HloOpcode::kNegate;
  }
  absl::StatusOr<HloInstruction*> ExpandInstruction(HloInstruction* instruction) override {
    expanded.emplace_back(instruction->name());
    if (mode_ == Mode::kDecline) return nullptr;
    if (mode_ == Mode::kFail) return absl::UnimplementedError("cannot expand this");
    const Shape& shape = instruction->shape();
    auto zero = MakeScalarConstant(instruction->parent(), shape.element_type(), 0);
    if (!zero.ok()) return zero.status();
    std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
    auto zeros = MakeBroadcast(*zero, dims, {});
    if (!zeros.ok()) return zeros.status();
    return MakeBinary(HloOpcode::kSubtract, *zeros, instruction->mutable_operand(0));
  }

 private:
  Mode mode_;
};

constexpr char kNegateModule[] = R"(HloModule negates

helper {
  p = f32[4]{0} parameter(0)
  ROOT hn = f32[4]{0} negate(p)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  n1 = f32[4]{0} negate(x)
  n2 = f32[4]{0} negate(n1)
  c = f32[4]{0} call(n2), to_apply=helper
  ROOT n3 = f32[4]{0} negate(c)
}
)";

TEST(OpExpanderPassTest, RewritesEveryMatchInEveryComputation) {
  auto module = ParseOrFail(kNegateModule);
  ASSERT_NE(module, nullptr);
  NegateExpander pass;
  auto changed = pass.Run(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kNegate), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSubtract), 4);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module) << "\n" << PrintModule(*module);
  // Post order: operands before users, so n1 before n2 before n3.
  std::vector<std::string> entry_order;
  for (const std::string& name : pass.expanded)
    if (name != "hn") entry_order.push_back(name);
  EXPECT_THAT(entry_order, ElementsAre("n1", "n2", "n3"));
  // The roots were replaced, keeping their shapes.
  HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kSubtract);
  EXPECT_EQ(root->shape().ToString(), "f32[4]{0}");
  EXPECT_EQ(module->GetComputationWithName("helper")->root_instruction()->opcode(),
            HloOpcode::kSubtract);
  // The chain still computes from x: subtract(.., subtract(.., x)).
  HloInstruction* call = root->mutable_operand(1);
  ASSERT_EQ(call->opcode(), HloOpcode::kCall);
  HloInstruction* inner = call->mutable_operand(0);
  ASSERT_EQ(inner->opcode(), HloOpcode::kSubtract);
  ASSERT_EQ(inner->operand(1)->opcode(), HloOpcode::kSubtract);
  EXPECT_EQ(inner->operand(1)->operand(1)->name(), "x");
}

TEST(OpExpanderPassTest, MatchesAreCollectedBeforeRewriting) {
  auto module = ParseOrFail(kNegateModule);
  ASSERT_NE(module, nullptr);
  int64_t instructions = 0;
  for (HloComputation* computation : module->computations())
    instructions += computation->instruction_count();
  NegateExpander pass;
  ASSERT_TRUE(pass.Run(*module).ok());
  // Every original instruction is looked at once; the new ones never.
  EXPECT_EQ(pass.matcher_calls, instructions);
  EXPECT_EQ(pass.expanded.size(), 4u);
}

TEST(OpExpanderPassTest, NoMatchIsNoChange) {
  auto module = ParseOrFail(R"(HloModule plain
ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} add(x, x)
}
)");
  ASSERT_NE(module, nullptr);
  std::string before = PrintModule(*module);
  NegateExpander pass;
  auto changed = pass.Run(*module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(PrintModule(*module), before);
}

TEST(OpExpanderPassTest, DecliningLeavesTheInstruction) {
  auto module = ParseOrFail(kNegateModule);
  ASSERT_NE(module, nullptr);
  std::string before = PrintModule(*module);
  NegateExpander pass(NegateExpander::Mode::kDecline);
  auto changed = pass.Run(*module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(pass.expanded.size(), 4u);
  EXPECT_EQ(PrintModule(*module), before);
}

TEST(OpExpanderPassTest, ExpanderErrorsComeBack) {
  auto module = ParseOrFail(kNegateModule);
  ASSERT_NE(module, nullptr);
  NegateExpander pass(NegateExpander::Mode::kFail);
  auto changed = pass.Run(*module);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(std::string(changed.status().message()), HasSubstr("cannot expand this"));
}

TEST(OpExpanderPassTest, RunsInsideAPipelineWithVerifyEach) {
  auto module = ParseOrFail(kNegateModule);
  ASSERT_NE(module, nullptr);
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<NegateExpander>());
  std::string captured;
  llvm::raw_string_ostream out(captured);
  Instrumentation instrumentation;
  instrumentation.out = &out;
  instrumentation.print_changed = true;
  auto changed = RunPipeline(*module, passes, instrumentation);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  out.flush();
  EXPECT_THAT(captured, HasSubstr("// *** IR Dump After negate-expander (changed) ***"));
  EXPECT_THAT(captured, HasSubstr("subtract("));
  EXPECT_THAT(captured, Not(HasSubstr("negate(")));
}

}  // namespace
}  // namespace hopt

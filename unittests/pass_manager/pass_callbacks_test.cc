// SPDX-License-Identifier: Apache-2.0
// pass_callbacks_test: the callbacks RunPipeline makes around each pass
// (core/pass_manager/tooling/pipeline.h, PassCallbacks), on which the tools
// build their measurements (tools/common/pass_instrumentation.h): their order, and
// that a pass that fails or throws is still followed by its after-pass call.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "llvm/Support/raw_ostream.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kModule[] = R"(HloModule m

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(a)
}
)";

// What a pass does when run.
enum class Outcome { kRename, kFail, kThrow, kBreak };

// Appends "_<name>" to the module name, or fails, throws, or leaves a
// module the verifier rejects; counts its runs.
class ScriptedPass : public Pass {
 public:
  ScriptedPass(std::string name, Outcome outcome, int* runs)
      : name_(std::move(name)), outcome_(outcome), runs_(runs) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    ++*runs_;
    switch (outcome_) {
      case Outcome::kRename: module.set_name(absl::StrCat(module.name(), "_", name_)); return true;
      case Outcome::kFail: return absl::InvalidArgumentError("refused");
      case Outcome::kThrow: throw std::runtime_error("thrown");
      case Outcome::kBreak: {
        HloComputation* entry = module.entry_computation();
        HloInstruction* copy = entry->AddInstruction(
            HloOpcode::kCopy, Shape(PrimitiveType::F32, {7, 7}), {entry->root_instruction()});
        absl::Status set = entry->set_root_instruction(copy, /*accept_different_shape=*/true);
        if (!set.ok()) return set;
        return true;
      }
    }
    return false;
  }

 private:
  std::string name_;
  Outcome outcome_;
  int* runs_;
};

class PassCallbacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = testing_util::ParseOrFail(kModule);
    ASSERT_NE(module_, nullptr);
    instrumentation_.out = &out_;
  }

  void Add(const std::string& name, Outcome outcome = Outcome::kRename) {
    passes_.push_back(std::make_unique<ScriptedPass>(name, outcome, &runs_));
  }

  // Callbacks that log every call as "<tag> <event> <pass>: <module name>".
  PassCallbacks Logging(const std::string& tag) {
    PassCallbacks callbacks;
    callbacks.before_pipeline = [this, tag](const HloModule& module) {
      log_.push_back(absl::StrCat(tag, " start: ", module.name()));
      return absl::OkStatus();
    };
    callbacks.before_pass = [this, tag](const Pass& pass, const HloModule& module) {
      log_.push_back(absl::StrCat(tag, " before ", pass.name(), ": ", module.name()));
    };
    callbacks.after_pass = [this, tag](const Pass& pass, const HloModule& module) {
      log_.push_back(absl::StrCat(tag, " after ", pass.name(), ": ", module.name()));
    };
    callbacks.after_pipeline = [this, tag](const HloModule& module) {
      log_.push_back(absl::StrCat(tag, " end: ", module.name()));
    };
    return callbacks;
  }

  absl::StatusOr<bool> Run() {
    absl::StatusOr<bool> result = RunPipeline(*module_, passes_, instrumentation_);
    out_.flush();
    return result;
  }

  std::unique_ptr<HloModule> module_;
  std::vector<std::unique_ptr<Pass>> passes_;
  int runs_ = 0;
  std::vector<std::string> log_;
  std::string captured_;
  llvm::raw_string_ostream out_{captured_};
  Instrumentation instrumentation_;
};

TEST_F(PassCallbacksTest, BeforeAndAfterSurroundEachPassInOrder) {
  Add("one");
  Add("two");
  instrumentation_.callbacks.push_back(Logging("cb"));
  absl::StatusOr<bool> changed = Run();
  ASSERT_TRUE(changed.ok()) << changed.status();
  // Before a pass sees its input, after it its result.
  EXPECT_THAT(log_,
              ElementsAre("cb start: m", "cb before one: m", "cb after one: m_one",
                          "cb before two: m_one", "cb after two: m_one_two", "cb end: m_one_two"));
}

TEST_F(PassCallbacksTest, AnEmptyPipelineStartsAndEnds) {
  instrumentation_.callbacks.push_back(Logging("cb"));
  ASSERT_TRUE(Run().ok());
  EXPECT_THAT(log_, ElementsAre("cb start: m", "cb end: m"));
}

TEST_F(PassCallbacksTest, AFailedPassIsFollowedByItsAfterCallAndNothingElse) {
  Add("one");
  Add("refuser", Outcome::kFail);
  Add("never");
  instrumentation_.callbacks.push_back(Logging("cb"));
  absl::StatusOr<bool> changed = Run();
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(), "pass 'refuser': refused");
  EXPECT_THAT(log_, ElementsAre("cb start: m", "cb before one: m", "cb after one: m_one",
                                "cb before refuser: m_one", "cb after refuser: m_one"));
  EXPECT_EQ(runs_, 2);
}

TEST_F(PassCallbacksTest, APassThatThrowsIsFollowedByItsAfterCall) {
  Add("thrower", Outcome::kThrow);
  instrumentation_.callbacks.push_back(Logging("cb"));
  absl::StatusOr<bool> changed = Run();
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(), "pass 'thrower': threw an exception: thrown");
  EXPECT_THAT(log_, ElementsAre("cb start: m", "cb before thrower: m", "cb after thrower: m"));
}

// The after-pass call measures the pass alone: it comes before the
// verifier, which then stops the pipeline.
TEST_F(PassCallbacksTest, AfterComesBeforeTheVerifier) {
  Add("breaker", Outcome::kBreak);
  Add("never");
  instrumentation_.callbacks.push_back(Logging("cb"));
  absl::StatusOr<bool> changed = Run();
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(std::string(changed.status().message()),
              ::testing::StartsWith("pass 'breaker' produced an invalid module"));
  EXPECT_THAT(log_, ElementsAre("cb start: m", "cb before breaker: m", "cb after breaker: m"));
  EXPECT_EQ(runs_, 1);
}

// The first callbacks enclose the later ones, so that a timer installed
// first does not count what a later callback does around the pass.
TEST_F(PassCallbacksTest, SeveralCallbacksNest) {
  Add("one");
  instrumentation_.callbacks.push_back(Logging("outer"));
  instrumentation_.callbacks.push_back(Logging("inner"));
  ASSERT_TRUE(Run().ok());
  EXPECT_THAT(log_, ElementsAre("outer start: m", "inner start: m", "outer before one: m",
                                "inner before one: m", "inner after one: m_one",
                                "outer after one: m_one", "inner end: m_one", "outer end: m_one"));
}

TEST_F(PassCallbacksTest, ARefusalBeforeThePipelineRunsNoPass) {
  Add("one");
  PassCallbacks refusing = Logging("refusing");
  refusing.before_pipeline = [](const HloModule&) {
    return absl::FailedPreconditionError("cannot measure here");
  };
  instrumentation_.callbacks.push_back(refusing);
  instrumentation_.callbacks.push_back(Logging("later"));
  absl::StatusOr<bool> changed = Run();
  // Returned as is, not as a pass's error.
  EXPECT_EQ(changed.status(), absl::FailedPreconditionError("cannot measure here"));
  EXPECT_THAT(log_, IsEmpty());
  EXPECT_EQ(runs_, 0);
  EXPECT_EQ(module_->name(), "m");
}

// The dumps fall outside what the callbacks enclose; after_verifier (hopt
// -compare-with's hook) comes after after_pass and before the dump after.
TEST_F(PassCallbacksTest, PrintsFallOutsideAndAfterVerifierComesLast) {
  Add("one");
  instrumentation_.print_before = {"one"};
  instrumentation_.print_after = {"one"};
  PassCallbacks marking;
  marking.before_pass = [this](const Pass&, const HloModule&) { out_ << "<before>\n"; };
  marking.after_pass = [this](const Pass&, const HloModule&) { out_ << "<after>\n"; };
  marking.after_verifier = [this](size_t, const Pass&, const HloModule&) {
    out_ << "<verified>\n";
    return absl::OkStatus();
  };
  instrumentation_.callbacks.push_back(marking);
  ASSERT_TRUE(Run().ok());
  size_t dump_before = captured_.find("// *** IR Dump Before one ***");
  size_t before = captured_.find("<before>");
  size_t after = captured_.find("<after>");
  size_t verified = captured_.find("<verified>");
  size_t dump_after = captured_.find("// *** IR Dump After one ***");
  ASSERT_NE(dump_after, std::string::npos) << captured_;
  EXPECT_LT(dump_before, before);
  EXPECT_LT(before, after);
  EXPECT_LT(after, verified);
  EXPECT_LT(verified, dump_after);
}

// after_verifier sees only modules the verifier accepted, with the pass's
// index, innermost callback first; its error stops the pipeline as is.
TEST_F(PassCallbacksTest, AfterVerifierSeesVerifiedModulesAndCanStop) {
  Add("one");
  Add("broken", Outcome::kBreak);
  for (const char* tag : {"outer", "inner"}) {
    PassCallbacks callbacks;
    callbacks.after_verifier = [this, tag](size_t index, const Pass& pass,
                                           const HloModule& module) {
      log_.push_back(absl::StrCat(tag, " verified ", index, " ", pass.name(), ": ", module.name()));
      return absl::OkStatus();
    };
    instrumentation_.callbacks.push_back(callbacks);
  }
  absl::StatusOr<bool> changed = Run();
  EXPECT_THAT(changed.status().message(),
              ::testing::HasSubstr("pass 'broken' produced an invalid module"));
  EXPECT_THAT(log_, ElementsAre("inner verified 0 one: m_one", "outer verified 0 one: m_one"));

  log_.clear();
  passes_.clear();
  module_ = testing_util::ParseOrFail(kModule);
  Add("two");
  Add("three");
  instrumentation_.callbacks.back().after_verifier = [](size_t index, const Pass&,
                                                        const HloModule&) {
    return index == 0 ? absl::OkStatus() : absl::AbortedError("differs");
  };
  changed = Run();
  EXPECT_EQ(changed.status(), absl::AbortedError("differs"));
  EXPECT_THAT(log_, ElementsAre("outer verified 0 two: m_two"));
}

}  // namespace
}  // namespace hopt

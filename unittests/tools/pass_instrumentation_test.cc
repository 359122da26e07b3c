// SPDX-License-Identifier: Apache-2.0
// pass_instrumentation_test: hopt's -time-passes and -callgrind-per-pass
// as pass callbacks (tools/common/pass_instrumentation.h), run by the pass
// manager. The table's layout is pinned by lit (test/time-passes.hlo); the
// per-pass callgrind dumps under valgrind by test/callgrind-per-pass.hlo.

#include "tools/common/pass_instrumentation.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "llvm/Support/raw_ostream.h"
#include "unittests/test_util.h"

namespace hopt {
namespace tools {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kModule[] = R"(HloModule m

ENTRY main {
  ROOT a = f32[2] parameter(0)
}
)";

// Does nothing, or fails; counts its runs.
class CountedPass : public Pass {
 public:
  CountedPass(std::string name, int* runs, bool fail = false)
      : name_(std::move(name)), runs_(runs), fail_(fail) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule&) override {
    ++*runs_;
    if (fail_) return absl::InternalError("no");
    return false;
  }

 private:
  std::string name_;
  int* runs_;
  bool fail_;
};

class PassInstrumentationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = testing_util::ParseOrFail(kModule);
    ASSERT_NE(module_, nullptr);
  }
  // Runs passes of these names (a name ending in '!' fails).
  absl::StatusOr<bool> Run(const std::vector<std::string>& names) {
    std::vector<std::unique_ptr<Pass>> passes;
    for (const std::string& name : names) {
      bool fail = !name.empty() && name.back() == '!';
      passes.push_back(std::make_unique<CountedPass>(fail ? name.substr(0, name.size() - 1) : name,
                                                     &runs_, fail));
    }
    absl::StatusOr<bool> result = RunPipeline(*module_, passes, instrumentation_);
    out_.flush();
    return result;
  }
  // The table's rows: the lines after the column heading.
  std::vector<std::string> Rows() const {
    std::vector<std::string> rows;
    size_t at = captured_.find("Page faults  Pass\n");
    if (at == std::string::npos) return rows;
    at = captured_.find('\n', at) + 1;
    while (at < captured_.size()) {
      size_t end = captured_.find('\n', at);
      rows.push_back(captured_.substr(at, end - at));
      at = end + 1;
    }
    return rows;
  }

  std::unique_ptr<HloModule> module_;
  int runs_ = 0;
  std::string captured_;
  llvm::raw_string_ostream out_{captured_};
  Instrumentation instrumentation_;
};

MATCHER_P(RowOf, pass, "") {
  return arg.size() > pass.size() + 2 &&
         arg.compare(arg.size() - pass.size() - 2, std::string::npos, "  " + pass) == 0;
}

TEST_F(PassInstrumentationTest, TimePassesHasOneRowPerPassNameInOrderOfFirstRun) {
  instrumentation_.callbacks.push_back(TimePassesCallbacks(out_));
  ASSERT_TRUE(Run({"first", "second", "first"}).ok());
  EXPECT_THAT(captured_, HasSubstr("Pass execution timing report"));
  EXPECT_THAT(captured_, HasSubstr("  Total: "));
  EXPECT_THAT(Rows(),
              ::testing::ElementsAre(RowOf(std::string("first")), RowOf(std::string("second"))));
  EXPECT_EQ(runs_, 3);
}

TEST_F(PassInstrumentationTest, TimePassesPrintsNoTableForAFailedPipeline) {
  instrumentation_.callbacks.push_back(TimePassesCallbacks(out_));
  ASSERT_FALSE(Run({"first", "second!"}).ok());
  EXPECT_THAT(captured_, IsEmpty());
}

TEST_F(PassInstrumentationTest, TimePassesStartsANewTableForEachPipeline) {
  instrumentation_.callbacks.push_back(TimePassesCallbacks(out_));
  ASSERT_TRUE(Run({"early"}).ok());
  captured_.clear();
  ASSERT_TRUE(Run({"late"}).ok());
  EXPECT_THAT(Rows(), ::testing::ElementsAre(RowOf(std::string("late"))));
}

// Outside valgrind the client requests would count nothing: the pipeline
// is refused before any pass runs, with hopt's message.
TEST_F(PassInstrumentationTest, CallgrindPerPassOutsideValgrindRunsNoPass) {
  instrumentation_.callbacks.push_back(TimePassesCallbacks(out_));
  instrumentation_.callbacks.push_back(CallgrindPerPassCallbacks());
  absl::StatusOr<bool> changed = Run({"counted"});
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(changed.status().message(),
            "-callgrind-per-pass counts only under valgrind --tool=callgrind --instr-atstart=no");
  EXPECT_EQ(runs_, 0);
  EXPECT_THAT(captured_, Not(HasSubstr("timing report")));
}

}  // namespace
}  // namespace tools
}  // namespace hopt

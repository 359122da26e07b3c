// SPDX-License-Identifier: Apache-2.0
// The interpreter on modules the verifier refuses (a module built in memory
// need not have been verified) and on values with nothing to print: each
// runs to a result or is refused with `interpreter: ...`, never a signal.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::hopt::testing_util::ParseOrFail;
using ::testing::HasSubstr;

absl::StatusOr<std::vector<Literal>> RunUnverified(const std::string& text) {
  auto module = ParseOrFail(text);
  if (module == nullptr) return absl::InternalError("parse failed");
  EvalOptions options;
  options.replicas = 1;
  options.partitions = 1;
  std::vector<std::vector<Literal>> arguments = RandomArguments(*module, /*devices=*/1, /*seed=*/1);
  return RunModule(*module, arguments, options);
}

void ExpectRefused(const std::string& text, const std::string& phrase) {
  absl::StatusOr<std::vector<Literal>> outputs = RunUnverified(text);
  ASSERT_FALSE(outputs.ok()) << "ran to " << (*outputs)[0].ToText();
  EXPECT_THAT(outputs.status().message(), HasSubstr("interpreter: "));
  EXPECT_THAT(outputs.status().message(), HasSubstr(phrase));
}

TEST(UnverifiedModuleTest, AConditionalWithoutBranchesIsRefused) {
  ExpectRefused(R"(HloModule m
ENTRY e {
  i = s32[] constant(0)
  ROOT c = f32[] conditional(i), branch_computations={}
}
)",
                "c (conditional): has no branch computations");
}

TEST(UnverifiedModuleTest, ALoopConditionThatIsNotPredScalarIsRefused) {
  for (const char* root : {"(pred[]) tuple(pred[] constant(false))", "pred[0] constant({})"}) {
    std::string text = R"(HloModule m
body {
  ROOT p = s32[] parameter(0)
}
cond {
  p = s32[] parameter(0)
  ROOT r = ROOT_HERE
}
ENTRY e {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)";
    text.replace(text.find("ROOT_HERE"), 9, root);
    ExpectRefused(text, "w (while): the condition cond returned");
  }
}

TEST(UnverifiedModuleTest, ARankOneConvolutionIsRefused) {
  ExpectRefused(R"(HloModule m
ENTRY e {
  a = f32[4] constant({1, 2, 3, 4})
  ROOT c = f32[4] convolution(a, a), window={}, dim_labels=b_i->b
}
)",
                "operands need the same rank, at least 2");
}

TEST(UnverifiedModuleTest, BufferValuesAreRefusedBeforeTheRun) {
  ExpectRefused(R"(HloModule m
ENTRY e {
  ROOT p = b(f32[4]) parameter(0)
}
)",
                "p (parameter): its shape b(f32[4]) holds a buffer");
}

TEST(UnverifiedModuleTest, OpaqueValuesFlowThroughAndPrintAsOpaque) {
  absl::StatusOr<std::vector<Literal>> outputs = RunUnverified(R"(HloModule m
ENTRY e {
  p = opaque[] parameter(0)
  c = opaque[] copy(p)
  b = opaque[] opt-barrier(c)
  ROOT t = (opaque[], s32[]) tuple(b, s32[] constant(7))
}
)");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].ToText(), "( opaque, 7 )");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for the verifier's XLA rules beyond an instruction's own shape
// (core/ir/verifier_rules.h) and the convolution shape check: each module
// below is one XLA's verifier refuses, and used to crash hlo-run or run to
// a wrong value instead.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_util::ParseOrFail;

// Verifies `text` and returns the message ("" when it verifies).
std::string Violation(const std::string& text) {
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  if (module == nullptr) return "(parse failed)";
  absl::Status status = VerifyModule(*module);
  return std::string(status.message());
}

constexpr absl::string_view kBranches = R"(HloModule m

neg {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

two {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string Entry(absl::string_view body) {
  return absl::StrCat(kBranches, "\nENTRY e {\n", body, "}\n");
}

TEST(ConditionalRulesTest, AConditionalThatXlaAcceptsVerifies) {
  EXPECT_EQ(Violation(Entry(R"(
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x, x), branch_computations={neg, neg, neg}
)")),
            "");
  EXPECT_EQ(Violation(Entry(R"(
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x), true_computation=neg, false_computation=neg
)")),
            "");
}

TEST(ConditionalRulesTest, NoBranchIsRefused) {
  EXPECT_THAT(Violation(Entry(R"(
  i = s32[] parameter(0)
  ROOT c = f32[] conditional(i), branch_computations={}
)")),
              StartsWith("verifier: [control-flow] computation 'e', instruction 'c': a conditional "
                         "needs at least one branch"));
}

TEST(ConditionalRulesTest, TheIndexIsAPredOrS32Scalar) {
  EXPECT_THAT(Violation(Entry(R"(
  i = f32[] parameter(0)
  ROOT c = f32[] conditional(i, i), branch_computations={neg}
)")),
              HasSubstr("the branch index is f32[]; it must be pred[] or s32[]"));
  EXPECT_THAT(Violation(Entry(R"(
  i = s32[2] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x), branch_computations={neg}
)")),
              HasSubstr("the branch index is s32[2]"));
  EXPECT_THAT(Violation(Entry(R"(
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x, x), branch_computations={neg, neg, neg}
)")),
              HasSubstr("a conditional on a pred[] index has two branches, this one has 3"));
}

TEST(ConditionalRulesTest, OneOperandAndOneParameterPerBranch) {
  EXPECT_THAT(Violation(Entry(R"(
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x), branch_computations={neg, neg}
)")),
              HasSubstr("a conditional with 2 branches takes 3 operands (the index, then one per "
                        "branch), it has 2"));
  EXPECT_THAT(Violation(Entry(R"(
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x), branch_computations={two}
)")),
              HasSubstr("the branch 'two' takes 2 parameters; it must take one"));
}

constexpr absl::string_view kLoop = R"(HloModule m

body {
  ROOT p = s32[] parameter(0)
}

cond {
  p = s32[] parameter(0)
  ROOT r = %s
}

ENTRY e {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)";

std::string LoopWhoseConditionReturns(absl::string_view root) {
  std::string text(kLoop);
  text.replace(text.find("%s"), 2, std::string(root));
  return text;
}

TEST(WhileRulesTest, TheConditionReturnsPredScalar) {
  EXPECT_EQ(Violation(LoopWhoseConditionReturns("pred[] compare(p, p), direction=LT")), "");
  for (auto [root, shape] :
       {std::pair<const char*, const char*>{"(pred[]) tuple(pred[] constant(false))", "(pred[])"},
        {"pred[0] constant({})", "pred[0]"},
        {"s32[] constant(0)", "s32[]"},
        {"pred[1] constant({0})", "pred[1]"}}) {
    EXPECT_THAT(Violation(LoopWhoseConditionReturns(root)),
                StartsWith(absl::StrCat("verifier: [control-flow] computation 'e', instruction "
                                        "'w': the condition 'cond' returns ",
                                        shape, "; a loop condition returns pred[]")))
        << root;
  }
}

TEST(WhileRulesTest, ConditionAndBodyTakeTheStateAlone) {
  EXPECT_THAT(Violation(R"(HloModule m
body {
  ROOT p = s32[] parameter(0)
}
cond {
  p = s32[] parameter(0)
  q = s32[] parameter(1)
  ROOT r = pred[] compare(p, q), direction=LT
}
ENTRY e {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)"),
              HasSubstr("the condition 'cond' takes 2 parameters; it must take one"));
}

TEST(WhileRulesTest, OneStateShapeThroughout) {
  // The body returns another shape than the state it takes.
  EXPECT_THAT(Violation(R"(HloModule m
body {
  p = s32[] parameter(0)
  ROOT f = f32[] convert(p)
}
cond {
  p = s32[] parameter(0)
  ROOT r = pred[] compare(p, p), direction=LT
}
ENTRY e {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)"),
              HasSubstr("the result of body 'body' is f32[], but s32[] is expected"));
  // The condition takes another state than the loop's operand.
  EXPECT_THAT(Violation(R"(HloModule m
body {
  ROOT p = s32[] parameter(0)
}
cond {
  p = (s32[]) parameter(0)
  ROOT r = pred[] constant(false)
}
ENTRY e {
  i = s32[] constant(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
)"),
              HasSubstr("the parameter of condition 'cond' is (s32[]), but s32[] is expected"));
}

TEST(ConditionalRulesTest, OperandsAndResultsMatchTheBranches) {
  // XLA's own verifier test: a tuple operand in another order than the
  // branch's parameter.
  EXPECT_THAT(Violation(R"(HloModule m
tb {
  t = (s32[], f32[4]) parameter(0)
  ROOT g = f32[4] get-tuple-element(t), index=1
}
ENTRY e {
  p = (f32[4], s32[]) parameter(0)
  c = pred[] constant(true)
  ROOT r = f32[4] conditional(c, p, p), true_computation=tb, false_computation=tb
}
)"),
              HasSubstr("operand 1, for branch 'tb', is (f32[4], s32[]), but (s32[], f32[4]) "
                        "is expected"));
  // A branch whose result is not the conditional's; a dynamic bound is the
  // same shape as its static size.
  EXPECT_THAT(Violation(Entry(R"(
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = s32[] conditional(i, x), branch_computations={neg}
)")),
              HasSubstr("the result of branch 'neg' is f32[], but s32[] is expected"));
}

TEST(CompareRulesTest, DirectionIsRequiredAndKnown) {
  const char* kCompare = R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  ROOT c = pred[] compare(a, a)%s
}
)";
  auto with = [&](absl::string_view attribute) {
    std::string text(kCompare);
    text.replace(text.find("%s"), 2, std::string(attribute));
    return Violation(text);
  };
  EXPECT_EQ(with(", direction=GE"), "");
  EXPECT_EQ(with(""),
            "verifier: [attributes] computation 'e', instruction 'c': compare needs direction= "
            "(EQ, NE, LT, LE, GT or GE)");
  // The parser refuses an unknown direction; a pass may still set one.
  std::string valid(kCompare);
  valid.replace(valid.find("%s"), 2, ", direction=EQ");
  std::unique_ptr<HloModule> module = ParseOrFail(valid);
  ASSERT_NE(module, nullptr);
  module->entry_computation()->root_instruction()->SetAttributeText("direction", "UP");
  EXPECT_THAT(std::string(VerifyModule(*module).message()),
              HasSubstr("direction=UP is not a direction (EQ, NE, LT, LE, GT or GE)"));
}

std::string Convolution(absl::string_view operands, absl::string_view result,
                        absl::string_view attributes) {
  return absl::StrCat("HloModule m\nENTRY e {\n", operands, "\n  ROOT c = ", result,
                      " convolution(a, b), ", attributes, "\n}\n");
}

TEST(ConvolutionRulesTest, ShapesFollowXlaInference) {
  EXPECT_EQ(
      Violation(Convolution("  a = f32[1,2,1] parameter(0)\n  b = f32[1,1,1] parameter(1)",
                            "f32[1,4,1]", "window={pad=1_1 size=1}, dim_labels=b0f_0io->b0f")),
      "");
  // No spatial dimension: a rank-2 convolution with an empty window.
  EXPECT_EQ(Violation(Convolution("  a = f32[3,4] parameter(0)\n  b = f32[4,5] parameter(1)",
                                  "f32[3,5]", "dim_labels=bf_io->bf")),
            "");
  // Rank-1 operands have no room for the batch and feature dimensions
  // (this one ended in std::length_error in hlo-run).
  EXPECT_THAT(Violation(Convolution("  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)",
                                    "f32[4]", "window={}, dim_labels=b_i->b")),
              StartsWith("verifier: [shape] computation 'e', instruction 'c': a convolution's "
                         "operands need the same rank, at least 2"));
  // The window has one dimension per spatial dimension.
  EXPECT_THAT(Violation(Convolution("  a = f32[1,2,1] parameter(0)\n  b = f32[1,1,1] parameter(1)",
                                    "f32[1,2,1]", "window={}, dim_labels=b0f_0io->b0f")),
              HasSubstr("has 0 dimensions, expected 1"));
  EXPECT_THAT(Violation(Convolution("  a = f32[3,4] parameter(0)\n  b = f32[4,5] parameter(1)",
                                    "f32[3,5]", "window={size=1}, dim_labels=bf_io->bf")),
              HasSubstr("has 1 dimensions, expected 0"));
  // XLA's verifier test module: 56 wide, 3 wide stride 2 gives 27, not 28.
  EXPECT_THAT(
      Violation(Convolution(
          "  a = f16[128,128,56,56] parameter(0)\n  b = f16[3,3,128,128] parameter(1)",
          "f16[128,128,28,28]", "window={size=3x3 stride=2x2}, dim_labels=bf01_01io->bf01")),
      HasSubstr("the operands give f16[128,128,27,27]"));
}

}  // namespace
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for libhopt_prove (core/prove/prover.h): proofs of rewrites for all
// inputs, counterexamples the interpreter confirms, and "unknown" where the
// encoding cannot decide. Modules are small: each test states a rewrite
// and the verdict XLA's semantics call for.

#include <memory>
#include <string>

#include "core/prove/prover.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unittests/prove/prove_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace prove {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;
using Verdict = ProofResult::Verdict;

ProofResult Prove(const std::string& before_text, const std::string& after_text,
                  int64_t replicas = 1, int64_t partitions = 1) {
  return ProveTexts(before_text, after_text, replicas, partitions);
}

std::string Unary(const std::string& type, const std::string& body) {
  return "HloModule m\n\nENTRY e {\n  x = " + type + " parameter(0)\n" + body + "\n}\n";
}
std::string Binary(const std::string& type, const std::string& body) {
  return "HloModule m\n\nENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type +
         " parameter(1)\n" + body + "\n}\n";
}

TEST(ProveTest, MultiplyByTwoIsShiftLeftByOneForEveryS32) {
  ProofResult r = Prove(Unary("s32[4]",
                              "  two = s32[4] constant({2, 2, 2, 2})\n"
                              "  ROOT r = s32[4] multiply(x, two)"),
                        Unary("s32[4]",
                              "  one = s32[4] constant({1, 1, 1, 1})\n"
                              "  ROOT r = s32[4] shift-left(x, one)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_EQ(r.encoding, "bit-vector");
}

// XLA: INT_MIN / -1 is INT_MIN, and so is -INT_MIN: equal for all s32.
TEST(ProveTest, DivideByMinusOneIsNegateEvenAtIntMin) {
  ProofResult r = Prove(Unary("s32[]", "  m = s32[] constant(-1)\n  ROOT r = s32[] divide(x, m)"),
                        Unary("s32[]", "  ROOT r = s32[] negate(x)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// XLA: x / 0 is -1 (every bit set), whatever x.
TEST(ProveTest, DivisionByZeroIsMinusOne) {
  ProofResult r = Prove(Unary("s32[]", "  z = s32[] constant(0)\n  ROOT r = s32[] divide(x, z)"),
                        Unary("s32[]", "  ROOT r = s32[] constant(-1)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult u = Prove(Unary("u8[]", "  z = u8[] constant(0)\n  ROOT r = u8[] divide(x, z)"),
                        Unary("u8[]", "  ROOT r = u8[] constant(255)"));
  EXPECT_EQ(u.verdict, Verdict::kProved) << u.reason;
  ProofResult rem =
      Prove(Unary("s32[]", "  z = s32[] constant(0)\n  ROOT r = s32[] remainder(x, z)"),
            Unary("s32[]", "  ROOT r = s32[] copy(x)"));
  EXPECT_EQ(rem.verdict, Verdict::kProved) << rem.reason;
}

// A halving that overflows: (x + y) / 2 is not x / 2 + y / 2 (odd values,
// and the sum wraps). The counterexample is real: the interpreter shows it.
TEST(ProveTest, AnOverflowingRewriteHasACounterexample) {
  ProofResult r = Prove(Binary("s32[]",
                               "  s = s32[] add(x, y)\n  two = s32[] constant(2)\n"
                               "  ROOT r = s32[] divide(s, two)"),
                        Binary("s32[]",
                               "  two = s32[] constant(2)\n"
                               "  a = s32[] divide(x, two)\n  b = s32[] divide(y, two)\n"
                               "  ROOT r = s32[] add(a, b)"));
  ASSERT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_THAT(r.difference, HasSubstr("device 0 (replica 0, partition 0), output {}"));
  ASSERT_EQ(r.arguments.size(), 1u);
  EXPECT_EQ(r.arguments[0].size(), 2u);
}

// Wrong only at one value: x + 1 > x fails at INT32_MAX alone, which three
// random inputs would not hit.
TEST(ProveTest, WrongOnlyAtIntMaxIsFound) {
  ProofResult r = Prove(Unary("s32[]",
                              "  one = s32[] constant(1)\n  p = s32[] add(x, one)\n"
                              "  ROOT r = pred[] compare(p, x), direction=GT"),
                        Unary("s32[]", "  ROOT r = pred[] constant(true)"));
  ASSERT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_EQ(r.arguments[0][0].GetAsInt64(0), 2147483647);
}

// A reduction regrouped (the shape aws_neuron_decompose_scalar_reduce
// gives it): equal for every s32 input.
TEST(ProveTest, AReductionSplitInTwoIsProved) {
  const std::string computation =
      "max {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT m = s32[] maximum(a, b)\n}\n\n";
  ProofResult r = Prove(
      "HloModule m\n\n" + computation +
          "ENTRY e {\n  x = s32[64] parameter(0)\n  lo = s32[] constant(-2147483648)\n"
          "  ROOT r = s32[] reduce(x, lo), dimensions={0}, to_apply=max\n}\n",
      "HloModule m\n\n" + computation +
          "ENTRY e {\n  x = s32[64] parameter(0)\n  lo = s32[] constant(-2147483648)\n"
          "  t = s32[8,8] reshape(x)\n  p = s32[8] reduce(t, lo), dimensions={1}, to_apply=max\n"
          "  q = s32[8] maximum(p, p)\n"
          "  ROOT r = s32[] reduce(q, lo), dimensions={0}, to_apply=max\n}\n");
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// Different on one device of eight only.
TEST(ProveTest, ADifferenceOnDeviceSevenOfEightIsFound) {
  ProofResult r = Prove(Unary("s32[2]",
                              "  id = u32[] replica-id()\n  seven = u32[] constant(7)\n"
                              "  is7 = pred[] compare(id, seven), direction=EQ\n"
                              "  b = pred[2] broadcast(is7), dimensions={}\n"
                              "  n = s32[2] negate(x)\n  ROOT r = s32[2] select(b, n, x)"),
                        Unary("s32[2]", "  ROOT r = s32[2] copy(x)"), /*replicas=*/8);
  ASSERT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_THAT(r.difference, HasSubstr("device 7 (replica 7, partition 0)"));
}

// An all-reduce over two replicas is the sum of both replicas' values: a
// collective-permute that swaps them plus an add computes it too.
TEST(ProveTest, AllReduceEqualsSwapAndAdd) {
  const std::string add =
      "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT s = s32[] add(a, b)\n}\n\n";
  ProofResult r =
      Prove("HloModule m, replica_count=2\n\n" + add +
                "ENTRY e {\n  x = s32[4] parameter(0)\n"
                "  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add\n}\n",
            "HloModule m, replica_count=2\n\n" + add +
                "ENTRY e {\n  x = s32[4] parameter(0)\n"
                "  o = s32[4] collective-permute(x), source_target_pairs={{0,1},{1,0}}\n"
                "  ROOT r = s32[4] add(x, o)\n}\n",
            /*replicas=*/2);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// Float add commutes (up to NaN payloads, which outputs are compared
// without): the operands are put in one order, so no arithmetic is needed.
TEST(ProveTest, FloatCommutationIsProvedWithoutArithmetic) {
  ProofResult r = Prove(Binary("f32[]", "  ROOT r = f32[] add(x, y)"),
                        Binary("f32[]", "  ROOT r = f32[] add(y, x)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_EQ(r.encoding, "bit-vector, uninterpreted float operations");
}

// x + x is 2x for every IEEE value (infinities, NaN, -0 included): the
// uninterpreted functions cannot tell, IEEE floats can.
TEST(ProveTest, AnIdentityOfFloatArithmeticIsProvedWithIeeeFloats) {
  ProofResult r = Prove(Unary("f32[]", "  ROOT r = f32[] add(x, x)"),
                        Unary("f32[]",
                              "  two = f32[] constant(2)\n"
                              "  ROOT r = f32[] multiply(x, two)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_EQ(r.encoding, "bit-vector, IEEE floats");
  ProofResult sub = Prove(Binary("bf16[]", "  ROOT r = bf16[] subtract(x, y)"),
                          Binary("bf16[]", "  n = bf16[] negate(y)\n  ROOT r = bf16[] add(x, n)"));
  EXPECT_EQ(sub.verdict, Verdict::kProved) << sub.reason;
}

// Float addition does not associate: IEEE floats find values that round
// differently, and the interpreter confirms them.
TEST(ProveTest, ReassociatedFloatsHaveACounterexample) {
  const std::string head =
      "HloModule m\n\nENTRY e {\n  x = f32[] parameter(0)\n"
      "  y = f32[] parameter(1)\n  z = f32[] parameter(2)\n";
  ProofResult r = ProveTexts(head + "  s = f32[] add(x, y)\n  ROOT r = f32[] add(s, z)\n}\n",
                             head + "  s = f32[] add(y, z)\n  ROOT r = f32[] add(x, s)\n}\n");
  EXPECT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_EQ(r.encoding, "bit-vector, IEEE floats");
}

// Past the size an IEEE query is tried on, an identity that needs float
// arithmetic is proved on its uniform dimensions cut to one index; where
// no dimension is uniform (a reversal), it stays unknown: never a
// counterexample the interpreter does not show, never a proof.
TEST(ProveTest, ALargeFloatIdentityIsProvedReducedOrUnknown) {
  ProofResult r = Prove(Unary("f32[8192]", "  ROOT r = f32[8192] add(x, x)"),
                        Unary("f32[8192]",
                              "  two = f32[] constant(2)\n"
                              "  b = f32[8192] broadcast(two), dimensions={}\n"
                              "  ROOT r = f32[8192] multiply(x, b)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_THAT(r.encoding, HasSubstr("IEEE floats; reduced shape, 1 uniform dimension class(es) "
                                    "cut to 1: f32[8192] -> f32[1]"));
  ProofResult reversed =
      Prove(Unary("f32[8192]",
                  "  v = f32[8192] reverse(x), dimensions={0}\n"
                  "  ROOT r = f32[8192] add(v, v)"),
            Unary("f32[8192]",
                  "  v = f32[8192] reverse(x), dimensions={0}\n"
                  "  two = f32[] constant(2)\n  b = f32[8192] broadcast(two), dimensions={}\n"
                  "  ROOT r = f32[8192] multiply(v, b)"));
  EXPECT_EQ(reversed.verdict, Verdict::kUnknown);
  EXPECT_THAT(reversed.reason, HasSubstr("interpreter shows them equal"));
  EXPECT_THAT(reversed.reason, HasSubstr("too large for IEEE float formulas"));
}

// -0 < +0 in the total order, not in IEEE's: the two comparisons are
// different functions, so swapping one for the other is never proved (the
// total order has no IEEE formula: the answer is unknown).
TEST(ProveTest, TotalOrderComparisonIsNotTheIeeeOne) {
  ProofResult r = Prove(Binary("f32[]", "  ROOT r = pred[] compare(x, y), direction=LT"),
                        Binary("f32[]",
                               "  ROOT r = pred[] compare(x, y), direction=LT, "
                               "type=TOTALORDER"));
  EXPECT_EQ(r.verdict, Verdict::kUnknown) << r.reason;
}

// An f32 add reducing bf16 values adds in bf16, as the interpreter runs it:
// the reducer retyped to bf16 is the same reduction.
TEST(ProveTest, AReducerOfAnotherFloatTypeRunsAtTheValuesType) {
  auto module = [](const std::string& reducer_type) {
    return "HloModule m, replica_count=4\n\nsum {\n  a = " + reducer_type +
           "[] parameter(0)\n  b = " + reducer_type +
           "[] parameter(1)\n  ROOT s = " + reducer_type +
           "[] add(a, b)\n}\n\nENTRY e {\n  x = bf16[8] parameter(0)\n"
           "  ROOT r = bf16[8] all-reduce(x), replica_groups={}, to_apply=sum\n}\n";
  };
  ProofResult r = Prove(module("f32"), module("bf16"), 4);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// Maximum orders s32 and u32 values apart: the same bits reduced as u32
// between two converts are another chain, not the s32 one.
TEST(ProveTest, SignedAndUnsignedMaximumAreApart) {
  ProofResult r = Prove(Binary("s32[2]", "  ROOT m = s32[2] maximum(x, y)"),
                        Binary("s32[2]",
                               "  cx = u32[2] convert(x)\n  cy = u32[2] convert(y)\n"
                               "  m = u32[2] maximum(cx, cy)\n"
                               "  ROOT r = s32[2] convert(m)"));
  EXPECT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
}

// Where the solver gives no answer, seeded random inputs through the
// interpreter still catch a wrong rewrite that they show.
TEST(ProveTest, RandomInputsCatchWhatTheSolverDidNotDecide) {
  const std::string head =
      "HloModule m\n\nmax {\n  a = s32[] parameter(0)\n"
      "  b = s32[] parameter(1)\n  ROOT r = s32[] maximum(a, b)\n}\n\n"
      "sum {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] add(a, b)\n}\n\nENTRY e {\n"
      "  x = s32[1024] parameter(0)\n  z = s32[] constant(0)\n";
  ProofOptions hurried;
  hurried.timeout_ms = 1;
  ProofResult r = ProveTexts(
      head + "  ROOT r = s32[] reduce(x, z), dimensions={0}, to_apply=max\n}\n",
      head + "  ROOT r = s32[] reduce(x, z), dimensions={0}, to_apply=sum\n}\n", 1, 1, hurried);
  EXPECT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_THAT(r.difference, HasSubstr("found on random inputs (seed 1) where the solver gave no "
                                      "answer"));
}

// A rewrite wrong only at INT_MIN, around an op without a formula (sort):
// the solver cannot answer, the random inputs ([-8, 8)) miss it, the edge
// inputs catch it.
TEST(ProveTest, EdgeInputsCatchWhatRandomOnesMiss) {
  const std::string head =
      "HloModule m\n\nlt {\n  a = s32[] parameter(0)\n"
      "  b = s32[] parameter(1)\n  ROOT c = pred[] compare(a, b), "
      "direction=LT\n}\n\nENTRY e {\n  x = s32[1] parameter(0)\n"
      "  s = s32[1] sort(x), dimensions={0}, to_apply=lt\n";
  ProofResult r = ProveTexts(head + "  ROOT r = s32[1] negate(s)\n}\n",
                             head +
                                 "  m = s32[1] constant({-2147483648})\n"
                                 "  at = pred[1] compare(s, m), direction=EQ\n"
                                 "  n = s32[1] negate(s)\n  z = s32[1] constant({0})\n"
                                 "  ROOT r = s32[1] select(at, z, n)\n}\n");
  EXPECT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  EXPECT_THAT(r.difference, HasSubstr("found on inputs with every element its type's lowest "
                                      "value where the solver gave no answer: before: s (sort)"));
}

TEST(ProveTest, FloatDataMovementIsProved) {
  ProofResult r = Prove(Unary("f32[2,3]",
                              "  t = f32[3,2] transpose(x), dimensions={1,0}\n"
                              "  ROOT r = f32[2,3] transpose(t), dimensions={1,0}"),
                        Unary("f32[2,3]", "  ROOT r = f32[2,3] copy(x)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// A dynamic-slice start past the end is clamped (XLA): slicing at 5 of a
// [4] by 2 reads [2,3], the same as a static slice there.
TEST(ProveTest, DynamicSliceClampsItsStart) {
  ProofResult r = Prove(Unary("s32[4]",
                              "  i = s32[] constant(5)\n"
                              "  ROOT r = s32[2] dynamic-slice(x, i), "
                              "dynamic_slice_sizes={2}"),
                        Unary("s32[4]", "  ROOT r = s32[2] slice(x), slice={[2:4]}"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

// A counted loop is unrolled: adding 1 ten times is adding 10.
TEST(ProveTest, ACountedLoopIsUnrolled) {
  const std::string loop =
      "HloModule m\n\ncond {\n  s = (s32[], s32[]) parameter(0)\n"
      "  i = s32[] get-tuple-element(s), index=0\n  ten = s32[] constant(10)\n"
      "  ROOT c = pred[] compare(i, ten), direction=LT\n}\n\n"
      "body {\n  s = (s32[], s32[]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
      "  v = s32[] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n"
      "  j = s32[] add(i, one)\n  w = s32[] add(v, one)\n"
      "  ROOT n = (s32[], s32[]) tuple(j, w)\n}\n\n"
      "ENTRY e {\n  x = s32[] parameter(0)\n  zero = s32[] constant(0)\n"
      "  init = (s32[], s32[]) tuple(zero, x)\n"
      "  w = (s32[], s32[]) while(init), condition=cond, body=body\n"
      "  ROOT r = s32[] get-tuple-element(w), index=1\n}\n";
  ProofResult r = Prove(loop, Unary("s32[]",
                                    "  ten = s32[] constant(10)\n"
                                    "  ROOT r = s32[] add(x, ten)"));
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult wrong = Prove(loop, Unary("s32[]",
                                        "  nine = s32[] constant(9)\n"
                                        "  ROOT r = s32[] add(x, nine)"));
  EXPECT_EQ(wrong.verdict, Verdict::kCounterexample) << wrong.reason;
}

// A conditional on an input: both branches, chosen element by element.
TEST(ProveTest, AConditionalOnAnInputIsAChoice) {
  const std::string branches =
      "HloModule m\n\nneg {\n  a = s32[2] parameter(0)\n  ROOT n = s32[2] negate(a)\n}\n\n"
      "same {\n  a = s32[2] parameter(0)\n  ROOT c = s32[2] copy(a)\n}\n\n";
  ProofResult r = Prove(branches +
                            "ENTRY e {\n  p = pred[] parameter(0)\n  x = s32[2] parameter(1)\n"
                            "  ROOT r = s32[2] conditional(p, x, x), true_computation=neg, "
                            "false_computation=same\n}\n",
                        branches +
                            "ENTRY e {\n  p = pred[] parameter(0)\n  x = s32[2] parameter(1)\n"
                            "  n = s32[2] negate(x)\n  b = pred[2] broadcast(p), dimensions={}\n"
                            "  ROOT r = s32[2] select(b, n, x)\n}\n");
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

TEST(ProveTest, AWhileLoopIsUnknownWithTheReason) {
  const std::string loop =
      "HloModule m\n\ncond {\n  s = s32[] parameter(0)\n  ten = s32[] constant(10)\n"
      "  ROOT c = pred[] compare(s, ten), direction=LT\n}\n\n"
      "body {\n  s = s32[] parameter(0)\n  one = s32[] constant(1)\n"
      "  ROOT n = s32[] add(s, one)\n}\n\n"
      "ENTRY e {\n  x = s32[] parameter(0)\n"
      "  ROOT w = s32[] while(x), condition=cond, body=body\n}\n";
  ProofResult r = Prove(loop, loop);
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_THAT(r.reason, HasSubstr("w (while): whether iteration 1 runs depends on the inputs"));
}

TEST(ProveTest, DifferentSignaturesAreAnError) {
  auto a = ParseOrFail(Unary("s32[]", "  ROOT r = s32[] copy(x)"));
  auto b = ParseOrFail(Unary("s32[2]", "  ROOT r = s32[2] copy(x)"));
  eval::EvalOptions options;
  options.replicas = options.partitions = 1;
  EXPECT_FALSE(ProveEquivalent(*a, *b, options).ok());
}

TEST(ProveTest, ArgumentsFileReadsAsHloRunArgs) {
  auto module = ParseOrFail(Unary("s32[2]", "  ROOT r = s32[2] copy(x)"));
  Literal value(Shape(PrimitiveType::S32, {2}));
  value.SetFromInt64(0, -5);
  value.SetFromInt64(1, 7);
  std::string text = ArgumentsFileText(*module, {{value}});
  EXPECT_THAT(text, HasSubstr("device 0: s32[2]"));
  EXPECT_THAT(text, HasSubstr("-5, 7"));
}

}  // namespace
}  // namespace prove
}  // namespace hopt

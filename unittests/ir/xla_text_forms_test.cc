// SPDX-License-Identifier: Apache-2.0
// Text forms XLA's reader accepts: a layout apart from its shape, result
// shapes left to inference, bounded dynamic operands where a static size is
// expected (docs/formats.md, "HLO text: forms the reader accepts").

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// The shape of an instruction of the entry computation.
std::string ShapeOf(const HloModule& module, absl::string_view name) {
  const HloInstruction* i = module.entry_computation()->GetInstructionWithName(name);
  return i == nullptr ? "<missing>" : i->shape().ToString();
}

// Printed, read back and printed again: the same text.
void ExpectStablePrint(const HloModule& module) {
  std::string printed = PrintModule(module, PrintOptions::Long());
  auto again = ParseHloModule(printed, "printed.hlo");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again, PrintOptions::Long()), printed);
}

// The error's text and its `file:line:col` head.
std::string ParseErrorOf(const std::string& text) {
  auto module = ParseHloModule(text, "test.hlo");
  if (module.ok()) return "<parsed>";
  return std::string(module.status().message());
}

TEST(SpacedLayoutTest, WhitespaceAndCommentsMaySeparateALayout) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY e (p: f32[3,6] {0,1}) -> (f32[3,6] {0,1}, s32[2] {0}) {
  p = f32[3,6]
      {0,1} parameter(0)
  c = s32[2]	{0} constant({1, 2})
  n = f32[3,6] /* a comment */ {0,1} negate(f32[3,6] {0,1} p)
  ROOT t = (f32[3,6] {0,1}, s32[2] { 0 }) tuple(n, c)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeOf(*module, "p"), "f32[3,6]{0,1}");
  EXPECT_EQ(ShapeOf(*module, "n"), "f32[3,6]{0,1}");
  EXPECT_EQ(ShapeOf(*module, "t"), "(f32[3,6]{0,1}, s32[2]{0})");
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
  std::string printed = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(printed, HasSubstr("n = f32[3,6]{0,1} negate(p)\n"));
  ExpectStablePrint(*module);
}

TEST(SpacedLayoutTest, ARepeatedShapeTextStillReadsItsLayout) {
  // The reader's shortcut for a shape written as the one before must not
  // stop before a layout that follows a space.
  auto module = ParseOrFail(R"(ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] {0,1} negate(a)
  c = f32[2,2] {0,1} negate(b)
  ROOT d = f32[2,2] negate(c)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeOf(*module, "b"), "f32[2,2]{0,1}");
  EXPECT_EQ(ShapeOf(*module, "c"), "f32[2,2]{0,1}");
  EXPECT_EQ(ShapeOf(*module, "d"), "f32[2,2]{1,0}");
}

TEST(SpacedLayoutTest, ABraceWithoutANumberOpensTheBody) {
  // `{0}` after the parameter's shape is its layout; the `{` after the
  // result shape opens the body.
  auto module = ParseOrFail(
      "ENTRY e (p: f32[2] {0}) -> f32[2] {\n  p = f32[2] parameter(0)\n"
      "  ROOT n = f32[2] negate(p)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
}

TEST(SpacedLayoutTest, ASpacedLayoutIsCheckedAsAnAdjacentOne) {
  EXPECT_THAT(ParseErrorOf("ENTRY e {\n  ROOT p = f32[2,2] {0} parameter(0)\n}\n"),
              HasSubstr("test.hlo:2:21: error: layout has 1 dimensions, the shape has 2"));
}

constexpr absl::string_view kBranches = R"(HloModule m

neg {
  a = f32[<=4] parameter(0)
  ROOT n = negate(a)
}

cp {
  b = f32[<=4] parameter(0)
  ROOT c = f32[4] copy(b)
}

lt {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  li = s32[] parameter(2)
  ri = s32[] parameter(3)
  ROOT c = compare(l, r), direction=LT
}
)";

TEST(InferredShapeTest, ConditionalTakesItsBranchesResult) {
  auto module = ParseOrFail(absl::StrCat(kBranches, R"(
ENTRY e {
  p = pred[] parameter(0)
  i = s32[] parameter(1)
  x = f32[<=4] parameter(2)
  c = conditional(p, x, x), true_computation=cp, false_computation=neg
  d = conditional(i, x, x), branch_computations={cp, cp}
  ROOT t = tuple(c, d)
}
)"));
  ASSERT_NE(module, nullptr);
  // A dimension dynamic in any branch is dynamic in the result.
  EXPECT_EQ(ShapeOf(*module, "c"), "f32[<=4]{0}");
  EXPECT_EQ(ShapeOf(*module, "d"), "f32[4]{0}");
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
  ExpectStablePrint(*module);
}

TEST(InferredShapeTest, SortGatherAndFriends) {
  auto module = ParseOrFail(absl::StrCat(kBranches, R"(
ENTRY e {
  x = f32[4] parameter(0)
  k = s32[4] parameter(1)
  t = f32[5,3] parameter(2)
  idx = s32[2,1] parameter(3)
  s = sort(x, k), dimensions={0}, to_apply=lt
  g = gather(t, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  r = reverse(t), dimensions={1}
  b = broadcast(f32[] constant(1)), dimensions={}
  bn = batch-norm-training(t, f32[3] parameter(4), f32[3] parameter(5)), epsilon=0.001, feature_index=1
  f = fft(f32[4] parameter(6)), fft_type=RFFT, fft_length={4}
  ROOT out = tuple(s, g, r, b, bn)
}
)"));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeOf(*module, "s"), "(f32[4]{0}, s32[4]{0})");
  EXPECT_EQ(ShapeOf(*module, "g"), "f32[2,3]{1,0}");
  EXPECT_EQ(ShapeOf(*module, "r"), "f32[5,3]{1,0}");
  EXPECT_EQ(ShapeOf(*module, "b"), "f32[]");
  EXPECT_EQ(ShapeOf(*module, "bn"), "(f32[5,3]{1,0}, f32[3]{0}, f32[3]{0})");
  EXPECT_EQ(ShapeOf(*module, "f"), "c64[3]{0}");
  ExpectStablePrint(*module);
}

TEST(InferredShapeTest, BroadcastSizesComeFromDimensionsAsInXla) {
  // XLA reads `dimensions` of a shape-less broadcast as new leading sizes.
  auto module = ParseOrFail(
      "ENTRY e {\n  p = f32[2] parameter(0)\n"
      "  ROOT b = broadcast(p), dimensions={1}\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeOf(*module, "b"), "f32[1,2]{1,0}");
}

TEST(InferredShapeTest, OpcodesXlaDoesNotInferMustWriteTheirShape) {
  for (absl::string_view rhs :
       {"slice(x), slice={[0:2]}", "dynamic-slice(x, s32[] parameter(1)), dynamic_slice_sizes={2}",
        "all-reduce(x), to_apply=add", "collective-permute(x), source_target_pairs={{0,1}}",
        "reduce-precision(x), exponent_bits=5, mantissa_bits=10"}) {
    std::string text = absl::StrCat(
        "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, "
        "b)\n}\n\n"
        "ENTRY e {\n  x = f32[4] parameter(0)\n  ROOT r = ",
        rhs, "\n}\n");
    std::string opcode(rhs.substr(0, rhs.find('(')));
    EXPECT_THAT(ParseErrorOf(text), HasSubstr(absl::StrCat("test.hlo:9:12: error: the shape of '",
                                                           opcode, "' must be written")))
        << rhs;
  }
}

TEST(InferredShapeTest, AnInferenceThatFailsIsLocated) {
  EXPECT_THAT(ParseErrorOf(absl::StrCat(kBranches, R"(
ENTRY e {
  p = pred[] parameter(0)
  x = f32[4] parameter(1)
  ROOT c = conditional(p, x, x, x), true_computation=cp, false_computation=neg
}
)")),
              HasSubstr("test.hlo:24:12: error: the shape of 'conditional' cannot be inferred "
                        "(conditional with 2 branches takes 3 operands, got 4)"));
}

TEST(DynamicOperandTest, ABoundedOperandFitsAStaticOneOfTheSameSizeOnly) {
  auto module = ParseOrFail(R"(ENTRY e {
  p = s32[<=4] parameter(0)
  q = s32[4] parameter(1)
  c = pred[4] parameter(2)
  a = s32[4] add(p, q)
  m = multiply(q, p)
  s = s32[4] select(c, p, q)
  k = s32[4] clamp(q, p, q)
  ROOT t = tuple(a, m, s, k)
}
)");
  ASSERT_NE(module, nullptr);
  // Inferred: dynamic where any operand is, as XLA's shape inference does.
  EXPECT_EQ(ShapeOf(*module, "m"), "s32[<=4]{0}");
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);

  // Different sizes are still a violation.
  module = ParseOrFail(R"(ENTRY e {
  p = s32[<=5] parameter(0)
  q = s32[4] parameter(1)
  ROOT a = s32[4] add(p, q)
}
)");
  ASSERT_NE(module, nullptr);
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("operand shapes differ"));
}

TEST(ArrayLiteralTest, CommasBetweenElementsMayBeLeftOut) {
  // cudnn_simplify_padding_test.cc writes a constant with a comma missing
  // between two rows; XLA's reader skips commas rather than requiring them.
  auto module = ParseOrFail(R"(ENTRY e {
  ROOT c = s32[3,2] constant({ {1, 2}, {3 4} {5, 6,}, })
}
)");
  ASSERT_NE(module, nullptr);
  auto value = module->entry_computation()->root_instruction()->literal();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->ToText(), "{ { 1, 2 }, { 3, 4 }, { 5, 6 } }");
  ExpectStablePrint(*module);
  // The element count still has to match.
  EXPECT_THAT(ParseErrorOf(R"(ENTRY e {
  ROOT c = s32[2,2] constant({ {1 2} {3} })
}
)"),
              HasSubstr("malformed literal"));
}

TEST(TransferShapeTest, SendAndRecvShapesComeFromTheOperandsAsInXla) {
  // XLA's reader builds send, recv and their -done from the operands
  // whatever the text declares: latency_hiding_scheduler_test.cc declares
  // send-done as bf16[8] and tuples it as the token it is.
  auto module = ParseOrFail(R"(ENTRY e {
  data = bf16[8] parameter(0)
  tok = token[] after-all()
  s = (bf16[8], token[]) send(data, tok), channel_id=1
  sd = bf16[8] send-done(s), channel_id=1
  r = (bf16[8], s32[], token[]) recv(tok), channel_id=2
  rd = (bf16[4], token[]) recv-done(r), channel_id=2
  got = get-tuple-element(rd), index=0
  ROOT t = (bf16[8], token[]) tuple(got, sd)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(ShapeOf(*module, "s"), "(bf16[8]{0}, u32[], token[])");
  EXPECT_EQ(ShapeOf(*module, "sd"), "token[]");
  EXPECT_EQ(ShapeOf(*module, "r"), "(bf16[8]{0}, u32[], token[])");
  EXPECT_EQ(ShapeOf(*module, "rd"), "(bf16[8]{0}, token[])");
  EXPECT_EQ(ShapeOf(*module, "got"), "bf16[8]{0}");
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
  ExpectStablePrint(*module);
}

}  // namespace
}  // namespace hopt

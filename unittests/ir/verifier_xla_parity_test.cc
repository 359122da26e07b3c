// SPDX-License-Identifier: Apache-2.0
// Tests that the verifier accepts what XLA's verifier accepts (run as XLA's
// test bases run it: mixed precision allowed, replica_count and
// num_partitions from the module header) and still refuses what it
// refuses. The accepted modules come from XLA's own tests (docs/formats.md,
// "Verifier and XLA's verifier").

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// The verifier's message for `body` as the entry computation of a module
// with `header` ("" when it verifies).
std::string Violation(absl::string_view body, absl::string_view header = "HloModule m",
                      VerifyOptions options = {}) {
  std::unique_ptr<HloModule> module =
      ParseOrFail(absl::StrCat(header, "\n\nENTRY e {\n", body, "}\n"));
  if (module == nullptr) return "(parse failed)";
  return std::string(VerifyModule(*module, options).message());
}

// As XLA's HloVerifierTest runs its verifier: mixed precision off.
std::string StrictViolation(absl::string_view body) {
  VerifyOptions options;
  options.allow_mixed_precision = false;
  return Violation(body, "HloModule m", options);
}

constexpr absl::string_view kAddHeader = R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
})";

TEST(VerifierXlaParityTest, ElementwiseOperandsMayMixFloatingPointTypes) {
  // algebraic_simplifier_test.cc, hlo_diff_result_test.cc, float_normalization_test.cc
  EXPECT_EQ(Violation(R"(
  x = f16[] constant(inf)
  y = f32[] parameter(0)
  ROOT min = f32[] minimum(x, y)
)"),
            "");
  EXPECT_EQ(Violation(R"(
  x = f64[] parameter(0)
  y = f32[] parameter(1)
  ROOT a = f32[] add(x, y)
)"),
            "");
  EXPECT_EQ(Violation(R"(
  x = f32[2,4] parameter(0)
  y = bf16[2,4] parameter(1)
  ROOT m = bf16[2,4] multiply(x, y)
)"),
            "");
  EXPECT_EQ(Violation(R"(
  x = f16[3] parameter(0)
  y = f32[3] parameter(1)
  ROOT c = pred[3] compare(x, y), direction=LT
)"),
            "");
}

TEST(VerifierXlaParityTest, IntegerOperandsMustStillMatch) {
  EXPECT_THAT(Violation(R"(
  x = s32[] parameter(0)
  y = f32[] parameter(1)
  ROOT a = f32[] add(x, y)
)"),
              HasSubstr("operand element types differ: s32[] vs f32[]"));
  EXPECT_THAT(Violation(R"(
  x = s32[] parameter(0)
  y = s64[] parameter(1)
  ROOT a = s64[] add(x, y)
)"),
              HasSubstr("operand element types differ"));
  // The result may change precision, not kind.
  EXPECT_THAT(Violation(R"(
  x = f32[] parameter(0)
  ROOT n = s32[] negate(x)
)"),
              HasSubstr("the shape is s32[], but the operands give f32[]"));
}

TEST(VerifierXlaParityTest, SelectBranchesMayMixFloatingPointTypes) {
  // hlo_verifier_test.cc, SelectMixedPrecisionAllowed.
  EXPECT_EQ(Violation(R"(
  p0 = pred[32] parameter(0)
  p1 = f32[32] parameter(1)
  p2 = bf16[32] parameter(2)
  ROOT select = f32[32] select(p0, p1, p2)
)"),
            "");
  EXPECT_THAT(Violation(R"(
  p0 = pred[32] parameter(0)
  p1 = f32[32] parameter(1)
  p2 = s32[32] parameter(2)
  ROOT select = f32[32] select(p0, p1, p2)
)"),
              HasSubstr("select's branches differ"));
}

TEST(VerifierXlaParityTest, SelectOfTuplesIsRefused) {
  // hlo_verifier_test.cc, SelectTupleNotAllowed.
  EXPECT_THAT(Violation(R"(
  p0 = (f32[], f32[]) parameter(0)
  p1 = (f32[], f32[]) parameter(1)
  p2 = pred[] parameter(2)
  ROOT select = (f32[], f32[]) select(p2, p0, p1)
)"),
              HasSubstr("select's operand must be an array"));
}

TEST(VerifierXlaParityTest, ConcatenateMayMixFloatingPointTypes) {
  EXPECT_EQ(Violation(R"(
  a = f32[2] parameter(0)
  b = bf16[3] parameter(1)
  ROOT c = f32[5] concatenate(a, b), dimensions={0}
)"),
            "");
  EXPECT_THAT(Violation(R"(
  a = f32[2] parameter(0)
  b = s32[3] parameter(1)
  ROOT c = f32[5] concatenate(a, b), dimensions={0}
)"),
              HasSubstr("differ in rank or type"));
}

TEST(VerifierXlaParityTest, ARankOneOperandTakesItsStartIndexAsAVector) {
  // test_utils_test.cc: the older form, one index vector, for a rank-1
  // operand (XLA takes a vector first index as that form).
  EXPECT_EQ(Violation(R"(
  v = f32[20] parameter(0)
  i = s32[1] parameter(1)
  ROOT d = f32[1] dynamic-slice(v, i), dynamic_slice_sizes={1}
)"),
            "");
  EXPECT_EQ(Violation(R"(
  v = f32[20] parameter(0)
  u = f32[2] parameter(1)
  i = s32[1] parameter(2)
  ROOT d = f32[20] dynamic-update-slice(v, u, i)
)"),
            "");
  // buffer_assignment_test.cc feeds a float vector: XLA refuses it.
  EXPECT_THAT(
      Violation(R"(
  v = f32[4] parameter(0)
  c = f32[1] constant({1})
  ROOT d = f32[4] dynamic-update-slice(v, c, c)
)"),
      HasSubstr("takes its start indices as one integer vector of 1 entries or as 1 integer "
                "scalars, got f32[1]"));
  EXPECT_THAT(Violation(R"(
  m = f32[4,4] parameter(0)
  i = s32[3] parameter(1)
  ROOT d = f32[1,1] dynamic-slice(m, i), dynamic_slice_sizes={1,1}
)"),
              HasSubstr("one integer vector of 2 entries"));
}

TEST(VerifierXlaParityTest, DynamicUpdateSliceKeepsItsOperandsElementType) {
  // hlo_verifier_test.cc, DynamicUpdateSliceMixedPrecision: refused.
  EXPECT_THAT(Violation(R"(
  p0 = f32[8,16] parameter(0)
  p1 = bf16[8,4] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = bf16[8,16] dynamic-update-slice(p0, p1, i, i)
)"),
              HasSubstr("the shape is bf16[8,16], but the operands give f32[8,16]"));
  EXPECT_EQ(Violation(R"(
  p0 = f32[8,16] parameter(0)
  p1 = bf16[8,4] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[8,16] dynamic-update-slice(p0, p1, i, i)
)"),
            "");
}

TEST(VerifierXlaParityTest, TuplesAndTheirElementsKeepTheirElementTypes) {
  EXPECT_THAT(Violation(R"(
  x = f32[2] parameter(0)
  ROOT t = (bf16[2]) tuple(x)
)"),
              HasSubstr("the shape is (bf16[2]), but the operands give (f32[2])"));
  EXPECT_THAT(Violation(R"(
  x = (f32[2]) parameter(0)
  ROOT g = bf16[2] get-tuple-element(x), index=0
)"),
              HasSubstr("the shape is bf16[2], but the operands give f32[2]"));
}

TEST(VerifierXlaParityTest, GatherAndScatterShardCountsComeFromTheShapes) {
  // all_gather_decomposer_test.cc, reduce_scatter_decomposer_test.cc,
  // reduce_scatter_reassociate_test.cc: the header leaves replica_count
  // and num_partitions at 1, so only the shapes are checked.
  EXPECT_EQ(Violation(R"(
  p = f32[10,20] parameter(0)
  ROOT ag = f32[10,80] all-gather(p), replica_groups={{0}}, channel_id=1, dimensions={1}
)"),
            "");
  EXPECT_EQ(Violation(R"(
  p = f32[4,8] parameter(0)
  ROOT rs = f32[4,4] reduce-scatter(p), replica_groups={{0}}, channel_id=1, dimensions={1},
      to_apply=add
)",
                      kAddHeader),
            "");
  EXPECT_EQ(Violation(R"(
  p = f32[8] parameter(0)
  ROOT rs = f32[4] reduce-scatter(p), dimensions={0}, replica_groups={}, to_apply=add
)",
                      kAddHeader),
            "");
  // A count the shapes do not divide evenly is still refused.
  EXPECT_THAT(Violation(R"(
  p = f32[10,3] parameter(0)
  ROOT ag = f32[10,8] all-gather(p), replica_groups={{0}}, dimensions={1}
)"),
              HasSubstr("the shape is f32[10,8], but the operands give f32[10,9]"));
}

TEST(VerifierXlaParityTest, AGroupLargerThanOneFixesTheShardCount) {
  // hlo_verifier_test.cc, ReduceScatterInvalidOutputSize0.
  EXPECT_THAT(Violation(R"(
  p = f32[8] parameter(0)
  ROOT rs = f32[8] reduce-scatter(p), replica_groups={{0,1}}, to_apply=add, dimensions={0}
)",
                        kAddHeader),
              HasSubstr("the shapes give 1 shards along dimension 0, but each group has 2 "
                        "participants"));
  // collective_ops_utils_test.cc: 16 replicas, all in one group.
  EXPECT_THAT(Violation(R"(
  p = f32[128] parameter(0)
  ROOT ag = f32[512] all-gather(p), dimensions={0}, replica_groups={}
)",
                        "HloModule m, replica_count=16"),
              HasSubstr("each group has 16 participants"));
  EXPECT_EQ(Violation(R"(
  p = f32[128] parameter(0)
  ROOT ag = f32[2048] all-gather(p), dimensions={0}, replica_groups={}
)",
                      "HloModule m, replica_count=16"),
            "");
}

TEST(VerifierXlaParityTest, IotaIsANonScalarArrayOfNumbers) {
  // hlo_verifier_test.cc, IotaNonArrayResult, IotaPredResultNotAllowed.
  EXPECT_THAT(Violation("  ROOT i = s32[] iota(), iota_dimension=0\n"),
              HasSubstr("iota produces a non-scalar array, not s32[]"));
  EXPECT_THAT(Violation("  ROOT i = pred[128] iota(), iota_dimension=0\n"),
              HasSubstr("iota produces integers, floats or complex numbers, not pred"));
  EXPECT_THAT(Violation("  ROOT i = s32[4,5] iota(), iota_dimension=2\n"),
              HasSubstr("iota_dimension must be one of the dimensions of s32[4,5]"));
  EXPECT_EQ(Violation("  ROOT i = bf16[4,5] iota(), iota_dimension=1\n"), "");
}

TEST(VerifierXlaParityTest, AsynchronousStepsComeInPairs) {
  // hlo_verifier_test.cc: AsyncStartNoAsyncDone, AsyncStartMultipleAsyncDone,
  // CopyDoneNoCopyStart, CollectivePermuteDoneNoCollectivePermuteStart.
  EXPECT_EQ(Violation(R"(
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), f32[2,3], u32[]) custom-call-start(p0), custom_call_target="foo"
  ROOT async-done = f32[2,3] custom-call-done(async-start)
)"),
            "");
  EXPECT_THAT(
      Violation(R"(
  p0 = f32[2,3] parameter(0)
  ROOT async-start = ((f32[2,3]), f32[2,3], u32[]) custom-call-start(p0), custom_call_target="foo"
)"),
      HasSubstr("[async-pairs] computation 'e', instruction 'async-start': the async-start needs "
                "one user, it has 0"));
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), f32[2,3], u32[]) custom-call-start(p0), custom_call_target="foo"
  d1 = f32[2,3] custom-call-done(async-start)
  d2 = f32[2,3] custom-call-done(async-start)
  ROOT t = (f32[2,3], f32[2,3]) tuple(d1, d2)
)"),
              HasSubstr("the async-start needs one user, it has 2"));
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  p1 = u32[] parameter(1)
  t = (f32[2,3], f32[2,3], u32[]) tuple(p0, p0, p1)
  ROOT copy-done = f32[2,3] copy-done(t)
)"),
              HasSubstr("the operand of a copy-done must be copy-start, not tuple"));
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = (f32[2,3], f32[2,3], u32[]) copy-start(p0)
  ROOT t = ((f32[2,3], f32[2,3], u32[])) tuple(s)
)"),
              HasSubstr("the user of a copy-start must be copy-done, not tuple"));
}

TEST(VerifierXlaParityTest, RngTakesTwoScalarBoundsOfItsKind) {
  // hlo_verifier_test.cc: RngOpnd0NotScalar, RngElementTypeNotSupported;
  // RngMixedPrecisionAllowed verifies.
  EXPECT_EQ(Violation(R"(
  a = f32[] constant(0)
  b = f32[] constant(1)
  ROOT r = f16[10] rng(a, b), distribution=rng_normal
)"),
            "");
  EXPECT_EQ(Violation(R"(
  a = s32[] constant(0)
  b = s32[] constant(9)
  ROOT r = s32[10] rng(a, b), distribution=rng_uniform
)"),
            "");
  EXPECT_THAT(Violation(R"(
  a = f32[] constant(0)
  b = f16[2] constant({1, 3})
  ROOT r = f32[10] rng(a, b), distribution=rng_uniform
)"),
              HasSubstr("rng's operands must be scalars, got f32[] and f16[2]"));
  EXPECT_THAT(Violation(R"(
  a = s32[] constant(0)
  b = s32[] constant(1)
  ROOT r = s32[10] rng(a, b), distribution=rng_normal
)"),
              HasSubstr("rng_normal does not draw s32 (floats only)"));
  EXPECT_THAT(Violation(R"(
  a = f32[] constant(0)
  b = f16[] constant(1)
  ROOT r = f32[10] rng(a, b), distribution=rng_normal
)"),
              HasSubstr("need compatible element types"));
  // rng_expander.hlo gives a third operand; XLA's verifier takes two.
  EXPECT_THAT(Violation(R"(
  a = f32[] constant(0)
  b = f32[] constant(1)
  s = u64[3] constant({2, 4, 8})
  ROOT r = f32[] rng(a, b, s), distribution=rng_uniform
)"),
              HasSubstr("rng takes 2 operands, it has 3"));
}

TEST(VerifierXlaParityTest, OneOperandMayGiveAOneElementTuple) {
  // Beyond XLA, with the scalar operands of docs/formats.md.
  EXPECT_EQ(Violation(R"(
  t = f32[] parameter(0)
  ROOT e = (f32[]) all-gather(t), replica_groups={}, dimensions={0}
)"),
            "");
  EXPECT_EQ(Violation(R"(
  p = f32[2,3] parameter(0)
  ROOT e = (f32[2,6]) all-gather(p), replica_groups={{0,1}}, dimensions={1}
)",
                      "HloModule m, replica_count=2"),
            "");
}

TEST(VerifierXlaParityTest, WithoutMixedPrecisionFloatTypesMustAgree) {
  // hlo_verifier_test.cc: SelectMixedPrecisionNotAllowed,
  // RngMixedPrecisionNotAllowed (refused), DotMixedPrecisionAllowed.
  constexpr absl::string_view kSelect = R"(
  p0 = pred[32] parameter(0)
  p1 = f32[32] parameter(1)
  p2 = bf16[32] parameter(2)
  ROOT select = f32[32] select(p0, p1, p2)
)";
  EXPECT_EQ(Violation(kSelect), "");
  EXPECT_THAT(StrictViolation(kSelect),
              HasSubstr("instruction 'select': operands of f32 and bf16: floating-point types "
                        "of different precisions, and mixed precision is off"));
  EXPECT_THAT(StrictViolation(R"(
  a = f32[] constant(0)
  b = f32[] constant(1)
  ROOT r = f16[10] rng(a, b), distribution=rng_normal
)"),
              HasSubstr("need compatible element types"));
  EXPECT_THAT(StrictViolation(R"(
  a = f32[4] parameter(0)
  ROOT n = bf16[4] negate(a)
)"),
              HasSubstr("the shape is bf16[4], but the operands give f32[4]"));
  EXPECT_THAT(StrictViolation(R"(
  a = f32[] parameter(0)
  ROOT b = bf16[4] broadcast(a), dimensions={}
)"),
              HasSubstr("the shape is bf16[4], but the operands give f32[4]"));
  EXPECT_EQ(StrictViolation(R"(
  a = f32[2,10] parameter(0)
  b = bf16[10,2] parameter(1)
  ROOT dot = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"),
            "");
  EXPECT_EQ(StrictViolation(R"(
  a = f32[2] parameter(0)
  b = bf16[2] parameter(1)
  ROOT t = (f32[2], bf16[2]) tuple(a, b)
)"),
            "");
}

TEST(VerifierXlaParityTest, ADotMayWidenIntegersButNotNarrowThem) {
  // operand_upcaster.hlo: s8 x s8 -> s32 is XLA's preferred_element_type.
  EXPECT_EQ(Violation(R"(
  a = s8[2,3] parameter(0)
  b = s8[3,4] parameter(1)
  ROOT d = s32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"),
            "");
  EXPECT_EQ(Violation(R"(
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = bf16[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"),
            "");
  EXPECT_THAT(Violation(R"(
  a = s32[2,3] parameter(0)
  b = s8[3,4] parameter(1)
  ROOT d = s8[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"),
              HasSubstr("a s8 result is narrower than the s32 operands"));
}

TEST(VerifierXlaParityTest, AsyncShapesFollowTheWrappedComputation) {
  // hlo_verifier_test.cc: AsyncStartOperandWrongType, AsyncDoneOutputWrongType.
  constexpr absl::string_view kWrapped = R"(HloModule m

async_computation {
  p = f32[2,3] parameter(0)
  ROOT custom-call = f32[3,2] custom-call(p), custom_call_target="foo"
})";
  EXPECT_EQ(Violation(R"(
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), f32[3,2], u32[]) async-start(p0), calls=async_computation
  ROOT async-done = f32[3,2] async-done(async-start), calls=async_computation
)",
                      kWrapped),
            "");
  EXPECT_THAT(Violation(R"(
  p0 = f32[3,2] parameter(0)
  async-start = ((f32[2,3]), f32[3,2], u32[]) async-start(p0), calls=async_computation
  ROOT async-done = f32[3,2] async-done(async-start), calls=async_computation
)",
                        kWrapped),
              HasSubstr("[async-shapes] computation 'e', instruction 'async-start': operand 0 "
                        "of the async-start is f32[3,2], but f32[2,3] is expected"));
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), f32[3,2], u32[]) async-start(p0), calls=async_computation
  ROOT async-done = f32[2,3] async-done(async-start), calls=async_computation
)",
                        kWrapped),
              HasSubstr("the async-done's shape is f32[2,3], but f32[3,2] is expected"));
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), f32[2,3], u32[]) async-start(p0), calls=async_computation
  ROOT async-done = f32[2,3] async-done(async-start), calls=async_computation
)",
                        kWrapped),
              HasSubstr("element {1} of the async-start's shape (the result of "
                        "'async_computation') is f32[2,3], but f32[3,2] is expected"));
}

TEST(VerifierXlaParityTest, CopyAndPermuteStartsHoldTheirOperandTwice) {
  // hlo_verifier_test.cc CopyStartAndCopyDoneWrongType,
  // CollectivePermuteStartAndDoneWrongType.
  EXPECT_EQ(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = (f32[2,3], f32[2,3], u32[]) copy-start(p0)
  ROOT d = f32[2,3] copy-done(s)
)"),
            "");
  EXPECT_THAT(
      Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = f32[2,3] copy-start(p0)
  ROOT d = f32[2,3] copy-done(s)
)"),
      HasSubstr("instruction 's': the shape is f32[2,3], but (f32[2,3], f32[2,3], u32[]) is "
                "expected"));
  EXPECT_EQ(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = (f32[2,3], f32[2,3], u32[], u32[]) collective-permute-start(p0),
      source_target_pairs={{0,1},{1,0}}, channel_id=1
  ROOT d = f32[2,3] collective-permute-done(s)
)"),
            "");
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = (f32[2,3], f32[3,2]) collective-permute-start(p0), source_target_pairs={{0,1},{1,0}}
  ROOT d = f32[3,2] collective-permute-done(s)
)"),
              HasSubstr("the shape is (f32[2,3], f32[3,2]), but (f32[2,3], f32[2,3]) is expected"));
  // Beyond XLA (which refuses it, CollectivePermuteStartAndDoneWrongType):
  // the older form whose start has the operand's shape alone.
  EXPECT_EQ(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = f32[2,3] collective-permute-start(p0), source_target_pairs={{0,1},{1,0}}, channel_id=1
  ROOT d = f32[2,3] collective-permute-done(s)
)"),
            "");
  EXPECT_THAT(Violation(R"(
  p0 = f32[2,3] parameter(0)
  s = f32[3,2] collective-permute-start(p0), source_target_pairs={{0,1},{1,0}}
  ROOT d = f32[3,2] collective-permute-done(s)
)"),
              HasSubstr("the shape is f32[3,2], but (f32[2,3], f32[2,3]) is expected"));
}

// XLA's verifier: a send's shape is (operand, u32[], token[]). The text
// reader builds it so; a proto may say otherwise (a fuzz finding: the
// module read from the proto printed a shape its text read back without).
TEST(VerifierXlaParityTest, SendShapeComesFromItsOperand) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2

ENTRY e {
  p = f32[4] parameter(0)
  t = token[] after-all()
  s = (f32[4], u32[], token[]) send(p, t), channel_id=1
  sd = token[] send-done(s), channel_id=1
  ROOT o = f32[4] copy(p)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(VerifyModule(*module).ok());
  HloInstruction* send = module->entry_computation()->GetInstructionWithName("s");
  send->set_shape(Shape::MakeTuple(
      {Shape(PrimitiveType::F32, {9}), Shape::MakeScalar(PrimitiveType::U32), Shape::MakeToken()}));
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("instruction 's': the shape is (f32[9], u32[], token[]), "
                                          "but its operands make (f32[4], u32[], token[])"));
}

}  // namespace
}  // namespace hopt

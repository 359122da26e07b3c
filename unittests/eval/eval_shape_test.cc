// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's shape and data-movement operations
// (core/eval/shape_ops.cc). Expected values are worked out by hand.

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/eval/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType S8 = PrimitiveType::S8;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType U8 = PrimitiveType::U8;
constexpr PrimitiveType PRED = PrimitiveType::PRED;
constexpr PrimitiveType C64 = PrimitiveType::C64;

using array_testing::Counting;
using array_testing::DimsOf;
using array_testing::Ints;
using array_testing::Make;
using array_testing::Scalar;
using array_testing::Values;

// ---- Broadcast -------------------------------------------------------------

TEST(EvalBroadcastTest, VectorIntoRows) {
  auto result = Broadcast(Make(F32, {3}, {1.5, 2.5, 3.5}), Shape(F32, {2, 3}), {1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 3));
  EXPECT_THAT(Values(*result), ElementsAre(1.5, 2.5, 3.5, 1.5, 2.5, 3.5));
}

TEST(EvalBroadcastTest, VectorIntoColumns) {
  auto result = Broadcast(Make(S32, {2}, {7, -8}), Shape(S32, {2, 3}), {0});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(7, 7, 7, -8, -8, -8));
}

TEST(EvalBroadcastTest, ScalarToPredMatrix) {
  auto result = Broadcast(Scalar(PRED, 1), Shape(PRED, {2, 2}), {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->shape().element_type(), PRED);
  EXPECT_THAT(Ints(*result), ElementsAre(1, 1, 1, 1));
}

TEST(EvalBroadcastTest, TransposingBroadcast) {
  // operand[a][b] = 10a + b, a < 2, b < 3; dimensions {2, 0}: operand
  // dimension 0 -> result 2, dimension 1 -> result 0, so
  // result[i][j][k] = operand[k][i] = 10k + i.
  Literal operand = Make(S32, {2, 3}, {0, 1, 2, 10, 11, 12});
  auto result = Broadcast(operand, Shape(S32, {3, 2, 2}), {2, 0});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 10, 0, 10,    // i = 0
                                         1, 11, 1, 11,    // i = 1
                                         2, 12, 2, 12));  // i = 2
}

TEST(EvalBroadcastTest, Bf16KeepsBits) {
  auto result = Broadcast(Make(BF16, {2}, {1.0078125, -3.5}), Shape(BF16, {2, 2}), {0});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(1.0078125, 1.0078125, -3.5, -3.5));
}

TEST(EvalBroadcastTest, ZeroSize) {
  auto result = Broadcast(Make(F32, {0}, {}), Shape(F32, {4, 0}), {1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(4, 0));
  EXPECT_EQ(result->element_count(), 0);
  // A non-empty operand broadcast along a zero-size new dimension.
  result = Broadcast(Make(F32, {2}, {1, 2}), Shape(F32, {0, 2}), {1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->element_count(), 0);
}

TEST(EvalBroadcastTest, Errors) {
  Literal v = Make(F32, {3}, {1, 2, 3});
  EXPECT_INVALID(Broadcast(v, Shape(F32, {2, 3}), {2}), "out of range");
  EXPECT_INVALID(Broadcast(v, Shape(F32, {2, 3}), {-1}), "out of range");
  EXPECT_INVALID(Broadcast(v, Shape(F32, {2, 3}), {0}), "does not fit");
  EXPECT_INVALID(Broadcast(v, Shape(F32, {2, 3}), {}), "one result dimension");
  EXPECT_INVALID(Broadcast(v, Shape(S32, {2, 3}), {1}), "element type");
  EXPECT_INVALID(
      Broadcast(Make(F32, {3, 3}, std::vector<double>(9, 0)), Shape(F32, {3, 3}), {1, 1}),
      "repeat");
  EXPECT_INVALID(Broadcast(v, Shape(F32, {65536, 65536, 3}), {2}), "2^28");
  EXPECT_INVALID(Broadcast(v, Shape::MakeTuple({Shape(F32, {3})}), {0}), "array");
}

// ---- Reshape ---------------------------------------------------------------

TEST(EvalReshapeTest, KeepsRowMajorOrder) {
  auto result = Reshape(Counting(S32, {2, 3}), Shape(S32, {3, 2}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 2));
  EXPECT_THAT(Ints(*result), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(EvalReshapeTest, Bf16ToHigherRankAndScalar) {
  auto result = Reshape(Make(BF16, {6}, {0.5, 1, 1.5, 2, 2.5, 3}), Shape(BF16, {1, 2, 3}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(1, 2, 3));
  EXPECT_THAT(Values(*result), ElementsAre(0.5, 1, 1.5, 2, 2.5, 3));
  auto scalar = Reshape(Make(PRED, {1, 1}, {1}), Shape(PRED, {}));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape().IsScalar());
  EXPECT_THAT(Ints(*scalar), ElementsAre(1));
}

TEST(EvalReshapeTest, ZeroSize) {
  auto result = Reshape(Make(F32, {0, 3}, {}), Shape(F32, {3, 0, 7}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 0, 7));
}

TEST(EvalReshapeTest, Errors) {
  EXPECT_INVALID(Reshape(Counting(S32, {2, 3}), Shape(S32, {4})), "element count");
  EXPECT_INVALID(Reshape(Counting(S32, {2, 3}), Shape(F32, {6})), "type");
}

// ---- Transpose -------------------------------------------------------------

TEST(EvalTransposeTest, Matrix) {
  auto result = Transpose(Make(F32, {2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 2));
  EXPECT_THAT(Values(*result), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(EvalTransposeTest, Rank3) {
  // operand[a][b][c] = 100a + 10b + c with dims {2, 3, 2}; permutation
  // {2, 0, 1}: result dims {2, 2, 3}, result[i][j][k] = operand[j][k][i].
  std::vector<double> values;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c) values.push_back(100 * a + 10 * b + c);
  auto result = Transpose(Make(S32, {2, 3, 2}, values), {2, 0, 1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2, 3));
  EXPECT_THAT(Ints(*result), ElementsAre(0, 10, 20, 100, 110, 120,    // i = 0
                                         1, 11, 21, 101, 111, 121));  // i = 1
}

TEST(EvalTransposeTest, IdentityAndZeroSize) {
  auto same = Transpose(Make(PRED, {2, 2}, {1, 0, 0, 1}), {0, 1});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_THAT(Ints(*same), ElementsAre(1, 0, 0, 1));
  auto empty = Transpose(Make(F32, {0, 4}, {}), {1, 0});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(DimsOf(*empty), ElementsAre(4, 0));
}

TEST(EvalTransposeTest, Errors) {
  EXPECT_INVALID(Transpose(Counting(S32, {2, 3}), {0, 0}), "permutation");
  EXPECT_INVALID(Transpose(Counting(S32, {2, 3}), {0, 2}), "permutation");
  EXPECT_INVALID(Transpose(Counting(S32, {2, 3}), {0}), "permutation");
}

TEST(EvalShapeOpsTest, RefusesElidedAndTupleOperands) {
  auto elided = Literal::Parse(Shape(F32, {2, 2}), "{...}");
  ASSERT_TRUE(elided.ok()) << elided.status();
  ASSERT_TRUE(elided->is_elided());
  EXPECT_INVALID(Transpose(*elided, {1, 0}), "elided");
  EXPECT_INVALID(Reverse(Literal(Shape::MakeTuple({Shape(F32, {2})})), {0}), "array");
  EXPECT_INVALID(Reshape(Literal(), Shape(F32, {})), "array");
}

// ---- Slice -----------------------------------------------------------------

TEST(EvalSliceTest, StridedVector) {
  auto result = Slice(Counting(S32, {10}), {2}, {9}, {3});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(2, 5, 8));
}

TEST(EvalSliceTest, StridedMatrix) {
  // operand [[0 1 2 3] [4 5 6 7] [8 9 10 11]]; rows 0:3:2, columns 1:4:2.
  auto result = Slice(Counting(F32, {3, 4}), {0, 1}, {3, 4}, {2, 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2));
  EXPECT_THAT(Values(*result), ElementsAre(1, 3, 9, 11));
}

TEST(EvalSliceTest, Bf16AndZeroSize) {
  auto result = Slice(Make(BF16, {4}, {0.25, 0.5, 0.75, 1}), {1}, {3}, {1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(0.5, 0.75));
  auto empty = Slice(Counting(S32, {3, 4}), {1, 4}, {3, 4}, {1, 1});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(DimsOf(*empty), ElementsAre(2, 0));
}

TEST(EvalSliceTest, StridePastTheEnd) {
  auto result =
      Slice(Counting(S32, {2, 4}), {0, 1}, {2, 4}, {1, std::numeric_limits<int64_t>::max()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 1));
  EXPECT_THAT(Ints(*result), ElementsAre(1, 5));
}

TEST(EvalSliceTest, Errors) {
  Literal v = Counting(S32, {4});
  EXPECT_INVALID(Slice(v, {0}, {5}, {1}), "does not fit");
  EXPECT_INVALID(Slice(v, {3}, {2}, {1}), "does not fit");
  EXPECT_INVALID(Slice(v, {-1}, {2}, {1}), "does not fit");
  EXPECT_INVALID(Slice(v, {0}, {2}, {0}), "does not fit");
  EXPECT_INVALID(Slice(v, {0, 0}, {2}, {1}), "one entry");
}

// ---- DynamicSlice ----------------------------------------------------------

TEST(EvalDynamicSliceTest, InRange) {
  auto result = DynamicSlice(Counting(S32, {5}), {1}, {3});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(1, 2, 3));
}

TEST(EvalDynamicSliceTest, ClampsStarts) {
  Literal v = Counting(S32, {5});
  auto beyond = DynamicSlice(v, {4}, {3});  // clamped to 2
  ASSERT_TRUE(beyond.ok()) << beyond.status();
  EXPECT_THAT(Ints(*beyond), ElementsAre(2, 3, 4));
  auto negative = DynamicSlice(v, {-3}, {3});  // clamped to 0
  ASSERT_TRUE(negative.ok()) << negative.status();
  EXPECT_THAT(Ints(*negative), ElementsAre(0, 1, 2));
  auto extreme = DynamicSlice(v, {std::numeric_limits<int64_t>::max()}, {2});
  ASSERT_TRUE(extreme.ok()) << extreme.status();
  EXPECT_THAT(Ints(*extreme), ElementsAre(3, 4));
  extreme = DynamicSlice(v, {std::numeric_limits<int64_t>::min()}, {2});
  ASSERT_TRUE(extreme.ok()) << extreme.status();
  EXPECT_THAT(Ints(*extreme), ElementsAre(0, 1));
}

TEST(EvalDynamicSliceTest, MatrixClampsEachDimension) {
  // [[0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15]], starts {3, -1}
  // clamp to {2, 0}.
  auto result = DynamicSlice(Counting(F32, {4, 4}), {3, -1}, {2, 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(8, 9, 12, 13));
}

TEST(EvalDynamicSliceTest, ZeroSizeAndFullSize) {
  auto empty = DynamicSlice(Counting(S32, {3}), {7}, {0});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->element_count(), 0);
  auto full = DynamicSlice(Make(PRED, {3}, {1, 0, 1}), {2}, {3});  // clamped to 0
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_THAT(Ints(*full), ElementsAre(1, 0, 1));
}

TEST(EvalDynamicSliceTest, Errors) {
  EXPECT_INVALID(DynamicSlice(Counting(S32, {3}), {0}, {4}), "do not fit");
  EXPECT_INVALID(DynamicSlice(Counting(S32, {3}), {0}, {-1}), "do not fit");
  EXPECT_INVALID(DynamicSlice(Counting(S32, {3}), {0, 0}, {1}), "one entry");
  EXPECT_INVALID(DynamicSlice(Counting(S32, {3}), {0}, {1, 1}), "sizes");
}

// ---- DynamicUpdateSlice ----------------------------------------------------

TEST(EvalDynamicUpdateSliceTest, InRange) {
  auto result = DynamicUpdateSlice(Counting(S32, {5}), Make(S32, {2}, {-1, -2}), {1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, -1, -2, 3, 4));
}

TEST(EvalDynamicUpdateSliceTest, ClampsStarts) {
  // f32[2,3] zeros, update [1,2] at {1, 5} -> clamped to {1, 1}.
  Literal zeros = Make(F32, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto result = DynamicUpdateSlice(zeros, Make(F32, {1, 2}, {7, 8}), {1, 5});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(0, 0, 0, 0, 7, 8));
  // Negative starts clamp to 0.
  result = DynamicUpdateSlice(zeros, Make(F32, {1, 2}, {7, 8}), {-4, -1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(7, 8, 0, 0, 0, 0));
}

TEST(EvalDynamicUpdateSliceTest, PredAndBf16) {
  auto preds = DynamicUpdateSlice(Make(PRED, {4}, {0, 0, 0, 0}), Make(PRED, {2}, {1, 1}), {3});
  ASSERT_TRUE(preds.ok()) << preds.status();
  EXPECT_THAT(Ints(*preds), ElementsAre(0, 0, 1, 1));
  auto halves = DynamicUpdateSlice(Make(BF16, {2}, {1, 2}), Make(BF16, {1}, {-0.0078125}), {0});
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_THAT(Values(*halves), ElementsAre(-0.0078125, 2));
}

TEST(EvalDynamicUpdateSliceTest, ZeroSizeUpdate) {
  auto result = DynamicUpdateSlice(Counting(S32, {3}), Make(S32, {0}, {}), {2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 1, 2));
}

TEST(EvalDynamicUpdateSliceTest, Errors) {
  EXPECT_INVALID(DynamicUpdateSlice(Counting(S32, {3}), Counting(S32, {4}), {0}), "larger");
  EXPECT_INVALID(DynamicUpdateSlice(Counting(S32, {3}), Counting(F32, {1}), {0}), "element type");
  EXPECT_INVALID(DynamicUpdateSlice(Counting(S32, {3}), Counting(S32, {1}), {0, 1}), "one entry");
  EXPECT_INVALID(DynamicUpdateSlice(Counting(S32, {3}), Counting(S32, {1, 1}), {0}), "start index");
}

// ---- Concatenate -----------------------------------------------------------

TEST(EvalConcatenateTest, AlongColumns) {
  Literal a = Make(S32, {2, 1}, {1, 2});
  Literal b = Make(S32, {2, 2}, {3, 4, 5, 6});
  std::vector<const Literal*> operands = {&a, &b};
  auto result = Concatenate(operands, 1);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 3));
  EXPECT_THAT(Ints(*result), ElementsAre(1, 3, 4, 2, 5, 6));
}

TEST(EvalConcatenateTest, AlongRowsWithEmptyOperand) {
  Literal a = Make(F32, {1, 2}, {1, 2});
  Literal empty = Make(F32, {0, 2}, {});
  Literal c = Make(F32, {2, 2}, {3, 4, 5, 6});
  std::vector<const Literal*> operands = {&a, &empty, &c};
  auto result = Concatenate(operands, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 2));
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(EvalConcatenateTest, SingleBf16Operand) {
  Literal a = Make(BF16, {3}, {1, 2, 3});
  std::vector<const Literal*> operands = {&a};
  auto result = Concatenate(operands, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3));
}

TEST(EvalConcatenateTest, Errors) {
  Literal a = Counting(S32, {2, 2});
  Literal b = Counting(S32, {3, 3});
  Literal f = Counting(F32, {2, 2});
  std::vector<const Literal*> mismatched = {&a, &b};
  EXPECT_INVALID(Concatenate(mismatched, 0), "differ outside dimension");
  std::vector<const Literal*> types = {&a, &f};
  EXPECT_INVALID(Concatenate(types, 0), "type");
  std::vector<const Literal*> ok = {&a, &a};
  EXPECT_INVALID(Concatenate(ok, 2), "out of range");
  EXPECT_INVALID(Concatenate(ok, -1), "out of range");
  EXPECT_INVALID(Concatenate({}, 0), "at least one");
  std::vector<const Literal*> null = {&a, nullptr};
  EXPECT_INVALID(Concatenate(null, 0), "null");
}

// ---- Pad -------------------------------------------------------------------

TEST(EvalPadTest, LowHighInterior) {
  // {1, 2, 3} with 1_2_1: 0 1 0 2 0 3 0 0.
  auto result = Pad(Make(S32, {3}, {1, 2, 3}), Scalar(S32, 0), {{1, 2, 1}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 1, 0, 2, 0, 3, 0, 0));
}

TEST(EvalPadTest, NegativeLowWithInterior) {
  // Interior padding gives 1 0 2 0 3; low -1 drops the leading 1.
  auto result = Pad(Make(S32, {3}, {1, 2, 3}), Scalar(S32, 0), {{-1, 0, 1}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 2, 0, 3));
  // -2 on both sides of 1 0 2 0 3 leaves the middle element.
  result = Pad(Make(S32, {3}, {1, 2, 3}), Scalar(S32, 9), {{-2, -2, 1}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(2));
}

TEST(EvalPadTest, NegativeHigh) {
  auto result = Pad(Make(F32, {3}, {1, 2, 3}), Scalar(F32, 0), {{1, -2, 0}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(0, 1));
}

TEST(EvalPadTest, Matrix) {
  // [[1 2] [3 4]], padding value -1; rows 1_0_0, columns 0_1_1.
  auto result = Pad(Make(F32, {2, 2}, {1, 2, 3, 4}), Scalar(F32, -1), {{1, 0, 0}, {0, 1, 1}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 4));
  EXPECT_THAT(Values(*result), ElementsAre(-1, -1, -1, -1,  //
                                           1, -1, 2, -1,    //
                                           3, -1, 4, -1));
}

TEST(EvalPadTest, Bf16PaddingValue) {
  auto result = Pad(Make(BF16, {1}, {2}), Scalar(BF16, 0.1), {{1, 0, 0}});
  ASSERT_TRUE(result.ok()) << result.status();
  // 0.1 in bf16 is 0.10009765625.
  EXPECT_THAT(Values(*result), ElementsAre(0.10009765625, 2));
}

TEST(EvalPadTest, ZeroSizes) {
  // Everything cropped away.
  auto cropped = Pad(Make(S32, {3}, {1, 2, 3}), Scalar(S32, 0), {{-3, 0, 0}});
  ASSERT_TRUE(cropped.ok()) << cropped.status();
  EXPECT_THAT(DimsOf(*cropped), ElementsAre(0));
  // An empty operand: interior padding does not apply.
  auto padded = Pad(Make(PRED, {0}, {}), Scalar(PRED, 1), {{2, 1, 5}});
  ASSERT_TRUE(padded.ok()) << padded.status();
  EXPECT_THAT(Ints(*padded), ElementsAre(1, 1, 1));
}

TEST(EvalPadTest, ExtremeInteriorCroppedBack) {
  // n = 2, interior = INT64_MAX, low = -INT64_MAX: the size is 2; element 0
  // lands at -INT64_MAX (cropped), element 1 at -INT64_MAX + INT64_MAX + 1 = 1.
  int64_t m = std::numeric_limits<int64_t>::max();
  auto result = Pad(Make(S32, {2}, {5, 6}), Scalar(S32, 0), {{-m, 0, m}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 6));
}

TEST(EvalPadTest, Errors) {
  Literal v = Make(S32, {3}, {1, 2, 3});
  EXPECT_INVALID(Pad(v, Scalar(S32, 0), {{-2, -2, 0}}), "negative size");
  EXPECT_INVALID(Pad(v, Scalar(S32, 0), {{0, 0, -1}}), "negative");
  EXPECT_INVALID(Pad(v, Make(S32, {1}, {0}), {{0, 0, 0}}), "scalar");
  EXPECT_INVALID(Pad(v, Scalar(F32, 0), {{0, 0, 0}}), "scalar");
  EXPECT_INVALID(Pad(v, Scalar(S32, 0), {}), "padding entries");
  EXPECT_INVALID(Pad(v, Scalar(S32, 0), {{0, int64_t{1} << 40, 0}}), "2^28");
  int64_t m = std::numeric_limits<int64_t>::max();
  EXPECT_INVALID(Pad(v, Scalar(S32, 0), {{m, m, m}}), "2^28");
}

// ---- Iota ------------------------------------------------------------------

TEST(EvalIotaTest, Vector) {
  auto result = Iota(Shape(S32, {4}), 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 1, 2, 3));
}

TEST(EvalIotaTest, MatrixEitherDimension) {
  auto columns = Iota(Shape(F32, {2, 3}), 1);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Values(*columns), ElementsAre(0, 1, 2, 0, 1, 2));
  auto rows = Iota(Shape(F32, {2, 3}), 0);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(Values(*rows), ElementsAre(0, 0, 0, 1, 1, 1));
}

TEST(EvalIotaTest, ConvertsToTheElementType) {
  // bf16 holds 8 significant bits: 257 rounds to 256 and 259 to 260 (ties to
  // even).
  auto halves = Iota(Shape(BF16, {300}), 0);
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_EQ(halves->GetAsDouble(255), 255);
  EXPECT_EQ(halves->GetAsDouble(257), 256);
  EXPECT_EQ(halves->GetAsDouble(259), 260);
  // s8 wraps around: 130 -> -126.
  auto bytes = Iota(Shape(S8, {200}), 0);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->GetAsInt64(127), 127);
  EXPECT_EQ(bytes->GetAsInt64(130), -126);
  auto preds = Iota(Shape(PRED, {3}), 0);
  ASSERT_TRUE(preds.ok()) << preds.status();
  EXPECT_THAT(Ints(*preds), ElementsAre(0, 1, 1));
}

TEST(EvalIotaTest, ZeroSize) {
  auto result = Iota(Shape(S32, {0, 5}), 1);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->element_count(), 0);
}

TEST(EvalIotaTest, Errors) {
  EXPECT_INVALID(Iota(Shape(S32, {4}), 1), "out of range");
  EXPECT_INVALID(Iota(Shape(S32, {4}), -1), "out of range");
  EXPECT_INVALID(Iota(Shape(S32, {}), 0), "out of range");
  EXPECT_INVALID(Iota(Shape(S32, {1 << 20, 1 << 20}), 0), "2^28");
  EXPECT_INVALID(Iota(Shape::MakeToken(), 0), "array");
}

// ---- Reverse ---------------------------------------------------------------

TEST(EvalReverseTest, Dimensions) {
  Literal m = Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto columns = Reverse(m, {1});
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Ints(*columns), ElementsAre(3, 2, 1, 6, 5, 4));
  auto rows = Reverse(m, {0});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(Ints(*rows), ElementsAre(4, 5, 6, 1, 2, 3));
  auto both = Reverse(m, {1, 0});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_THAT(Ints(*both), ElementsAre(6, 5, 4, 3, 2, 1));
  auto none = Reverse(m, {});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(Ints(*none), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(EvalReverseTest, Bf16PredAndZeroSize) {
  auto halves = Reverse(Make(BF16, {3}, {0.5, 1.5, -2}), {0});
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_THAT(Values(*halves), ElementsAre(-2, 1.5, 0.5));
  auto preds = Reverse(Make(PRED, {2}, {1, 0}), {0});
  ASSERT_TRUE(preds.ok()) << preds.status();
  EXPECT_THAT(Ints(*preds), ElementsAre(0, 1));
  auto empty = Reverse(Make(F32, {3, 0}, {}), {0, 1});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(DimsOf(*empty), ElementsAre(3, 0));
}

TEST(EvalReverseTest, Errors) {
  EXPECT_INVALID(Reverse(Counting(S32, {2}), {1}), "out of range");
  EXPECT_INVALID(Reverse(Counting(S32, {2}), {0, 0}), "repeat");
}

// ---- Reduce ----------------------------------------------------------------

ScalarCombiner Sum() {
  return [](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    Literal out(args[0].shape());
    out.SetFromDouble(0, args[0].GetAsDouble(0) + args[1].GetAsDouble(0));
    std::vector<Literal> result;
    result.push_back(std::move(out));
    return result;
  };
}

absl::StatusOr<std::vector<Literal>> ReduceOne(const Literal& input, const Literal& init,
                                               std::vector<int64_t> dims,
                                               const ScalarCombiner& combine) {
  std::vector<const Literal*> inputs = {&input};
  std::vector<const Literal*> inits = {&init};
  return Reduce(inputs, inits, dims, combine);
}

TEST(EvalReduceTest, SumRowsAndColumns) {
  Literal m = Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto rows = ReduceOne(m, Scalar(S32, 0), {1}, Sum());
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_THAT(DimsOf((*rows)[0]), ElementsAre(2));
  EXPECT_THAT(Ints((*rows)[0]), ElementsAre(6, 15));
  auto columns = ReduceOne(m, Scalar(S32, 100), {0}, Sum());
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Ints((*columns)[0]), ElementsAre(105, 107, 109));
}

TEST(EvalReduceTest, AllDimensionsToScalar) {
  auto total = ReduceOne(Counting(F32, {2, 3, 4}), Scalar(F32, 0.5), {0, 1, 2}, Sum());
  ASSERT_TRUE(total.ok()) << total.status();
  EXPECT_TRUE((*total)[0].shape().IsScalar());
  EXPECT_THAT(Values((*total)[0]), ElementsAre(276.5));  // 0 + ... + 23 = 276
}

TEST(EvalReduceTest, NoDimensionsCombinesEachElementWithInit) {
  auto result = ReduceOne(Make(S32, {3}, {1, 2, 3}), Scalar(S32, 10), {}, Sum());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf((*result)[0]), ElementsAre(3));
  EXPECT_THAT(Ints((*result)[0]), ElementsAre(11, 12, 13));
}

TEST(EvalReduceTest, MiddleDimension) {
  // [2,3,2] counting, reduce dimension 1: result[a][c] = sum_b (6a + 2b + c).
  auto result = ReduceOne(Counting(S32, {2, 3, 2}), Scalar(S32, 0), {1}, Sum());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf((*result)[0]), ElementsAre(2, 2));
  EXPECT_THAT(Ints((*result)[0]), ElementsAre(6, 9, 24, 27));
}

TEST(EvalReduceTest, FoldsInRowMajorOrderOfReducedIndices) {
  // acc * 10 + x is not commutative: the digits show the order. The
  // dimensions are listed out of order; the fold still goes row-major.
  ScalarCombiner digits =
      [](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    Literal out(args[0].shape());
    out.SetFromInt64(0, args[0].GetAsInt64(0) * 10 + args[1].GetAsInt64(0));
    std::vector<Literal> result;
    result.push_back(std::move(out));
    return result;
  };
  Literal m = Make(PrimitiveType::S64, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto all = ReduceOne(m, Scalar(PrimitiveType::S64, 0), {1, 0}, digits);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Ints((*all)[0]), ElementsAre(123456));
  auto columns = ReduceOne(m, Scalar(PrimitiveType::S64, 9), {0}, digits);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Ints((*columns)[0]), ElementsAre(914, 925, 936));
}

TEST(EvalReduceTest, ElementCombinerFoldsLikeTheGenericPath) {
  // Subtract is neither commutative nor associative and f32 addition
  // rounds, so any change of order or rounding shows.
  struct Case {
    PrimitiveType type;
    HloOpcode opcode;
    std::vector<double> values;
  };
  const std::vector<Case> cases = {
      {PrimitiveType::F32, HloOpcode::kAdd, {1e8, 1, -1e8, 1, 3.5, 1e-3}},
      {PrimitiveType::F32, HloOpcode::kSubtract, {1e8, 1, -1e8, 1, 3.5, 1e-3}},
      {PrimitiveType::S32, HloOpcode::kMultiply, {2147483647, 3, -5, 7, 65536, 65536}},
      {PrimitiveType::U32, HloOpcode::kSubtract, {1, 4294967295, 7, 0, 2, 9}},
      {PrimitiveType::S32, HloOpcode::kMaximum, {-3, 9, 4, -8, 0, 2}},
  };
  for (const Case& c : cases) {
    Literal m = Make(c.type, {2, 3}, c.values);
    Literal init = Scalar(c.type, 5);
    ScalarCombiner generic =
        [&](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
      auto out = Binary(c.opcode, args[0], args[1]);
      if (!out.ok()) return out.status();
      std::vector<Literal> result;
      result.push_back(*std::move(out));
      return result;
    };
    auto combiner = MakeElementCombiner(c.opcode, c.type);
    ASSERT_TRUE(combiner.ok()) << combiner.status();
    for (std::vector<int64_t> dims : {std::vector<int64_t>{1}, {0}, {0, 1}, {}}) {
      std::vector<const Literal*> inputs = {&m};
      std::vector<const Literal*> inits = {&init};
      auto slow = Reduce(inputs, inits, dims, generic);
      auto fast = Reduce(inputs, inits, dims, generic, &*combiner);
      ASSERT_TRUE(slow.ok() && fast.ok());
      EXPECT_EQ((*slow)[0].shape(), (*fast)[0].shape());
      for (int64_t k = 0; k < (*slow)[0].element_count(); ++k)
        EXPECT_EQ((*slow)[0].GetAsDouble(k), (*fast)[0].GetAsDouble(k))
            << HloOpcodeString(c.opcode) << " element " << k << " dims " << dims.size();
    }
  }
  EXPECT_FALSE(MakeElementCombiner(HloOpcode::kAnd, PrimitiveType::F32).ok());
  EXPECT_FALSE(MakeElementCombiner(HloOpcode::kNegate, PrimitiveType::S32).ok());
}

TEST(EvalReduceTest, VariadicArgmax) {
  // Rows [3 7 7 1] and [-1 -5 2 2]: (max, first index) = (7, 1), (2, 2).
  Literal values = Make(F32, {2, 4}, {3, 7, 7, 1, -1, -5, 2, 2});
  Literal indices = Iota(Shape(S32, {2, 4}), 1).value();
  Literal value_init = Scalar(F32, -std::numeric_limits<double>::infinity());
  Literal index_init = Scalar(S32, -1);
  int calls = 0;
  ScalarCombiner argmax =
      [&calls](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    ++calls;
    EXPECT_EQ(args.size(), 4u);
    double acc_value = args[0].GetAsDouble(0), value = args[2].GetAsDouble(0);
    int64_t acc_index = args[1].GetAsInt64(0), index = args[3].GetAsInt64(0);
    bool take = value > acc_value || (value == acc_value && index < acc_index);
    std::vector<Literal> result;
    result.push_back(take ? args[2] : args[0]);
    result.push_back(take ? args[3] : args[1]);
    return result;
  };
  std::vector<const Literal*> inputs = {&values, &indices};
  std::vector<const Literal*> inits = {&value_init, &index_init};
  auto result = Reduce(inputs, inits, {1}, argmax);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_EQ((*result)[0].shape().element_type(), F32);
  EXPECT_EQ((*result)[1].shape().element_type(), S32);
  EXPECT_THAT(Values((*result)[0]), ElementsAre(7, 2));
  EXPECT_THAT(Ints((*result)[1]), ElementsAre(1, 2));
  EXPECT_EQ(calls, 8);
}

TEST(EvalReduceTest, PredAndBf16) {
  ScalarCombiner all =
      [](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    Literal out(args[0].shape());
    out.SetFromInt64(0, args[0].GetAsInt64(0) && args[1].GetAsInt64(0));
    std::vector<Literal> result;
    result.push_back(std::move(out));
    return result;
  };
  auto preds = ReduceOne(Make(PRED, {2, 2}, {1, 1, 1, 0}), Scalar(PRED, 1), {1}, all);
  ASSERT_TRUE(preds.ok()) << preds.status();
  EXPECT_THAT(Ints((*preds)[0]), ElementsAre(1, 0));
  // bf16 sums round after every step: 256 + 1 -> 256 (tie to even), so
  // adding 1 four times to 256 stays at 256.
  auto halves = ReduceOne(Make(BF16, {4}, {1, 1, 1, 1}), Scalar(BF16, 256), {0}, Sum());
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_THAT(Values((*halves)[0]), ElementsAre(256));
}

TEST(EvalReduceTest, ZeroSizeDimensions) {
  // Reducing an empty dimension gives the init value.
  auto init_only = ReduceOne(Make(F32, {2, 0}, {}), Scalar(F32, 4), {1}, Sum());
  ASSERT_TRUE(init_only.ok()) << init_only.status();
  EXPECT_THAT(Values((*init_only)[0]), ElementsAre(4, 4));
  // An empty kept dimension gives an empty result and no calls.
  ScalarCombiner never = [](const std::vector<Literal>&) -> absl::StatusOr<std::vector<Literal>> {
    ADD_FAILURE() << "combiner called";
    return absl::InternalError("called");
  };
  auto empty = ReduceOne(Make(F32, {0, 3}, {}), Scalar(F32, 4), {1}, never);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(DimsOf((*empty)[0]), ElementsAre(0));
}

TEST(EvalReduceTest, CombinerErrorsPropagate) {
  int calls = 0;
  ScalarCombiner failing =
      [&calls](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    if (++calls == 3) return absl::UnimplementedError("combiner gave up");
    std::vector<Literal> result;
    result.push_back(args[0]);
    return result;
  };
  auto result = ReduceOne(Counting(S32, {5}), Scalar(S32, 0), {0}, failing);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("combiner gave up"));
  EXPECT_EQ(calls, 3);
}

TEST(EvalReduceTest, BadCombinerResults) {
  ScalarCombiner two =
      [](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
    return std::vector<Literal>{args[0], args[1]};
  };
  EXPECT_INVALID(ReduceOne(Counting(S32, {2}), Scalar(S32, 0), {0}, two), "returned 2 values");
  ScalarCombiner wrong_type =
      [](const std::vector<Literal>&) -> absl::StatusOr<std::vector<Literal>> {
    std::vector<Literal> result;
    result.push_back(Scalar(F32, 1));
    return result;
  };
  EXPECT_INVALID(ReduceOne(Counting(S32, {2}), Scalar(S32, 0), {0}, wrong_type), "s32 scalar");
  ScalarCombiner not_scalar =
      [](const std::vector<Literal>&) -> absl::StatusOr<std::vector<Literal>> {
    std::vector<Literal> result;
    result.push_back(Make(S32, {1}, {1}));
    return result;
  };
  EXPECT_INVALID(ReduceOne(Counting(S32, {2}), Scalar(S32, 0), {0}, not_scalar), "s32 scalar");
}

TEST(EvalReduceTest, Errors) {
  Literal m = Counting(S32, {2, 3});
  Literal v = Counting(S32, {3});
  Literal init = Scalar(S32, 0);
  EXPECT_INVALID(ReduceOne(m, init, {2}, Sum()), "out of range");
  EXPECT_INVALID(ReduceOne(m, init, {-1}, Sum()), "out of range");
  EXPECT_INVALID(ReduceOne(m, init, {1, 1}, Sum()), "repeat");
  EXPECT_INVALID(ReduceOne(m, Scalar(F32, 0), {1}, Sum()), "init value");
  EXPECT_INVALID(ReduceOne(m, Make(S32, {1}, {0}), {1}, Sum()), "init value");
  EXPECT_INVALID(ReduceOne(m, init, {1}, nullptr), "combiner");
  std::vector<const Literal*> two_inputs = {&m, &v};
  std::vector<const Literal*> two_inits = {&init, &init};
  std::vector<const Literal*> one_init = {&init};
  EXPECT_INVALID(Reduce(two_inputs, one_init, {0}, Sum()), "init values");
  EXPECT_INVALID(Reduce(two_inputs, two_inits, {0}, Sum()), "same dimensions");
  EXPECT_INVALID(Reduce({}, {}, {}, Sum()), "at least one");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

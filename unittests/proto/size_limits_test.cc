// SPDX-License-Identifier: Apache-2.0
// Element counts and byte sizes beyond int64_t: refused where shapes are
// read (text and proto), and compared or derived without wrapping where
// shapes are combined (reshape, concatenate, pad, all-gather, windows).

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "core/ir/shape_inference.h"
#include "core/proto/convert.h"
#include "core/proto/hlo.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(SizeLimitsTest, CheckedElementCountAndByteSize) {
  EXPECT_EQ(Shape(PrimitiveType::F32, {2, 3}).ElementCountIfFits(), 6);
  EXPECT_EQ(Shape(PrimitiveType::F32, {2, 3}).ByteSizeIfFits(), 24);
  EXPECT_EQ(Shape(PrimitiveType::S4, {3}).ByteSizeIfFits(), 3);
  EXPECT_EQ(Shape(PrimitiveType::F32, {}).ElementCountIfFits(), 1);
  // 2^32 * 2^32 wraps to 0 in 64 bits.
  Shape square(PrimitiveType::F32, {int64_t{1} << 32, int64_t{1} << 32});
  EXPECT_EQ(square.ElementCountIfFits(), std::nullopt);
  EXPECT_EQ(square.ByteSizeIfFits(), std::nullopt);
  EXPECT_EQ(square.ElementCount(), kMax);  // saturates, never wraps
  // The count fits, the bytes do not.
  Shape wide(PrimitiveType::F32, {kMax / 3});
  EXPECT_EQ(wide.ElementCountIfFits(), kMax / 3);
  EXPECT_EQ(wide.ByteSizeIfFits(), std::nullopt);
  EXPECT_EQ(Shape(PrimitiveType::PRED, {kMax}).ByteSizeIfFits(), kMax);
  // A zero dimension anywhere empties the array.
  EXPECT_EQ(Shape(PrimitiveType::F32, {kMax, kMax, 0}).ElementCountIfFits(), 0);
  EXPECT_TRUE(CheckArraySizeFits(Shape(PrimitiveType::F32, {kMax, kMax, 0})).ok());
  EXPECT_TRUE(CheckArraySizeFits(Shape::MakeToken()).ok());
}

TEST(SizeLimitsTest, CheckArraySizeFitsLooksInsideTuples) {
  Shape tuple = Shape::MakeTuple(
      {Shape(PrimitiveType::F32, {2}),
       Shape::MakeTuple({Shape(PrimitiveType::F32, {int64_t{1} << 32, int64_t{1} << 32})})});
  absl::Status status = CheckArraySizeFits(tuple);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("the element count of f32[4294967296,4294967296] overflows"));
}

TEST(SizeLimitsTest, TheTextParserRefusesOverflowingShapes) {
  for (const char* text : {"f32[4294967296,4294967296]", "(s32[], f32[4294967296,4294967296])",
                           "b(f32[4294967296,4294967296])", "f32[3074457345618258603]",
                           "c128[1000000000000000000]", "f32[<=4294967296,4294967296]"}) {
    absl::StatusOr<Shape> shape = ParseShape(text);
    EXPECT_FALSE(shape.ok()) << text;
    EXPECT_THAT(shape.status().message(), HasSubstr("overflows a 64-bit integer")) << text;
  }
  for (const char* text : {"f32[0,4294967296,4294967296]", "pred[9223372036854775807]",
                           "f32[2305843009213693951]", "f32[?,4294967296,4294967296]"})
    EXPECT_TRUE(ParseShape(text).ok()) << text << ": " << ParseShape(text).status();
}

TEST(SizeLimitsTest, ModulesWithOverflowingShapesDoNotParse) {
  auto module = ParseHloModule(R"(HloModule m

ENTRY e {
  p = f32[4294967296,4294967296] parameter(0)
  ROOT r = f32[0] reshape(p)
}
)",
                               "m.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("4:7"));
  EXPECT_THAT(module.status().message(),
              HasSubstr("the element count of f32[4294967296,4294967296] overflows"));
}

TEST(SizeLimitsTest, TheProtoReaderRefusesOverflowingShapes) {
  xla::ShapeProto proto;
  proto.set_element_type(xla::F32);
  proto.add_dimensions(int64_t{1} << 32);
  proto.add_dimensions(int64_t{1} << 32);
  absl::StatusOr<Shape> shape = ShapeFromProto(proto);
  ASSERT_FALSE(shape.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(shape.status()));
  EXPECT_THAT(shape.status().message(), HasSubstr("overflows a 64-bit integer"));

  xla::ShapeProto tuple;
  tuple.set_element_type(xla::TUPLE);
  *tuple.add_tuple_shapes() = proto;
  EXPECT_FALSE(ShapeFromProto(tuple).ok());

  xla::ShapeProto bytes;
  bytes.set_element_type(xla::F64);
  bytes.add_dimensions(kMax / 4);
  EXPECT_FALSE(ShapeFromProto(bytes).ok());
  bytes.set_element_type(xla::PRED);
  EXPECT_TRUE(ShapeFromProto(bytes).ok());
}

TEST(SizeLimitsTest, ReshapeComparesCountsWithoutWrapping) {
  // Shapes built in memory are not checked by a reader; the comparison
  // must not take a wrapped 0 for the 0 of f32[0].
  Shape square(PrimitiveType::F32, {int64_t{1} << 32, int64_t{1} << 32});
  Shape empty(PrimitiveType::F32, {0});
  absl::StatusOr<Shape> inferred = InferReshapeShape(square, empty);
  ASSERT_FALSE(inferred.ok());
  EXPECT_THAT(inferred.status().message(), HasSubstr("overflows a 64-bit integer"));
  EXPECT_FALSE(InferReshapeShape(empty, square).ok());
  EXPECT_TRUE(
      InferReshapeShape(Shape(PrimitiveType::F32, {6}), Shape(PrimitiveType::F32, {2, 3})).ok());
}

TEST(SizeLimitsTest, DerivedDimensionsDoNotWrap) {
  Shape half(PrimitiveType::PRED, {int64_t{5000000000000000000}});
  const Shape* pair[] = {&half, &half};
  absl::StatusOr<Shape> concatenated = InferConcatenateShape(pair, 0);
  ASSERT_FALSE(concatenated.ok());
  EXPECT_THAT(concatenated.status().message(), HasSubstr("overflows a 64-bit integer"));

  Shape four(PrimitiveType::F32, {4});
  EXPECT_THAT(InferPadShape(four, "9223372036854775807_1").status().message(),
              HasSubstr("overflows a 64-bit integer"));
  EXPECT_THAT(InferPadShape(four, "0_0_4611686018427387904").status().message(),
              HasSubstr("overflows a 64-bit integer"));
  EXPECT_EQ(InferPadShape(four, "1_2_1")->dimensions(0), 10);

  const Shape* one[] = {&half};
  absl::StatusOr<Shape> gathered = InferAllGatherShape(one, 0, 2);
  ASSERT_FALSE(gathered.ok());
  EXPECT_THAT(gathered.status().message(), HasSubstr("overflows a 64-bit integer"));

  Shape scalar(PrimitiveType::F32, {});
  const Shape* with_init[] = {&four, &scalar};
  EXPECT_THAT(
      InferReduceWindowShape(with_init, "{size=1 pad=9223372036854775807_1}").status().message(),
      HasSubstr("overflows a 64-bit integer"));
}

}  // namespace
}  // namespace hopt

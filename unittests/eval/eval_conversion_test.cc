// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's bitcast, reduce-precision, stochastic-convert
// and dynamic-shape operations (core/eval/conversion_ops.cc). Expected
// values are worked out by hand; the reduce-precision table is the one of
// XLA's reduce_precision_test.cc (bit patterns of inputs and results).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/eval/conversion_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using array_testing::Ints;
using array_testing::Make;
using array_testing::RunParameterless;
using array_testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType S8 = PrimitiveType::S8;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType U8 = PrimitiveType::U8;
constexpr PrimitiveType U16 = PrimitiveType::U16;
constexpr PrimitiveType U32 = PrimitiveType::U32;

Shape WithLayout(PrimitiveType type, std::vector<int64_t> dims,
                 std::vector<int64_t> minor_to_major) {
  Shape shape(type, dims);
  shape.set_layout(minor_to_major);
  return shape;
}

void ExpectUnimplemented(const absl::StatusOr<Literal>& result, absl::string_view substring) {
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()), HasSubstr(substring));
}

// ---------------------------------------------------------------------------
// bitcast

TEST(BitcastTest, SameTypeFollowsThePhysicalOrderOfBothLayouts) {
  // f32[2,3]{0,1} is stored column by column: 1 4 2 5 3 6.
  // With default layouts nothing moves.
  auto flat = Bitcast(Make(F32, {2, 3}, {1, 2, 3, 4, 5, 6}), Shape(F32, {6}));
  ASSERT_TRUE(flat.ok());
  EXPECT_THAT(Values(*flat), ElementsAre(1, 2, 3, 4, 5, 6));

  Literal stored(WithLayout(F32, {2, 3}, {0, 1}));
  for (int k = 0; k < 6; ++k) stored.SetFromDouble(k, k + 1);
  auto physical = Bitcast(stored, Shape(F32, {6}));
  ASSERT_TRUE(physical.ok()) << physical.status();
  EXPECT_THAT(Values(*physical), ElementsAre(1, 4, 2, 5, 3, 6));

  // Into a column-major result: memory a0..a5 fills (0,0) (1,0) (0,1)...
  auto back = Bitcast(Make(F32, {6}, {10, 11, 12, 13, 14, 15}), WithLayout(F32, {2, 3}, {0, 1}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(Values(*back), ElementsAre(10, 12, 14, 11, 13, 15));
  EXPECT_EQ(back->shape(), WithLayout(F32, {2, 3}, {0, 1}));

  // Default layouts on both sides: a reshape.
  auto reshaped = Bitcast(Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6}), Shape(S32, {3, 1, 2}));
  ASSERT_TRUE(reshaped.ok());
  EXPECT_THAT(Ints(*reshaped), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(BitcastTest, ATransposingLayoutPairIsATranspose) {
  // [2,3,4]{2,1,0} read as [4,3,2]{0,1,2}: the same memory, so element
  // (i,j,k) of the result is element (k,j,i) of the operand.
  Literal operand = array_testing::Counting(S32, {2, 3, 4});
  auto result = Bitcast(operand, WithLayout(S32, {4, 3, 2}, {0, 1, 2}));
  ASSERT_TRUE(result.ok()) << result.status();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(result->GetAsInt64((i * 3 + j) * 2 + k), (k * 3 + j) * 4 + i);
}

TEST(BitcastTest, SameWidthReinterpretsBits) {
  auto ints = Bitcast(Make(F32, {2}, {1.0, -2.0}), Shape(S32, {2}));
  ASSERT_TRUE(ints.ok());
  EXPECT_THAT(Ints(*ints), ElementsAre(0x3f800000, static_cast<int32_t>(0xc0000000)));
  auto unsigned4 = Bitcast(Make(PrimitiveType::S4, {2}, {-1, 7}), Shape(PrimitiveType::U4, {2}));
  ASSERT_TRUE(unsigned4.ok()) << unsigned4.status();
  EXPECT_THAT(Ints(*unsigned4), ElementsAre(15, 7));
  auto bytes = Bitcast(Make(PrimitiveType::PRED, {2}, {1, 0}), Shape(U8, {2}));
  ASSERT_TRUE(bytes.ok());
  EXPECT_THAT(Ints(*bytes), ElementsAre(1, 0));
  auto scalar = Bitcast(Make(F32, {}, {1.0}), Shape(U32, {}));
  ASSERT_TRUE(scalar.ok());
  EXPECT_THAT(Ints(*scalar), ElementsAre(0x3f800000));
}

TEST(BitcastTest, OtherWidthsReinterpretTheLittleEndianBytes) {
  // 1.0f = 3f800000: u16 words 0000 3f80.
  auto halves = Bitcast(Make(F32, {2}, {1.0, 2.0}), Shape(U16, {4}));
  ASSERT_TRUE(halves.ok()) << halves.status();
  EXPECT_THAT(Ints(*halves), ElementsAre(0, 0x3f80, 0, 0x4000));
  auto one = Bitcast(Make(U8, {4}, {0, 0, 0x80, 0x3f}), Shape(F32, {}));
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(Values(*one), ElementsAre(1.0));
  auto words = Bitcast(Make(F64, {1}, {1.0}), Shape(S32, {2}));
  ASSERT_TRUE(words.ok());
  EXPECT_THAT(Ints(*words), ElementsAre(0, 0x3ff00000));
  Literal complex(Shape(PrimitiveType::C64, {1}));
  complex.SetFromComplex(0, {1.5, -2.0});
  auto parts = Bitcast(complex, Shape(F64, {}));
  ASSERT_TRUE(parts.ok());
  auto back = Bitcast(*parts, Shape(F32, {2}));
  ASSERT_TRUE(back.ok());
  EXPECT_THAT(Values(*back), ElementsAre(1.5, -2.0));  // real part first
}

TEST(BitcastTest, BytesFollowTheLayoutsToo) {
  // u8[2,4]{0,1} holds memory m(i,j) at j*2+i. Memory 00 00 80 3f 00 00 00
  // 40 is f32 {1, 2}.
  std::vector<double> memory = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};
  Literal bytes(WithLayout(U8, {2, 4}, {0, 1}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) bytes.SetFromDouble(i * 4 + j, memory[j * 2 + i]);
  auto floats = Bitcast(bytes, Shape(F32, {2}));
  ASSERT_TRUE(floats.ok()) << floats.status();
  EXPECT_THAT(Values(*floats), ElementsAre(1.0, 2.0));
}

TEST(BitcastTest, EmptyArrays) {
  auto empty = Bitcast(Literal(Shape(F32, {0, 3})), Shape(U16, {0}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->element_count(), 0);
}

TEST(BitcastTest, RefusesDifferentSizesAndSubByteRepacking) {
  EXPECT_INVALID(Bitcast(Make(F32, {3}, {1, 2, 3}), Shape(F32, {4})),
                 "cannot bitcast f32[3]{0} (12 bytes) to f32[4]{0} (16 bytes): the sizes differ");
  EXPECT_INVALID(Bitcast(Make(F32, {3}, {1, 2, 3}), Shape(U16, {5})), "the sizes differ");
  ExpectUnimplemented(Bitcast(Make(PrimitiveType::S4, {2}, {1, 2}), Shape(U8, {1})),
                      "sub-byte type");
  EXPECT_INVALID(Bitcast(Make(F32, {3}, {1, 2, 3}), Shape::MakeTuple({Shape(F32, {3})})),
                 "must be an array");
}

TEST(BitcastTest, RunsInAModuleWithTheLayoutsItIsWrittenWith) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  x = f32[2,3]{0,1} constant({{1,2,3},{4,5,6}})
  b = f32[3,2]{1,0} bitcast(x)
  ROOT u = u32[3,2]{1,0} bitcast(b)
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  // x's memory is 1 4 2 5 3 6; bit patterns of those floats.
  EXPECT_THAT(Ints((*outputs)[0]),
              ElementsAre(0x3f800000, 0x40800000, 0x40000000, 0x40a00000, 0x40400000, 0x40c00000));
}

// ---------------------------------------------------------------------------
// reduce-precision

uint32_t F32Val(uint32_t exponent, uint32_t high_mantissa, uint32_t low_mantissa) {
  return (exponent << 23) + (high_mantissa << 13) + low_mantissa;
}

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t ToBits(double value) {
  float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

TEST(ReducePrecisionTest, F32MatchesXlasTable) {
  // {input, (5,10), (5,23), (8,10)} from XLA's reduce_precision_test.cc.
  const uint32_t table[][4] = {
      {0, 0, 0, 0},
      {F32Val(0x70, 0, 0), 0, 0, F32Val(0x70, 0, 0)},
      {F32Val(0x70, 0x3ff, 0x0fff), 0, 0, F32Val(0x70, 0x3ff, 0)},
      {F32Val(0x70, 0x3ff, 0x1000), F32Val(0x71, 0, 0), 0, F32Val(0x71, 0, 0)},
      {F32Val(0x71, 0, 0), F32Val(0x71, 0, 0), F32Val(0x71, 0, 0), F32Val(0x71, 0, 0)},
      {F32Val(0x7f, 0, 0), F32Val(0x7f, 0, 0), F32Val(0x7f, 0, 0), F32Val(0x7f, 0, 0)},
      {F32Val(0x7f, 0, 0x1000), F32Val(0x7f, 0, 0), F32Val(0x7f, 0, 0x1000), F32Val(0x7f, 0, 0)},
      {F32Val(0x7f, 0, 0x1001), F32Val(0x7f, 1, 0), F32Val(0x7f, 0, 0x1001), F32Val(0x7f, 1, 0)},
      {F32Val(0x7f, 1, 0x0fff), F32Val(0x7f, 1, 0), F32Val(0x7f, 1, 0x0fff), F32Val(0x7f, 1, 0)},
      {F32Val(0x7f, 1, 0x1000), F32Val(0x7f, 2, 0), F32Val(0x7f, 1, 0x1000), F32Val(0x7f, 2, 0)},
      {F32Val(0x8e, 0x3ff, 0x0fff), F32Val(0x8e, 0x3ff, 0), F32Val(0x8e, 0x3ff, 0x0fff),
       F32Val(0x8e, 0x3ff, 0)},
      {F32Val(0x8e, 0x3ff, 0x1000), F32Val(0xff, 0, 0), F32Val(0x8e, 0x3ff, 0x1000),
       F32Val(0x8f, 0, 0)},
      {F32Val(0x8f, 0, 0), F32Val(0xff, 0, 0), F32Val(0xff, 0, 0), F32Val(0x8f, 0, 0)},
      {F32Val(0xfe, 0x3ff, 0x1000), F32Val(0xff, 0, 0), F32Val(0xff, 0, 0), F32Val(0xff, 0, 0)},
      {F32Val(0xff, 0, 0), F32Val(0xff, 0, 0), F32Val(0xff, 0, 0), F32Val(0xff, 0, 0)},
  };
  const int64_t sizes[][2] = {{5, 10}, {5, 23}, {8, 10}};
  const int rows = sizeof(table) / sizeof(table[0]);
  for (int sign = 0; sign < 2; ++sign) {
    Literal input(Shape(F32, {rows}));
    for (int r = 0; r < rows; ++r)
      input.SetFromDouble(r, FromBits(table[r][0] | (sign ? 0x80000000u : 0)));
    for (int s = 0; s < 3; ++s) {
      auto result = ReducePrecision(input, sizes[s][0], sizes[s][1]);
      ASSERT_TRUE(result.ok()) << result.status();
      for (int r = 0; r < rows; ++r)
        EXPECT_EQ(ToBits(result->GetAsDouble(r)), table[r][s + 1] | (sign ? 0x80000000u : 0))
            << "row " << r << ", sizes " << sizes[s][0] << "," << sizes[s][1] << ", sign " << sign;
    }
  }
}

TEST(ReducePrecisionTest, F64ToF32Sizes) {
  // XLA's f64 rows: the smallest value that rounds up out of f32's denormal
  // range, and the largest that rounds down into it (to zero).
  auto f64 = [](uint64_t exponent, uint64_t high, uint64_t low) {
    uint64_t bits = (exponent << 52) + (high << 29) + low;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  Literal input = Make(F64, {3},
                       {f64(0x380, 0x7fffff, 0x10000000), f64(0x380, 0x7fffff, 0x0fffffff),
                        f64(0x3ff, 0, 0x10000000)});
  auto result = ReducePrecision(input, 8, 23);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(f64(0x381, 0, 0), 0.0, 1.0));  // tie to even: 1
}

TEST(ReducePrecisionTest, NanStaysNanUnlessNoMantissaBitsRemain) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Literal input = Make(F32, {2}, {nan, 1.5});
  auto kept = ReducePrecision(input, 5, 2);
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(std::isnan(kept->GetAsDouble(0)));
  EXPECT_EQ(kept->GetAsDouble(1), 1.5);
  // Without mantissa bits XLA gives +inf for NaN, and 1.5 rounds to even 2.
  auto none = ReducePrecision(input, 5, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(Values(*none), ElementsAre(INFINITY, 2.0));
}

TEST(ReducePrecisionTest, WithoutMantissaBitsATieGoesToTheEvenExponent) {
  // XLA rounds the encoding: 1.5 * 2^-3 (biased exponent 124, even) rounds
  // down to 2^-3, 1.5 * 2^-2 (125, odd) up to 2^-1.
  auto result = ReducePrecision(Make(F32, {3}, {0.1875, 0.375, -0.375}), 8, 0);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(0.125, 0.5, -0.5));
}

TEST(ReducePrecisionTest, NarrowTypesReduceTheirF32Value) {
  // As XLA's evaluator: an f16 denormal (2^-24) is below the smallest normal
  // of 5 exponent bits, so even f16's own sizes flush it; bf16 keeps its
  // denormals under its own sizes (8 exponent bits, no reduction).
  auto f16 = ReducePrecision(Make(PrimitiveType::F16, {2}, {std::ldexp(1.0, -24), 1.0}), 5, 10);
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_THAT(Values(*f16), ElementsAre(0.0, 1.0));
  const double bf16_denormal = std::ldexp(1.0, -133);
  auto bf16 = ReducePrecision(Make(PrimitiveType::BF16, {1}, {bf16_denormal}), 8, 7);
  ASSERT_TRUE(bf16.ok());
  EXPECT_THAT(Values(*bf16), ElementsAre(bf16_denormal));
  // XLA's bf16 row: 0b01110000'1111110 to 5 exponent and 5 mantissa bits
  // rounds up to 2^-14.
  double value = std::ldexp(1.0 + 126.0 / 128, 112 - 127);
  auto row = ReducePrecision(Make(PrimitiveType::BF16, {1}, {value}), 5, 5);
  ASSERT_TRUE(row.ok());
  EXPECT_THAT(Values(*row), ElementsAre(std::ldexp(1.0, -14)));
  // A type without infinity gets NaN where the reduction overflows.
  auto e4m3 = ReducePrecision(Make(PrimitiveType::F8E4M3FN, {1}, {448}), 3, 3);
  ASSERT_TRUE(e4m3.ok());
  EXPECT_TRUE(std::isnan(e4m3->GetAsDouble(0)));
}

TEST(ReducePrecisionTest, RefusesIntegersAndBadSizes) {
  EXPECT_INVALID(ReducePrecision(Make(S32, {1}, {1}), 5, 10), "not defined for element type s32");
  EXPECT_INVALID(ReducePrecision(Make(F32, {1}, {1}), 0, 10), "exponent_bits >= 1");
  EXPECT_INVALID(ReducePrecision(Make(F32, {1}, {1}), 5, -1), "mantissa_bits >= 0");
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  c = f32[2] constant({1.00048828125, 65520})
  ROOT r = f32[2] reduce-precision(c), exponent_bits=5, mantissa_bits=10
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_THAT(Values((*outputs)[0]), ElementsAre(1.0, INFINITY));
}

// ---------------------------------------------------------------------------
// stochastic-convert

TEST(StochasticConvertTest, RoundsUpWhenTheRandomBitsAreBelowTheFraction) {
  // 0.25 of 2^32 is 2^30: random 0 rounds up, 2^30 does not.
  Literal operand = Make(F32, {5}, {2.25, -2.25, 2.25, 2.75, 2.75});
  Literal random = Make(U32, {5}, {0, 0, 1u << 30, 3u << 30, (3u << 30) - 1});
  auto result = StochasticConvert(operand, random, Shape(S32, {5}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(3, -3, 2, 2, 3));
}

TEST(StochasticConvertTest, SaturatesAndMapsNanToZero) {
  Literal operand = Make(F32, {8}, {300, -300, INFINITY, -INFINITY, NAN, 127.5, -127.5, 5});
  Literal random = Make(U32, {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  auto result = StochasticConvert(operand, random, Shape(S8, {8}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(127, -128, 127, -128, 0, 127, -128, 5));
}

TEST(StochasticConvertTest, WidthsOfTheRandomBitsFollowTheOperand) {
  // f64 0.5 with u64 bits: 2^63 rounds down, 2^63 - 1 up.
  Literal operand = Make(F64, {2}, {0.5, 0.5});
  Literal random(Shape(PrimitiveType::U64, {2}));
  random.SetFromInt64(0, static_cast<int64_t>(uint64_t{1} << 63));
  random.SetFromInt64(1, static_cast<int64_t>((uint64_t{1} << 63) - 1));
  auto wide = StochasticConvert(operand, random, Shape(PrimitiveType::S64, {2}));
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Ints(*wide), ElementsAre(0, 1));
  // f16 -1.5 with u16 bits: 0.5 of 2^16 is 32768.
  auto half = StochasticConvert(Make(PrimitiveType::F16, {2}, {-1.5, -1.5}),
                                Make(U16, {2}, {32767, 32768}), Shape(S8, {2}));
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_THAT(Ints(*half), ElementsAre(-2, -1));
}

TEST(StochasticConvertTest, RefusesOtherTypes) {
  Literal operand = Make(F32, {1}, {1.5});
  EXPECT_INVALID(StochasticConvert(operand, Make(U32, {1}, {0}), Shape(U8, {1})),
                 "signed integer types only");
  EXPECT_INVALID(StochasticConvert(operand, Make(S32, {1}, {0}), Shape(S8, {1})),
                 "unsigned of the operand's width (32 bits)");
  EXPECT_INVALID(StochasticConvert(operand, Make(U16, {1}, {0}), Shape(S8, {1})),
                 "unsigned of the operand's width");
  EXPECT_INVALID(StochasticConvert(Make(S32, {1}, {1}), Make(U32, {1}, {0}), Shape(S8, {1})),
                 "must be floating point");
  EXPECT_INVALID(StochasticConvert(operand, Make(U32, {2}, {0, 0}), Shape(S8, {1})),
                 "the same dimensions");
}

// ---------------------------------------------------------------------------
// get-dimension-size, set-dimension-size, dynamic-reshape

TEST(DynamicShapeTest, GetDimensionSizeIsTheBound) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  x = f32[4,3] constant({{1,2,3},{4,5,6},{7,8,9},{10,11,12}})
  three = s32[] constant(3)
  d = f32[4,<=3] set-dimension-size(x, three), dimensions={1}
  s0 = s32[] get-dimension-size(d), dimensions={0}
  s1 = s32[] get-dimension-size(d), dimensions={1}
  ROOT t = (s32[], s32[], f32[4,<=3]) tuple(s0, s1, d)
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const auto& t = (*outputs)[0].tuple_elements();
  EXPECT_THAT(Ints(t[0]), ElementsAre(4));
  EXPECT_THAT(Ints(t[1]), ElementsAre(3));
  EXPECT_EQ(t[2].element_count(), 12);
  EXPECT_TRUE(t[2].shape().is_dynamic_dimension(1));
  EXPECT_INVALID(GetDimensionSize(Make(F32, {2}, {1, 2}), 1), "dimension 1 is not one of");
}

TEST(DynamicShapeTest, SetDimensionSizeBelowTheBoundIsRefused) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  x = f32[4] constant({1,2,3,4})
  two = s32[] constant(2)
  ROOT d = f32[<=4] set-dimension-size(x, two), dimensions={0}
})");
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(outputs.status().message()),
              HasSubstr("interpreter: d (set-dimension-size): size 2 below the bound 4 of "
                        "dimension 0: the interpreter keeps no dynamic sizes"));
  Literal x = Make(F32, {4}, {1, 2, 3, 4});
  EXPECT_INVALID(SetDimensionSize(x, Make(S32, {}, {5}), 0, Shape(F32, {4})),
                 "size 5 of dimension 0 is outside [0, 4]");
  EXPECT_INVALID(SetDimensionSize(x, Make(S32, {}, {-1}), 0, Shape(F32, {4})), "outside");
  EXPECT_INVALID(SetDimensionSize(x, Make(F32, {}, {4}), 0, Shape(F32, {4})),
                 "must be an integer scalar");
  EXPECT_INVALID(SetDimensionSize(x, Make(S32, {}, {4}), 1, Shape(F32, {4})),
                 "dimension 1 is not one of");
}

TEST(DynamicShapeTest, DynamicReshapeAtFullBounds) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  x = s32[6] constant({1,2,3,4,5,6})
  two = s32[] constant(2)
  three = s32[] constant(3)
  ROOT r = s32[2,<=3] dynamic-reshape(x, two, three)
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_THAT(Ints((*outputs)[0]), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_TRUE((*outputs)[0].shape().is_dynamic_dimension(1));

  Literal x = Make(S32, {6}, {1, 2, 3, 4, 5, 6});
  Shape result(S32, {2, 3});
  result.set_dynamic_dimension(1, true);
  Literal two = Make(S32, {}, {2}), three = Make(S32, {}, {3});
  const Literal* below[] = {&two, &two};
  ExpectUnimplemented(DynamicReshape(x, below, result), "size 2 below the bound 3 of dimension 1");
  const Literal* static_mismatch[] = {&three, &three};
  EXPECT_INVALID(DynamicReshape(x, static_mismatch, result), "size 3 does not fit dimension 0");
  const Literal* one_size[] = {&two};
  EXPECT_INVALID(DynamicReshape(x, one_size, result), "one size per dimension");
  const Literal* full[] = {&two, &three};
  EXPECT_INVALID(DynamicReshape(Make(S32, {4}, {1, 2, 3, 4}), full, result), "cannot make");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

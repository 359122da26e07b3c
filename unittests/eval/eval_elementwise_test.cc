// SPDX-License-Identifier: Apache-2.0
// Tests for the elementwise operations of the HLO interpreter
// (core/eval/elementwise_ops.cc): Unary, Binary, Compare, Select, Clamp,
// Convert and BitcastConvert. Expectations are computed by hand from XLA's
// semantics (wrap-around integers, XLA's division rules, results rounded to
// the element type).

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/eval/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::HasSubstr;

Shape S(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? *shape : Shape();
}

// A literal from its shape and XLA text, e.g. L("s8[2]", "{1, 2}").
Literal L(absl::string_view shape, absl::string_view values) {
  absl::StatusOr<Literal> literal = Literal::Parse(S(shape), values);
  EXPECT_TRUE(literal.ok()) << shape << " " << values << ": " << literal.status();
  return literal.ok() ? *literal : Literal();
}

// "type[dims] values" of a result, or "error: <status>".
std::string T(const absl::StatusOr<Literal>& result) {
  if (!result.ok()) return absl::StrCat("error: ", result.status().ToString());
  return absl::StrCat(result->shape().ToString(/*print_layout=*/false), " ", result->ToText());
}

std::string U(HloOpcode op, const Literal& operand) { return T(Unary(op, operand)); }
std::string B(HloOpcode op, const Literal& lhs, const Literal& rhs) {
  return T(Binary(op, lhs, rhs));
}

// The value of element `i` as a double (test helper for inexact results).
double D(const absl::StatusOr<Literal>& result, int64_t i = 0) {
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->GetAsDouble(i) : std::nan("");
}

int64_t I(const absl::StatusOr<Literal>& result, int64_t i = 0) {
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->GetAsInt64(i) : -12345;
}

// Drops the sign of NaNs: the sign of a NaN made by an invalid operation
// (0/0, sqrt(-1)) is the host's choice (x86 makes -nan), as on XLA's CPU.
std::string AnyNan(std::string text) {
  for (size_t at; (at = text.find("-nan")) != std::string::npos;) text.erase(at, 1);
  return text;
}

absl::StatusCode Code(const absl::StatusOr<Literal>& result) { return result.status().code(); }

// ---- integer arithmetic -----------------------------------------------------

TEST(EvalElementwiseTest, IntegerAddWrapsAround) {
  EXPECT_EQ(B(HloOpcode::kAdd, L("s8[3]", "{127, -128, 100}"), L("s8[3]", "{1, -1, 27}")),
            "s8[3] {-128, 127, 127}");
  EXPECT_EQ(B(HloOpcode::kAdd, L("u8[2]", "{200, 255}"), L("u8[2]", "{100, 1}")), "u8[2] {44, 0}");
  EXPECT_EQ(B(HloOpcode::kAdd, L("s4[2]", "{7, -8}"), L("s4[2]", "{1, -1}")), "s4[2] {-8, 7}");
  EXPECT_EQ(B(HloOpcode::kAdd, L("u4[1]", "{15}"), L("u4[1]", "{1}")), "u4[1] {0}");
  EXPECT_EQ(B(HloOpcode::kAdd, L("s2[1]", "{1}"), L("s2[1]", "{1}")), "s2[1] {-2}");
  EXPECT_EQ(B(HloOpcode::kAdd, L("s64[]", "9223372036854775807"), L("s64[]", "1")),
            "s64[] -9223372036854775808");
  EXPECT_EQ(B(HloOpcode::kAdd, L("u64[]", "18446744073709551615"), L("u64[]", "2")), "u64[] 1");
}

TEST(EvalElementwiseTest, IntegerSubtractAndMultiplyWrap) {
  EXPECT_EQ(B(HloOpcode::kSubtract, L("u8[2]", "{0, 10}"), L("u8[2]", "{1, 3}")), "u8[2] {255, 7}");
  EXPECT_EQ(B(HloOpcode::kSubtract, L("s16[1]", "{-32768}"), L("s16[1]", "{1}")), "s16[1] {32767}");
  EXPECT_EQ(B(HloOpcode::kMultiply, L("s32[2]", "{65536, -3}"), L("s32[2]", "{65536, 7}")),
            "s32[2] {0, -21}");
  EXPECT_EQ(B(HloOpcode::kMultiply, L("s64[]", "9223372036854775807"), L("s64[]", "2")),
            "s64[] -2");
  EXPECT_EQ(B(HloOpcode::kMultiply, L("u8[1]", "{16}"), L("u8[1]", "{17}")), "u8[1] {16}");
  EXPECT_EQ(B(HloOpcode::kMultiply, L("u32[1]", "{4294967295}"), L("u32[1]", "{4294967295}")),
            "u32[1] {1}");
}

TEST(EvalElementwiseTest, SignedDivisionAndRemainderFollowXla) {
  Literal lhs = L("s32[6]", "{7, -7, 7, -7, 5, -2147483648}");
  Literal rhs = L("s32[6]", "{2, 2, -2, -2, 0, -1}");
  // Truncating division; x/0 = -1; INT_MIN/-1 = INT_MIN.
  EXPECT_EQ(B(HloOpcode::kDivide, lhs, rhs), "s32[6] {3, -3, -3, 3, -1, -2147483648}");
  // Remainder has the dividend's sign; x%0 = x; INT_MIN%-1 = 0.
  EXPECT_EQ(B(HloOpcode::kRemainder, lhs, rhs), "s32[6] {1, -1, 1, -1, 5, 0}");
  EXPECT_EQ(B(HloOpcode::kDivide, L("s64[]", "-9223372036854775808"), L("s64[]", "-1")),
            "s64[] -9223372036854775808");
  EXPECT_EQ(B(HloOpcode::kRemainder, L("s64[]", "-9223372036854775808"), L("s64[]", "-1")),
            "s64[] 0");
  EXPECT_EQ(B(HloOpcode::kDivide, L("s8[2]", "{-128, -128}"), L("s8[2]", "{-1, 0}")),
            "s8[2] {-128, -1}");
}

TEST(EvalElementwiseTest, UnsignedDivisionAndRemainderFollowXla) {
  // x/0 is all ones, x%0 is x; the values are unsigned.
  EXPECT_EQ(B(HloOpcode::kDivide, L("u8[3]", "{7, 200, 255}"), L("u8[3]", "{0, 3, 2}")),
            "u8[3] {255, 66, 127}");
  EXPECT_EQ(B(HloOpcode::kRemainder, L("u8[3]", "{7, 200, 255}"), L("u8[3]", "{0, 3, 2}")),
            "u8[3] {7, 2, 1}");
  EXPECT_EQ(B(HloOpcode::kDivide, L("u32[1]", "{4294967295}"), L("u32[1]", "{2}")),
            "u32[1] {2147483647}");
  EXPECT_EQ(B(HloOpcode::kDivide, L("u64[2]", "{5, 18446744073709551615}"), L("u64[2]", "{0, 10}")),
            "u64[2] {18446744073709551615, 1844674407370955161}");
  EXPECT_EQ(B(HloOpcode::kRemainder, L("u64[1]", "{18446744073709551615}"), L("u64[1]", "{10}")),
            "u64[1] {5}");
}

TEST(EvalElementwiseTest, ShiftsOutOfRangeGiveZeroOrSignFill) {
  EXPECT_EQ(
      B(HloOpcode::kShiftLeft, L("s32[5]", "{1, 1, 1, 1, -1}"), L("s32[5]", "{31, 32, 33, -1, 4}")),
      "s32[5] {-2147483648, 0, 0, 0, -16}");
  EXPECT_EQ(B(HloOpcode::kShiftRightArithmetic, L("s32[5]", "{-8, -8, 8, -8, 16}"),
              L("s32[5]", "{1, 32, 40, -1, 2}")),
            "s32[5] {-4, -1, 0, -1, 4}");
  EXPECT_EQ(B(HloOpcode::kShiftRightLogical, L("s32[4]", "{-8, -8, 8, 8}"),
              L("s32[4]", "{28, 32, 1, -3}")),
            "s32[4] {15, 0, 4, 0}");
  EXPECT_EQ(B(HloOpcode::kShiftRightLogical, L("s8[1]", "{-1}"), L("s8[1]", "{1}")), "s8[1] {127}");
  EXPECT_EQ(B(HloOpcode::kShiftLeft, L("u8[3]", "{255, 1, 1}"), L("u8[3]", "{1, 8, 7}")),
            "u8[3] {254, 0, 128}");
  // Arithmetic shifts of unsigned values use the sign bit of their width.
  EXPECT_EQ(B(HloOpcode::kShiftRightArithmetic, L("u8[4]", "{128, 64, 200, 100}"),
              L("u8[4]", "{1, 9, 200, 1}")),
            "u8[4] {192, 0, 255, 50}");
  EXPECT_EQ(B(HloOpcode::kShiftLeft, L("u64[2]", "{1, 1}"), L("u64[2]", "{63, 64}")),
            "u64[2] {9223372036854775808, 0}");
  EXPECT_EQ(B(HloOpcode::kShiftRightLogical, L("u64[2]", "{18446744073709551615, 5}"),
              L("u64[2]", "{60, 18446744073709551615}")),
            "u64[2] {15, 0}");
  EXPECT_EQ(B(HloOpcode::kShiftRightArithmetic, L("s4[2]", "{-8, 4}"), L("s4[2]", "{2, 4}")),
            "s4[2] {-2, 0}");
}

TEST(EvalElementwiseTest, BitwiseOnIntegersAndLogicalOnPred) {
  Literal a = L("s8[2]", "{12, -1}"), b = L("s8[2]", "{10, 5}");
  EXPECT_EQ(B(HloOpcode::kAnd, a, b), "s8[2] {8, 5}");
  EXPECT_EQ(B(HloOpcode::kOr, a, b), "s8[2] {14, -1}");
  EXPECT_EQ(B(HloOpcode::kXor, a, b), "s8[2] {6, -6}");
  EXPECT_EQ(U(HloOpcode::kNot, L("u8[3]", "{0, 255, 15}")), "u8[3] {255, 0, 240}");
  EXPECT_EQ(U(HloOpcode::kNot, L("s8[3]", "{0, -1, 5}")), "s8[3] {-1, 0, -6}");
  EXPECT_EQ(U(HloOpcode::kNot, L("u4[1]", "{5}")), "u4[1] {10}");
  Literal p = L("pred[4]", "{0, 0, 1, 1}"), q = L("pred[4]", "{0, 1, 0, 1}");
  EXPECT_EQ(U(HloOpcode::kNot, p), "pred[4] {1, 1, 0, 0}");
  EXPECT_EQ(B(HloOpcode::kAnd, p, q), "pred[4] {0, 0, 0, 1}");
  EXPECT_EQ(B(HloOpcode::kOr, p, q), "pred[4] {0, 1, 1, 1}");
  EXPECT_EQ(B(HloOpcode::kXor, p, q), "pred[4] {0, 1, 1, 0}");
  EXPECT_EQ(B(HloOpcode::kMaximum, p, q), "pred[4] {0, 1, 1, 1}");
  EXPECT_EQ(B(HloOpcode::kMinimum, p, q), "pred[4] {0, 0, 0, 1}");
}

TEST(EvalElementwiseTest, PopulationCountAndCountLeadingZeros) {
  EXPECT_EQ(U(HloOpcode::kPopulationCount, L("s8[4]", "{0, -1, 7, -128}")), "s8[4] {0, 8, 3, 1}");
  EXPECT_EQ(U(HloOpcode::kPopulationCount, L("s32[2]", "{-1, 65535}")), "s32[2] {32, 16}");
  EXPECT_EQ(U(HloOpcode::kPopulationCount, L("u64[1]", "{18446744073709551615}")), "u64[1] {64}");
  EXPECT_EQ(U(HloOpcode::kClz, L("u16[4]", "{0, 1, 256, 65535}")), "u16[4] {16, 15, 7, 0}");
  EXPECT_EQ(U(HloOpcode::kClz, L("s32[3]", "{0, 1, -1}")), "s32[3] {32, 31, 0}");
  EXPECT_EQ(U(HloOpcode::kClz, L("s4[3]", "{1, -8, 0}")), "s4[3] {3, 0, 4}");
  EXPECT_EQ(U(HloOpcode::kClz, L("u64[2]", "{1, 0}")), "u64[2] {63, 64}");
  EXPECT_EQ(U(HloOpcode::kClz, L("u8[1]", "{16}")), "u8[1] {3}");
}

TEST(EvalElementwiseTest, IntegerAbsNegateSign) {
  EXPECT_EQ(U(HloOpcode::kAbs, L("s8[4]", "{-128, -5, 5, 0}")), "s8[4] {-128, 5, 5, 0}");
  EXPECT_EQ(U(HloOpcode::kNegate, L("s8[3]", "{-128, 5, 0}")), "s8[3] {-128, -5, 0}");
  EXPECT_EQ(U(HloOpcode::kNegate, L("u8[2]", "{1, 0}")), "u8[2] {255, 0}");
  EXPECT_EQ(U(HloOpcode::kNegate, L("s64[]", "-9223372036854775808")),
            "s64[] -9223372036854775808");
  EXPECT_EQ(U(HloOpcode::kSign, L("s32[3]", "{-7, 0, 9}")), "s32[3] {-1, 0, 1}");
  EXPECT_EQ(U(HloOpcode::kSign, L("u8[2]", "{0, 200}")), "u8[2] {0, 1}");
  EXPECT_EQ(U(HloOpcode::kAbs, L("u8[1]", "{200}")), "u8[1] {200}");
}

TEST(EvalElementwiseTest, IntegerPowerBySquaringWraps) {
  EXPECT_EQ(B(HloOpcode::kPower, L("s32[8]", "{2, 3, -2, 0, 1, -1, -1, 2}"),
              L("s32[8]", "{10, 0, 3, 0, -5, -3, -4, -1}")),
            "s32[8] {1024, 1, -8, 1, 1, -1, 1, 0}");
  EXPECT_EQ(B(HloOpcode::kPower, L("s8[3]", "{2, 3, -3}"), L("s8[3]", "{7, 5, 3}")),
            "s8[3] {-128, -13, -27}");
  EXPECT_EQ(B(HloOpcode::kPower, L("u8[2]", "{2, 3}"), L("u8[2]", "{8, 4}")), "u8[2] {0, 81}");
  EXPECT_EQ(B(HloOpcode::kPower, L("s64[]", "3"), L("s64[]", "39")), "s64[] 4052555153018976267");
  // 3^40 = 12157665459056928801 wraps by 2^64.
  EXPECT_EQ(B(HloOpcode::kPower, L("s64[]", "3"), L("s64[]", "40")), "s64[] -6289078614652622815");
  // pred: x^y = x || !y.
  EXPECT_EQ(B(HloOpcode::kPower, L("pred[4]", "{0, 0, 1, 1}"), L("pred[4]", "{0, 1, 0, 1}")),
            "pred[4] {1, 0, 1, 1}");
}

TEST(EvalElementwiseTest, IntegerMaximumMinimumAndMulhi) {
  EXPECT_EQ(B(HloOpcode::kMaximum, L("s8[2]", "{-1, 5}"), L("s8[2]", "{3, -7}")), "s8[2] {3, 5}");
  EXPECT_EQ(B(HloOpcode::kMinimum, L("s8[2]", "{-1, 5}"), L("s8[2]", "{3, -7}")), "s8[2] {-1, -7}");
  EXPECT_EQ(B(HloOpcode::kMaximum, L("u8[2]", "{255, 1}"), L("u8[2]", "{0, 2}")), "u8[2] {255, 2}");
  EXPECT_EQ(B(HloOpcode::kMaximum, L("u64[1]", "{18446744073709551615}"), L("u64[1]", "{1}")),
            "u64[1] {18446744073709551615}");
  EXPECT_EQ(B(HloOpcode::kMinimum, L("u64[1]", "{18446744073709551615}"), L("u64[1]", "{1}")),
            "u64[1] {1}");
  EXPECT_EQ(B(HloOpcode::kMulhi, L("s32[3]", "{1073741824, -1, -2147483648}"),
              L("s32[3]", "{4, 1, -2147483648}")),
            "s32[3] {1, -1, 1073741824}");
  EXPECT_EQ(B(HloOpcode::kMulhi, L("u32[1]", "{4294967295}"), L("u32[1]", "{4294967295}")),
            "u32[1] {4294967294}");
  EXPECT_EQ(B(HloOpcode::kMulhi, L("u64[1]", "{18446744073709551615}"), L("u64[1]", "{2}")),
            "u64[1] {1}");
  EXPECT_EQ(B(HloOpcode::kMulhi, L("s64[1]", "{-1}"), L("s64[1]", "{5}")), "s64[1] {-1}");
}

// ---- floating point -----------------------------------------------------------

TEST(EvalElementwiseTest, Bf16AndF16ResultsAreRounded) {
  // bf16 has 8 significant bits: the ulp of 1 is 2^-7.
  auto bf16 = [](double a, double b) {
    Literal x(Shape(PrimitiveType::BF16, {})), y(Shape(PrimitiveType::BF16, {}));
    x.SetFromDouble(0, a);
    y.SetFromDouble(0, b);
    return D(Binary(HloOpcode::kAdd, x, y));
  };
  EXPECT_EQ(bf16(1, std::ldexp(1, -9)), 1.0);               // below half an ulp
  EXPECT_EQ(bf16(1, std::ldexp(1, -8)), 1.0);               // tie, to even
  EXPECT_EQ(bf16(1, 3 * std::ldexp(1, -9)), 1.0078125);     // above half
  EXPECT_EQ(bf16(1.0078125, std::ldexp(1, -8)), 1.015625);  // tie, to even (up)
  EXPECT_EQ(bf16(256, 1), 256.0);
  // f16: largest finite 65504, ulp 32 there; 2048 + 1 ties to 2048.
  EXPECT_EQ(B(HloOpcode::kMultiply, L("f16[2]", "{65504, -65504}"), L("f16[2]", "{2, 2}")),
            "f16[2] {inf, -inf}");
  EXPECT_EQ(
      B(HloOpcode::kAdd, L("f16[4]", "{65504, 65504, 2048, 2048}"), L("f16[4]", "{15, 16, 1, 3}")),
      "f16[4] {65504, inf, 2048, 2052}");
  EXPECT_EQ(D(Binary(HloOpcode::kDivide, L("f16[]", "1"), L("f16[]", "3"))),
            1365.0 / 4096);  // 0x3555
  // Subnormal f16: 2^-24 / 2 ties to 0.
  EXPECT_EQ(D(Binary(HloOpcode::kMultiply, L("f16[]", "5.96046448e-08"), L("f16[]", "0.5"))), 0.0);
}

TEST(EvalElementwiseTest, F32ArithmeticIsCorrectlyRounded) {
  EXPECT_EQ(B(HloOpcode::kAdd, L("f32[2]", "{16777216, 0.1}"), L("f32[2]", "{1, 0.2}")),
            "f32[2] {16777216, 0.3}");
  EXPECT_EQ(D(Binary(HloOpcode::kDivide, L("f32[]", "1"), L("f32[]", "3"))),
            static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(D(Binary(HloOpcode::kMultiply, L("f32[]", "3.4e38"), L("f32[]", "10"))),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(AnyNan(B(HloOpcode::kDivide, L("f64[3]", "{1, -1, 0}"), L("f64[3]", "{0, 0, 0}"))),
            "f64[3] {inf, -inf, nan}");
  EXPECT_EQ(
      AnyNan(B(HloOpcode::kRemainder, L("f32[3]", "{5.5, -5.5, 1}"), L("f32[3]", "{2, 2, 0}"))),
      "f32[3] {1.5, -1.5, nan}");
  EXPECT_EQ(B(HloOpcode::kPower, L("f32[3]", "{2, 4, nan}"), L("f32[3]", "{10, 0.5, 0}")),
            "f32[3] {1024, 2, 1}");
  EXPECT_EQ(B(HloOpcode::kSubtract, L("f64[1]", "{1}"), L("f64[1]", "{1e-17}")), "f64[1] {1}");
  EXPECT_DOUBLE_EQ(D(Binary(HloOpcode::kAtan2, L("f64[]", "1"), L("f64[]", "1"))), M_PI / 4);
  EXPECT_EQ(D(Binary(HloOpcode::kAtan2, L("f32[]", "1"), L("f32[]", "-1"))),
            static_cast<double>(static_cast<float>(3 * M_PI / 4)));
}

TEST(EvalElementwiseTest, FloatMaximumMinimumPropagateNan) {
  Literal a = L("f32[5]", "{nan, 1, 1, -0, 3}"), b = L("f32[5]", "{1, nan, 2, 0, -inf}");
  EXPECT_EQ(B(HloOpcode::kMaximum, a, b), "f32[5] {nan, nan, 2, 0, 3}");
  EXPECT_EQ(B(HloOpcode::kMinimum, a, b), "f32[5] {nan, nan, 1, -0, -inf}");
  EXPECT_EQ(B(HloOpcode::kMaximum, b, a), "f32[5] {nan, nan, 2, 0, 3}");
  EXPECT_EQ(B(HloOpcode::kMinimum, b, a), "f32[5] {nan, nan, 1, -0, -inf}");
  EXPECT_EQ(B(HloOpcode::kMaximum, L("bf16[1]", "{nan}"), L("bf16[1]", "{inf}")), "bf16[1] {nan}");
}

TEST(EvalElementwiseTest, FloatRoundingUnaryOps) {
  Literal x = L("f32[7]", "{0.5, 1.5, 2.5, -0.5, -2.5, -1.7, 3.2}");
  EXPECT_EQ(U(HloOpcode::kRoundNearestAfz, x), "f32[7] {1, 2, 3, -1, -3, -2, 3}");
  EXPECT_EQ(U(HloOpcode::kRoundNearestEven, x), "f32[7] {0, 2, 2, -0, -2, -2, 3}");
  EXPECT_EQ(U(HloOpcode::kFloor, x), "f32[7] {0, 1, 2, -1, -3, -2, 3}");
  EXPECT_EQ(U(HloOpcode::kCeil, x), "f32[7] {1, 2, 3, -0, -2, -1, 4}");
  EXPECT_EQ(U(HloOpcode::kRoundNearestEven, L("f64[3]", "{inf, nan, 4503599627370497}")),
            "f64[3] {inf, nan, 4503599627370497}");
}

TEST(EvalElementwiseTest, FloatSignAbsNegateIsFinite) {
  EXPECT_EQ(U(HloOpcode::kSign, L("f32[6]", "{-3, 0, -0, nan, 5, -inf}")),
            "f32[6] {-1, 0, -0, nan, 1, -1}");
  EXPECT_EQ(U(HloOpcode::kAbs, L("f16[3]", "{-2.5, -0, -inf}")), "f16[3] {2.5, 0, inf}");
  EXPECT_EQ(U(HloOpcode::kNegate, L("bf16[3]", "{1.5, 0, -inf}")), "bf16[3] {-1.5, -0, inf}");
  EXPECT_EQ(U(HloOpcode::kIsFinite, L("f32[5]", "{1, inf, -inf, nan, -0}")),
            "pred[5] {1, 0, 0, 0, 1}");
  EXPECT_EQ(U(HloOpcode::kIsFinite, L("f16[2]", "{65504, inf}")), "pred[2] {1, 0}");
  EXPECT_EQ(U(HloOpcode::kReal, L("f32[1]", "{2.5}")), "f32[1] {2.5}");
  EXPECT_EQ(U(HloOpcode::kImag, L("f32[1]", "{2.5}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kCopy, L("f32[2]", "{nan, -0}")), "f32[2] {nan, -0}");
}

TEST(EvalElementwiseTest, TranscendentalsRoundedToTheElementType) {
  EXPECT_EQ(U(HloOpcode::kExp, L("f64[2]", "{0, -inf}")), "f64[2] {1, 0}");
  EXPECT_EQ(D(Unary(HloOpcode::kExp, L("f64[]", "1"))), M_E);
  EXPECT_EQ(D(Unary(HloOpcode::kExp, L("bf16[]", "1"))), 2.71875);
  EXPECT_EQ(D(Unary(HloOpcode::kSqrt, L("f16[]", "2"))), 1.4140625);
  EXPECT_EQ(D(Unary(HloOpcode::kSqrt, L("f32[]", "2"))), static_cast<double>(std::sqrt(2.0f)));
  EXPECT_EQ(AnyNan(U(HloOpcode::kSqrt, L("f32[3]", "{4, -1, inf}"))), "f32[3] {2, nan, inf}");
  EXPECT_EQ(U(HloOpcode::kRsqrt, L("f32[3]", "{4, 0, inf}")), "f32[3] {0.5, inf, 0}");
  EXPECT_EQ(U(HloOpcode::kCbrt, L("f32[2]", "{27, -8}")), "f32[2] {3, -2}");
  EXPECT_EQ(AnyNan(U(HloOpcode::kLog, L("f32[3]", "{1, 0, -1}"))), "f32[3] {0, -inf, nan}");
  EXPECT_EQ(U(HloOpcode::kLogistic, L("f32[3]", "{0, -inf, inf}")), "f32[3] {0.5, 0, 1}");
  EXPECT_EQ(U(HloOpcode::kTanh, L("f32[3]", "{0, inf, -inf}")), "f32[3] {0, 1, -1}");
  EXPECT_EQ(U(HloOpcode::kErf, L("f32[3]", "{0, inf, -inf}")), "f32[3] {0, 1, -1}");
  EXPECT_EQ(D(Unary(HloOpcode::kLog1p, L("f64[]", "1e-20"))), 1e-20);
  EXPECT_EQ(D(Unary(HloOpcode::kExpm1, L("f64[]", "1e-20"))), 1e-20);
  EXPECT_EQ(U(HloOpcode::kSin, L("f32[1]", "{0}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kCos, L("f32[1]", "{0}")), "f32[1] {1}");
  EXPECT_EQ(U(HloOpcode::kTan, L("f32[1]", "{0}")), "f32[1] {0}");
  EXPECT_EQ(AnyNan(U(HloOpcode::kAsin, L("f32[2]", "{0, 2}"))), "f32[2] {0, nan}");
  EXPECT_EQ(U(HloOpcode::kAcos, L("f32[1]", "{1}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kAtan, L("f32[1]", "{0}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kSinh, L("f32[1]", "{0}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kCosh, L("f32[1]", "{0}")), "f32[1] {1}");
  EXPECT_EQ(U(HloOpcode::kAsinh, L("f32[1]", "{0}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kAcosh, L("f32[1]", "{1}")), "f32[1] {0}");
  EXPECT_EQ(U(HloOpcode::kAtanh, L("f32[2]", "{0, 1}")), "f32[2] {0, inf}");
  // Every float transcendental on f32 equals the double result rounded.
  for (HloOpcode op : {HloOpcode::kSin, HloOpcode::kCos, HloOpcode::kTan, HloOpcode::kExp,
                       HloOpcode::kLog, HloOpcode::kAtan, HloOpcode::kTanh}) {
    double expected = 0;
    double x = 0.7f;
    switch (op) {
      case HloOpcode::kSin: expected = std::sin(x); break;
      case HloOpcode::kCos: expected = std::cos(x); break;
      case HloOpcode::kTan: expected = std::tan(x); break;
      case HloOpcode::kExp: expected = std::exp(x); break;
      case HloOpcode::kLog: expected = std::log(x); break;
      case HloOpcode::kAtan: expected = std::atan(x); break;
      default: expected = std::tanh(x); break;
    }
    EXPECT_EQ(D(Unary(op, L("f32[]", "0.7"))), static_cast<double>(static_cast<float>(expected)))
        << HloOpcodeString(op);
  }
}

TEST(EvalElementwiseTest, FloatOpsOnF8Types) {
  // f8e4m3fn: 3 mantissa bits, no inf; 448 is the largest value.
  EXPECT_EQ(B(HloOpcode::kAdd, L("f8e4m3fn[2]", "{1, 448}"), L("f8e4m3fn[2]", "{0.0625, 64}")),
            "f8e4m3fn[2] {1, nan}");
  EXPECT_EQ(B(HloOpcode::kMultiply, L("f8e5m2[1]", "{57344}"), L("f8e5m2[1]", "{2}")),
            "f8e5m2[1] {inf}");
}

// ---- complex ------------------------------------------------------------------

TEST(EvalElementwiseTest, ComplexArithmetic) {
  Literal a = L("c64[1]", "{(1, 2)}"), b = L("c64[1]", "{(3, 4)}");
  EXPECT_EQ(B(HloOpcode::kMultiply, a, b), "c64[1] {(-5, 10)}");
  EXPECT_EQ(B(HloOpcode::kAdd, a, b), "c64[1] {(4, 6)}");
  EXPECT_EQ(B(HloOpcode::kSubtract, a, b), "c64[1] {(-2, -2)}");
  EXPECT_EQ(B(HloOpcode::kDivide, L("c128[1]", "{(-5, 10)}"), L("c128[1]", "{(3, 4)}")),
            "c128[1] {(1, 2)}");
  EXPECT_EQ(U(HloOpcode::kNegate, a), "c64[1] {(-1, -2)}");
  EXPECT_EQ(U(HloOpcode::kSign, L("c64[2]", "{(3, 4), (0, 0)}")), "c64[2] {(0.6, 0.8), (0, 0)}");
  EXPECT_EQ(
      B(HloOpcode::kPower, L("c128[2]", "{(0, 0), (0, 0)}"), L("c128[2]", "{(0, 0), (2, 0)}")),
      "c128[2] {(1, 0), (0, 0)}");
  absl::StatusOr<Literal> square =
      Binary(HloOpcode::kPower, L("c128[]", "(0, 1)"), L("c128[]", "(2, 0)"));
  ASSERT_TRUE(square.ok());
  EXPECT_NEAR(square->GetAsComplex(0).real(), -1, 1e-15);
  EXPECT_NEAR(square->GetAsComplex(0).imag(), 0, 1e-15);
  absl::StatusOr<Literal> e = Unary(HloOpcode::kExp, L("c128[]", "(0, 3.141592653589793)"));
  ASSERT_TRUE(e.ok());
  EXPECT_NEAR(e->GetAsComplex(0).real(), -1, 1e-15);
  EXPECT_NEAR(e->GetAsComplex(0).imag(), 0, 1e-15);
  EXPECT_EQ(U(HloOpcode::kSqrt, L("c64[1]", "{(-4, 0)}")), "c64[1] {(0, 2)}");
  EXPECT_EQ(U(HloOpcode::kLog, L("c64[1]", "{(1, 0)}")), "c64[1] {(0, 0)}");
}

TEST(EvalElementwiseTest, ComplexPartsAndConstruction) {
  EXPECT_EQ(U(HloOpcode::kAbs, L("c64[2]", "{(3, 4), (-5, 12)}")), "f32[2] {5, 13}");
  EXPECT_EQ(U(HloOpcode::kReal, L("c128[1]", "{(3, 4)}")), "f64[1] {3}");
  EXPECT_EQ(U(HloOpcode::kImag, L("c64[1]", "{(3, 4)}")), "f32[1] {4}");
  EXPECT_EQ(B(HloOpcode::kComplex, L("f32[2]", "{1, 2}"), L("f32[2]", "{3, 4}")),
            "c64[2] {(1, 3), (2, 4)}");
  EXPECT_EQ(B(HloOpcode::kComplex, L("f64[]", "1"), L("f64[]", "-1")), "c128[] (1, -1)");
  // c64 parts are rounded to f32.
  EXPECT_EQ(D(Unary(HloOpcode::kAbs, L("c64[]", "(1, 1)"))),
            static_cast<double>(static_cast<float>(std::sqrt(2.0))));
}

// ---- compare ------------------------------------------------------------------

TEST(EvalElementwiseTest, CompareIntegers) {
  Literal a = L("s32[3]", "{1, 2, 3}"), b = L("s32[3]", "{2, 2, 2}");
  EXPECT_EQ(T(Compare("EQ", a, b)), "pred[3] {0, 1, 0}");
  EXPECT_EQ(T(Compare("NE", a, b)), "pred[3] {1, 0, 1}");
  EXPECT_EQ(T(Compare("LT", a, b)), "pred[3] {1, 0, 0}");
  EXPECT_EQ(T(Compare("LE", a, b)), "pred[3] {1, 1, 0}");
  EXPECT_EQ(T(Compare("GT", a, b)), "pred[3] {0, 0, 1}");
  EXPECT_EQ(T(Compare("GE", a, b)), "pred[3] {0, 1, 1}");
  // Unsigned values compare as unsigned.
  EXPECT_EQ(T(Compare("GT", L("u32[2]", "{4294967295, 0}"), L("u32[2]", "{1, 1}"))),
            "pred[2] {1, 0}");
  EXPECT_EQ(T(Compare("LT", L("u64[1]", "{1}"), L("u64[1]", "{18446744073709551615}"))),
            "pred[1] {1}");
  EXPECT_EQ(T(Compare("LT", L("s8[]", "-1"), L("s8[]", "1"))), "pred[] true");
  EXPECT_EQ(T(Compare("GT", L("pred[2]", "{1, 0}"), L("pred[2]", "{0, 0}"))), "pred[2] {1, 0}");
  EXPECT_EQ(T(Compare("LT", L("s32[1]", "{-5}"), L("s32[1]", "{3}"), /*total_order=*/true)),
            "pred[1] {1}");
}

TEST(EvalElementwiseTest, CompareFloatsWithNan) {
  Literal a = L("f32[4]", "{nan, nan, 1, -0}"), b = L("f32[4]", "{nan, 1, nan, 0}");
  EXPECT_EQ(T(Compare("EQ", a, b)), "pred[4] {0, 0, 0, 1}");
  EXPECT_EQ(T(Compare("NE", a, b)), "pred[4] {1, 1, 1, 0}");
  EXPECT_EQ(T(Compare("LT", a, b)), "pred[4] {0, 0, 0, 0}");
  EXPECT_EQ(T(Compare("LE", a, b)), "pred[4] {0, 0, 0, 1}");
  EXPECT_EQ(T(Compare("GT", a, b)), "pred[4] {0, 0, 0, 0}");
  EXPECT_EQ(T(Compare("GE", a, b)), "pred[4] {0, 0, 0, 1}");
}

TEST(EvalElementwiseTest, CompareTotalOrder) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN.
  Literal v = L("f32[8]", "{-nan, -inf, -1, -0, 0, 1, inf, nan}");
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 8; ++j) {
      Literal a = ElementAt(v, i), b = ElementAt(v, j);
      EXPECT_EQ(I(Compare("LT", a, b, true)), i < j ? 1 : 0) << i << " " << j;
      EXPECT_EQ(I(Compare("EQ", a, b, true)), i == j ? 1 : 0) << i << " " << j;
      EXPECT_EQ(I(Compare("GE", a, b, true)), i >= j ? 1 : 0) << i << " " << j;
      EXPECT_EQ(I(Compare("NE", a, b, true)), i != j ? 1 : 0) << i << " " << j;
    }
  }
  EXPECT_EQ(T(Compare("LE", L("bf16[2]", "{-0, nan}"), L("bf16[2]", "{0, inf}"), true)),
            "pred[2] {1, 0}");
}

TEST(EvalElementwiseTest, CompareComplexOnlyEquality) {
  Literal a = L("c64[3]", "{(1, 2), (1, 2), (nan, 0)}");
  Literal b = L("c64[3]", "{(1, 2), (1, 3), (nan, 0)}");
  EXPECT_EQ(T(Compare("EQ", a, b)), "pred[3] {1, 0, 0}");
  EXPECT_EQ(T(Compare("NE", a, b)), "pred[3] {0, 1, 1}");
  absl::StatusOr<Literal> lt = Compare("LT", a, b);
  EXPECT_EQ(Code(lt), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lt.status().message(), HasSubstr("only EQ and NE"));
}

TEST(EvalElementwiseTest, CompareRejectsBadArguments) {
  absl::StatusOr<Literal> bad = Compare("XX", L("s32[]", "1"), L("s32[]", "1"));
  EXPECT_EQ(Code(bad), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown direction 'XX'"));
  absl::StatusOr<Literal> types = Compare("EQ", L("s32[]", "1"), L("f32[]", "1"));
  EXPECT_EQ(Code(types), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(types.status().message(), HasSubstr("element types differ"));
  absl::StatusOr<Literal> dims = Compare("EQ", L("s32[2]", "{1, 2}"), L("s32[3]", "{1, 2, 3}"));
  EXPECT_EQ(Code(dims), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dims.status().message(), HasSubstr("dimensions differ"));
}

// ---- select and clamp -----------------------------------------------------------

TEST(EvalElementwiseTest, Select) {
  Literal t = L("f32[3]", "{1, nan, 3}"), f = L("f32[3]", "{4, 5, -0}");
  EXPECT_EQ(T(Select(L("pred[3]", "{1, 1, 0}"), t, f)), "f32[3] {1, nan, -0}");
  EXPECT_EQ(T(Select(L("pred[]", "true"), t, f)), "f32[3] {1, nan, 3}");
  EXPECT_EQ(T(Select(L("pred[]", "false"), t, f)), "f32[3] {4, 5, -0}");
  EXPECT_EQ(T(Select(L("pred[2,2]", "{{1, 0}, {0, 1}}"), L("s8[2,2]", "{{1, 2}, {3, 4}}"),
                     L("s8[2,2]", "{{5, 6}, {7, 8}}"))),
            "s8[2,2] { { 1, 6 }, { 7, 4 } }");
  EXPECT_EQ(T(Select(L("pred[1]", "{0}"), L("c64[1]", "{(1, 2)}"), L("c64[1]", "{(3, 4)}"))),
            "c64[1] {(3, 4)}");

  EXPECT_EQ(Code(Select(L("pred[2]", "{1, 0}"), t, f)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Select(L("s32[3]", "{1, 0, 1}"), t, f)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Select(L("pred[]", "true"), t, L("f64[3]", "{1, 2, 3}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(T(Select(L("pred[]", "true"), t, L("f32[2]", "{1, 2}"))), HasSubstr("branches"));
}

TEST(EvalElementwiseTest, Clamp) {
  EXPECT_EQ(T(Clamp(L("s32[]", "0"), L("s32[3]", "{-5, 5, 15}"), L("s32[]", "10"))),
            "s32[3] {0, 5, 10}");
  EXPECT_EQ(
      T(Clamp(L("s32[3]", "{0, 6, 0}"), L("s32[3]", "{-5, 5, 15}"), L("s32[3]", "{1, 7, 9}"))),
      "s32[3] {0, 6, 9}");
  EXPECT_EQ(T(Clamp(L("u8[]", "10"), L("u8[3]", "{200, 5, 50}"), L("u8[]", "100"))),
            "u8[3] {100, 10, 50}");
  EXPECT_EQ(T(Clamp(L("f32[]", "-1"), L("f32[4]", "{nan, -2, 0.5, 2}"), L("f32[]", "1"))),
            "f32[4] {nan, -1, 0.5, 1}");
  EXPECT_EQ(T(Clamp(L("f32[]", "nan"), L("f32[1]", "{0.5}"), L("f32[]", "1"))), "f32[1] {nan}");
  // low > high gives high, as min(max(x, low), high).
  EXPECT_EQ(T(Clamp(L("s8[]", "5"), L("s8[1]", "{0}"), L("s8[]", "3"))), "s8[1] {3}");

  EXPECT_THAT(T(Clamp(L("s64[]", "0"), L("s32[1]", "{1}"), L("s32[]", "1"))),
              HasSubstr("does not fit"));
  EXPECT_EQ(Code(Clamp(L("s32[2]", "{0, 0}"), L("s32[3]", "{1, 2, 3}"), L("s32[]", "1"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Clamp(L("c64[]", "(0, 0)"), L("c64[1]", "{(1, 1)}"), L("c64[]", "(2, 2)"))),
            absl::StatusCode::kInvalidArgument);
}

// ---- convert --------------------------------------------------------------------

TEST(EvalElementwiseTest, ConvertFloatToIntegerTruncatesAndSaturates) {
  EXPECT_EQ(T(Convert(L("f32[7]", "{1.9, -1.9, nan, 3e9, -3e9, inf, -inf}"), PrimitiveType::S32)),
            "s32[7] {1, -1, 0, 2147483647, -2147483648, 2147483647, -2147483648}");
  EXPECT_EQ(T(Convert(L("f32[5]", "{-1, 300, 255.9, nan, -0.9}"), PrimitiveType::U8)),
            "u8[5] {0, 255, 255, 0, 0}");
  EXPECT_EQ(T(Convert(L("f32[3]", "{127.9, -128.9, -200}"), PrimitiveType::S8)),
            "s8[3] {127, -128, -128}");
  EXPECT_EQ(T(Convert(L("f64[3]", "{1e19, -1e19, 9.2233720368547758e18}"), PrimitiveType::S64)),
            "s64[3] {9223372036854775807, -9223372036854775808, 9223372036854775807}");
  EXPECT_EQ(T(Convert(L("f64[3]", "{1e20, 1e19, -5}"), PrimitiveType::U64)),
            "u64[3] {18446744073709551615, 10000000000000000000, 0}");
  EXPECT_EQ(T(Convert(L("f16[2]", "{100, -100}"), PrimitiveType::S4)), "s4[2] {7, -8}");
  EXPECT_EQ(T(Convert(L("bf16[2]", "{inf, 3.5}"), PrimitiveType::U4)), "u4[2] {15, 3}");
}

TEST(EvalElementwiseTest, ConvertBetweenIntegersWraps) {
  EXPECT_EQ(T(Convert(L("s32[3]", "{300, -129, 127}"), PrimitiveType::S8)), "s8[3] {44, 127, 127}");
  EXPECT_EQ(T(Convert(L("s8[2]", "{-1, 5}"), PrimitiveType::U64)),
            "u64[2] {18446744073709551615, 5}");
  EXPECT_EQ(T(Convert(L("u8[1]", "{255}"), PrimitiveType::S8)), "s8[1] {-1}");
  EXPECT_EQ(T(Convert(L("u64[1]", "{18446744073709551615}"), PrimitiveType::S64)), "s64[1] {-1}");
  EXPECT_EQ(T(Convert(L("u32[1]", "{4294967295}"), PrimitiveType::S64)), "s64[1] {4294967295}");
  EXPECT_EQ(T(Convert(L("s32[3]", "{0, 2, -1}"), PrimitiveType::PRED)), "pred[3] {0, 1, 1}");
  EXPECT_EQ(T(Convert(L("pred[2]", "{1, 0}"), PrimitiveType::S32)), "s32[2] {1, 0}");
}

TEST(EvalElementwiseTest, ConvertIntegerToFloatRoundsOnce) {
  EXPECT_EQ(T(Convert(L("s32[3]", "{16777217, 16777219, -16777217}"), PrimitiveType::F32)),
            "f32[3] {16777216, 16777220, -16777216}");
  // 2^60 + 2^36 + 1 is just above the midpoint 2^60 + 2^36 of two f32
  // neighbours: rounding through double first would give 2^60.
  EXPECT_EQ(D(Convert(L("s64[]", "1152921573326323713"), PrimitiveType::F32)),
            1152921642045800448.0);
  EXPECT_EQ(D(Convert(L("s64[]", "-1152921573326323713"), PrimitiveType::F32)),
            -1152921642045800448.0);
  EXPECT_EQ(D(Convert(L("u64[]", "18446744073709551615"), PrimitiveType::F32)),
            18446744073709551616.0);
  EXPECT_EQ(D(Convert(L("u64[]", "18446744073709551615"), PrimitiveType::F64)),
            18446744073709551616.0);
  EXPECT_EQ(D(Convert(L("s64[]", "1152921573326323713"), PrimitiveType::BF16)),
            1152921504606846976.0);  // bf16 keeps 8 bits: 2^60
  EXPECT_EQ(T(Convert(L("s32[2]", "{2049, 70000}"), PrimitiveType::F16)), "f16[2] {2048, inf}");
  EXPECT_EQ(T(Convert(L("s32[1]", "{3}"), PrimitiveType::C64)), "c64[1] {(3, 0)}");
  EXPECT_EQ(T(Convert(L("u8[1]", "{255}"), PrimitiveType::F8E4M3FN)), "f8e4m3fn[1] {256}");
}

TEST(EvalElementwiseTest, ConvertFloatsPredAndComplex) {
  EXPECT_EQ(T(Convert(L("f32[4]", "{0, -0, 0.5, nan}"), PrimitiveType::PRED)),
            "pred[4] {0, 0, 1, 1}");
  EXPECT_EQ(T(Convert(L("pred[2]", "{1, 0}"), PrimitiveType::BF16)), "bf16[2] {1, 0}");
  EXPECT_EQ(T(Convert(L("c64[1]", "{(3, 4)}"), PrimitiveType::F32)), "f32[1] {3}");
  EXPECT_EQ(T(Convert(L("c64[1]", "{(2.7, 9)}"), PrimitiveType::S32)), "s32[1] {2}");
  EXPECT_EQ(T(Convert(L("c64[1]", "{(0, 9)}"), PrimitiveType::PRED)), "pred[1] {0}");
  EXPECT_EQ(T(Convert(L("f32[1]", "{2}"), PrimitiveType::C64)), "c64[1] {(2, 0)}");
  EXPECT_EQ(T(Convert(L("c64[1]", "{(1.5, -2)}"), PrimitiveType::C128)), "c128[1] {(1.5, -2)}");
  // Narrowing floats round to nearest even.
  EXPECT_EQ(T(Convert(L("f32[3]", "{1.00390625, 1.01171875, 70000}"), PrimitiveType::BF16)),
            "bf16[3] {1, 1.016, 7.014e+04}");
  EXPECT_EQ(D(Convert(L("f32[]", "70000"), PrimitiveType::BF16)), 70144.0);
  EXPECT_EQ(T(Convert(L("f32[2]", "{70000, nan}"), PrimitiveType::F16)), "f16[2] {inf, nan}");
  EXPECT_EQ(T(Convert(L("f32[2]", "{448, 1000}"), PrimitiveType::F8E4M3FN)),
            "f8e4m3fn[2] {448, nan}");
  EXPECT_EQ(T(Convert(L("f16[1]", "{0.1}"), PrimitiveType::F32)), "f32[1] {0.0999755859}");
  EXPECT_EQ(Code(Convert(L("f32[1]", "{1}"), PrimitiveType::TOKEN)),
            absl::StatusCode::kInvalidArgument);
}

// ---- bitcast-convert ----------------------------------------------------------------

TEST(EvalElementwiseTest, BitcastF32AndIntegers) {
  EXPECT_EQ(T(BitcastConvert(L("f32[3]", "{1, -2, 0}"), S("s32[3]"))),
            "s32[3] {1065353216, -1073741824, 0}");
  EXPECT_EQ(T(BitcastConvert(L("s32[2]", "{1065353216, -1073741824}"), S("f32[2]"))),
            "f32[2] {1, -2}");
  EXPECT_EQ(T(BitcastConvert(L("f32[4]", "{-2, -0, inf, nan}"), S("u32[4]"))),
            "u32[4] {3221225472, 2147483648, 2139095040, 2143289344}");
  EXPECT_EQ(T(BitcastConvert(L("u32[2]", "{1065353216, 1}"), S("f32[2]"))),
            "f32[2] {1, 1.4013e-45}");
  EXPECT_EQ(T(BitcastConvert(L("f64[2]", "{1, -2}"), S("s64[2]"))),
            "s64[2] {4607182418800017408, -4611686018427387904}");
  EXPECT_EQ(T(BitcastConvert(L("u64[1]", "{9218868437227405312}"), S("f64[1]"))), "f64[1] {inf}");
}

TEST(EvalElementwiseTest, BitcastHalfTypes) {
  EXPECT_EQ(T(BitcastConvert(L("f16[5]", "{1, 65504, 5.96046448e-08, -inf, -0}"), S("u16[5]"))),
            "u16[5] {15360, 31743, 1, 64512, 32768}");
  EXPECT_EQ(T(BitcastConvert(L("bf16[3]", "{1, -2, inf}"), S("u16[3]"))),
            "u16[3] {16256, 49152, 32640}");
  EXPECT_EQ(T(BitcastConvert(L("u16[2]", "{32256, 15360}"), S("f16[2]"))), "f16[2] {nan, 1}");
  EXPECT_EQ(D(BitcastConvert(L("u16[]", "1"), S("bf16[]"))), std::ldexp(1.0, -133));
  EXPECT_EQ(T(BitcastConvert(L("s16[1]", "{-1}"), S("bf16[1]"))), "bf16[1] {-nan}");
}

// Every encoding of the 8- and 16-bit float types survives a round trip.
TEST(EvalElementwiseTest, BitcastRoundTripsEveryPattern) {
  struct Case {
    const char* float_shape;
    const char* int_type;
    int count;
  };
  for (const Case& c :
       {Case{"f16", "u16", 65536}, Case{"bf16", "u16", 65536}, Case{"f8e5m2", "u8", 256},
        Case{"f8e4m3", "u8", 256}, Case{"f8e4m3fn", "u8", 256}, Case{"f8e4m3b11fnuz", "u8", 256},
        Case{"f8e5m2fnuz", "u8", 256}, Case{"f8e4m3fnuz", "u8", 256}, Case{"f8e3m4", "u8", 256},
        Case{"f8e8m0fnu", "u8", 256}, Case{"f4e2m1fn", "u4", 16}}) {
    std::string dims = absl::StrCat("[", c.count, "]");
    Literal bits(S(absl::StrCat(c.int_type, dims)));
    for (int i = 0; i < c.count; ++i) bits.SetFromInt64(i, i);
    absl::StatusOr<Literal> floats = BitcastConvert(bits, S(absl::StrCat(c.float_shape, dims)));
    ASSERT_TRUE(floats.ok()) << c.float_shape << ": " << floats.status();
    absl::StatusOr<Literal> back = BitcastConvert(*floats, bits.shape());
    ASSERT_TRUE(back.ok()) << c.float_shape << ": " << back.status();
    int mismatches = 0;
    for (int i = 0; i < c.count; ++i)
      if (back->GetAsInt64(i) != i && mismatches++ < 5)
        ADD_FAILURE() << c.float_shape << " pattern " << i << " came back as "
                      << back->GetAsInt64(i);
  }
  // f32: a few patterns, including a NaN payload and -NaN.
  Literal f32_bits = L("u32[6]", "{0, 1, 8388608, 2139095039, 2143289345, 4290772992}");
  absl::StatusOr<Literal> f32 = BitcastConvert(f32_bits, S("f32[6]"));
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(T(BitcastConvert(*f32, S("u32[6]"))), absl::StrCat("u32[6] ", f32_bits.ToText()));
}

TEST(EvalElementwiseTest, BitcastF8Encodings) {
  EXPECT_EQ(T(BitcastConvert(L("f8e4m3fn[4]", "{1, 448, nan, -0.5}"), S("u8[4]"))),
            "u8[4] {56, 126, 127, 176}");
  EXPECT_EQ(T(BitcastConvert(L("f8e5m2[3]", "{1, inf, -2}"), S("u8[3]"))), "u8[3] {60, 124, 192}");
  EXPECT_EQ(T(BitcastConvert(L("f8e4m3fnuz[2]", "{nan, 1}"), S("u8[2]"))), "u8[2] {128, 64}");
  EXPECT_EQ(T(BitcastConvert(L("f8e4m3b11fnuz[1]", "{1}"), S("u8[1]"))), "u8[1] {88}");
  EXPECT_EQ(T(BitcastConvert(L("f8e8m0fnu[3]", "{1, 0.5, nan}"), S("u8[3]"))),
            "u8[3] {127, 126, 255}");
  // Narrow to wide: element k of the minor dimension is at bit 4k.
  EXPECT_EQ(T(BitcastConvert(L("f4e2m1fn[1,2]", "{{1, 6}}"), S("u8[1]"))), "u8[1] {114}");
}

TEST(EvalElementwiseTest, BitcastBetweenWidths) {
  EXPECT_EQ(T(BitcastConvert(L("u32[1]", "{305419896}"), S("u16[1,2]"))),
            "u16[1,2] { { 22136, 4660 } }");  // 0x12345678 -> 0x5678, 0x1234
  EXPECT_EQ(T(BitcastConvert(L("u8[2,4]", "{{1, 2, 3, 4}, {255, 255, 255, 255}}"), S("u32[2]"))),
            "u32[2] {67305985, 4294967295}");
  EXPECT_EQ(T(BitcastConvert(L("f32[1]", "{1}"), S("u8[1,4]"))), "u8[1,4] { { 0, 0, 128, 63 } }");
  EXPECT_EQ(T(BitcastConvert(L("s8[2]", "{-15, 33}"), S("s4[2,2]"))),
            "s4[2,2] { { 1, -1 }, { 1, 2 } }");
  EXPECT_EQ(T(BitcastConvert(L("s4[1,2]", "{{1, -1}}"), S("s8[1]"))), "s8[1] {-15}");
  EXPECT_EQ(T(BitcastConvert(L("c64[1]", "{(1, 2)}"), S("f32[1,2]"))), "f32[1,2] { { 1, 2 } }");
  EXPECT_EQ(T(BitcastConvert(L("c64[1]", "{(1, 0)}"), S("s64[1]"))), "s64[1] {1065353216}");
  EXPECT_EQ(T(BitcastConvert(L("c128[]", "(1, -2)"), S("s64[2]"))),
            "s64[2] {4607182418800017408, -4611686018427387904}");
  EXPECT_EQ(
      T(BitcastConvert(L("s64[2]", "{4607182418800017408, -4611686018427387904}"), S("c128[]"))),
      "c128[] (1, -2)");
  EXPECT_EQ(T(BitcastConvert(L("u8[1]", "{141}"), S("u1[1,8]"))),
            "u1[1,8] { { 1, 0, 1, 1, 0, 0, 0, 1 } }");
  EXPECT_EQ(T(BitcastConvert(L("u1[1,8]", "{{1, 0, 1, 1, 0, 0, 0, 1}}"), S("u8[1]"))),
            "u8[1] {141}");
  EXPECT_EQ(T(BitcastConvert(L("pred[2]", "{1, 0}"), S("s8[2]"))), "s8[2] {1, 0}");
}

TEST(EvalElementwiseTest, BitcastRejectsMismatchedShapes) {
  absl::StatusOr<Literal> widths = BitcastConvert(L("f32[2]", "{1, 2}"), S("s16[2]"));
  EXPECT_EQ(Code(widths), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(widths.status().message(), HasSubstr("extra minor dimension"));
  EXPECT_EQ(Code(BitcastConvert(L("s32[2]", "{1, 2}"), S("f32[3]"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(T(BitcastConvert(L("u8[2,3]", "{{1, 2, 3}, {4, 5, 6}}"), S("u32[2]"))),
              HasSubstr("must have size 4"));
  EXPECT_EQ(Code(BitcastConvert(L("u8[2,4]", "{{1, 2, 3, 4}, {5, 6, 7, 8}}"), S("u32[3]"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(BitcastConvert(L("s32[1]", "{1}"), S("(s32[1])"))),
            absl::StatusCode::kInvalidArgument);
}

// ---- errors ---------------------------------------------------------------------

TEST(EvalElementwiseTest, UnsupportedCombinationsAreInvalidArgument) {
  absl::StatusOr<Literal> exp_int = Unary(HloOpcode::kExp, L("s32[1]", "{1}"));
  EXPECT_EQ(Code(exp_int), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(exp_int.status().message(), HasSubstr("exponential"));
  EXPECT_THAT(exp_int.status().message(), HasSubstr("s32"));
  EXPECT_EQ(Code(Binary(HloOpcode::kShiftLeft, L("f32[1]", "{1}"), L("f32[1]", "{1}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Binary(HloOpcode::kAnd, L("f32[1]", "{1}"), L("f32[1]", "{1}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Binary(HloOpcode::kAtan2, L("s32[1]", "{1}"), L("s32[1]", "{1}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Binary(HloOpcode::kComplex, L("s32[1]", "{1}"), L("s32[1]", "{1}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Binary(HloOpcode::kRemainder, L("c64[1]", "{(1, 1)}"), L("c64[1]", "{(1, 1)}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Binary(HloOpcode::kMaximum, L("c64[1]", "{(1, 1)}"), L("c64[1]", "{(1, 1)}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Unary(HloOpcode::kPopulationCount, L("pred[1]", "{1}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Unary(HloOpcode::kFloor, L("s32[1]", "{1}"))), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Unary(HloOpcode::kIsFinite, L("c64[1]", "{(1, 1)}"))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Unary(HloOpcode::kNot, L("f32[1]", "{1}"))), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Unary(HloOpcode::kErf, L("c64[1]", "{(1, 1)}"))),
            absl::StatusCode::kInvalidArgument);
  // Not elementwise at all.
  EXPECT_THAT(T(Unary(HloOpcode::kAdd, L("f32[1]", "{1}"))), HasSubstr("not an elementwise unary"));
  EXPECT_THAT(T(Binary(HloOpcode::kNegate, L("f32[1]", "{1}"), L("f32[1]", "{1}"))),
              HasSubstr("not an elementwise binary"));
  // reduce-precision needs attributes the interface does not carry.
  EXPECT_EQ(Code(Unary(HloOpcode::kReducePrecision, L("f32[1]", "{1}"))),
            absl::StatusCode::kUnimplemented);
}

TEST(EvalElementwiseTest, OperandChecks) {
  absl::StatusOr<Literal> types = Binary(HloOpcode::kAdd, L("s32[1]", "{1}"), L("s64[1]", "{1}"));
  EXPECT_EQ(Code(types), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(types.status().message(), HasSubstr("element types differ"));
  absl::StatusOr<Literal> dims =
      Binary(HloOpcode::kAdd, L("s32[2]", "{1, 2}"), L("s32[1,2]", "{{1, 2}}"));
  EXPECT_EQ(Code(dims), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dims.status().message(), HasSubstr("dimensions differ"));
  absl::StatusOr<Literal> elided = Unary(HloOpcode::kNegate, L("f32[3]", "{...}"));
  EXPECT_EQ(Code(elided), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(elided.status().message(), HasSubstr("elided"));
  Literal tuple(S("(f32[], s32[])"));
  EXPECT_EQ(Code(Unary(HloOpcode::kNegate, tuple)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Convert(tuple, PrimitiveType::F32)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Code(Select(L("pred[]", "true"), tuple, tuple)), absl::StatusCode::kInvalidArgument);
  // Empty arrays: valid operations give empty results, invalid ones still fail.
  EXPECT_EQ(U(HloOpcode::kExp, L("f32[0]", "{}")), "f32[0] {}");
  EXPECT_EQ(Code(Unary(HloOpcode::kExp, L("s32[0]", "{}"))), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(B(HloOpcode::kAdd, L("s8[2,0]", "{ {}, {} }"), L("s8[2,0]", "{ {}, {} }")),
            "s8[2,0] { {}, {} }");
}

TEST(EvalElementwiseTest, ResultsKeepDimensions) {
  EXPECT_EQ(
      B(HloOpcode::kAdd, L("s32[2,2]", "{{1, 2}, {3, 4}}"), L("s32[2,2]", "{{10, 20}, {30, 40}}")),
      "s32[2,2] { { 11, 22 }, { 33, 44 } }");
  EXPECT_EQ(T(Compare("LT", L("f32[2,1]", "{{1}, {2}}"), L("f32[2,1]", "{{2}, {1}}"))),
            "pred[2,1] { {1}, {0} }");
  EXPECT_EQ(U(HloOpcode::kAbs, L("c128[]", "(0, -3)")), "f64[] 3");
}

// Every opcode on every element type, with extreme values: a result or a
// clear error, never a crash (run under sanitizers to check for UB).
TEST(EvalElementwiseTest, EveryOpcodeAndTypeGivesAResultOrAnError) {
  std::vector<PrimitiveType> types;
#define PRIMITIVE_TYPE(name, spelling, bits, kind) \
  if (kind != 'x') types.push_back(PrimitiveType::name);
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
  const std::vector<int64_t> ints = {0,
                                     1,
                                     -1,
                                     2,
                                     7,
                                     63,
                                     64,
                                     127,
                                     -128,
                                     255,
                                     std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max()};
  const std::vector<double> floats = {0.0,
                                      -0.0,
                                      1.0,
                                      -1.5,
                                      0.5,
                                      3.0,
                                      1e30,
                                      -1e-30,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::nan(""),
                                      65504.0};
  auto values = [&](PrimitiveType type, bool reversed) {
    Literal literal(Shape(type, {12}));
    for (int64_t i = 0; i < 12; ++i) {
      int64_t k = reversed ? 11 - i : i;
      if (IsFloatingPointType(type) || IsComplexType(type))
        literal.SetFromComplex(k, {floats[i], floats[(i + 5) % 12]});
      else
        literal.SetFromInt64(k, ints[i]);
    }
    return literal;
  };
  auto acceptable = [](const absl::Status& status) {
    return status.ok() || status.code() == absl::StatusCode::kInvalidArgument ||
           status.code() == absl::StatusCode::kUnimplemented;
  };
  int results = 0;
  for (PrimitiveType type : types) {
    Literal a = values(type, false), b = values(type, true);
    for (int op = 0; op < kHloOpcodeCount; ++op) {
      HloOpcode opcode = static_cast<HloOpcode>(op);
      absl::StatusOr<Literal> unary = Unary(opcode, a);
      EXPECT_TRUE(acceptable(unary.status())) << unary.status();
      absl::StatusOr<Literal> binary = Binary(opcode, a, b);
      EXPECT_TRUE(acceptable(binary.status())) << binary.status();
      results += unary.ok() + binary.ok();
    }
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"})
      for (bool total : {false, true})
        EXPECT_TRUE(acceptable(Compare(direction, a, b, total).status()));
    EXPECT_TRUE(acceptable(Clamp(b, a, b).status()));
    EXPECT_TRUE(Select(L("pred[]", "true"), a, b).ok());
    for (PrimitiveType to : types) {
      absl::StatusOr<Literal> converted = Convert(a, to);
      EXPECT_TRUE(converted.ok()) << PrimitiveTypeString(type) << " -> " << PrimitiveTypeString(to)
                                  << ": " << converted.status();
      if (PrimitiveTypeBitWidth(to) == PrimitiveTypeBitWidth(type)) {
        absl::StatusOr<Literal> cast = BitcastConvert(a, Shape(to, {12}));
        EXPECT_TRUE(cast.ok()) << PrimitiveTypeString(type) << " -> " << PrimitiveTypeString(to)
                               << ": " << cast.status();
      }
    }
  }
  EXPECT_GT(results, 500);
}

}  // namespace
}  // namespace eval
}  // namespace hopt

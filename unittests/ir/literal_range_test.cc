// SPDX-License-Identifier: Apache-2.0
// Literal values out of range for their element type are refused as XLA's
// text reader refuses them, instead of wrapping (s8 300 used to be 44).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;

absl::Status Read(PrimitiveType type, const std::string& text) {
  return Literal::Parse(Shape(type, {}), text).status();
}

TEST(LiteralRangeTest, SignedIntegersKeepToTheirRange) {
  EXPECT_TRUE(Read(PrimitiveType::S8, "127").ok());
  EXPECT_TRUE(Read(PrimitiveType::S8, "-128").ok());
  EXPECT_EQ(Read(PrimitiveType::S8, "300").message(),
            "value 300 is out of range for s8 (-128 to 127)");
  EXPECT_THAT(Read(PrimitiveType::S8, "-129").message(), HasSubstr("out of range for s8"));
  EXPECT_THAT(Read(PrimitiveType::S4, "8").message(), HasSubstr("s4 (-8 to 7)"));
  EXPECT_THAT(Read(PrimitiveType::S32, "2147483648").message(), HasSubstr("out of range for s32"));
  EXPECT_TRUE(Read(PrimitiveType::S64, "-9223372036854775808").ok());
}

TEST(LiteralRangeTest, UnsignedIntegersRefuseNegativesBelow64Bits) {
  EXPECT_TRUE(Read(PrimitiveType::U8, "255").ok());
  EXPECT_EQ(Read(PrimitiveType::U8, "256").message(),
            "value 256 is out of range for u8 (0 to 255)");
  EXPECT_THAT(Read(PrimitiveType::U8, "-1").message(),
              HasSubstr("value -1 is out of range for u8"));
  EXPECT_THAT(Read(PrimitiveType::U4, "16").message(), HasSubstr("u4 (0 to 15)"));
  EXPECT_THAT(Read(PrimitiveType::U32, "-1").message(), HasSubstr("out of range for u32"));
  // XLA reads the value as a signed 64-bit integer first: -1 is u64's max.
  absl::StatusOr<Literal> wrapped = Literal::Parse(Shape(PrimitiveType::U64, {}), "-1");
  ASSERT_TRUE(wrapped.ok()) << wrapped.status();
  EXPECT_EQ(wrapped->ToText(), "18446744073709551615");
  EXPECT_TRUE(Read(PrimitiveType::U64, "18446744073709551615").ok());
}

TEST(LiteralRangeTest, FiniteFloatsThatOnlyFitAsInfinityAreRefused) {
  EXPECT_TRUE(Read(PrimitiveType::F16, "65504").ok());
  EXPECT_TRUE(Read(PrimitiveType::F16, "65519").ok());  // rounds down to 65504
  EXPECT_THAT(Read(PrimitiveType::F16, "-65520").message(),
              HasSubstr("value -65520 is out of range for f16 (largest finite value 65504)"));
  EXPECT_THAT(Read(PrimitiveType::BF16, "1e100").message(), HasSubstr("out of range for bf16"));
  EXPECT_THAT(Read(PrimitiveType::F64, "1.8e308").message(), HasSubstr("out of range for f64"));
  EXPECT_THAT(Read(PrimitiveType::F8E4M3FN, "1000").message(), HasSubstr("out of range"));
  // Spelled as such, infinity and NaN are values like any other.
  EXPECT_TRUE(Read(PrimitiveType::F16, "-inf").ok());
  EXPECT_TRUE(Read(PrimitiveType::BF16, "nan").ok());
}

TEST(LiteralRangeTest, TheParserPointsAtTheConstant) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule("HloModule m\nENTRY e {\n  ROOT c = s8[2] constant({1, 300})\n}\n", "t.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("t.hlo:3:27: error: value 300 is out of range for s8 (-128 to 127)"));
}

TEST(LiteralRangeTest, ValuesWithNothingToPrintPrintTheirKind) {
  EXPECT_EQ(Literal(Shape::MakeToken()).ToText(), "token");
  Shape opaque;
  opaque.set_element_type(PrimitiveType::OPAQUE_TYPE);
  EXPECT_EQ(Literal(opaque).ToText(), "opaque");
  EXPECT_EQ(Literal(Shape::MakeBuffer(Shape(PrimitiveType::F32, {4}))).ToText(), "(no value)");
}

}  // namespace
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/ir/shape.h: element types, XLA's shape spelling (through
// ParseShape and Shape::ToString), shape comparison and element counts.

#include "hopt/ir/shape.h"

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/parser.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;

struct TypeRow {
  PrimitiveType type;
  const char* spelling;
  int bits;
  char kind;
};

// Every row of primitive_types.def, read through the same X-macro the core
// uses, so a type added there is covered here automatically.
const std::vector<TypeRow>& AllTypes() {
  static const auto* const kRows = new std::vector<TypeRow>{
#define PRIMITIVE_TYPE(name, spelling, bits, kind) {PrimitiveType::name, spelling, bits, kind},
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
  };
  return *kRows;
}

Shape MustParse(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << "ParseShape(\"" << text << "\"): " << shape.status();
  return shape.ok() ? *shape : Shape();
}

// ---------------------------------------------------------------------------
// Element types

TEST(PrimitiveTypeTest, EverySpellingRoundTrips) {
  ASSERT_GE(AllTypes().size(), 30u);
  for (const TypeRow& row : AllTypes()) {
    SCOPED_TRACE(row.spelling);
    EXPECT_EQ(PrimitiveTypeString(row.type), row.spelling);
    std::optional<PrimitiveType> parsed = StringToPrimitiveType(row.spelling);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, row.type);
    EXPECT_EQ(PrimitiveTypeString(*parsed), row.spelling);
  }
}

TEST(PrimitiveTypeTest, SpellingsAreDistinct) {
  std::set<std::string> seen;
  for (const TypeRow& row : AllTypes())
    EXPECT_TRUE(seen.insert(row.spelling).second) << "duplicate spelling " << row.spelling;
}

TEST(PrimitiveTypeTest, BitWidthAndKindPredicatesFollowTheTable) {
  for (const TypeRow& row : AllTypes()) {
    SCOPED_TRACE(row.spelling);
    EXPECT_EQ(PrimitiveTypeBitWidth(row.type), row.bits);
    EXPECT_EQ(IsFloatingPointType(row.type), row.kind == 'f');
    EXPECT_EQ(IsSignedIntegralType(row.type), row.kind == 's');
    EXPECT_EQ(IsUnsignedIntegralType(row.type), row.kind == 'u');
    EXPECT_EQ(IsIntegralType(row.type), row.kind == 's' || row.kind == 'u');
    EXPECT_EQ(IsComplexType(row.type), row.kind == 'c');
    EXPECT_EQ(IsArrayType(row.type), row.kind != 'x');
  }
  EXPECT_FALSE(IsArrayType(PrimitiveType::INVALID));
  EXPECT_FALSE(IsArrayType(PrimitiveType::TUPLE));
}

TEST(PrimitiveTypeTest, SpotChecksAgainstXlaSpellings) {
  EXPECT_EQ(StringToPrimitiveType("pred"), PrimitiveType::PRED);
  EXPECT_EQ(StringToPrimitiveType("bf16"), PrimitiveType::BF16);
  EXPECT_EQ(StringToPrimitiveType("f8e4m3fn"), PrimitiveType::F8E4M3FN);
  EXPECT_EQ(StringToPrimitiveType("c128"), PrimitiveType::C128);
  EXPECT_EQ(StringToPrimitiveType("token"), PrimitiveType::TOKEN);
  EXPECT_EQ(PrimitiveTypeBitWidth(PrimitiveType::F32), 32);
  EXPECT_EQ(PrimitiveTypeBitWidth(PrimitiveType::S4), 4);
}

TEST(PrimitiveTypeTest, UnknownSpellingsAreRejected) {
  for (absl::string_view bad :
       {"", "F32", "f31", "float", "f32 ", "s", "tuple", "invalid", "f32[]"}) {
    EXPECT_FALSE(StringToPrimitiveType(bad).has_value()) << "'" << bad << "'";
  }
}

// ---------------------------------------------------------------------------
// Parsing and printing

struct RoundTripCase {
  const char* input;
  const char* printed;            // ToString()
  const char* printed_no_layout;  // ToString(false)
};

TEST(ShapeTextTest, ParseAndPrint) {
  const RoundTripCase cases[] = {
      // Arrays get XLA's default (descending) layout when none is written.
      {"f32[2,3]", "f32[2,3]{1,0}", "f32[2,3]"},
      {"f32[2,3]{1,0}", "f32[2,3]{1,0}", "f32[2,3]"},
      {"f32[2,3]{0,1}", "f32[2,3]{0,1}", "f32[2,3]"},
      {"s8[4,5,6]{0,2,1}", "s8[4,5,6]{0,2,1}", "s8[4,5,6]"},
      {"pred[7]", "pred[7]{0}", "pred[7]"},
      {"bf16[0]", "bf16[0]{0}", "bf16[0]"},
      // Scalars print without an empty layout.
      {"f32[]", "f32[]", "f32[]"},
      {"u32[]", "u32[]", "u32[]"},
      // Tokens.
      {"token[]", "token[]", "token[]"},
      // Tuples.
      {"()", "()", "()"},
      {"(f32[], s32[4])", "(f32[], s32[4]{0})", "(f32[], s32[4])"},
      {"((f32[2]{0}, token[]), u8[], (()))", "((f32[2]{0}, token[]), u8[], (()))",
       "((f32[2], token[]), u8[], (()))"},
      // Bounded and unbounded dynamic dimensions.
      {"s32[<=4]", "s32[<=4]{0}", "s32[<=4]"},
      {"f32[<=4,3]", "f32[<=4,3]{1,0}", "f32[<=4,3]"},
      {"f32[?,3]", "f32[?,3]{1,0}", "f32[?,3]"},
      {"f32[?,<=8,2]{0,1,2}", "f32[?,<=8,2]{0,1,2}", "f32[?,<=8,2]"},
      // Layout details after ':' are kept verbatim.
      {"f32[8,128]{1,0:T(8,128)}", "f32[8,128]{1,0:T(8,128)}", "f32[8,128]"},
      {"bf16[4,256]{0,1:T(8,128)(2,1)}", "bf16[4,256]{0,1:T(8,128)(2,1)}", "bf16[4,256]"},
      {"f32[16]{0:T(8)M(1024)}", "f32[16]{0:T(8)M(1024)}", "f32[16]"},
      {"f32[2,3]{1,0:S(1)}", "f32[2,3]{1,0:S(1)}", "f32[2,3]"},
      {"s8[]{:T(128)}", "s8[]{:T(128)}", "s8[]"},
      // Buffers of arrays.
      {"b(f32[16])", "b(f32[16]{0})", "b(f32[16])"},
      {"b(s32[2,2]{0,1})", "b(s32[2,2]{0,1})", "b(s32[2,2])"},
      {"(b(f32[16]), f32[16])", "(b(f32[16]{0}), f32[16]{0})", "(b(f32[16]), f32[16])"},
      // White space inside a shape is not significant.
      {"( f32[ 2 , 3 ] , token[] )", "(f32[2,3]{1,0}, token[])", "(f32[2,3], token[])"},
  };
  for (const RoundTripCase& c : cases) {
    SCOPED_TRACE(c.input);
    Shape shape = MustParse(c.input);
    EXPECT_EQ(shape.ToString(), c.printed);
    EXPECT_EQ(shape.ToString(/*print_layout=*/false), c.printed_no_layout);
    // What is printed parses back to the same shape.
    Shape again = MustParse(shape.ToString());
    EXPECT_EQ(again, shape) << again.ToString();
  }
}

TEST(ShapeTextTest, ArrayAccessors) {
  Shape shape = MustParse("f32[2,3]{0,1}");
  EXPECT_TRUE(shape.IsArray());
  EXPECT_FALSE(shape.IsScalar());
  EXPECT_FALSE(shape.IsTuple());
  EXPECT_EQ(shape.element_type(), PrimitiveType::F32);
  EXPECT_EQ(shape.rank(), 2);
  EXPECT_THAT(shape.dimensions(), ::testing::ElementsAre(2, 3));
  EXPECT_TRUE(shape.has_layout());
  EXPECT_THAT(shape.minor_to_major(), ::testing::ElementsAre(0, 1));
  EXPECT_FALSE(shape.HasDefaultLayout());
  EXPECT_TRUE(shape.is_static());

  Shape default_layout = MustParse("f32[2,3]");
  EXPECT_TRUE(default_layout.HasDefaultLayout());
  EXPECT_THAT(default_layout.minor_to_major(), ::testing::ElementsAre(1, 0));
}

TEST(ShapeTextTest, ScalarHasNoDimensions) {
  Shape scalar = MustParse("f32[]");
  EXPECT_TRUE(scalar.IsScalar());
  EXPECT_TRUE(scalar.IsArray());
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(Shape::MakeScalar(PrimitiveType::S32).ToString(), "s32[]");
}

TEST(ShapeTextTest, TupleAccessors) {
  Shape tuple = MustParse("((f32[2]{0}, token[]), u8[])");
  ASSERT_TRUE(tuple.IsTuple());
  EXPECT_FALSE(tuple.IsArray());
  ASSERT_EQ(tuple.tuple_shapes_size(), 2);
  ASSERT_TRUE(tuple.tuple_shapes(0).IsTuple());
  EXPECT_EQ(tuple.tuple_shapes(0).tuple_shapes(0).ToString(), "f32[2]{0}");
  EXPECT_TRUE(tuple.tuple_shapes(0).tuple_shapes(1).IsToken());
  EXPECT_TRUE(tuple.tuple_shapes(1).IsScalar());
  EXPECT_EQ(tuple.tuple_shapes(1).element_type(), PrimitiveType::U8);
}

// XLA annotates every fifth tuple element with its index.
TEST(ShapeTextTest, LongTuplesCarryIndexComments) {
  std::vector<Shape> six(6, Shape::MakeScalar(PrimitiveType::F32));
  EXPECT_EQ(Shape::MakeTuple(six).ToString(),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
  EXPECT_EQ(
      Shape::MakeTuple(std::vector<Shape>(5, Shape::MakeScalar(PrimitiveType::F32))).ToString(),
      "(f32[], f32[], f32[], f32[], f32[])");

  std::vector<Shape> eleven;
  for (int i = 0; i < 11; ++i) eleven.push_back(Shape(PrimitiveType::S32, {i + 1}));
  std::string expected = "(";
  for (int i = 0; i < 11; ++i) {
    if (i) expected += ", ";
    if (i == 5 || i == 10) absl::StrAppend(&expected, "/*index=", i, "*/");
    absl::StrAppend(&expected, "s32[", i + 1, "]{0}");
  }
  expected += ")";
  Shape shape = Shape::MakeTuple(eleven);
  EXPECT_EQ(shape.ToString(), expected);

  // The annotations are comments: the printed text parses back.
  Shape parsed = MustParse(expected);
  EXPECT_EQ(parsed, shape);
  EXPECT_EQ(parsed.tuple_shapes_size(), 11);

  // Nested tuples number their own elements.
  Shape nested = Shape::MakeTuple({Shape::MakeTuple(six)});
  EXPECT_EQ(nested.ToString(), "((f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]))");
}

TEST(ShapeTextTest, TokenShape) {
  Shape token = MustParse("token[]");
  EXPECT_TRUE(token.IsToken());
  EXPECT_FALSE(token.IsArray());
  EXPECT_EQ(token, Shape::MakeToken());
  EXPECT_EQ(Shape::MakeToken().ToString(), "token[]");
}

TEST(ShapeTextTest, BoundedDynamicDimension) {
  Shape shape = MustParse("s32[<=4,2]");
  EXPECT_TRUE(shape.is_dynamic_dimension(0));
  EXPECT_FALSE(shape.is_dynamic_dimension(1));
  EXPECT_EQ(shape.dimensions(0), 4);
  EXPECT_FALSE(shape.is_static());
  // The bound counts.
  EXPECT_EQ(shape.ElementCount(), 8);
  // A tuple holding a dynamic array is not static either.
  EXPECT_FALSE(Shape::MakeTuple({shape}).is_static());
  EXPECT_TRUE(Shape::MakeTuple({MustParse("s32[4,2]")}).is_static());
}

TEST(ShapeTextTest, UnboundedDynamicDimension) {
  Shape shape = MustParse("f32[?,3]");
  EXPECT_EQ(shape.dimensions(0), Shape::kUnboundedSize);
  EXPECT_TRUE(shape.is_dynamic_dimension(0));
  EXPECT_FALSE(shape.is_dynamic_dimension(1));
  EXPECT_FALSE(shape.is_static());
  // Built through the API, kUnboundedSize is marked dynamic too.
  Shape built(PrimitiveType::F32, {Shape::kUnboundedSize, 3});
  EXPECT_TRUE(built.is_dynamic_dimension(0));
  EXPECT_EQ(built.ToString(), "f32[?,3]{1,0}");
  EXPECT_EQ(built, shape);
}

TEST(ShapeTextTest, LayoutTailIsKeptVerbatim) {
  Shape shape = MustParse("f32[8,128]{1,0:T(8,128)}");
  EXPECT_THAT(shape.minor_to_major(), ::testing::ElementsAre(1, 0));
  EXPECT_EQ(shape.layout_tail(), "T(8,128)");
  EXPECT_FALSE(shape.HasDefaultLayout());

  Shape built(PrimitiveType::F32, {8, 128});
  built.set_layout({1, 0}, "T(8,128)");
  EXPECT_EQ(built.ToString(), "f32[8,128]{1,0:T(8,128)}");
  EXPECT_EQ(built, shape);
}

TEST(ShapeTextTest, BufferShape) {
  Shape buffer = MustParse("b(f32[16])");
  ASSERT_TRUE(buffer.IsBuffer());
  EXPECT_FALSE(buffer.IsArray());
  EXPECT_FALSE(buffer.IsTuple());
  ASSERT_EQ(buffer.tuple_shapes_size(), 1);
  EXPECT_EQ(buffer.tuple_shapes(0).ToString(), "f32[16]{0}");
  EXPECT_EQ(Shape::MakeBuffer(Shape(PrimitiveType::F32, {16})), buffer);
}

TEST(ShapeTextTest, BuiltShapesPrintLikeParsedOnes) {
  EXPECT_EQ(Shape(PrimitiveType::BF16, {4, 8}).ToString(), "bf16[4,8]{1,0}");
  Shape no_layout(PrimitiveType::F32, {4, 8});
  no_layout.ClearLayout();
  EXPECT_FALSE(no_layout.has_layout());
  EXPECT_EQ(no_layout.ToString(), "f32[4,8]");
  no_layout.EnsureLayout();
  EXPECT_EQ(no_layout.ToString(), "f32[4,8]{1,0}");

  Shape tuple = Shape::MakeTuple({no_layout, Shape::MakeToken()});
  tuple.ClearLayout();
  EXPECT_EQ(tuple.ToString(), "(f32[4,8], token[])");
  tuple.EnsureLayout();
  EXPECT_EQ(tuple.ToString(), "(f32[4,8]{1,0}, token[])");
}

// ---------------------------------------------------------------------------
// Comparison

TEST(ShapeCompareTest, CompatibleIgnoresLayoutButEqualityDoesNot) {
  Shape row_major = MustParse("f32[2,3]{1,0}");
  Shape col_major = MustParse("f32[2,3]{0,1}");
  Shape tiled = MustParse("f32[2,3]{1,0:T(2,128)}");
  EXPECT_TRUE(row_major.Compatible(col_major));
  EXPECT_TRUE(col_major.Compatible(row_major));
  EXPECT_TRUE(row_major.Compatible(tiled));
  EXPECT_NE(row_major, col_major);
  EXPECT_NE(row_major, tiled);
  EXPECT_EQ(row_major, MustParse("f32[2,3]"));
  EXPECT_EQ(row_major, Shape(PrimitiveType::F32, {2, 3}));

  Shape cleared = row_major;
  cleared.ClearLayout();
  EXPECT_TRUE(cleared.Compatible(row_major));
  EXPECT_NE(cleared, row_major);
}

TEST(ShapeCompareTest, ElementTypeAndDimensionsMatter) {
  Shape f32 = MustParse("f32[2,3]");
  EXPECT_FALSE(f32.Compatible(MustParse("s32[2,3]")));
  EXPECT_FALSE(f32.Compatible(MustParse("f32[3,2]")));
  EXPECT_FALSE(f32.Compatible(MustParse("f32[6]")));
  EXPECT_FALSE(f32.Compatible(MustParse("f32[2,3,1]")));
  EXPECT_FALSE(f32.Compatible(MustParse("(f32[2,3])")));
  EXPECT_NE(f32, MustParse("s32[2,3]"));
}

TEST(ShapeCompareTest, DynamicnessMatters) {
  Shape bounded = MustParse("s32[<=4]");
  Shape fixed = MustParse("s32[4]");
  EXPECT_FALSE(bounded.Compatible(fixed));
  EXPECT_NE(bounded, fixed);
  EXPECT_FALSE(MustParse("f32[?]").Compatible(bounded));
}

TEST(ShapeCompareTest, TuplesCompareElementwise) {
  Shape a = MustParse("(f32[2,3]{1,0}, token[])");
  Shape b = MustParse("(f32[2,3]{0,1}, token[])");
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_NE(a, b);
  EXPECT_EQ(a, MustParse("(f32[2,3], token[])"));
  EXPECT_FALSE(a.Compatible(MustParse("(f32[2,3])")));
  EXPECT_FALSE(a.Compatible(MustParse("(f32[2,3], f32[])")));
  EXPECT_FALSE(a.Compatible(MustParse("((f32[2,3], token[]))")));
}

TEST(ShapeCompareTest, Buffers) {
  EXPECT_TRUE(MustParse("b(f32[16]{0})").Compatible(MustParse("b(f32[16])")));
  EXPECT_FALSE(MustParse("b(f32[16])").Compatible(MustParse("f32[16]")));
  EXPECT_FALSE(MustParse("b(f32[16])").Compatible(MustParse("b(f32[8])")));
}

TEST(ShapeTest, ElementCount) {
  EXPECT_EQ(MustParse("f32[2,3,4]").ElementCount(), 24);
  EXPECT_EQ(MustParse("f32[]").ElementCount(), 1);
  EXPECT_EQ(MustParse("f32[0,5]").ElementCount(), 0);
  EXPECT_EQ(MustParse("pred[7]{0}").ElementCount(), 7);
  EXPECT_EQ(MustParse("s32[<=4,2]").ElementCount(), 8);
  EXPECT_EQ(Shape(PrimitiveType::F64, {1000, 1000, 10}).ElementCount(), 10000000);
}

// ---------------------------------------------------------------------------
// Malformed shapes

void ExpectBadShape(absl::string_view text, absl::string_view phrase) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  ASSERT_FALSE(shape.ok()) << "'" << text << "' parsed as " << shape->ToString();
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr(std::string(phrase)))
      << "for '" << text << "'";
}

// Text ParseShape refuses, and a phrase its message must hold ("" where
// any message will do).
struct BadShapeCase {
  const char* name;
  const char* text;
  const char* phrase;
};

// Failures and --gtest_list_tests show the case's name.
void PrintTo(const BadShapeCase& c, std::ostream* os) { *os << c.name; }

class ShapeErrorTableTest : public ::testing::TestWithParam<BadShapeCase> {};

TEST_P(ShapeErrorTableTest, IsRefusedWithThePhrase) {
  ExpectBadShape(GetParam().text, GetParam().phrase);
}

INSTANTIATE_TEST_SUITE_P(
    ShapeErrorTest, ShapeErrorTableTest,
    ::testing::Values(
        BadShapeCase{"UnknownElementType", "g32[2]", "unknown element type 'g32'"},
        BadShapeCase{"UnknownElementTypeFloat", "float[2]", "unknown element type 'float'"},
        BadShapeCase{"UnknownElementTypeUppercase", "F32[2]", "unknown element type"},
        BadShapeCase{"MissingClosingBracket", "f32[2", "']'"},
        BadShapeCase{"MissingClosingBracketRank2", "f32[2,3", "']'"},
        BadShapeCase{"MissingClosingBracketNoDimension", "f32[", ""},
        BadShapeCase{"LayoutOfLowerRank", "f32[2,3]{0}", "layout"},
        BadShapeCase{"LayoutOfHigherRank", "f32[2]{1,0}", "layout"},
        BadShapeCase{"LayoutOnAScalar", "f32[]{0}", "layout"},
        // An array layout lists every dimension once: `{}` on a rank-2
        // array is a layout of the wrong rank (only scalars have an empty
        // minor_to_major).
        BadShapeCase{"EmptyLayoutOnANonScalarIsTheWrongRank", "f32[2,3]{}", "layout"},
        BadShapeCase{"LayoutMustBeAPermutation", "f32[2,2]{0,0}", "layout"},
        BadShapeCase{"LayoutMustBeAPermutationRank3", "f32[2,3,4]{2,2,0}", "layout"},
        BadShapeCase{"LayoutDimensionOutOfRange", "f32[2,3]{2,0}", "out of range"},
        BadShapeCase{"LayoutDimensionNegative", "f32[2,3]{1,-1}", "layout"},
        BadShapeCase{"Empty", "", ""}, BadShapeCase{"NoDimensions", "f32", "'['"},
        BadShapeCase{"NegativeDimension", "f32[-1]", "negative"},
        BadShapeCase{"UnclosedLayout", "f32[2]{1,0", ""},
        BadShapeCase{"UnclosedTuple", "(f32[], s32[]", "')'"},
        BadShapeCase{"TokenWithDimensions", "token[2]", "no dimensions"},
        BadShapeCase{"TrailingText", "f32[2] extra", "unexpected text"},
        BadShapeCase{"BufferOfAToken", "b(token[])", "array"},
        BadShapeCase{"UnclosedBuffer", "b(f32[2]", "')'"},
        BadShapeCase{"DimensionSizeTooLarge", "f32[99999999999999999999]", "dimension size"}),
    [](const ::testing::TestParamInfo<BadShapeCase>& info) {
      return std::string(info.param.name);
    });

TEST(ShapeErrorTest, ErrorNamesThePosition) {
  absl::StatusOr<Shape> shape = ParseShape("(f32[2], q8[3])");
  ASSERT_FALSE(shape.ok());
  // `q8` starts at column 10.
  EXPECT_THAT(std::string(shape.status().message()), ::testing::StartsWith("<shape>:1:10: "));
}

TEST(ShapeErrorTest, DeeplyNestedTupleIsAnErrorNotACrash) {
  std::string text = std::string(10000, '(') + "f32[]" + std::string(10000, ')');
  absl::StatusOr<Shape> shape = ParseShape(text);
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(shape.status().message()), HasSubstr("nest"));
}

TEST(ShapeTextTest, ModeratelyNestedTupleParses) {
  std::string text = std::string(50, '(') + "f32[]" + std::string(50, ')');
  Shape shape = MustParse(text);
  EXPECT_EQ(shape.ToString(), text);
}

}  // namespace
}  // namespace hopt

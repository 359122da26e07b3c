// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/ir/parser.h on bad input: the diagnostics
// (`file:line:col: message`, the line, a caret), and inputs that must not
// crash the parser.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;
using testing_util::PositionOf;
using testing_util::TextPosition;

// The full diagnostic format: `test.hlo:L:C: message`, then the offending
// line, then a caret under column C.
struct ParseError {
  int64_t line = 0;
  int64_t column = 0;
  std::string message;  // after "L:C: "
  std::string quoted_line;
  std::string caret_line;
};

ParseError ExpectParseFailure(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "test.hlo");
  ParseError error;
  if (module.ok()) {
    ADD_FAILURE() << "expected a parse error for:\n" << text;
    return error;
  }
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << module.status();
  std::vector<std::string> lines = absl::StrSplit(module.status().message(), '\n');
  EXPECT_EQ(lines.size(), 3u) << module.status().message();
  if (lines.empty()) return error;
  const std::string& head = lines[0];
  const std::string prefix = "test.hlo:";
  if (!absl::StartsWith(head, prefix)) {
    ADD_FAILURE() << "message does not start with the file name: " << head;
    return error;
  }
  std::vector<std::string> parts =
      absl::StrSplit(head.substr(prefix.size()), absl::MaxSplits(':', 2));
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &error.line) ||
      !absl::SimpleAtoi(parts[1], &error.column) || !absl::StartsWith(parts[2], " ")) {
    ADD_FAILURE() << "malformed diagnostic head: " << head;
    return error;
  }
  error.message = parts[2].substr(1);
  if (lines.size() >= 3) {
    error.quoted_line = lines[1];
    error.caret_line = lines[2];
  }
  return error;
}

// Checks the position, a phrase of the message, and that the diagnostic
// quotes the right line with a caret under the column.
void ExpectErrorAt(const std::string& text, TextPosition where, absl::string_view phrase) {
  SCOPED_TRACE(text);
  ParseError error = ExpectParseFailure(text);
  EXPECT_EQ(error.line, where.line) << error.message;
  EXPECT_EQ(error.column, where.column) << error.message;
  EXPECT_THAT(error.message, HasSubstr(std::string(phrase)));
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (where.line >= 1 && where.line <= static_cast<int64_t>(lines.size())) {
    EXPECT_EQ(error.quoted_line, lines[where.line - 1]);
  }
  EXPECT_EQ(error.caret_line, std::string(where.column - 1, ' ') + "^");
}

void ExpectErrorAtMarker(const std::string& text, absl::string_view marker,
                         absl::string_view phrase, int occurrence = 0) {
  ExpectErrorAt(text, PositionOf(text, marker, occurrence), phrase);
}

// ---------------------------------------------------------------------------
// Bad inputs: each names the exact line and column.

// Bad inputs whose diagnostic points at a marker in the text: the
// `occurrence`-th (0-based) appearance of `marker`.
struct MarkerErrorCase {
  const char* name;
  std::string text;
  const char* marker;
  const char* phrase;
  int occurrence = 0;
};

// Failures and --gtest_list_tests show the case's name.
void PrintTo(const MarkerErrorCase& c, std::ostream* os) { *os << c.name; }

class ParserMarkerErrorTest : public ::testing::TestWithParam<MarkerErrorCase> {};

TEST_P(ParserMarkerErrorTest, NamesTheLineAndColumn) {
  const MarkerErrorCase& c = GetParam();
  ExpectErrorAtMarker(c.text, c.marker, c.phrase, c.occurrence);
}

INSTANTIATE_TEST_SUITE_P(
    ParserErrorTest, ParserMarkerErrorTest,
    ::testing::Values(
        MarkerErrorCase{"UnknownOpcode", R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT r = f32[] frobnicate(p)
}
)",
                        "frobnicate", "unknown opcode 'frobnicate'"},
        MarkerErrorCase{"UnknownAsyncSugar", R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT r = f32[] frobnicate-start(p)
}
)",
                        "frobnicate-start", "unknown opcode 'frobnicate-start'"},
        MarkerErrorCase{"UnknownElementType", R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT r = f23[] negate(p)
}
)",
                        "f23", "unknown element type 'f23'"},
        MarkerErrorCase{"UnknownElementTypeInTheHeaderLayout",
                        "HloModule m, entry_computation_layout={(f32[], q16[])->f32[]}\n"
                        "ENTRY main {\n  ROOT p = f32[] parameter(0)\n}\n",
                        "q16", "unknown element type 'q16'"},
        MarkerErrorCase{"UndefinedOperand", R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT r = f32[] add(p, missing)
}
)",
                        "missing", "undefined instruction 'missing'"},
        MarkerErrorCase{"AttributeGivenTwice", R"(ENTRY main {
  p = f32[4,4] parameter(0)
  ROOT t = f32[4,4] transpose(p), dimensions={1,0}, dimensions={0,1}
}
)",
                        "dimensions={0,1}", "'dimensions' is given twice"},
        MarkerErrorCase{"SecondModuleInOneInput", R"(HloModule a
ENTRY main {
  ROOT p = f32[] parameter(0)
}
HloModule b
ENTRY main {
  ROOT p = f32[] parameter(0)
}
)",
                        "HloModule b", "HloModule"},
        MarkerErrorCase{"OperandFromAnotherComputationIsUndefined", R"(other {
  q = f32[] parameter(0)
  ROOT n = f32[] negate(q)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT r = f32[] add(p, q)
}
)",
                        "q)", "undefined instruction 'q'", 1},
        MarkerErrorCase{"DuplicateInstructionName", R"(ENTRY main {
  a = f32[] parameter(0)
  b = f32[] negate(a)
  a = f32[] exponential(b)
  ROOT r = f32[] add(a, b)
}
)",
                        "a = f32[] exponential", "'a' is already defined"},
        MarkerErrorCase{"UnknownComputationInToApply", R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={}, to_apply=addd
}
)",
                        "addd", "unknown computation 'addd'"},
        MarkerErrorCase{"ComputationCallingItself", R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=main
}
)",
                        "main\n", "calls itself"},
        // Reported at the caller that closes the cycle, as the proto readers do.
        MarkerErrorCase{"ComputationsCallingEachOther", R"(HloModule m
a {
  p = f32[] parameter(0)
  ROOT r = f32[] call(p), to_apply=b
}
b {
  p = f32[] parameter(0)
  ROOT r = f32[] call(p), to_apply=a
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=a
}
)",
                        "b {", "computation 'a' calls itself (through 'b')"},
        MarkerErrorCase{"MalformedReplicaGroups", R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={{0,1},{2,x}}, to_apply=add
}
)",
                        "{{0,1},{2,x}}", "replica_groups"},
        MarkerErrorCase{"IotaReplicaGroupsThatDoNotCoverTheDevices", R"(ENTRY main {
  p = f32[4,4] parameter(0)
  ROOT ag = f32[8,4] all-gather(p), replica_groups=[2,2]<=[5], dimensions={0}
}
)",
                        "[2,2]<=[5]", "replica_groups"},
        MarkerErrorCase{"UnterminatedBlockComment", R"(ENTRY main {
  p = f32[] parameter(0)
  /* this comment never ends
  ROOT n = f32[] negate(p)
}
)",
                        "/*", "unterminated /* comment"},
        MarkerErrorCase{"UnterminatedBlockCommentBeforeTheModule", "  /* open\nHloModule m\n", "/*",
                        "unterminated /* comment"},
        MarkerErrorCase{"UnknownModuleAttribute",
                        "HloModule m, colour=blue\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
                        "colour", "unknown module attribute 'colour'"},
        MarkerErrorCase{"DimensionSizeTooLarge", R"(ENTRY main {
  ROOT p = f32[2,99999999999999999999] parameter(0)
}
)",
                        "99999999999999999999", "dimension size"},
        // One past INT64_MAX: 19 digits, still out of range.
        MarkerErrorCase{"DimensionSizeOnePastInt64Max", R"(ENTRY main {
  ROOT p = f32[9223372036854775808] parameter(0)
}
)",
                        "9223372036854775808", "dimension size"}),
    [](const ::testing::TestParamInfo<MarkerErrorCase>& info) {
      return std::string(info.param.name);
    });

TEST(ParserErrorTest, UndefinedOperandInTheLongForm) {
  const std::string text = R"(ENTRY %main (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %r = f32[] add(f32[] %p, f32[] %missing)
}
)";
  ParseError error = ExpectParseFailure(text);
  TextPosition percent = PositionOf(text, "%missing");
  EXPECT_EQ(error.line, percent.line);
  // The '%' or the name after it.
  EXPECT_TRUE(error.column == percent.column || error.column == percent.column + 1) << error.column;
  EXPECT_THAT(error.message, HasSubstr("'missing'"));
}

// A long chain that reads only recent values never indexes its names; the
// check at the computation's end still finds a name defined twice.
TEST(ParserErrorTest, DuplicateNameInAChainThatNeverIndexes) {
  std::string text = "ENTRY main {\n  p = f32[] parameter(0)\n  x0 = f32[] negate(p)\n";
  for (int i = 1; i <= 40; ++i) absl::StrAppend(&text, "  x", i, " = f32[] add(x", i - 1, ", p)\n");
  absl::StrAppend(&text, "  x5 = f32[] add(x40, p)\n  ROOT r = f32[] negate(x5)\n}\n");
  ExpectErrorAtMarker(text, "x5 = f32[] add(x40", "'x5' is already defined");
}

TEST(ParserErrorTest, TwoRoots) {
  const std::string text = R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT a = f32[] negate(p)
  ROOT b = f32[] exponential(p)
}
)";
  ParseError error = ExpectParseFailure(text);
  TextPosition keyword = PositionOf(text, "ROOT b");
  TextPosition name = PositionOf(text, "b = f32[] exp");
  EXPECT_EQ(error.line, keyword.line);
  // Either the second ROOT keyword or the name after it is a fine place.
  EXPECT_TRUE(error.column == keyword.column || error.column == name.column) << error.column;
  EXPECT_THAT(error.message, HasSubstr("more than one ROOT"));
}

TEST(ParserErrorTest, MissingClosingBrace) {
  const std::string text = "ENTRY main {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n";
  ParseError error = ExpectParseFailure(text);
  TextPosition open = PositionOf(text, "{");
  TextPosition end{4, 1};  // just past the text
  EXPECT_TRUE((error.line == open.line && error.column == open.column) ||
              (error.line == end.line && error.column == end.column))
      << error.line << ":" << error.column;
  EXPECT_THAT(error.message, HasSubstr("'}'"));
}

TEST(ParserErrorTest, InferredTupleNestingIsBounded) {
  std::string text = "ENTRY e {\n  t0 = f32[] parameter(0)\n";
  for (int i = 1; i <= kMaxTupleNesting + 1; ++i)
    absl::StrAppend(&text, "  t", i, " = tuple(t", i - 1, ")\n");
  text += "}\n";
  ExpectErrorAtMarker(text, absl::StrCat("tuple(t", kMaxTupleNesting, ")"),
                      "nests tuples more than 200 deep");
}

TEST(ParserErrorTest, LinesCountFromWhereThePartStarts) {
  auto module =
      ParseHloModuleAt("HloModule m\nENTRY e {\n  ROOT r = f32[] bogus()\n}\n", "all.hlo", 1000);
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("all.hlo:1002:18: error: unknown opcode 'bogus'"));
}

TEST(ParserErrorTest, EmptyInput) { ExpectErrorAt("", TextPosition{1, 1}, "no computation"); }

TEST(ParserErrorTest, OnlyAHeader) {
  ParseError error = ExpectParseFailure("HloModule m\n");
  EXPECT_THAT(error.message, HasSubstr("no computation"));
  EXPECT_GE(error.line, 1);
}

TEST(ParserErrorTest, NonConsecutiveParameterNumbers) {
  const std::string text = R"(ENTRY main {
  p0 = f32[] parameter(0)
  p2 = f32[] parameter(2)
  ROOT a = f32[] add(p0, p2)
}
)";
  ParseError error = ExpectParseFailure(text);
  // The computation, or the parameter whose number leaves the gap.
  EXPECT_TRUE(error.line == 1 || error.line == 3) << error.line;
  EXPECT_THAT(error.message, HasSubstr("parameter number 1"));
}

TEST(ParserErrorTest, DuplicateParameterNumbers) {
  const std::string text = R"(ENTRY main {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(0)
  ROOT a = f32[] add(p0, p1)
}
)";
  ParseError error = ExpectParseFailure(text);
  EXPECT_TRUE(error.line == 1 || error.line == 3) << error.line;
  EXPECT_THAT(error.message, HasSubstr("number 0"));
}

TEST(ParserErrorTest, EntryLayoutWithTheWrongParameterCount) {
  ParseError error = ExpectParseFailure(
      "HloModule m, entry_computation_layout={(f32[], f32[])->f32[]}\n"
      "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  EXPECT_THAT(error.message, HasSubstr("entry_computation_layout"));
}

TEST(ParserErrorTest, DeeplyNestedTupleShape) {
  const std::string text = "ENTRY main {\n  p = " + std::string(10000, '(') + "f32[]" +
                           std::string(10000, ')') + " parameter(0)\n}\n";
  ParseError error = ExpectParseFailure(text);
  EXPECT_EQ(error.line, 2);
  EXPECT_THAT(error.message, HasSubstr("nest"));
}

TEST(ParserErrorTest, DeeplyNestedShapeInTheHeaderLayout) {
  const std::string text = "HloModule m, entry_computation_layout={(" + std::string(10000, '(') +
                           "f32[]" + std::string(10000, ')') + ")->f32[]}\n" +
                           "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
  ParseError error = ExpectParseFailure(text);
  EXPECT_EQ(error.line, 1);
  EXPECT_THAT(error.message, HasSubstr("nest"));
}

TEST(ParserErrorTest, DeeplyNestedAnonymousOperands) {
  std::string expr = "f32[] parameter(0)";
  for (int i = 0; i < 10000; ++i) expr = "negate(" + expr + ")";
  const std::string text = "ENTRY main {\n  ROOT r = f32[] " + expr + "\n}\n";
  ParseError error = ExpectParseFailure(text);
  EXPECT_EQ(error.line, 2);
  EXPECT_THAT(error.message, HasSubstr("nest"));
}

TEST(ParserErrorTest, DeeplyNestedLiteralAndAttributeValue) {
  {
    const std::string text = "ENTRY main {\n  ROOT c = f32[1] constant(" + std::string(10000, '{') +
                             "1" + std::string(10000, '}') + ")\n}\n";
    ParseError error = ExpectParseFailure(text);
    EXPECT_EQ(error.line, 2);
  }
  {
    const std::string text =
        "ENTRY main {\n  p = f32[] parameter(0)\n"
        "  ROOT n = f32[] negate(p), frontend_attributes=" +
        std::string(10000, '{') + std::string(10000, '}') + "\n}\n";
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "test.hlo");
    // Accepting the value verbatim or rejecting it are both fine; crashing
    // is not.
    if (!module.ok()) {
      EXPECT_THAT(std::string(module.status().message()), ::testing::StartsWith("test.hlo:3:"));
    }
  }
}

TEST(ParserErrorTest, LayoutDimensionTooLarge) {
  ParseError error = ExpectParseFailure(R"(ENTRY main {
  ROOT p = f32[2]{99999999999} parameter(0)
}
)");
  EXPECT_EQ(error.line, 2);
  EXPECT_THAT(error.message, HasSubstr("layout"));
}

TEST(ParserErrorTest, ParameterNumberTooLarge) {
  ParseError error = ExpectParseFailure(R"(ENTRY main {
  ROOT p = f32[] parameter(9223372036854775807)
}
)");
  EXPECT_THAT(error.message, HasSubstr("parameter"));
}

TEST(ParserErrorTest, HugeAttributeNumbersWithInferredShapes) {
  // The shapes must be inferred from the attributes, which are out of range.
  ParseError gte = ExpectParseFailure(R"(ENTRY main {
  p = (f32[], f32[]) parameter(0)
  ROOT g = get-tuple-element(p), index=9223372036854775807
}
)");
  EXPECT_EQ(gte.line, 3);
  ParseError concat = ExpectParseFailure(R"(ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT c = concatenate(a, b), dimensions={4611686018427387904}
}
)");
  EXPECT_EQ(concat.line, 4);
  ParseError slice = ExpectParseFailure(R"(ENTRY main {
  a = f32[2] parameter(0)
  ROOT s = slice(a), slice={[0:9223372036854775807]}
}
)");
  EXPECT_EQ(slice.line, 3);
}

TEST(ParserErrorTest, HugeDimensionsWithExplicitShapesParseAndFailVerification) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[2] parameter(0)
  ROOT b = f32[2,3] broadcast(p), dimensions={4294967296}
}
)");
  ASSERT_NE(module, nullptr);
  absl::Status status = VerifyModule(*module);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("instruction 'b'"));
}

// ---------------------------------------------------------------------------
// Robustness: no input may crash the parser.

constexpr absl::string_view kFuzzSeed =
    R"(HloModule fuzz, entry_computation_layout={(f32[8,16]{1,0}, s32[])->(f32[8,16]{1,0}, f32[])}, replica_count=2

/* reducer */
%add (lhs: f32[], rhs: f32[]) -> f32[] {
  %lhs = f32[] parameter(0)
  %rhs = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %lhs, f32[] %rhs)
}

ENTRY %main (p0: f32[8,16], i: s32[]) -> (f32[8,16], f32[]) {
  %p0 = f32[8,16]{1,0} parameter(0)
  %i = s32[] parameter(1) // unused
  %c = f32[] constant(-inf)
  %ar = f32[8,16]{1,0:T(8,128)} all-reduce(%p0), channel_id=1, replica_groups=[1,2]<=[2], to_apply=%add, metadata={op_type="AllReduce" op_name="ar"}
  %r = f32[] reduce(f32[8,16]{1,0} %ar, %c), dimensions={0,1}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT m = f32[] maximum(a, b)
  }
  %s = ((f32[8,16]), f32[8,16], s32[]) custom-call-start(%ar), custom_call_target="x\"y", backend_config={"k": [1, 2]}
  %d = f32[8,16] custom-call-done(%s), control-predecessors={%r}
  ROOT %t = (f32[8,16]{1,0}, f32[]) tuple(%d, %r)
}
)";

// Found by text_parser_fuzzer: a scalar broadcast without `dimensions` got
// `dimensions={}` only when its operand came first, so the printed module
// (operands first) printed differently after a round trip.
TEST(ParserTest, ScalarBroadcastDimensionsWhateverTheOperandOrder) {
  for (const char* body : {"  c = s32[] constant(1)\n  ROOT b = s32[4] broadcast(c)\n",
                           "  ROOT b = s32[4] broadcast(c)\n  c = s32[] constant(1)\n"}) {
    auto module = ParseHloModule(absl::StrCat("HloModule m\n\nENTRY e {\n", body, "}\n"), "b.hlo");
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_THAT(PrintModule(**module), HasSubstr("%b = s32[4]{0} broadcast(%c), dimensions={}"))
        << body;
  }
}

// Found by proto_reader_fuzzer (the text parser had the same gap): a
// parameter named `%0` printed a signature `(0: f32[4])` that does not parse.
TEST(ParserErrorTest, ParameterNamesMustStartLikeBareNames) {
  auto module =
      ParseHloModule("HloModule m\n\nENTRY e {\n  ROOT %0 = f32[4] parameter(0)\n}\n", "p.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("p.hlo:4:8: error: parameter name '0' must start with a letter or '_'"));
  EXPECT_TRUE(ParseHloModule("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
                             "  ROOT %0 = f32[4] negate(p)\n}\n")
                  .ok());
}

// Found by text_parser_fuzzer (UBSan): an integer constant written as a
// double beyond 64 bits was cast to int64_t, which is undefined.
TEST(ParserErrorTest, IntegerConstantsBeyondSixtyFourBits) {
  for (const char* text : {"s64[] constant(1e111)", "s32[] constant(-1e19)", "u64[] constant(2e19)",
                           "u8[] constant(-1e30)"}) {
    auto module = ParseHloModule(
        absl::StrCat("HloModule m\n\nENTRY e {\n  ROOT c = ", text, "\n}\n"), "big.hlo");
    ASSERT_FALSE(module.ok()) << text;
    EXPECT_THAT(module.status().message(), HasSubstr("is out of the range of 64-bit integers"))
        << text;
  }
  // The edges that do fit still parse.
  for (const char* text : {"s64[] constant(-9.223372036854775808e18)", "u64[] constant(1.8e19)"}) {
    auto module = ParseHloModule(
        absl::StrCat("HloModule m\n\nENTRY e {\n  ROOT c = ", text, "\n}\n"), "edge.hlo");
    EXPECT_TRUE(module.ok()) << text << ": " << module.status();
  }
}

TEST(ParserRobustnessTest, SeedParsesAndVerifies) {
  auto module = ParseOrFail(std::string(kFuzzSeed));
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

// Parses every prefix of a valid module. Each must give a module or an
// error, never a crash; when it parses, verifying and printing it must not
// crash either.
TEST(ParserRobustnessTest, EveryPrefixParsesOrFailsCleanly) {
  const std::string seed(kFuzzSeed);
  int accepted = 0;
  for (size_t length = 0; length <= seed.size(); ++length) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(seed.substr(0, length), "prefix.hlo");
    if (module.ok()) {
      ++accepted;
      (void)VerifyModule(**module);
      (void)PrintModule(**module);
      continue;
    }
    ASSERT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument)
        << "length " << length << ": " << module.status();
    ASSERT_TRUE(absl::StartsWith(module.status().message(), "prefix.hlo:"))
        << "length " << length << ": " << module.status();
  }
  // The whole text is one of the prefixes.
  EXPECT_GE(accepted, 1);
}

// Deletes each character in turn, and replaces it with characters that
// matter to the grammar.
TEST(ParserRobustnessTest, SingleCharacterEditsParseOrFailCleanly) {
  const std::string seed(kFuzzSeed);
  const std::string replacements = "{}()[]<=,%\"/*:0x ";
  for (size_t i = 0; i < seed.size(); ++i) {
    std::vector<std::string> variants;
    variants.push_back(seed.substr(0, i) + seed.substr(i + 1));
    for (char c : replacements) {
      if (c == seed[i]) continue;
      std::string edited = seed;
      edited[i] = c;
      variants.push_back(std::move(edited));
    }
    for (const std::string& text : variants) {
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "edit.hlo");
      if (module.ok()) {
        (void)VerifyModule(**module);
        (void)PrintModule(**module);
      } else {
        ASSERT_TRUE(absl::StartsWith(module.status().message(), "edit.hlo:"))
            << "edit at " << i << ": " << module.status();
      }
    }
  }
}

}  // namespace
}  // namespace hopt

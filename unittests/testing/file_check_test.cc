// SPDX-License-Identifier: Apache-2.0
// The test kit's FileCheck-style matcher (include/hopt/testing/file_check.h).

#include "hopt/testing/file_check.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/testing/assertions.h"

namespace hopt {
namespace testkit {
namespace {

using ::testing::HasSubstr;

constexpr char kText[] =
    "ENTRY %main {\n"
    "  %p = f32[4]{0} parameter(0)\n"
    "  %c = f32[4]{0} copy(%p)\n"
    "\n"
    "  ROOT %r = f32[4]{0} add(%c, %c)\n"
    "}";

std::string Failure(absl::string_view patterns) {
  return std::string(FileCheck(kText, patterns).message());
}

TEST(FileCheckTest, Check) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: ENTRY\nCHECK: ROOT").ok());
  // In order: ROOT is after copy, not before.
  EXPECT_THAT(Failure("CHECK: ROOT\nCHECK: copy"), HasSubstr("not found after input line 5"));
  // A later match on the same line as the previous one counts.
  EXPECT_TRUE(FileCheck(kText, "CHECK: %c = \nCHECK: copy").ok());
}

TEST(FileCheckTest, CheckNext) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: parameter\nCHECK-NEXT: copy(%p)").ok());
  EXPECT_THAT(Failure("CHECK: ENTRY\nCHECK-NEXT: copy"),
              HasSubstr("not found on input line 2 (the line after input line 1)"));
  EXPECT_THAT(Failure("CHECK-NEXT: ENTRY"), HasSubstr("has no previous match"));
}

TEST(FileCheckTest, CheckSame) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: ROOT\nCHECK-SAME: add(\nCHECK-SAME: %c)").ok());
  EXPECT_THAT(Failure("CHECK: ROOT\nCHECK-SAME: copy"), HasSubstr("not found on the rest of"));
  // After the match, not anywhere on the line.
  EXPECT_FALSE(FileCheck(kText, "CHECK: add\nCHECK-SAME: ROOT").ok());
}

TEST(FileCheckTest, CheckNot) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: ENTRY\nCHECK-NOT: negate\nCHECK: ROOT").ok());
  EXPECT_THAT(Failure("CHECK: ENTRY\nCHECK-NOT: copy\nCHECK: ROOT"),
              HasSubstr("matched at input line 3"));
  // Only after the previous match: the copy is before ROOT.
  EXPECT_TRUE(FileCheck(kText, "CHECK: ROOT\nCHECK-NOT: copy").ok());
  EXPECT_FALSE(FileCheck(kText, "CHECK-NOT: parameter").ok());
}

TEST(FileCheckTest, CheckEmpty) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: copy\nCHECK-EMPTY:").ok());
  EXPECT_THAT(Failure("CHECK: ENTRY\nCHECK-EMPTY:"), HasSubstr("input line 2 is not empty"));
}

TEST(FileCheckTest, RegexAndWhitespace) {
  EXPECT_TRUE(FileCheck(kText, "CHECK: %{{[a-z]}} = f32[4]{0}   copy").ok());
  EXPECT_TRUE(FileCheck(kText, "CHECK: ROOT %r = {{f(16|32)}}[4]").ok());
  // Literal text is not a regex: `.` and `[` mean themselves.
  EXPECT_FALSE(FileCheck(kText, "CHECK: f32.4.").ok());
  // A match never spans lines.
  EXPECT_FALSE(FileCheck(kText, "CHECK: {{parameter.*copy}}").ok());
}

TEST(FileCheckTest, FailureShowsPatternAndNumberedText) {
  std::string message = Failure("// a comment line\nCHECK: multiply");
  EXPECT_THAT(message, HasSubstr("CHECK: multiply"));
  EXPECT_THAT(message, HasSubstr("(patterns line 2)"));
  EXPECT_THAT(message, HasSubstr("  3:   %c = f32[4]{0} copy(%p)"));
}

TEST(FileCheckTest, MalformedPatterns) {
  EXPECT_THAT(Failure("no directive here"), HasSubstr("no CHECK: directive"));
  EXPECT_THAT(Failure("CHECK: {{unclosed"), HasSubstr("'{{' without '}}'"));
  EXPECT_THAT(Failure("CHECK: {{(}}"), HasSubstr("bad regular expression"));
  EXPECT_THAT(Failure("CHECK:"), HasSubstr("no pattern"));
}

TEST(FileCheckTest, PrefixIsAWordOfItsOwn) {
  FileCheckOptions mine;
  mine.prefix = "MINE";
  EXPECT_TRUE(FileCheck(kText, "CHECK: nothing-like-this\nMINE: ROOT", mine).ok());
  // XCHECK is not CHECK.
  EXPECT_TRUE(FileCheck(kText, "XCHECK: nothing-like-this\nCHECK: ROOT").ok());
}

TEST(FileCheckTest, GtestAssertion) {
  EXPECT_TRUE(MatchesFileCheck(kText, "CHECK: ROOT"));
  ::testing::AssertionResult failed = MatchesFileCheck(kText, "CHECK: multiply");
  EXPECT_FALSE(failed);
  EXPECT_THAT(failed.message(), HasSubstr("input:"));
  absl::StatusOr<std::string> error = absl::InternalError("pass 'p' failed");
  EXPECT_THAT(MatchesFileCheck(error, "CHECK: x").message(), HasSubstr("pass 'p' failed"));
}

}  // namespace
}  // namespace testkit
}  // namespace hopt

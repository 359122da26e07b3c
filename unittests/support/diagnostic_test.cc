// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/support/diagnostic.h and the places that use it: parse
// errors and verifier errors point at FILE:LINE:COL as compilers print
// them; other errors get the tool's prefix.

#include "hopt/support/diagnostic.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_util::ParseOrFail;

TEST(DiagnosticTest, LocatedErrorsNameTheirPlace) {
  absl::Status at = LocatedError(absl::StatusCode::kInvalidArgument, "m.hlo", 12, 7, "bad");
  EXPECT_EQ(at.message(), "m.hlo:12:7: error: bad");
  EXPECT_TRUE(IsLocated(at));
  EXPECT_EQ(FormatError("hopt", at), "m.hlo:12:7: error: bad");
  EXPECT_EQ(LocatedError(absl::StatusCode::kDataLoss, "m.pb", 0, 0, "truncated").message(),
            "m.pb: error: truncated");
  EXPECT_EQ(LocatedError(absl::StatusCode::kDataLoss, "m.hlo", 3, 0, "x").message(),
            "m.hlo:3: error: x");
}

TEST(DiagnosticTest, OtherErrorsGetTheToolsPrefix) {
  absl::Status plain = absl::NotFoundError("cannot open 'x.hlo'");
  EXPECT_FALSE(IsLocated(plain));
  EXPECT_EQ(FormatError("hlo-run", plain), "hlo-run: error: cannot open 'x.hlo'");
  // A located status wrapped in a new message is no longer located.
  absl::Status located = LocatedError(absl::StatusCode::kInternal, "m.hlo", 1, 1, "x");
  absl::Status wrapped(located.code(), std::string("context: ") + std::string(located.message()));
  EXPECT_FALSE(IsLocated(wrapped));
}

TEST(DiagnosticTest, ParseErrorsAreLocated) {
  auto module =
      ParseHloModule("HloModule m\n\nENTRY main {\n  ROOT a = f32[] frob()\n}\n", "in.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(IsLocated(module.status()));
  EXPECT_THAT(std::string(module.status().message()),
              StartsWith("in.hlo:4:18: error: unknown opcode 'frob'\n"));
}

constexpr char kMisshapen[] = R"(HloModule m

ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] negate(a)
    ROOT r = f32[3] add(a, b)
}
)";

TEST(DiagnosticTest, VerifierErrorsPointAtTheInstruction) {
  auto module = ParseOrFail(kMisshapen, "shapes.hlo");
  ASSERT_NE(module, nullptr);
  absl::Status plain = VerifyModule(*module);
  EXPECT_FALSE(IsLocated(plain));
  EXPECT_THAT(std::string(plain.message()), StartsWith("verifier: [shape]"));

  absl::Status located = VerifyInput(*module, "shapes.hlo");
  EXPECT_TRUE(IsLocated(located));
  EXPECT_THAT(std::string(located.message()),
              StartsWith("shapes.hlo:6:10: error: verifier: [shape] computation 'main', "
                         "instruction 'r':"));
}

TEST(DiagnosticTest, LocationsCountLinesAcrossComputationsAndComments) {
  auto module = ParseOrFail(R"(HloModule m
/* a comment
   over lines */
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  // line 11
  p = f32[] parameter(0)
  ROOT r = f32[] call(p, p), to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* add = module->GetComputationWithName("add");
  ASSERT_NE(add, nullptr);
  HloModule::SourceLocation s = module->LocationOf(*add->root_instruction());
  EXPECT_EQ(s.line, 7u);
  EXPECT_EQ(s.column, 8u);
  HloModule::SourceLocation p =
      module->LocationOf(*module->entry_computation()->parameter_instruction(0));
  EXPECT_EQ(p.line, 12u);
  EXPECT_EQ(p.column, 3u);
}

TEST(DiagnosticTest, InlineComputationsAreLocatedToo) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[] reduce(p, p), dimensions={0}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT s = f32[] add(x, y)
  }
}
)");
  ASSERT_NE(module, nullptr);
  const HloInstruction* r = module->entry_computation()->root_instruction();
  EXPECT_EQ(module->LocationOf(*r).line, 5u);
  EXPECT_EQ(module->LocationOf(*r).column, 8u);
  const HloComputation* inline_body = nullptr;
  for (const HloComputation* c : module->computations())
    if (c != module->entry_computation()) inline_body = c;
  ASSERT_NE(inline_body, nullptr);
  EXPECT_EQ(module->LocationOf(*inline_body->root_instruction()).line, 8u);
  EXPECT_EQ(module->LocationOf(*inline_body->root_instruction()).column, 10u);
}

TEST(DiagnosticTest, InstructionsMadeLaterHaveNoLocation) {
  auto module = ParseOrFail(kMisshapen, "shapes.hlo");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->parameter_instruction(0);
  HloInstruction* extra = entry->AddInstruction(HloOpcode::kNegate, a->shape(), {a});
  EXPECT_EQ(module->LocationOf(*extra).line, 0u);
}

TEST(VerifierNamesTest, NamesThePrinterCannotWriteAreRejected) {
  auto module = ParseOrFail(kMisshapen);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  entry->root_instruction()->SetName("r");  // unchanged: still fine
  HloInstruction* b = entry->root_instruction()->mutable_operand(1);
  b->SetName("b c");
  absl::Status status = VerifyModule(*module);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("verifier: [names] computation 'main', instruction 'b c': the name "
                         "cannot be written as HLO text"));
}

TEST(VerifierNamesTest, ParametersMustStartAsBareNames) {
  auto module = ParseOrFail("HloModule m\n\nENTRY main {\n  ROOT a = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  module->entry_computation()->parameter_instruction(0)->SetName("0a");
  EXPECT_THAT(std::string(VerifyModule(*module).message()),
              HasSubstr("[names] computation 'main', instruction '0a'"));
  // Other instructions are printed after a '%', so a leading digit reads back.
  auto digits = ParseOrFail(
      "HloModule m\n\nENTRY main {\n  p = f32[] parameter(0)\n  ROOT %1 = f32[] negate(p)\n}\n");
  ASSERT_NE(digits, nullptr);
  EXPECT_TRUE(VerifyModule(*digits).ok());
}

TEST(VerifierNamesTest, ModuleAndComputationNames) {
  auto module = ParseOrFail("HloModule m\n\nENTRY main {\n  ROOT a = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  module->set_name("two words");
  EXPECT_THAT(std::string(VerifyModule(*module).message()),
              StartsWith("verifier: [names] the module's name 'two words'"));
  module->set_name("m");
  module->entry_computation()->SetName("a;b");
  EXPECT_THAT(std::string(VerifyModule(*module).message()),
              StartsWith("verifier: [names] computation 'a;b': the computation's name"));
}

}  // namespace
}  // namespace hopt

// Tests for include/hopt/ir/parser.h: XLA HLO text in, IR out; and the diagnostics
// for bad text (`file:line:col: message`, the line, a caret).

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;
using testing_util::PositionOf;
using testing_util::TextPosition;

std::vector<std::string> Names(const std::vector<HloInstruction*>& instructions) {
  std::vector<std::string> names;
  for (const HloInstruction* i : instructions) names.emplace_back(i->name());
  return names;
}

std::vector<std::string> Names(const InstructionVector& instructions) {
  return Names(std::vector<HloInstruction*>(instructions.begin(), instructions.end()));
}

// The full diagnostic format: `test.hlo:L:C: message`, then the offending
// line, then a caret under column C.
struct ParseError {
  int64_t line = 0;
  int64_t column = 0;
  std::string message;     // after "L:C: "
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
  std::vector<std::string> parts = absl::StrSplit(head.substr(prefix.size()),
                                                  absl::MaxSplits(':', 2));
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
// Good inputs

TEST(ParserTest, ExampleFromTheBrief) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2

add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT sum = f32[] add(lhs, rhs)
}

ENTRY main {
  p0 = f32[8,16]{1,0} parameter(0)
  ROOT ar = f32[8,16]{1,0} all-reduce(p0), replica_groups={{0,1}}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "m");
  EXPECT_EQ(module->replica_count(), 2);
  EXPECT_EQ(module->computation_count(), 2);
  HloComputation* entry = module->entry_computation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "main");
  EXPECT_TRUE(entry->IsEntryComputation());
  HloInstruction* ar = entry->root_instruction();
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->name(), "ar");
  EXPECT_EQ(ar->opcode(), HloOpcode::kAllReduce);
  EXPECT_EQ(ar->shape().ToString(), "f32[8,16]{1,0}");
  ASSERT_EQ(ar->operand_count(), 1);
  EXPECT_EQ(ar->operand(0)->name(), "p0");
  EXPECT_EQ(ar->operand(0)->parameter_number(), 0);
  HloComputation* add = module->GetComputationWithName("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(ar->to_apply(), add);
  EXPECT_EQ(add->num_parameters(), 2);
  EXPECT_EQ(add->root_instruction()->name(), "sum");
  EXPECT_EQ(ar->GetAttributeText("replica_groups"), "{{0,1}}");
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, HeaderAttributes) {
  auto module = ParseOrFail(
      "HloModule my_module, is_scheduled=true, "
      "entry_computation_layout={(f32[2,3]{0,1}, s32[])->f32[2,3]{0,1}}, "
      "replica_count=4, num_partitions=2\n"
      "\n"
      "ENTRY main {\n"
      "  p0 = f32[2,3]{0,1} parameter(0)\n"
      "  p1 = s32[] parameter(1)\n"
      "  ROOT n = f32[2,3]{0,1} negate(p0)\n"
      "}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "my_module");
  EXPECT_TRUE(module->is_scheduled());
  EXPECT_EQ(module->replica_count(), 4);
  EXPECT_EQ(module->num_partitions(), 2);
  const auto& layout = module->entry_computation_layout();
  ASSERT_TRUE(layout.has_value());
  ASSERT_EQ(layout->parameters.size(), 2u);
  EXPECT_EQ(layout->parameters[0].ToString(), "f32[2,3]{0,1}");
  EXPECT_EQ(layout->parameters[1].ToString(), "s32[]");
  EXPECT_EQ(layout->result.ToString(), "f32[2,3]{0,1}");
}

TEST(ParserTest, HeaderDefaults) {
  auto module = ParseOrFail("HloModule plain\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "plain");
  EXPECT_FALSE(module->is_scheduled());
  EXPECT_EQ(module->replica_count(), 1);
  EXPECT_EQ(module->num_partitions(), 1);
  EXPECT_FALSE(module->entry_computation_layout().has_value());
}

TEST(ParserTest, HeaderIsOptional) {
  auto module = ParseOrFail("ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  ASSERT_NE(module->entry_computation(), nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "e");
}

TEST(ParserTest, OtherHeaderAttributesAreKeptAsWritten) {
  auto module = ParseOrFail(
      "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, "
      "frontend_attributes={attr=\"v\"}\n"
      "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->GetHeaderAttribute("input_output_alias"), "{ {0}: (0, {}, may-alias) }");
  EXPECT_EQ(module->GetHeaderAttribute("frontend_attributes"), "{attr=\"v\"}");
  EXPECT_FALSE(module->GetHeaderAttribute("buffer_donor").has_value());
}

TEST(ParserTest, PercentAndBareNames) {
  auto module = ParseOrFail(R"(HloModule names

%add.1 {
  %x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT %sum-2 = f32[] add(%x, y)
}

ENTRY %main.3 {
  %p.0 = f32[4] parameter(0)
  custom-call.7 = f32[4] negate(p.0)
  ROOT %r = f32[4] map(%p.0, %custom-call.7), dimensions={0}, to_apply=%add.1
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->name(), "main.3");
  HloInstruction* r = entry->root_instruction();
  EXPECT_EQ(r->name(), "r");
  EXPECT_THAT(Names(r->operands()), ElementsAre("p.0", "custom-call.7"));
  ASSERT_NE(r->to_apply(), nullptr);
  EXPECT_EQ(r->to_apply()->name(), "add.1");
  EXPECT_EQ(r->to_apply()->root_instruction()->name(), "sum-2");
  EXPECT_NE(entry->GetInstructionWithName("custom-call.7"), nullptr);
  EXPECT_EQ(entry->GetInstructionWithName("%r"), nullptr);
}

TEST(ParserTest, CommentsAreIgnored) {
  auto module = ParseOrFail(R"(// leading line comment
HloModule m /* inline block */

/* a block comment
   over two lines */
ENTRY main { // trailing comment
  p0 = f32[] parameter(0) // after an instruction
  /* between */ ROOT n = f32[] negate(/* inside */ p0) /* before the end */
}
// the end)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "m");
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 2);
  EXPECT_EQ(entry->root_instruction()->name(), "n");
  EXPECT_THAT(Names(entry->root_instruction()->operands()), ElementsAre("p0"));
}

TEST(ParserTest, EntryDefaultsToTheLastComputation) {
  auto module = ParseOrFail(R"(HloModule m
first {
  ROOT a = f32[] parameter(0)
}
second {
  ROOT b = f32[] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "second");

  auto marked = ParseOrFail(R"(HloModule m
ENTRY first {
  ROOT a = f32[] parameter(0)
}
second {
  ROOT b = f32[] parameter(0)
}
)");
  ASSERT_NE(marked, nullptr);
  EXPECT_EQ(marked->entry_computation()->name(), "first");
}

TEST(ParserTest, RootDefaultsToTheLastInstruction) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  b = f32[] exponential(p)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "b");
}

TEST(ParserTest, RootNeedNotBeLast) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT a = f32[] negate(p)
  b = f32[] exponential(p)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "a");
}

TEST(ParserTest, ForwardOperandReferences) {
  auto module = ParseOrFail(R"(ENTRY main {
  ROOT r = f32[4] add(n, p)
  n = f32[4] negate(p)
  p = f32[4] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* r = entry->root_instruction();
  HloInstruction* n = entry->GetInstructionWithName("n");
  HloInstruction* p = entry->GetInstructionWithName("p");
  ASSERT_NE(n, nullptr);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(r->name(), "r");
  EXPECT_THAT(r->operands(), ElementsAre(n, p));
  EXPECT_THAT(n->operands(), ElementsAre(p));
  EXPECT_THAT(n->users(), ElementsAre(r));
  EXPECT_THAT(p->users(), ::testing::UnorderedElementsAre(n, r));
  EXPECT_EQ(entry->num_parameters(), 1);
  EXPECT_EQ(entry->parameter_instruction(0), p);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

// Operands are found among the last instructions made, then among the last
// ones looked up, then in the name index. A chain whose every line reads
// the parameter (kept among the looked-up ones once it is the oldest made)
// and, every seventh line, a value twelve lines back (only in the index)
// goes through all three.
TEST(ParserTest, ChainOperandsResolveThroughEveryLookup) {
  std::string text = "ENTRY main {\n  p = f32[4] parameter(0)\n  x0 = f32[4] negate(p)\n";
  constexpr int kLines = 60;
  for (int i = 1; i <= kLines; ++i) {
    std::string lhs = i % 7 == 0 && i >= 12 ? absl::StrCat("x", i - 12) : absl::StrCat("x", i - 1);
    absl::StrAppend(&text, i == kLines ? "  ROOT " : "  ", "x", i, " = f32[4] add(", lhs,
                    ", p)\n");
  }
  absl::StrAppend(&text, "}\n");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = entry->GetInstructionWithName("p");
  ASSERT_NE(p, nullptr);
  for (int i = 1; i <= kLines; ++i) {
    HloInstruction* x = entry->GetInstructionWithName(absl::StrCat("x", i));
    ASSERT_NE(x, nullptr) << i;
    int read = i % 7 == 0 && i >= 12 ? i - 12 : i - 1;
    EXPECT_EQ(x->operand(0), entry->GetInstructionWithName(absl::StrCat("x", read))) << i;
    EXPECT_EQ(x->operand(1), p) << i;
  }
  EXPECT_EQ(p->user_count(), kLines + 1);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, RepeatedForwardOperandIsOneUser) {
  auto module = ParseOrFail(R"(ENTRY main {
  ROOT r = f32[4] add(p, p)
  p = f32[4] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* r = module->entry_computation()->root_instruction();
  HloInstruction* p = module->entry_computation()->GetInstructionWithName("p");
  EXPECT_THAT(r->operands(), ElementsAre(p, p));
  EXPECT_THAT(p->users(), ElementsAre(r));
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, ShapeIsInferredWhenOmitted) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[2,3] parameter(0)
  q = s32[] parameter(1)
  n = negate(p)
  t = tuple(n, q)
  ROOT g = get-tuple-element(t), index=1
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->GetInstructionWithName("n")->shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(entry->GetInstructionWithName("t")->shape().ToString(), "(f32[2,3]{1,0}, s32[])");
  EXPECT_EQ(entry->root_instruction()->shape().ToString(), "s32[]");
}

TEST(ParserTest, Constants) {
  auto module = ParseOrFail(R"(ENTRY main {
  c0 = s32[2] constant({1, 2})
  c1 = f32[] constant(inf)
  c2 = f32[] constant(-nan)
  c3 = bf16[] constant(1.5)
  c4 = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  c5 = pred[] constant(true)
  c6 = f32[] constant(-inf)
  c7 = bf16[3] constant({0.5, -2, 1e+10})
  ROOT t = (s32[2], f32[], f32[], bf16[], f32[2,2], pred[], f32[], bf16[3]) tuple(c0, c1, c2, c3, c4, c5, c6, c7)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  auto literal = [&](absl::string_view name) -> std::string {
    HloInstruction* i = entry->GetInstructionWithName(name);
    if (i == nullptr) return "<missing>";
    EXPECT_EQ(i->opcode(), HloOpcode::kConstant);
    EXPECT_EQ(i->operand_count(), 0);
    return std::string(i->literal_text());
  };
  EXPECT_EQ(literal("c0"), "{1, 2}");
  EXPECT_EQ(literal("c1"), "inf");
  EXPECT_EQ(literal("c2"), "-nan");
  EXPECT_EQ(literal("c3"), "1.5");
  EXPECT_EQ(literal("c4"), "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EQ(literal("c5"), "true");
  EXPECT_EQ(literal("c6"), "-inf");
  EXPECT_EQ(literal("c7"), "{0.5, -2, 1e+10}");
  EXPECT_EQ(entry->GetInstructionWithName("c3")->shape().element_type(), PrimitiveType::BF16);
  std::string printed = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(printed, HasSubstr("c0 = s32[2]{0} constant({1, 2})\n"));
  EXPECT_THAT(printed, HasSubstr("c2 = f32[] constant(-nan)\n"));
}

TEST(ParserTest, TupleLiterals) {
  auto module = ParseOrFail(R"(ENTRY main {
  ROOT c = (s32[], f32[2], (pred[])) constant((1, {2, 3}, (true)))
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* c = module->entry_computation()->root_instruction();
  EXPECT_EQ(c->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(c->literal_text(), "(1, {2, 3}, (true))");
  EXPECT_EQ(c->shape().ToString(), "(s32[], f32[2]{0}, (pred[]))");
}

TEST(ParserTest, AnonymousNestedOperands) {
  auto module = ParseOrFail(R"(HloModule nest
ENTRY main {
  ROOT r = f32[10] add(f32[10] parameter(0), f32[10] parameter(1))
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 3);
  HloInstruction* r = entry->root_instruction();
  ASSERT_EQ(r->operand_count(), 2);
  EXPECT_EQ(r->operand(0)->name(), "parameter.anon");
  EXPECT_EQ(r->operand(0)->parameter_number(), 0);
  EXPECT_EQ(r->operand(1)->name(), "parameter.anon.1");
  EXPECT_EQ(r->operand(1)->parameter_number(), 1);
  EXPECT_EQ(entry->num_parameters(), 2);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, AnonymousOperandsNestAndInferShapes) {
  auto module = ParseOrFail(R"(HloModule nest
ENTRY main {
  ROOT r = subtract(f32[4] parameter(0), negate(f32[4] parameter(1)))
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module, PrintOptions::Short()),
            "HloModule nest, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}\n"
            "\n"
            "ENTRY main {\n"
            "  parameter.anon = f32[4]{0} parameter(0)\n"
            "  parameter.anon.1 = f32[4]{0} parameter(1)\n"
            "  negate.anon = f32[4]{0} negate(parameter.anon.1)\n"
            "  ROOT r = f32[4]{0} subtract(parameter.anon, negate.anon)\n"
            "}\n"
            "\n");
}

TEST(ParserTest, AnonymousNamesAvoidExplicitOnes) {
  auto module = ParseOrFail(R"(ENTRY main {
  negate.anon = f32[] parameter(0)
  ROOT r = add(negate.anon, negate(negate.anon))
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* r = module->entry_computation()->root_instruction();
  ASSERT_EQ(r->operand_count(), 2);
  EXPECT_EQ(r->operand(0)->name(), "negate.anon");
  EXPECT_EQ(r->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_NE(r->operand(1)->name(), "negate.anon");
  EXPECT_EQ(r->operand(1)->opcode(), HloOpcode::kNegate);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, AsyncSugar) {
  auto module = ParseOrFail(R"(ENTRY main {
  p0 = f32[10] parameter(0)
  start = ((f32[10]), f32[20], s32[]) custom-call-start(p0), custom_call_target="foo"
  update = ((f32[10]), f32[20], s32[]) custom-call-update(start)
  ROOT done = f32[20] custom-call-done(update)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* start = entry->GetInstructionWithName("start");
  HloInstruction* update = entry->GetInstructionWithName("update");
  HloInstruction* done = entry->root_instruction();
  ASSERT_NE(start, nullptr);
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(start->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(update->opcode(), HloOpcode::kAsyncUpdate);
  EXPECT_EQ(done->opcode(), HloOpcode::kAsyncDone);
  for (HloInstruction* i : {start, update, done})
    EXPECT_EQ(i->async_wrapped_opcode(), HloOpcode::kCustomCall) << i->name();
  EXPECT_EQ(start->OpcodeSpelling(), "custom-call-start");
  EXPECT_EQ(update->OpcodeSpelling(), "custom-call-update");
  EXPECT_EQ(done->OpcodeSpelling(), "custom-call-done");
  EXPECT_EQ(start->custom_call_target(), "foo");
  std::string printed = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(printed, HasSubstr(" custom-call-start(p0), custom_call_target=\"foo\"\n"));
  EXPECT_THAT(printed, HasSubstr(" custom-call-update(start)\n"));
  EXPECT_THAT(printed, HasSubstr(" custom-call-done(update)\n"));
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, RealStartOpcodesAreNotSugar) {
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  crs = f32[8] all-reduce-start(p), replica_groups={}, to_apply=add
  ROOT done = f32[8] all-reduce-done(crs)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* crs = module->entry_computation()->GetInstructionWithName("crs");
  EXPECT_EQ(crs->opcode(), HloOpcode::kAllReduceStart);
  EXPECT_FALSE(crs->async_wrapped_opcode().has_value());
  EXPECT_EQ(crs->OpcodeSpelling(), "all-reduce-start");
  EXPECT_EQ(module->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kAllReduceDone);
}

TEST(ParserTest, InlineComputation) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT s = f32[] add(x, y)
  }
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->computation_count(), 2);
  HloComputation* entry = module->entry_computation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->instruction_count(), 2);
  HloInstruction* ar = entry->root_instruction();
  EXPECT_EQ(ar->name(), "ar");
  HloComputation* reducer = ar->to_apply();
  ASSERT_NE(reducer, nullptr);
  EXPECT_NE(reducer, entry);
  EXPECT_EQ(reducer->num_parameters(), 2);
  EXPECT_EQ(reducer->root_instruction()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(reducer->root_instruction()->name(), "s");
  // The reducer's names do not leak into the entry computation.
  EXPECT_EQ(entry->GetInstructionWithName("x"), nullptr);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);

  // Printed as a named computation that parses back to the same text.
  std::string printed = PrintModule(*module);
  EXPECT_THAT(printed, HasSubstr(absl::StrCat("to_apply=%", reducer->name())));
  auto again = ParseOrFail(printed);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), printed);
}

TEST(ParserTest, InlineComputationUsesOuterNamesIndependently) {
  // The same names inside and outside the inline computation.
  auto module = ParseOrFail(R"(ENTRY main {
  x = f32[8] parameter(0)
  ROOT s = f32[8] all-reduce(x), replica_groups={}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT s = f32[] add(x, y)
  }
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* s = module->entry_computation()->root_instruction();
  EXPECT_EQ(s->opcode(), HloOpcode::kAllReduce);
  EXPECT_EQ(s->operand(0)->shape().ToString(), "f32[8]{0}");
  EXPECT_EQ(s->to_apply()->root_instruction()->opcode(), HloOpcode::kAdd);
}

TEST(ParserTest, IotaReplicaGroups) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
ENTRY main {
  p = f32[4,4] parameter(0)
  a = f32[8,4] all-gather(p), replica_groups=[2,2]<=[4], dimensions={0}
  b = f32[8,4] all-gather(p), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}
  ROOT t = (f32[8,4], f32[8,4]) tuple(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* b = entry->GetInstructionWithName("b");
  EXPECT_EQ(a->GetAttributeText("replica_groups"), "[2,2]<=[4]");
  EXPECT_EQ(b->GetAttributeText("replica_groups"), "[2,2]<=[2,2]T(1,0)");
  auto groups_a = a->replica_groups();
  ASSERT_TRUE(groups_a.has_value());
  EXPECT_TRUE(groups_a->is_iota);
  EXPECT_EQ(groups_a->num_groups, 2);
  EXPECT_EQ(groups_a->group_size, 2);
  EXPECT_EQ(groups_a->ExpandedGroups(), (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  auto groups_b = b->replica_groups();
  ASSERT_TRUE(groups_b.has_value());
  EXPECT_EQ(groups_b->ExpandedGroups(), (std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}}));
  std::string printed = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(printed, HasSubstr("replica_groups=[2,2]<=[4], dimensions={0}"));
  EXPECT_THAT(printed, HasSubstr("replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}"));
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, ControlPredecessors) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  b = f32[] exponential(p), control-predecessors={a, c}
  c = f32[] sine(p)
  ROOT t = (f32[], f32[], f32[]) tuple(a, b, c)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* b = entry->GetInstructionWithName("b");
  HloInstruction* c = entry->GetInstructionWithName("c");
  EXPECT_THAT(b->control_predecessors(), ElementsAre(a, c));
  EXPECT_TRUE(a->control_predecessors().empty());
  // Control predecessors are not operands.
  EXPECT_THAT(b->operands(), ElementsAre(entry->GetInstructionWithName("p")));
  EXPECT_THAT(a->users(), ElementsAre(entry->root_instruction()));
  std::string printed = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(printed, HasSubstr("exponential(p), control-predecessors={a, c}\n"));
  // A control predecessor is printed before its successor.
  EXPECT_LT(printed.find("c = f32[] sine(p)"), printed.find("b = f32[] exponential(p)"));
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ParserTest, AttributesAreKeptInWrittenOrder) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[4,4] parameter(0)
  ROOT ag = f32[4,8] all-gather(p), dimensions={1}, replica_groups={{0,1}}, channel_id=3, use_global_device_ids=true
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* ag = module->entry_computation()->root_instruction();
  std::vector<std::string> names;
  for (const HloAttribute& attr : ag->attributes()) names.emplace_back(attr.name);
  EXPECT_THAT(names,
              ElementsAre("dimensions", "replica_groups", "channel_id", "use_global_device_ids"));
  EXPECT_EQ(ag->channel_id(), 3);
  EXPECT_TRUE(ag->use_global_device_ids());
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
        MarkerErrorCase{"UnterminatedBlockCommentBeforeTheModule", "  /* open\nHloModule m\n",
                        "/*", "unterminated /* comment"},
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
  EXPECT_TRUE(error.column == percent.column || error.column == percent.column + 1)
      << error.column;
  EXPECT_THAT(error.message, HasSubstr("'missing'"));
}

// A long chain that reads only recent values never indexes its names; the
// check at the computation's end still finds a name defined twice.
TEST(ParserErrorTest, DuplicateNameInAChainThatNeverIndexes) {
  std::string text = "ENTRY main {\n  p = f32[] parameter(0)\n  x0 = f32[] negate(p)\n";
  for (int i = 1; i <= 40; ++i)
    absl::StrAppend(&text, "  x", i, " = f32[] add(x", i - 1, ", p)\n");
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
  auto module = ParseHloModuleAt("HloModule m\nENTRY e {\n  ROOT r = f32[] bogus()\n}\n",
                                 "all.hlo", 1000);
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(), HasSubstr("all.hlo:1002:18: error: unknown opcode 'bogus'"));
}

TEST(ParserErrorTest, EmptyInput) {
  ExpectErrorAt("", TextPosition{1, 1}, "no computation");
}

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
    const std::string text = "ENTRY main {\n  ROOT c = f32[1] constant(" +
                             std::string(10000, '{') + "1" + std::string(10000, '}') +
                             ")\n}\n";
    ParseError error = ExpectParseFailure(text);
    EXPECT_EQ(error.line, 2);
  }
  {
    const std::string text = "ENTRY main {\n  p = f32[] parameter(0)\n"
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

constexpr absl::string_view kFuzzSeed = R"(HloModule fuzz, entry_computation_layout={(f32[8,16]{1,0}, s32[])->(f32[8,16]{1,0}, f32[])}, replica_count=2

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
    EXPECT_THAT(PrintModule(**module),
                HasSubstr("%b = s32[4]{0} broadcast(%c), dimensions={}")) << body;
  }
}

// Found by proto_reader_fuzzer (the text parser had the same gap): a
// parameter named `%0` printed a signature `(0: f32[4])` that does not parse.
TEST(ParserErrorTest, ParameterNamesMustStartLikeBareNames) {
  auto module = ParseHloModule("HloModule m\n\nENTRY e {\n  ROOT %0 = f32[4] parameter(0)\n}\n",
                               "p.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("p.hlo:4:8: error: parameter name '0' must start with a letter or '_'"));
  EXPECT_TRUE(ParseHloModule("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n"
                             "  ROOT %0 = f32[4] negate(p)\n}\n").ok());
}

// Found by text_parser_fuzzer (UBSan): an integer constant written as a
// double beyond 64 bits was cast to int64_t, which is undefined.
TEST(ParserErrorTest, IntegerConstantsBeyondSixtyFourBits) {
  for (const char* text : {"s64[] constant(1e111)", "s32[] constant(-1e19)", "u64[] constant(2e19)",
                           "u8[] constant(-1e30)"}) {
    auto module = ParseHloModule(absl::StrCat("HloModule m\n\nENTRY e {\n  ROOT c = ", text, "\n}\n"),
                                 "big.hlo");
    ASSERT_FALSE(module.ok()) << text;
    EXPECT_THAT(module.status().message(), HasSubstr("is out of the range of 64-bit integers"))
        << text;
  }
  // The edges that do fit still parse.
  for (const char* text : {"s64[] constant(-9.223372036854775808e18)", "u64[] constant(1.8e19)"}) {
    auto module = ParseHloModule(absl::StrCat("HloModule m\n\nENTRY e {\n  ROOT c = ", text, "\n}\n"),
                                 "edge.hlo");
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

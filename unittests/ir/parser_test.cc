// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/ir/parser.h on good input: XLA HLO text in, IR out.

#include "hopt/ir/parser.h"

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

std::vector<std::string> Names(const std::vector<HloInstruction*>& instructions) {
  std::vector<std::string> names;
  for (const HloInstruction* i : instructions) names.emplace_back(i->name());
  return names;
}

std::vector<std::string> Names(const InstructionVector& instructions) {
  return Names(std::vector<HloInstruction*>(instructions.begin(), instructions.end()));
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
    absl::StrAppend(&text, i == kLines ? "  ROOT " : "  ", "x", i, " = f32[4] add(", lhs, ", p)\n");
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
  EXPECT_EQ(module->entry_computation()->root_instruction()->opcode(), HloOpcode::kAllReduceDone);
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

}  // namespace
}  // namespace hopt

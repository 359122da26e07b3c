// SPDX-License-Identifier: Apache-2.0
// Tests for the IR's mutation API (include/hopt/ir/instruction.h, computation.h,
// module.h): building, rewiring and removing instructions.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/ir/mutation_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using mutation_testing::AttributeNames;
using mutation_testing::ComputationNames;
using mutation_testing::ExpectVerifies;
using mutation_testing::Find;
using mutation_testing::kAllReduce;
using mutation_testing::kF32;
using mutation_testing::kF32x4;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing_util::ParseOrFail;

// ---------------------------------------------------------------------------
// Building

TEST(IrBuildTest, AddInstructionMakesNamesUnique) {
  HloModule module("m");
  HloComputation* entry = module.AddComputation("main", /*is_entry=*/true);
  HloInstruction* p = entry->AddParameter(kF32x4, "p");
  HloInstruction* first = entry->AddInstruction(HloOpcode::kAdd, kF32x4, {p, p}, "add");
  HloInstruction* second = entry->AddInstruction(HloOpcode::kAdd, kF32x4, {first, p}, "add");
  // Without a name, the opcode spelling is the prefix.
  HloInstruction* third = entry->AddInstruction(HloOpcode::kAdd, kF32x4, {second, p});
  HloInstruction* neg = entry->AddInstruction(HloOpcode::kNegate, kF32x4, {third});
  EXPECT_EQ(first->name(), "add");
  EXPECT_EQ(second->name(), "add.1");
  EXPECT_EQ(third->name(), "add.2");
  EXPECT_EQ(neg->name(), "negate");
  EXPECT_EQ(p->name(), "p");
  EXPECT_EQ(p->parameter_number(), 0);
  EXPECT_EQ(entry->instruction_count(), 5);
  EXPECT_EQ(first->parent(), entry);
  EXPECT_EQ(first->GetModule(), &module);
  EXPECT_NE(first->unique_id(), second->unique_id());
  ASSERT_TRUE(entry->set_root_instruction(neg).ok());
  ExpectVerifies(module);
  EXPECT_EQ(PrintModule(module, PrintOptions::Short()),
            "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
            "\n"
            "ENTRY main {\n"
            "  p = f32[4]{0} parameter(0)\n"
            "  add = f32[4]{0} add(p, p)\n"
            "  add.1 = f32[4]{0} add(add, p)\n"
            "  add.2 = f32[4]{0} add(add.1, p)\n"
            "  ROOT negate = f32[4]{0} negate(add.2)\n"
            "}\n"
            "\n");
}

TEST(IrBuildTest, AddedNamesAvoidParsedNames) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  add = f32[] parameter(0)
  add.1 = f32[] negate(add)
  ROOT add.2 = f32[] add(add, add.1)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* added = entry->AddInstruction(HloOpcode::kAdd, kF32,
                                                {Find(module, "add"), Find(module, "add")}, "add");
  EXPECT_NE(added->name(), "add");
  EXPECT_NE(added->name(), "add.1");
  EXPECT_NE(added->name(), "add.2");
  EXPECT_EQ(entry->GetInstructionWithName(added->name()), added);
  // A rename is taken into account by later additions.
  added->SetName("fresh");
  HloInstruction* again = entry->AddInstruction(HloOpcode::kNegate, kF32, {added}, "fresh");
  EXPECT_NE(again->name(), "fresh");
  ExpectVerifies(*module);
}

TEST(IrBuildTest, AddedComputationsGetUniqueNames) {
  HloModule module("m");
  HloComputation* a = module.AddComputation("body");
  HloComputation* b = module.AddComputation("body");
  EXPECT_EQ(a->name(), "body");
  EXPECT_NE(b->name(), "body");
  EXPECT_EQ(module.GetComputationWithName(b->name()), b);
  EXPECT_EQ(module.computation_count(), 2);
  EXPECT_EQ(module.entry_computation(), nullptr);
}

TEST(IrBuildTest, FirstInstructionIsTheRootUntilChanged) {
  HloModule module("m");
  HloComputation* entry = module.AddComputation("main", true);
  HloInstruction* p = entry->AddParameter(kF32x4, "p");
  EXPECT_EQ(entry->root_instruction(), p);
  HloInstruction* n = entry->AddInstruction(HloOpcode::kNegate, kF32x4, {p});
  EXPECT_EQ(entry->root_instruction(), p);
  ASSERT_TRUE(entry->set_root_instruction(n).ok());
  EXPECT_EQ(entry->root_instruction(), n);
  EXPECT_TRUE(n->IsRoot());
  EXPECT_FALSE(p->IsRoot());
}

TEST(IrBuildTest, AppendOperandKeepsUserListsInStep) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT n = f32[] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = Find(module, "p");
  HloInstruction* q = Find(module, "q");
  Shape tuple_shape = Shape::MakeTuple({kF32, kF32, kF32});
  HloInstruction* t = entry->AddInstruction(HloOpcode::kTuple, tuple_shape, {}, "t");
  EXPECT_EQ(t->operand_count(), 0);
  t->AppendOperand(p);
  t->AppendOperand(q);
  t->AppendOperand(p);
  EXPECT_THAT(t->operands(), ElementsAre(p, q, p));
  // A user is listed once however many times it uses a value.
  EXPECT_THAT(p->users(), UnorderedElementsAre(Find(module, "n"), t));
  EXPECT_EQ(p->user_count(), 2);
  EXPECT_THAT(q->users(), ElementsAre(t));
  EXPECT_TRUE(p->HasUser(t));
  EXPECT_TRUE(q->HasUser(t));
  EXPECT_FALSE(q->HasUser(Find(module, "n")));
  ExpectVerifies(*module);

  t->DropAllOperands();
  EXPECT_EQ(t->operand_count(), 0);
  EXPECT_THAT(p->users(), ElementsAre(Find(module, "n")));
  EXPECT_THAT(q->users(), IsEmpty());
}

// ---------------------------------------------------------------------------
// Rewiring

TEST(IrRewireTest, ReplaceOperandWithDuplicateOperands) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT a = f32[4] add(x, x)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* x = Find(module, "x");
  HloInstruction* y = Find(module, "y");
  HloInstruction* a = Find(module, "a");
  ASSERT_THAT(x->users(), ElementsAre(a));

  a->ReplaceOperandWith(0, y);
  EXPECT_THAT(a->operands(), ElementsAre(y, x));
  // x is still used by the second operand.
  EXPECT_THAT(x->users(), ElementsAre(a));
  EXPECT_THAT(y->users(), ElementsAre(a));
  ExpectVerifies(*module);

  a->ReplaceOperandWith(1, y);
  EXPECT_THAT(a->operands(), ElementsAre(y, y));
  EXPECT_THAT(x->users(), IsEmpty());
  EXPECT_THAT(y->users(), ElementsAre(a));
  ExpectVerifies(*module);

  // Replacing an operand with itself changes nothing.
  a->ReplaceOperandWith(0, y);
  EXPECT_THAT(a->operands(), ElementsAre(y, y));
  EXPECT_THAT(y->users(), ElementsAre(a));
  ExpectVerifies(*module);
}

TEST(IrRewireTest, ReplaceUseWithTouchesOneUser) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, x)
  b = f32[4] negate(x)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* x = Find(module, "x");
  HloInstruction* y = Find(module, "y");
  HloInstruction* a = Find(module, "a");
  HloInstruction* b = Find(module, "b");
  ASSERT_TRUE(x->ReplaceUseWith(a, y).ok());
  EXPECT_THAT(a->operands(), ElementsAre(y, y));
  EXPECT_THAT(b->operands(), ElementsAre(x));
  EXPECT_THAT(x->users(), ElementsAre(b));
  EXPECT_THAT(y->users(), ElementsAre(a));
  ExpectVerifies(*module);
  // a is no longer a user of x.
  absl::Status status = x->ReplaceUseWith(a, y);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

TEST(IrRewireTest, ReplaceAllUsesWith) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a = f32[4] add(p0, p0)
  b = f32[4] multiply(a, p0)
  c = f32[4] subtract(p1, p0)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(a, b, c)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* p0 = Find(module, "p0");
  HloInstruction* p1 = Find(module, "p1");
  HloInstruction* a = Find(module, "a");
  HloInstruction* b = Find(module, "b");
  HloInstruction* c = Find(module, "c");
  ASSERT_TRUE(p0->ReplaceAllUsesWith(p1).ok());
  EXPECT_THAT(p0->users(), IsEmpty());
  EXPECT_THAT(a->operands(), ElementsAre(p1, p1));
  EXPECT_THAT(b->operands(), ElementsAre(a, p1));
  EXPECT_THAT(c->operands(), ElementsAre(p1, p1));
  EXPECT_THAT(p1->users(), UnorderedElementsAre(a, b, c));
  ExpectVerifies(*module);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("  c = f32[4]{0} subtract(p1, p1)\n"));
}

TEST(IrRewireTest, ReplaceAllUsesWithReplacesTheRoot) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* r = Find(module, "r");
  HloInstruction* n = entry->AddInstruction(HloOpcode::kAbs, kF32x4, {Find(module, "p")}, "n");
  ASSERT_TRUE(r->ReplaceAllUsesWith(n).ok());
  EXPECT_EQ(entry->root_instruction(), n);
  EXPECT_FALSE(r->IsRoot());
  ExpectVerifies(*module);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("  ROOT n = f32[4]{0} abs(p)\n"));
}

TEST(IrRewireTest, ReplaceAllUsesWithRejectsIncompatibleShapes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[8] parameter(1)
  s = s32[4] parameter(2)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* p = Find(module, "p");
  HloInstruction* n = Find(module, "n");
  for (const char* other : {"q", "s"}) {
    absl::Status status = p->ReplaceAllUsesWith(Find(module, other));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << other;
    // Nothing changed.
    EXPECT_THAT(n->operands(), ElementsAre(p));
    EXPECT_THAT(p->users(), ElementsAre(n));
    EXPECT_THAT(Find(module, other)->users(), IsEmpty());
  }
  ExpectVerifies(*module);
}

TEST(IrRewireTest, ReplaceAllUsesWithIgnoresLayouts) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  q = f32[2,3]{0,1} parameter(1)
  ROOT n = f32[2,3]{1,0} negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(Find(module, "p")->ReplaceAllUsesWith(Find(module, "q")).ok());
  EXPECT_THAT(Find(module, "n")->operands(), ElementsAre(Find(module, "q")));
}

TEST(IrRewireTest, ReplaceAllUsesWithAUserOfItself) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  e = f32[4] exponential(p)
  ROOT a = f32[4] add(p, e)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* p = Find(module, "p");
  HloComputation* entry = module->entry_computation();
  HloInstruction* n = entry->AddInstruction(HloOpcode::kNegate, kF32x4, {p}, "n");
  ASSERT_TRUE(p->ReplaceAllUsesWith(n).ok());
  // n keeps p as its operand; everything else now reads n.
  EXPECT_THAT(n->operands(), ElementsAre(p));
  EXPECT_THAT(p->users(), ElementsAre(n));
  EXPECT_THAT(Find(module, "e")->operands(), ElementsAre(n));
  EXPECT_THAT(Find(module, "a")->operands(), ElementsAre(n, Find(module, "e")));
  EXPECT_THAT(n->users(), UnorderedElementsAre(Find(module, "e"), Find(module, "a")));
  ExpectVerifies(*module);
}

TEST(IrRewireTest, ReplaceAllUsesWithDifferentShape) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[8] parameter(1)
  n = f32[4] negate(p)
  ROOT r = f32[4] sine(n)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* p = Find(module, "p");
  HloInstruction* q = Find(module, "q");
  HloInstruction* n = Find(module, "n");
  HloInstruction* r = Find(module, "r");
  ASSERT_TRUE(p->ReplaceAllUsesWithDifferentShape(q).ok());
  EXPECT_THAT(n->operands(), ElementsAre(q));
  EXPECT_THAT(q->users(), ElementsAre(n));
  EXPECT_THAT(p->users(), IsEmpty());
  // The users' shapes are the caller's business; fixed, the module is valid.
  Shape f32x8(PrimitiveType::F32, {8});
  n->set_shape(f32x8);
  r->set_shape(f32x8);
  EXPECT_EQ(n->shape().ToString(), "f32[8]{0}");
  ExpectVerifies(*module);
}

// ---------------------------------------------------------------------------
// Removal

TEST(IrRemoveTest, RemoveInstructionRefusesUsedRootAndParameters) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  n = f32[] negate(p)
  dead = f32[] sine(n)
  ROOT r = f32[] exponential(n)
}
other {
  ROOT o = f32[] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->GetComputationWithName("main");
  module->set_entry_computation(entry);
  EXPECT_EQ(entry->RemoveInstruction(Find(module, "n")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(entry->RemoveInstruction(Find(module, "r")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(entry->RemoveInstruction(Find(module, "p")).ok());
  EXPECT_EQ(entry->RemoveInstruction(Find(module, "o")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(entry->instruction_count(), 4);

  HloInstruction* n = Find(module, "n");
  ASSERT_TRUE(entry->RemoveInstruction(Find(module, "dead")).ok());
  EXPECT_EQ(entry->instruction_count(), 3);
  EXPECT_EQ(entry->GetInstructionWithName("dead"), nullptr);
  EXPECT_THAT(n->users(), ElementsAre(Find(module, "r")));
  ExpectVerifies(*module);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()), ::testing::Not(HasSubstr("dead")));
}

TEST(IrRemoveTest, RemovingAControlPredecessorDropsTheEdge) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  ROOT b = f32[] exponential(p), control-predecessors={a}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* b = Find(module, "b");
  ASSERT_THAT(b->control_predecessors(), ElementsAre(Find(module, "a")));
  ASSERT_TRUE(module->entry_computation()->RemoveInstruction(Find(module, "a")).ok());
  EXPECT_THAT(b->control_predecessors(), IsEmpty());
  ExpectVerifies(*module);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("  ROOT b = f32[] exponential(p)\n"));
}

TEST(IrRemoveTest, RemoveInstructionAndUnusedOperands) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  b = f32[] exponential(a)
  c = f32[] add(b, b)
  keep = f32[] sine(a)
  d1 = f32[] negate(p)
  d2 = f32[] negate(d1)
  d3 = f32[] multiply(d2, d1)
  ROOT r = f32[] cosine(keep)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = Find(module, "a");
  ASSERT_TRUE(entry->RemoveInstructionAndUnusedOperands(Find(module, "c")).ok());
  EXPECT_EQ(entry->GetInstructionWithName("c"), nullptr);
  EXPECT_EQ(entry->GetInstructionWithName("b"), nullptr);
  // a is still used by keep; p is a parameter.
  EXPECT_EQ(entry->GetInstructionWithName("a"), a);
  EXPECT_THAT(a->users(), ElementsAre(Find(module, "keep")));
  EXPECT_NE(entry->GetInstructionWithName("p"), nullptr);
  ExpectVerifies(*module);

  // A chain whose links are used twice goes away entirely.
  ASSERT_TRUE(entry->RemoveInstructionAndUnusedOperands(Find(module, "d3")).ok());
  for (const char* gone : {"d1", "d2", "d3"})
    EXPECT_EQ(entry->GetInstructionWithName(gone), nullptr) << gone;
  EXPECT_EQ(entry->instruction_count(), 4);  // p, a, keep, r
  EXPECT_THAT(Find(module, "p")->users(), ElementsAre(a));
  ExpectVerifies(*module);
}

TEST(IrRemoveTest, RemoveInstructionAndUnusedOperandsRefusesLiveInstructions) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  n = f32[] negate(p)
  ROOT r = f32[] exponential(n)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_FALSE(entry->RemoveInstructionAndUnusedOperands(Find(module, "n")).ok());
  EXPECT_FALSE(entry->RemoveInstructionAndUnusedOperands(Find(module, "r")).ok());
  EXPECT_EQ(entry->instruction_count(), 3);
  ExpectVerifies(*module);
}

TEST(IrRemoveTest, ReplaceInstruction) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  e = f32[4] exponential(p)
  old = f32[4] negate(e)
  ROOT r = f32[4] add(old, p)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = Find(module, "p");
  HloInstruction* r = Find(module, "r");
  HloInstruction* replacement = entry->AddInstruction(HloOpcode::kAbs, kF32x4, {p}, "abs");
  ASSERT_TRUE(entry->ReplaceInstruction(Find(module, "old"), replacement).ok());
  EXPECT_THAT(r->operands(), ElementsAre(replacement, p));
  // The replaced instruction and the operand only it used are gone.
  EXPECT_EQ(entry->GetInstructionWithName("old"), nullptr);
  EXPECT_EQ(entry->GetInstructionWithName("e"), nullptr);
  EXPECT_EQ(entry->instruction_count(), 3);
  ExpectVerifies(*module);

  // Replacing the root makes the replacement the root.
  HloInstruction* new_root =
      entry->AddInstruction(HloOpcode::kMultiply, kF32x4, {replacement, p}, "mul");
  ASSERT_TRUE(entry->ReplaceInstruction(r, new_root).ok());
  EXPECT_EQ(entry->root_instruction(), new_root);
  EXPECT_EQ(entry->GetInstructionWithName("r"), nullptr);
  ExpectVerifies(*module);
}

TEST(IrRemoveTest, ReplaceInstructionChecksShapes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[8] parameter(1)
  n = f32[4] negate(p)
  ROOT r = f32[4] sine(n)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* n = Find(module, "n");
  HloInstruction* wide = entry->AddInstruction(HloOpcode::kNegate, Shape(PrimitiveType::F32, {8}),
                                               {Find(module, "q")}, "wide");
  EXPECT_FALSE(entry->ReplaceInstruction(n, wide).ok());
  EXPECT_EQ(entry->GetInstructionWithName("n"), n);
  EXPECT_THAT(Find(module, "r")->operands(), ElementsAre(n));

  ASSERT_TRUE(entry->ReplaceInstructionWithDifferentShape(n, wide).ok());
  EXPECT_THAT(Find(module, "r")->operands(), ElementsAre(wide));
  EXPECT_EQ(entry->GetInstructionWithName("n"), nullptr);
}

TEST(IrRemoveTest, SetRootInstruction) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  s = f32[] parameter(1)
  ROOT r = f32[4] sine(n)
}
other {
  ROOT o = f32[4] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->GetComputationWithName("main");
  module->set_entry_computation(entry);
  HloInstruction* r = Find(module, "r");
  ASSERT_TRUE(entry->set_root_instruction(Find(module, "n")).ok());
  EXPECT_EQ(entry->root_instruction(), Find(module, "n"));
  // Another shape is refused unless asked for.
  EXPECT_EQ(entry->set_root_instruction(Find(module, "s")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(entry->root_instruction(), Find(module, "n"));
  // An instruction of another computation is refused.
  EXPECT_FALSE(entry->set_root_instruction(Find(module, "o")).ok());
  EXPECT_EQ(entry->root_instruction(), Find(module, "n"));
  ASSERT_TRUE(entry->set_root_instruction(Find(module, "s"), /*accept_different_shape=*/true).ok());
  EXPECT_EQ(entry->root_instruction(), Find(module, "s"));
  // The old root is an ordinary, removable instruction now.
  EXPECT_TRUE(entry->RemoveInstruction(r).ok());
  ExpectVerifies(*module);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("entry_computation_layout={(f32[4]{0}, f32[])->f32[]}"));
}

TEST(IrRemoveTest, RemoveParameterRenumbers) {
  auto module = ParseOrFail(R"(HloModule m, entry_computation_layout={(f32[], s32[], f32[2])->f32[]}
ENTRY main {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[2] parameter(2)
  ROOT n = f32[] negate(a)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = Find(module, "a");
  HloInstruction* c = Find(module, "c");
  EXPECT_EQ(entry->RemoveParameter(0).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(entry->RemoveParameter(3).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(entry->RemoveParameter(-1).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(entry->num_parameters(), 3);

  ASSERT_TRUE(entry->RemoveParameter(1).ok());
  EXPECT_EQ(entry->num_parameters(), 2);
  EXPECT_EQ(entry->parameter_instruction(0), a);
  EXPECT_EQ(entry->parameter_instruction(1), c);
  EXPECT_EQ(c->parameter_number(), 1);
  EXPECT_EQ(entry->GetInstructionWithName("b"), nullptr);
  EXPECT_EQ(entry->instruction_count(), 3);
  ExpectVerifies(*module);
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(text, HasSubstr("  c = f32[2]{0} parameter(1)\n"));
  EXPECT_THAT(text, HasSubstr("entry_computation_layout={(f32[], f32[2]{0})->f32[]}"));
  // The text parses back.
  EXPECT_NE(ParseOrFail(text), nullptr);
}

}  // namespace
}  // namespace hopt

// Tests for the IR's mutation API (include/hopt/ir/instruction.h, computation.h,
// module.h): building, rewiring and removing instructions, attributes and
// their typed views, cloning, and module-level utilities.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/list_order.h"
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
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing_util::ParseOrFail;

std::vector<std::string> AttributeNames(const HloInstruction& instruction) {
  std::vector<std::string> names;
  for (const HloAttribute& attr : instruction.attributes()) names.emplace_back(attr.name);
  return names;
}

std::vector<std::string> ComputationNames(const std::vector<HloComputation*>& computations) {
  std::vector<std::string> names;
  for (const HloComputation* c : computations) names.emplace_back(c->name());
  return names;
}

void ExpectVerifies(const HloModule& module) {
  absl::Status status = VerifyModule(module);
  EXPECT_TRUE(status.ok()) << status << "\n" << PrintModule(module, PrintOptions::Short());
}

HloInstruction* Find(const std::unique_ptr<HloModule>& module, absl::string_view name) {
  for (HloComputation* c : module->computations())
    if (HloInstruction* i = c->GetInstructionWithName(name)) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

const Shape kF32(PrimitiveType::F32, {});
const Shape kF32x4(PrimitiveType::F32, {4});

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
  HloInstruction* added =
      entry->AddInstruction(HloOpcode::kAdd, kF32, {Find(module, "add"), Find(module, "add")},
                            "add");
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
  EXPECT_EQ(entry->RemoveInstruction(Find(module, "o")).code(),
            absl::StatusCode::kInvalidArgument);
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
  HloInstruction* wide =
      entry->AddInstruction(HloOpcode::kNegate, Shape(PrimitiveType::F32, {8}),
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

// ---------------------------------------------------------------------------
// Attributes

constexpr absl::string_view kAllReduce = R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p0 = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p0), replica_groups={{0,1}}, to_apply=add
}
)";

TEST(IrAttributeTest, NewAttributesGoWhereXlaPrintsThem) {
  auto module = ParseOrFail(std::string(kAllReduce));
  ASSERT_NE(module, nullptr);
  HloInstruction* ar = Find(module, "ar");
  ar->SetAttributeText("channel_id", "5");
  EXPECT_THAT(AttributeNames(*ar), ElementsAre("channel_id", "replica_groups", "to_apply"));
  EXPECT_EQ(PrintInstruction(*ar, PrintOptions::Short()),
            "ar = f32[8]{0} all-reduce(p0), channel_id=5, replica_groups={{0,1}}, to_apply=add");

  ar->SetAttributeText("use_global_device_ids", "true");
  ar->SetAttributeText("constrain_layout", "true");
  ar->set_backend_config("cfg");
  ar->set_metadata(OpMetadata{"AllReduce", "x/y", "", 0});
  ar->set_frontend_attributes({{"k", "v"}});
  EXPECT_THAT(AttributeNames(*ar),
              ElementsAre("channel_id", "replica_groups", "constrain_layout",
                          "use_global_device_ids", "to_apply", "frontend_attributes",
                          "metadata", "backend_config"));

  // Setting an existing attribute keeps its place.
  ar->SetAttributeText("replica_groups", "{{1,0}}");
  ar->set_channel_id(9);
  EXPECT_THAT(AttributeNames(*ar),
              ElementsAre("channel_id", "replica_groups", "constrain_layout",
                          "use_global_device_ids", "to_apply", "frontend_attributes",
                          "metadata", "backend_config"));
  EXPECT_EQ(PrintInstruction(*ar, PrintOptions::Short()),
            "ar = f32[8]{0} all-reduce(p0), channel_id=9, replica_groups={{1,0}}, "
            "constrain_layout=true, use_global_device_ids=true, to_apply=add, "
            "frontend_attributes={k=\"v\"}, metadata={op_type=\"AllReduce\" op_name=\"x/y\"}, "
            "backend_config=\"cfg\"");

  // Removing.
  ar->set_channel_id(std::nullopt);
  EXPECT_FALSE(ar->HasAttribute("channel_id"));
  EXPECT_TRUE(ar->RemoveAttribute("constrain_layout"));
  EXPECT_FALSE(ar->RemoveAttribute("constrain_layout"));
  ar->set_backend_config("");
  ar->set_frontend_attributes({});
  EXPECT_THAT(AttributeNames(*ar),
              ElementsAre("replica_groups", "use_global_device_ids", "to_apply", "metadata"));
  ExpectVerifies(*module);

  // What was set parses back.
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), PrintModule(*module));
}

// XLA prints an all-gather's dimensions before use_global_device_ids, and a
// reduce-scatter's after it (HloAllGatherInstruction vs
// HloReduceScatterInstruction::PrintExtraAttributesImpl).
TEST(IrAttributeTest, UseGlobalDeviceIdsPlacementFollowsTheOpcode) {
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4,4] parameter(0)
  rs = f32[2,4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ag = f32[8,4] all-gather(p), replica_groups={{0,1}}, dimensions={0}
  ROOT t = (f32[2,4], f32[8,4]) tuple(rs, ag)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* rs = Find(module, "rs");
  HloInstruction* ag = Find(module, "ag");
  for (HloInstruction* i : {rs, ag}) {
    i->set_channel_id(1);
    i->SetAttributeText("use_global_device_ids", "true");
  }
  EXPECT_EQ(PrintInstruction(*rs, PrintOptions::Short()),
            "rs = f32[2,4]{1,0} reduce-scatter(p), channel_id=1, replica_groups={{0,1}}, "
            "use_global_device_ids=true, dimensions={0}, to_apply=add");
  EXPECT_EQ(PrintInstruction(*ag, PrintOptions::Short()),
            "ag = f32[8,4]{1,0} all-gather(p), channel_id=1, replica_groups={{0,1}}, "
            "dimensions={0}, use_global_device_ids=true");
}

TEST(IrAttributeTest, DimensionsAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  ROOT b = f32[2,3,4] broadcast(p), dimensions={1}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* b = Find(module, "b");
  EXPECT_THAT(b->dimensions(), ElementsAre(1));
  EXPECT_THAT(Find(module, "p")->dimensions(), IsEmpty());
  b->set_dimensions({0, 2});
  EXPECT_EQ(b->GetAttributeText("dimensions"), "{0,2}");
  EXPECT_THAT(b->dimensions(), ElementsAre(0, 2));
}

TEST(IrAttributeTest, ReplicaGroupsAccessor) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=30
ENTRY main {
  p = f32[128,32] parameter(0)
  explicit = f32[128,64] all-gather(p), replica_groups={{0,1},{2,3}}, dimensions={1}
  iota = f32[128,64] all-gather(p), replica_groups=[2,2]<=[4], dimensions={1}
  transposed = f32[128,64] all-gather(p), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={1}
  big = f32[128,320] all-gather(p), replica_groups=[3,10]<=[6,5]T(1,0), dimensions={1}
  none = f32[128,32] all-reduce(p), replica_groups={}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
  ROOT t = (f32[128,64], f32[128,64], f32[128,64], f32[128,320], f32[128,32]) tuple(explicit, iota, transposed, big, none)
}
)");
  ASSERT_NE(module, nullptr);
  using Groups = std::vector<std::vector<int64_t>>;

  auto explicit_groups = Find(module, "explicit")->replica_groups();
  ASSERT_TRUE(explicit_groups.has_value());
  EXPECT_FALSE(explicit_groups->is_iota);
  EXPECT_EQ(explicit_groups->groups, (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(explicit_groups->ExpandedGroups(), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(explicit_groups->ToString(), "{{0,1},{2,3}}");

  auto iota = Find(module, "iota")->replica_groups();
  ASSERT_TRUE(iota.has_value());
  EXPECT_TRUE(iota->is_iota);
  EXPECT_EQ(iota->num_groups, 2);
  EXPECT_EQ(iota->group_size, 2);
  EXPECT_THAT(iota->reshape_dims, ElementsAre(4));
  EXPECT_THAT(iota->transpose_perm, IsEmpty());
  EXPECT_EQ(iota->ExpandedGroups(), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(iota->ToString(), "[2,2]<=[4]");

  auto transposed = Find(module, "transposed")->replica_groups();
  ASSERT_TRUE(transposed.has_value());
  EXPECT_THAT(transposed->transpose_perm, ElementsAre(1, 0));
  EXPECT_EQ(transposed->ExpandedGroups(), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(transposed->ToString(), "[2,2]<=[2,2]T(1,0)");

  // iota(30) as [6,5], transposed to [5,6] (element [i][j] = 5*j + i), read
  // row by row in groups of 10.
  auto big = Find(module, "big")->replica_groups();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->ExpandedGroups(), (Groups{{0, 5, 10, 15, 20, 25, 1, 6, 11, 16},
                                           {21, 26, 2, 7, 12, 17, 22, 27, 3, 8},
                                           {13, 18, 23, 28, 4, 9, 14, 19, 24, 29}}));

  auto none = Find(module, "none")->replica_groups();
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(Find(module, "p")->replica_groups().has_value());
  ExpectVerifies(*module);

  HloInstruction* explicit_ag = Find(module, "explicit");
  explicit_ag->set_replica_groups(ReplicaGroupList::FromGroups({{0, 2}, {1, 3}}));
  EXPECT_EQ(explicit_ag->GetAttributeText("replica_groups"), "{{0,2},{1,3}}");
  EXPECT_EQ(explicit_ag->replica_groups()->groups, (Groups{{0, 2}, {1, 3}}));
}

TEST(IrAttributeTest, IotaReplicaGroupsWithThreeDimensions) {
  // iota(8) as [2,2,2], permuted by (2,0,1): element [i][j][k] of the
  // [2,2,2] result is source [j][k][i] = 4*j + 2*k + i.
  absl::StatusOr<ReplicaGroupList> groups = ParseReplicaGroups("[2,4]<=[2,2,2]T(2,0,1)");
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(groups->ExpandedGroups(),
            (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
}

TEST(IrAttributeTest, SourceTargetPairsAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), channel_id=3, source_target_pairs={{0,1},{1,2},{2,0}}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cp = Find(module, "cp");
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(cp->source_target_pairs(), (Pairs{{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_THAT(Find(module, "p")->source_target_pairs(), IsEmpty());
  cp->set_source_target_pairs({{1, 0}, {0, 1}});
  EXPECT_EQ(cp->GetAttributeText("source_target_pairs"), "{{1,0},{0,1}}");
  EXPECT_EQ(cp->source_target_pairs(), (Pairs{{1, 0}, {0, 1}}));
  EXPECT_THAT(AttributeNames(*cp), ElementsAre("channel_id", "source_target_pairs"));
}

TEST(IrAttributeTest, ChannelIdAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), channel_id=3, source_target_pairs={{0,1}}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cp = Find(module, "cp");
  EXPECT_EQ(cp->channel_id(), 3);
  EXPECT_FALSE(Find(module, "p")->channel_id().has_value());
  cp->set_channel_id(42);
  EXPECT_EQ(cp->channel_id(), 42);
  EXPECT_EQ(cp->GetAttributeText("channel_id"), "42");
  cp->set_channel_id(std::nullopt);
  EXPECT_FALSE(cp->channel_id().has_value());
}

TEST(IrAttributeTest, CustomCallTargetWithEscapes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cc = f32[4] custom-call(p), custom_call_target="foo\"bar\\baz\n\tqux"
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cc = Find(module, "cc");
  EXPECT_EQ(cc->custom_call_target(), "foo\"bar\\baz\n\tqux");
  EXPECT_EQ(cc->GetAttributeText("custom_call_target"), "\"foo\\\"bar\\\\baz\\n\\tqux\"");

  const std::string target = "new \"target\" \\ with\nlines";
  cc->set_custom_call_target(target);
  EXPECT_EQ(cc->custom_call_target(), target);
  EXPECT_EQ(cc->GetAttributeText("custom_call_target"),
            "\"new \\\"target\\\" \\\\ with\\nlines\"");
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Find(again, "cc")->custom_call_target(), target);
}

TEST(IrAttributeTest, BackendConfigRawAndQuoted) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  raw = f32[4] custom-call(p), custom_call_target="a", backend_config={"key": [1, 2], "s": "x"}
  quoted = f32[4] custom-call(p), custom_call_target="b", backend_config="opaque \"text\""
  ROOT none = f32[4] custom-call(raw, quoted), custom_call_target="c"
}
)");
  ASSERT_NE(module, nullptr);
  bool raw = false;
  EXPECT_EQ(Find(module, "raw")->backend_config(&raw), "{\"key\": [1, 2], \"s\": \"x\"}");
  EXPECT_TRUE(raw);
  EXPECT_EQ(Find(module, "quoted")->backend_config(&raw), "opaque \"text\"");
  EXPECT_FALSE(raw);
  EXPECT_EQ(Find(module, "none")->backend_config(&raw), "");
  EXPECT_FALSE(raw);
  EXPECT_EQ(Find(module, "raw")->backend_config(), "{\"key\": [1, 2], \"s\": \"x\"}");

  // Both forms print back as written.
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(text, HasSubstr("backend_config={\"key\": [1, 2], \"s\": \"x\"}\n"));
  EXPECT_THAT(text, HasSubstr("backend_config=\"opaque \\\"text\\\"\"\n"));

  // A value set through the API reads back unchanged, also after printing
  // and parsing.
  HloInstruction* none = Find(module, "none");
  const std::string json = R"({"replica_groups":[[0,1]],"channel_id":1})";
  none->set_backend_config(json);
  EXPECT_EQ(none->backend_config(), json);
  const std::string odd = "line1\nline2 \"q\" \\";
  Find(module, "quoted")->set_backend_config(odd);
  EXPECT_EQ(Find(module, "quoted")->backend_config(), odd);
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Find(again, "none")->backend_config(), json);
  EXPECT_EQ(Find(again, "quoted")->backend_config(), odd);
}

TEST(IrAttributeTest, MetadataAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p), metadata={op_type="Neg" op_name="jit(f)/neg" source_file="/tmp/x.py" source_line=42}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* n = Find(module, "n");
  std::optional<OpMetadata> metadata = n->metadata();
  ASSERT_TRUE(metadata.has_value());
  EXPECT_EQ(metadata->op_type, "Neg");
  EXPECT_EQ(metadata->op_name, "jit(f)/neg");
  EXPECT_EQ(metadata->source_file, "/tmp/x.py");
  EXPECT_EQ(metadata->source_line, 42);
  EXPECT_FALSE(Find(module, "p")->metadata().has_value());

  n->set_metadata(OpMetadata{"Abs", "a \"b\"", "", 7});
  EXPECT_EQ(n->GetAttributeText("metadata"),
            "{op_type=\"Abs\" op_name=\"a \\\"b\\\"\" source_line=7}");
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  std::optional<OpMetadata> reread = Find(again, "n")->metadata();
  ASSERT_TRUE(reread.has_value());
  EXPECT_EQ(reread->op_type, "Abs");
  EXPECT_EQ(reread->op_name, "a \"b\"");
  EXPECT_EQ(reread->source_file, "");
  EXPECT_EQ(reread->source_line, 7);
}

TEST(IrAttributeTest, FrontendAttributesAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p), frontend_attributes={_xla_compute_type="host",b="1"}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* n = Find(module, "n");
  using Attrs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(n->frontend_attributes(), (Attrs{{"_xla_compute_type", "host"}, {"b", "1"}}));
  EXPECT_THAT(Find(module, "p")->frontend_attributes(), IsEmpty());
  n->set_frontend_attributes({{"_xla_send_recv_source_target_pairs", "{{0,1}}"}, {"q", "a\"b"}});
  EXPECT_EQ(n->GetAttributeText("frontend_attributes"),
            "{_xla_send_recv_source_target_pairs=\"{{0,1}}\",q=\"a\\\"b\"}");
  EXPECT_EQ(n->frontend_attributes(),
            (Attrs{{"_xla_send_recv_source_target_pairs", "{{0,1}}"}, {"q", "a\"b"}}));
}

TEST(IrAttributeTest, OtherTypedViews) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = (f32[8], s32[]) parameter(0)
  g = f32[8] get-tuple-element(p), index=0
  s = f32[3] slice(g), slice={[1:7:2]}
  d = f32[2] dynamic-slice(g, s32[] get-tuple-element(p), index=1), dynamic_slice_sizes={2}
  c = pred[3] compare(s, s), direction=LT
  ROOT t = (pred[3], f32[2]) tuple(c, d)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Find(module, "g")->tuple_index(), 0);
  EXPECT_EQ(Find(module, "s")->tuple_index(), -1);
  std::vector<SliceDimension> slice = Find(module, "s")->slice();
  ASSERT_EQ(slice.size(), 1u);
  EXPECT_EQ(slice[0].start, 1);
  EXPECT_EQ(slice[0].limit, 7);
  EXPECT_EQ(slice[0].stride, 2);
  EXPECT_EQ(FormatSlice(slice), "{[1:7:2]}");
  EXPECT_THAT(Find(module, "d")->dynamic_slice_sizes(), ElementsAre(2));
  EXPECT_EQ(Find(module, "c")->comparison_direction(), "LT");
  EXPECT_EQ(Find(module, "c")->IntAttribute("direction"), std::nullopt);
  ExpectVerifies(*module);
}

// ---------------------------------------------------------------------------
// Module-level utilities

constexpr absl::string_view kCloneSource = R"(HloModule clone_me, entry_computation_layout={(f32[8]{0}, f32[8]{0})->(f32[8]{0}, f32[])}, replica_count=2, frontend_attributes={x="y"}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

side {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}, execution_thread="aux"

ENTRY main {
  p = f32[8] parameter(0)
  q = f32[8] parameter(1)
  c = f32[] constant(1.5)
  ar = f32[8] all-reduce(p), channel_id=4, replica_groups={{0,1}}, to_apply=add, metadata={op_name="ar"}
  r = f32[] reduce(q, c), dimensions={0}, to_apply=add
  k = f32[] call(r), to_apply=side
  st = ((f32[8]), f32[8], s32[]) custom-call-start(ar), custom_call_target="t", backend_config={"a":1}
  dn = f32[8] custom-call-done(st), control-predecessors={k}
  ROOT out = (f32[8], f32[]) tuple(dn, k)
}
)";

TEST(IrModuleTest, CloneIsDeep) {
  auto original = ParseOrFail(std::string(kCloneSource));
  ASSERT_NE(original, nullptr);
  ExpectVerifies(*original);
  const std::string before_long = PrintModule(*original, PrintOptions::Long(true));
  const std::string before_short = PrintModule(*original, PrintOptions::Short());

  std::unique_ptr<HloModule> clone = original->Clone();
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(PrintModule(*clone, PrintOptions::Long(true)), before_long);
  EXPECT_EQ(PrintModule(*clone, PrintOptions::Short()), before_short);
  EXPECT_EQ(clone->name(), original->name());
  EXPECT_EQ(clone->replica_count(), 2);
  ExpectVerifies(*clone);

  // Nothing in the clone points into the original.
  EXPECT_NE(clone->entry_computation(), original->entry_computation());
  for (HloComputation* c : clone->computations()) {
    EXPECT_EQ(c->parent(), clone.get());
    for (HloInstruction* i : c->instructions()) {
      EXPECT_EQ(i->GetModule(), clone.get()) << i->name();
      for (const HloInstruction* operand : i->operands()) EXPECT_EQ(operand->parent(), c);
      for (HloComputation* callee : i->called_computations())
        EXPECT_EQ(callee->parent(), clone.get()) << i->name();
      for (HloInstruction* pred : i->control_predecessors()) EXPECT_EQ(pred->parent(), c);
    }
  }
  EXPECT_EQ(Find(clone, "st")->async_wrapped_opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(Find(clone, "c")->literal_text(), "1.5");
  EXPECT_EQ(clone->GetComputationWithName("side")->execution_thread(), "aux");

  // Mutating the clone leaves the original alone.
  HloComputation* entry = clone->entry_computation();
  HloInstruction* n = entry->AddInstruction(
      HloOpcode::kNegate, Shape(PrimitiveType::F32, {8}), {Find(clone, "p")}, "extra");
  ASSERT_TRUE(Find(clone, "ar")->ReplaceAllUsesWith(n).ok());
  Find(clone, "ar")->set_channel_id(77);
  Find(clone, "r")->SetName("renamed");
  Find(clone, "st")->set_custom_call_target("changed");
  clone->set_replica_count(8);
  clone->SetHeaderAttribute("frontend_attributes", "{x=\"z\"}");
  EXPECT_NE(PrintModule(*clone, PrintOptions::Long(true)), before_long);
  EXPECT_EQ(PrintModule(*original, PrintOptions::Long(true)), before_long);
  EXPECT_EQ(PrintModule(*original, PrintOptions::Short()), before_short);
  ExpectVerifies(*original);
  ExpectVerifies(*clone);
}

TEST(IrModuleTest, CloneOutlivesTheOriginal) {
  auto original = ParseOrFail(std::string(kCloneSource));
  ASSERT_NE(original, nullptr);
  const std::string expected = PrintModule(*original, PrintOptions::Long(true));
  std::unique_ptr<HloModule> clone = original->Clone();
  original.reset();
  EXPECT_EQ(PrintModule(*clone, PrintOptions::Long(true)), expected);
  ExpectVerifies(*clone);
  // The clone names new instructions without clashing with copied ones.
  HloInstruction* added = clone->entry_computation()->AddInstruction(
      HloOpcode::kNegate, Shape(PrimitiveType::F32, {8}), {Find(clone, "p")}, "ar");
  EXPECT_NE(added->name(), "ar");
}

TEST(IrModuleTest, NextChannelId) {
  auto none = ParseOrFail(std::string(kAllReduce));
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->NextChannelId(), 1);

  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] collective-permute(p), channel_id=3, source_target_pairs={{0,1}}
  b = f32[4] collective-permute(a), channel_id=7, source_target_pairs={{0,1}}
  ROOT c = f32[4] collective-permute(b), source_target_pairs={{0,1}}
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->NextChannelId(), 8);
  Find(module, "c")->set_channel_id(module->NextChannelId());
  EXPECT_EQ(Find(module, "c")->channel_id(), 8);
  EXPECT_EQ(module->NextChannelId(), 9);
}

TEST(IrModuleTest, MakeComputationPostOrder) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] call(p), to_apply=left
  b = f32[] call(p), to_apply=right
  ROOT t = (f32[], f32[]) tuple(a, b)
}
left {
  x = f32[] parameter(0)
  ROOT l = f32[] call(x), to_apply=shared
}
right {
  y = f32[] parameter(0)
  ROOT r = f32[] call(y), to_apply=shared
}
shared {
  z = f32[] parameter(0)
  ROOT n = f32[] negate(z)
}
lonely {
  ROOT w = f32[] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order = ComputationNames(module->MakeComputationPostOrder());
  ASSERT_EQ(order.size(), 5u);
  EXPECT_THAT(order, UnorderedElementsAre("main", "left", "right", "shared", "lonely"));
  auto at = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  EXPECT_LT(at("shared"), at("left"));
  EXPECT_LT(at("shared"), at("right"));
  EXPECT_LT(at("left"), at("main"));
  EXPECT_LT(at("right"), at("main"));
  EXPECT_THAT(ComputationNames(module->entry_computation()->MakeEmbeddedComputationsList()),
              UnorderedElementsAre("left", "right", "shared"));
}

TEST(IrModuleTest, RemoveUnreachableComputations) {
  auto module = ParseOrFail(R"(HloModule m
used {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
helper {
  y = f32[] parameter(0)
  ROOT e = f32[] exponential(y)
}
orphan {
  z = f32[] parameter(0)
  ROOT c = f32[] call(z), to_apply=helper
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=used
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->computation_count(), 4);
  EXPECT_EQ(module->RemoveUnreachableComputations(), 2);
  EXPECT_THAT(ComputationNames(module->computations()), ElementsAre("used", "main"));
  EXPECT_EQ(module->GetComputationWithName("orphan"), nullptr);
  EXPECT_EQ(module->GetComputationWithName("helper"), nullptr);
  ExpectVerifies(*module);
  EXPECT_EQ(module->RemoveUnreachableComputations(), 0);
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(text, ::testing::Not(HasSubstr("orphan")));
  EXPECT_NE(ParseOrFail(text), nullptr);
}

TEST(IrModuleTest, RemoveComputation) {
  auto module = ParseOrFail(R"(HloModule m
used {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
spare {
  ROOT y = f32[] parameter(0)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=used
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(module->RemoveComputation(module->entry_computation()).ok());
  EXPECT_FALSE(module->RemoveComputation(module->GetComputationWithName("used")).ok());
  ASSERT_TRUE(module->RemoveComputation(module->GetComputationWithName("spare")).ok());
  EXPECT_THAT(ComputationNames(module->computations()), ElementsAre("used", "main"));
  ExpectVerifies(*module);
}

// ---------------------------------------------------------------------------
// Scale: one value with 100000 users. A correctness test; it only has to
// finish.

TEST(IrScaleTest, LargeFanOut) {
  constexpr int kUsers = 100000;
  HloModule module("fanout");
  HloComputation* entry = module.AddComputation("main", true);
  HloInstruction* p = entry->AddParameter(kF32, "p");
  HloInstruction* q = entry->AddParameter(kF32, "q");
  std::vector<HloInstruction*> adds;
  adds.reserve(kUsers);
  for (int i = 0; i < kUsers; ++i)
    adds.push_back(entry->AddInstruction(HloOpcode::kAdd, kF32, {p, q}));
  HloInstruction* root = entry->AddInstruction(HloOpcode::kNegate, kF32, {p}, "root");
  ASSERT_TRUE(entry->set_root_instruction(root).ok());
  ASSERT_EQ(p->user_count(), kUsers + 1);
  ExpectVerifies(module);

  ASSERT_TRUE(p->ReplaceAllUsesWith(q).ok());
  EXPECT_EQ(p->user_count(), 0);
  EXPECT_EQ(q->user_count(), kUsers + 1);
  EXPECT_THAT(root->operands(), ElementsAre(q));
  for (int i = 0; i < kUsers; i += 9973) EXPECT_THAT(adds[i]->operands(), ElementsAre(q, q));
  ExpectVerifies(module);

  // Remove every user but the root, in the order the users are listed.
  std::vector<HloInstruction*> users(q->users().begin(), q->users().end());
  for (HloInstruction* user : users) {
    if (user == root) continue;
    ASSERT_TRUE(entry->RemoveInstruction(user).ok()) << user->name();
  }
  EXPECT_THAT(q->users(), ElementsAre(root));
  EXPECT_EQ(entry->instruction_count(), 3);
  ExpectVerifies(module);
  EXPECT_EQ(PrintModule(module, PrintOptions::Short()),
            "HloModule fanout, entry_computation_layout={(f32[], f32[])->f32[]}\n"
            "\n"
            "ENTRY main {\n"
            "  p = f32[] parameter(0)\n"
            "  q = f32[] parameter(1)\n"
            "  ROOT root = f32[] negate(q)\n"
            "}\n"
            "\n");
}

TEST(IrScaleTest, LargeFanOutRemovedAsAGroup) {
  constexpr int kUsers = 100000;
  HloModule module("fanout");
  HloComputation* entry = module.AddComputation("main", true);
  HloInstruction* p = entry->AddParameter(kF32, "p");
  HloInstruction* chain = entry->AddInstruction(HloOpcode::kNegate, kF32, {p}, "chain");
  for (int i = 0; i < kUsers; ++i) entry->AddInstruction(HloOpcode::kAdd, kF32, {chain, p});
  HloInstruction* root = entry->AddInstruction(HloOpcode::kAbs, kF32, {p}, "root");
  ASSERT_TRUE(entry->set_root_instruction(root).ok());
  // Removing each dead user with its unused operands removes chain with the
  // last of them.
  std::vector<HloInstruction*> users(chain->users().begin(), chain->users().end());
  for (HloInstruction* user : users)
    ASSERT_TRUE(entry->RemoveInstructionAndUnusedOperands(user).ok());
  EXPECT_EQ(entry->GetInstructionWithName("chain"), nullptr);
  EXPECT_THAT(p->users(), ElementsAre(root));
  EXPECT_EQ(entry->instruction_count(), 2);
  ExpectVerifies(module);
}

}  // namespace
}  // namespace hopt

namespace hopt {
namespace {

constexpr char kControlEdges[] = R"(HloModule m

ENTRY e {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] abs(p), control-predecessors={a}
  c = f32[2] exponential(p), control-predecessors={a, b}
  ROOT t = (f32[2], f32[2], f32[2]) tuple(a, b, c)
}
)";

TEST(IrControlEdgeTest, RelayMovesBothEndsOfTheEdges) {
  auto module = testing_util::ParseOrFail(kControlEdges);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* b = entry->GetInstructionWithName("b");
  HloInstruction* c = entry->GetInstructionWithName("c");
  HloInstruction* a2 = entry->AddInstruction(HloOpcode::kNegate, a->shape(), {a->mutable_operand(0)}, "a2");
  HloInstruction* b2 = entry->AddInstruction(HloOpcode::kAbs, b->shape(), {b->mutable_operand(0)}, "b2");
  entry->RelayControlDependencies(a, a2);
  EXPECT_THAT(b->control_predecessors(), ElementsAre(a2));
  EXPECT_THAT(c->control_predecessors(), ElementsAre(a2, b));
  // Batched: b's predecessor (a2) moves to b2, c's list names b2.
  entry->RelayControlDependencies({{b, b2}});
  EXPECT_THAT(b2->control_predecessors(), ElementsAre(a2));
  EXPECT_THAT(c->control_predecessors(), ElementsAre(a2, b2));
  ASSERT_TRUE(a->ReplaceAllUsesWith(a2).ok());
  ASSERT_TRUE(b->ReplaceAllUsesWith(b2).ok());
  ASSERT_TRUE(entry->RemoveInstructions({a, b}).ok());
  EXPECT_THAT(c->control_predecessors(), ElementsAre(a2, b2));
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(IrControlEdgeTest, ReplaceInstructionHandsTheEdgesToTheReplacement) {
  auto module = testing_util::ParseOrFail(kControlEdges);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* b = entry->GetInstructionWithName("b");
  HloInstruction* c = entry->GetInstructionWithName("c");
  HloInstruction* b2 = entry->AddInstruction(HloOpcode::kAbs, b->shape(), {b->mutable_operand(0)}, "b2");
  ASSERT_TRUE(entry->ReplaceInstruction(b, b2).ok());
  EXPECT_EQ(entry->GetInstructionWithName("b"), nullptr);
  EXPECT_THAT(b2->control_predecessors(), ElementsAre(a));
  EXPECT_THAT(c->control_predecessors(), ElementsAre(a, b2));
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(IrControlEdgeTest, RemoveInstructionsDropsTheEdgesNamingThem) {
  auto module = testing_util::ParseOrFail(kControlEdges);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* b = entry->GetInstructionWithName("b");
  HloInstruction* c = entry->GetInstructionWithName("c");
  HloInstruction* p = entry->GetInstructionWithName("p");
  HloInstruction* t = entry->root_instruction();
  t->ReplaceOperandWith(0, p);
  t->ReplaceOperandWith(1, p);
  ASSERT_TRUE(entry->RemoveInstructions({b, a}).ok());
  EXPECT_THAT(c->control_predecessors(), IsEmpty());
  EXPECT_THAT(PrintModule(*module), ::testing::Not(HasSubstr("control-predecessors")));
  // A used instruction is refused.
  EXPECT_FALSE(entry->RemoveInstructions({p}).ok());
}

TEST(IrControlEdgeTest, AddInstructionInPlaceOfTakesNameAndPlace) {
  auto module = testing_util::ParseOrFail(R"(HloModule m

ENTRY e {
  p = f32[2] parameter(0)
  x = f32[2] negate(p)
  y = f32[2] abs(p)
  ROOT t = (f32[2], f32[2]) tuple(x, y)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* x = entry->GetInstructionWithName("x");
  HloInstruction* z = entry->AddInstructionInPlaceOf(x, HloOpcode::kExp, x->shape(),
                                                     {entry->GetInstructionWithName("p")});
  EXPECT_EQ(z->name(), "x");
  ASSERT_TRUE(x->ReplaceAllUsesWith(z).ok());
  ASSERT_TRUE(entry->RemoveInstruction(x).ok());
  EXPECT_EQ(entry->GetInstructionWithName("x"), z);
  std::string text = PrintModule(*module);
  EXPECT_THAT(text, HasSubstr("%x = f32[2]{0} exponential(%p)"));
  EXPECT_LT(text.find("%x ="), text.find("%y =")) << text;
  // A name made later does not collide with the one taken over.
  HloInstruction* w = entry->AddInstruction(HloOpcode::kNegate, z->shape(), {z}, "x");
  EXPECT_NE(w->name(), "x");
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(IrControlEdgeTest, SwapListPositionsChangesThePrintOrderOnly) {
  auto module = testing_util::ParseOrFail(R"(HloModule m

ENTRY e {
  p = f32[2] parameter(0)
  x = f32[2] negate(p)
  y = f32[2] abs(p)
  ROOT t = (f32[2], f32[2]) tuple(x, y)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  std::string before = PrintModule(*module);
  EXPECT_LT(before.find("%x ="), before.find("%y ="));
  HloInstruction* z = entry->AddInstruction(HloOpcode::kExp, entry->GetInstructionWithName("x")->shape(),
                                            {entry->GetInstructionWithName("p")}, "z");
  entry->SwapListPositions(entry->GetInstructionWithName("x"), z);
  ASSERT_TRUE(entry->GetInstructionWithName("x")->ReplaceAllUsesWith(z).ok());
  ASSERT_TRUE(entry->RemoveInstruction(entry->GetInstructionWithName("x")).ok());
  std::string after = PrintModule(*module);
  EXPECT_LT(after.find("%z ="), after.find("%y =")) << after;
}

}  // namespace
}  // namespace hopt

namespace hopt {
namespace {

TEST(ListOrderTest, MovesAppendedDefinitionsBeforeTheirFirstUse) {
  auto module = ParseHloModule(R"(
HloModule m, is_scheduled=true
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] add(p, p)
  b = f32[] multiply(a, p)
  ROOT c = f32[] subtract(b, a)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  auto names = [&] {
    std::vector<std::string> out;
    for (HloInstruction* i : entry->instructions()) out.emplace_back(i->name());
    return out;
  };
  RestoreDefBeforeUseOrder(**module);
  EXPECT_THAT(names(), ElementsAre("p", "a", "b", "c"));  // already ordered: untouched
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* n = entry->AddInstruction(HloOpcode::kNegate, p->shape(), {p}, "n");
  HloInstruction* b = entry->GetInstructionWithName("b");
  b->ReplaceOperandWith(1, n);
  EXPECT_THAT(names(), ElementsAre("p", "a", "b", "c", "n"));
  RestoreDefBeforeUseOrder(**module);
  EXPECT_THAT(names(), ElementsAre("p", "a", "n", "b", "c"));
  EXPECT_TRUE(VerifyModule(**module).ok());
}

TEST(DenseInstructionSetTest, HoldsExactlyWhatWasInserted) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY main {
  p = f32[] parameter(0)
  a = f32[] add(p, p)
  ROOT b = f32[] multiply(a, a)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* entry = (*module)->entry_computation();
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* b = entry->root_instruction();
  HloInstruction* a = b->mutable_operand(0);
  DenseInstructionSet set;
  EXPECT_FALSE(set.contains(b));
  EXPECT_TRUE(set.insert(b));
  EXPECT_FALSE(set.insert(b));
  EXPECT_TRUE(set.insert(p));
  EXPECT_TRUE(set.contains(p));
  EXPECT_TRUE(set.contains(b));
  EXPECT_FALSE(set.contains(a));
}

}  // namespace
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for module-level utilities (include/hopt/ir/module.h): cloning,
// channel ids, post orders, removing computations; large fan-outs, control
// edges, list order and DenseInstructionSet.

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
// Module-level utilities

constexpr absl::string_view kCloneSource =
    R"(HloModule clone_me, entry_computation_layout={(f32[8]{0}, f32[8]{0})->(f32[8]{0}, f32[])}, replica_count=2, frontend_attributes={x="y"}

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
  HloInstruction* n = entry->AddInstruction(HloOpcode::kNegate, Shape(PrimitiveType::F32, {8}),
                                            {Find(clone, "p")}, "extra");
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
  HloInstruction* a2 =
      entry->AddInstruction(HloOpcode::kNegate, a->shape(), {a->mutable_operand(0)}, "a2");
  HloInstruction* b2 =
      entry->AddInstruction(HloOpcode::kAbs, b->shape(), {b->mutable_operand(0)}, "b2");
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
  HloInstruction* b2 =
      entry->AddInstruction(HloOpcode::kAbs, b->shape(), {b->mutable_operand(0)}, "b2");
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
  HloInstruction* z =
      entry->AddInstruction(HloOpcode::kExp, entry->GetInstructionWithName("x")->shape(),
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

// SPDX-License-Identifier: Apache-2.0
// Tests for what the IR keeps beside the instructions so that rewrites of
// big modules stay linear: the list-topological order, the opcode column's
// block scan behind InstructionsWithOpcode, the trait columns behind
// InstructionsCallingComputations, InstructionsWithControlPredecessors and
// InstructionsWithChannelId (include/hopt/ir/computation.h), the operand positions
// of wide instructions and the user lists of widely read values
// (include/hopt/ir/instruction.h), and the helpers passes use to read attributes of
// many instructions.

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/module_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing_util::ParseOrFail;

std::vector<std::string> Names(const std::vector<HloInstruction*>& instructions) {
  std::vector<std::string> names;
  for (const HloInstruction* i : instructions) names.emplace_back(i->name());
  return names;
}

std::vector<std::string> ListNames(const HloComputation& computation) {
  std::vector<std::string> names;
  for (const HloInstruction* i : computation.instructions()) names.emplace_back(i->name());
  return names;
}

// Every operand and control predecessor stands before its user.
void ExpectTopological(const HloComputation& computation,
                       const std::vector<HloInstruction*>& order) {
  ASSERT_EQ(static_cast<int64_t>(order.size()), computation.instruction_count());
  absl::flat_hash_map<const HloInstruction*, size_t> at;
  for (size_t k = 0; k < order.size(); ++k) EXPECT_TRUE(at.emplace(order[k], k).second);
  for (const HloInstruction* i : order) {
    for (const HloInstruction* operand : i->operands())
      EXPECT_LT(at.at(operand), at.at(i)) << operand->name() << " -> " << i->name();
    for (const HloInstruction* p : i->control_predecessors())
      EXPECT_LT(at.at(p), at.at(i)) << p->name() << " ~> " << i->name();
  }
}

TEST(ListTopologicalOrderTest, IsTheListWhenTheListIsTopological) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  b = f32[2] negate(p)
  a = f32[2] abs(p)
  c = f32[2] add(a, b)
  ROOT d = f32[2] add(c, b)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  EXPECT_THAT(Names(entry.MakeListTopologicalOrder()), ElementsAre("p", "b", "a", "c", "d"));
  // The post order differs (it starts from the root and takes operands in
  // order), which is why the pass that wants neighbours to stay together
  // uses this one.
  EXPECT_THAT(Names(entry.MakeInstructionPostOrder()), ElementsAre("p", "a", "b", "c", "d"));
}

TEST(ListTopologicalOrderTest, PlacesWhatAnInstructionDependsOnJustBeforeIt) {
  // Uses before definitions (the reader accepts them) and a control edge
  // pointing forward in the list.
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  x = f32[2] negate(p)
  ROOT r = f32[2] add(y, z)
  y = f32[2] abs(w), control-predecessors={v}
  z = f32[2] exponential(x)
  w = f32[2] sine(p)
  v = f32[2] cosine(p)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  std::vector<HloInstruction*> order = entry.MakeListTopologicalOrder();
  ExpectTopological(entry, order);
  // r pulls in y (after its operand w, then its control predecessor v),
  // then z; the list itself is unchanged.
  EXPECT_THAT(Names(order), ElementsAre("p", "x", "w", "v", "y", "z", "r"));
  EXPECT_THAT(ListNames(entry), ElementsAre("p", "x", "r", "y", "z", "w", "v"));
}

TEST(ListTopologicalOrderTest, FollowsRewritesThatAppendDefinitions) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] abs(a)
  ROOT c = f32[2] add(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* n = entry->AddInstruction(HloOpcode::kExp, p->shape(), {p}, "n");
  entry->GetInstructionWithName("b")->ReplaceOperandWith(0, n);
  std::vector<HloInstruction*> order = entry->MakeListTopologicalOrder();
  ExpectTopological(*entry, order);
  EXPECT_THAT(Names(order), ElementsAre("p", "a", "n", "b", "c"));
}

// A random DAG of adds, negates and exponentials over one parameter,
// written in a random order, some instructions with control edges.
std::string RandomDagText(std::mt19937& random) {
  int n = 2 + static_cast<int>(random() % 30);
  std::vector<std::string> lines = {"  v0 = f32[] parameter(0)"};
  for (int k = 1; k < n; ++k) {
    int a = static_cast<int>(random() % k), b = static_cast<int>(random() % k);
    std::string line;
    switch (random() % 3) {
      case 0: line = absl::StrCat("  v", k, " = f32[] add(v", a, ", v", b, ")"); break;
      case 1: line = absl::StrCat("  v", k, " = f32[] negate(v", a, ")"); break;
      default: line = absl::StrCat("  v", k, " = f32[] exponential(v", a, ")"); break;
    }
    if (k > 2 && random() % 4 == 0)
      absl::StrAppend(&line, ", control-predecessors={v", random() % (k - 1) + 1, "}");
    lines.push_back(line);
  }
  std::vector<std::string> shuffled(lines.begin() + 1, lines.end());
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  // Some values stay unused, so the walk has several starting points.
  std::vector<std::string> kept;
  for (int k = 0; k < n; ++k)
    if (random() % 2 == 0) kept.push_back(absl::StrCat("v", k));
  if (kept.empty()) kept.push_back("v0");
  return absl::StrCat("HloModule m\nENTRY main {\n", lines[0], "\n", absl::StrJoin(shuffled, "\n"),
                      "\n  ROOT r = (",
                      absl::StrJoin(std::vector<std::string>(kept.size(), "f32[]"), ", "),
                      ") tuple(", absl::StrJoin(kept, ", "), ")\n}\n");
}

TEST(ListTopologicalOrderTest, RandomListsGiveTopologicalOrders) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 100; ++trial) {
    std::string text = RandomDagText(random);
    SCOPED_TRACE(text);
    auto module = ParseOrFail(text);
    ASSERT_NE(module, nullptr);
    ExpectTopological(*module->entry_computation(),
                      module->entry_computation()->MakeListTopologicalOrder());
  }
}

TEST(PostOrderOfOpcodesTest, IsThePostOrderFilteredByOpcode) {
  std::mt19937 random(8);
  const std::vector<std::vector<HloOpcode>> sets = {{HloOpcode::kAdd},
                                                    {HloOpcode::kNegate, HloOpcode::kExp},
                                                    {HloOpcode::kParameter, HloOpcode::kTuple},
                                                    {HloOpcode::kAllReduce}};
  for (int trial = 0; trial < 100; ++trial) {
    std::string text = RandomDagText(random);
    SCOPED_TRACE(text);
    auto module = ParseOrFail(text);
    ASSERT_NE(module, nullptr);
    const HloComputation& entry = *module->entry_computation();
    std::vector<HloInstruction*> order = entry.MakeInstructionPostOrder();
    for (const std::vector<HloOpcode>& opcodes : sets) {
      std::vector<HloInstruction*> expected;
      for (HloInstruction* i : order)
        if (std::find(opcodes.begin(), opcodes.end(), i->opcode()) != opcodes.end())
          expected.push_back(i);
      EXPECT_EQ(entry.InstructionsWithOpcodeInPostOrder(opcodes), expected);
    }
  }
}

TEST(TraitColumnTest, FindsCallsControlListsAndChannels) {
  auto module = ParseOrFail(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] all-reduce(p), channel_id=2, to_apply=add
  b = f32[4] negate(a), control-predecessors={p}
  z = f32[] constant(0)
  c = f32[] reduce(b, z), dimensions={0}, to_apply=add
  ROOT d = f32[] negate(c)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_THAT(Names(entry->InstructionsCallingComputations()), ElementsAre("a", "c"));
  EXPECT_THAT(Names(entry->InstructionsWithControlPredecessors()), ElementsAre("b"));
  EXPECT_THAT(Names(entry->InstructionsWithChannelId()), ElementsAre("a"));

  // Added by the mutation API, moved, compacted.
  HloInstruction* d = entry->GetInstructionWithName("d");
  d->set_control_predecessors({entry->GetInstructionWithName("z")});
  d->SetComputationAttribute("to_apply", module->GetComputationWithName("add"));
  HloInstruction* p = entry->parameter_instruction(0);
  HloInstruction* e = entry->AddInstruction(HloOpcode::kCollectivePermute, p->shape(), {p}, "e");
  e->set_channel_id(5);
  EXPECT_THAT(Names(entry->InstructionsWithChannelId()), ElementsAre("a", "e"));
  EXPECT_EQ(module->NextChannelId(), 6);
  entry->SwapListPositions(entry->GetInstructionWithName("b"), e);
  EXPECT_THAT(Names(entry->InstructionsWithChannelId()), ElementsAre("a", "e"));
  EXPECT_THAT(Names(entry->InstructionsWithControlPredecessors()), ElementsAre("d", "b"));
  EXPECT_THAT(Names(entry->InstructionsCallingComputations()), ElementsAre("a", "c", "d"));
  std::vector<HloInstruction*> copies;
  for (int k = 0; k < 100; ++k)
    copies.push_back(entry->AddInstruction(HloOpcode::kCopy, p->shape(), {p}));
  for (HloInstruction* copy : copies) ASSERT_TRUE(entry->RemoveInstruction(copy).ok());
  EXPECT_THAT(Names(entry->InstructionsWithChannelId()), ElementsAre("a", "e"));
  EXPECT_THAT(Names(entry->InstructionsWithControlPredecessors()), ElementsAre("d", "b"));
  EXPECT_THAT(Names(entry->InstructionsCallingComputations()), ElementsAre("a", "c", "d"));

  // A clone has the same columns.
  std::unique_ptr<HloModule> clone = module->Clone();
  EXPECT_THAT(Names(clone->entry_computation()->InstructionsWithChannelId()),
              ElementsAre("a", "e"));
  EXPECT_THAT(Names(clone->entry_computation()->InstructionsCallingComputations()),
              ElementsAre("a", "c", "d"));
}

TEST(TraitColumnTest, RemovingAnInstructionDropsTheControlEdgesThatNameIt) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] abs(p), control-predecessors={a}
  c = f32[2] exponential(p), control-predecessors={a}
  ROOT r = (f32[2], f32[2]) tuple(b, c)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  ASSERT_TRUE(entry->RemoveInstruction(entry->GetInstructionWithName("a")).ok());
  EXPECT_THAT(entry->GetInstructionWithName("b")->control_predecessors(), IsEmpty());
  EXPECT_THAT(entry->GetInstructionWithName("c")->control_predecessors(), IsEmpty());
  EXPECT_FALSE(entry->GetInstructionWithName("b")->HasAttribute("control-predecessors"));
}

// A tuple far wider than the index threshold, its operands drawn with
// repeats from a few values, rewritten at random through every API that
// changes operands; a plain vector is the model.
TEST(WideOperandsTest, RewritesOfAWideTupleMatchAModel) {
  constexpr int kValues = 12;
  constexpr int kWidth = 3 * kIndexOperandsAbove;
  std::mt19937 random(11);
  HloModule module("wide");
  HloComputation* entry = module.AddComputation("main", true);
  const Shape scalar(PrimitiveType::F32, {});
  HloInstruction* p = entry->AddParameter(scalar, "p");
  std::vector<HloInstruction*> values;
  for (int v = 0; v < kValues; ++v)
    values.push_back(entry->AddInstruction(HloOpcode::kNegate, scalar, {p}, absl::StrCat("v", v)));
  std::vector<HloInstruction*> model;
  for (int k = 0; k < kWidth; ++k) model.push_back(values[random() % kValues]);
  std::vector<Shape> shapes(kWidth, scalar);
  HloInstruction* tuple =
      entry->AddInstruction(HloOpcode::kTuple, Shape::MakeTuple(shapes), model, "t");
  ASSERT_TRUE(entry->set_root_instruction(tuple, /*accept_different_shape=*/true).ok());
  auto check = [&](int step) {
    SCOPED_TRACE(step);
    ASSERT_EQ(tuple->operand_count(), kWidth);
    for (int k = 0; k < kWidth; ++k) ASSERT_EQ(tuple->operand(k), model[k]) << "operand " << k;
    for (HloInstruction* v : values) {
      bool used = std::find(model.begin(), model.end(), v) != model.end();
      EXPECT_EQ(v->HasUser(tuple), used) << v->name();
    }
    absl::Status verified = VerifyModule(module);
    EXPECT_TRUE(verified.ok()) << verified;
  };
  check(-1);
  for (int step = 0; step < 300; ++step) {
    HloInstruction* a = values[random() % kValues];
    HloInstruction* b = values[random() % kValues];
    switch (random() % 3) {
      case 0: {
        int k = static_cast<int>(random() % kWidth);
        tuple->ReplaceOperandWith(k, b);
        model[k] = b;
        break;
      }
      case 1:
        if (a->HasUser(tuple)) {
          ASSERT_TRUE(a->ReplaceUseWith(tuple, b).ok());
          std::replace(model.begin(), model.end(), a, b);
        }
        break;
      case 2:
        ASSERT_TRUE(a->ReplaceAllUsesWith(b).ok());
        std::replace(model.begin(), model.end(), a, b);
        break;
    }
    if (step % 10 == 0) check(step);
  }
  check(300);
}

TEST(WideOperandsTest, ReadsAWideTupleWhoseOperandsComeLater) {
  // Operands defined after the tuple take the reader's late path.
  constexpr int kWidth = 2 * kIndexOperandsAbove;
  std::vector<std::string> names, shapes, lines;
  for (int k = 0; k < kWidth; ++k) {
    int v = k % 7;
    names.push_back(absl::StrCat("v", v));
    shapes.push_back("f32[]");
  }
  for (int v = 0; v < 7; ++v) lines.push_back(absl::StrCat("  v", v, " = f32[] negate(p)"));
  std::string text =
      absl::StrCat("HloModule m\nENTRY main {\n  p = f32[] parameter(0)\n", "  ROOT t = (",
                   absl::StrJoin(shapes, ", "), ") tuple(", absl::StrJoin(names, ", "), ")\n",
                   absl::StrJoin(lines, "\n"), "\n}\n");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* tuple = entry->root_instruction();
  HloInstruction* v3 = entry->GetInstructionWithName("v3");
  HloInstruction* v5 = entry->GetInstructionWithName("v5");
  EXPECT_EQ(v3->user_count(), 1);
  ASSERT_TRUE(v3->ReplaceAllUsesWith(v5).ok());
  for (int k = 0; k < kWidth; ++k)
    EXPECT_EQ(tuple->operand(k)->name(), absl::StrCat("v", k % 7 == 3 ? 5 : k % 7)) << k;
  EXPECT_EQ(v3->user_count(), 0);
  EXPECT_TRUE(VerifyModule(*module).ok());
  ASSERT_TRUE(entry->RemoveInstruction(v3).ok());
  EXPECT_TRUE(VerifyModule(*module).ok());
}

// The opcode column is read in blocks of 64 with a vector compare for up to
// four opcodes and a byte at a time otherwise; both must find exactly what
// a walk of the list finds, holes included, at every block boundary.
TEST(OpcodeColumnTest, FindsWhatAWalkOfTheListFinds) {
  const std::vector<std::string> kOps = {"negate", "abs",   "exponential", "sine",
                                         "cosine", "floor", "ceil",        "sqrt"};
  std::mt19937 random(7);
  std::vector<std::string> lines = {"  p = f32[] parameter(0)"};
  std::vector<std::string> names = {"p"};
  for (int k = 0; k < 300; ++k) {
    // Runs of one opcode, so that whole blocks miss some opcodes.
    const std::string& op = kOps[(k / 40 + (random() % 4 == 0 ? random() % 8 : 0)) % kOps.size()];
    lines.push_back(absl::StrCat("  i", k, " = f32[] ", op, "(p)"));
    names.push_back(absl::StrCat("i", k));
  }
  std::string text = absl::StrCat("HloModule m\nENTRY main {\n", absl::StrJoin(lines, "\n"),
                                  "\n  ROOT r = f32[] negate(p)\n}\n");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  // Holes: every fifth instruction goes.
  for (int k = 0; k < 300; k += 5)
    ASSERT_TRUE(entry->RemoveInstruction(entry->GetInstructionWithName(absl::StrCat("i", k))).ok());
  auto check = [&](std::initializer_list<HloOpcode> opcodes) {
    std::vector<HloInstruction*> expected;
    for (HloInstruction* i : entry->instructions())
      if (std::find(opcodes.begin(), opcodes.end(), i->opcode()) != opcodes.end())
        expected.push_back(i);
    EXPECT_EQ(Names(entry->InstructionsWithOpcode(opcodes)), Names(expected))
        << opcodes.size() << " opcode(s)";
    std::vector<HloInstruction*> post_order;
    for (HloInstruction* i : entry->MakeInstructionPostOrder())
      if (std::find(opcodes.begin(), opcodes.end(), i->opcode()) != opcodes.end())
        post_order.push_back(i);
    std::vector<HloOpcode> wanted(opcodes);
    EXPECT_EQ(Names(entry->InstructionsWithOpcodeInPostOrder(wanted)), Names(post_order));
  };
  check({HloOpcode::kSin});
  check({HloOpcode::kParameter});
  check({HloOpcode::kAbs, HloOpcode::kFloor});
  check({HloOpcode::kAbs, HloOpcode::kFloor, HloOpcode::kCeil, HloOpcode::kSqrt});
  check(
      {HloOpcode::kAbs, HloOpcode::kFloor, HloOpcode::kCeil, HloOpcode::kSqrt, HloOpcode::kNegate});
  check({HloOpcode::kAdd});
  check({});
}

// A value read by many instructions loses one reader: the list is scanned,
// not indexed (an index of the whole list for one removal cost far more),
// so the readers keep their order. Many removals switch to the index and
// stay correct.
TEST(WideUsersTest, OneRemovalScansAndManyUseTheIndex) {
  std::vector<std::string> lines = {"  p = f32[] parameter(0)"};
  for (int k = 0; k < 100; ++k) lines.push_back(absl::StrCat("  u", k, " = f32[] negate(p)"));
  auto module = ParseOrFail(absl::StrCat("HloModule m\nENTRY main {\n", absl::StrJoin(lines, "\n"),
                                         "\n  ROOT r = f32[] abs(p)\n}\n"));
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* p = entry->GetInstructionWithName("p");
  std::vector<std::string> expected;
  for (int k = 0; k < 100; ++k)
    if (k != 10) expected.push_back(absl::StrCat("u", k));
  expected.push_back("r");
  ASSERT_TRUE(entry->RemoveInstruction(entry->GetInstructionWithName("u10")).ok());
  std::vector<HloInstruction*> users(p->users().begin(), p->users().end());
  EXPECT_EQ(Names(users), expected);
  for (int k = 20; k < 60; ++k) {
    ASSERT_TRUE(entry->RemoveInstruction(entry->GetInstructionWithName(absl::StrCat("u", k))).ok());
    expected.erase(std::find(expected.begin(), expected.end(), absl::StrCat("u", k)));
  }
  users.assign(p->users().begin(), p->users().end());
  std::vector<std::string> got = Names(users);
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  for (HloInstruction* user : users) EXPECT_TRUE(p->HasUser(user)) << user->name();
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(CopyTextAttributeTest, CopiesWithinAndAcrossModules) {
  const char* kText = R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p), metadata={op_name="x"}, frontend_attributes={k="v"}
  ROOT b = f32[2] abs(a)
}
)";
  auto module = ParseOrFail(kText);
  auto other = ParseOrFail(kText);
  ASSERT_NE(module, nullptr);
  ASSERT_NE(other, nullptr);
  HloInstruction* a = module->entry_computation()->GetInstructionWithName("a");
  HloInstruction* b = module->entry_computation()->GetInstructionWithName("b");
  HloInstruction* other_b = other->entry_computation()->GetInstructionWithName("b");
  EXPECT_TRUE(b->CopyTextAttributeFrom(*a, "metadata"));
  EXPECT_FALSE(b->CopyTextAttributeFrom(*a, "backend_config"));
  EXPECT_TRUE(other_b->CopyTextAttributeFrom(*a, "frontend_attributes"));
  // The module that held `a` goes; the copy keeps its own text.
  std::string want = std::string(*a->GetAttributeText("frontend_attributes"));
  module.reset();
  EXPECT_EQ(other_b->GetAttributeText("frontend_attributes"), want);
  EXPECT_EQ(other_b->GetAttributeText("metadata"), std::nullopt);
  EXPECT_THAT(PrintModule(*other), testing::HasSubstr("abs(%a), frontend_attributes={k=\"v\"}"));
}

TEST(FetchAheadTest, VisitsEveryInstructionInOrder) {
  std::vector<std::string> lines = {"  p = f32[] parameter(0)"};
  for (int k = 0; k < 40; ++k)
    lines.push_back(
        absl::StrCat("  u", k, " = f32[] negate(p)", k % 3 ? ", metadata={op_name=\"o\"}" : ""));
  auto module = ParseOrFail(absl::StrCat("HloModule m\nENTRY main {\n", absl::StrJoin(lines, "\n"),
                                         "\n  ROOT r = f32[] abs(p)\n}\n"));
  ASSERT_NE(module, nullptr);
  std::vector<HloInstruction*> all(module->entry_computation()->instructions().begin(),
                                   module->entry_computation()->instructions().end());
  for (size_t size : {size_t{0}, size_t{1}, size_t{9}, all.size()}) {
    std::vector<HloInstruction*> visited;
    ForEachFetchingAttributesAhead(absl::MakeConstSpan(all.data(), size),
                                   [&](HloInstruction* i) { visited.push_back(i); });
    EXPECT_EQ(visited, std::vector<HloInstruction*>(all.begin(), all.begin() + size)) << size;
  }
}

}  // namespace
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// InstructionCopier (include/hopt/ir/extract.h): copies keep names, shapes,
// attributes and list order; operands come through the map; called
// computations come along once; control edges survive only inside the copy.

#include "hopt/ir/extract.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

const char* kSource = R"(HloModule source, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  r = f32[4] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[4]) tuple(n, r)
}

ENTRY main {
  x = f32[4] parameter(0)
  c = f32[4] constant({1, 2, 3, 4})
  m = f32[4] multiply(x, c)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, m)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  out = f32[4] get-tuple-element(w), index=1
  late = f32[4] negate(m), control-predecessors={out}
  early = f32[4] negate(x), control-predecessors={x}
  ROOT sum = f32[4] add(late, early)
}
)";

const HloInstruction* Named(const HloModule& module, const std::string& name) {
  for (const HloInstruction* i : module.entry_computation()->instructions())
    if (i->name() == name) return i;
  return nullptr;
}

TEST(InstructionCopierTest, CopiesInstructionsWithTheirCalleesAndMappedOperands) {
  auto source = ParseOrFail(kSource);
  ASSERT_NE(source, nullptr);
  HloModule target("target");
  HloComputation* entry = target.AddComputation("main", /*is_entry=*/true);
  InstructionCopier copier(target);
  // `m` comes from outside: a parameter of the new computation.
  HloInstruction* m = entry->AddParameter(Named(*source, "m")->shape(), "m", 0);
  copier.Map(Named(*source, "m"), m);
  std::vector<const HloInstruction*> sources = {Named(*source, "z"), Named(*source, "init"),
                                                Named(*source, "w"), Named(*source, "out"),
                                                Named(*source, "late")};
  absl::Status copied = copier.Copy(sources, entry);
  ASSERT_TRUE(copied.ok()) << copied;
  ASSERT_TRUE(entry->set_root_instruction(copier.Find(Named(*source, "late")), true).ok());
  ASSERT_TRUE(VerifyModule(target).ok()) << VerifyModule(target) << PrintModule(target);

  std::string text = PrintModule(target);
  // The loop's computations came along, and the reduction the body calls.
  EXPECT_NE(target.GetComputationWithName("cond"), nullptr);
  EXPECT_NE(target.GetComputationWithName("body"), nullptr);
  EXPECT_NE(target.GetComputationWithName("add"), nullptr);
  EXPECT_EQ(target.computation_count(), 4);
  EXPECT_THAT(text, HasSubstr("%w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body"));
  // The control edge inside the copy is kept.
  EXPECT_THAT(text, HasSubstr("%late = f32[4]{0} negate(%m), control-predecessors={%out}"));
  EXPECT_EQ(copier.Find(Named(*source, "w"))->operand(0), copier.Find(Named(*source, "init")));
  // Copies are new instructions of the target module.
  EXPECT_EQ(copier.Find(Named(*source, "w"))->GetModule(), &target);
}

TEST(InstructionCopierTest, DropsControlEdgesToInstructionsLeftBehindAndKeepsConstants) {
  auto source = ParseOrFail(kSource);
  ASSERT_NE(source, nullptr);
  HloModule target("target");
  HloComputation* entry = target.AddComputation("main", true);
  InstructionCopier copier(target);
  HloInstruction* x = entry->AddParameter(Named(*source, "x")->shape(), "x", 0);
  copier.Map(Named(*source, "x"), x);
  std::vector<const HloInstruction*> sources = {Named(*source, "c"), Named(*source, "m"),
                                                Named(*source, "late")};
  ASSERT_TRUE(copier.Copy(sources, entry).ok());
  ASSERT_TRUE(entry->set_root_instruction(copier.Find(Named(*source, "late")), true).ok());
  ASSERT_TRUE(VerifyModule(target).ok()) << VerifyModule(target);
  const HloInstruction* late = copier.Find(Named(*source, "late"));
  EXPECT_FALSE(late->has_control_predecessors());
  EXPECT_EQ(copier.Find(Named(*source, "c"))->literal_text(), "{1, 2, 3, 4}");
  // Nothing the copy does not call is copied.
  EXPECT_EQ(target.computation_count(), 1);
}

TEST(InstructionCopierTest, CopiesAComputationOnceAndKeepsParameterNumbers) {
  auto source = ParseOrFail(kSource);
  ASSERT_NE(source, nullptr);
  HloModule target("target");
  InstructionCopier copier(target);
  auto body = copier.CopyComputation(*source->GetComputationWithName("body"));
  ASSERT_TRUE(body.ok());
  auto again = copier.CopyComputation(*source->GetComputationWithName("body"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*body, *again);
  EXPECT_EQ((*body)->num_parameters(), 1);
  EXPECT_EQ((*body)->parameter_instruction(0)->parameter_number(), 0);
  EXPECT_EQ((*body)->root_instruction()->name(), "t");
  EXPECT_EQ((*body)->instruction_count(), 7);
}

TEST(InstructionCopierTest, CopiesACallChainOfAnyDepthAndKeepsTheOrder) {
  // 20,000 computations, each calling the next: one native frame per call
  // used to run out of stack.
  constexpr int kDepth = 20000;
  std::string text =
      "HloModule chain\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n";
  for (int i = 1; i < kDepth; ++i)
    absl::StrAppend(&text, "c", i,
                    " {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c", i - 1,
                    "\n}\n");
  auto source = ParseOrFail(text);
  ASSERT_NE(source, nullptr);
  HloModule target("target");
  InstructionCopier copier(target);
  auto top = copier.CopyComputation(*source->GetComputationWithName(absl::StrCat("c", kDepth - 1)));
  ASSERT_TRUE(top.ok()) << top.status();
  ASSERT_EQ(target.computation_count(), kDepth);
  // Callers before callees, as a copy made on the way down would add them.
  std::vector<HloComputation*> copies = target.computations();
  EXPECT_EQ(copies.front()->name(), absl::StrCat("c", kDepth - 1));
  EXPECT_EQ(copies.back()->name(), "c0");
  EXPECT_EQ((*top)->root_instruction()->called_computations()[0], copies[1]);
  EXPECT_EQ(copies.back()->root_instruction()->opcode(), HloOpcode::kNegate);
}

TEST(InstructionCopierTest, AnUnmappedOperandIsAnError) {
  auto source = ParseOrFail(kSource);
  ASSERT_NE(source, nullptr);
  HloModule target("target");
  HloComputation* entry = target.AddComputation("main", true);
  InstructionCopier copier(target);
  std::vector<const HloInstruction*> sources = {Named(*source, "m")};
  absl::Status status = copier.Copy(sources, entry);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("copying 'm': operand 'x' has no copy"));
}

}  // namespace
}  // namespace hopt

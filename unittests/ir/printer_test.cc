// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/ir/printer.h: XLA's long and short text forms, the
// instruction and computation orders, and print -> parse -> print
// stability.

#include "hopt/ir/printer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// Names of the instructions in a computation's printed body, in order.
std::vector<std::string> PrintedInstructionOrder(const std::string& text,
                                                 absl::string_view computation_header) {
  std::vector<std::string> names;
  size_t start = text.find(std::string(computation_header));
  if (start == std::string::npos) {
    ADD_FAILURE() << "no '" << computation_header << "' in:\n" << text;
    return names;
  }
  size_t end = text.find("\n}", start);
  std::vector<std::string> lines =
      absl::StrSplit(text.substr(start, end - start), '\n', absl::SkipEmpty());
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string line = lines[i];
    size_t first = line.find_first_not_of(' ');
    line = line.substr(first);
    if (line.rfind("ROOT ", 0) == 0) line = line.substr(5);
    if (!line.empty() && line[0] == '%') line = line.substr(1);
    names.push_back(line.substr(0, line.find(' ')));
  }
  return names;
}

// Computation names in the order they are printed.
std::vector<std::string> PrintedComputationOrder(const std::string& short_text) {
  std::vector<std::string> names;
  for (absl::string_view line : absl::StrSplit(short_text, '\n')) {
    if (line.empty() || line[0] == ' ' || line[0] == '}' || line.rfind("HloModule", 0) == 0)
      continue;
    if (line.rfind("ENTRY ", 0) == 0) line.remove_prefix(6);
    names.emplace_back(line.substr(0, line.find(' ')));
  }
  return names;
}

constexpr absl::string_view kTiny = R"(HloModule tiny

ENTRY main {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  ROOT sum = f32[4]{0} add(p0, p1)
}
)";

// ---------------------------------------------------------------------------
// Exact text of the three styles

TEST(PrinterTest, LongForm) {
  auto module = ParseOrFail(std::string(kTiny));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module, PrintOptions::Long()),
            "HloModule tiny, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}\n"
            "\n"
            "ENTRY %main (p0: f32[4], p1: f32[4]) -> f32[4] {\n"
            "  %p0 = f32[4]{0} parameter(0)\n"
            "  %p1 = f32[4]{0} parameter(1)\n"
            "  ROOT %sum = f32[4]{0} add(%p0, %p1)\n"
            "}\n"
            "\n");
  // Long is the default.
  EXPECT_EQ(PrintModule(*module), PrintModule(*module, PrintOptions::Long()));
}

TEST(PrinterTest, LongFormWithOperandShapes) {
  auto module = ParseOrFail(std::string(kTiny));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module, PrintOptions::Long(/*operand_shapes=*/true)),
            "HloModule tiny, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}\n"
            "\n"
            "ENTRY %main (p0: f32[4], p1: f32[4]) -> f32[4] {\n"
            "  %p0 = f32[4]{0} parameter(0)\n"
            "  %p1 = f32[4]{0} parameter(1)\n"
            "  ROOT %sum = f32[4]{0} add(f32[4]{0} %p0, f32[4]{0} %p1)\n"
            "}\n"
            "\n");
}

TEST(PrinterTest, ShortForm) {
  auto module = ParseOrFail(std::string(kTiny));
  ASSERT_NE(module, nullptr);
  const std::string expected =
      "HloModule tiny, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}\n"
      "\n"
      "ENTRY main {\n"
      "  p0 = f32[4]{0} parameter(0)\n"
      "  p1 = f32[4]{0} parameter(1)\n"
      "  ROOT sum = f32[4]{0} add(p0, p1)\n"
      "}\n"
      "\n";
  EXPECT_EQ(PrintModule(*module, PrintOptions::Short()), expected);
  // Operand shapes belong to the long form only.
  PrintOptions short_with_shapes = PrintOptions::Short();
  short_with_shapes.print_operand_shapes = true;
  EXPECT_EQ(PrintModule(*module, short_with_shapes), expected);
}

TEST(PrinterTest, CalleeHeaderAndAttributes) {
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
  EXPECT_EQ(PrintModule(*module, PrintOptions::Long(true)),
            "HloModule m, entry_computation_layout={(f32[8,16]{1,0})->f32[8,16]{1,0}}, "
            "replica_count=2\n"
            "\n"
            "%add (lhs: f32[], rhs: f32[]) -> f32[] {\n"
            "  %lhs = f32[] parameter(0)\n"
            "  %rhs = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(f32[] %lhs, f32[] %rhs)\n"
            "}\n"
            "\n"
            "ENTRY %main (p0: f32[8,16]) -> f32[8,16] {\n"
            "  %p0 = f32[8,16]{1,0} parameter(0)\n"
            "  ROOT %ar = f32[8,16]{1,0} all-reduce(f32[8,16]{1,0} %p0), replica_groups={{0,1}}, "
            "to_apply=%add\n"
            "}\n"
            "\n");
  std::string short_text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(short_text, HasSubstr("\nadd {\n"));
  EXPECT_THAT(short_text,
              HasSubstr("  ROOT ar = f32[8,16]{1,0} all-reduce(p0), replica_groups={{0,1}}, "
                        "to_apply=add\n"));
}

TEST(PrinterTest, HeaderFlagsAndTupleSignatures) {
  auto module = ParseOrFail(R"(HloModule sched, is_scheduled=true, num_partitions=4

ENTRY main {
  a = (f32[2], s32[]) parameter(0)
  g = f32[2] get-tuple-element(a), index=0
  ROOT t = (f32[2], f32[2]) tuple(g, g)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module),
            "HloModule sched, is_scheduled=true, "
            "entry_computation_layout={((f32[2]{0}, s32[]))->(f32[2]{0}, f32[2]{0})}, "
            "num_partitions=4\n"
            "\n"
            "ENTRY %main (a: (f32[2], s32[])) -> (f32[2], f32[2]) {\n"
            "  %a = (f32[2]{0}, s32[]) parameter(0)\n"
            "  %g = f32[2]{0} get-tuple-element(%a), index=0\n"
            "  ROOT %t = (f32[2]{0}, f32[2]{0}) tuple(%g, %g)\n"
            "}\n"
            "\n");
}

TEST(PrinterTest, GivenEntryLayoutIsKept) {
  auto module =
      ParseOrFail(R"(HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

ENTRY main {
  p = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(PrintModule(*module),
              ::testing::StartsWith(
                  "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}\n"));
}

TEST(PrinterTest, OperandIndexCommentsInLongFormOnly) {
  auto module = ParseOrFail(R"(ENTRY main {
  v = f32[] parameter(0)
  ROOT t = (f32[], f32[], f32[], f32[], f32[], f32[]) tuple(v, v, v, v, v, v)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(PrintModule(*module, PrintOptions::Long(true)),
              HasSubstr("tuple(f32[] %v, f32[] %v, f32[] %v, f32[] %v, f32[] %v, "
                        "/*index=5*/f32[] %v)\n"));
  EXPECT_THAT(PrintModule(*module, PrintOptions::Long()),
              HasSubstr("tuple(%v, %v, %v, %v, %v, /*index=5*/%v)\n"));
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()), HasSubstr("tuple(v, v, v, v, v, v)\n"));
  // The shape annotations appear in every style.
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple("));
}

TEST(PrinterTest, ExecutionThread) {
  auto module = ParseOrFail(R"(HloModule m

callee {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}, execution_thread="side"

ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=callee
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->GetComputationWithName("callee")->execution_thread(), "side");
  EXPECT_THAT(PrintModule(*module, PrintOptions::Short()),
              HasSubstr("  ROOT n = f32[] negate(x)\n}, execution_thread=\"side\"\n\n"));
}

// ---------------------------------------------------------------------------
// PrintInstruction / PrintComputation

TEST(PrinterTest, PrintInstruction) {
  auto module = ParseOrFail(std::string(kTiny));
  ASSERT_NE(module, nullptr);
  const HloInstruction& sum = *module->entry_computation()->root_instruction();
  EXPECT_EQ(PrintInstruction(sum), "%sum = f32[4]{0} add(%p0, %p1)");
  EXPECT_EQ(PrintInstruction(sum, PrintOptions::Long(true)),
            "%sum = f32[4]{0} add(f32[4]{0} %p0, f32[4]{0} %p1)");
  EXPECT_EQ(PrintInstruction(sum, PrintOptions::Short()), "sum = f32[4]{0} add(p0, p1)");
  const HloInstruction& p1 = *module->entry_computation()->parameter_instruction(1);
  EXPECT_EQ(PrintInstruction(p1, PrintOptions::Short()), "p1 = f32[4]{0} parameter(1)");
}

TEST(PrinterTest, PrintInstructionWithAttributes) {
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  c = s32[2] constant({1, 2})
  ROOT ar = f32[8] all-reduce(p), channel_id=2, replica_groups={{0,1}}, to_apply=add, metadata={op_type="AllReduce" op_name="x/y"}
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(PrintInstruction(*entry->root_instruction(), PrintOptions::Short()),
            "ar = f32[8]{0} all-reduce(p), channel_id=2, replica_groups={{0,1}}, to_apply=add, "
            "metadata={op_type=\"AllReduce\" op_name=\"x/y\"}");
  EXPECT_EQ(PrintInstruction(*entry->GetInstructionWithName("c")),
            "%c = s32[2]{0} constant({1, 2})");
}

TEST(PrinterTest, PrintComputation) {
  auto module = ParseOrFail(std::string(kTiny));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintComputation(*module->entry_computation(), PrintOptions::Short()),
            "ENTRY main {\n"
            "  p0 = f32[4]{0} parameter(0)\n"
            "  p1 = f32[4]{0} parameter(1)\n"
            "  ROOT sum = f32[4]{0} add(p0, p1)\n"
            "}");
}

TEST(PrinterTest, StreamingMatchesTheString) {
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  ROOT ar = f32[8] all-reduce(n), replica_groups={}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  for (const PrintOptions& options :
       {PrintOptions::Long(), PrintOptions::Long(true), PrintOptions::Short()}) {
    std::string streamed;
    int pieces = 0;
    PrintModule(
        *module, options,
        [&](absl::string_view piece) {
          streamed.append(piece.data(), piece.size());
          ++pieces;
        },
        /*chunk_bytes=*/16);
    EXPECT_EQ(streamed, PrintModule(*module, options));
    EXPECT_GT(pieces, 1);
  }
}

// ---------------------------------------------------------------------------
// Orders

TEST(PrinterTest, CalleesArePrintedBeforeCallers) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=middle
}
middle {
  x = f32[] parameter(0)
  ROOT r = f32[] reduce(x, x), dimensions={}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "main");
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(PrintedComputationOrder(text), ::testing::ElementsAre("add", "middle", "main"));
  auto again = ParseOrFail(text);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->entry_computation()->name(), "main");
  EXPECT_EQ(PrintModule(*again, PrintOptions::Short()), text);
}

TEST(PrinterTest, WhileCalleesPrecedeTheLoop) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  i = s32[] parameter(0)
  ROOT w = s32[] while(i), condition=cond, body=body
}
body {
  b = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(b, one)
}
cond {
  c = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(c, ten), direction=LT
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order =
      PrintedComputationOrder(PrintModule(*module, PrintOptions::Short()));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.back(), "main");
  EXPECT_THAT(order, ::testing::UnorderedElementsAre("body", "cond", "main"));
}

TEST(PrinterTest, PostOrderPutsOperandsFirst) {
  auto module = ParseOrFail(R"(HloModule po
ENTRY main {
  ROOT r = f32[] add(n, p)
  n = f32[] negate(p)
  p = f32[] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_EQ(text,
            "HloModule po, entry_computation_layout={(f32[])->f32[]}\n"
            "\n"
            "ENTRY main {\n"
            "  p = f32[] parameter(0)\n"
            "  n = f32[] negate(p)\n"
            "  ROOT r = f32[] add(n, p)\n"
            "}\n"
            "\n");
}

TEST(PrinterTest, PostOrderVisitsFirstOperandsFirstAndKeepsDeadCode) {
  // XLA's post order: a depth-first walk from each instruction without
  // users, in list order, first operand first.
  auto module = ParseOrFail(R"(ENTRY main {
  ROOT r = f32[] subtract(b, a)
  dead = f32[] sine(a)
  a = f32[] negate(p)
  b = f32[] exponential(q)
  q = f32[] parameter(1)
  p = f32[] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(PrintedInstructionOrder(text, "ENTRY main"),
              ::testing::ElementsAre("q", "b", "p", "a", "r", "dead"));
  std::vector<std::string> names;
  for (HloInstruction* i : module->entry_computation()->MakeInstructionPostOrder())
    names.emplace_back(i->name());
  EXPECT_THAT(names, ::testing::ElementsAre("q", "b", "p", "a", "r", "dead"));
}

TEST(PrinterTest, ScheduledModulesKeepTheirOrder) {
  auto module = ParseOrFail(R"(HloModule s, is_scheduled=true
ENTRY main {
  p = f32[] parameter(0)
  b = f32[] exponential(p)
  a = f32[] negate(p)
  ROOT r = f32[] add(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(PrintedInstructionOrder(PrintModule(*module, PrintOptions::Short()), "ENTRY main"),
              ::testing::ElementsAre("p", "b", "a", "r"));
}

// XLA's post order walks control predecessors before operands, and starts a
// walk at every instruction without users (an instruction that is only a
// control predecessor is one). Printing XLA's own output must not reorder it.
TEST(PrinterTest, ControlPredecessorOrderMatchesXla) {
  const std::string xla_text =
      "HloModule ctl, entry_computation_layout={(f32[], f32[])->(f32[])}\n"
      "\n"
      "ENTRY main {\n"
      "  q = f32[] parameter(1)\n"
      "  x = f32[] exponential(q)\n"
      "  p = f32[] parameter(0)\n"
      "  y = f32[] negate(p), control-predecessors={x}\n"
      "  ROOT r = (f32[]) tuple(y)\n"
      "}\n"
      "\n";
  auto module = ParseOrFail(xla_text);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module, PrintOptions::Short()), xla_text);

  // Listed in another order, the walk from r reaches y, whose control
  // predecessor x (and its operand q) comes before y's operand p.
  auto shuffled = ParseOrFail(R"(HloModule ctl
ENTRY main {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = (f32[]) tuple(y)
  y = f32[] negate(p), control-predecessors={x}
  x = f32[] exponential(q)
}
)");
  ASSERT_NE(shuffled, nullptr);
  std::vector<std::string> names;
  for (HloInstruction* i : shuffled->entry_computation()->MakeInstructionPostOrder())
    names.emplace_back(i->name());
  EXPECT_THAT(names, ::testing::ElementsAre("q", "x", "p", "y", "r"));

  // x has no users, so XLA starts a walk at it, in list order, before the
  // walk from the root r.
  auto early = ParseOrFail(R"(HloModule ctl
ENTRY main {
  p = f32[] parameter(0)
  x = f32[] exponential(p)
  ROOT r = (f32[], f32[]) tuple(w, y)
  w = f32[] sine(p)
  y = f32[] negate(p), control-predecessors={x}
}
)");
  ASSERT_NE(early, nullptr);
  EXPECT_THAT(PrintedInstructionOrder(PrintModule(*early, PrintOptions::Short()), "ENTRY main"),
              ::testing::ElementsAre("p", "x", "w", "y", "r"));
}

TEST(PrinterTest, ControlPredecessorsPrecedeTheirSuccessors) {
  auto module = ParseOrFail(R"(ENTRY main {
  p = f32[] parameter(0)
  ROOT b = f32[] exponential(p), control-predecessors={a}
  a = f32[] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order =
      PrintedInstructionOrder(PrintModule(*module, PrintOptions::Short()), "ENTRY main");
  ASSERT_EQ(order.size(), 3u);
  EXPECT_LT(std::find(order.begin(), order.end(), "a"), std::find(order.begin(), order.end(), "b"));
}

// ---------------------------------------------------------------------------
// print -> parse -> print

const char* const kRoundTripModules[] = {
    // The brief's example.
    R"(HloModule m, replica_count=2

add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT sum = f32[] add(lhs, rhs)
}

ENTRY main {
  p0 = f32[8,16]{1,0} parameter(0)
  ROOT ar = f32[8,16]{1,0} all-reduce(p0), replica_groups={{0,1}}, to_apply=add
}
)",
    // Constants, layouts with tiles, dynamic shapes, tuples.
    R"(HloModule consts
ENTRY main {
  c0 = s32[2] constant({1, 2})
  c1 = f32[] constant(-inf)
  c2 = bf16[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })
  c3 = (s32[], f32[2]) constant((1, {2, 3}))
  d = s32[<=4] parameter(0)
  u = f32[?,3] parameter(1)
  t = f32[8,128]{1,0:T(8,128)} parameter(2)
  ROOT r = (s32[2], f32[], bf16[2,2]{0,1}, (s32[], f32[2]), s32[<=4], f32[?,3], f32[8,128]{1,0:T(8,128)}) tuple(c0, c1, c2, c3, d, u, t)
}
)",
    // Async sugar, custom-call strings, backend configs, metadata.
    R"(HloModule async
ENTRY main {
  p0 = f32[10] parameter(0)
  s = ((f32[10]), f32[20], s32[]) custom-call-start(p0), custom_call_target="foo\"bar", backend_config={"key": [1, 2]}
  u = ((f32[10]), f32[20], s32[]) custom-call-update(s)
  d = f32[20] custom-call-done(u), metadata={op_type="T" op_name="a/b" source_file="f.py" source_line=3}
  ROOT cc = f32[20] custom-call(d), custom_call_target="x", backend_config="opaque \"text\"", frontend_attributes={k="v"}
}
)",
    // Collectives with iota groups, channels and control edges.
    R"(HloModule coll, replica_count=4, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4,4] parameter(0)
  ag = f32[8,4] all-gather(p), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}, use_global_device_ids=true
  rs = f32[2,4] reduce-scatter(p), replica_groups={{0,1},{2,3}}, dimensions={0}, to_apply=add
  cp = f32[4,4] collective-permute(p), source_target_pairs={{0,1},{1,0}}, control-predecessors={rs}
  ROOT t = (f32[8,4], f32[2,4], f32[4,4]) tuple(ag, rs, cp)
}
)",
    // Loops, inline computations, anonymous operands.
    R"(HloModule loop
body {
  b = s32[] parameter(0)
  ROOT n = s32[] add(b, s32[] constant(1))
}
cond {
  c = s32[] parameter(0)
  ROOT lt = pred[] compare(c, s32[] constant(10)), direction=LT
}
ENTRY main {
  i = s32[] parameter(0)
  w = s32[] while(i), condition=cond, body=body
  v = f32[4] parameter(1)
  ROOT r = f32[] reduce(v, f32[] constant(0)), dimensions={0}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT m = f32[] maximum(x, y)
  }
}
)",
    // Long operand lists and scheduling.
    R"(HloModule sched, is_scheduled=true
ENTRY main {
  v = f32[] parameter(0)
  n = f32[] negate(v)
  ROOT t = (f32[], f32[], f32[], f32[], f32[], f32[], f32[]) tuple(v, n, v, n, v, n, v)
}
)",
};

TEST(PrinterRoundTripTest, PrintParsePrintIsAFixpoint) {
  for (const char* source : kRoundTripModules) {
    SCOPED_TRACE(source);
    auto module = ParseOrFail(source);
    ASSERT_NE(module, nullptr);
    EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
    for (const PrintOptions& options :
         {PrintOptions::Long(), PrintOptions::Long(true), PrintOptions::Short()}) {
      std::string first = PrintModule(*module, options);
      auto reparsed = ParseOrFail(first);
      ASSERT_NE(reparsed, nullptr);
      std::string second = PrintModule(*reparsed, options);
      EXPECT_EQ(second, first);
    }
    // The styles describe the same module.
    auto from_short = ParseOrFail(PrintModule(*module, PrintOptions::Short()));
    ASSERT_NE(from_short, nullptr);
    EXPECT_EQ(PrintModule(*from_short, PrintOptions::Long(true)),
              PrintModule(*module, PrintOptions::Long(true)));
  }
}

}  // namespace
}  // namespace hopt

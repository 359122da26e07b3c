// SPDX-License-Identifier: Apache-2.0
// Tests for include/hopt/ir/verifier.h: a valid module passes; each rule fires on a
// module broken in that one way, naming the computation and instruction.

#include "hopt/ir/verifier.h"

#include <memory>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing_util::ParseOrFail;

// `verifier: [rule] computation 'c', instruction 'i': detail`.
void ExpectViolation(const HloModule& module, absl::string_view rule, absl::string_view computation,
                     absl::string_view instruction, absl::string_view detail_phrase = "") {
  absl::Status status = VerifyModule(module);
  ASSERT_FALSE(status.ok()) << "expected a [" << rule << "] violation";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  std::string head = absl::StrCat("verifier: [", rule, "] computation '", computation, "'");
  if (!instruction.empty()) absl::StrAppend(&head, ", instruction '", instruction, "'");
  absl::StrAppend(&head, ": ");
  EXPECT_THAT(std::string(status.message()), StartsWith(head));
  EXPECT_THAT(std::string(status.message()), HasSubstr(std::string(detail_phrase)));
}

// Parses `body` as the entry computation `main` of a module (shapes are
// written out, so the parser infers nothing).
std::unique_ptr<HloModule> ParseEntry(absl::string_view header, absl::string_view body) {
  return ParseOrFail(absl::StrCat(header, "\n\nENTRY main {\n", body, "}\n"));
}

constexpr absl::string_view kAdd = R"(HloModule m, replica_count=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// ---------------------------------------------------------------------------
// Valid modules

TEST(VerifierTest, ValidModulePasses) {
  auto module = ParseEntry(kAdd, R"(
  p = f32[4,6] parameter(0)
  s = f32[] parameter(1)
  i = s32[] parameter(2)
  n = f32[4,6] negate(p)
  sum = f32[4,6] add(p, n)
  bc = f32[4,6] broadcast(s), dimensions={}
  bc2 = f32[3,4,6] broadcast(sum), dimensions={1,2}
  rs = f32[24] reshape(sum)
  rs2 = f32[2,12]{0,1} reshape(rs)
  tr = f32[6,4] transpose(sum), dimensions={1,0}
  sl = f32[2,3] slice(sum), slice={[0:4:2], [1:4]}
  ds = f32[2,2] dynamic-slice(sum, i, i), dynamic_slice_sizes={2,2}
  cat = f32[8,6] concatenate(sum, bc), dimensions={0}
  t = (f32[4,6], f32[]) tuple(sum, s)
  g = f32[] get-tuple-element(t), index=1
  cmp = pred[4,6] compare(sum, bc), direction=GT
  sel = f32[4,6] select(cmp, sum, bc)
  red = f32[6] reduce(sel, g), dimensions={0}, to_apply=add
  dot = f32[4,4] dot(p, tr), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ar = f32[4,6] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
  ag = f32[8,6] all-gather(p), replica_groups={{0,1},{2,3}}, dimensions={0}
  ag2 = f32[4,24] all-gather(p), replica_groups=[1,4]<=[4], dimensions={1}
  rsc = f32[2,6] reduce-scatter(p), replica_groups={{0,1},{2,3}}, dimensions={0}, to_apply=add
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  cp = f32[4,6] copy(p)
  ROOT out = (f32[3,4,6], f32[2,12]{0,1}, f32[2,3], f32[2,2], f32[8,6], f32[6], f32[4,4], f32[4,6], f32[8,6], f32[4,24], f32[2,6], u32[], u32[], f32[4,6]) tuple(bc2, rs2, sl, ds, cat, red, dot, ar, ag, ag2, rsc, rid, pid, cp)
)");
  ASSERT_NE(module, nullptr);
  absl::Status status = VerifyModule(*module);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(VerifierTest, ModuleBuiltThroughTheApiPasses) {
  HloModule module("built");
  HloComputation* entry = module.AddComputation("main", /*is_entry=*/true);
  Shape s(PrimitiveType::F32, {4});
  HloInstruction* p = entry->AddParameter(s, "p");
  HloInstruction* n = entry->AddInstruction(HloOpcode::kNegate, s, {p});
  HloInstruction* a = entry->AddInstruction(HloOpcode::kAdd, s, {p, n});
  ASSERT_TRUE(entry->set_root_instruction(a).ok());
  absl::Status status = VerifyModule(module);
  EXPECT_TRUE(status.ok()) << status;
}

// ---------------------------------------------------------------------------
// [shape]

// Found by pass_pipeline_fuzzer: cycles were not rejected, and the module
// printed a use before its definition.
TEST(VerifierTest, CyclesThroughOperandsOrControlPredecessorsAreRejected) {
  struct Case {
    const char* body;
    const char* instruction;
    const char* detail;
  };
  for (const Case& c : std::vector<Case>{
           {"  p = f32[4] parameter(0)\n  a = f32[4] add(p, b)\n  b = f32[4] negate(a)\n"
            "  ROOT r = f32[4] add(a, b)\n",
            "b", "it depends on 'a', which depends on it"},
           {"  p = f32[4] parameter(0)\n  a = f32[4] negate(p), control-predecessors={b}\n"
            "  b = f32[4] negate(a)\n  ROOT r = f32[4] add(a, b)\n",
            "b", "(a cycle through operands or control-predecessors)"},
           {"  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, a)\n", "a",
            "it depends on 'a'"}}) {
    auto module = ParseEntry("HloModule m", c.body);
    ASSERT_NE(module, nullptr) << c.body;
    ExpectViolation(*module, "acyclic", "main", c.instruction, c.detail);
  }
}

// A module whose entry computation `main` breaks one rule at one
// instruction; `header` holds the module line and any called computation.
struct BrokenEntryCase {
  const char* name;
  absl::string_view header;
  const char* rule;
  const char* instruction;
  const char* body;
};

// Failures and --gtest_list_tests show the case's name.
void PrintTo(const BrokenEntryCase& c, std::ostream* os) { *os << c.name; }

class VerifierRuleTest : public ::testing::TestWithParam<BrokenEntryCase> {};

TEST_P(VerifierRuleTest, NamesTheRuleAndTheInstruction) {
  const BrokenEntryCase& c = GetParam();
  auto module = ParseEntry(c.header, c.body);
  ASSERT_NE(module, nullptr);
  ExpectViolation(*module, c.rule, "main", c.instruction);
}

std::string BrokenEntryName(const ::testing::TestParamInfo<BrokenEntryCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(
    VerifierShapeTest, VerifierRuleTest,
    ::testing::Values(
        BrokenEntryCase{"AddOfMismatchedOperands", "HloModule m", "shape", "bad_add", R"(
  a = f32[4] parameter(0)
  b = f32[8] parameter(1)
  ROOT bad_add = f32[4] add(a, b)
)"},
        BrokenEntryCase{"AddWithTheWrongResultShape", "HloModule m", "shape", "bad_add", R"(
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT bad_add = f32[5] add(a, b)
)"},
        BrokenEntryCase{"AddOfMixedElementTypes", "HloModule m", "shape", "bad_add", R"(
  a = f32[4] parameter(0)
  b = s32[4] parameter(1)
  ROOT bad_add = f32[4] add(a, b)
)"},
        BrokenEntryCase{"BroadcastWithWrongDimensions", "HloModule m", "shape", "bad_bc", R"(
  p = f32[3] parameter(0)
  ROOT bad_bc = f32[2,3] broadcast(p), dimensions={0}
)"},
        BrokenEntryCase{"BroadcastWithTooManyDimensions", "HloModule m", "shape", "bad_bc", R"(
  p = f32[3] parameter(0)
  ROOT bad_bc = f32[2,3] broadcast(p), dimensions={0,1}
)"},
        BrokenEntryCase{"BroadcastDimensionOutOfRange", "HloModule m", "shape", "bad_bc", R"(
  p = f32[3] parameter(0)
  ROOT bad_bc = f32[2,3] broadcast(p), dimensions={2}
)"},
        BrokenEntryCase{"ReshapeChangingTheElementCount", "HloModule m", "shape", "bad_reshape", R"(
  p = f32[2,3] parameter(0)
  ROOT bad_reshape = f32[5] reshape(p)
)"},
        BrokenEntryCase{"SliceOutOfRange", "HloModule m", "shape", "bad_slice", R"(
  p = f32[4] parameter(0)
  ROOT bad_slice = f32[5] slice(p), slice={[0:5]}
)"},
        BrokenEntryCase{"SliceWithTheWrongResultShape", "HloModule m", "shape", "bad_slice", R"(
  p = f32[8] parameter(0)
  ROOT bad_slice = f32[4] slice(p), slice={[0:8:4]}
)"},
        BrokenEntryCase{"GetTupleElementIndexOutOfRange", "HloModule m", "shape", "bad_gte", R"(
  p = (f32[], s32[]) parameter(0)
  ROOT bad_gte = f32[] get-tuple-element(p), index=2
)"},
        BrokenEntryCase{"GetTupleElementOfTheWrongShape", "HloModule m", "shape", "bad_gte", R"(
  p = (f32[], s32[]) parameter(0)
  ROOT bad_gte = f32[] get-tuple-element(p), index=1
)"},
        BrokenEntryCase{"ConcatenateOfMismatchedOperands", "HloModule m", "shape", "bad_cat", R"(
  a = f32[2,3] parameter(0)
  b = f32[2,4] parameter(1)
  ROOT bad_cat = f32[4,3] concatenate(a, b), dimensions={0}
)"},
        BrokenEntryCase{"ConcatenateWithTheWrongResultSize", "HloModule m", "shape", "bad_cat", R"(
  a = f32[2,3] parameter(0)
  b = f32[2,4] parameter(1)
  ROOT bad_cat = f32[2,8] concatenate(a, b), dimensions={1}
)"},
        BrokenEntryCase{"AllGatherResultIsNotOperandTimesGroupSize", kAdd, "shape", "bad_ag", R"(
  p = f32[4,4] parameter(0)
  ROOT bad_ag = f32[8,4] all-gather(p), replica_groups={{0,1,2}}, dimensions={0}
)"},
        BrokenEntryCase{"ReduceScatterNotDivisible", kAdd, "shape", "bad_rs", R"(
  p = f32[8] parameter(0)
  ROOT bad_rs = f32[2] reduce-scatter(p), replica_groups={{0,1,2}}, dimensions={0}, to_apply=add
)"},
        BrokenEntryCase{"ReduceScatterWithTheWrongResultSize", kAdd, "shape", "bad_rs", R"(
  p = f32[8] parameter(0)
  ROOT bad_rs = f32[8] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
)"},
        BrokenEntryCase{"ReplicaIdMustBeU32", "HloModule m", "shape", "bad_id",
                        "\n  ROOT bad_id = s32[] replica-id()\n"},
        BrokenEntryCase{"ReplicaIdMustBeAScalar", "HloModule m", "shape", "bad_id",
                        "\n  ROOT bad_id = u32[2] replica-id()\n"},
        BrokenEntryCase{"PartitionIdMustBeU32", "HloModule m", "shape", "bad_pid",
                        "\n  ROOT bad_pid = f32[] partition-id()\n"}),
    BrokenEntryName);

TEST(VerifierShapeTest, AShapeWhoseSizeOverflowsIsAViolation) {
  // The parser refuses it; a pass may still set it.
  auto module = ParseEntry("HloModule m", R"(
  p = f32[2,3] parameter(0)
  ROOT huge = f32[6] reshape(p)
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* huge = module->entry_computation()->root_instruction();
  huge->set_shape(Shape(PrimitiveType::F32, {int64_t{1} << 32, int64_t{1} << 32}));
  ExpectViolation(*module, "shape", "main", "huge",
                  "the element count of f32[4294967296,4294967296] overflows");
}

TEST(VerifierShapeTest, AllGatherWithIotaGroups) {
  auto ok = ParseEntry(kAdd, R"(
  p = f32[4,4] parameter(0)
  ROOT ag = f32[4,8] all-gather(p), replica_groups=[2,2]<=[4], dimensions={1}
)");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(VerifyModule(*ok).ok()) << VerifyModule(*ok);
  auto bad = ParseEntry(kAdd, R"(
  p = f32[4,4] parameter(0)
  ROOT bad_ag = f32[4,16] all-gather(p), replica_groups=[2,2]<=[4], dimensions={1}
)");
  ASSERT_NE(bad, nullptr);
  ExpectViolation(*bad, "shape", "main", "bad_ag");
}

TEST(VerifierShapeTest, ViolationInACalledComputationNamesThatComputation) {
  auto module = ParseOrFail(R"(HloModule m
broken {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT bad_sum = f32[2] add(a, b)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[2] call(p, p), to_apply=broken
}
)");
  ASSERT_NE(module, nullptr);
  ExpectViolation(*module, "shape", "broken", "bad_sum");
}

// ---------------------------------------------------------------------------
// [operand-count]

INSTANTIATE_TEST_SUITE_P(VerifierTest, VerifierRuleTest,
                         ::testing::Values(BrokenEntryCase{"OperandCount", "HloModule m",
                                                           "operand-count", "bad_neg",
                                                           R"(
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT bad_neg = f32[] negate(a, b)
)"}),
                         BrokenEntryName);

TEST(VerifierTest, OperandCountThroughTheApi) {
  HloModule module("m");
  HloComputation* entry = module.AddComputation("main", true);
  Shape s(PrimitiveType::F32, {});
  HloInstruction* p = entry->AddParameter(s, "p");
  HloInstruction* add = entry->AddInstruction(HloOpcode::kAdd, s, {p}, "lonely_add");
  ASSERT_TRUE(entry->set_root_instruction(add).ok());
  ExpectViolation(module, "operand-count", "main", "lonely_add");
  add->AppendOperand(p);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module);
}

// ---------------------------------------------------------------------------
// Structural rules, broken through the mutation API

TEST(VerifierTest, NoEntry) {
  auto module = ParseEntry("HloModule m", "  ROOT p = f32[] parameter(0)\n");
  ASSERT_NE(module, nullptr);
  module->set_entry_computation(nullptr);
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith("verifier: [entry] "));
}

TEST(VerifierTest, EntryFromAnotherModule) {
  auto module = ParseEntry("HloModule m", "  ROOT p = f32[] parameter(0)\n");
  auto other = ParseEntry("HloModule o", "  ROOT p = f32[] parameter(0)\n");
  ASSERT_NE(module, nullptr);
  ASSERT_NE(other, nullptr);
  module->set_entry_computation(other->entry_computation());
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith("verifier: [entry] "));
}

TEST(VerifierTest, DuplicateInstructionNames) {
  auto module = ParseEntry("HloModule m", R"(
  p = f32[] parameter(0)
  n = f32[] negate(p)
  ROOT e = f32[] exponential(n)
)");
  ASSERT_NE(module, nullptr);
  module->entry_computation()->GetInstructionWithName("e")->SetName("n");
  ExpectViolation(*module, "unique-names", "main", "n");
}

TEST(VerifierTest, DuplicateComputationNames) {
  auto module = ParseOrFail(R"(HloModule m
f {
  ROOT x = f32[] parameter(0)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
}
)");
  ASSERT_NE(module, nullptr);
  module->GetComputationWithName("f")->SetName("main");
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              StartsWith("verifier: [unique-names] computation 'main'"));
}

TEST(VerifierTest, ComputationWithoutRoot) {
  auto module = ParseEntry("HloModule m", "  ROOT p = f32[] parameter(0)\n");
  ASSERT_NE(module, nullptr);
  module->AddComputation("empty");
  ExpectViolation(*module, "root", "empty", "");
}

TEST(VerifierTest, MissingParameterNumber) {
  HloModule module("m");
  HloComputation* entry = module.AddComputation("main", true);
  HloInstruction* p1 = entry->AddParameter(Shape(PrimitiveType::F32, {}), "p1", /*number=*/1);
  ASSERT_TRUE(entry->set_root_instruction(p1).ok());
  absl::Status status = VerifyModule(module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              StartsWith("verifier: [parameters] computation 'main'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("parameter 0"));
}

TEST(VerifierTest, OperandFromAnotherComputation) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
other {
  q = f32[] parameter(0)
  ROOT e = f32[] exponential(q)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* main = module->GetComputationWithName("main");
  HloComputation* other = module->GetComputationWithName("other");
  ASSERT_EQ(module->entry_computation(), main);
  HloInstruction* stray = main->AddInstruction(HloOpcode::kSin, Shape(PrimitiveType::F32, {}),
                                               {other->parameter_instruction(0)}, "stray");
  ASSERT_NE(stray, nullptr);
  ExpectViolation(*module, "use-def", "main", "stray", "'q'");
}

TEST(VerifierTest, CalledComputationOutsideTheModule) {
  auto module = ParseOrFail(std::string(kAdd) + R"(
ENTRY main {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={}, to_apply=add
}
)");
  auto other = ParseOrFail(std::string(kAdd) + R"(
ENTRY main {
  p = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p), replica_groups={}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  ASSERT_NE(other, nullptr);
  HloInstruction* ar = module->entry_computation()->root_instruction();
  ar->SetComputationAttribute("to_apply", other->GetComputationWithName("add"));
  ExpectViolation(*module, "called-computations", "main", "ar");
}

TEST(VerifierTest, ControlPredecessorInAnotherComputation) {
  auto module = ParseOrFail(std::string(kAdd) + R"(
ENTRY main {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  HloAttribute attr;
  attr.name = "control-predecessors";
  attr.kind = HloAttribute::Kind::kInstructionList;
  attr.instructions = {module->GetComputationWithName("add")->root_instruction()};
  module->entry_computation()->root_instruction()->AddAttribute(attr);
  ExpectViolation(*module, "control-predecessors", "main", "n", "'s'");
}

TEST(VerifierTest, FirstViolationIsReported) {
  // Both instructions are wrong; a single, well-formed message comes back.
  auto module = ParseEntry("HloModule m", R"(
  a = f32[4] parameter(0)
  bad1 = f32[3] negate(a)
  ROOT bad2 = f32[3] reshape(bad1, bad1)
)");
  ASSERT_NE(module, nullptr);
  absl::Status status = VerifyModule(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith("verifier: ["));
  EXPECT_THAT(std::string(status.message()), ::testing::Not(HasSubstr("\n")));
}

}  // namespace
}  // namespace hopt

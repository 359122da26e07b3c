// SPDX-License-Identifier: Apache-2.0
// include/hopt/ir/structural_compare.h: modules that differ only in names are the
// same; every other kind of difference is found and named. Also the
// pipeline's per-pass callback (PassCallbacks::after_verifier), which
// hopt -compare-with builds on.

#include "hopt/ir/structural_compare.h"

#include <memory>
#include <string>
#include <vector>

#include "core/pass_manager/tooling/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

constexpr char kBase[] = R"(HloModule m, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  n = f32[4] negate(p)
  d = f32[4] subtract(n, q)
  c = f32[4] custom-call(d), custom_call_target="Foo", backend_config="k=1"
  ROOT r = f32[4] all-reduce(c), replica_groups={}, to_apply=add
}
)";

std::optional<StructuralDifference> Compare(const std::string& a, const std::string& b) {
  std::unique_ptr<HloModule> first = ParseOrFail(a);
  std::unique_ptr<HloModule> second = ParseOrFail(b);
  if (first == nullptr || second == nullptr) {
    ADD_FAILURE() << "parse failed";
    return std::nullopt;
  }
  return FindStructuralDifference(*first, *second);
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(StructuralCompareTest, SameModuleIsIdentical) {
  EXPECT_FALSE(Compare(kBase, kBase).has_value());
}

TEST(StructuralCompareTest, NamesAndListOrderDoNotMatter) {
  // Every instruction and computation renamed, the module too, and the
  // independent instructions listed in another order.
  const char* renamed = R"(HloModule other, replica_count=2

sum.7 {
  a.1 = f32[] parameter(0)
  b.2 = f32[] parameter(1)
  ROOT a.3 = f32[] add(a.1, b.2)
}

ENTRY entry.9 {
  second = f32[4] parameter(1)
  first = f32[4] parameter(0)
  neg.1 = f32[4] negate(first)
  sub.2 = f32[4] subtract(neg.1, second)
  call.3 = f32[4] custom-call(sub.2), backend_config="k=1", custom_call_target="Foo"
  ROOT ar.4 = f32[4] all-reduce(call.3), to_apply=sum.7, replica_groups={}
}
)";
  std::optional<StructuralDifference> difference = Compare(kBase, renamed);
  EXPECT_FALSE(difference.has_value()) << difference->Describe("a", "b");
}

TEST(StructuralCompareTest, OpcodeDiffers) {
  auto difference = Compare(kBase, Replace(kBase, "negate(p)", "abs(p)"));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "computation 'main'");
  EXPECT_EQ(difference->instruction, 2);
  EXPECT_EQ(difference->first_line, "%2 = f32[4]{0} negate(%0)");
  EXPECT_EQ(difference->second_line, "%2 = f32[4]{0} abs(%0)");
  EXPECT_EQ(difference->first_name, "n");
  EXPECT_EQ(difference->Describe("ours", "theirs"),
            "computation 'main', first difference at instruction 2: ours '%2 = f32[4]{0} "
            "negate(%0)' (n) vs theirs '%2 = f32[4]{0} abs(%0)' (n)");
}

TEST(StructuralCompareTest, ShapeDiffers) {
  auto difference = Compare(kBase, Replace(kBase, "ROOT s = f32[] add", "ROOT s = f16[] add"));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "computation 'add'");
  EXPECT_THAT(difference->second_line, HasSubstr("f16[] add(%0, %1)"));
}

TEST(StructuralCompareTest, LayoutDiffers) {
  const char* a =
      "HloModule m\nENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT c = f32[2,3]{1,0} "
      "copy(p)\n}\n";
  const char* b =
      "HloModule m\nENTRY e {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT c = f32[2,3]{0,1} "
      "copy(p)\n}\n";
  auto difference = Compare(a, b);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->instruction, 1);
  EXPECT_EQ(difference->second_line, "ROOT %1 = f32[2,3]{0,1} copy(%0)");
}

TEST(StructuralCompareTest, OperandOrderDiffers) {
  auto difference = Compare(kBase, Replace(kBase, "subtract(n, q)", "subtract(q, n)"));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "computation 'main'");
  EXPECT_EQ(difference->instruction, 3);
  EXPECT_EQ(difference->first_line, "%3 = f32[4]{0} subtract(%2, %1)");
  EXPECT_EQ(difference->second_line, "%3 = f32[4]{0} subtract(%1, %2)");
}

TEST(StructuralCompareTest, AttributeValueDiffers) {
  auto difference =
      Compare(kBase, Replace(kBase, "backend_config=\"k=1\"", "backend_config=\"k=2\""));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->instruction, 4);
  EXPECT_THAT(difference->first_line, HasSubstr("backend_config=\"k=1\""));
  EXPECT_THAT(difference->second_line, HasSubstr("backend_config=\"k=2\""));
  EXPECT_EQ(difference->second_name, "c");
}

TEST(StructuralCompareTest, CustomCallTargetDiffers) {
  auto difference = Compare(kBase, Replace(kBase, "\"Foo\"", "\"Bar\""));
  ASSERT_TRUE(difference.has_value());
  EXPECT_THAT(difference->second_line, HasSubstr("custom_call_target=\"Bar\""));
}

TEST(StructuralCompareTest, MissingAttributeDiffers) {
  auto difference = Compare(kBase, Replace(kBase, ", backend_config=\"k=1\"", ""));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->instruction, 4);
}

TEST(StructuralCompareTest, ExtraInstructionDiffers) {
  std::string extra =
      Replace(kBase, "ROOT r = f32[4] all-reduce(c), replica_groups={}, to_apply=add",
              "r = f32[4] all-reduce(c), replica_groups={}, to_apply=add\n"
              "  ROOT copy = f32[4] copy(r)");
  auto difference = Compare(kBase, extra);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->instruction, 5);
  EXPECT_THAT(difference->first_line, HasSubstr("ROOT %5 = f32[4]{0} all-reduce(%4)"));
  EXPECT_THAT(difference->second_line, HasSubstr("%5 = f32[4]{0} all-reduce(%4)"));
  EXPECT_THAT(difference->second_line, ::testing::Not(HasSubstr("ROOT")));
  // A copy of the whole module with one line more at the end.
  auto longer =
      Compare("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n  d = f32[] negate(p)\n}\n",
              "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_TRUE(longer.has_value());
  EXPECT_EQ(longer->instruction, 1);
  EXPECT_EQ(longer->second_line, "(none)");
  EXPECT_THAT(longer->Describe("ours", "theirs"), HasSubstr("vs theirs (none)"));
}

TEST(StructuralCompareTest, CalledComputationDiffers) {
  auto difference =
      Compare(kBase, Replace(kBase, "ROOT s = f32[] add(x, y)", "ROOT s = f32[] maximum(x, y)"));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "computation 'add'");
  EXPECT_EQ(difference->instruction, 2);
}

TEST(StructuralCompareTest, ConstantDiffers) {
  const char* a = "HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1, 2})\n}\n";
  const char* b = "HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1, 3})\n}\n";
  auto difference = Compare(a, b);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->second_line, "ROOT %0 = f32[2]{0} constant({1, 3})");
}

TEST(StructuralCompareTest, ModuleHeaderDiffers) {
  auto difference = Compare(kBase, Replace(kBase, "replica_count=2", "replica_count=4"));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "module header");
  EXPECT_EQ(difference->instruction, -1);
  EXPECT_EQ(difference->Describe("ours", "theirs"),
            "module header: ours 'replica_count=2, num_partitions=1' vs theirs "
            "'replica_count=4, num_partitions=1'");
}

TEST(StructuralCompareTest, ExtraComputationDiffers) {
  std::string extra =
      Replace(kBase, "ENTRY main {", "unused {\n  ROOT z = f32[] parameter(0)\n}\n\nENTRY main {");
  auto difference = Compare(kBase, extra);
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(difference->where, "computation 'unused' (second module only)");
  EXPECT_EQ(difference->first_line, "(none)");
}

TEST(StructuralCompareTest, CanonicalTextNamesByPosition) {
  std::unique_ptr<HloModule> module = ParseOrFail(kBase);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CanonicalModuleText(*module),
            "replica_count=2, num_partitions=1\n"
            "%c0 {\n"
            "  %0 = f32[] parameter(0)\n"
            "  %1 = f32[] parameter(1)\n"
            "  ROOT %2 = f32[] add(%0, %1)\n"
            "}\n"
            "ENTRY %c1 {\n"
            "  %0 = f32[4]{0} parameter(0)\n"
            "  %1 = f32[4]{0} parameter(1)\n"
            "  %2 = f32[4]{0} negate(%0)\n"
            "  %3 = f32[4]{0} subtract(%2, %1)\n"
            "  %4 = f32[4]{0} custom-call(%3), backend_config=\"k=1\", custom_call_target=\"Foo\"\n"
            "  ROOT %5 = f32[4]{0} all-reduce(%4), replica_groups={}, to_apply=%c0\n"
            "}\n");
}

// A pass that renames the module: what the callback sees is the module
// after each pass.
class RenameModule : public Pass {
 public:
  explicit RenameModule(std::string name) : name_(std::move(name)) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    module.set_name(name_);
    return true;
  }

 private:
  std::string name_;
};

TEST(PipelineAfterPassTest, CalledAfterEachPassAndStopsOnError) {
  std::unique_ptr<HloModule> module = ParseOrFail(kBase);
  ASSERT_NE(module, nullptr);
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<RenameModule>("one"));
  passes.push_back(std::make_unique<RenameModule>("two"));
  passes.push_back(std::make_unique<RenameModule>("three"));
  std::vector<std::string> seen;
  Instrumentation instrumentation;
  PassCallbacks callbacks;
  callbacks.after_verifier = [&](size_t index, const Pass& pass, const HloModule& after) {
    seen.push_back(absl::StrCat(index, ":", pass.name(), ":", after.name()));
    if (index == 1) return absl::CancelledError("enough");
    return absl::OkStatus();
  };
  instrumentation.callbacks.push_back(callbacks);
  absl::StatusOr<bool> ran = RunPipeline(*module, passes, instrumentation);
  EXPECT_EQ(ran.status(), absl::CancelledError("enough"));
  EXPECT_THAT(seen, ::testing::ElementsAre("0:one:one", "1:two:two"));
  EXPECT_EQ(module->name(), "two");
}

}  // namespace
}  // namespace hopt

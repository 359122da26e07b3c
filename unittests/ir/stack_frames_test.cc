// SPDX-License-Identifier: Apache-2.0
// Tests for the stack-frame tables (include/hopt/ir/stack_frames.h): text
// reading and printing, the proto field, lookups, the source line in
// messages, and MetadataFrom (hopt/ir/builder.h).

#include "hopt/ir/stack_frames.h"

#include <memory>
#include <string>

#include "core/proto/convert.h"
#include "core/proto/hlo.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// Two frames: `inner` (model.py:187 in loss_fn) called from `outer`
// (model.py:240 in train_step).
constexpr char kModule[] = R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

FileNames
1 "model.py"
2 "tab\there.py"

FunctionNames
1 "loss_fn"
2 "train_step"

FileLocations
1 {file_name_id=1 function_name_id=1 line=187 end_line=187 column=11 end_column=30}
2 {file_name_id=1 function_name_id=2 line=240 end_line=241 column=4 end_column=9}

StackFrames
1 {file_location_id=2 parent_frame_id=1}
2 {file_location_id=1 parent_frame_id=2}


ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %n = f32[4]{0} negate(%p), metadata={op_name="neg" stack_frame_id=2}
  ROOT %e = f32[4]{0} exponential(%n), metadata={op_name="exp" source_file="old.py" source_line=9}
}

)";

TEST(StackFramesTest, ReadsTheFourTables) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  const StackFrameIndex& index = module->stack_frames();
  EXPECT_THAT(index.file_names, ::testing::ElementsAre("model.py", "tab\there.py"));
  EXPECT_THAT(index.function_names, ::testing::ElementsAre("loss_fn", "train_step"));
  ASSERT_EQ(index.file_locations.size(), 2u);
  EXPECT_EQ(index.file_locations[1].end_line, 241);
  EXPECT_EQ(index.file_locations[1].column, 4);
  ASSERT_EQ(index.frames.size(), 2u);
  // The text's parent_frame_id is the stored value plus one.
  EXPECT_EQ(index.frames[0].parent_frame_id, 0);
  EXPECT_EQ(index.frames[1].parent_frame_id, 1);
}

TEST(StackFramesTest, PrintsByteForByte) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(PrintModule(*module), kModule);
}

TEST(StackFramesTest, NoTablesPrintNoTables) {
  auto module = ParseOrFail("HloModule m\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(module->stack_frames().empty());
  EXPECT_THAT(PrintModule(*module), ::testing::Not(HasSubstr("FileNames")));
}

TEST(StackFramesTest, LookupGivesTheInnermostFrame) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  auto source = module->stack_frames().Lookup(2);
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->file, "model.py");
  EXPECT_EQ(source->function, "loss_fn");
  EXPECT_EQ(source->line, 187);
  EXPECT_EQ(source->column, 11);
  EXPECT_FALSE(module->stack_frames().Lookup(0).has_value());
  EXPECT_FALSE(module->stack_frames().Lookup(3).has_value());
}

TEST(StackFramesTest, SourceLineOfAnInstruction) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(SourceLineOf(*entry->GetInstructionWithName("n")), "model.py:187");
  EXPECT_EQ(SourceLineOf(*entry->GetInstructionWithName("n"), true), "model.py:187 (loss_fn)");
  // Without a frame, the metadata's own source_file/source_line.
  EXPECT_EQ(SourceLineOf(*entry->GetInstructionWithName("e")), "old.py:9");
  EXPECT_EQ(SourceLineOf(*entry->GetInstructionWithName("p")), "");
}

// The key inside a quoted name is not the key.
TEST(StackFramesTest, AFrameIdSpelledInANameIsNotOne) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  HloInstruction* n = module->entry_computation()->GetInstructionWithName("n");
  n->SetAttributeText("metadata", R"({op_name="x stack_frame_id=2"})");
  EXPECT_EQ(SourceLineOf(*n), "");
}

TEST(StackFramesTest, ValidateNamesTheBadRow) {
  StackFrameIndex index;
  index.file_names = {"a.py"};
  index.file_locations.push_back({1, 0, 3, 3, 0, 0});
  index.frames.push_back({1, 0});
  EXPECT_TRUE(index.Validate().ok());
  index.frames.push_back({2, 0});
  StackFrameIndex::RowRef bad;
  absl::Status status = index.Validate(&bad);
  EXPECT_THAT(status.message(), HasSubstr("StackFrames row 2: file_location_id=2"));
  EXPECT_EQ(bad.table, 3);
  EXPECT_EQ(bad.row, 1u);
  index.frames[1] = {1, 5};
  EXPECT_THAT(index.Validate().message(), HasSubstr("parent_frame_id=6 names no row"));
}

TEST(StackFramesTest, ProtoRoundTrip) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto;
  ASSERT_TRUE(ModuleToProto(*module, &proto).ok());
  ASSERT_TRUE(proto.has_stack_frame_index());
  EXPECT_EQ(proto.stack_frame_index().file_names_size(), 2);
  EXPECT_EQ(proto.stack_frame_index().stack_frames(1).parent_frame_id(), 1);
  EXPECT_EQ(proto.stack_frame_index().file_locations(0).line(), 187);
  auto back = ModuleFromProto(&proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PrintModule(**back), kModule);
}

TEST(StackFramesTest, ProtoWithBadReferencesIsRefused) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto;
  ASSERT_TRUE(ModuleToProto(*module, &proto).ok());
  proto.mutable_stack_frame_index()->mutable_file_locations(0)->set_file_name_id(9);
  auto back = ModuleFromProto(&proto);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(),
              HasSubstr("stack_frame_index: FileLocations row 1: file_name_id=9"));
}

// A module read from a proto has no text positions; its verifier message
// still names the program line.
TEST(StackFramesTest, VerifierNamesTheSourceLineAfterAProto) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto;
  ASSERT_TRUE(ModuleToProto(*module, &proto).ok());
  auto back = ModuleFromProto(&proto);
  ASSERT_TRUE(back.ok()) << back.status();
  HloInstruction* n = (*back)->entry_computation()->GetInstructionWithName("n");
  n->set_shape(Shape(PrimitiveType::F32, {2}));
  absl::Status status = VerifyModule(**back);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("instruction 'n'"));
  EXPECT_THAT(status.message(), HasSubstr("; from model.py:187 (loss_fn)"));
}

TEST(StackFramesTest, CloneAndModulesMadeFromOneKeepTheTables) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  std::unique_ptr<HloModule> clone = module->Clone();
  EXPECT_EQ(PrintModule(*clone), kModule);
  HloModule other("other");
  other.ShareStackFramesFrom(*module);
  EXPECT_EQ(other.stack_frames().file_names.size(), 2u);
}

TEST(MetadataFromTest, NewInstructionsTakeTheSourcesMetadata) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* n = entry->GetInstructionWithName("n");
  HloInstruction* made_inside = nullptr;
  {
    MetadataFrom metadata(*n);
    auto made = MakeUnary(HloOpcode::kAbs, n);
    ASSERT_TRUE(made.ok());
    made_inside = *made;
    // Set explicitly afterwards: that wins.
    auto own = MakeUnary(HloOpcode::kSign, n);
    ASSERT_TRUE(own.ok());
    (*own)->SetAttributeText("metadata", R"({op_name="own"})");
    EXPECT_EQ(*(*own)->GetAttributeText("metadata"), R"({op_name="own"})");
  }
  EXPECT_EQ(*made_inside->GetAttributeText("metadata"), R"({op_name="neg" stack_frame_id=2})");
  EXPECT_EQ(SourceLineOf(*made_inside), "model.py:187");
  // After the scope, nothing is inherited.
  auto after = MakeUnary(HloOpcode::kAbs, n);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE((*after)->GetAttributeText("metadata").has_value());
}

TEST(MetadataFromTest, ScopesNestAndASourceWithoutMetadataKeepsTheOuter) {
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  HloInstruction* n = entry->GetInstructionWithName("n");
  HloInstruction* p = entry->GetInstructionWithName("p");
  HloInstruction* e = entry->GetInstructionWithName("e");
  MetadataFrom outer(*n);
  {
    MetadataFrom none(*p);  // p has no metadata
    auto made = MakeUnary(HloOpcode::kAbs, p);
    ASSERT_TRUE(made.ok());
    EXPECT_EQ(*(*made)->GetAttributeText("metadata"), R"({op_name="neg" stack_frame_id=2})");
    MetadataFrom inner(*e);
    auto inner_made = MakeUnary(HloOpcode::kAbs, p);
    ASSERT_TRUE(inner_made.ok());
    EXPECT_THAT(std::string(*(*inner_made)->GetAttributeText("metadata")), HasSubstr("old.py"));
  }
  auto back_to_outer = MakeUnary(HloOpcode::kAbs, p);
  ASSERT_TRUE(back_to_outer.ok());
  EXPECT_EQ(*(*back_to_outer)->GetAttributeText("metadata"), R"({op_name="neg" stack_frame_id=2})");
}

TEST(StackFramesTest, OpMetadataCarriesTheFrameId) {
  auto metadata = ParseMetadata(R"({op_name="x" stack_frame_id=4})");
  ASSERT_TRUE(metadata.ok());
  EXPECT_EQ(metadata->stack_frame_id, 4);
  EXPECT_EQ(FormatMetadata(*metadata), R"({op_name="x" stack_frame_id=4})");
}

}  // namespace
}  // namespace hopt

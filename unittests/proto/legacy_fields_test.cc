// SPDX-License-Identifier: Apache-2.0
// Tests for reading dumps of other XLA schemas than hopt's
// (core/proto/legacy_fields.h, dropped_fields.h): legacy fields dropped,
// mapped or refused, unknown fields kept or reported, and neither written
// back.

#include "core/proto/legacy_fields.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/convert.h"
#include "core/proto/dropped_fields.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/tooling/io.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hopt/ir/printer.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Kind = DroppedFields::Kind;

// A module whose three layouts have XLA's old `format: DENSE`, one with
// `max_sparse_elements` too, and a dynamic parameter binding.
xla::HloProto OldModule() {
  auto module = testing_util::ParseOrFail(R"(HloModule old

ENTRY main {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}
)");
  xla::HloProto hlo;
  EXPECT_TRUE(ModuleToProto(*module, hlo.mutable_hlo_module()).ok());
  xla::HloModuleProto* m = hlo.mutable_hlo_module();
  for (xla::HloInstructionProto& i : *m->mutable_computations(0)->mutable_instructions())
    i.mutable_shape()->mutable_layout()->set_format(xla::DENSE);
  m->mutable_computations(0)
      ->mutable_instructions(0)
      ->mutable_shape()
      ->mutable_layout()
      ->set_max_sparse_elements(8);
  m->mutable_host_program_shape()->mutable_result()->mutable_layout()->set_format(xla::DENSE);
  auto* binding = m->mutable_dynamic_parameter_binding()->add_entries();
  binding->set_dynamic_param_num(1);
  return hlo;
}

// The entry of one kind, field and message; fails when there is none.
DroppedFields::Entry Find(const DroppedFields& dropped, Kind kind, absl::string_view message,
                          int number) {
  for (const DroppedFields::Entry& e : dropped.entries())
    if (e.kind == kind && e.message == message && e.number == number) return e;
  ADD_FAILURE() << "no entry for " << message << " field " << number;
  return {};
}

TEST(LegacyFieldsTest, BinaryAndTextReadTheSameAndCountWhatTheyDrop) {
  xla::HloProto hlo = OldModule();
  ProtoSideTable binary_side, text_side;
  auto from_binary = ModuleFromProtoBinary(hlo.SerializeAsString(), "old.pb", &binary_side);
  ASSERT_TRUE(from_binary.ok()) << from_binary.status();
  auto from_text = ModuleFromProtoText(hlo.DebugString(), "old.pbtxt", &text_side);
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_EQ(PrintModule(**from_binary), PrintModule(**from_text));
  for (const ProtoSideTable* side : {&binary_side, &text_side}) {
    const DroppedFields& dropped = side->dropped_fields();
    DroppedFields::Entry format = Find(dropped, Kind::kLegacy, "LayoutProto", 4);
    EXPECT_EQ(format.count, 3);
    EXPECT_EQ(format.field, "format");
    EXPECT_THAT(format.note, HasSubstr("DENSE"));
    EXPECT_EQ(Find(dropped, Kind::kLegacy, "LayoutProto", 5).count, 1);
    EXPECT_EQ(Find(dropped, Kind::kLegacy, "HloModuleProto", 9).field, "dynamic_parameter_binding");
    EXPECT_EQ(dropped.dropped_count(), 5);
    EXPECT_EQ(DroppedFields::Describe(format),
              "dropped 3 LayoutProto.format (DENSE; removed from XLA in 2022)");
  }
}

TEST(LegacyFieldsTest, NoWriterEmitsThem) {
  xla::HloProto hlo = OldModule();
  ProtoSideTable side;
  auto module = ModuleFromProtoBinary(hlo.SerializeAsString(), "old.pb", &side);
  ASSERT_TRUE(module.ok()) << module.status();
  auto bytes = ModuleToProtoBinary(**module, /*gzip=*/false, &side);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  xla::HloProto out;
  ASSERT_TRUE(out.ParseFromString(*bytes));
  EXPECT_FALSE(out.hlo_module().has_dynamic_parameter_binding());
  for (const xla::HloInstructionProto& i : out.hlo_module().computations(0).instructions()) {
    EXPECT_EQ(i.shape().layout().format(), xla::INVALID_FORMAT) << i.name();
    EXPECT_EQ(i.shape().layout().max_sparse_elements(), 0) << i.name();
  }
  auto text = ModuleToProtoText(**module, &side);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, AllOf(Not(HasSubstr("format")), Not(HasSubstr("dynamic_parameter_binding")),
                           Not(HasSubstr("max_sparse_elements"))));
}

TEST(LegacyFieldsTest, SparseLayoutIsRefusedWithOrWithoutATable) {
  xla::HloProto hlo = OldModule();
  hlo.mutable_hlo_module()
      ->mutable_computations(0)
      ->mutable_instructions(1)
      ->mutable_shape()
      ->mutable_layout()
      ->set_format(xla::SPARSE);
  ProtoSideTable side;
  for (ProtoSideTable* table : {&side, static_cast<ProtoSideTable*>(nullptr)}) {
    auto module = ModuleFromProtoBinary(hlo.SerializeAsString(), "s.pb", table);
    ASSERT_FALSE(module.ok());
    EXPECT_THAT(module.status().message(),
                AllOf(HasSubstr("instruction 'n'"), HasSubstr("shape.layout.format"),
                      HasSubstr("SPARSE"), HasSubstr("hopt has no sparse-format layouts")));
    auto from_text = ModuleFromProtoText(hlo.DebugString(), "s.pbtxt", table);
    ASSERT_FALSE(from_text.ok());
    EXPECT_THAT(from_text.status().message(), HasSubstr("SPARSE"));
  }
  // Where the layout is outside the instructions, the path says where.
  xla::HloProto host = OldModule();
  host.mutable_hlo_module()
      ->mutable_host_program_shape()
      ->mutable_parameters(0)
      ->mutable_layout()
      ->set_format(xla::SPARSE);
  auto module = ModuleFromProtoBinary(host.SerializeAsString(), "h.pb");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("host_program_shape.parameters[0].layout.format: the layout's format is "
                        "SPARSE"));
}

TEST(LegacyFieldsTest, UnknownFieldsAreKeptOrReportedLost) {
  xla::HloProto hlo = OldModule();
  xla::HloInstructionProto* n =
      hlo.mutable_hlo_module()->mutable_computations(0)->mutable_instructions(1);
  auto unknown = [](google::protobuf::Message* m) {
    return m->GetReflection()->MutableUnknownFields(m);
  };
  unknown(n)->AddVarint(9001, 1);                                   // kept
  unknown(n->mutable_shape()->mutable_layout())->AddVarint(99, 2);  // rebuilt: lost
  unknown(n->mutable_metadata())->AddVarint(98, 3);                 // rebuilt: lost
  unknown(hlo.mutable_hlo_module()->mutable_host_program_shape())->AddVarint(97, 4);  // lost
  ProtoSideTable side;
  auto module = ModuleFromProtoBinary(hlo.SerializeAsString(), "u.pb", &side);
  ASSERT_TRUE(module.ok()) << module.status();
  const DroppedFields& dropped = side.dropped_fields();
  EXPECT_EQ(Find(dropped, Kind::kKeptUnknown, "HloInstructionProto", 9001).count, 1);
  EXPECT_EQ(Find(dropped, Kind::kUnknown, "LayoutProto", 99).count, 1);
  EXPECT_EQ(Find(dropped, Kind::kUnknown, "OpMetadata", 98).count, 1);
  EXPECT_EQ(Find(dropped, Kind::kUnknown, "ProgramShapeProto", 97).count, 1);
  EXPECT_THAT(DroppedFields::Describe(Find(dropped, Kind::kUnknown, "LayoutProto", 99)),
              HasSubstr("dropped 1 unknown field 99 of LayoutProto"));
  // Without a table even an instruction's own unknown fields are lost:
  // the reader still reads the module.
  EXPECT_TRUE(ModuleFromProtoBinary(hlo.SerializeAsString(), "u.pb").ok());
}

TEST(LegacyFieldsTest, SnapshotArgumentsAreReportedNotKept) {
  xla::HloSnapshot snapshot;
  *snapshot.mutable_hlo() = OldModule();
  snapshot.add_arguments()->mutable_shape()->set_element_type(xla::F32);
  snapshot.set_execution_platform("Host");
  ProtoSideTable side;
  auto module = ModuleFromProtoBinary(snapshot.SerializeAsString(), "s.pb", &side);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(Find(side.dropped_fields(), Kind::kNotKept, "HloSnapshot", 2).field, "arguments");
  EXPECT_EQ(Find(side.dropped_fields(), Kind::kNotKept, "HloSnapshot", 4).field,
            "execution_platform");
}

TEST(LegacyFieldsTest, OldEnumNamesReadByNumber) {
  // XLA 2020's HloInputOutputAliasProto kinds and 2022's dim level type.
  std::string text =
      absl::StrCat(OldModule().hlo_module().DebugString(),
                   "input_output_alias { entries { parameter_number: 0 kind: USER_ALIAS } }\n");
  auto module = ModuleFromProtoText(text, "a.pbtxt");
  ASSERT_TRUE(module.ok()) << module.status();
  xla::LayoutProto layout;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "dim_level_types: DIM_COMPRESSED_WITH_HI", &layout));
  EXPECT_EQ(layout.dim_level_types(0), xla::DIM_LOOSE_COMPRESSED);
}

TEST(LegacyFieldsTest, TextFormatNamesAnUnknownFieldAndItsPlace) {
  auto module = ModuleFromProtoText("name: \"m\"\n  future_field: 1\n", "f.pbtxt");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              AllOf(HasSubstr("unknown field \"future_field\" of xla.HloModuleProto"),
                    HasSubstr("hopt's schema does not know it")));
  EXPECT_THAT(module.status().ToString(), HasSubstr("f.pbtxt:2:"));
}

// The wire scan must see whatever the walk would find, at any depth, and
// may only err towards "look".
TEST(LegacyFieldsTest, WireScanFindsLegacyAndUnknownFieldsAtAnyDepth) {
  const google::protobuf::Descriptor* type = xla::HloInstructionProto::descriptor();
  xla::HloInstructionProto clean;
  clean.set_name("n");
  clean.set_opcode("negate");
  clean.mutable_shape()->set_element_type(xla::F32);
  clean.mutable_shape()->add_dimensions(4);
  clean.mutable_shape()->mutable_layout()->add_minor_to_major(0);
  clean.mutable_metadata()->set_op_name("f");
  clean.add_operand_ids(1);
  clean.add_hopt_text_attributes()->set_name("x");  // hopt's own field 10001
  EXPECT_FALSE(MayHoldOtherSchemaFields(clean.SerializeAsString(), type));

  xla::HloInstructionProto legacy = clean;
  legacy.mutable_shape()->mutable_layout()->set_format(xla::DENSE);
  EXPECT_TRUE(MayHoldOtherSchemaFields(legacy.SerializeAsString(), type));
  legacy = clean;
  legacy.mutable_metadata()->set_creation_pass_id(3);
  EXPECT_TRUE(MayHoldOtherSchemaFields(legacy.SerializeAsString(), type));

  xla::HloInstructionProto unknown = clean;
  auto* layout = unknown.mutable_shape()->mutable_layout();
  layout->GetReflection()->MutableUnknownFields(layout)->AddVarint(99, 1);
  EXPECT_TRUE(MayHoldOtherSchemaFields(unknown.SerializeAsString(), type));

  std::string bytes = clean.SerializeAsString();
  EXPECT_TRUE(MayHoldOtherSchemaFields(bytes.substr(0, bytes.size() - 1), type));
}

TEST(DroppedFieldsTest, CountsByKindMessageFieldAndNote) {
  DroppedFields dropped;
  dropped.Add(Kind::kLegacy, "LayoutProto", 4, "format", "DENSE; gone");
  dropped.Add(Kind::kLegacy, "LayoutProto", 4, "format", "DENSE; gone", 2);
  dropped.Add(Kind::kKeptUnknown, "HloInstructionProto", 92, "", "kept");
  ASSERT_EQ(dropped.entries().size(), 2u);
  EXPECT_EQ(dropped.entries()[0].count, 3);
  EXPECT_EQ(dropped.dropped_count(), 3);  // the kept one is not dropped
  EXPECT_EQ(DroppedFields::Describe(dropped.entries()[1]),
            "kept 1 unknown field 92 of HloInstructionProto (kept)");
  DroppedFields merged;
  merged.Merge(dropped);
  merged.Merge(dropped);
  EXPECT_EQ(merged.entries()[0].count, 6);
  merged.Clear();
  EXPECT_THAT(merged.entries(), IsEmpty());
}

}  // namespace
}  // namespace hopt

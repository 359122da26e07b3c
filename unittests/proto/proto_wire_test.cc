// SPDX-License-Identifier: Apache-2.0
// Tests for core/proto/wire.h (splitting messages at a field, decoding
// plain instructions) and for the binary reader's two paths through it: a
// module read from bytes must equal the module read from the parsed
// message, whichever instructions take the plain path.

#include <string>
#include <vector>

#include "core/proto/convert.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/tooling/io.h"
#include "core/proto/wire.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "hopt/ir/printer.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// Hand-built wire data.
std::string Varint(uint64_t value) {
  std::string out;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (value != 0);
  return out;
}
std::string Tag(int field, int wire_type) { return Varint((field << 3) | wire_type); }
std::string Bytes(int field, const std::string& payload) {
  return Tag(field, 2) + Varint(payload.size()) + payload;
}
std::string Int(int field, uint64_t value) { return Tag(field, 0) + Varint(value); }

TEST(SplitMessageTest, SplitsAtTheFieldAndKeepsTheRestByteForByte) {
  std::string bytes = Int(1, 7) + Bytes(3, "abc") + Tag(4, 1) + std::string(8, 'x') + Bytes(3, "") +
                      Tag(5, 5) + std::string(4, 'y') + Bytes(2, "zz");
  auto split = SplitMessageAtField(bytes, 3);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_THAT(split->payloads, ElementsAre("abc", ""));
  EXPECT_EQ(split->rest, Int(1, 7) + Tag(4, 1) + std::string(8, 'x') + Tag(5, 5) +
                             std::string(4, 'y') + Bytes(2, "zz"));
}

TEST(SplitMessageTest, SkipsGroupsWhole) {
  // A group holding a field of the split number is not split.
  std::string group = Tag(9, 3) + Bytes(3, "inner") + Int(1, 1) + Tag(9, 4);
  std::string bytes = group + Bytes(3, "outer");
  auto split = SplitMessageAtField(bytes, 3);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_THAT(split->payloads, ElementsAre("outer"));
  EXPECT_EQ(split->rest, group);
}

TEST(SplitMessageTest, RejectsMalformedData) {
  struct Case {
    std::string bytes;
    const char* message;
  };
  std::vector<Case> cases = {
      {Tag(3, 2) + Varint(10) + "short", "truncated field at byte 0"},
      {Int(1, 1) + "\xff\xff", "malformed field tag at byte 2"},
      {Int(3, 1), "field 3 is not length-delimited at byte 0"},
      {Tag(1, 6), "truncated or malformed field at byte 0"},
      {Tag(1, 4), "truncated or malformed field at byte 0"},
      {Tag(9, 3) + Int(1, 1), "truncated or malformed field at byte 0"},
      {Tag(9, 3) + Tag(8, 4), "truncated or malformed field at byte 0"},
      {Tag(1, 1) + "1234", "truncated or malformed field at byte 0"},
      {std::string("\x00", 1), "malformed field tag at byte 0"},
      {std::string(11, '\x80') + "\x01", "malformed field tag at byte 0"},
  };
  for (const Case& c : cases) {
    auto split = SplitMessageAtField(c.bytes, 3);
    ASSERT_FALSE(split.ok()) << c.message;
    EXPECT_EQ(split.status().message(), c.message);
  }
}

TEST(SplitMessageTest, JoinedPayloadsParseAsTheMergedMessage) {
  xla::HloModuleProto first, second;
  first.set_name("m");
  first.add_computations()->set_name("a");
  second.add_computations()->set_name("b");
  second.set_entry_computation_name("b");
  std::string bytes = Bytes(1, first.SerializeAsString()) + Bytes(1, second.SerializeAsString());
  auto split = SplitMessageAtField(bytes, 1);
  ASSERT_TRUE(split.ok());
  xla::HloModuleProto joined;
  ASSERT_TRUE(joined.ParseFromString(JoinPayloads(split->payloads)));
  xla::HloProto whole;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  EXPECT_EQ(joined.SerializeAsString(), whole.hlo_module().SerializeAsString());
  EXPECT_EQ(joined.computations_size(), 2);
}

xla::HloInstructionProto PlainProto() {
  xla::HloInstructionProto i;
  i.set_name("add.1");
  i.set_opcode("add");
  i.mutable_shape()->set_element_type(xla::F32);
  i.mutable_shape()->add_dimensions(4);
  i.set_id(12);
  i.add_operand_ids(3);
  i.add_operand_ids(4);
  i.add_control_predecessor_ids(2);
  return i;
}

TEST(PlainInstructionTest, DecodesTheStructuralFields) {
  xla::HloInstructionProto proto = PlainProto();
  proto.add_called_computation_ids(5);
  proto.set_parameter_number(3);
  PlainInstruction plain;
  std::string bytes = proto.SerializeAsString();  // the views point into it
  ASSERT_TRUE(DecodePlainInstruction(bytes, &plain));
  EXPECT_EQ(plain.name, "add.1");
  EXPECT_EQ(plain.opcode, "add");
  EXPECT_TRUE(plain.has_shape);
  EXPECT_EQ(plain.shape, proto.shape().SerializeAsString());
  EXPECT_EQ(plain.id, 12);
  EXPECT_EQ(plain.parameter_number, 3);
  EXPECT_THAT(plain.operand_ids, ElementsAre(3, 4));
  EXPECT_THAT(plain.control_predecessor_ids, ElementsAre(2));
  EXPECT_THAT(plain.called_computation_ids, ElementsAre(5));
}

TEST(PlainInstructionTest, ReadsUnpackedAndNegativeIds) {
  // Parsers must take a packed repeated field unpacked too, and int64
  // negatives are ten-byte varints.
  std::string bytes = Bytes(1, "n") + Bytes(2, "tuple") + Int(36, 7) + Int(36, 8) +
                      Bytes(36, Varint(9)) + Int(35, static_cast<uint64_t>(-5));
  PlainInstruction plain;
  ASSERT_TRUE(DecodePlainInstruction(bytes, &plain));
  EXPECT_THAT(plain.operand_ids, ElementsAre(7, 8, 9));
  EXPECT_EQ(plain.id, -5);
  EXPECT_FALSE(plain.has_shape);
  xla::HloInstructionProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_THAT(parsed.operand_ids(), ElementsAre(7, 8, 9));
  EXPECT_EQ(parsed.id(), -5);
}

TEST(PlainInstructionTest, LeavesEverythingElseToTheGeneratedParser) {
  PlainInstruction plain;
  std::string base = PlainProto().SerializeAsString();
  xla::HloInstructionProto with_metadata = PlainProto();
  with_metadata.mutable_metadata()->set_op_name("x");
  EXPECT_FALSE(DecodePlainInstruction(with_metadata.SerializeAsString(), &plain));
  xla::HloInstructionProto with_dims = PlainProto();
  with_dims.add_dimensions(0);
  EXPECT_FALSE(DecodePlainInstruction(with_dims.SerializeAsString(), &plain));
  // A repeated name (the last would win), a non-ASCII name (UTF-8 is
  // checked by the generated parser), an unknown field, a wrong wire type,
  // truncated data.
  EXPECT_FALSE(DecodePlainInstruction(base + Bytes(1, "again"), &plain));
  EXPECT_FALSE(DecodePlainInstruction(base + Int(35, 1), &plain));
  xla::HloInstructionProto accented = PlainProto();
  accented.set_name("caf\xc3\xa9");
  EXPECT_FALSE(DecodePlainInstruction(accented.SerializeAsString(), &plain));
  EXPECT_FALSE(DecodePlainInstruction(base + Int(20000, 1), &plain));
  EXPECT_FALSE(DecodePlainInstruction(base + Int(1, 1), &plain));
  EXPECT_FALSE(DecodePlainInstruction(base.substr(0, base.size() - 1), &plain));
  EXPECT_TRUE(DecodePlainInstruction(base, &plain));
}

// A module mixing plain instructions with ones the codec must read
// (attributes, metadata, constants, calls, control edges).
constexpr char kMixed[] = R"(HloModule mixed, replica_count=2

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(t), index=1
  r = f32[4] all-reduce(v), replica_groups={{0,1}}, to_apply=sum
  ROOT out = (s32[], f32[4]) tuple(next, r)
}

ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  m = f32[4] multiply(p, q), metadata={op_name="mul" source_line=3}
  cafe = f32[4] add(m, p)
  neg = f32[4] negate(cafe), control-predecessors={m}
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, neg)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT res = f32[4] get-tuple-element(w), index=1
}
)";

TEST(BinaryReaderTest, PlainAndCodecPathsBuildTheSameModule) {
  auto module = ParseOrFail(kMixed);
  ASSERT_NE(module, nullptr);
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // Through the wire decoder.
  auto from_bytes = ModuleFromProtoBinary(*bytes, "m.pb");
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status();
  // Through the generated parser for every instruction.
  xla::HloProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(*bytes));
  // Both paths were taken.
  int plain = 0, other = 0;
  for (const auto& c : parsed.hlo_module().computations())
    for (const auto& i : c.instructions()) {
      PlainInstruction decoded;
      (DecodePlainInstruction(i.SerializeAsString(), &decoded) ? plain : other)++;
    }
  EXPECT_GT(plain, 5);
  EXPECT_GT(other, 5);
  auto from_message = ModuleFromProto(parsed.mutable_hlo_module());
  ASSERT_TRUE(from_message.ok()) << from_message.status();
  EXPECT_EQ(PrintModule(**from_bytes), PrintModule(**from_message));
  EXPECT_EQ(PrintModule(**from_bytes), PrintModule(*module));
}

TEST(BinaryReaderTest, PlainInstructionsWithDefaultPrintedAttributes) {
  // Opcodes whose attributes print even at the field's default (a
  // compare's direction has none, a dot's dimension numbers do) read the
  // same either way.
  auto module = ParseOrFail(R"(HloModule d

ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(module, nullptr);
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok());
  auto back = ModuleFromProtoBinary(*bytes, "d.pb");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PrintModule(**back), PrintModule(*module));
}

TEST(BinaryReaderTest, CorruptInstructionIsNamed) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  xla::HloProto proto;
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(proto.ParseFromString(*bytes));
  // Rebuild the computation with a second instruction that is not a
  // message (its payload is a lone tag byte).
  const xla::HloComputationProto& c = proto.hlo_module().computations(0);
  xla::HloComputationProto fields = c;
  fields.clear_instructions();
  std::string computation = fields.SerializeAsString() +
                            Bytes(2, c.instructions(0).SerializeAsString()) + Bytes(2, "\x0a");
  xla::HloModuleProto header = proto.hlo_module();
  header.clear_computations();
  std::string module_bytes = header.SerializeAsString() + Bytes(3, computation);
  auto read = ModuleFromProtoBinary(Bytes(1, module_bytes), "c.pb");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            "c.pb: error: computation 'main': instruction 1 (counting from 0) is not an "
            "HloInstructionProto (truncated or corrupt)");
}

TEST(BinaryReaderTest, CorruptShapeOfAPlainInstructionIsNamed) {
  std::string instruction = Bytes(1, "p") + Bytes(2, "parameter") + Bytes(3, "\x08") + Int(35, 1);
  xla::HloComputationProto fields;
  fields.set_name("main");
  fields.set_id(0);
  fields.set_root_id(1);
  std::string module_bytes =
      Bytes(1, "m") + Int(6, 0) + Bytes(3, fields.SerializeAsString() + Bytes(2, instruction));
  auto read = ModuleFromProtoBinary(module_bytes, "s.pb");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(
      read.status().message(),
      "s.pb: error: computation 'main', instruction 'p' (id 1): the shape is not a ShapeProto "
      "(truncated or corrupt)");
}

}  // namespace
}  // namespace hopt

namespace hopt {
namespace {

std::string Deterministic(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  return bytes;
}

TEST(StreamingWriterTest, WritesWhatSerializingTheWholeMessageWrites) {
  for (const char* text :
       {kMixed, R"(HloModule s, is_scheduled=true, frontend_attributes={b="2",a="1"}

ENTRY main {
  p = f32[4] parameter(0), frontend_attributes={z="1",y="2"}
  ROOT n = f32[4] negate(p)
}
)"}) {
    auto module = ParseOrFail(text);
    ASSERT_NE(module, nullptr);
    // Unknown fields carried from an earlier read are written back too.
    xla::HloModuleProto whole;
    ASSERT_TRUE(ModuleToProto(*module, &whole).ok());
    whole.GetReflection()->MutableUnknownFields(&whole)->AddVarint(9999, 5);
    ProtoSideTable side;
    auto reread = ModuleFromProtoBinary(Bytes(1, Deterministic(whole)), "u.pb", &side);
    ASSERT_TRUE(reread.ok()) << reread.status();
    xla::HloModuleProto expected;
    ASSERT_TRUE(ModuleToProto(**reread, &expected, &side).ok());
    std::vector<std::string> pieces;
    ASSERT_TRUE(ModuleToEncodedProto(**reread, &pieces, &side).ok());
    std::string streamed;
    for (const std::string& piece : pieces) streamed += piece;
    EXPECT_EQ(streamed, Deterministic(expected));
    EXPECT_THAT(streamed, HasSubstr(Int(9999, 5)));
  }
}

}  // namespace
}  // namespace hopt

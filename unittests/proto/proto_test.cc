// SPDX-License-Identifier: Apache-2.0
// Tests for core/proto/convert.h and proto_io.h: the IR <-> XLA's
// HloModuleProto, binary and text format, gzip, and the errors of bad input.

#include <zlib.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/convert.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/tooling/io.h"
#include "gmock/gmock.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/printer.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;

xla::HloModuleProto ToProto(const HloModule& module) {
  xla::HloModuleProto proto;
  absl::Status status = ModuleToProto(module, &proto);
  EXPECT_TRUE(status.ok()) << status;
  return proto;
}

// text -> module -> binary HloProto -> module: the two print the same, and
// writing the second gives the same bytes.
void ExpectRoundTrip(const std::string& text) {
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  std::string printed = PrintModule(*module);
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = ModuleFromProtoBinary(*bytes, "rt.pb");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PrintModule(**back), printed);
  auto again = ModuleToProtoBinary(**back);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == *bytes) << "pb -> module -> pb changed the bytes";
  // The text format too.
  auto pbtxt = ModuleToProtoText(*module);
  ASSERT_TRUE(pbtxt.ok()) << pbtxt.status();
  auto from_text = ModuleFromProtoText(*pbtxt, "rt.pbtxt");
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_EQ(PrintModule(**from_text), printed);
}

const xla::HloInstructionProto* FindInstruction(const xla::HloModuleProto& proto,
                                                absl::string_view name) {
  for (const auto& c : proto.computations())
    for (const auto& i : c.instructions())
      if (i.name() == name) return &i;
  return nullptr;
}

bool HasHoptEntry(const xla::HloInstructionProto& i, absl::string_view name) {
  for (const auto& a : i.hopt_text_attributes())
    if (a.name() == name) return true;
  return false;
}

TEST(ProtoTest, LiteralsOfEveryElementType) {
  const std::string text = R"(HloModule literals

ENTRY main {
  pred = pred[3] constant({1, 0, 1})
  s1 = s1[2] constant({-1, 0})
  s2 = s2[2] constant({-2, 1})
  s4 = s4[3] constant({-8, 0, 7})
  s8 = s8[3] constant({-128, 0, 127})
  s16 = s16[2] constant({-32768, 32767})
  s32 = s32[2] constant({-2147483648, 2147483647})
  s64 = s64[2] constant({-9223372036854775808, 9223372036854775807})
  u1 = u1[2] constant({0, 1})
  u2 = u2[2] constant({0, 3})
  u4 = u4[2] constant({0, 15})
  u8 = u8[2] constant({0, 255})
  u16 = u16[2] constant({0, 65535})
  u32 = u32[2] constant({0, 4294967295})
  u64 = u64[2] constant({0, 18446744073709551615})
  f16 = f16[3] constant({1.5, -2, 65504})
  bf16 = bf16[2] constant({1.5, -3})
  f32 = f32[3] constant({1.5, -0.1, inf})
  f64 = f64[2] constant({0.1, -1e+300})
  c64 = c64[2] constant({(1, 2), (-3.5, 4)})
  c128 = c128[1] constant({(0.1, -0.2)})
  e5m2 = f8e5m2[2] constant({1.5, -2})
  e4m3 = f8e4m3[2] constant({1.5, -2})
  e4m3fn = f8e4m3fn[2] constant({1.5, -448})
  e4m3b11 = f8e4m3b11fnuz[2] constant({1.5, -2})
  e5m2fnuz = f8e5m2fnuz[2] constant({1.5, -2})
  e4m3fnuz = f8e4m3fnuz[2] constant({1.5, -2})
  e3m4 = f8e3m4[2] constant({1.5, -2})
  e2m1 = f4e2m1fn[2] constant({1.5, -6})
  e8m0 = f8e8m0fnu[2] constant({1, 0.5})
  scalar = f32[] constant(42)
  empty = f32[0] constant({})
  ROOT t = (pred[3], s4[3], f16[3], c64[2], f32[]) tuple(pred, s4, f16, c64, scalar)
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  // Canonical texts need no verbatim copy: the typed fields carry them.
  for (const auto& c : proto.computations())
    for (const auto& i : c.instructions())
      EXPECT_FALSE(HasHoptEntry(i, "hopt.literal")) << i.name();
  EXPECT_EQ(FindInstruction(proto, "f16")->literal().f16s().size(), 6u);
  EXPECT_EQ(FindInstruction(proto, "s4")->literal().s4s(), std::string("\xf8\x00\x07", 3));
  EXPECT_THAT(FindInstruction(proto, "pred")->literal().preds(), ElementsAre(true, false, true));
  EXPECT_THAT(FindInstruction(proto, "c64")->literal().c64s(), ElementsAre(1, 2, -3.5, 4));
  EXPECT_EQ(FindInstruction(proto, "u64")->literal().u64s(1), UINT64_MAX);
  EXPECT_EQ(FindInstruction(proto, "bf16")->literal().bf16s(), std::string("\xc0\x3f\x40\xc0", 4));
}

TEST(ProtoTest, LiteralInLayoutOrderAndTupleLiteral) {
  const std::string text = R"(HloModule m

ENTRY main {
  c = f32[2,3]{0,1} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  t = (s32[], f32[2]) constant((7, {1, 2}))
  ROOT r = (f32[2,3]{0,1}, (s32[], f32[2])) tuple(c, t)
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  // XLA stores elements in the layout's order: column-major here.
  EXPECT_THAT(FindInstruction(proto, "c")->literal().f32s(), ElementsAre(1, 4, 2, 5, 3, 6));
  const auto& t = FindInstruction(proto, "t")->literal();
  ASSERT_EQ(t.tuple_literals_size(), 2);
  EXPECT_THAT(t.tuple_literals(0).s32s(), ElementsAre(7));
}

TEST(ProtoTest, NonCanonicalAndElidedLiteralsTravelVerbatim) {
  const std::string text = R"(HloModule m

ENTRY main {
  a = f32[2] constant({1.50, 2})
  ROOT b = f32[3] constant({...})
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  EXPECT_TRUE(HasHoptEntry(*FindInstruction(proto, "a"), "hopt.literal"));
  EXPECT_THAT(FindInstruction(proto, "a")->literal().f32s(), ElementsAre(1.5, 2));
  EXPECT_TRUE(HasHoptEntry(*FindInstruction(proto, "b"), "hopt.literal"));
}

TEST(ProtoTest, ShapesLayoutsAndDynamicDimensions) {
  const std::string text = R"(HloModule m

ENTRY main {
  p0 = f32[8,128]{0,1:T(8,128)} parameter(0)
  p1 = s32[<=4,3]{1,0} parameter(1)
  p2 = f32[?,2] parameter(2)
  p3 = (f32[2]{0:S(1)}, token[]) parameter(3)
  p4 = bf16[4]{0:T(2,128)(2,1)E(16)} parameter(4)
  p5 = u8[] parameter(5)
  ROOT t = (f32[8,128]{0,1:T(8,128)}, s32[<=4,3]{1,0}, f32[?,2], u8[]) tuple(p0, p1, p2, p5)
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  const auto& p0 = FindInstruction(proto, "p0")->shape();
  EXPECT_EQ(p0.element_type(), xla::F32);
  EXPECT_THAT(p0.layout().minor_to_major(), ElementsAre(0, 1));
  ASSERT_EQ(p0.layout().tiles_size(), 1);
  EXPECT_THAT(p0.layout().tiles(0).dimensions(), ElementsAre(8, 128));
  EXPECT_TRUE(p0.layout().hopt_layout_tail().empty());
  const auto& p1 = FindInstruction(proto, "p1")->shape();
  EXPECT_THAT(p1.is_dynamic_dimension(), ElementsAre(true, false));
  EXPECT_EQ(FindInstruction(proto, "p3")->shape().tuple_shapes(0).layout().memory_space(), 1);
  EXPECT_THAT(FindInstruction(proto, "p2")->shape().dimensions(),
              ElementsAre(Shape::kUnboundedSize, 2));
}

TEST(ProtoTest, CalledComputationsInXlaOrder) {
  const std::string text = R"(HloModule m

cond {
  p = s32[] parameter(0)
  c = s32[] constant(10)
  ROOT lt = pred[] compare(p, c), direction=LT
}

body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT add = s32[] add(p, one)
}

on_true {
  ROOT p = s32[] parameter(0)
}

on_false {
  p = s32[] parameter(0)
  ROOT n = s32[] negate(p)
}

branch2 {
  p = s32[] parameter(0)
  ROOT a = s32[] abs(p)
}

callee {
  ROOT p = s32[] parameter(0)
}

ENTRY main {
  x = s32[] parameter(0)
  b = pred[] parameter(1)
  i = s32[] parameter(2)
  w = s32[] while(x), condition=cond, body=body
  c1 = s32[] conditional(b, w, w), true_computation=on_true, false_computation=on_false
  c2 = s32[] conditional(i, c1, c1, c1), branch_computations={on_true, on_false, branch2}
  ROOT k = s32[] call(c2), to_apply=callee
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  absl::flat_hash_map<int64_t, std::string> names;
  for (const auto& c : proto.computations()) names[c.id()] = c.name();
  auto called = [&](absl::string_view instruction) {
    std::vector<std::string> out;
    for (int64_t id : FindInstruction(proto, instruction)->called_computation_ids())
      out.push_back(names[id]);
    return out;
  };
  EXPECT_THAT(called("w"), ElementsAre("body", "cond"));
  EXPECT_THAT(called("c1"), ElementsAre("on_true", "on_false"));
  EXPECT_THAT(called("c2"), ElementsAre("on_true", "on_false", "branch2"));
  EXPECT_THAT(called("k"), ElementsAre("callee"));
  for (const char* name : {"w", "c1", "c2", "k"})
    EXPECT_FALSE(HasHoptEntry(*FindInstruction(proto, name), "hopt.calls")) << name;
  EXPECT_EQ(proto.entry_computation_name(), "main");
  EXPECT_EQ(proto.computations(proto.computations_size() - 1).name(), "main");
}

TEST(ProtoTest, ControlPredecessorsAndHeader) {
  const std::string text =
      R"(HloModule m, replica_count=4, num_partitions=2, frontend_attributes={a="1",b="x"}

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] abs(p), control-predecessors={a}
  ROOT c = f32[4] add(a, b), control-predecessors={b, a}
}
)";
  ExpectRoundTrip(text);
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  xla::HloModuleProto proto = ToProto(*module);
  EXPECT_EQ(FindInstruction(proto, "c")->control_predecessor_ids_size(), 2);
  EXPECT_EQ(proto.frontend_attributes().map().at("b"), "x");
  auto back = ModuleFromProto(&proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)->replica_count(), 4);
  EXPECT_EQ((*back)->num_partitions(), 2);
}

TEST(ProtoTest, BothReplicaGroupEncodings) {
  ExpectRoundTrip(R"(HloModule m, replica_count=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
  ROOT b = f32[4] all-reduce(a), replica_groups=[2,2]<=[4], to_apply=add
}
)");
  // XLA's two fields, read directly.
  xla::HloModuleProto proto;
  auto module = ParseOrFail(R"(HloModule m, replica_count=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  ROOT a = f32[4] all-reduce(p), replica_groups={{0,1},{2,3}}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  proto = ToProto(*module);
  xla::HloInstructionProto* a = proto.mutable_computations(1)->mutable_instructions(1);
  ASSERT_EQ(a->name(), "a");
  a->clear_replica_groups();
  a->clear_collective_device_list();
  a->clear_hopt_text_attributes();
  auto* iota = a->mutable_collective_device_list()->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(2);
  iota->set_num_devices_per_group(2);
  iota->add_iota_reshape_dims(4);
  iota->add_iota_transpose_perm(0);
  xla::HloModuleProto copy = proto;
  auto from_iota = ModuleFromProto(&copy);
  ASSERT_TRUE(from_iota.ok()) << from_iota.status();
  EXPECT_THAT(PrintModule(**from_iota), HasSubstr("replica_groups=[2,2]<=[4]"));
  a->clear_collective_device_list();
  a->add_replica_groups()->add_replica_ids(0);
  a->mutable_replica_groups(0)->add_replica_ids(2);
  a->add_replica_groups()->add_replica_ids(1);
  a->mutable_replica_groups(1)->add_replica_ids(3);
  auto from_legacy = ModuleFromProto(&proto);
  ASSERT_TRUE(from_legacy.ok()) << from_legacy.status();
  EXPECT_THAT(PrintModule(**from_legacy), HasSubstr("replica_groups={{0,2},{1,3}}"));
}

TEST(ProtoTest, AsyncSugarAndScheduledModule) {
  ExpectRoundTrip(R"(HloModule m, is_scheduled=true

ENTRY main {
  p = f32[4] parameter(0)
  b = f32[4] abs(p)
  a = f32[4] negate(p)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
)");
}

TEST(ProtoTest, UnknownFieldsSurvive) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  xla::HloProto hlo;
  *hlo.mutable_hlo_module() = ToProto(*module);
  auto unknown = [](google::protobuf::Message* m) {
    return m->GetReflection()->MutableUnknownFields(m);
  };
  unknown(hlo.mutable_hlo_module()->mutable_computations(0)->mutable_instructions(1))
      ->AddVarint(9001, 77);
  unknown(hlo.mutable_hlo_module()->mutable_computations(0))->AddLengthDelimited(9002, "comp");
  unknown(hlo.mutable_hlo_module())->AddLengthDelimited(9003, "module");
  hlo.mutable_hlo_module()->set_id(1234);  // declared, not mapped
  unknown(&hlo)->AddVarint(9004, 5);       // buffer_assignment & co.
  ProtoSideTable side;
  auto back = ModuleFromProtoBinary(hlo.SerializeAsString(), "u.pb", &side);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(side.empty());
  EXPECT_EQ(side.module(), back->get());
  auto fields = [](const google::protobuf::Message& m) -> const google::protobuf::UnknownFieldSet& {
    return m.GetReflection()->GetUnknownFields(m);
  };
  // Binary and text writers both put the side table back.
  for (bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "pb" : "pbtxt");
    xla::HloProto out;
    if (binary) {
      auto bytes = ModuleToProtoBinary(**back, /*gzip=*/false, &side);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      ASSERT_TRUE(out.ParseFromString(*bytes));
    } else {
      xla::HloModuleProto module;
      ASSERT_TRUE(ModuleToProto(**back, &module, &side).ok());
      *out.mutable_hlo_module() = module;
      out.MergeFromString(side.wrapper());
    }
    const auto& i = out.hlo_module().computations(0).instructions(1);
    ASSERT_EQ(fields(i).field_count(), 1);
    EXPECT_EQ(fields(i).field(0).number(), 9001);
    EXPECT_EQ(fields(i).field(0).varint(), 77u);
    ASSERT_EQ(fields(out.hlo_module().computations(0)).field_count(), 1);
    ASSERT_EQ(fields(out.hlo_module()).field_count(), 1);
    EXPECT_EQ(out.hlo_module().id(), 1234);
    ASSERT_EQ(fields(out).field_count(), 1);
  }

  // Without the table the writer has nothing to put back: the IR itself
  // keeps nothing proto-only.
  auto bytes = ModuleToProtoBinary(**back);
  ASSERT_TRUE(bytes.ok());
  xla::HloProto bare;
  ASSERT_TRUE(bare.ParseFromString(*bytes));
  EXPECT_EQ(fields(bare.hlo_module().computations(0).instructions(1)).field_count(), 0);
  EXPECT_EQ(bare.hlo_module().id(), 0);
  EXPECT_EQ(fields(bare).field_count(), 0);
}

// The side table keys an instruction's fields by its unique id, which no
// new instruction ever gets: a pass that replaces an instruction by a new
// one of the same name does not hand the old one's fields on, and an
// instruction changed in place keeps its own.
TEST(ProtoTest, SideTableFollowsInstructionsThroughRewrites) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] abs(p)
  ROOT n = f32[4] negate(a)
}
)");
  ASSERT_NE(module, nullptr);
  xla::HloProto hlo;
  *hlo.mutable_hlo_module() = ToProto(*module);
  auto mark = [](xla::HloInstructionProto* i, int number) {
    i->GetReflection()->MutableUnknownFields(i)->AddVarint(number, 1);
  };
  auto* c = hlo.mutable_hlo_module()->mutable_computations(0);
  for (auto& i : *c->mutable_instructions()) {
    if (i.name() == "a") mark(&i, 9001);
    if (i.name() == "n") mark(&i, 9002);
  }
  ProtoSideTable side;
  auto back = ModuleFromProtoBinary(hlo.SerializeAsString(), "r.pb", &side);
  ASSERT_TRUE(back.ok()) << back.status();
  HloComputation* entry = (*back)->entry_computation();
  HloInstruction* a = entry->GetInstructionWithName("a");
  HloInstruction* n = entry->GetInstructionWithName("n");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(n, nullptr);
  // `a` is renamed in place; `n` is replaced by a new negate with its name.
  a->SetName("a_renamed");
  HloInstruction* replacement =
      entry->AddInstructionInPlaceOf(n, HloOpcode::kNegate, n->shape(), {a});
  ASSERT_TRUE(entry->ReplaceInstruction(n, replacement).ok());
  ASSERT_EQ(replacement->name(), "n");
  auto bytes = ModuleToProtoBinary(**back, /*gzip=*/false, &side);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  xla::HloProto out;
  ASSERT_TRUE(out.ParseFromString(*bytes));
  int seen = 0;
  for (const auto& i : out.hlo_module().computations(0).instructions()) {
    const auto& unknown = i.GetReflection()->GetUnknownFields(i);
    if (i.name() == "a_renamed") {
      ++seen;
      ASSERT_EQ(unknown.field_count(), 1);
      EXPECT_EQ(unknown.field(0).number(), 9001);
    } else {
      EXPECT_EQ(unknown.field_count(), 0) << i.name();
    }
    if (i.name() == "n") ++seen;
  }
  EXPECT_EQ(seen, 2);
}

// A table belongs to the module it was read with: a clone has new ids, so
// writing it with the original's table is refused, not misattached.
TEST(ProtoTest, SideTableOfAnotherModuleIsRefused) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  xla::HloProto hlo;
  *hlo.mutable_hlo_module() = ToProto(*module);
  hlo.mutable_hlo_module()->set_id(7);
  ProtoSideTable side;
  auto back = ModuleFromProtoBinary(hlo.SerializeAsString(), "c.pb", &side);
  ASSERT_TRUE(back.ok()) << back.status();
  std::unique_ptr<HloModule> clone = (*back)->Clone();
  auto bytes = ModuleToProtoBinary(*clone, /*gzip=*/false, &side);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(bytes.status().message(), HasSubstr("read with another module"));
  auto text = ModuleToProtoText(*clone, &side);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("read with another module"));
  // An empty table (a module read from HLO text) goes with any module.
  ProtoSideTable empty;
  EXPECT_TRUE(ModuleToProtoBinary(*clone, /*gzip=*/false, &empty).ok());
  // A failed read leaves the table empty and untied.
  EXPECT_FALSE(ModuleFromProtoBinary("not a proto", "x.pb", &side).ok());
  EXPECT_TRUE(side.empty());
  EXPECT_EQ(side.module(), nullptr);
}

TEST(ProtoTest, GzipAndModuleProtoAndSnapshot) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  ROOT p = f32[4] parameter(0)
}
)");
  ASSERT_NE(module, nullptr);
  std::string printed = PrintModule(*module);
  auto gz = ModuleToProtoBinary(*module, /*gzip=*/true);
  ASSERT_TRUE(gz.ok());
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);
  auto from_gz = ModuleFromProtoBinary(*gz, "m.pb.gz");
  ASSERT_TRUE(from_gz.ok()) << from_gz.status();
  EXPECT_EQ(PrintModule(**from_gz), printed);
  xla::HloModuleProto bare = ToProto(*module);
  auto from_bare = ModuleFromProtoBinary(bare.SerializeAsString(), "m.pb");
  ASSERT_TRUE(from_bare.ok()) << from_bare.status();
  EXPECT_EQ(PrintModule(**from_bare), printed);
  xla::HloSnapshot snapshot;
  *snapshot.mutable_hlo()->mutable_hlo_module() = bare;
  snapshot.set_execution_platform("Host");
  auto from_snapshot = ModuleFromProtoBinary(snapshot.SerializeAsString(), "s.pb");
  ASSERT_TRUE(from_snapshot.ok()) << from_snapshot.status();
  EXPECT_EQ(PrintModule(**from_snapshot), printed);
  auto from_text = ModuleFromProtoText(bare.DebugString(), "m.pbtxt");
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_EQ(PrintModule(**from_text), printed);
}

// ---- errors ------------------------------------------------------------------

class ProtoErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto module = ParseOrFail(R"(HloModule m

callee {
  ROOT q = f32[4] parameter(0)
}

ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT c = f32[4] call(n), to_apply=callee
}
)");
    ASSERT_NE(module, nullptr);
    proto_ = ToProto(*module);
    ASSERT_EQ(proto_.computations_size(), 2);
    entry_ = proto_.mutable_computations(1);
    ASSERT_EQ(entry_->instructions_size(), 3);
  }
  std::string Error() {
    auto module = ModuleFromProto(&proto_);
    EXPECT_FALSE(module.ok());
    return module.ok() ? "" : std::string(module.status().message());
  }
  xla::HloModuleProto proto_;
  xla::HloComputationProto* entry_ = nullptr;
};

// One edit of the reader's input and the phrases its message must hold.
// The edit gets the module proto and its entry computation: `main`, whose
// instructions are p (0), n (1) and c (2), after `callee` { q }.
using Proto = xla::HloModuleProto;
using Comp = xla::HloComputationProto;

struct ProtoEditCase {
  const char* name;
  void (*edit)(Proto& proto, Comp& entry);
  std::vector<const char*> phrases;
};

// Failures and --gtest_list_tests show the case's name.
void PrintTo(const ProtoEditCase& c, std::ostream* os) { *os << c.name; }

class ProtoEditErrorTest : public ProtoErrorTest,
                           public ::testing::WithParamInterface<ProtoEditCase> {};

TEST_P(ProtoEditErrorTest, IsRefusedWithAPreciseMessage) {
  GetParam().edit(proto_, *entry_);
  std::string error = Error();
  for (const char* phrase : GetParam().phrases) EXPECT_THAT(error, HasSubstr(phrase));
}

const ProtoEditCase kProtoEditCases[] = {
    {"DanglingOperand",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->set_operand_ids(0, 999); },
     {"instruction 'n' (id 2): operand id 999 names no instruction"}},
    {"DanglingControlPredecessor",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->add_control_predecessor_ids(77); },
     {"control predecessor id 77 names no instruction"}},
    {"DanglingCalledComputation",
     [](Proto&, Comp& entry) { entry.mutable_instructions(2)->set_called_computation_ids(0, 55); },
     {"called computation id 55 names no computation"}},
    {"InstructionIdCollision",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->set_id(entry.instructions(0).id()); },
     {"another instruction of this computation has this id"}},
    {"ComputationIdCollision",
     [](Proto& proto, Comp& entry) { entry.set_id(proto.computations(0).id()); },
     {"which another computation has"}},
    {"OperandCycle",
     [](Proto&, Comp& entry) {
       entry.mutable_instructions(1)->set_operand_ids(0, entry.instructions(1).id());
     },
     {"'n' depends on itself"}},
    {"CallCycle",
     [](Proto& proto, Comp& entry) {
       auto* callee = proto.mutable_computations(0);
       auto* q = callee->mutable_instructions(0);
       xla::HloInstructionProto call = entry.instructions(2);
       call.set_id(100);
       call.clear_operand_ids();
       call.add_operand_ids(q->id());
       call.set_called_computation_ids(0, entry.id());
       *callee->add_instructions() = call;
       callee->set_root_id(100);
     },
     {"calls itself"}},
    {"MissingEntry",
     [](Proto& proto, Comp&) {
       proto.set_entry_computation_id(42);
       proto.set_entry_computation_name("nowhere");
     },
     {"the entry computation (id 42, name 'nowhere') is not among"}},
    {"UnknownOpcode",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->set_opcode("frobnicate"); },
     {"unknown opcode 'frobnicate'"}},
    {"InvalidElementType",
     [](Proto&, Comp& entry) {
       entry.mutable_instructions(1)->mutable_shape()->set_element_type(
           static_cast<xla::PrimitiveType>(99));
     },
     {"invalid element type (99)"}},
    {"NegativeDimension",
     [](Proto&, Comp& entry) {
       entry.mutable_instructions(1)->mutable_shape()->set_dimensions(0, -3);
     },
     {"negative dimension"}},
    {"LayoutThatIsNoPermutation",
     [](Proto&, Comp& entry) {
       entry.mutable_instructions(1)->mutable_shape()->mutable_layout()->set_minor_to_major(0, 5);
     },
     {"not a permutation"}},
    // Found by proto_reader_fuzzer: an empty layout on an array was
    // accepted and printed as `f32[4]{}`, which does not parse.
    {"EmptyLayoutOnAnArray",
     [](Proto&, Comp& entry) {
       entry.mutable_instructions(1)->mutable_shape()->mutable_layout()->clear_minor_to_major();
     },
     {"layout has 0 entries for a shape of rank 1"}},
    {"DanglingRoot",
     [](Proto&, Comp& entry) { entry.set_root_id(12345); },
     {"root id 12345 names no instruction"}},
    {"ParameterNumberOutOfRange",
     [](Proto&, Comp& entry) { entry.mutable_instructions(0)->set_parameter_number(3); },
     {"parameter number 3 is out of range"}},
    {"BadLiteral",
     [](Proto&, Comp& entry) {
       auto* n = entry.mutable_instructions(1);
       n->set_opcode("constant");
       n->clear_operand_ids();
       n->mutable_literal()->add_f32s(1);
     },
     {"has 1 values, expected 4"}},
    // Found by proto_reader_fuzzer in CI: an opaque constant was read, and
    // printing its value read past its (empty) storage.
    {"OpaqueConstant",
     [](Proto&, Comp& entry) {
       auto* n = entry.mutable_instructions(1);
       n->set_opcode("constant");
       n->clear_operand_ids();
       n->mutable_shape()->set_element_type(xla::OPAQUE_TYPE);
       n->mutable_literal();
     },
     {"a literal of shape opaque[]: tokens and opaque values have no literal"}},
    // Found by proto_reader_fuzzer: names that cannot be written as HLO
    // text were accepted, and the printed module did not parse.
    {"InstructionNameWithASemicolon",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->set_name("bw;_dact.0"); },
     {"computation 'main', instruction 'bw;_dact.0' (id ",
      "the name cannot be written as HLO text (names start with a letter or "
      "'_' and go on with letters, digits, '_', '.' and '-')"}},
    {"InstructionNameStartingWithADigit",
     [](Proto&, Comp& entry) { entry.mutable_instructions(0)->set_name("0"); },
     {"instruction '0' (id "}},
    {"InstructionNameWithAnArrow",
     [](Proto&, Comp& entry) { entry.mutable_instructions(1)->set_name("a->b"); },
     {"the name cannot be written as HLO text"}},
    {"ComputationNameWithASpace",
     [](Proto&, Comp& entry) { entry.set_name("main entry"); },
     {"computation name 'main entry' cannot be written as HLO text"}},
    {"ModuleNameWithANewline",
     [](Proto& proto, Comp&) { proto.set_name("m\n"); },
     {"module name 'm\\n' cannot be written as HLO text"}},
};

INSTANTIATE_TEST_SUITE_P(ProtoErrorTest, ProtoEditErrorTest, ::testing::ValuesIn(kProtoEditCases),
                         [](const ::testing::TestParamInfo<ProtoEditCase>& info) {
                           return std::string(info.param.name);
                         });

// Found by proto_reader_fuzzer: an array with no layout message printed
// as `f32[4]`, which the text parser reads back with the default layout,
// so the module printed differently after a round trip.
TEST_F(ProtoErrorTest, ArraysWithoutALayoutGetTheDefaultOne) {
  entry_->mutable_instructions(1)->mutable_shape()->clear_layout();
  auto module = ModuleFromProto(&proto_);
  ASSERT_TRUE(module.ok()) << module.status();
  std::string printed = PrintModule(**module);
  EXPECT_THAT(printed, HasSubstr("%n = f32[4]{0} negate(%p)"));
  auto again = ParseOrFail(printed);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), printed);
}

// Found by proto_reader_fuzzer: a verbatim attribute text (hopt's own
// field) that is not one HLO value printed as text that did not parse.
TEST_F(ProtoErrorTest, VerbatimAttributesMustReadBack) {
  // Reading consumes the proto: each case starts from a fresh one.
  auto with = [this](const std::string& name, const std::string& value) {
    SetUp();
    auto* attr = entry_->mutable_instructions(1)->add_hopt_text_attributes();
    attr->set_name(name);
    attr->set_value(value);
  };
  with("sharding_hint", "{a=1}");
  EXPECT_TRUE(ModuleFromProto(&proto_).ok());
  with("sharding_hint", "{a=1},{b=2}");
  EXPECT_THAT(Error(), HasSubstr("attribute 'sharding_hint': the value '{a=1},{b=2}' does not "
                                 "read back as HLO text"));
  with("sharding_hint", "{a=1");
  EXPECT_THAT(Error(), HasSubstr("does not read back as HLO text"));
  with("sharding_hint", " x");
  EXPECT_THAT(Error(), HasSubstr("does not read back as HLO text"));
  with("two words", "x");
  EXPECT_THAT(Error(), HasSubstr("attribute name 'two words' cannot be written as HLO text"));
  with("dimensions", "{x}");
  EXPECT_THAT(Error(), HasSubstr("attribute 'dimensions': "));
  // Found by proto_reader_fuzzer in CI: a verbatim attribute named like a
  // computation reference printed as one, and the text did not read back.
  for (const char* reserved :
       {"branch_computations", "to_apply", "calls", "condition", "control-predecessors"}) {
    with(reserved, "{a=1}");
    EXPECT_THAT(Error(),
                HasSubstr(absl::StrCat("attribute '", reserved, "' is reserved for references")))
        << reserved;
  }
}

// Found by proto_reader_fuzzer: the text format let invalid UTF-8 into a
// string field; the module then wrote a .pb that did not read back.
TEST(ProtoIoErrorTest, TextFormatStringsMustBeUtf8) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), custom_call_target="Target"
}
)");
  ASSERT_NE(module, nullptr);
  auto text = ModuleToProtoText(*module);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(ModuleFromProtoText(*text, "ok.pbtxt").ok());
  std::string bad = *text;
  size_t at = bad.find("Target");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 6, "\\215Target");  // the escaped byte 0x8d, a lone continuation byte
  auto read = ModuleFromProtoText(bad, "bad.pbtxt");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(
      read.status().message(),
      "bad.pbtxt: error: field 'xla.HloInstructionProto.custom_call_target' is not valid UTF-8");
}

TEST(ProtoIoErrorTest, TruncatedAndWrongMessages) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok());
  auto truncated = ModuleFromProtoBinary(bytes->substr(0, bytes->size() / 2), "t.pb");
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(),
              HasSubstr("t.pb: error: not an XLA HloProto, HloModuleProto or HloSnapshot"));
  auto random = ModuleFromProtoBinary(std::string("\x12\x34garbage\xff\xff\xff", 12), "r.pb");
  ASSERT_FALSE(random.ok());
  EXPECT_THAT(random.status().message(), HasSubstr("r.pb: error: not an XLA"));
  auto empty = ModuleFromProtoBinary("", "e.pb");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("the file is empty"));
  auto gz = ModuleToProtoBinary(*module, true);
  ASSERT_TRUE(gz.ok());
  auto bad_gz = ModuleFromProtoBinary(gz->substr(0, gz->size() - 10), "g.pb.gz");
  ASSERT_FALSE(bad_gz.ok());
  EXPECT_THAT(bad_gz.status().message(), HasSubstr("g.pb.gz: error: truncated gzip data"));
  auto bad_text = ModuleFromProtoText("hlo_module { name: \"m\" bogus: 1 }", "b.pbtxt");
  ASSERT_FALSE(bad_text.ok());
  EXPECT_THAT(bad_text.status().message(), HasSubstr("b.pbtxt:1:"));
  EXPECT_THAT(bad_text.status().message(), HasSubstr("bogus"));
}

// A parameter of `levels` nested tuples around f32[].
std::string DeepTupleModule(int levels) {
  return absl::StrCat("HloModule deep\n\nENTRY e {\n  p = ", std::string(levels, '('), "f32[]",
                      std::string(levels, ')'), " parameter(0)\n  ROOT c = f32[] constant(0)\n}\n");
}

TEST(ProtoIoTest, TuplesAsDeepAsTheTextParserTakesRoundTrip) {
  auto module = ParseOrFail(DeepTupleModule(kMaxTupleNesting));
  ASSERT_NE(module, nullptr);
  auto bytes = ModuleToProtoBinary(*module);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto from_binary = ModuleFromProtoBinary(*bytes, "deep.pb");
  ASSERT_TRUE(from_binary.ok()) << from_binary.status();
  auto text = ModuleToProtoText(*module);
  ASSERT_TRUE(text.ok()) << text.status();
  auto from_text = ModuleFromProtoText(*text, "deep.pbtxt");
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_EQ(PrintModule(**from_binary), PrintModule(*module));
  EXPECT_EQ(PrintModule(**from_text), PrintModule(*module));
}

TEST(ProtoIoErrorTest, TuplesDeeperThanTheTextParserTakesAreRefused) {
  std::string levels;
  for (int k = 0; k <= kMaxTupleNesting; ++k) levels += "tuple_shapes { element_type: TUPLE ";
  std::string text =
      absl::StrCat("name: \"d\" entry_computation_name: \"e\" entry_computation_id: 1 ",
                   "computations { name: \"e\" id: 1 root_id: 2 instructions { name: \"p\" ",
                   "opcode: \"parameter\" id: 2 parameter_number: 0 shape { element_type: TUPLE ",
                   levels, std::string(kMaxTupleNesting + 1, '}'), " } } }");
  auto read = ModuleFromProtoText(text, "d.pbtxt");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("tuple shapes nest too deeply"));
  // Far deeper: protobuf's parser stops at its recursion limit.
  std::string deep;
  for (int k = 0; k < 100000; ++k) deep += "tuple_shapes { ";
  read =
      ModuleFromProtoText(absl::StrCat("computations { instructions { shape { ", deep), "x.pbtxt");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("too deep"));
}

TEST(ProtoIoTest, FormatsFromNames) {
  EXPECT_EQ(HloFileFormatFromPath("a.pb"), HloFileFormat::kProto);
  EXPECT_EQ(HloFileFormatFromPath("a.hlo.pb.gz"), HloFileFormat::kProto);
  EXPECT_EQ(HloFileFormatFromPath("a.pbtxt"), HloFileFormat::kProtoText);
  EXPECT_EQ(HloFileFormatFromPath("a.hlo"), HloFileFormat::kText);
  EXPECT_EQ(HloFileFormatFromPath("-"), HloFileFormat::kText);
  EXPECT_EQ(ParseHloFileFormat("pbtxt"), HloFileFormat::kProtoText);
  EXPECT_FALSE(ParseHloFileFormat("json").has_value());
}

}  // namespace
}  // namespace hopt

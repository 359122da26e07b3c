// SPDX-License-Identifier: Apache-2.0
// Tests for core/proto/attributes.h: each attribute's typed proto field,
// both directions with exact texts; the text fallback; the recorded order;
// protos written by XLA (no hopt fields); malformed texts and protos.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/attributes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"

namespace hopt {
namespace {

using Attributes = std::vector<std::pair<std::string, std::string>>;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

// Holds a one-computation module built around `body` (instruction lines).
class Fixture {
 public:
  explicit Fixture(const std::string& body) {
    auto module =
        ParseHloModule(absl::StrCat("HloModule m\n\nadd {\n  a = f32[] parameter(0)\n"
                                    "  b = f32[] parameter(1)\n"
                                    "  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n",
                                    body, "\n}\n"));
    status_ = module.status();
    if (module.ok()) module_ = *std::move(module);
  }
  bool ok() const { return module_ != nullptr; }
  const absl::Status& status() const { return status_; }
  const HloInstruction* Get(const std::string& name) const {
    return module_->entry_computation()->GetInstructionWithName(name);
  }

 private:
  absl::Status status_;
  std::unique_ptr<HloModule> module_;
};

Attributes TextAttributes(const HloInstruction& instruction) {
  Attributes out;
  for (const HloAttribute& attr : instruction.attributes())
    if (attr.kind == HloAttribute::Kind::kText && !IsStructuralAttribute(attr.name))
      out.emplace_back(std::string(attr.name), std::string(attr.value));
  return out;
}

// Encodes `name` of the fixture's body, checks that the attributes come back
// byte for byte (through the wire format too) and returns the proto.
xla::HloInstructionProto RoundTrip(const std::string& body, const std::string& name) {
  Fixture f(body);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return {};
  const HloInstruction* instruction = f.Get(name);
  EXPECT_NE(instruction, nullptr);
  if (instruction == nullptr) return {};
  xla::HloInstructionProto proto;
  EXPECT_TRUE(AttributesToProto(*instruction, &proto).ok());
  xla::HloInstructionProto wire;
  EXPECT_TRUE(wire.ParseFromString(proto.SerializeAsString()));
  Attributes back;
  EXPECT_TRUE(AttributesFromProto(wire, instruction->opcode(), &back).ok());
  EXPECT_EQ(back, TextAttributes(*instruction)) << body;
  return proto;
}

std::vector<std::string> TextNames(const xla::HloInstructionProto& proto) {
  std::vector<std::string> names;
  for (const auto& t : proto.hopt_text_attributes()) names.push_back(t.name());
  return names;
}

TEST(ProtoAttributesTest, DimensionsIndexSliceAndSizes) {
  auto p =
      RoundTrip("  x = f32[2] parameter(0)\n  ROOT b = f32[3,2] broadcast(x), dimensions={1}", "b");
  EXPECT_THAT(p.dimensions(), ElementsAre(1));
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip("  x = f32[] parameter(0)\n  ROOT b = f32[3] broadcast(x), dimensions={}", "b");
  EXPECT_THAT(p.dimensions(), IsEmpty());
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip("  x = (f32[], s32[]) parameter(0)\n  ROOT g = f32[] get-tuple-element(x), index=0",
                "g");
  EXPECT_EQ(p.tuple_index(), 0);
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip("  ROOT i = s32[4,8] iota(), iota_dimension=1", "i");
  EXPECT_THAT(p.dimensions(), ElementsAre(1));
  p = RoundTrip(
      "  x = f32[8,8] parameter(0)\n  ROOT s = f32[2,4] slice(x), slice={[0:4:2], [1:5:1]}", "s");
  ASSERT_EQ(p.slice_dimensions_size(), 2);
  EXPECT_EQ(p.slice_dimensions(0).stride(), 2);
  EXPECT_EQ(p.slice_dimensions(1).start(), 1);
  p = RoundTrip(
      "  x = f32[8] parameter(0)\n  i = s32[] parameter(1)\n"
      "  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}",
      "d");
  EXPECT_THAT(p.dynamic_slice_sizes(), ElementsAre(2));
}

TEST(ProtoAttributesTest, Collectives) {
  auto p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(x), channel_id=3, "
      "replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=add",
      "r");
  EXPECT_EQ(p.channel_id(), 3);
  ASSERT_EQ(p.replica_groups_size(), 2);
  EXPECT_THAT(p.replica_groups(1).replica_ids(), ElementsAre(2, 3));
  EXPECT_TRUE(p.use_global_device_ids());
  EXPECT_FALSE(p.has_collective_device_list());
  EXPECT_THAT(TextNames(p), IsEmpty());

  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT g = f32[16] all-gather(x), channel_id=1, "
      "replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, use_global_device_ids=true",
      "g");
  const auto& iota = p.collective_device_list().iota_replica_group_list();
  EXPECT_EQ(iota.num_replica_groups(), 2);
  EXPECT_EQ(iota.num_devices_per_group(), 4);
  EXPECT_THAT(iota.iota_reshape_dims(), ElementsAre(4, 2));
  EXPECT_THAT(iota.iota_transpose_perm(), ElementsAre(1, 0));
  EXPECT_EQ(p.replica_groups_size(), 0);
  EXPECT_THAT(TextNames(p), IsEmpty());

  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = f32[4] collective-permute(x), "
      "channel_id=2, source_target_pairs={{0,1},{1,0}}",
      "c");
  ASSERT_EQ(p.source_target_pairs_size(), 2);
  EXPECT_EQ(p.source_target_pairs(0).target(), 1);

  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(x), "
      "replica_groups={}, constrain_layout=true, to_apply=add",
      "r");
  EXPECT_TRUE(p.constrain_layout());
  EXPECT_THAT(TextNames(p), IsEmpty());
  // No replica_groups in the text although XLA would print `{}`: the recorded
  // attribute list keeps it out.
  p = RoundTrip("  x = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(x), to_apply=add", "r");
  EXPECT_THAT(TextNames(p), ElementsAre(kAttributeOrderEntry));
}

TEST(ProtoAttributesTest, CompareCustomCallAndBackendConfig) {
  auto p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = pred[4] compare(x, x), "
      "direction=LT, type=TOTALORDER",
      "c");
  EXPECT_EQ(p.comparison_direction(), "LT");
  EXPECT_EQ(p.comparison_type(), "TOTALORDER");
  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(x), "
      "custom_call_target=\"my\\\"target\", custom_call_has_side_effect=true, "
      "api_version=API_VERSION_STATUS_RETURNING, backend_config=\"a\\nb\"",
      "c");
  EXPECT_EQ(p.custom_call_target(), "my\"target");
  EXPECT_TRUE(p.custom_call_has_side_effect());
  EXPECT_EQ(p.custom_call_api_version(), xla::API_VERSION_STATUS_RETURNING);
  EXPECT_EQ(p.backend_config(), "a\nb");
  EXPECT_THAT(TextNames(p), IsEmpty());
  // A raw JSON object stays bare; a quoted text that looks like one stays
  // quoted (through the text fallback).
  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(x), "
      "custom_call_target=\"t\", backend_config={\"k\":{\"n\":1}}",
      "c");
  EXPECT_EQ(p.backend_config(), "{\"k\":{\"n\":1}}");
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = f32[4] custom-call(x), "
      "custom_call_target=\"t\", backend_config=\"{}\"",
      "c");
  EXPECT_THAT(TextNames(p), ElementsAre("backend_config"));
  EXPECT_EQ(p.backend_config(), "");
}

TEST(ProtoAttributesTest, MetadataAndFrontendAttributes) {
  auto p = RoundTrip(
      "  ROOT x = f32[4] parameter(0), frontend_attributes={_a=\"1\",b=\"x y\","
      "c={{0,1},{1,0}}}, "
      "metadata={op_type=\"Add\" op_name=\"jit(f)/add\" source_file=\"f.py\" "
      "source_line=12 source_end_line=13 source_column=4 source_end_column=9 "
      "deduplicated_name=\"d\" scheduling_name=\"s\" stack_frame_id=7}",
      "x");
  EXPECT_EQ(p.metadata().op_name(), "jit(f)/add");
  EXPECT_EQ(p.metadata().source_end_column(), 9);
  EXPECT_EQ(p.metadata().stack_frame_id(), 7);
  EXPECT_EQ(p.frontend_attributes().map().at("b"), "x y");
  EXPECT_EQ(p.frontend_attributes().map().at("c"), "{{0,1},{1,0}}");
  EXPECT_THAT(TextNames(p), IsEmpty());
  // Keys XLA would print sorted, here unsorted: kept as text.
  p = RoundTrip("  ROOT x = f32[4] parameter(0), frontend_attributes={b=\"1\",a=\"2\"}", "x");
  EXPECT_THAT(TextNames(p), ElementsAre("frontend_attributes"));
  // A metadata key the proto lacks: kept as text, not dropped.
  p = RoundTrip("  ROOT x = f32[4] parameter(0), metadata={op_name=\"a\" profile_type={1}}", "x");
  EXPECT_THAT(TextNames(p), ElementsAre("metadata"));
}

TEST(ProtoAttributesTest, DotConvolutionPad) {
  auto p = RoundTrip(
      "  x = f32[2,3,4] parameter(0)\n  y = f32[2,4,5] parameter(1)\n"
      "  ROOT d = f32[2,3,5] dot(x, y), lhs_batch_dims={0}, "
      "lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, "
      "operand_precision={highest,default}, algorithm=dot_bf16_bf16_f32_x3",
      "d");
  EXPECT_THAT(p.dot_dimension_numbers().lhs_contracting_dimensions(), ElementsAre(2));
  EXPECT_THAT(p.dot_dimension_numbers().rhs_batch_dimensions(), ElementsAre(0));
  EXPECT_EQ(p.precision_config().operand_precision(0), xla::PrecisionConfig::HIGHEST);
  EXPECT_EQ(p.precision_config().algorithm(), xla::PrecisionConfig::ALG_DOT_BF16_BF16_F32_X3);
  EXPECT_THAT(TextNames(p), IsEmpty());

  p = RoundTrip(
      "  x = f32[1,8,8,4] parameter(0)\n  k = f32[3,3,2,8] parameter(1)\n"
      "  ROOT c = f32[1,4,4,8] convolution(x, k), window={size=3x3 stride=2x2 "
      "pad=1_1x0_1 rhs_dilate=1x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=2",
      "c");
  ASSERT_EQ(p.window().dimensions_size(), 2);
  EXPECT_EQ(p.window().dimensions(1).padding_high(), 1);
  EXPECT_EQ(p.window().dimensions(1).window_dilation(), 2);
  EXPECT_TRUE(p.window().dimensions(1).window_reversal());
  const auto& dn = p.convolution_dimension_numbers();
  EXPECT_EQ(dn.input_batch_dimension(), 0);
  EXPECT_EQ(dn.input_feature_dimension(), 3);
  EXPECT_THAT(dn.kernel_spatial_dimensions(), ElementsAre(0, 1));
  EXPECT_EQ(dn.kernel_output_feature_dimension(), 3);
  EXPECT_EQ(p.feature_group_count(), 2);
  EXPECT_THAT(TextNames(p), IsEmpty());

  p = RoundTrip(
      "  x = f32[4,4] parameter(0)\n  z = f32[] parameter(1)\n"
      "  ROOT p = f32[6,13] pad(x, z), padding=1_1_0x0_-1_3",
      "p");
  ASSERT_EQ(p.padding_config().dimensions_size(), 2);
  EXPECT_EQ(p.padding_config().dimensions(1).edge_padding_high(), -1);
  EXPECT_EQ(p.padding_config().dimensions(1).interior_padding(), 3);
  EXPECT_THAT(TextNames(p), IsEmpty());
}

TEST(ProtoAttributesTest, GatherScatter) {
  auto p = RoundTrip(
      "  x = f32[8,4] parameter(0)\n  i = s32[2,1] parameter(1)\n"
      "  ROOT g = f32[2,4] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, "
      "start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}, "
      "indices_are_sorted=true",
      "g");
  const auto& g = p.gather_dimension_numbers();
  EXPECT_THAT(g.offset_dims(), ElementsAre(1));
  EXPECT_EQ(g.index_vector_dim(), 1);
  EXPECT_THAT(p.gather_slice_sizes(), ElementsAre(1, 4));
  EXPECT_TRUE(p.indices_are_sorted());
  EXPECT_FALSE(p.has_scatter_dimension_numbers());
  EXPECT_THAT(TextNames(p), IsEmpty());

  p = RoundTrip(
      "  x = f32[8] parameter(0)\n  i = s32[2,1] parameter(1)\n  u = f32[2] parameter(2)\n"
      "  ROOT s = f32[8] scatter(x, i, u), update_window_dims={}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
      "unique_indices=true, to_apply=add",
      "s");
  EXPECT_THAT(p.scatter_dimension_numbers().inserted_window_dims(), ElementsAre(0));
  EXPECT_TRUE(p.unique_indices());
  EXPECT_THAT(TextNames(p), IsEmpty());
}

TEST(ProtoAttributesTest, Sharding) {
  auto sharding = [](const std::string& text) {
    return RoundTrip(absl::StrCat("  ROOT x = f32[8,8] parameter(0), sharding=", text), "x");
  };
  auto p = sharding("{replicated}");
  EXPECT_EQ(p.sharding().type(), xla::OpSharding::REPLICATED);
  p = sharding("{maximal device=3}");
  EXPECT_EQ(p.sharding().type(), xla::OpSharding::MAXIMAL);
  EXPECT_THAT(p.sharding().tile_assignment_devices(), ElementsAre(3));
  p = sharding("{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  EXPECT_EQ(p.sharding().type(), xla::OpSharding::OTHER);
  EXPECT_THAT(p.sharding().tile_assignment_dimensions(), ElementsAre(2, 1, 2));
  EXPECT_THAT(p.sharding().tile_assignment_devices(), ElementsAre(0, 2, 1, 3));
  EXPECT_TRUE(p.sharding().replicate_on_last_tile_dim());
  p = sharding("{devices=[2,2,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  EXPECT_THAT(p.sharding().iota_reshape_dims(), ElementsAre(2, 4));
  EXPECT_THAT(p.sharding().iota_transpose_perm(), ElementsAre(1, 0));
  EXPECT_THAT(p.sharding().last_tile_dims(),
              ElementsAre(xla::OpSharding::MANUAL, xla::OpSharding::REPLICATED));
  p = sharding("{devices=[2,1]0,1 metadata={op_name=\"a\"}}");
  EXPECT_EQ(p.sharding().metadata(0).op_name(), "a");
  p = sharding("{manual}");
  EXPECT_EQ(p.sharding().type(), xla::OpSharding::MANUAL);
  p = sharding("{unknown shard_like 1}");
  EXPECT_TRUE(p.sharding().is_shard_group());
  EXPECT_EQ(p.sharding().shard_group_type(), xla::OpSharding::LIKE);
  p = sharding("{{replicated}, {maximal device=0}, {devices=[2,1]<=[2]}}");
  EXPECT_EQ(p.sharding().type(), xla::OpSharding::TUPLE);
  ASSERT_EQ(p.sharding().tuple_shardings_size(), 3);
  EXPECT_EQ(p.sharding().tuple_shardings(1).type(), xla::OpSharding::MAXIMAL);
  EXPECT_THAT(TextNames(p), IsEmpty());
  // XLA separates tuple elements with ", "; the compact spelling is kept as
  // text so that it prints back unchanged.
  p = sharding("{{replicated},{replicated}}");
  EXPECT_THAT(TextNames(p), ElementsAre("sharding"));
  EXPECT_FALSE(p.has_sharding());
}

TEST(ProtoAttributesTest, OtherTypedFields) {
  auto p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT r = f32[4] reduce-precision(x), "
      "exponent_bits=5, mantissa_bits=10",
      "r");
  EXPECT_EQ(p.exponent_bits(), 5);
  EXPECT_EQ(p.mantissa_bits(), 10);
  p = RoundTrip(
      "  x = c64[8] parameter(0)\n  ROOT f = c64[8] fft(x), fft_type=IFFT, fft_length={8}", "f");
  EXPECT_EQ(p.fft_type(), xla::IFFT);
  EXPECT_THAT(p.fft_length(), ElementsAre(8));
  p = RoundTrip("  x = f32[] parameter(0)\n  ROOT r = f32[4] rng(x, x), distribution=rng_normal",
                "r");
  EXPECT_EQ(p.distribution(), xla::RNG_NORMAL);
  p = RoundTrip(
      "  x = f32[8] parameter(0)\n  ROOT s = f32[8] sort(x), dimensions={0}, "
      "is_stable=true, to_apply=add",
      "s");
  EXPECT_TRUE(p.is_stable());
  p = RoundTrip("  x = f32[8] parameter(0)\n  ROOT t = (f32[2], s32[2]) topk(x), k=2, largest=true",
                "t");
  EXPECT_EQ(p.k(), 2);
  EXPECT_TRUE(p.largest());
  p = RoundTrip(
      "  x = f32[8] parameter(0)\n  ROOT t = (f32[2], s32[2]) topk(x), k=2, largest=false", "t");
  EXPECT_FALSE(p.largest());
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip(
      "  t = token[] after-all()\n  ROOT s = (f32[], u32[], token[]) send(t, t), "
      "channel_id=5, is_host_transfer=true",
      "s");
  EXPECT_TRUE(p.is_host_transfer());
  EXPECT_THAT(TextNames(p), IsEmpty());
  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT c = (f32[4], f32[4]) custom-call(x, x), "
      "custom_call_target=\"t\", output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {2,3})}",
      "c");
  ASSERT_EQ(p.output_operand_aliasing_size(), 2);
  EXPECT_EQ(p.output_operand_aliasing(0).operand_index(), 1);
  EXPECT_THAT(p.output_operand_aliasing(1).operand_shape_index(), ElementsAre(2, 3));
  EXPECT_THAT(TextNames(p), IsEmpty());
}

TEST(ProtoAttributesTest, FallbackAndOrder) {
  // No typed field: kept verbatim. A spelling XLA would not print: kept too.
  auto p = RoundTrip(
      "  x = f32[2,2] parameter(0)\n  ROOT t = f32[2,2] transpose(x), "
      "dimensions={1, 0}, my_attr={a b}",
      "t");
  ASSERT_EQ(p.hopt_text_attributes_size(), 2);
  EXPECT_EQ(p.hopt_text_attributes(0).name(), "dimensions");
  EXPECT_EQ(p.hopt_text_attributes(0).value(), "{1, 0}");
  EXPECT_EQ(p.hopt_text_attributes(1).value(), "{a b}");
  EXPECT_THAT(p.dimensions(), IsEmpty());
  // Attributes out of XLA's order: typed, and the order is recorded.
  p = RoundTrip(
      "  x = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(x), "
      "replica_groups={{0,1}}, channel_id=1, metadata={op_name=\"m\"}, to_apply=add",
      "r");
  EXPECT_EQ(p.channel_id(), 1);
  EXPECT_THAT(TextNames(p), ElementsAre(kAttributeOrderEntry));
  EXPECT_EQ(p.hopt_text_attributes(0).value(), "replica_groups,channel_id,metadata");
}

TEST(ProtoAttributesTest, ReadsXlaProtos) {
  // What XLA writes: explicit groups in collective_device_list, no hopt fields.
  xla::HloInstructionProto proto;
  proto.set_channel_id(4);
  auto* group = proto.mutable_collective_device_list()->add_replica_groups();
  group->add_replica_ids(0);
  group->add_replica_ids(1);
  proto.set_use_global_device_ids(true);
  proto.mutable_metadata()->set_op_name("x");
  proto.set_custom_call_api_version(xla::API_VERSION_ORIGINAL);
  Attributes out;
  ASSERT_TRUE(AttributesFromProto(proto, HloOpcode::kAllReduce, &out).ok());
  EXPECT_THAT(
      out, ElementsAre(Pair("channel_id", "4"), Pair("replica_groups", "{{0,1}}"),
                       Pair("use_global_device_ids", "true"), Pair("metadata", "{op_name=\"x\"}")));
  xla::HloInstructionProto all_gather;
  all_gather.add_dimensions(0);
  all_gather.set_use_global_device_ids(true);
  all_gather.set_channel_id(1);
  ASSERT_TRUE(AttributesFromProto(all_gather, HloOpcode::kAllGather, &out).ok());
  EXPECT_THAT(out, ElementsAre(Pair("channel_id", "1"), Pair("replica_groups", "{}"),
                               Pair("dimensions", "{0}"), Pair("use_global_device_ids", "true")));
}

TEST(ProtoAttributesTest, MalformedProtosFailCleanly) {
  Attributes out;
  xla::HloInstructionProto maximal;
  maximal.mutable_sharding()->set_type(xla::OpSharding::MAXIMAL);
  EXPECT_FALSE(AttributesFromProto(maximal, HloOpcode::kAdd, &out).ok());
  xla::HloInstructionProto labels;
  labels.mutable_convolution_dimension_numbers()->set_input_batch_dimension(7);
  EXPECT_FALSE(AttributesFromProto(labels, HloOpcode::kConvolution, &out).ok());
  xla::HloInstructionProto api;
  api.set_custom_call_api_version(static_cast<xla::CustomCallApiVersion>(99));
  EXPECT_FALSE(AttributesFromProto(api, HloOpcode::kCustomCall, &out).ok());
  xla::HloInstructionProto deep;
  xla::OpSharding* s = deep.mutable_sharding();
  for (int i = 0; i < 100; ++i) {
    s->set_type(xla::OpSharding::TUPLE);
    s = s->add_tuple_shardings();
  }
  EXPECT_FALSE(AttributesFromProto(deep, HloOpcode::kAdd, &out).ok());
}

TEST(ProtoAttributesTest, MalformedTextsFallBack) {
  // Texts the parser accepts verbatim but the codec cannot read: each stays
  // text and round-trips.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"window", "{size=3x}"},
      {"window", "{size=2 pad=1}"},
      {"window", "{bogus=1}"},
      {"window", "{size=2x2 stride=1}"},
      {"dim_labels", "b0f_0io"},
      {"dim_labels", "bbf_0io->b0f"},
      {"dim_labels", "b0f_0io->b1f"},
      {"padding", "1_2_3_4"},
      {"padding", "a_b"},
      {"sharding", "{devices=[2]}"},
      {"sharding", "{maximal}"},
      {"sharding", "{{replicated}"},
      {"sharding", "{replicated bogus}"},
      {"operand_precision", "{fast}"},
      {"algorithm", "dot_nope"},
      {"backend_config", "{\"a\":"},
      {"api_version", "API_X"},
      {"frontend_attributes", "{a}"},
      {"parameter_replication", "{yes}"},
      {"lhs_contracting_dims", "{x}"},
      {"sharding", "{devices=[2,2]<=[4]T(}"},
  };
  int checked = 0;
  for (const auto& [name, value] : cases) {
    std::string op =
        name == "lhs_contracting_dims" || name == "operand_precision" || name == "algorithm"
            ? "dot(x, x)"
            : "custom-call(x), custom_call_target=\"t\"";
    Fixture f(absl::StrCat("  x = f32[4,4] parameter(0)\n  ROOT y = f32[4,4] ", op, ", ", name, "=",
                           value));
    if (!f.ok()) continue;  // the parser rejects it already
    const HloInstruction* y = f.Get("y");
    xla::HloInstructionProto proto;
    ASSERT_TRUE(AttributesToProto(*y, &proto).ok()) << name << "=" << value;
    Attributes back;
    ASSERT_TRUE(AttributesFromProto(proto, y->opcode(), &back).ok());
    EXPECT_EQ(back, TextAttributes(*y)) << name << "=" << value;
    bool kept = false;
    for (const auto& t : proto.hopt_text_attributes())
      kept |= t.name() == name && t.value() == value;
    EXPECT_TRUE(kept) << name << "=" << value;
    ++checked;
  }
  EXPECT_GT(checked, 15);
}

// Every one-character deletion or replacement of valid texts: whatever the
// codec makes of it, the text comes back unchanged and nothing crashes.
TEST(ProtoAttributesTest, MutatedTextsRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"sharding",
       "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual} metadata={op_name=\"a\"}}"},
      {"sharding", "{{replicated}, {maximal device=1 shard_as 2}}"},
      {"window", "{size=3x3 stride=2x1 pad=1_1x0_2 lhs_dilate=1x2 rhs_reversal=1x0}"},
      {"dim_labels", "b01f_01io->b01f"},
      {"padding", "0_1_2x3_4_5"},
      {"metadata", "{op_type=\"a\" op_name=\"b\" source_file=\"c\" source_line=3}"},
      {"frontend_attributes", "{a=\"1\",b={{0,1}}}"},
      {"replica_groups", "[2,2]<=[2,2]T(1,0)"},
      {"backend_config", "{\"a\":{\"b\":\"}\"}}"},
      {"output_to_operand_aliasing", "{{0}: (1, {2})}"},
      {"operand_precision", "{high,default}"},
  };
  Fixture f(
      "  x = f32[4,4] parameter(0)\n  ROOT y = f32[4,4] custom-call(x), custom_call_target=\"t\"");
  ASSERT_TRUE(f.ok()) << f.status();
  HloInstruction* y = const_cast<HloInstruction*>(f.Get("y"));
  const std::string replacements = "{}[](),=x_ 0-\"";
  for (const auto& [name, seed] : seeds) {
    for (size_t i = 0; i < seed.size(); ++i) {
      std::vector<std::string> variants = {seed.substr(0, i) + seed.substr(i + 1)};
      for (char c : replacements) {
        std::string v = seed;
        v[i] = c;
        variants.push_back(v);
      }
      for (const std::string& value : variants) {
        y->SetAttributeText(name, value);
        xla::HloInstructionProto proto;
        ASSERT_TRUE(AttributesToProto(*y, &proto).ok()) << name << "=" << value;
        Attributes back;
        ASSERT_TRUE(AttributesFromProto(proto, y->opcode(), &back).ok()) << name << "=" << value;
        ASSERT_EQ(back, TextAttributes(*y)) << name << "=" << value;
      }
    }
    y->RemoveAttribute(name);
  }
}

}  // namespace
}  // namespace hopt

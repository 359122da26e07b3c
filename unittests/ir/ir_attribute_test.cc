// SPDX-License-Identifier: Apache-2.0
// Tests for instruction attributes (include/hopt/ir/instruction.h,
// attributes.h): where new ones are printed, and their typed views.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "unittests/ir/mutation_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace {

using mutation_testing::AttributeNames;
using mutation_testing::ComputationNames;
using mutation_testing::ExpectVerifies;
using mutation_testing::Find;
using mutation_testing::kAllReduce;
using mutation_testing::kF32;
using mutation_testing::kF32x4;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using testing_util::ParseOrFail;

// ---------------------------------------------------------------------------
// Attributes

TEST(IrAttributeTest, NewAttributesGoWhereXlaPrintsThem) {
  auto module = ParseOrFail(std::string(kAllReduce));
  ASSERT_NE(module, nullptr);
  HloInstruction* ar = Find(module, "ar");
  ar->SetAttributeText("channel_id", "5");
  EXPECT_THAT(AttributeNames(*ar), ElementsAre("channel_id", "replica_groups", "to_apply"));
  EXPECT_EQ(PrintInstruction(*ar, PrintOptions::Short()),
            "ar = f32[8]{0} all-reduce(p0), channel_id=5, replica_groups={{0,1}}, to_apply=add");

  ar->SetAttributeText("use_global_device_ids", "true");
  ar->SetAttributeText("constrain_layout", "true");
  ar->set_backend_config("cfg");
  ar->set_metadata(OpMetadata{"AllReduce", "x/y", "", 0});
  ar->set_frontend_attributes({{"k", "v"}});
  EXPECT_THAT(
      AttributeNames(*ar),
      ElementsAre("channel_id", "replica_groups", "constrain_layout", "use_global_device_ids",
                  "to_apply", "frontend_attributes", "metadata", "backend_config"));

  // Setting an existing attribute keeps its place.
  ar->SetAttributeText("replica_groups", "{{1,0}}");
  ar->set_channel_id(9);
  EXPECT_THAT(
      AttributeNames(*ar),
      ElementsAre("channel_id", "replica_groups", "constrain_layout", "use_global_device_ids",
                  "to_apply", "frontend_attributes", "metadata", "backend_config"));
  EXPECT_EQ(PrintInstruction(*ar, PrintOptions::Short()),
            "ar = f32[8]{0} all-reduce(p0), channel_id=9, replica_groups={{1,0}}, "
            "constrain_layout=true, use_global_device_ids=true, to_apply=add, "
            "frontend_attributes={k=\"v\"}, metadata={op_type=\"AllReduce\" op_name=\"x/y\"}, "
            "backend_config=\"cfg\"");

  // Removing.
  ar->set_channel_id(std::nullopt);
  EXPECT_FALSE(ar->HasAttribute("channel_id"));
  EXPECT_TRUE(ar->RemoveAttribute("constrain_layout"));
  EXPECT_FALSE(ar->RemoveAttribute("constrain_layout"));
  ar->set_backend_config("");
  ar->set_frontend_attributes({});
  EXPECT_THAT(AttributeNames(*ar),
              ElementsAre("replica_groups", "use_global_device_ids", "to_apply", "metadata"));
  ExpectVerifies(*module);

  // What was set parses back.
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), PrintModule(*module));
}

// XLA prints an all-gather's dimensions before use_global_device_ids, and a
// reduce-scatter's after it (HloAllGatherInstruction vs
// HloReduceScatterInstruction::PrintExtraAttributesImpl).
TEST(IrAttributeTest, UseGlobalDeviceIdsPlacementFollowsTheOpcode) {
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4,4] parameter(0)
  rs = f32[2,4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ag = f32[8,4] all-gather(p), replica_groups={{0,1}}, dimensions={0}
  ROOT t = (f32[2,4], f32[8,4]) tuple(rs, ag)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* rs = Find(module, "rs");
  HloInstruction* ag = Find(module, "ag");
  for (HloInstruction* i : {rs, ag}) {
    i->set_channel_id(1);
    i->SetAttributeText("use_global_device_ids", "true");
  }
  EXPECT_EQ(PrintInstruction(*rs, PrintOptions::Short()),
            "rs = f32[2,4]{1,0} reduce-scatter(p), channel_id=1, replica_groups={{0,1}}, "
            "use_global_device_ids=true, dimensions={0}, to_apply=add");
  EXPECT_EQ(PrintInstruction(*ag, PrintOptions::Short()),
            "ag = f32[8,4]{1,0} all-gather(p), channel_id=1, replica_groups={{0,1}}, "
            "dimensions={0}, use_global_device_ids=true");
}

TEST(IrAttributeTest, DimensionsAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[3] parameter(0)
  ROOT b = f32[2,3,4] broadcast(p), dimensions={1}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* b = Find(module, "b");
  EXPECT_THAT(b->dimensions(), ElementsAre(1));
  EXPECT_THAT(Find(module, "p")->dimensions(), IsEmpty());
  b->set_dimensions({0, 2});
  EXPECT_EQ(b->GetAttributeText("dimensions"), "{0,2}");
  EXPECT_THAT(b->dimensions(), ElementsAre(0, 2));
}

TEST(IrAttributeTest, ReplicaGroupsAccessor) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=30
ENTRY main {
  p = f32[128,32] parameter(0)
  explicit = f32[128,64] all-gather(p), replica_groups={{0,1},{2,3}}, dimensions={1}
  iota = f32[128,64] all-gather(p), replica_groups=[2,2]<=[4], dimensions={1}
  transposed = f32[128,64] all-gather(p), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={1}
  big = f32[128,320] all-gather(p), replica_groups=[3,10]<=[6,5]T(1,0), dimensions={1}
  none = f32[128,32] all-reduce(p), replica_groups={}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
  ROOT t = (f32[128,64], f32[128,64], f32[128,64], f32[128,320], f32[128,32]) tuple(explicit, iota, transposed, big, none)
}
)");
  ASSERT_NE(module, nullptr);
  using Groups = std::vector<std::vector<int64_t>>;

  auto explicit_groups = Find(module, "explicit")->replica_groups();
  ASSERT_TRUE(explicit_groups.has_value());
  EXPECT_FALSE(explicit_groups->is_iota);
  EXPECT_EQ(explicit_groups->groups, (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(explicit_groups->ExpandedGroups(), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(explicit_groups->ToString(), "{{0,1},{2,3}}");

  auto iota = Find(module, "iota")->replica_groups();
  ASSERT_TRUE(iota.has_value());
  EXPECT_TRUE(iota->is_iota);
  EXPECT_EQ(iota->num_groups, 2);
  EXPECT_EQ(iota->group_size, 2);
  EXPECT_THAT(iota->reshape_dims, ElementsAre(4));
  EXPECT_THAT(iota->transpose_perm, IsEmpty());
  EXPECT_EQ(iota->ExpandedGroups(), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(iota->ToString(), "[2,2]<=[4]");

  auto transposed = Find(module, "transposed")->replica_groups();
  ASSERT_TRUE(transposed.has_value());
  EXPECT_THAT(transposed->transpose_perm, ElementsAre(1, 0));
  EXPECT_EQ(transposed->ExpandedGroups(), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(transposed->ToString(), "[2,2]<=[2,2]T(1,0)");

  // iota(30) as [6,5], transposed to [5,6] (element [i][j] = 5*j + i), read
  // row by row in groups of 10.
  auto big = Find(module, "big")->replica_groups();
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->ExpandedGroups(), (Groups{{0, 5, 10, 15, 20, 25, 1, 6, 11, 16},
                                           {21, 26, 2, 7, 12, 17, 22, 27, 3, 8},
                                           {13, 18, 23, 28, 4, 9, 14, 19, 24, 29}}));

  auto none = Find(module, "none")->replica_groups();
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(Find(module, "p")->replica_groups().has_value());
  ExpectVerifies(*module);

  HloInstruction* explicit_ag = Find(module, "explicit");
  explicit_ag->set_replica_groups(ReplicaGroupList::FromGroups({{0, 2}, {1, 3}}));
  EXPECT_EQ(explicit_ag->GetAttributeText("replica_groups"), "{{0,2},{1,3}}");
  EXPECT_EQ(explicit_ag->replica_groups()->groups, (Groups{{0, 2}, {1, 3}}));
}

TEST(IrAttributeTest, IotaReplicaGroupsWithThreeDimensions) {
  // iota(8) as [2,2,2], permuted by (2,0,1): element [i][j][k] of the
  // [2,2,2] result is source [j][k][i] = 4*j + 2*k + i.
  absl::StatusOr<ReplicaGroupList> groups = ParseReplicaGroups("[2,4]<=[2,2,2]T(2,0,1)");
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(groups->ExpandedGroups(),
            (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
}

TEST(IrAttributeTest, SourceTargetPairsAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), channel_id=3, source_target_pairs={{0,1},{1,2},{2,0}}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cp = Find(module, "cp");
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(cp->source_target_pairs(), (Pairs{{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_THAT(Find(module, "p")->source_target_pairs(), IsEmpty());
  cp->set_source_target_pairs({{1, 0}, {0, 1}});
  EXPECT_EQ(cp->GetAttributeText("source_target_pairs"), "{{1,0},{0,1}}");
  EXPECT_EQ(cp->source_target_pairs(), (Pairs{{1, 0}, {0, 1}}));
  EXPECT_THAT(AttributeNames(*cp), ElementsAre("channel_id", "source_target_pairs"));
}

TEST(IrAttributeTest, ChannelIdAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), channel_id=3, source_target_pairs={{0,1}}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cp = Find(module, "cp");
  EXPECT_EQ(cp->channel_id(), 3);
  EXPECT_FALSE(Find(module, "p")->channel_id().has_value());
  cp->set_channel_id(42);
  EXPECT_EQ(cp->channel_id(), 42);
  EXPECT_EQ(cp->GetAttributeText("channel_id"), "42");
  cp->set_channel_id(std::nullopt);
  EXPECT_FALSE(cp->channel_id().has_value());
}

TEST(IrAttributeTest, CustomCallTargetWithEscapes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT cc = f32[4] custom-call(p), custom_call_target="foo\"bar\\baz\n\tqux"
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cc = Find(module, "cc");
  EXPECT_EQ(cc->custom_call_target(), "foo\"bar\\baz\n\tqux");
  EXPECT_EQ(cc->GetAttributeText("custom_call_target"), "\"foo\\\"bar\\\\baz\\n\\tqux\"");

  const std::string target = "new \"target\" \\ with\nlines";
  cc->set_custom_call_target(target);
  EXPECT_EQ(cc->custom_call_target(), target);
  EXPECT_EQ(cc->GetAttributeText("custom_call_target"), "\"new \\\"target\\\" \\\\ with\\nlines\"");
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Find(again, "cc")->custom_call_target(), target);
}

TEST(IrAttributeTest, BackendConfigRawAndQuoted) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  raw = f32[4] custom-call(p), custom_call_target="a", backend_config={"key": [1, 2], "s": "x"}
  quoted = f32[4] custom-call(p), custom_call_target="b", backend_config="opaque \"text\""
  ROOT none = f32[4] custom-call(raw, quoted), custom_call_target="c"
}
)");
  ASSERT_NE(module, nullptr);
  bool raw = false;
  EXPECT_EQ(Find(module, "raw")->backend_config(&raw), "{\"key\": [1, 2], \"s\": \"x\"}");
  EXPECT_TRUE(raw);
  EXPECT_EQ(Find(module, "quoted")->backend_config(&raw), "opaque \"text\"");
  EXPECT_FALSE(raw);
  EXPECT_EQ(Find(module, "none")->backend_config(&raw), "");
  EXPECT_FALSE(raw);
  EXPECT_EQ(Find(module, "raw")->backend_config(), "{\"key\": [1, 2], \"s\": \"x\"}");

  // Both forms print back as written.
  std::string text = PrintModule(*module, PrintOptions::Short());
  EXPECT_THAT(text, HasSubstr("backend_config={\"key\": [1, 2], \"s\": \"x\"}\n"));
  EXPECT_THAT(text, HasSubstr("backend_config=\"opaque \\\"text\\\"\"\n"));

  // A value set through the API reads back unchanged, also after printing
  // and parsing.
  HloInstruction* none = Find(module, "none");
  const std::string json = R"({"replica_groups":[[0,1]],"channel_id":1})";
  none->set_backend_config(json);
  EXPECT_EQ(none->backend_config(), json);
  const std::string odd = "line1\nline2 \"q\" \\";
  Find(module, "quoted")->set_backend_config(odd);
  EXPECT_EQ(Find(module, "quoted")->backend_config(), odd);
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(Find(again, "none")->backend_config(), json);
  EXPECT_EQ(Find(again, "quoted")->backend_config(), odd);
}

TEST(IrAttributeTest, MetadataAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p), metadata={op_type="Neg" op_name="jit(f)/neg" source_file="/tmp/x.py" source_line=42}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* n = Find(module, "n");
  std::optional<OpMetadata> metadata = n->metadata();
  ASSERT_TRUE(metadata.has_value());
  EXPECT_EQ(metadata->op_type, "Neg");
  EXPECT_EQ(metadata->op_name, "jit(f)/neg");
  EXPECT_EQ(metadata->source_file, "/tmp/x.py");
  EXPECT_EQ(metadata->source_line, 42);
  EXPECT_FALSE(Find(module, "p")->metadata().has_value());

  n->set_metadata(OpMetadata{"Abs", "a \"b\"", "", 7});
  EXPECT_EQ(n->GetAttributeText("metadata"),
            "{op_type=\"Abs\" op_name=\"a \\\"b\\\"\" source_line=7}");
  auto again = ParseOrFail(PrintModule(*module));
  ASSERT_NE(again, nullptr);
  std::optional<OpMetadata> reread = Find(again, "n")->metadata();
  ASSERT_TRUE(reread.has_value());
  EXPECT_EQ(reread->op_type, "Abs");
  EXPECT_EQ(reread->op_name, "a \"b\"");
  EXPECT_EQ(reread->source_file, "");
  EXPECT_EQ(reread->source_line, 7);
}

TEST(IrAttributeTest, FrontendAttributesAccessor) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p), frontend_attributes={_xla_compute_type="host",b="1"}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* n = Find(module, "n");
  using Attrs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(n->frontend_attributes(), (Attrs{{"_xla_compute_type", "host"}, {"b", "1"}}));
  EXPECT_THAT(Find(module, "p")->frontend_attributes(), IsEmpty());
  n->set_frontend_attributes({{"_xla_send_recv_source_target_pairs", "{{0,1}}"}, {"q", "a\"b"}});
  EXPECT_EQ(n->GetAttributeText("frontend_attributes"),
            "{_xla_send_recv_source_target_pairs=\"{{0,1}}\",q=\"a\\\"b\"}");
  EXPECT_EQ(n->frontend_attributes(),
            (Attrs{{"_xla_send_recv_source_target_pairs", "{{0,1}}"}, {"q", "a\"b"}}));
}

TEST(IrAttributeTest, OtherTypedViews) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY main {
  p = (f32[8], s32[]) parameter(0)
  g = f32[8] get-tuple-element(p), index=0
  s = f32[3] slice(g), slice={[1:7:2]}
  d = f32[2] dynamic-slice(g, s32[] get-tuple-element(p), index=1), dynamic_slice_sizes={2}
  c = pred[3] compare(s, s), direction=LT
  ROOT t = (pred[3], f32[2]) tuple(c, d)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(Find(module, "g")->tuple_index(), 0);
  EXPECT_EQ(Find(module, "s")->tuple_index(), -1);
  std::vector<SliceDimension> slice = Find(module, "s")->slice();
  ASSERT_EQ(slice.size(), 1u);
  EXPECT_EQ(slice[0].start, 1);
  EXPECT_EQ(slice[0].limit, 7);
  EXPECT_EQ(slice[0].stride, 2);
  EXPECT_EQ(FormatSlice(slice), "{[1:7:2]}");
  EXPECT_THAT(Find(module, "d")->dynamic_slice_sizes(), ElementsAre(2));
  EXPECT_EQ(Find(module, "c")->comparison_direction(), "LT");
  EXPECT_EQ(Find(module, "c")->IntAttribute("direction"), std::nullopt);
  ExpectVerifies(*module);
}

}  // namespace
}  // namespace hopt

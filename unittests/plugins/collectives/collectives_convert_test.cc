// SPDX-License-Identifier: Apache-2.0
// convert-collectives-to-custom-call and convert-custom-call-to-collectives:
// the opcode gate, the naming contract, the backend_config, what is kept,
// the round trip, and (with the interpreter) that nothing changes meaning.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "collectives/collective_semantics.h"
#include "collectives/convert_collectives_to_custom_call.h"
#include "collectives/convert_custom_call_to_collectives.h"
#include "collectives/neuron_collective_targets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::HloOpcode;
using ::hopt::testing_util::ExpectSameResults;
using ::hopt::testing_util::MeshShape;
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::RunPassOrFail;
using ::hopt::testing_util::StandardMeshes;
using ::testing::HasSubstr;

class ConvertTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    AddNeuronCollectiveSemantics(hopt::testing_util::TestRegistrar());
  }
  ConvertCollectivesToCustomCall forward_;
  ConvertCustomCallToCollectives inverse_;
};

const HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (const hopt::HloComputation* c : module.computations())
    if (const HloInstruction* i = c->GetInstructionWithName(name)) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// Every dtype of the contract, two outside it, and a reduction per infix.
struct DType {
  const char* hlo;
  const char* suffix;
};
const DType kDTypes[] = {{"f32", "f32"},          {"bf16", "bf16"},      {"f16", "f16"},
                         {"u32", "u32"},          {"s64", "s64"},        {"s32", "s32"},
                         {"f64", "UNKNOWNDTYPE"}, {"s8", "UNKNOWNDTYPE"}};
struct Reduction {
  const char* opcode;
  const char* infix;
};
const Reduction kReductions[] = {
    {"add", "Add"}, {"maximum", "Max"}, {"minimum", "Min"}, {"multiply", "UNKNOWNOP"}};

// One module per dtype and mesh: an all-reduce, a reduce-scatter per
// reduction, and an all-gather, in three group modes (cross-replica,
// cross-replica-and-partition, flattened ids), so every name of the
// contract and every mode runs.
std::string ContractModule(const DType& dtype, MeshShape mesh) {
  int64_t r = mesh.replicas, p = mesh.partitions, all = r * p;
  std::string t = dtype.hlo;
  std::string text =
      absl::StrCat("HloModule contract_", t, ", replica_count=", r, ", num_partitions=", p, "\n\n");
  for (const Reduction& red : kReductions)
    absl::StrAppend(&text, "red_", red.opcode, " {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                    "[] parameter(1)\n  ROOT c = ", t, "[] ", red.opcode, "(a, b)\n}\n\n");
  std::string flat_group = "{";
  for (int64_t d = 0; d < all; ++d) absl::StrAppend(&flat_group, d ? "," : "", d);
  flat_group += "}";
  absl::StrAppend(&text, "ENTRY main {\n  x = ", t, "[16,2] parameter(0)\n");
  std::vector<std::string> results;
  int channel = 1;
  for (const Reduction& red : kReductions) {
    std::string op = red.opcode;
    absl::StrAppend(&text, "  ar_", op, " = ", t,
                    "[16,2] all-reduce(x), replica_groups={}, to_apply=red_", op, "\n");
    absl::StrAppend(&text, "  arc_", op, " = ", t, "[16,2] all-reduce(x), channel_id=", channel++,
                    ", replica_groups={}, to_apply=red_", op, "\n");
    absl::StrAppend(&text, "  rs_", op, " = ", t, "[", 16 / r,
                    ",2] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=red_", op,
                    "\n");
    absl::StrAppend(&text, "  rsg_", op, " = ", t, "[", 16 / all,
                    ",2] reduce-scatter(x), channel_id=", channel++, ", replica_groups={",
                    flat_group, "}, use_global_device_ids=true, dimensions={0}, to_apply=red_", op,
                    "\n");
    for (const char* prefix : {"ar_", "arc_", "rs_", "rsg_"}) results.push_back(prefix + op);
  }
  absl::StrAppend(&text, "  ag = ", t, "[16,", 2 * r,
                  "] all-gather(x), replica_groups={}, dimensions={1}\n");
  absl::StrAppend(&text, "  agc = ", t, "[", 16 * all, ",2] all-gather(x), channel_id=", channel++,
                  ", replica_groups={}, dimensions={0}\n");
  results.push_back("ag");
  results.push_back("agc");
  std::vector<std::string> shapes;
  std::string tuple_shape = "(";
  std::string operands;
  for (size_t k = 0; k < results.size(); ++k) {
    absl::StrAppend(&operands, k ? ", " : "", results[k]);
  }
  absl::StrAppend(&text, "  ROOT out = tuple(", operands, ")\n}\n");
  return text;
}

TEST_F(ConvertTest, EveryNameOfTheContractOnEveryMesh) {
  for (const DType& dtype : kDTypes) {
    for (MeshShape mesh : StandardMeshes()) {
      SCOPED_TRACE(absl::StrCat(dtype.hlo, " on ", mesh.replicas, "x", mesh.partitions));
      auto module = ParseOrFail(ContractModule(dtype, mesh));
      ASSERT_NE(module, nullptr);
      auto [converted, changed] = RunPassOrFail(forward_, *module);
      ASSERT_NE(converted, nullptr);
      EXPECT_TRUE(changed);
      for (const Reduction& red : kReductions) {
        std::string op = red.opcode;
        for (const char* prefix : {"ar_", "arc_"})
          EXPECT_EQ(Find(*converted, prefix + op)->custom_call_target(),
                    absl::StrCat("AwsNeuronAllReduce", red.infix, "_", dtype.suffix));
        for (const char* prefix : {"rs_", "rsg_"})
          EXPECT_EQ(Find(*converted, prefix + op)->custom_call_target(),
                    absl::StrCat("AwsNeuronReduceScatter", red.infix, "_", dtype.suffix));
      }
      EXPECT_EQ(Find(*converted, "ag")->custom_call_target(),
                absl::StrCat("AwsNeuronAllGather_", dtype.suffix));
      for (const hopt::HloInstruction* i : converted->entry_computation()->instructions())
        EXPECT_NE(i->opcode(), HloOpcode::kAllReduce) << i->name();
      ExpectSameResults(*module, *converted, mesh, /*seeds=*/2);

      auto [restored, restored_changed] = RunPassOrFail(inverse_, *converted);
      ASSERT_NE(restored, nullptr);
      EXPECT_TRUE(restored_changed);
      EXPECT_EQ(hopt::PrintModule(*restored), hopt::PrintModule(*module));
    }
  }
}

TEST_F(ConvertTest, LiteralNamesOfTheContract) {
  // Spelled out, so a change to the tables cannot pass unnoticed.
  const std::vector<std::string>& names = AllCollectiveTargetNames();
  EXPECT_EQ(names.size(), 63u);
  for (const char* name :
       {"AwsNeuronAllReduceAdd_bf16", "AwsNeuronAllReduceMax_f32", "AwsNeuronReduceScatterMin_s32",
        "AwsNeuronReduceScatterAdd_u32", "AwsNeuronAllGather_f16", "AwsNeuronAllGather_bf16",
        "AwsNeuronAllReduceUNKNOWNOP_s64", "AwsNeuronReduceScatterUNKNOWNOP_UNKNOWNDTYPE",
        "AwsNeuronAllGather_UNKNOWNDTYPE"})
    EXPECT_THAT(names, ::testing::Contains(std::string(name)));
  auto parsed = ParseCollectiveTargetName("AwsNeuronReduceScatterMin_s32");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->opcode, HloOpcode::kReduceScatter);
  EXPECT_EQ(parsed->reduce_op, "Min");
  EXPECT_EQ(parsed->dtype, "s32");
  for (const char* bad :
       {"AwsNeuronAllGatherAdd_f32", "AwsNeuronAllReduce_f32", "AwsNeuronAllReduceAdd_f64",
        "AwsNeuronAllReduceAddf32", "AwsNeuronAllToAll_f32", "awsneuronallreduceadd_f32"})
    EXPECT_FALSE(ParseCollectiveTargetName(bad).has_value()) << bad;
}

constexpr char kMixed[] = R"(HloModule mixed, replica_count=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

body {
  s = f32[4] parameter(0)
  ROOT inner = f32[4] all-reduce(s), replica_groups={}, to_apply=add
}

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a2a = f32[4] all-to-all(x), replica_groups={}, dimensions={0}
  cp = f32[4] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  called = f32[4] call(y), to_apply=body
  ar = f32[4] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add, sharding={replicated}, frontend_attributes={k="v"}, metadata={op_type="AllReduce" op_name="jit(f)/psum"}
  tup = (f32[4], f32[4]) all-reduce(x, y), replica_groups={}, to_apply=add
  after = f32[4] add(ar, a2a), control-predecessors={ar}
  ROOT out = (f32[4], f32[4], f32[4], f32[4], (f32[4], f32[4])) tuple(after, cp, called, ar, tup)
}
)";

TEST_F(ConvertTest, GateEntryOnlyAndWhatIsKept) {
  auto module = ParseOrFail(kMixed);
  ASSERT_NE(module, nullptr);
  auto [converted, changed] = RunPassOrFail(forward_, *module);
  ASSERT_NE(converted, nullptr);
  EXPECT_TRUE(changed);
  EXPECT_EQ(Find(*converted, "a2a")->opcode(), HloOpcode::kAllToAll);
  EXPECT_EQ(Find(*converted, "cp")->opcode(), HloOpcode::kCollectivePermute);
  EXPECT_EQ(Find(*converted, "inner")->opcode(), HloOpcode::kAllReduce);  // not the entry

  const HloInstruction* ar = Find(*converted, "ar");
  ASSERT_EQ(ar->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(ar->custom_call_target(), "AwsNeuronAllReduceAdd_f32");
  EXPECT_EQ(ar->operand(0)->name(), "x");
  EXPECT_EQ(ar->shape().ToString(), "f32[4]{0}");
  EXPECT_EQ(ar->to_apply()->name(), "add");
  EXPECT_EQ(ar->GetAttributeText("sharding").value_or(""), "{replicated}");
  ASSERT_TRUE(ar->metadata().has_value());
  EXPECT_EQ(ar->metadata()->op_name, "jit(f)/psum");
  EXPECT_EQ(
      ar->backend_config(),
      R"({"replica_groups":[[0,1],[2,3]],"use_global_device_ids":false,"constrain_layout":false})");
  // The control edge now starts at the call.
  std::vector<HloInstruction*> predecessors = Find(*converted, "after")->control_predecessors();
  ASSERT_EQ(predecessors.size(), 1u);
  EXPECT_EQ(predecessors[0], ar);
  // A tuple result has no single dtype.
  EXPECT_EQ(Find(*converted, "tup")->custom_call_target(), "AwsNeuronAllReduceAdd_UNKNOWNDTYPE");

  ExpectSameResults(*module, *converted, {4, 1});
  auto [restored, restored_changed] = RunPassOrFail(inverse_, *converted);
  ASSERT_NE(restored, nullptr);
  EXPECT_EQ(hopt::PrintModule(*restored), hopt::PrintModule(*module));
}

TEST_F(ConvertTest, BackendConfigCarriesChannelDimensionAndFlags) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[8] parameter(0)
  ag = f32[32] all-gather(x), channel_id=7, replica_groups=[1,4]<=[4], dimensions={0}, use_global_device_ids=true, backend_config={"is_sync":true}
  ROOT rs = f32[2] reduce-scatter(x), channel_id=9, replica_groups={{0,1}}, constrain_layout=true, dimensions={0}, to_apply=add, backend_config="opaque"
}
)");
  ASSERT_NE(module, nullptr);
  auto [converted, changed] = RunPassOrFail(forward_, *module);
  ASSERT_NE(converted, nullptr);
  EXPECT_EQ(
      Find(*converted, "ag")->backend_config(),
      R"({"replica_groups":[[0,1,2,3]],"channel_id":7,"dimension":0,)"
      R"("use_global_device_ids":true,"constrain_layout":false,)"
      R"("iota_replica_groups":"[1,4]<=[4]","original_backend_config":"{\"is_sync\":true}"})");
  EXPECT_EQ(Find(*converted, "rs")->backend_config(),
            R"({"replica_groups":[[0,1]],"channel_id":9,"dimension":0,)"
            R"("use_global_device_ids":false,"constrain_layout":true,)"
            R"("original_backend_config":"\"opaque\""})");
  ExpectSameResults(*module, *converted, {2, 2});
  auto [restored, restored_changed] = RunPassOrFail(inverse_, *converted);
  ASSERT_NE(restored, nullptr);
  EXPECT_EQ(hopt::PrintModule(*restored), hopt::PrintModule(*module));
}

TEST_F(ConvertTest, NothingToConvertIsNoChange) {
  auto module = ParseOrFail("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  auto [forward, changed] = RunPassOrFail(forward_, *module);
  EXPECT_FALSE(changed);
  auto [inverse, inverse_changed] = RunPassOrFail(inverse_, *module);
  EXPECT_FALSE(inverse_changed);
}

// The inverse refuses calls whose name or config no longer fit.
std::string CallModule(absl::string_view target, absl::string_view config,
                       absl::string_view shape = "f32[4]") {
  return absl::StrCat(R"(HloModule m, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT cc = )",
                      shape, R"( custom-call(x), custom_call_target=")", target,
                      R"(", to_apply=add, backend_config=)", config, "\n}\n");
}

TEST_F(ConvertTest, InverseRejectsCallsThatNoLongerFit) {
  struct Case {
    std::string text;
    std::string message;
  } cases[] = {
      {CallModule("AwsNeuronAllReduceAdd_bf16", R"({"replica_groups":[]})"),
       "its shape and reduction make it AwsNeuronAllReduceAdd_f32"},
      {CallModule("AwsNeuronAllReduceMax_f32", R"({"replica_groups":[]})"),
       "make it AwsNeuronAllReduceAdd_f32"},
      {CallModule("AwsNeuronAllReduceAdd_f32", R"({"replica_groups":[[0,1]],"channel_id":"1"})"),
       "\"channel_id\" must be a non-negative integer"},
      {CallModule("AwsNeuronAllReduceAdd_f32", R"({"groups":[]})"),
       "\"replica_groups\" must be present"},
      {CallModule("AwsNeuronAllReduceAdd_f32", R"("{\"replica_groups\":[[0,1]")"),
       "backend_config: JSON: offset 24: expected ',' or ']'"},
      {CallModule("AwsNeuronAllReduceAdd_f32", R"({"replica_groups":[],"extra":1})"),
       "unknown key \"extra\""},
      {CallModule("AwsNeuronReduceScatterAdd_f32", R"({"replica_groups":[]})", "f32[2]"),
       "\"dimension\" is missing"},
  };
  for (const Case& c : cases) {
    auto module = ParseOrFail(c.text);
    ASSERT_NE(module, nullptr);
    absl::StatusOr<bool> result = inverse_.Run(*module);
    ASSERT_FALSE(result.ok()) << c.text;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(result.status().message()), HasSubstr("custom-call cc ("));
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(c.message));
  }
}

TEST_F(ConvertTest, BackendConfigParserRoundTrips) {
  CollectiveConfig config;
  config.replica_groups = {{0, 2}, {1, 3}};
  config.channel_id = 4;
  config.dimension = 1;
  config.use_global_device_ids = true;
  config.original_backend_config = "{\"x\":\"a\\\"b\"}";
  std::string text = FormatCollectiveConfig(config);
  auto parsed = ParseCollectiveConfig(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(FormatCollectiveConfig(*parsed), text);
  EXPECT_EQ(parsed->replica_groups, config.replica_groups);
  EXPECT_EQ(parsed->original_backend_config, config.original_backend_config);
  auto iota_mismatch =
      ParseCollectiveConfig(R"({"replica_groups":[[0,1]],"iota_replica_groups":"[2,1]<=[2]"})");
  EXPECT_FALSE(iota_mismatch.ok());
}

// Ids inside custom-call configs count as taken, in both forms the plugin
// writes; a config that is not ours, or not an id, changes nothing.
TEST(NextFreeChannelIdTest, CountsIdsHeldInBackendConfigs) {
  auto with_call = [](const std::string& config) {
    return ParseOrFail(absl::StrCat(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p), channel_id=3
  ROOT c = f32[4] custom-call(n), custom_call_target="Anything", backend_config=)",
                                    config, "\n}\n"));
  };
  struct Case {
    std::string config;
    int64_t next;
  };
  for (const Case& c : std::vector<Case>{{R"({"replica_groups":[],"channel_id":11})", 12},
                                         {R"("channel_id=20")", 21},
                                         {R"({"channel_id":2})", 4},
                                         {R"("channel_id=x")", 4},
                                         {R"("{not json")", 4},
                                         {R"({"other":99})", 4}}) {
    SCOPED_TRACE(c.config);
    auto module = with_call(c.config);
    ASSERT_NE(module, nullptr);
    EXPECT_EQ(NextFreeChannelId(*module), c.next);
  }
}

// The interpreter runs a collective custom-call as its target name says:
// the reduction and the element type in the name must match to_apply's
// root and the shapes, or the run fails naming the call; UNKNOWNOP runs
// to_apply whatever it computes.
TEST_F(ConvertTest, CollectiveCallsRunAsTheirTargetNameSays) {
  auto run = [](const std::string& target, const std::string& root) -> std::string {
    auto module =
        ParseOrFail(absl::StrCat(R"(HloModule m, replica_count=2

red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] )",
                                 root, R"((a, b)
}

ENTRY main {
  x = f32[2] parameter(0)
  ROOT ar = f32[2] custom-call(x), custom_call_target=")",
                                 target,
                                 R"(", to_apply=red, backend_config={"replica_groups":[[0,1]]}
}
)"));
    if (module == nullptr) return "unparsed";
    std::vector<std::vector<hopt::Literal>> args(2);
    for (int d = 0; d < 2; ++d) {
      hopt::Literal x(hopt::Shape(hopt::PrimitiveType::F32, {2}));
      x.SetFromDouble(0, 3 + d);
      x.SetFromDouble(1, -1 - d);
      args[d].push_back(x);
    }
    hopt::eval::EvalOptions options;
    options.custom_calls = hopt::testing_util::TestCustomCalls();
    auto out = hopt::eval::RunModule(*module, args, options);
    if (!out.ok()) return std::string(out.status().message());
    return (*out)[0].ToText();
  };
  EXPECT_EQ(run("AwsNeuronAllReduceAdd_f32", "add"), "{7, -3}");
  EXPECT_EQ(run("AwsNeuronAllReduceMax_f32", "maximum"), "{4, -1}");
  EXPECT_EQ(run("AwsNeuronAllReduceUNKNOWNOP_f32", "multiply"), "{12, 2}");
  EXPECT_THAT(run("AwsNeuronAllReduceMax_f32", "add"),
              HasSubstr("the target name says Max (maximum), but to_apply computes add"));
  EXPECT_THAT(run("AwsNeuronAllReduceAdd_s32", "add"),
              HasSubstr("the target name says element type s32, but the result is f32[2]"));
}

}  // namespace
}  // namespace neuron

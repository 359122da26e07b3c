// SPDX-License-Identifier: Apache-2.0
// marker-splitter end to end: the files it writes, the manifest's wiring,
// rematerialised producers, every value crossing once, the stages
// reproducing the module on every mesh, and failures that write nothing.

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/stage_replay.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/parser.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/split_manifest.h"
#include "llvm/Support/FileSystem.h"
#include "markers/marker_semantics.h"
#include "partition/marker_splitter.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloModule;
using ::hopt::split::Manifest;
using ::hopt::split::ValueSource;
using ::hopt::testing_util::MeshShape;

hopt::eval::EvalOptions TestEvalOptions() {
  hopt::eval::EvalOptions options;
  options.custom_calls = hopt::testing_util::TestCustomCalls();
  return options;
}
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::StandardMeshes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Two forward layers (one with, one without boundaryCount, N-operand and
// one-operand markers), the loss between, one backward layer that reads a
// forward activation, collectives inside layers, a cheap constant used in
// several stages and returned.
const char* kTrainingStep = R"(HloModule step, replica_count=2, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[2,4] parameter(0)
  w0 = f32[4,4] parameter(1)
  w1 = f32[4,4] parameter(2)
  c = f32[] constant(0.5)
  cb = f32[2,4] broadcast(c), dimensions={}
  e = f32[2,4] exponential(x)
  s0 = (f32[2,4], f32[4,4]) custom-call(e, w0), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=0"
  h0 = f32[2,4] get-tuple-element(s0), index=0
  k0 = f32[4,4] get-tuple-element(s0), index=1
  d0 = f32[2,4] dot(h0, k0), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r0 = f32[2,4] all-reduce(d0), channel_id=1, replica_groups={}, to_apply=add
  a0 = f32[2,4] tanh(r0)
  m0 = f32[2,4] multiply(a0, cb)
  t0 = f32[2,4] custom-call(m0), custom_call_target="AwsNeuronModuleMarkerEnd-Forward", backend_config="boundaryCount=0"
  s1 = f32[2,4] custom-call(t0), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  w1t = f32[4,4] transpose(w1), dimensions={1,0}
  d1 = f32[2,4] dot(s1, w1t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a1 = f32[2,4] tanh(d1)
  m1 = f32[2,4] add(a1, cb)
  t1 = f32[2,4] custom-call(m1), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  l = f32[2,4] subtract(t1, x)
  sb = (f32[2,4], f32[2,4]) custom-call(l, a0), custom_call_target="AwsNeuronModuleMarkerStart-Backward", backend_config="boundaryCount=0"
  g = f32[2,4] get-tuple-element(sb), index=0
  act = f32[2,4] get-tuple-element(sb), index=1
  gg = f32[2,4] multiply(g, act)
  rg = f32[2,4] all-reduce(gg), replica_groups={}, to_apply=add
  tb = f32[2,4] custom-call(rg), custom_call_target="AwsNeuronModuleMarkerEnd-Backward", backend_config="boundaryCount=0"
  ROOT out = (f32[2,4], f32[2,4], f32[], f32[4,4]) tuple(tb, l, c, w1)
}
)";

class MarkerSplitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddMarkerSemantics(hopt::testing_util::TestRegistrar());
    dir_ = absl::StrCat(::testing::TempDir(), "/split_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }

  absl::StatusOr<bool> Split(HloModule& module, const std::string& dir) {
    MarkerSplitter splitter(MarkerSplitter::Options{dir, /*render_svg=*/false});
    absl::StatusOr<bool> changed = splitter.Run(module);
    // What hopt does once its own output is in place.
    if (absl::Status committed = hopt::CommitDeferredOutputs(); !committed.ok()) return committed;
    return changed;
  }

  Manifest ReadManifest() {
    std::ifstream in(dir_ + "/manifest.json");
    std::stringstream text;
    text << in.rdbuf();
    auto manifest = hopt::split::ParseManifest(text.str());
    EXPECT_TRUE(manifest.ok()) << manifest.status();
    return manifest.ok() ? *manifest : Manifest();
  }

  std::string dir_;
};

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

TEST_F(MarkerSplitterTest, WritesOneModulePerStageAndTheManifest) {
  auto module = ParseOrFail(kTrainingStep);
  ASSERT_NE(module, nullptr);
  auto changed = Split(*module, dir_);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  Manifest manifest = ReadManifest();
  std::vector<std::string> names;
  for (const auto& stage : manifest.stages) names.push_back(stage.name);
  EXPECT_THAT(names, ElementsAre("stage-00-prologue", "stage-01-forward-bc0", "stage-02-forward",
                                 "stage-03-between", "stage-04-backward-bc0"));
  for (const auto& stage : manifest.stages)
    EXPECT_TRUE(Exists(dir_ + "/" + stage.file)) << stage.file;
  EXPECT_TRUE(Exists(dir_ + "/stages.dot"));
  EXPECT_EQ(manifest.module, "step");
  EXPECT_EQ(manifest.replica_count, 2);
  EXPECT_EQ(manifest.num_partitions, 4);
  EXPECT_EQ(manifest.stages[1].start_marker, "s0");
  EXPECT_EQ(manifest.stages[1].end_marker, "t0");
  EXPECT_EQ(manifest.stages[1].boundary_count, 0);
  EXPECT_EQ(manifest.stages[2].boundary_count, std::nullopt);
  EXPECT_EQ(manifest.stages[4].direction, "backward");

  // The backward layer reads the forward activation straight from layer 0.
  const auto& backward = manifest.stages[4];
  bool reads_activation = false;
  for (const auto& parameter : backward.parameters)
    if (parameter.name == "a0") {
      reads_activation = true;
      EXPECT_EQ(parameter.source, ValueSource::StageOutput(1, 1));
    }
  EXPECT_TRUE(reads_activation);
  // The result: two stage outputs, the cheap constant computed by the last
  // stage, and an entry parameter passed through.
  ASSERT_EQ(manifest.result.size(), 4u);
  EXPECT_TRUE(manifest.result_is_tuple);
  EXPECT_EQ(manifest.result[2].kind, ValueSource::Kind::kStageOutput);
  EXPECT_EQ(manifest.result[2].stage, 4);
  EXPECT_EQ(manifest.result[3], ValueSource::EntryParameter(2));
  // The broadcast constant is rebuilt in both forward layers, not passed.
  EXPECT_EQ(manifest.stages[1].rematerialized_count, 2);
  EXPECT_EQ(manifest.stages[2].rematerialized_count, 2);

  // The module keeps no marker in its entry computation.
  for (const auto* instruction : module->entry_computation()->instructions())
    EXPECT_NE(instruction->opcode(), hopt::HloOpcode::kCustomCall) << instruction->name();
}

TEST_F(MarkerSplitterTest, EveryValueCrossesOnceStraightFromItsProducer) {
  auto module = ParseOrFail(kTrainingStep);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(Split(*module, dir_).ok());
  Manifest manifest = ReadManifest();
  int64_t reads = 0;
  for (const auto& stage : manifest.stages)
    for (const auto& parameter : stage.parameters)
      if (parameter.source.kind == ValueSource::Kind::kStageOutput) {
        ++reads;
        const auto& output =
            manifest.stages[parameter.source.stage].outputs[parameter.source.output];
        // Read under its own name, from the stage that computes it.
        EXPECT_EQ(output.name, parameter.name);
        EXPECT_THAT(output.consumers, ::testing::Contains(stage.index));
      }
  int64_t consumers = 0;
  for (const auto& stage : manifest.stages)
    for (const auto& output : stage.outputs) {
      // Each output is listed once per stage: no value goes out twice.
      for (int64_t consumer : output.consumers) consumers += consumer >= 0;
      for (const auto& other : stage.outputs) {
        if (&other != &output) {
          EXPECT_NE(other.name, output.name);
        }
      }
    }
  EXPECT_EQ(reads, consumers);
}

TEST_F(MarkerSplitterTest, StagesReproduceTheModuleOnEveryMesh) {
  auto original = ParseOrFail(kTrainingStep);
  ASSERT_NE(original, nullptr);
  auto module = original->Clone();
  ASSERT_TRUE(Split(*module, dir_).ok());
  Manifest manifest = ReadManifest();
  for (MeshShape mesh : StandardMeshes()) {
    hopt::eval::EvalOptions options;
    options.custom_calls = hopt::testing_util::TestCustomCalls();
    options.replicas = mesh.replicas;
    options.partitions = mesh.partitions;
    for (uint64_t seed : {1, 2}) {
      auto arguments =
          hopt::eval::RandomArguments(*original, mesh.replicas * mesh.partitions, seed);
      std::string report;
      absl::Status same =
          hopt::eval::CheckStagesReproduce(*original, manifest, dir_, arguments, options, &report);
      EXPECT_TRUE(same.ok()) << mesh.replicas << "x" << mesh.partitions << ": " << same;
    }
  }
}

TEST_F(MarkerSplitterTest, ALoopInsideALayerGoesWithItsComputations) {
  auto original = ParseOrFail(R"(HloModule loop, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  r = f32[4] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[4]) tuple(n, r)
}

ENTRY main {
  x = f32[4] parameter(0)
  s0 = f32[4] custom-call(x), custom_call_target="AwsNeuronModuleMarkerStart-Forward"
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, s0)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  out = f32[4] get-tuple-element(w), index=1
  e0 = f32[4] custom-call(out), custom_call_target="AwsNeuronModuleMarkerEnd-Forward"
  ROOT n = f32[4] negate(e0)
}
)");
  ASSERT_NE(original, nullptr);
  auto module = original->Clone();
  auto changed = Split(*module, dir_);
  ASSERT_TRUE(changed.ok()) << changed.status();
  Manifest manifest = ReadManifest();
  ASSERT_EQ(manifest.stages.size(), 2u);
  EXPECT_EQ(manifest.stages[0].kind, "layer");
  std::string report;
  absl::Status same = hopt::eval::CheckStagesReproduce(*original, manifest, dir_,
                                                       hopt::eval::RandomArguments(*original, 2, 1),
                                                       TestEvalOptions(), &report);
  EXPECT_TRUE(same.ok()) << same;
}

TEST_F(MarkerSplitterTest, MalformedMarkersWriteNothing) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  s = f32[4] custom-call(p), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=7"
  ROOT n = f32[4] negate(s)
}
)");
  ASSERT_NE(module, nullptr);
  auto changed = Split(*module, dir_);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.status().message(),
              HasSubstr("NCC_MOD001: Pipeline preprocess-boundary-marker failed to execute. "
                        "Status: INVALID_ARGUMENT: unpaired marker 's'"));
  EXPECT_FALSE(Exists(dir_));
}

TEST_F(MarkerSplitterTest, AModuleWithoutMarkersIsOneStage) {
  auto original = ParseOrFail(R"(HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(original, nullptr);
  auto module = original->Clone();
  auto changed = Split(*module, dir_);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  Manifest manifest = ReadManifest();
  ASSERT_EQ(manifest.stages.size(), 1u);
  EXPECT_EQ(manifest.stages[0].kind, "whole");
  EXPECT_FALSE(manifest.result_is_tuple);
  std::string report;
  EXPECT_TRUE(hopt::eval::CheckStagesReproduce(*original, manifest, dir_,
                                               hopt::eval::RandomArguments(*original, 1, 3),
                                               TestEvalOptions(), &report)
                  .ok());
}

TEST_F(MarkerSplitterTest, NeedsAnOutputDirectory) {
  auto module = ParseOrFail(kTrainingStep);
  ASSERT_NE(module, nullptr);
  auto changed = Split(*module, "");
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(),
            "no output directory: give marker-splitter{output-dir=DIR}");
}

}  // namespace
}  // namespace neuron

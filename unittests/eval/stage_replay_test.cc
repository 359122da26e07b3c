// SPDX-License-Identifier: Apache-2.0
// Stage replay (core/eval/tooling/stage_replay.h): a hand-split module on a 2x2
// mesh, its stages written into a temporary directory, run stage by stage
// and compared with the original.

#include "core/eval/tooling/stage_replay.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/parser.h"
#include "hopt/support/json.h"
#include "hopt/support/split_manifest.h"

namespace hopt {
namespace eval {
namespace {

using split::Manifest;
using split::ValueSource;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// y = x * w; s = all-reduce(y) over all four devices; t = s + y.
// Result (t, s, w).
constexpr char kOriginal[] = R"(
HloModule chain, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  y = f32[4] multiply(x, w)
  s = f32[4] all-reduce(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  t = f32[4] add(s, y)
  ROOT r = (f32[4], f32[4], f32[4]) tuple(t, s, w)
}
)";

constexpr char kStage0[] = R"(
HloModule stage0, replica_count=2, num_partitions=2

ENTRY main {
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  y = f32[4] multiply(x, w)
  ROOT out = (f32[4]) tuple(y)
}
)";

constexpr char kStage1[] = R"(
HloModule stage1, replica_count=2, num_partitions=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  y = f32[4] parameter(0)
  s = f32[4] all-reduce(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT out = (f32[4]) tuple(s)
}
)";

// Reads y from stage 0 too: y must outlive stage 1.
constexpr char kStage2[] = R"(
HloModule stage2, replica_count=2, num_partitions=2

ENTRY main {
  s = f32[4] parameter(0)
  y = f32[4] parameter(1)
  t = f32[4] add(s, y)
  ROOT out = (f32[4]) tuple(t)
}
)";

Manifest ChainManifest() {
  Manifest m;
  m.module = "chain";
  m.replica_count = 2;
  m.num_partitions = 2;
  m.instruction_count = 6;
  m.entry_parameters = {{0, "x", "f32[4]{0}"}, {1, "w", "f32[4]{0}"}};
  split::Stage s0;
  s0.index = 0;
  s0.name = "stage-00-prologue";
  s0.file = "stage-00.hlo";
  s0.kind = "prologue";
  s0.direction = "none";
  s0.parameters = {{0, "x", "f32[4]{0}", ValueSource::EntryParameter(0)},
                   {1, "w", "f32[4]{0}", ValueSource::EntryParameter(1)}};
  s0.outputs = {{0, "y", "f32[4]{0}", {1, 2}}};
  split::Stage s1;
  s1.index = 1;
  s1.name = "stage-01-layer";
  s1.file = "stage-01.hlo";
  s1.kind = "layer";
  s1.direction = "forward";
  s1.boundary_count = 1;
  s1.parameters = {{0, "y", "f32[4]{0}", ValueSource::StageOutput(0, 0)}};
  s1.outputs = {{0, "s", "f32[4]{0}", {2, -1}}};
  split::Stage s2;
  s2.index = 2;
  s2.name = "stage-02-epilogue";
  s2.file = "stage-02.hlo";
  s2.kind = "epilogue";
  s2.direction = "none";
  s2.parameters = {{0, "s", "f32[4]{0}", ValueSource::StageOutput(1, 0)},
                   {1, "y", "f32[4]{0}", ValueSource::StageOutput(0, 0)}};
  s2.outputs = {{0, "t", "f32[4]{0}", {-1}}};
  m.stages = {s0, s1, s2};
  m.result_shape = "(f32[4]{0}, f32[4]{0}, f32[4]{0})";
  m.result_is_tuple = true;
  m.result = {ValueSource::StageOutput(2, 0), ValueSource::StageOutput(1, 0),
              ValueSource::EntryParameter(1)};
  return m;
}

Literal Vector(std::vector<double> values) {
  Literal literal(Shape(PrimitiveType::F32, {static_cast<int64_t>(values.size())}));
  for (size_t k = 0; k < values.size(); ++k)
    literal.SetFromDouble(static_cast<int64_t>(k), values[k]);
  return literal;
}

class StageReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "stage_replay_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Write("stage-00.hlo", kStage0);
    Write("stage-01.hlo", kStage1);
    Write("stage-02.hlo", kStage2);
    manifest_ = ChainManifest();
    auto original = ParseHloModule(kOriginal, "chain.hlo");
    ASSERT_TRUE(original.ok()) << original.status();
    original_ = *std::move(original);
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }

  void Write(const std::string& file, absl::string_view text) {
    std::ofstream out(dir_ + "/" + file);
    out << text;
    ASSERT_TRUE(out.good());
  }
  std::string Path(const std::string& file) const { return dir_ + "/" + file; }

  std::string dir_;
  Manifest manifest_;
  std::unique_ptr<HloModule> original_;
};

TEST_F(StageReplayTest, StagesReproduceTheModuleOnEveryDevice) {
  for (uint64_t seed : {1, 7, 42}) {
    auto arguments = RandomArguments(*original_, 4, seed);
    auto expected = RunModule(*original_, arguments);
    ASSERT_TRUE(expected.ok()) << expected.status();
    auto actual = RunStages(manifest_, dir_, arguments);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_EQ(actual->size(), 4u);
    for (int d = 0; d < 4; ++d) {
      std::string difference;
      EXPECT_TRUE(BitwiseEqual((*expected)[d], (*actual)[d], &difference))
          << "device " << d << ": " << difference;
      // hlo-run prints both the same way.
      EXPECT_EQ((*expected)[d].shape().ToString(), (*actual)[d].shape().ToString());
      EXPECT_EQ((*expected)[d].ToText(), (*actual)[d].ToText());
    }
  }
}

TEST_F(StageReplayTest, AssemblesTheTupleResult) {
  // Device d: x = d + 1, w = 2, so y = 2(d + 1), s = 2 * (1 + 2 + 3 + 4) = 20
  // everywhere and t = 20 + 2(d + 1).
  std::vector<std::vector<Literal>> arguments;
  for (int d = 0; d < 4; ++d)
    arguments.push_back({Vector({d + 1.0, d + 1.0, d + 1.0, d + 1.0}), Vector({2, 2, 2, 2})});
  auto results = RunStages(manifest_, dir_, arguments);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int d = 0; d < 4; ++d) {
    const Literal& result = (*results)[d];
    ASSERT_TRUE(result.shape().IsTuple());
    ASSERT_EQ(result.tuple_elements().size(), 3u);
    double t = 20 + 2 * (d + 1);
    EXPECT_TRUE(result.tuple_elements()[0] == Vector({t, t, t, t})) << result.ToText();
    EXPECT_TRUE(result.tuple_elements()[1] == Vector({20, 20, 20, 20})) << result.ToText();
    EXPECT_TRUE(result.tuple_elements()[2] == Vector({2, 2, 2, 2})) << result.ToText();
  }
  EXPECT_EQ((*results)[3].shape().ToString(), "(f32[4]{0}, f32[4]{0}, f32[4]{0})");
}

TEST_F(StageReplayTest, NonTupleResultIsTheValueItself) {
  manifest_.result_shape = "f32[4]{0}";
  manifest_.result_is_tuple = false;
  manifest_.result = {ValueSource::StageOutput(1, 0)};
  auto arguments = RandomArguments(*original_, 4, 3);
  auto results = RunStages(manifest_, dir_, arguments);
  ASSERT_TRUE(results.ok()) << results.status();
  auto expected = RunModule(*original_, arguments);
  ASSERT_TRUE(expected.ok());
  for (int d = 0; d < 4; ++d) EXPECT_TRUE((*results)[d] == (*expected)[d].tuple_elements()[1]);
}

TEST_F(StageReplayTest, ReadsTheManifestFromItsFile) {
  Write("manifest.json", json::WritePretty(split::ToJson(manifest_)));
  auto manifest = split::ReadManifestFile(Path("manifest.json"));
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  std::string report;
  absl::Status same = CheckStagesReproduce(*original_, *manifest, dir_,
                                           RandomArguments(*original_, 4, 5), {}, &report);
  ASSERT_TRUE(same.ok()) << same;
  EXPECT_EQ(report, "3 stage(s) reproduce the outputs of 'chain' on 4 device(s)");
}

TEST_F(StageReplayTest, RandomArgumentsFromTheManifestEqualTheModules) {
  std::vector<Shape> shapes;
  for (const split::EntryParameter& parameter : manifest_.entry_parameters) {
    auto shape = ParseShape(parameter.shape);
    ASSERT_TRUE(shape.ok());
    shapes.push_back(*shape);
  }
  for (uint64_t seed : {1, 2, 99}) {
    auto from_module = RandomArguments(*original_, 4, seed);
    auto from_shapes = RandomArgumentsForShapes(shapes, 4, seed);
    ASSERT_EQ(from_module.size(), from_shapes.size());
    for (size_t d = 0; d < from_module.size(); ++d) {
      ASSERT_EQ(from_module[d].size(), 2u);
      ASSERT_EQ(from_shapes[d].size(), 2u);
      for (size_t k = 0; k < 2; ++k)
        EXPECT_TRUE(from_module[d][k] == from_shapes[d][k])
            << "seed " << seed << " device " << d << " argument " << k << ": "
            << from_module[d][k].ToText() << " vs " << from_shapes[d][k].ToText();
    }
  }
  // And they are random: devices and seeds differ.
  auto a = RandomArgumentsForShapes(shapes, 4, 1);
  auto b = RandomArgumentsForShapes(shapes, 4, 2);
  EXPECT_FALSE(a[0][0] == b[0][0] && a[1][0] == b[1][0] && a[2][0] == b[2][0]);
}

TEST_F(StageReplayTest, CheckNamesDeviceAndElementOfAWrongStage) {
  // Stage 2 multiplies instead of adding. With y = x on every device
  // (w = 1): elements 0 and 1 are 0 everywhere (0 + 0 = 0 * 0); elements 2
  // and 3 are 2 on devices 0-2 and -4 on device 3, so s = 2 and
  // 2 + 2 = 2 * 2 on devices 0-2; only device 3 differs: 2 + -4 = -2, but
  // 2 * -4 = -8.
  Write("stage-02.hlo", absl::StrReplaceAll(kStage2, {{"add(s, y)", "multiply(s, y)"}}));
  std::vector<std::vector<Literal>> arguments;
  for (int d = 0; d < 4; ++d) {
    double v = d == 3 ? -4 : 2;
    arguments.push_back({Vector({0, 0, v, v}), Vector({1, 1, 1, 1})});
  }
  std::string report;
  absl::Status same = CheckStagesReproduce(*original_, manifest_, dir_, arguments, {}, &report);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.message(),
            "device 3 (replica 1, partition 1): result tuple element 0 ('t', stage 2 output 0): "
            "element 2: -2 vs -8 (original vs stages)");
  // Random inputs find it too.
  same = CheckStagesReproduce(*original_, manifest_, dir_, RandomArguments(*original_, 4, 1), {},
                              &report);
  ASSERT_FALSE(same.ok());
  EXPECT_THAT(std::string(same.message()),
              StartsWith("device 0 (replica 0, partition 0): result tuple "
                         "element 0 ('t', stage 2 output 0): element "));
}

TEST_F(StageReplayTest, CheckNamesANonTupleResult) {
  manifest_.result_shape = "f32[4]{0}";
  manifest_.result_is_tuple = false;
  manifest_.result = {ValueSource::StageOutput(2, 0)};
  std::string original = absl::StrReplaceAll(
      kOriginal, {{"ROOT r = (f32[4], f32[4], f32[4]) tuple(t, s, w)", "ROOT r = f32[4] copy(t)"}});
  auto module = ParseHloModule(original, "chain.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string report;
  ASSERT_TRUE(
      CheckStagesReproduce(**module, manifest_, dir_, RandomArguments(**module, 4, 1), {}, &report)
          .ok());
  Write("stage-02.hlo", absl::StrReplaceAll(kStage2, {{"add(s, y)", "subtract(s, y)"}}));
  absl::Status same =
      CheckStagesReproduce(**module, manifest_, dir_, RandomArguments(**module, 4, 1), {}, &report);
  ASSERT_FALSE(same.ok());
  EXPECT_THAT(std::string(same.message()),
              StartsWith("device 0 (replica 0, partition 0): the result ('t', "
                         "stage 2 output 0): element "));
  EXPECT_THAT(std::string(same.message()), HasSubstr("(original vs stages)"));
}

TEST_F(StageReplayTest, CheckRefusesAManifestOfAnotherModule) {
  std::string report;
  auto arguments = RandomArguments(*original_, 4, 1);
  Manifest wrong = manifest_;
  wrong.entry_parameters[1].shape = "f32[8]{0}";
  // (Not a valid split of anything: the stage parameter reading it says
  // f32[4]; the module check comes first.)
  absl::Status status = CheckStagesReproduce(*original_, wrong, dir_, arguments, {}, &report);
  EXPECT_EQ(status.message(),
            "the manifest's entry parameter 1 is f32[8]{0}, in module 'chain' it is f32[4]{0}");
  wrong = manifest_;
  wrong.entry_parameters.pop_back();
  status = CheckStagesReproduce(*original_, wrong, dir_, arguments, {}, &report);
  EXPECT_EQ(status.message(), "the manifest lists 1 entry parameter(s), module 'chain' takes 2");
  wrong = manifest_;
  wrong.replica_count = 4;
  wrong.num_partitions = 1;
  status = CheckStagesReproduce(*original_, wrong, dir_, arguments, {}, &report);
  EXPECT_EQ(status.message(),
            "the manifest says replica_count=4, num_partitions=1, module 'chain' has "
            "replica_count=2, num_partitions=2");
  wrong = manifest_;
  wrong.result_shape = "(f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0})";
  wrong.result.push_back(ValueSource::EntryParameter(0));
  status = CheckStagesReproduce(*original_, wrong, dir_, arguments, {}, &report);
  EXPECT_EQ(status.message(),
            "the manifest's result is (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}), module "
            "'chain' returns (f32[4]{0}, f32[4]{0}, f32[4]{0})");
}

// A broken split: each case rewrites one stage file and expects RunStages
// to fail naming the stage and its file.
TEST_F(StageReplayTest, StageParameterShapeMismatch) {
  Write("stage-01.hlo", absl::StrReplaceAll(kStage1, {{"f32[4]", "f32[8]"}}));
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 1: ", Path("stage-01.hlo"),
                         ": parameter 0 ('y') is f32[8]{0}, the manifest says f32[4]{0}"));
}

TEST_F(StageReplayTest, StageOutputShapeMismatch) {
  Write("stage-00.hlo",
        absl::StrReplaceAll(kStage0, {{"ROOT out = (f32[4]) tuple(y)",
                                       "c = s32[] constant(1)\n  ROOT out = (s32[]) tuple(c)"}}));
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 0: ", Path("stage-00.hlo"),
                         ": output 0 ('c') is s32[], the manifest says f32[4]{0}"));
}

TEST_F(StageReplayTest, MissingStageFile) {
  ASSERT_EQ(unlink(Path("stage-02.hlo").c_str()), 0);
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(), absl::StrCat("stage 2: cannot open '", Path("stage-02.hlo"),
                                                     "': No such file or directory"));
}

TEST_F(StageReplayTest, StageRootNotATuple) {
  Write("stage-01.hlo", absl::StrReplaceAll(kStage1, {{"  ROOT out = (f32[4]) tuple(s)\n", ""},
                                                      {"  s = f32[4]", "  ROOT s = f32[4]"}}));
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 1: ", Path("stage-01.hlo"),
                         ": the entry computation's root 's' is not a tuple (a stage returns "
                         "the tuple of its outputs)"));
}

TEST_F(StageReplayTest, StageOutputCountMismatch) {
  Write("stage-02.hlo",
        absl::StrReplaceAll(kStage2, {{"ROOT out = (f32[4]) tuple(t)",
                                       "ROOT out = (f32[4], f32[4]) tuple(t, s)"}}));
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 2: ", Path("stage-02.hlo"),
                         ": the root tuple has 2 element(s), the manifest lists 1 output(s)"));
}

TEST_F(StageReplayTest, StageParameterCountMismatch) {
  manifest_.stages[2].parameters.pop_back();
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 2: ", Path("stage-02.hlo"),
                         ": the entry computation takes 2 parameter(s), the manifest lists 1"));
}

TEST_F(StageReplayTest, StageMeshMismatch) {
  Write("stage-01.hlo",
        absl::StrReplaceAll(kStage1, {{"replica_count=2, num_partitions=2", "replica_count=4"}}));
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            absl::StrCat("stage 1: ", Path("stage-01.hlo"),
                         ": replica_count=4, num_partitions=1, the manifest says "
                         "replica_count=2, num_partitions=2"));
}

TEST_F(StageReplayTest, StageParseAndVerifierErrorsNameTheFile) {
  Write("stage-00.hlo", "HloModule broken\n\nENTRY main {\n  ROOT x = f32[4] parameter(\n}\n");
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()),
              StartsWith("stage 0: " + Path("stage-00.hlo") + ":5:"));
  Write("stage-00.hlo", absl::StrReplaceAll(kStage0, {{"f32[4] multiply", "f32[8] multiply"}}));
  results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()),
              StartsWith("stage 0: " + Path("stage-00.hlo") + ": verifier: "));
}

TEST_F(StageReplayTest, StageRuntimeErrorsNameTheFile) {
  Write("stage-02.hlo",
        absl::StrReplaceAll(
            kStage2, {{"add(s, y)", "custom-call(s, y), custom_call_target=\"NoSuchTarget\""}}));
  // Refused: by default it would run as an opaque function.
  EvalOptions options;
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1), options);
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()),
              StartsWith("stage 2: " + Path("stage-02.hlo") + ": device "));
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("NoSuchTarget"));
}

TEST_F(StageReplayTest, ArgumentsMustFitTheManifest) {
  auto arguments = RandomArguments(*original_, 4, 1);
  arguments.pop_back();
  auto results = RunStages(manifest_, dir_, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(), "stages: arguments for 3 devices, the mesh has 4");
  arguments = RandomArguments(*original_, 4, 1);
  arguments[2][1] = Vector({1, 2});
  results = RunStages(manifest_, dir_, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "stages: device 2 argument 1 has shape f32[2]{0}, parameter w is f32[4]{0}");
  arguments = RandomArguments(*original_, 4, 1);
  arguments[0].pop_back();
  results = RunStages(manifest_, dir_, arguments);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "stages: the original entry computation takes 2 arguments, got 1 on device 0");
}

TEST_F(StageReplayTest, InvalidInMemoryManifestIsRefused) {
  manifest_.stages[0].file = "../stage-00.hlo";
  auto results = RunStages(manifest_, dir_, RandomArguments(*original_, 4, 1));
  ASSERT_FALSE(results.ok());
  EXPECT_THAT(std::string(results.status().message()), HasSubstr("manifest: stages[0].file: "));
}

TEST(StageFilePathTest, JoinsDirectoryAndFile) {
  EXPECT_EQ(StageFilePath("", "a.hlo"), "a.hlo");
  EXPECT_EQ(StageFilePath("dir", "a.hlo"), "dir/a.hlo");
  EXPECT_EQ(StageFilePath("dir/", "a.hlo"), "dir/a.hlo");
  EXPECT_EQ(StageFilePath("/", "a.hlo"), "/a.hlo");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

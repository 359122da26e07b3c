// SPDX-License-Identifier: Apache-2.0
// The split manifest's JSON form (include/hopt/support/split_manifest.h): the exact
// layout, the round trip, and one test per validation rule, each checking
// the field path the error names.

#include "hopt/support/split_manifest.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/support/json.h"

namespace hopt {
namespace split {
namespace {

using ::testing::HasSubstr;

// Two stages: stage 0 reads both entry parameters, stage 1 reads an output
// of stage 0; the result is (stage 1 output 0, entry parameter 0).
Manifest TwoStages() {
  Manifest m;
  m.module = "m";
  m.replica_count = 2;
  m.num_partitions = 4;
  m.instruction_count = 123;
  m.entry_parameters = {{0, "p0", "f32[4]{0}"}, {1, "p1", "f32[]"}};
  Stage s0;
  s0.index = 0;
  s0.name = "stage-00-prologue";
  s0.file = "stage-00-prologue.hlo";
  s0.kind = "prologue";
  s0.direction = "none";
  s0.instruction_count = 12;
  s0.parameters = {{0, "p0", "f32[4]{0}", ValueSource::EntryParameter(0)},
                   {1, "p1", "f32[]", ValueSource::EntryParameter(1)}};
  s0.outputs = {{0, "add.3", "f32[4]{0}", {1}}, {1, "c", "s32[2,3]{1,0}", {}}};
  Stage s1;
  s1.index = 1;
  s1.name = "stage-01-forward-bc2";
  s1.file = "stage-01-forward-bc2.hlo";
  s1.kind = "layer";
  s1.direction = "forward";
  s1.boundary_count = 2;
  s1.start_marker = "ms";
  s1.end_marker = "me";
  s1.instruction_count = 5;
  s1.rematerialized_count = 1;
  s1.parameters = {{0, "add.3", "f32[4]{0}", ValueSource::StageOutput(0, 0)}};
  s1.outputs = {{0, "mul", "f32[4]{0}", {-1}}};
  m.stages = {s0, s1};
  m.result_shape = "(f32[4]{0}, f32[4]{0})";
  m.result_is_tuple = true;
  m.result = {ValueSource::StageOutput(1, 0), ValueSource::EntryParameter(0)};
  return m;
}

constexpr char kTwoStagesJson[] =
    R"({"format":"hopt-split-manifest","version":1,"module":"m","replica_count":2,)"
    R"("num_partitions":4,"instruction_count":123,"entry_parameters":[)"
    R"({"number":0,"name":"p0","shape":"f32[4]{0}"},{"number":1,"name":"p1","shape":"f32[]"}],)"
    R"("stages":[{"index":0,"name":"stage-00-prologue","file":"stage-00-prologue.hlo",)"
    R"("kind":"prologue","direction":"none","boundary_count":null,"start_marker":"",)"
    R"("end_marker":"","instruction_count":12,"rematerialized_count":0,"parameters":[)"
    R"({"number":0,"name":"p0","shape":"f32[4]{0}","source":{"entry_parameter":0}},)"
    R"({"number":1,"name":"p1","shape":"f32[]","source":{"entry_parameter":1}}],)"
    R"("outputs":[{"index":0,"name":"add.3","shape":"f32[4]{0}","consumers":[1]},)"
    R"({"index":1,"name":"c","shape":"s32[2,3]{1,0}","consumers":[]}]},)"
    R"({"index":1,"name":"stage-01-forward-bc2","file":"stage-01-forward-bc2.hlo",)"
    R"("kind":"layer","direction":"forward","boundary_count":2,"start_marker":"ms",)"
    R"("end_marker":"me","instruction_count":5,"rematerialized_count":1,"parameters":[)"
    R"({"number":0,"name":"add.3","shape":"f32[4]{0}","source":{"stage":0,"output":0}}],)"
    R"("outputs":[{"index":0,"name":"mul","shape":"f32[4]{0}","consumers":[-1]}]}],)"
    R"j("result":{"shape":"(f32[4]{0}, f32[4]{0})","tuple":true,"values":[)j"
    R"({"stage":1,"output":0},{"entry_parameter":0}]}})";

TEST(SplitManifestTest, ToJsonWritesTheDocumentedLayout) {
  EXPECT_EQ(json::Write(ToJson(TwoStages())), kTwoStagesJson);
}

void ExpectSameManifest(const Manifest& a, const Manifest& b) {
  // ToJson covers every field, so equal JSON means equal manifests.
  EXPECT_EQ(json::Write(ToJson(a)), json::Write(ToJson(b)));
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t s = 0; s < a.stages.size(); ++s) {
    EXPECT_EQ(a.stages[s].boundary_count, b.stages[s].boundary_count);
    ASSERT_EQ(a.stages[s].parameters.size(), b.stages[s].parameters.size());
    for (size_t k = 0; k < a.stages[s].parameters.size(); ++k)
      EXPECT_TRUE(a.stages[s].parameters[k].source == b.stages[s].parameters[k].source);
  }
}

TEST(SplitManifestTest, RoundTripsThroughCompactAndPrettyJson) {
  Manifest original = TwoStages();
  for (const std::string& text :
       {json::Write(ToJson(original)), json::WritePretty(ToJson(original))}) {
    auto parsed = ParseManifest(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ExpectSameManifest(original, *parsed);
    EXPECT_EQ(parsed->stages[1].boundary_count, 2);
    EXPECT_FALSE(parsed->stages[0].boundary_count.has_value());
    EXPECT_EQ(parsed->stages[0].outputs[0].consumers, std::vector<int64_t>{1});
    EXPECT_TRUE(parsed->result[0] == ValueSource::StageOutput(1, 0));
    EXPECT_TRUE(parsed->result[1] == ValueSource::EntryParameter(0));
  }
  EXPECT_TRUE(ValidateManifest(original).ok());
}

TEST(SplitManifestTest, NonTupleResultAndEmptyStagesRoundTrip) {
  Manifest m;
  m.module = "single";
  m.entry_parameters = {{0, "x", "f32[2]"}};
  m.result_shape = "f32[2]";
  m.result = {ValueSource::EntryParameter(0)};
  auto parsed = ParseManifest(json::Write(ToJson(m)));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ExpectSameManifest(m, *parsed);
  EXPECT_FALSE(parsed->result_is_tuple);
}

TEST(SplitManifestTest, ShapesWithoutLayoutMatchTheDefaultLayout) {
  Manifest m = TwoStages();
  m.stages[1].parameters[0].shape = "f32[4]";
  m.result_shape = "(f32[4], f32[4])";
  EXPECT_TRUE(ValidateManifest(m).ok());
}

TEST(SplitManifestTest, ValueSourceEquality) {
  EXPECT_TRUE(ValueSource::EntryParameter(2) == ValueSource::EntryParameter(2));
  EXPECT_FALSE(ValueSource::EntryParameter(2) == ValueSource::EntryParameter(3));
  EXPECT_TRUE(ValueSource::StageOutput(1, 2) == ValueSource::StageOutput(1, 2));
  EXPECT_FALSE(ValueSource::StageOutput(1, 2) == ValueSource::StageOutput(1, 3));
  EXPECT_FALSE(ValueSource::StageOutput(0, 0) == ValueSource::EntryParameter(0));
  EXPECT_EQ(DescribeSource(ValueSource::StageOutput(1, 2)), "stage 1 output 2");
  EXPECT_EQ(DescribeSource(ValueSource::EntryParameter(3)), "entry parameter 3");
}

TEST(SplitManifestTest, PlainFileNames) {
  EXPECT_TRUE(IsPlainFileName("stage-00-prologue.hlo"));
  EXPECT_TRUE(IsPlainFileName("s.hlo"));
  for (const char* bad :
       {"", "/etc/passwd", "a/b.hlo", "..", "../x.hlo", "x..hlo", ".", "a\\b.hlo"})
    EXPECT_FALSE(IsPlainFileName(bad)) << bad;
  EXPECT_FALSE(IsPlainFileName(absl::string_view("a\0b", 3)));
}

// The text of TwoStages() with one substitution; the test fails if the
// pattern is not there (so a changed layout cannot make a test vacuous).
std::string Mutated(absl::string_view from, absl::string_view to) {
  std::string text = kTwoStagesJson;
  EXPECT_NE(text.find(std::string(from)), std::string::npos) << from;
  return absl::StrReplaceAll(text, {{from, to}});
}

struct BadCase {
  const char* from;
  const char* to;
  const char* error;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.from << " -> " << c.to; }

class ManifestErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ManifestErrorTest, NamesTheField) {
  const BadCase& c = GetParam();
  auto parsed = ParseManifest(Mutated(c.from, c.to));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(std::string(parsed.status().message()), c.error);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ManifestErrorTest,
    ::testing::Values(
        BadCase{R"("format":"hopt-split-manifest")", R"("format":"other")",
                "manifest: format: expected 'hopt-split-manifest', got 'other'"},
        BadCase{R"("version":1)", R"("version":2)",
                "manifest: version: unsupported version 2 (this reader knows version 1)"},
        BadCase{R"("version":1)", R"("version":"1")",
                "manifest: version: expected an integer, got a string"},
        BadCase{R"("module":"m",)", "", "manifest: missing member 'module'"},
        BadCase{R"("replica_count":2)", R"("replica_count":0)",
                "manifest: replica_count: must be at least 1, got 0"},
        BadCase{R"("num_partitions":4)", R"("num_partitions":-1)",
                "manifest: num_partitions: must be at least 1, got -1"},
        BadCase{R"("instruction_count":123)", R"("instruction_count":1.5)",
                "manifest: instruction_count: expected an integer, got a number"},
        BadCase{R"({"number":1,"name":"p1","shape":"f32[]"})",
                R"({"number":2,"name":"p1","shape":"f32[]"})",
                "manifest: entry_parameters[1].number: expected 1, got 2"},
        BadCase{R"({"number":1,"name":"p1","shape":"f32[]"})",
                R"({"number":1,"name":"p1","shape":"f32["})",
                "manifest: entry_parameters[1].shape: cannot parse 'f32[': "
                "column 5: expected a dimension size"},
        BadCase{R"({"number":1,"name":"p1","shape":"f32[]"})", "[]",
                "manifest: entry_parameters[1]: expected an object, got an array"},
        BadCase{R"({"index":1,"name":"stage-01)", R"({"index":3,"name":"stage-01)",
                "manifest: stages[1].index: expected 1, got 3"},
        BadCase{R"("file":"stage-01-forward-bc2.hlo")", R"("file":"../stage.hlo")",
                "manifest: stages[1].file: '../stage.hlo' is not a plain file name (no '/', "
                "no '..', not empty)"},
        BadCase{R"("file":"stage-01-forward-bc2.hlo")", R"("file":"/tmp/stage.hlo")",
                "manifest: stages[1].file: '/tmp/stage.hlo' is not a plain file name (no '/', "
                "no '..', not empty)"},
        BadCase{R"("file":"stage-01-forward-bc2.hlo")", R"("file":"")",
                "manifest: stages[1].file: '' is not a plain file name (no '/', no '..', not "
                "empty)"},
        BadCase{R"("file":"stage-01-forward-bc2.hlo")", R"("file":"stage-00-prologue.hlo")",
                "manifest: stages[1].file: 'stage-00-prologue.hlo' is also the file of stage 0"},
        BadCase{R"("kind":"layer")", R"("kind":"middle")",
                "manifest: stages[1].kind: 'middle' is not one of prologue, layer, between, "
                "epilogue, whole"},
        BadCase{R"("direction":"forward")", R"("direction":"sideways")",
                "manifest: stages[1].direction: 'sideways' is not one of forward, backward, "
                "none"},
        BadCase{R"("boundary_count":2)", R"("boundary_count":"2")",
                "manifest: stages[1].boundary_count: expected an integer or null, got a string"},
        BadCase{R"("boundary_count":null,)", "",
                "manifest: stages[0]: missing member 'boundary_count'"},
        BadCase{R"("rematerialized_count":1)", R"("rematerialized_count":-2)",
                "manifest: stages[1].rematerialized_count: must be at least 0, got -2"},
        BadCase{R"({"number":1,"name":"p1","shape":"f32[]","source")",
                R"({"number":0,"name":"p1","shape":"f32[]","source")",
                "manifest: stages[0].parameters[1].number: expected 1, got 0"},
        BadCase{R"("source":{"entry_parameter":1})", R"("source":{"entry_parameter":2})",
                "manifest: stages[0].parameters[1].source: entry parameter 2 does not exist "
                "(the module has 2)"},
        BadCase{R"("source":{"stage":0,"output":0})", R"("source":{"stage":1,"output":0})",
                "manifest: stages[1].parameters[0].source: stage 1 is not before stage 1"},
        BadCase{R"("source":{"stage":0,"output":0})", R"("source":{"stage":5,"output":0})",
                "manifest: stages[1].parameters[0].source: stage 5 does not exist (the "
                "manifest has 2 stage(s))"},
        BadCase{R"("source":{"stage":0,"output":0})", R"("source":{"stage":0,"output":2})",
                "manifest: stages[1].parameters[0].source: stage 0 has no output 2 (it has 2)"},
        BadCase{R"("source":{"stage":0,"output":0})", R"("source":{"stage":0})",
                "manifest: stages[1].parameters[0].source: missing member 'output'"},
        BadCase{R"("source":{"stage":0,"output":0})",
                R"("source":{"stage":0,"output":0,"entry_parameter":0})",
                "manifest: stages[1].parameters[0].source: expected {\"entry_parameter\":N} or "
                "{\"stage\":S,\"output\":K}"},
        BadCase{R"("shape":"f32[4]{0}","source":{"stage":0,"output":0})",
                R"("shape":"f32[4]{0}","source":{"stage":0,"output":1})",
                "manifest: stages[1].parameters[0].shape: f32[4]{0} is not the shape of its "
                "source, stage 0 output 1 (s32[2,3]{1,0})"},
        BadCase{R"({"number":1,"name":"p1","shape":"f32[]","source")",
                R"({"number":1,"name":"p1","shape":"f32[1]","source")",
                "manifest: stages[0].parameters[1].shape: f32[1] is not the shape of its "
                "source, entry parameter 1 (f32[])"},
        BadCase{R"({"index":1,"name":"c")", R"({"index":0,"name":"c")",
                "manifest: stages[0].outputs[1].index: expected 1, got 0"},
        BadCase{R"("consumers":[1])", R"("consumers":[0])",
                "manifest: stages[0].outputs[0].consumers[0]: 0 is neither a later stage nor -1 "
                "(the module's result)"},
        BadCase{R"("consumers":[1])", R"("consumers":[1,2])",
                "manifest: stages[0].outputs[0].consumers[1]: 2 is neither a later stage nor "
                "-1 (the module's result)"},
        BadCase{R"("consumers":[1])", R"("consumers":["1"])",
                "manifest: stages[0].outputs[0].consumers[0]: expected an integer, got a "
                "string"},
        BadCase{R"j("shape":"(f32[4]{0}, f32[4]{0})","tuple":true)j",
                R"("shape":"f32[4]{0}","tuple":true)",
                "manifest: result.shape: 'f32[4]{0}' is not a tuple shape, but 'tuple' is true"},
        BadCase{R"("tuple":true)", R"("tuple":false)",
                "manifest: result.values: a non-tuple result has exactly 1 value, got 2"},
        BadCase{R"("tuple":true)", R"("tuple":1)",
                "manifest: result.tuple: expected a boolean, got an integer"},
        BadCase{R"j("shape":"(f32[4]{0}, f32[4]{0})")j", R"j("shape":"(f32[4]{0})")j",
                "manifest: result.values: the result has 1 tuple element(s), got 2 value(s)"},
        BadCase{R"({"stage":1,"output":0},{"entry_parameter":0}]})",
                R"({"stage":2,"output":0},{"entry_parameter":0}]})",
                "manifest: result.values[0]: stage 2 does not exist (the manifest has 2 "
                "stage(s))"},
        BadCase{R"({"stage":1,"output":0},{"entry_parameter":0}]})",
                R"({"stage":1,"output":0},{"entry_parameter":1}]})",
                "manifest: result.values[1]: entry parameter 1 has shape f32[], the result "
                "element is f32[4]{0}"},
        BadCase{R"("result":{)", R"("result":[],"x":{)",
                "manifest: result: expected an object, got an array"}));

TEST(SplitManifestTest, JsonSyntaxErrorsAndNonObjects) {
  auto bad = ParseManifest(R"({"format":)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("manifest: JSON: offset"));
  auto array = ParseManifest("[]");
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().message(), "manifest: expected an object, got an array");
}

TEST(SplitManifestTest, ValidateManifestChecksInMemoryManifests) {
  Manifest m = TwoStages();
  m.stages[1].parameters[0].source = ValueSource::StageOutput(1, 0);
  absl::Status status = ValidateManifest(m);
  EXPECT_EQ(status.message(),
            "manifest: stages[1].parameters[0].source: stage 1 is not before stage 1");
}

TEST(SplitManifestTest, ReadManifestFileNamesTheFile) {
  auto missing = ReadManifestFile("/nonexistent/dir/manifest.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot open '/nonexistent/dir/manifest.json'"));
}

}  // namespace
}  // namespace split
}  // namespace hopt

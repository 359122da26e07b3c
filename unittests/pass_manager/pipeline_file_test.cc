// SPDX-License-Identifier: Apache-2.0
// Pipeline files (core/pass_manager/pipeline_file.h): a named pipeline
// defined beside the plugins whose passes it names, registered when one of
// them is loaded.

#include "core/pass_manager/pipeline_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;

TEST(PipelineFileTest, ParsesKeysAndJoinsPassLines) {
  auto pipeline = ParsePipelineFile(
      "# a comment\n"
      "name: mine\n"
      "description: what it does\n"
      "plugins: liba.so  libb.so\n"
      "passes: a,b{k=v},\n"
      "  passes: c\n",
      "/d/mine.pipeline");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ(pipeline->name, "mine");
  EXPECT_EQ(pipeline->description, "what it does");
  EXPECT_THAT(pipeline->plugins, ElementsAre("liba.so", "libb.so"));
  EXPECT_EQ(pipeline->text, "a,b{k=v},c");
  EXPECT_EQ(pipeline->plugin, kPipelineFileProvider);
  EXPECT_EQ(pipeline->plugin_version, "/d/mine.pipeline");
}

TEST(PipelineFileTest, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(ParsePipelineFile("name: x\nsteps: a\n", "f.pipeline").status().message(),
            "f.pipeline:2: unknown key 'steps' (keys: name, description, plugins, passes)");
  EXPECT_EQ(ParsePipelineFile("name x\n", "f.pipeline").status().message(),
            "f.pipeline:1: expected 'key: value'");
  EXPECT_EQ(ParsePipelineFile("name: x\nplugins: a.so\n", "f.pipeline").status().message(),
            "f.pipeline: no 'passes:' line");
}

class PipelineDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/hopt-pipeline-file-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const char* name : {"both.pipeline", "other.pipeline", "notes.txt"})
      unlink(absl::StrCat(dir_, "/", name).c_str());
    rmdir(dir_.c_str());
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(absl::StrCat(dir_, "/", name)) << text;
  }
  std::string dir_;
};

TEST_F(PipelineDirTest, RegisteredOnceForAnyPluginItNames) {
  Write("both.pipeline", "name: both\nplugins: liba.so libb.so\npasses: a,b\n");
  Write("other.pipeline", "name: other\nplugins: libc.so\npasses: c\n");
  Write("notes.txt", "not a pipeline");
  PassRegistry registry;
  ASSERT_TRUE(RegisterPipelineFilesFor(absl::StrCat(dir_, "/liba.so"), registry).ok());
  // libb.so names it too: the same file is not registered twice.
  ASSERT_TRUE(RegisterPipelineFilesFor(absl::StrCat(dir_, "/libb.so"), registry).ok());
  ASSERT_EQ(registry.Pipelines().size(), 1u);
  const NamedPipeline* both = registry.FindPipeline("both");
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->text, "a,b");
  EXPECT_EQ(both->plugin, kPipelineFileProvider);
  EXPECT_EQ(both->plugin_version, absl::StrCat(dir_, "/both.pipeline"));
  // A pipeline of the same name from a plugin clashes like two plugins'.
  PassRegistry clash;
  clash.BeginPlugin("libz", "1");
  ASSERT_TRUE(clash.RegisterPipeline({"both", "z", "", {}, "", ""}).ok());
  ASSERT_TRUE(clash.EndPlugin().ok());
  absl::Status status = RegisterPipelineFilesFor(absl::StrCat(dir_, "/liba.so"), clash);
  EXPECT_THAT(std::string(status.message()),
              ::testing::HasSubstr("pipeline 'both' is registered by both 'libz' 1 and"));
}

TEST_F(PipelineDirTest, AMalformedFileIsAnError) {
  Write("both.pipeline", "name: both\nplugins liba.so\n");
  PassRegistry registry;
  absl::Status status = RegisterPipelineFilesFor(absl::StrCat(dir_, "/liba.so"), registry);
  EXPECT_EQ(status.message(), absl::StrCat(dir_, "/both.pipeline:2: expected 'key: value'"));
}

}  // namespace
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// The plugin loader (core/pass_manager/tooling/plugin_loader.h) with the test
// plugins of test/plugins (HOPT_TEST_PLUGIN_DIR): loading, refusals with
// their messages, overrides, and how a plugin name is resolved to a file.

#include "core/pass_manager/tooling/plugin_loader.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/pass_registry.h"
#include "hopt/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "unittests/pass_manager/pass_test_util.h"
#include "unittests/test_util.h"

#ifndef HOPT_TEST_PLUGIN_DIR
#error "the build passes -DHOPT_TEST_PLUGIN_DIR=\"<build>/test/plugins\""
#endif

namespace hopt {
namespace {

using pass_testing::CountOpcode;
using pass_testing::kModule;
using pass_testing::PluginPath;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using testing_util::ParseOrFail;

// --- LoadPlugin -------------------------------------------------------------

TEST(LoadPluginTest, TestPluginLoadsAndRegistersItsPasses) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  std::string path = PluginPath("libhopt_test_plugin.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->path, path);
  EXPECT_EQ(loaded->name, "hopt_test_plugin");
  EXPECT_EQ(loaded->version, "1.2.3");
  std::vector<std::string> names;
  for (const PassInfo* info : registry.List()) {
    names.push_back(info->name);
    EXPECT_EQ(info->plugin, "hopt_test_plugin");
    EXPECT_EQ(info->plugin_version, "1.2.3");
    EXPECT_FALSE(info->description.empty()) << info->name;
  }
  EXPECT_THAT(names, ElementsAre("test-append-suffix", "test-break-module", "test-debug",
                                 "test-fail", "test-negate-to-copy", "test-noop"));
  EXPECT_EQ(registry.Find("test-append-suffix")->description,
            "Appends the suffix option to the module name");
}

TEST(LoadPluginTest, PluginPassesRunWithTheirPipelineOptions) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), extensions).ok());
  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);

  // A plugin defines no global option: the suffix is the pass's own.
  EXPECT_EQ(llvm::cl::getRegisteredOptions().count("test-suffix"), 0u);
  auto passes =
      ParsePipeline("test-append-suffix{suffix=_opt},test-noop,test-negate-to-copy", registry);
  ASSERT_TRUE(passes.ok()) << passes.status();
  Instrumentation instrumentation;
  std::string captured;
  llvm::raw_string_ostream out(captured);
  instrumentation.out = &out;
  auto changed = RunPipeline(*module, *passes, instrumentation);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(module->name(), "m_opt");
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kNegate), 0);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kSubtract), 1);
  EXPECT_TRUE(VerifyModule(*module).ok());
}

TEST(LoadPluginTest, PluginErrorsAndBrokenModulesNameThePass) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), extensions).ok());
  Instrumentation instrumentation;
  std::string captured;
  llvm::raw_string_ostream out(captured);
  instrumentation.out = &out;

  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  auto fail = ParsePipeline("test-fail", registry);
  ASSERT_TRUE(fail.ok());
  auto failed = RunPipeline(*module, *fail, instrumentation);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "pass 'test-fail': test-fail always fails");

  auto broken_passes = ParsePipeline("test-break-module", registry);
  ASSERT_TRUE(broken_passes.ok());
  auto broken = RunPipeline(*module, *broken_passes, instrumentation);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(std::string(broken.status().message()),
              StartsWith("pass 'test-break-module' produced an invalid module: verifier: ["));
}

TEST(LoadPluginTest, DebugOutputOnlyWhenAsked) {
  Extensions extensions;
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), extensions).ok());
  EXPECT_FALSE(DebugEnabled("test-debug"));
  SetDebugTypes("other,test-debug");
  EXPECT_TRUE(DebugEnabled("test-debug"));
  EXPECT_TRUE(DebugEnabled("other"));
  EXPECT_FALSE(DebugEnabled("test"));
  SetDebugTypes("");
  EXPECT_FALSE(DebugEnabled("test-debug"));
}

TEST(LoadPluginTest, DuplicatePassFromASecondPlugin) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), extensions).ok());
  std::string v2 = PluginPath("libhopt_test_plugin_v2.so");
  auto loaded = LoadPlugin(v2, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("plugin '", v2,
                         "': pass 'test-append-suffix' is registered by both 'hopt_test_plugin' "
                         "1.2.3 and 'hopt_test_plugin_v2' 2.0.0; pass -override-passes to let the "
                         "later plugin replace it"));
  EXPECT_EQ(registry.Find("test-append-suffix")->plugin, "hopt_test_plugin");
}

TEST(LoadPluginTest, OverrideLetsTheSecondPluginReplaceAPass) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  registry.set_allow_override(true);
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), extensions).ok());
  auto loaded = LoadPlugin(PluginPath("libhopt_test_plugin_v2.so"), extensions);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->name, "hopt_test_plugin_v2");
  EXPECT_EQ(loaded->version, "2.0.0");
  EXPECT_EQ(registry.Find("test-append-suffix")->plugin, "hopt_test_plugin_v2");
  EXPECT_EQ(registry.Find("test-append-suffix")->plugin_version, "2.0.0");
  ASSERT_NE(registry.Find("test-v2-only"), nullptr);
  EXPECT_EQ(registry.Find("test-noop")->plugin, "hopt_test_plugin");

  auto module = ParseOrFail(kModule);
  ASSERT_NE(module, nullptr);
  auto passes = ParsePipeline("test-append-suffix", registry);
  ASSERT_TRUE(passes.ok());
  ASSERT_TRUE(RunPipeline(*module, *passes, Instrumentation{}).ok());
  EXPECT_EQ(module->name(), "m_v2");
}

TEST(LoadPluginTest, SamplePluginsLoadTogetherInAnyOrder) {
  for (const std::vector<const char*>& order : {std::vector<const char*>{"a", "b", "c", "d"},
                                                std::vector<const char*>{"d", "b", "a", "c"}}) {
    Extensions extensions;
    PassRegistry& registry = extensions.passes;
    for (const char* sample : order) {
      auto loaded =
          LoadPlugin(PluginPath(absl::StrCat("libhopt_sample_", sample, ".so")), extensions);
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_EQ(loaded->name, absl::StrCat("hopt_sample_", sample));
    }
    std::vector<std::string> names;
    for (const PassInfo* info : registry.List()) names.push_back(info->name);
    EXPECT_THAT(names,
                ElementsAre("sample-a-count", "sample-a-noop", "sample-b-count", "sample-b-noop",
                            "sample-c-count", "sample-c-noop", "sample-d-count", "sample-d-noop"));
    EXPECT_EQ(registry.Find("sample-c-noop")->plugin, "hopt_sample_c");
  }
}

TEST(LoadPluginTest, NoEntryPoint) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  std::string path = PluginPath("libhopt_test_no_entry.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("plugin '", path,
                         "' does not export the entry point 'hoptGetPluginInfo' (is it a hopt "
                         "plugin?)"));
  EXPECT_THAT(registry.List(), IsEmpty());
}

TEST(LoadPluginTest, WrongApiVersion) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  std::string path = PluginPath("libhopt_test_bad_api.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("plugin '", path,
                         "' uses plugin API version 999, this hopt uses 2; rebuild the plugin "
                         "against this hopt"));
  EXPECT_THAT(registry.List(), IsEmpty());
}

TEST(LoadPluginTest, VersionOnePluginIsRefusedNamingTheVersion) {
  Extensions extensions;
  std::string path = PluginPath("libhopt_test_v1.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("plugin '", path,
                         "' uses plugin API version 1; this hopt loads version 2 plugins only: "
                         "rebuild it against hopt's SDK (docs/writing-a-plugin.md)"));
  EXPECT_THAT(extensions.passes.List(), IsEmpty());
}

TEST(LoadPluginTest, WrongBuildTag) {
  Extensions extensions;
  PassRegistry& registry = extensions.passes;
  std::string path = PluginPath("libhopt_test_bad_tag.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            absl::StrCat("plugin '", path,
                         "' was built for 'clang-0;llvm-0.0.0;absl-0;hopt-0', this "
                         "hopt is '",
                         HOPT_BUILD_TAG, "'; rebuild the plugin against this hopt"));
  EXPECT_THAT(registry.List(), IsEmpty());
}

TEST(LoadPluginTest, BuildTagNamesEverythingThatCrossesTheBoundary) {
  std::string tag = HOPT_BUILD_TAG;
  EXPECT_THAT(tag, HasSubstr(";llvm-" LLVM_VERSION_STRING));
  EXPECT_THAT(tag, HasSubstr(";absl-"));
  EXPECT_THAT(tag, HasSubstr(";hopt-" HOPT_VERSION));
  EXPECT_THAT(tag, HasSubstr(";abi-" HOPT_STRINGIFY(HOPT_ABI_VERSION)));
  // Plugins never see protobuf (libhopt_proto is the tools' alone), so its
  // version is not part of what a plugin must match.
  EXPECT_THAT(tag, Not(HasSubstr("protobuf")));
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/hopt_pm_test.XXXXXX";
    const char* made = mkdtemp(pattern);
    path_ = made ? made : "";
  }
  ~TempDir() {
    for (const std::string& file : files_) std::remove(file.c_str());
    if (!path_.empty()) rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string Write(absl::string_view name, absl::string_view contents) {
    std::string file = absl::StrCat(path_, "/", name);
    FILE* f = std::fopen(file.c_str(), "wb");
    if (f != nullptr) {
      std::fwrite(contents.data(), 1, contents.size(), f);
      std::fclose(f);
    }
    files_.push_back(file);
    return file;
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

TEST(LoadPluginTest, NotASharedObject) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir.Write("libfake.so", std::string(256, 'x') + "\nthis is text, not ELF\n");
  Extensions extensions;
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  std::string message(loaded.status().message());
  std::string prefix = absl::StrCat("plugin '", path, "' is not a loadable shared object: ");
  EXPECT_THAT(message, StartsWith(prefix));
  EXPECT_GT(message.size(), prefix.size()) << "the dlerror text is missing";
}

TEST(LoadPluginTest, MissingFileIsNotLoadable) {
  Extensions extensions;
  std::string path = PluginPath("libdoes_not_exist.so");
  auto loaded = LoadPlugin(path, extensions);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()),
              StartsWith(absl::StrCat("plugin '", path, "'")));
}

TEST(LoadPluginTest, SamePluginInTwoRegistries) {
  // The handle stays open; a second registry gets the passes too.
  Extensions first, second;
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), first).ok());
  ASSERT_TRUE(LoadPlugin(PluginPath("libhopt_test_plugin.so"), second).ok());
  EXPECT_EQ(first.passes.List().size(), second.passes.List().size());
  EXPECT_NE(second.passes.Find("test-noop"), nullptr);
}

// --- ResolvePluginPath ------------------------------------------------------

class ResolvePluginPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("HOPT_PLUGIN_PATH");
    had_env_ = old != nullptr;
    if (had_env_) old_env_ = old;
    unsetenv("HOPT_PLUGIN_PATH");
    char cwd[4096];
    ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
    old_cwd_ = cwd;
  }
  void TearDown() override {
    if (had_env_)
      setenv("HOPT_PLUGIN_PATH", old_env_.c_str(), 1);
    else
      unsetenv("HOPT_PLUGIN_PATH");
    ASSERT_EQ(chdir(old_cwd_.c_str()), 0);
  }
  bool had_env_ = false;
  std::string old_env_, old_cwd_;
};

TEST_F(ResolvePluginPathTest, PathWithASlashIsUsedAsGiven) {
  std::string path = PluginPath("libhopt_test_plugin.so");
  auto resolved = ResolvePluginPath(path, {"/nonexistent-dir"});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, path);
}

TEST_F(ResolvePluginPathTest, MissingPathWithASlash) {
  auto resolved = ResolvePluginPath("./no/such/libplugin.so", {HOPT_TEST_PLUGIN_DIR});
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(), "plugin './no/such/libplugin.so': file not found");
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ResolvePluginPathTest, BareNameInTheBuiltinDirectories) {
  auto resolved =
      ResolvePluginPath("libhopt_test_plugin.so", {"/nonexistent-dir", HOPT_TEST_PLUGIN_DIR});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, PluginPath("libhopt_test_plugin.so"));
}

TEST_F(ResolvePluginPathTest, BareNameAlongHoptPluginPath) {
  setenv("HOPT_PLUGIN_PATH", "/nonexistent-a::" HOPT_TEST_PLUGIN_DIR ":/nonexistent-b", 1);
  auto resolved = ResolvePluginPath("libhopt_test_plugin.so", {"/nonexistent-dir"});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, PluginPath("libhopt_test_plugin.so"));
  // And the result loads.
  Extensions extensions;
  EXPECT_TRUE(LoadPlugin(*resolved, extensions).ok());
}

TEST_F(ResolvePluginPathTest, BuiltinDirectoriesComeBeforeHoptPluginPath) {
  TempDir shadow;
  ASSERT_FALSE(shadow.path().empty());
  shadow.Write("libhopt_test_plugin.so", "not really a plugin");
  setenv("HOPT_PLUGIN_PATH", HOPT_TEST_PLUGIN_DIR, 1);
  auto resolved = ResolvePluginPath("libhopt_test_plugin.so", {shadow.path()});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(*resolved, absl::StrCat(shadow.path(), "/libhopt_test_plugin.so"));
  // Along HOPT_PLUGIN_PATH, the first directory wins.
  setenv("HOPT_PLUGIN_PATH", absl::StrCat(shadow.path(), ":", HOPT_TEST_PLUGIN_DIR).c_str(), 1);
  resolved = ResolvePluginPath("libhopt_test_plugin.so", {});
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(*resolved, absl::StrCat(shadow.path(), "/libhopt_test_plugin.so"));
}

TEST_F(ResolvePluginPathTest, DirectoriesAreNotPlugins) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  // A directory named like the plugin in the first search directory does
  // not stop the search.
  std::string name = dir.path().substr(dir.path().rfind('/') + 1);
  auto resolved = ResolvePluginPath(name, {"/tmp"});
  EXPECT_FALSE(resolved.ok());
}

TEST_F(ResolvePluginPathTest, BareNameInTheWorkingDirectoryIsRefused) {
  // A plugin in the working directory is not loaded by its bare name (a
  // directory someone else can write to must not run their code); the
  // message says how to load it on purpose, and that spelling works.
  // A copy under a name of its own: `meson test` puts the plugin directory
  // on LD_LIBRARY_PATH, where dlopen() would find the original by name.
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string bytes;
  {
    FILE* f = std::fopen(PluginPath("libhopt_sample_b.so").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buffer[1 << 16];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) bytes.append(buffer, n);
    std::fclose(f);
  }
  dir.Write("libhopt_cwd_sample.so", bytes);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  unsetenv("HOPT_PLUGIN_PATH");
  auto refused = ResolvePluginPath("libhopt_cwd_sample.so", {"/nonexistent-dir"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("hopt does not load plugins from the working directory by a bare name: "
                        "use -load=./libhopt_cwd_sample.so"));
  auto resolved = ResolvePluginPath("./libhopt_cwd_sample.so", {"/nonexistent-dir"});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  Extensions extensions;
  auto loaded = LoadPlugin(*resolved, extensions);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->name, "hopt_sample_b");
}

TEST_F(ResolvePluginPathTest, BareNameNotFound) {
  setenv("HOPT_PLUGIN_PATH", "/nonexistent-env-dir", 1);
  auto resolved = ResolvePluginPath("libno_such_plugin.so", {"/nonexistent-builtin"});
  ASSERT_FALSE(resolved.ok());
  std::string message(resolved.status().message());
  EXPECT_THAT(message, StartsWith("plugin 'libno_such_plugin.so': file not found (searched: "));
  EXPECT_THAT(message, HasSubstr("/nonexistent-builtin"));
  EXPECT_THAT(message, HasSubstr("/nonexistent-env-dir"));
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ResolvePluginPathTest, EmptySpecIsAnError) {
  EXPECT_FALSE(ResolvePluginPath("", {HOPT_TEST_PLUGIN_DIR}).ok());
}

}  // namespace
}  // namespace hopt

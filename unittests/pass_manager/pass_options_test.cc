// SPDX-License-Identifier: Apache-2.0
// pass_options_test: the pipeline text's pass options
// (include/hopt/pass_manager/pass_options.h) and the PluginRegistrar
// (include/hopt/pass_manager/registrar.h): a table of good and bad pipeline texts,
// typed values and their errors, named pipelines with options, deprecated
// flag defaults, and what a registrar puts in the host's Extensions.

#include "hopt/pass_manager/pass_options.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/parser.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- SplitPipelineText: a table of texts ------------------------------------

struct SplitCase {
  const char* text;
  // "name{k=v,k2=v2}" per element, joined by ';' (braces only when the
  // element has some); or the error message.
  const char* expected;
  bool ok;
};

std::string Describe(const std::vector<PipelineElement>& elements) {
  std::vector<std::string> parts;
  for (const PipelineElement& e : elements) {
    std::string part = e.name;
    if (e.has_braces) {
      std::vector<std::string> options;
      for (const auto& [k, v] : e.options) options.push_back(absl::StrCat(k, "=", v));
      absl::StrAppend(&part, "{", absl::StrJoin(options, ","), "}");
    }
    parts.push_back(part);
  }
  return absl::StrJoin(parts, ";");
}

class SplitPipelineTextTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(SplitPipelineTextTest, Splits) {
  const SplitCase& c = GetParam();
  auto elements = SplitPipelineText(c.text);
  if (c.ok) {
    ASSERT_TRUE(elements.ok()) << c.text << ": " << elements.status();
    EXPECT_EQ(Describe(*elements), c.expected) << c.text;
  } else {
    ASSERT_FALSE(elements.ok()) << c.text << " was accepted as " << Describe(*elements);
    EXPECT_EQ(elements.status().message(), c.expected) << c.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, SplitPipelineTextTest,
    ::testing::Values(
        SplitCase{"", "", true}, SplitCase{"  ", "", true}, SplitCase{"a", "a", true},
        SplitCase{"a,b,c", "a;b;c", true}, SplitCase{" a , b ", "a;b", true},
        SplitCase{"a{}", "a{}", true}, SplitCase{"a{k=v}", "a{k=v}", true},
        SplitCase{"a{k=v k2=w},b", "a{k=v,k2=w};b", true},
        SplitCase{"a { k=v\tk2=w } ,b", "a{k=v,k2=w};b", true},
        SplitCase{"a{k='x y'}", "a{k=x y}", true},
        SplitCase{"a{k=\"x,{y}\" j='}'}", "a{k=x,{y},j=}}", true},
        SplitCase{"a{k=''}", "a{k=}", true}, SplitCase{"a{k=}", "a{k=}", true},
        SplitCase{"a{k=1,2}", "a{k=1,2}", true},  // a bare comma inside braces
        SplitCase{"a{k=v}}", "pipeline element 'a': unexpected '}' (elements are separated by ',')",
                  false},
        SplitCase{"a{k=v", "pipeline element 'a': unterminated '{' (missing '}')", false},
        SplitCase{"a{", "pipeline element 'a': unterminated '{' (missing '}')", false},
        SplitCase{"a{k", "pipeline element 'a': unterminated '{' (missing '}')", false},
        SplitCase{"a{k='v}", "pipeline element 'a': option 'k': unterminated ' quote", false},
        SplitCase{"a{k}", "pipeline element 'a': option 'k' needs a value: k=VALUE", false},
        SplitCase{"a{=v}", "pipeline element 'a': expected an option name, found '='", false},
        SplitCase{"a{k=x{y}}",
                  "pipeline element 'a': option 'k': unexpected '{' in the value (quote the "
                  "value: k='...')",
                  false},
        SplitCase{"a{k='x'y}",
                  "pipeline element 'a': option 'k': unexpected 'y' after the quoted value", false},
        SplitCase{"a b", "pipeline element 'a': unexpected 'b' (elements are separated by ',')",
                  false},
        SplitCase{"a,,b", "empty pass name in the pipeline 'a,,b'", false},
        SplitCase{"a,", "empty pass name in the pipeline 'a,'", false},
        SplitCase{"{k=v}", "unexpected '{' without a pass name in the pipeline '{k=v}'", false}));

// --- ResolvePassOptions: typed values ---------------------------------------

const std::vector<PassOptionSpec>& Specs() {
  static const auto* specs = new std::vector<PassOptionSpec>{
      StringOption("target", "Default", "a string"), IntOption("count", 3, "an int"),
      BoolOption("enabled", true, "a bool"), OutputPathOption("out-dir", "a directory")};
  return *specs;
}

struct ValueCase {
  std::vector<std::pair<std::string, std::string>> given;
  const char* error;  // empty: accepted
};

class ResolveTest : public ::testing::TestWithParam<ValueCase> {};

TEST_P(ResolveTest, ChecksKeysAndTypes) {
  const ValueCase& c = GetParam();
  auto options = ResolvePassOptions("p", Specs(), c.given);
  if (std::string(c.error).empty()) {
    EXPECT_TRUE(options.ok()) << options.status();
  } else {
    ASSERT_FALSE(options.ok());
    EXPECT_EQ(options.status().message(), c.error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ResolveTest,
    ::testing::Values(
        ValueCase{{}, ""}, ValueCase{{{"count", "-12"}}, ""},
        ValueCase{{{"count", "9223372036854775807"}}, ""},
        ValueCase{{{"enabled", "0"}, {"enabled2", "1"}},
                  "pass 'p': unknown option 'enabled2'; did you mean 'enabled'? (options: "
                  "target, count, enabled, out-dir)"},
        ValueCase{{{"xyzzy", "1"}},
                  "pass 'p': unknown option 'xyzzy' (options: target, count, enabled, out-dir)"},
        ValueCase{{{"count", "9223372036854775808"}},
                  "pass 'p': option 'count' takes an integer (int64), got "
                  "'9223372036854775808'"},
        ValueCase{{{"count", ""}}, "pass 'p': option 'count' takes an integer (int64), got ''"},
        ValueCase{{{"count", " 1"}}, "pass 'p': option 'count' takes an integer (int64), got ' 1'"},
        ValueCase{{{"count", "1.5"}},
                  "pass 'p': option 'count' takes an integer (int64), got '1.5'"},
        ValueCase{{{"enabled", "True"}},
                  "pass 'p': option 'enabled' takes a bool (true, false, 1 or 0), got 'True'"},
        ValueCase{{{"enabled", ""}},
                  "pass 'p': option 'enabled' takes a bool (true, false, 1 or 0), got ''"},
        ValueCase{{{"target", "a"}, {"target", "b"}}, "pass 'p': option 'target' is given twice"}));

TEST(ResolveTest, ValuesDefaultsAndFlagDefaults) {
  auto options = ResolvePassOptions("p", Specs(), {{"count", "7"}, {"enabled", "false"}},
                                    {{"target", "FromFlag"}, {"count", "99"}});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->GetInt("count"), 7);  // the text wins over the flag
  EXPECT_FALSE(options->GetBool("enabled"));
  EXPECT_EQ(options->GetString("target"), "FromFlag");
  EXPECT_TRUE(options->Given("target"));
  EXPECT_FALSE(options->Given("out-dir"));
  EXPECT_TRUE(options->OutputPaths().empty());
  auto defaults = ResolvePassOptions("p", Specs(), {{"out-dir", "/tmp/x"}});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->GetString("target"), "Default");
  EXPECT_EQ(defaults->GetInt("count"), 3);
  EXPECT_TRUE(defaults->GetBool("enabled"));
  EXPECT_THAT(defaults->OutputPaths(),
              ElementsAre(std::make_pair(std::string("out-dir"), std::string("/tmp/x"))));
}

TEST(ResolveTest, NoOptionsDeclared) {
  auto options = ResolvePassOptions("plain", {}, {{"k", "v"}});
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().message(),
            "pass 'plain': unknown option 'k' (the pass has no options)");
}

// --- The registrar and ParsePipeline -----------------------------------------

// Records its option values in its name.
class RecordingPass : public Pass {
 public:
  explicit RecordingPass(std::string name) : name_(std::move(name)) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule&) override { return false; }

 private:
  std::string name_;
};

void RegisterTestPlugin(PluginRegistrar& registrar) {
  registrar.AddPass("opt", "a pass with options", Specs(), [](const PassOptions& options) {
    return std::make_unique<RecordingPass>(absl::StrCat(options.GetString("target"), "/",
                                                        options.GetInt("count"), "/",
                                                        options.GetBool("enabled") ? "on" : "off"));
  });
  registrar.AddPass("plain", "no options",
                    PassFactory([] { return std::make_unique<RecordingPass>("plain"); }));
  registrar.AddPipeline("both", "opt{count=5},plain", "opt then plain", {"libtest.so"});
  registrar.AddPipeline("nested", "both,opt{target=N}", "a pipeline in a pipeline", {});
  registrar.AddPipeline("self", "self", "names itself", {});
  registrar.AddPipeline("needs", "plain,absent", "needs a missing pass", {"libabsent.so"});
  registrar.AddFlagAlias("old-count", "opt", "count");
  registrar.AddDotHighlight("T", DotHighlight::kMarker);
  registrar.AddCustomCallSemantics(
      "T",
      [](const HloInstruction&, absl::Span<const Literal* const> operands,
         eval::DeviceId) -> absl::StatusOr<Literal> { return *operands[0]; });
}

class RegistrarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    extensions_.passes.BeginPlugin("test_plugin", "1.0");
    PluginRegistrar registrar(extensions_);
    RegisterTestPlugin(registrar);
    ASSERT_TRUE(extensions_.passes.EndPlugin().ok());
  }
  std::vector<std::string> Names(absl::string_view text) {
    auto passes = ParsePipeline(text, extensions_.passes);
    EXPECT_TRUE(passes.ok()) << text << ": " << passes.status();
    std::vector<std::string> names;
    if (passes.ok())
      for (const auto& pass : *passes) names.emplace_back(pass->name());
    return names;
  }
  std::string Error(absl::string_view text) {
    auto passes = ParsePipeline(text, extensions_.passes);
    return passes.ok() ? "(accepted)" : std::string(passes.status().message());
  }
  Extensions extensions_;
};

TEST_F(RegistrarTest, EverythingLandsInTheHostsExtensions) {
  const PassInfo* info = extensions_.passes.Find("opt");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->plugin, "test_plugin");
  EXPECT_EQ(info->options.size(), 4u);
  const NamedPipeline* both = extensions_.passes.FindPipeline("both");
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->plugin, "test_plugin");
  EXPECT_THAT(both->plugins, ElementsAre("libtest.so"));
  ASSERT_EQ(extensions_.passes.FlagAliases().size(), 1u);
  EXPECT_EQ(extensions_.passes.FlagAliases()[0].plugin, "test_plugin");
  EXPECT_EQ(extensions_.dot_highlights.Of("T"), DotHighlight::kMarker);
  EXPECT_FALSE(extensions_.custom_calls.empty());
}

TEST_F(RegistrarTest, OptionsReachTheFactory) {
  EXPECT_THAT(Names("opt,opt{target=X count=-1 enabled=0},plain"),
              ElementsAre("Default/3/on", "X/-1/off", "plain"));
}

TEST_F(RegistrarTest, NamedPipelinesExpandWithTheirOptions) {
  EXPECT_THAT(Names("both"), ElementsAre("Default/5/on", "plain"));
  EXPECT_THAT(Names("nested,plain"), ElementsAre("Default/5/on", "plain", "N/3/on", "plain"));
  EXPECT_EQ(Error("both{count=1}"), "pipeline 'both' takes no options (give them to its passes)");
  EXPECT_THAT(Error("self"), HasSubstr("nests more than 8 pipelines deep"));
  EXPECT_EQ(Error("needs"),
            "pipeline 'needs' needs pass 'absent', which no loaded plugin provides; load the "
            "pipeline's plugins: -load=libabsent.so");
}

TEST_F(RegistrarTest, FlagDefaultsLoseToTheText) {
  ASSERT_TRUE(extensions_.passes.SetFlagDefault("opt", "count", "42").ok());
  EXPECT_THAT(Names("opt,opt{count=1}"), ElementsAre("Default/42/on", "Default/1/on"));
  absl::Status bad = extensions_.passes.SetFlagDefault("opt", "count", "x");
  EXPECT_EQ(bad.message(), "pass 'opt': option 'count' takes an integer (int64), got 'x'");
  absl::Status missing = extensions_.passes.SetFlagDefault("opt", "nope", "1");
  EXPECT_EQ(missing.message(), "pass 'opt' (test_plugin 1.0) has no option 'nope'");
}

TEST_F(RegistrarTest, PipelineDetailsGiveEachPassItsOptions) {
  std::vector<PipelinePass> details;
  auto passes = ParsePipeline("opt{out-dir=/d},plain", extensions_.passes, &details);
  ASSERT_TRUE(passes.ok()) << passes.status();
  ASSERT_EQ(details.size(), 2u);
  EXPECT_EQ(details[0].name, "opt");
  EXPECT_THAT(details[0].options.OutputPaths(),
              ElementsAre(std::make_pair(std::string("out-dir"), std::string("/d"))));
  EXPECT_TRUE(details[1].options.OutputPaths().empty());
}

// What a plugin's registration callback leaves: the first error the
// registry kept (the registrar's calls return nothing).
std::string FirstRegistrationError(const std::function<void(PluginRegistrar&)>& register_plugin) {
  Extensions extensions;
  extensions.passes.BeginPlugin("bad", "0");
  PluginRegistrar registrar(extensions);
  register_plugin(registrar);
  return std::string(extensions.passes.EndPlugin().message());
}

TEST(RegistrarDeclarationsTest, BadDeclarationsAreRegistrationErrors) {
  auto factory = [](const PassOptions&) { return std::make_unique<RecordingPass>("x"); };
  EXPECT_EQ(FirstRegistrationError([&](PluginRegistrar& registrar) {
              registrar.AddPass("a", "", {IntOption("n", 0, ""), IntOption("n", 1, "")}, factory);
            }),
            "pass 'a' declares option 'n' twice");
  EXPECT_EQ(FirstRegistrationError([&](PluginRegistrar& registrar) {
              registrar.AddPass("b", "", {StringOption("has space", "", "")}, factory);
            }),
            "pass 'b': option name 'has space' is not a plain word");
  EXPECT_EQ(
      FirstRegistrationError([&](PluginRegistrar& registrar) {
        registrar.AddPass("c", "", {PassOptionSpec{"n", PassOptionType::kInt, "x", ""}}, factory);
      }),
      "the default of pass 'c': option 'n' takes an integer (int64), got 'x'");
  EXPECT_EQ(FirstRegistrationError(
                [](PluginRegistrar& registrar) { registrar.AddFlagAlias("-dash", "a", "n"); }),
            "flag alias '-dash': give the flag's name without dashes");
  // Registration goes on after an error; the first one is the plugin's.
  EXPECT_EQ(FirstRegistrationError([&](PluginRegistrar& registrar) {
              registrar.AddPass("a", "", {IntOption("n", 0, ""), IntOption("n", 1, "")}, factory);
              registrar.AddFlagAlias("-dash", "a", "n");
            }),
            "pass 'a' declares option 'n' twice");
}

TEST(RegistrarDeclarationsTest, TheSameOptionsFromTwoPluginsDoNotClash) {
  Extensions extensions;
  extensions.passes.set_allow_override(true);
  for (const char* plugin : {"reference", "vendor"}) {
    extensions.passes.BeginPlugin(plugin, "1");
    PluginRegistrar registrar(extensions);
    registrar.AddPass("p", plugin, {BoolOption("everywhere", false, "")},
                      [](const PassOptions&) { return std::make_unique<RecordingPass>("p"); });
    registrar.AddFlagAlias("p-everywhere", "p", "everywhere");
    EXPECT_TRUE(extensions.passes.EndPlugin().ok());
  }
  const PassInfo* info = extensions.passes.Find("p");
  EXPECT_EQ(info->plugin, "vendor");
  EXPECT_EQ(info->overrides_plugin, "reference");
  EXPECT_EQ(extensions.passes.FlagAliases().size(), 1u);
}

// --- Typed options and reads by name ----------------------------------------

struct FuseOptions {
  std::string target = "Fused";
  int64_t limit = 8;
  bool everywhere = false;
  std::string report_dir;
};

TEST(TypedOptionsTest, DeclaredOnceReadWithoutNames) {
  Extensions extensions;
  extensions.passes.BeginPlugin("typed", "1");
  PluginRegistrar registrar(extensions);
  registrar.AddPass("fuse", "typed options",
                    {Option(&FuseOptions::target, "target", "the fused call's target"),
                     Option(&FuseOptions::limit, "limit", "the most fused"),
                     Option(&FuseOptions::everywhere, "everywhere", "every computation"),
                     OutputPathOption(&FuseOptions::report_dir, "report-dir", "the report")},
                    [](const FuseOptions& options) {
                      return std::make_unique<RecordingPass>(
                          absl::StrCat(options.target, "/", options.limit, "/",
                                       options.everywhere ? "on" : "off", "/", options.report_dir));
                    });
  ASSERT_TRUE(extensions.passes.EndPlugin().ok());

  // The specs come from the members: types and defaults.
  const PassInfo* info = extensions.passes.Find("fuse");
  ASSERT_NE(info, nullptr);
  std::vector<std::string> specs;
  for (const PassOptionSpec& spec : info->options)
    specs.push_back(
        absl::StrCat(spec.name, ":", PassOptionTypeName(spec.type), "=", spec.default_value));
  EXPECT_THAT(specs, ElementsAre("target:string=Fused", "limit:int=8", "everywhere:bool=false",
                                 "report-dir:output-path="));

  auto passes =
      ParsePipeline("fuse,fuse{limit=3 everywhere=true report-dir=/r target=T}", extensions.passes);
  ASSERT_TRUE(passes.ok()) << passes.status();
  ASSERT_EQ(passes->size(), 2u);
  EXPECT_EQ((*passes)[0]->name(), "Fused/8/off/");
  EXPECT_EQ((*passes)[1]->name(), "T/3/on//r");
  // Their values are checked like any option's.
  auto bad = ParsePipeline("fuse{limit=many}", extensions.passes);
  EXPECT_EQ(bad.status().message(),
            "pass 'fuse': option 'limit' takes an integer (int64), got 'many'");
}

// The string getters answer a misspelled name with 0: the registry makes
// the pass once from its defaults and refuses a factory that does so.
TEST(TypedOptionsTest, AMisspelledReadByNameIsARegistrationError) {
  EXPECT_EQ(
      FirstRegistrationError([](PluginRegistrar& registrar) {
        registrar.AddPass(
            "p", "", {IntOption("min-elements", 4, "")}, [](const PassOptions& options) {
              return std::make_unique<RecordingPass>(absl::StrCat(options.GetInt("min-elments")));
            });
      }),
      "pass 'p' reads option 'min-elments', which it does not declare; did you mean "
      "'min-elements'? (options: min-elements)");
  EXPECT_EQ(
      FirstRegistrationError([](PluginRegistrar& registrar) {
        registrar.AddPass(
            "q", "", {BoolOption("everywhere", false, "")}, [](const PassOptions& options) {
              return std::make_unique<RecordingPass>(absl::StrCat(options.GetInt("everywhere")));
            });
      }),
      "pass 'q' reads option 'everywhere' as int, but declares it as bool");
  // The pass is not registered.
  Extensions extensions;
  extensions.passes.BeginPlugin("bad", "0");
  PluginRegistrar registrar(extensions);
  registrar.AddPass("p", "", {StringOption("target", "", "")}, [](const PassOptions& options) {
    return std::make_unique<RecordingPass>(options.GetString("traget"));
  });
  EXPECT_FALSE(extensions.passes.EndPlugin().ok());
  EXPECT_EQ(extensions.passes.Find("p"), nullptr);
}

}  // namespace
}  // namespace hopt

// hopt: loads pass plugins, reads an HLO module, runs a pass pipeline over
// it and writes the result.
//
//   hopt -load=libmy_passes.so -passes='a,b{option=value}' in.hlo -o out.hlo

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "core/eval/mesh_compare.h"
#include "core/eval/mesh_inference.h"
#include "hopt/eval/opaque_calls.h"
#include "core/ir/input_limits.h"
#include "core/ir/mapped_file.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "core/proto/io.h"
#include "hopt/ir/verifier.h"
#include "core/pass_manager/crash_report.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pipeline.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/diagnostic.h"
#include "core/support/heap_policy.h"
#include "hopt/support/output_file.h"
#include "core/support/startup_pages.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "tools/emit_dot.h"
#include "tools/provider_compare.h"
#include "tools/tool_info.h"
#include "tools/tool_plugins.h"

namespace cl = llvm::cl;

namespace {

cl::OptionCategory& HoptCategory() {
  static cl::OptionCategory category("hopt options");
  return category;
}

// libLLVM registers options of its own pass manager under the names hopt's
// instrumentation uses (-time-passes, -print-after, ...); a second option of
// the same name would abort. hopt adopts those options instead: same
// spelling, hopt's description and category, values read through LLVM's
// accessors after parsing.
void AdoptLlvmOption(const char* name, const char* description) {
  auto& registered = cl::getRegisteredOptions();
  auto it = registered.find(name);
  if (it == registered.end()) return;
  it->second->setDescription(description);
  it->second->addCategory(HoptCategory());
  it->second->setHiddenFlag(cl::NotHidden);
}

void AdoptLlvmOptions() {
  AdoptLlvmOption("time-passes", "Report the wall time of each pass");
  AdoptLlvmOption("print-before", "Print the module before these passes (comma-separated)");
  AdoptLlvmOption("print-after", "Print the module after these passes (comma-separated)");
  AdoptLlvmOption("print-after-all", "Print the module after every pass");
  AdoptLlvmOption("print-before-all", "Print the module before every pass");
  AdoptLlvmOption("print-changed",
                  "Print the module after each pass that changed it (the =mode values are "
                  "LLVM's; hopt prints the whole module for each of them)");
}

bool LlvmOptionGiven(const char* name) {
  auto& registered = cl::getRegisteredOptions();
  auto it = registered.find(name);
  return it != registered.end() && it->second->getNumOccurrences() > 0;
}

struct DriverOptions {
  cl::opt<std::string> input{cl::Positional, cl::desc("<input .hlo file, or - for stdin>"),
                             cl::init("-"), cl::cat(HoptCategory())};
  cl::opt<std::string> output{"o", cl::desc("Output file (default: stdout)"),
                              cl::value_desc("file"), cl::init("-"), cl::cat(HoptCategory())};
  cl::list<std::string> load{"load",
                             cl::desc("Load a pass plugin (a path, or a file name looked up in "
                                      "hopt's plugin directories and HOPT_PLUGIN_PATH)"),
                             cl::value_desc("plugin"), cl::cat(HoptCategory())};
  cl::opt<std::string> passes{"passes",
                              cl::desc("Comma-separated pass pipeline, options in braces: "
                                       "'a,b{key=value key2=value},c'; an element may name a "
                                       "pipeline a plugin provides (-list-pipelines)"),
                              cl::value_desc("a,b{k=v},c"), cl::cat(HoptCategory())};
  cl::opt<bool> list_passes{"list-passes",
                            cl::desc("List the registered passes with their plugin, version, "
                                     "options and what they override"),
                            cl::cat(HoptCategory())};
  cl::opt<bool> list_pipelines{"list-pipelines",
                               cl::desc("List the named pipelines -passes accepts, with their "
                                        "passes and plugins"),
                               cl::cat(HoptCategory())};
  cl::opt<bool> override_passes{"override-passes",
                                cl::desc("Let a later plugin replace a pass of the same name"),
                                cl::cat(HoptCategory())};
  cl::opt<bool> split_input_file{
      "split-input-file", cl::desc("Treat '// -----' lines as module separators"),
      cl::cat(HoptCategory())};
  cl::opt<bool> verify{"verify", cl::desc("Verify the input module (default on)"),
                       cl::init(true), cl::cat(HoptCategory())};
  cl::opt<bool> callgrind_per_pass{
      "callgrind-per-pass",
      cl::desc("Under valgrind --tool=callgrind --instr-atstart=no: count each pass alone and "
               "dump its counts under the pass's name (one callgrind.out file per pass)"),
      cl::cat(HoptCategory())};
  cl::opt<bool> verify_each{"verify-each", cl::desc("Verify after every pass (default on)"),
                            cl::init(true), cl::cat(HoptCategory())};
  cl::opt<std::string> debug_only{"debug-only",
                                  cl::desc("Debug output of these passes (comma-separated)"),
                                  cl::value_desc("a,b"), cl::cat(HoptCategory())};
  cl::opt<bool> print_operand_shapes{"print-operand-shapes",
                                     cl::desc("Print each operand's shape (long style only)"),
                                     cl::cat(HoptCategory())};
  cl::opt<std::string> verify_equivalence{
      "verify-equivalence", cl::ValueOptional,
      cl::desc("Run the input and the result on N (default 3) seeded random input sets on "
               "every device of the mesh and compare all outputs bit for bit"),
      cl::value_desc("N"), cl::cat(HoptCategory())};
  cl::opt<uint64_t> equivalence_seed{"equivalence-seed",
                                     cl::desc("Seed of -verify-equivalence's inputs (default 1)"),
                                     cl::init(1), cl::cat(HoptCategory())};
  // docs/hlo-run.md: the interpreter's mesh and opaque custom-calls.
  cl::opt<int64_t> replicas{
      "replicas",
      cl::desc("Replicas of -verify-equivalence's and -compare-with's mesh (default: the "
               "module's replica_count, or what its collectives' groups need)"),
      cl::value_desc("R"), cl::init(0), cl::cat(HoptCategory())};
  cl::opt<int64_t> partitions{
      "partitions",
      cl::desc("Partitions of -verify-equivalence's and -compare-with's mesh (default: the "
               "module's num_partitions, or what its collectives' groups need)"),
      cl::value_desc("P"), cl::init(0), cl::cat(HoptCategory())};
  cl::opt<hopt::eval::EvalOptions::OpaqueCustomCalls> opaque_custom_calls{
      "opaque-custom-calls",
      cl::desc("Custom-calls without registered semantics, in -verify-equivalence and "
               "-compare-with"),
      cl::init(hopt::eval::EvalOptions::OpaqueCustomCalls::kHash),
      cl::values(clEnumValN(hopt::eval::EvalOptions::OpaqueCustomCalls::kHash, "hash",
                            "Run each as a deterministic function of its target, "
                            "backend_config and operands, and compare the calls made"),
                 clEnumValN(hopt::eval::EvalOptions::OpaqueCustomCalls::kRefuse, "refuse",
                            "Refuse the module, naming the call")),
      cl::cat(HoptCategory())};
  cl::opt<std::string> input_format{
      "input-format",
      cl::desc("Input format: text, pb (binary HloProto/HloModuleProto/HloSnapshot, "
               "gzip too) or pbtxt (default: from the file extension)"),
      cl::value_desc("text|pb|pbtxt"), cl::cat(HoptCategory())};
  cl::opt<std::string> output_format{
      "output-format",
      cl::desc("Output format: text, pb (binary HloProto) or pbtxt (default: from the "
               "-o extension; standard output is text)"),
      cl::value_desc("text|pb|pbtxt"), cl::cat(HoptCategory())};
  cl::opt<uint64_t> max_input_size{
      "max-input-size",
      cl::desc(hopt::MaxInputSizeHelp()),
      cl::value_desc("bytes"), cl::init(hopt::kDefaultMaxInputBytes), cl::cat(HoptCategory())};
  cl::opt<bool> time_read{"time-read",
                          cl::desc("Report the time taken to read the input (stderr)"),
                          cl::cat(HoptCategory())};
  // tools/provider_compare.h, docs/hopt.md.
  cl::opt<std::string> compare_with{
      "compare-with",
      cl::desc("Also run the pipeline with this plugin overriding the passes it provides "
               "(in a second hopt process; the other passes run from ours on both sides) "
               "and compare the results pass by pass. Exit status: 0 same, 1 the results "
               "differ, 2 the comparison could not run"),
      cl::value_desc("plugin"), cl::cat(HoptCategory())};
  cl::opt<std::string> compare_keep{
      "compare-keep",
      cl::desc("-compare-with writes both modules after the first pass whose results differ "
               "into this directory (NN-pass.ours.hlo, NN-pass.theirs.hlo; canonical form)"),
      cl::value_desc("dir"), cl::cat(HoptCategory())};
  cl::opt<int64_t> compare_sets{
      "compare-sets", cl::desc("Interpreter input sets per pass for -compare-with (default 3)"),
      cl::value_desc("N"), cl::init(3), cl::cat(HoptCategory())};
  cl::opt<bool> compare_strict{
      "compare-strict",
      cl::desc("-compare-with fails unless every pass's results are identical in structure"),
      cl::cat(HoptCategory())};
  cl::opt<std::string> compare_child_dir{"compare-child-dir", cl::ReallyHidden,
                                         cl::cat(HoptCategory())};
  cl::opt<std::string> emit_dot{
      "emit-dot",
      cl::desc("Also draw the computation, after the pipeline, as a Graphviz graph "
               "(a .svg name: the picture, rendered with Graphviz's dot)"),
      cl::value_desc("file.dot|file.svg"), cl::cat(HoptCategory())};
  cl::opt<std::string> emit_dot_computation{
      "emit-dot-computation", cl::desc("The computation -emit-dot draws (default: the entry)"),
      cl::value_desc("name"), cl::cat(HoptCategory())};
  cl::opt<int64_t> emit_dot_max_nodes{
      "emit-dot-max-nodes",
      cl::desc("Above this many instructions -emit-dot summarises the graph (0: never)"),
      cl::value_desc("N"), cl::init(200), cl::cat(HoptCategory())};
  cl::opt<bool> emit_dot_svg{"emit-dot-svg",
                             cl::desc("Also render -emit-dot's graph as FILE.svg"),
                             cl::cat(HoptCategory())};
  enum class Style { kLong, kShort };
  cl::opt<Style> print_style{
      "print-style", cl::desc("Output style"), cl::init(Style::kLong),
      cl::values(clEnumValN(Style::kLong, "long", "XLA's default form: %names, signatures"),
                 clEnumValN(Style::kShort, "short", "XLA's short parsable form")),
      cl::cat(HoptCategory())};
};

// Every error exits 1, except under -compare-with, whose exit statuses tell
// a difference (1) from a comparison that could not run (2):
// tools/provider_compare.h.
int error_status = 1;

int Fail(const std::string& message) {
  std::fprintf(stderr, "hopt: error: %s\n", message.c_str());
  return error_status;
}

// Two names of one file: the same file when both exist, else the same
// spelling once made absolute.
bool SamePath(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  bool same = false;
  if (!llvm::sys::fs::equivalent(a, b, same)) return same;
  return hopt::NormalizePath(a) == hopt::NormalizePath(b);
}

// An extra output (-emit-dot, a plugin's directory) that is also the input
// or -o would overwrite the one or race the other: refused before anything
// runs.
absl::Status CheckOutputsApart(const DriverOptions& options,
                               const std::vector<hopt::PipelinePass>& pipeline) {
  std::vector<std::pair<std::string, std::string>> extra;
  if (!options.emit_dot.empty())
    for (const std::string& file : hopt::tools::EmitDotTargets(
             {options.emit_dot, "", 0, options.emit_dot_svg}))
      extra.emplace_back("-emit-dot", file);
  // A pass's output-path options (marker-splitter{output-dir=...}, say).
  for (const hopt::PipelinePass& pass : pipeline)
    for (auto& [option, path] : pass.options.OutputPaths())
      extra.emplace_back(absl::StrCat(pass.name, "{", option, "}"), path);
  for (const auto& [option, path] : extra) {
    if (SamePath(path, options.input))
      return absl::InvalidArgumentError(absl::StrCat(
          option, ": '", path, "' is also the input; refusing to overwrite it"));
    if (SamePath(path, options.output))
      return absl::InvalidArgumentError(
          absl::StrCat(option, ": '", path, "' is also the -o output"));
  }
  return absl::OkStatus();
}

// A module of the input and the line of the file it starts on.
struct ModuleText {
  absl::string_view text;
  int64_t first_line;
};

// Views into `text`, so splitting costs no copy of it.
std::vector<ModuleText> SplitInput(absl::string_view text, bool split) {
  if (!split) return {{text, 1}};
  std::vector<ModuleText> parts;
  size_t line_start = 0, part_start = 0;
  int64_t line = 1, part_line = 1;
  while (line_start <= text.size()) {
    size_t end = text.find('\n', line_start);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view content = text.substr(line_start, end - line_start);
    while (!content.empty() && (content.back() == ' ' || content.back() == '\r'))
      content.remove_suffix(1);
    if (content == "// -----") {
      parts.push_back({text.substr(part_start, line_start - part_start), part_line});
      part_start = std::min(end + 1, text.size());
      part_line = line + 1;
    }
    ++line;
    if (end == text.size()) break;
    line_start = end + 1;
  }
  parts.push_back({text.substr(part_start), part_line});
  return parts;
}

// Runs both modules on the same seeded inputs on every device and compares
// every output bit for bit.
absl::Status VerifyEquivalence(const hopt::HloModule& before, const hopt::HloModule& after,
                               int64_t sets, uint64_t seed,
                               const hopt::eval::EvalOptions& eval_options) {
  using Outcome = hopt::eval::MeshComparison::Outcome;
  hopt::eval::MeshComparison compared =
      hopt::eval::CompareOnMesh(before, after, sets, seed, eval_options);
  switch (compared.outcome) {
    case Outcome::kFirstFailed:
      return absl::FailedPreconditionError(absl::StrCat(
          "-verify-equivalence: cannot run the input module: ", compared.message));
    case Outcome::kSecondFailed:
      return absl::FailedPreconditionError(absl::StrCat(
          "-verify-equivalence: cannot run the pipeline's result: ", compared.message));
    case Outcome::kDiffer:
      return absl::FailedPreconditionError(absl::StrCat(
          "-verify-equivalence: the pipeline changed the result on ", compared.message,
          " (before vs after)"));
    case Outcome::kEqual:
      break;
  }
  std::vector<hopt::eval::OpaqueTarget> opaque = hopt::eval::FindOpaqueTargets(before, eval_options.custom_calls);
  if (!opaque.empty())
    std::fprintf(stderr,
                 "hopt: verify-equivalence: custom-call target(s) %s have no registered "
                 "semantics: run as opaque functions of their operands, and their calls "
                 "compared (-opaque-custom-calls=refuse refuses them)\n",
                 hopt::eval::OpaqueTargetList(opaque).c_str());
  std::fprintf(stderr,
               "hopt: verify-equivalence: %lld input set(s) from seed %llu on %lld device(s): "
               "all outputs identical\n",
               static_cast<long long>(sets), static_cast<unsigned long long>(seed),
               static_cast<long long>(compared.devices));
  return absl::OkStatus();
}

// One line per pass (name, provider, what it overrides, description),
// then one indented line per option: name=<type>, default, description.
std::string FormatPassList(const hopt::PassRegistry& registry) {
  std::string text;
  size_t width = 0;
  for (const hopt::PassInfo* info : registry.List()) width = std::max(width, info->name.size());
  for (const hopt::PassInfo* info : registry.List()) {
    std::string provider = absl::StrCat(info->plugin, " ", info->plugin_version);
    if (!info->overrides_plugin.empty())
      absl::StrAppend(&provider, ", overrides ", info->overrides_plugin, " ",
                      info->overrides_version);
    absl::StrAppend(&text, "  ", info->name, std::string(width - info->name.size(), ' '), "  (",
                    provider, ")  ", info->description, "\n");
    for (const hopt::PassOptionSpec& option : info->options)
      absl::StrAppend(&text, "      ", option.name, "=<", hopt::PassOptionTypeName(option.type),
                      ">  (default: ", option.default_value.empty() ? "''" : option.default_value,
                      ")  ", option.description, "\n");
  }
  return text;
}

void ListPipelines(const hopt::PassRegistry& registry) {
  for (const hopt::NamedPipeline* p : registry.Pipelines())
    std::printf("  %s  (%s %s)  %s (plugins: %s)\n    = %s\n", p->name.c_str(),
                p->plugin.c_str(), p->plugin_version.c_str(), p->description.c_str(),
                absl::StrJoin(p->plugins, ",").c_str(), p->text.c_str());
}

// The deprecated flags plugins declare (PluginRegistrar::AddFlagAlias):
// hopt defines each once, after the plugins are loaded and before the
// command line is parsed.
struct AliasFlag {
  std::string name;
  std::vector<const hopt::FlagAlias*> targets;
  cl::opt<std::string>* option = nullptr;
};

absl::StatusOr<std::vector<AliasFlag>> DefineAliasFlags(const hopt::PassRegistry& registry) {
  std::vector<AliasFlag> flags;
  for (const hopt::FlagAlias& alias : registry.FlagAliases()) {
    auto it = std::find_if(flags.begin(), flags.end(),
                           [&](const AliasFlag& f) { return f.name == alias.flag; });
    if (it == flags.end()) it = flags.insert(flags.end(), AliasFlag{alias.flag, {}, nullptr});
    it->targets.push_back(&alias);
  }
  auto& registered = cl::getRegisteredOptions();
  for (AliasFlag& flag : flags) {
    if (registered.find(flag.name) != registered.end())
      return absl::InvalidArgumentError(absl::StrCat(
          "plugin '", flag.targets[0]->plugin, "' declares the deprecated flag '-", flag.name,
          "', which hopt already defines"));
    bool all_bool = true;
    std::vector<std::string> spellings;
    for (const hopt::FlagAlias* alias : flag.targets) {
      const hopt::PassInfo* info = registry.Find(alias->pass);
      const hopt::PassOptionSpec* spec = nullptr;
      if (info != nullptr)
        for (const hopt::PassOptionSpec& s : info->options)
          if (s.name == alias->option) spec = &s;
      // A replacement (-override-passes) may lack the option: the flag
      // still parses, and fails only when given (ApplyAliasFlags).
      all_bool &= spec != nullptr && spec->type == hopt::PassOptionType::kBool;
      spellings.push_back(absl::StrCat(alias->pass, "{", alias->option, "=...}"));
    }
    // Live until exit, like every cl::opt (which keeps only references),
    // held by a process-wide list so that they stay reachable.
    static auto* held = new std::vector<std::unique_ptr<std::string>>();
    auto* name = held->emplace_back(std::make_unique<std::string>(flag.name)).get();
    auto* description = held->emplace_back(std::make_unique<std::string>(
        absl::StrCat("Deprecated: use -passes='", absl::StrJoin(spellings, ","), "'"))).get();
    static auto* options = new std::vector<std::unique_ptr<cl::opt<std::string>>>();
    flag.option = options->emplace_back(std::make_unique<cl::opt<std::string>>(
        llvm::StringRef(*name), cl::desc(llvm::StringRef(*description)),
        all_bool ? cl::ValueOptional : cl::ValueRequired, cl::cat(HoptCategory()))).get();
  }
  return flags;
}

// Each deprecated flag given becomes the default of its pass options (the
// pipeline text still wins), with a one-line warning.
absl::Status ApplyAliasFlags(const std::vector<AliasFlag>& flags, hopt::PassRegistry& registry) {
  for (const AliasFlag& flag : flags) {
    if (flag.option->getNumOccurrences() == 0) continue;
    std::vector<std::string> spellings;
    for (const hopt::FlagAlias* alias : flag.targets) {
      std::string value = flag.option->getValue();
      const hopt::PassInfo* info = registry.Find(alias->pass);
      if (info == nullptr) continue;
      for (const hopt::PassOptionSpec& spec : info->options)
        if (spec.name == alias->option && spec.type == hopt::PassOptionType::kBool &&
            value.empty())
          value = "true";
      if (absl::Status set = registry.SetFlagDefault(alias->pass, alias->option, value);
          !set.ok())
        return absl::InvalidArgumentError(absl::StrCat("-", flag.name, ": ", set.message()));
      bool plain = !value.empty() && value.find_first_of(" \t,{}'\"") == std::string::npos;
      spellings.push_back(absl::StrCat(alias->pass, "{", alias->option, "=",
                                       plain ? value : absl::StrCat("'", value, "'"), "}"));
    }
    std::fprintf(stderr, "hopt: warning: -%s is deprecated; use -passes='%s'\n",
                 flag.name.c_str(), absl::StrJoin(spellings, ",").c_str());
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  hopt::InstallCrashReporter("hopt");
  hopt::KeepFreedMemoryForReuse();
  hopt::ReleaseLibraryCodePages("libLLVM");
  AdoptLlvmOptions();
  auto* options = new DriverOptions();  // lives until exit, like any cl::opt
  cl::HideUnrelatedOptions(HoptCategory());
  hopt::tools::SetUpToolInfo("hopt");
  if (hopt::tools::CompareWithGiven(argc, argv)) error_status = hopt::tools::kCompareCouldNotRun;

  // Plugins first: their options must exist when the line is parsed.
  hopt::tools::PluginArguments plugin_arguments = hopt::tools::PrescanPluginArguments(argc, argv);
  // Everything the plugins register; lives until exit.
  // Reachable until exit through a static (plugins' code stays loaded and
  // nothing is torn down; LeakSanitizer sees it as held, not leaked).
  static auto* extensions = new hopt::Extensions();
  hopt::PassRegistry& registry = extensions->passes;
  registry.set_allow_override(plugin_arguments.override_passes);
  auto load_started = std::chrono::steady_clock::now();
  absl::Status loaded = hopt::tools::LoadPlugins(plugin_arguments.loads, *extensions);
  if (!loaded.ok()) return Fail(std::string(loaded.message()));
  auto alias_flags = DefineAliasFlags(registry);
  if (!alias_flags.ok()) return Fail(std::string(alias_flags.status().message()));
  // -help ends with the loaded plugins' passes and their options.
  for (int i = 1; i < argc; ++i)
    if (absl::StartsWith(argv[i], "-help") || absl::StartsWith(argv[i], "--help")) {
      if (registry.List().empty()) break;
      auto* passes_help = new std::string(absl::StrCat(
          "\nPasses of the loaded plugins (-passes='a,b{option=value}'):\n\n",
          FormatPassList(registry)));
      new cl::extrahelp(passes_help->c_str());
      break;
    }

  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "hopt: runs pass pipelines over XLA HLO modules\n\n"
                                   "  hopt -load=PLUGIN.so -passes=a,b in.hlo -o out.hlo\n",
                                   &llvm::errs()))
    return error_status;  // LLVM has said why
  hopt::SetDebugTypes(options->debug_only);
  hopt::SetMaxInputBytes(options->max_input_size);
  if (absl::Status applied = ApplyAliasFlags(*alias_flags, registry); !applied.ok())
    return Fail(std::string(applied.message()));

  if (options->list_pipelines) {
    ListPipelines(registry);
    if (absl::Status printed = hopt::FinishStandardOutput(); !printed.ok())
      return Fail(std::string(printed.message()));
    return 0;
  }
  if (options->list_passes) {
    std::fputs(FormatPassList(registry).c_str(), stdout);
    if (absl::Status printed = hopt::FinishStandardOutput(); !printed.ok())
      return Fail(std::string(printed.message()));
    if (std::getenv("HOPT_REPORT_LOAD_TIME") != nullptr) {
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            load_started).count();
      std::fprintf(stderr, "hopt: plugin load + list-passes: %.3f ms\n", ms);
    }
    return 0;
  }

  // The whole pipeline (named pipelines expanded, options checked) is
  // checked before any input is read.
  std::vector<hopt::PipelinePass> pipeline;
  auto passes = hopt::ParsePipeline(options->passes, registry, &pipeline);
  if (!passes.ok()) return Fail(std::string(passes.status().message()));
  if (absl::Status apart = CheckOutputsApart(*options, pipeline); !apart.ok())
    return Fail(std::string(apart.message()));
  // The pipeline with named pipelines expanded, for -compare-with's second
  // run: passes it cannot find in theirs.so run there from our plugins.
  std::string pipeline_text;
  for (const hopt::PipelinePass& pass : pipeline)
    absl::StrAppend(&pipeline_text, pipeline_text.empty() ? "" : ",", pass.name,
                    pass.options.GivenAsText());

  std::string input_name = options->input == "-" ? "<stdin>" : std::string(options->input);
  std::string error;
  std::vector<std::unique_ptr<hopt::HloModule>> modules;
  hopt::HloFileFormat input_format = hopt::HloFileFormatFromPath(options->input);
  if (!options->input_format.empty()) {
    auto format = hopt::ParseHloFileFormat(options->input_format);
    if (!format) return Fail("-input-format must be text, pb or pbtxt");
    input_format = *format;
  }
  hopt::HloFileFormat output_format =
      options->output == "-" ? hopt::HloFileFormat::kText
                             : hopt::HloFileFormatFromPath(options->output);
  if (!options->output_format.empty()) {
    auto format = hopt::ParseHloFileFormat(options->output_format);
    if (!format) return Fail("-output-format must be text, pb or pbtxt");
    output_format = *format;
  }
  auto read_started = std::chrono::steady_clock::now();
  if (options->split_input_file && (input_format != hopt::HloFileFormat::kText ||
                                    output_format != hopt::HloFileFormat::kText))
    return Fail("-split-input-file works on HLO text only");
  // What a .pb/.pbtxt held that the IR does not model, written back with
  // the module (core/proto/side_table.h).
  hopt::ProtoSideTable proto_side;
  if (input_format != hopt::HloFileFormat::kText ||
      (!options->split_input_file && options->input != "-")) {
    auto module = input_format != hopt::HloFileFormat::kText
                      ? hopt::ReadHloModuleFile(options->input, input_name, input_format,
                                                &proto_side)
                      : hopt::ParseHloModuleFromFile(options->input, input_name);
    if (!module.ok()) {
      hopt::ReportError("hopt", module.status());
      return error_status;
    }
    modules.push_back(*std::move(module));
  } else {
    auto file = hopt::MappedFile::Open(options->input, hopt::MappedFile::Content::kText);
    if (!file.ok()) return Fail(std::string(file.status().message()));
    for (const ModuleText& part : SplitInput((*file)->bytes(), options->split_input_file)) {
      auto module = hopt::ParseHloModuleAt(part.text, input_name, part.first_line);
      if (!module.ok()) {
        hopt::ReportError("hopt", module.status());
        return error_status;
      }
      modules.push_back(*std::move(module));
    }
  }

  if (options->time_read)
    std::fprintf(stderr, "hopt: read %s: %.3f s\n", input_name.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - read_started)
                     .count());

  hopt::PrintOptions print_options =
      options->print_style == DriverOptions::Style::kShort
          ? hopt::PrintOptions::Short()
          : hopt::PrintOptions::Long(options->print_operand_shapes);
  hopt::Instrumentation instrumentation;
  instrumentation.verify_each = options->verify_each;
  instrumentation.print_before = llvm::printBeforePasses();
  instrumentation.print_after = llvm::printAfterPasses();
  instrumentation.print_before_all = llvm::shouldPrintBeforeAll();
  instrumentation.print_after_all = llvm::shouldPrintAfterAll();
  instrumentation.print_changed = LlvmOptionGiven("print-changed") &&
                                  llvm::PrintChanged != llvm::ChangePrinter::None;
  instrumentation.time_passes = llvm::TimePassesIsEnabled;
  instrumentation.callgrind_per_pass = options->callgrind_per_pass;
  instrumentation.print_options = print_options;
  instrumentation.registry = &registry;

  int64_t equivalence_sets = 0;
  if (options->verify_equivalence.getNumOccurrences() > 0) {
    equivalence_sets = 3;
    if (!options->verify_equivalence.empty() &&
        (!absl::SimpleAtoi(options->verify_equivalence.getValue(), &equivalence_sets) ||
         equivalence_sets < 1 || equivalence_sets > 1000))
      return Fail("-verify-equivalence takes a count from 1 to 1000");
  }
  // Leaving them out means the module's mesh (or the inferred one); 0 or
  // less is no mesh at all.
  for (const auto* option : {&options->replicas, &options->partitions})
    if (option->getNumOccurrences() > 0 && *option < 1)
      return Fail(absl::StrCat("-", option->ArgStr.str(), "=", option->getValue(),
                               ": must be a positive integer"));

  if (!options->compare_keep.empty() && options->compare_with.empty())
    return Fail("-compare-keep needs -compare-with");
  hopt::tools::CompareRequest compare{
      options->compare_with, options->compare_child_dir, options->compare_keep, pipeline_text,
      options->compare_sets,
      options->compare_strict, options->equivalence_seed, options->split_input_file,
      plugin_arguments.loads, std::vector<std::string>(argv, argv + argc), &registry,
      options->replicas, options->partitions, options->opaque_custom_calls};
  compare.custom_calls = &extensions->custom_calls;
  for (auto& module : modules) {
    std::unique_ptr<hopt::HloModule> original;
    if (equivalence_sets > 0) original = module->Clone();
    if (options->verify) {
      absl::Status valid = hopt::VerifyInput(*module, input_name);
      if (!valid.ok()) {
        hopt::ReportError("hopt", valid);
        return error_status;
      }
    }
    hopt::eval::EvalOptions eval_options;
    eval_options.opaque_custom_calls = options->opaque_custom_calls;
    eval_options.custom_calls = &extensions->custom_calls;
    if (original != nullptr) {
      // On the input, which still knows where each call stands.
      if (eval_options.opaque_custom_calls == hopt::eval::EvalOptions::OpaqueCustomCalls::kRefuse)
        if (absl::Status refused = hopt::eval::RefuseOpaqueCustomCalls(*module, eval_options.custom_calls); !refused.ok()) {
          hopt::ReportError("hopt", refused);
          return error_status;
        }
      hopt::eval::MeshChoice mesh =
          hopt::eval::ChooseMesh(*module, options->replicas, options->partitions,
                                 eval_options.custom_calls);
      if (!mesh.note.empty()) std::fprintf(stderr, "hopt: %s\n", mesh.note.c_str());
      eval_options.replicas = mesh.mesh.replicas;
      eval_options.partitions = mesh.mesh.partitions;
    }
    auto ran = compare.requested() ? hopt::tools::RunPipelineWithComparison(
                                         compare, *module, *passes, instrumentation)
                                   : hopt::RunPipeline(*module, *passes, instrumentation);
    if (!ran.ok()) {
      Fail(std::string(ran.status().message()));
      return compare.requested() && compare.child_dir.empty()
                 ? hopt::tools::CompareExitStatus(ran.status())
                 : error_status;
    }
    if (original != nullptr) {
      absl::Status same = VerifyEquivalence(*original, *module, equivalence_sets,
                                            options->equivalence_seed, eval_options);
      if (!same.ok()) return Fail(std::string(same.message()));
    }
  }

  // Drawn now, committed only after the output (tools/emit_dot.h).
  hopt::tools::DotFiles dot_files;
  if (!options->emit_dot.empty()) {
    absl::Status drawn = dot_files.Prepare(
        modules, {options->emit_dot, options->emit_dot_computation,
                  options->emit_dot_max_nodes, options->emit_dot_svg,
                  &extensions->dot_highlights});
    if (!drawn.ok()) return Fail(std::string(drawn.message()));
  }

  // Only now, with everything done, is the output written.
  std::string proto_output;
  if (output_format != hopt::HloFileFormat::kText) {
    auto bytes = output_format == hopt::HloFileFormat::kProto
                     ? hopt::ModuleToProtoBinary(*modules[0],
                                                 absl::EndsWith(options->output, ".gz"),
                                                 &proto_side)
                     : hopt::ModuleToProtoText(*modules[0], &proto_side);
    if (!bytes.ok()) return Fail(std::string(bytes.status().message()));
    proto_output = *std::move(bytes);
  }
  absl::StatusOr<std::unique_ptr<hopt::OutputFile>> output = hopt::OutputFile::Open(options->output);
  if (!output.ok()) return Fail(std::string(output.status().message()));
  if (output_format != hopt::HloFileFormat::kText) {
    (*output)->Write(proto_output);
  } else {
    for (size_t i = 0; i < modules.size(); ++i) {
      if (i > 0) (*output)->Write("// -----\n");
      hopt::PrintModule(*modules[i], print_options,
                        [&](absl::string_view chunk) { (*output)->Write(chunk); });
    }
  }
  if (absl::Status committed = (*output)->Commit(); !committed.ok())
    return Fail(std::string(committed.message()));
  // The plugins' directories (a split) and the graph follow the module:
  // a run that could not write its output leaves none of them.
  if (absl::Status committed = hopt::CommitDeferredOutputs(); !committed.ok())
    return Fail(std::string(committed.message()));
  if (absl::Status committed = dot_files.Commit(); !committed.ok())
    return Fail(std::string(committed.message()));
  return 0;
}

#include "tools/hopt_driver/hopt_main.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/mesh_compare.h"
#include "core/eval/mesh_inference.h"
#include "core/ir/input_limits.h"
#include "core/pass_manager/crash_report.h"
#include "core/proto/io.h"
#include "core/support/heap_policy.h"
#include "core/support/startup_pages.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pipeline.h"
#include "hopt/pass_manager/registrar.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/output_file.h"
#include "hopt/support/status_macros.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "tools/common/emit_dot.h"
#include "tools/common/equivalence.h"
#include "tools/common/proof.h"
#include "tools/hopt_driver/hopt_options.h"
#include "tools/common/input_reading.h"
#include "tools/common/pass_instrumentation.h"
#include "tools/common/provider_compare.h"
#include "tools/common/tool_info.h"
#include "tools/common/tool_plugins.h"

namespace hopt {
namespace tools {
namespace {

constexpr char kTool[] = "hopt";

// Two names of one file: the same file when both exist, else the same
// spelling once made absolute.
bool SamePath(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  bool same = false;
  if (!llvm::sys::fs::equivalent(a, b, same)) return same;
  return NormalizePath(a) == NormalizePath(b);
}

// An extra output (-emit-dot, a plugin's directory) that is also the input
// or -o would overwrite the one or race the other: refused before anything
// runs.
absl::Status CheckOutputsApart(const HoptOptions& options,
                               const std::vector<PipelinePass>& pipeline) {
  std::vector<std::pair<std::string, std::string>> extra;
  if (!options.emit_dot.empty())
    for (const std::string& file :
         EmitDotTargets({options.emit_dot, "", 0, options.emit_dot_svg}))
      extra.emplace_back("-emit-dot", file);
  // A pass's output-path options (marker-splitter{output-dir=...}, say).
  for (const PipelinePass& pass : pipeline)
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

// What one run of hopt carries from step to step.
struct Driver {
  explicit Driver(HoptOptions& options) : options(options) {}

  // Every error exits 1, except under -compare-with, whose exit statuses
  // tell a difference (1) from a comparison that could not run (2):
  // tools/common/provider_compare.h.
  int ExitStatus(const absl::Status& status) const {
    return error_status == kCompareCouldNotRun ? CompareExitStatus(status) : error_status;
  }
  int Fail(const absl::Status& status) const {
    return ReportFailure(kTool, status, ExitStatus(status));
  }

  HoptOptions& options;
  int error_status = 1;
  std::vector<std::string> argv;
  PluginArguments plugin_arguments;
  Extensions* extensions = nullptr;  // what the plugins registered
  std::chrono::steady_clock::time_point load_started;
  std::vector<AliasFlag> alias_flags;
  std::vector<PipelinePass> pipeline;
  std::vector<std::unique_ptr<Pass>> passes;
  // The pipeline with named pipelines expanded, for -compare-with's second
  // run: passes it cannot find in theirs.so run there from our plugins.
  std::string pipeline_text;
  std::string input_name;
  HloFileFormat input_format = HloFileFormat::kText;
  HloFileFormat output_format = HloFileFormat::kText;
  // What a .pb/.pbtxt held that the IR does not model, written back with
  // the module (core/proto/side_table.h).
  ProtoSideTable proto_side;
  std::vector<std::unique_ptr<HloModule>> modules;
  int64_t equivalence_sets = 0;
  EquivalenceMode equivalence_mode = EquivalenceMode::kAuto;
};

// -help ends with the loaded plugins' passes and their options.
void AddPassesToHelp(const PassRegistry& registry, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (absl::StartsWith(argv[i], "-help") || absl::StartsWith(argv[i], "--help")) {
      if (registry.List().empty()) return;
      auto* passes_help = new std::string(absl::StrCat(
          "\nPasses of the loaded plugins (-passes='a,b{option=value}'):\n\n",
          FormatPassList(registry)));
      new cl::extrahelp(passes_help->c_str());
      return;
    }
}

// Plugins first: their options (deprecated flags) must exist when the line
// is parsed. False: the command line is wrong, and LLVM has said why.
absl::StatusOr<bool> LoadPluginsAndParse(Driver& d, int argc, char** argv) {
  d.plugin_arguments = PrescanPluginArguments(argc, argv);
  // Reachable until exit through a static (plugins' code stays loaded and
  // nothing is torn down; LeakSanitizer sees it as held, not leaked).
  static auto* extensions = new Extensions();
  d.extensions = extensions;
  PassRegistry& registry = extensions->passes;
  registry.set_allow_override(d.plugin_arguments.override_passes);
  d.load_started = std::chrono::steady_clock::now();
  HOPT_RETURN_IF_ERROR(LoadPlugins(d.plugin_arguments.loads, *extensions));
  HOPT_ASSIGN_OR_RETURN(d.alias_flags, DefineAliasFlags(registry));
  AddPassesToHelp(registry, argc, argv);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "hopt: runs pass pipelines over XLA HLO modules\n\n"
                                   "  hopt -load=PLUGIN.so -passes=a,b in.hlo -o out.hlo\n",
                                   &llvm::errs()))
    return false;
  SetDebugTypes(d.options.debug_only);
  SetMaxInputBytes(d.options.max_input_size);
  HOPT_RETURN_IF_ERROR(ApplyAliasFlags(d.alias_flags, registry));
  return true;
}

// -list-pipelines, -list-passes.
absl::Status ListRegistry(const Driver& d) {
  const PassRegistry& registry = d.extensions->passes;
  if (d.options.list_pipelines) {
    ListPipelines(registry);
    return FinishStandardOutput();
  }
  std::fputs(FormatPassList(registry).c_str(), stdout);
  HOPT_RETURN_IF_ERROR(FinishStandardOutput());
  if (std::getenv("HOPT_REPORT_LOAD_TIME") != nullptr) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                          d.load_started).count();
    std::fprintf(stderr, "hopt: plugin load + list-passes: %.3f ms\n", ms);
  }
  return absl::OkStatus();
}

// The whole pipeline (named pipelines expanded, options checked) is
// checked before any input is read.
// -print-before/-print-after name passes; a misspelt one would print
// nothing and say nothing.
absl::Status CheckPrintedPassNames(const PassRegistry& registry) {
  for (const auto& [flag, names] :
       {std::pair{"-print-before", llvm::printBeforePasses()},
        std::pair{"-print-after", llvm::printAfterPasses()}}) {
    for (const std::string& name : names) {
      if (registry.Find(name) != nullptr) continue;
      return absl::InvalidArgumentError(absl::StrCat(flag, ": unknown pass '", name, "'",
                                                     registry.SuggestionFor(name)));
    }
  }
  return absl::OkStatus();
}

absl::Status PreparePipeline(Driver& d) {
  HOPT_RETURN_IF_ERROR(CheckPrintedPassNames(d.extensions->passes));
  HOPT_ASSIGN_OR_RETURN(d.passes,
                        ParsePipeline(d.options.passes, d.extensions->passes, &d.pipeline));
  HOPT_RETURN_IF_ERROR(CheckOutputsApart(d.options, d.pipeline));
  for (const PipelinePass& pass : d.pipeline)
    absl::StrAppend(&d.pipeline_text, d.pipeline_text.empty() ? "" : ",", pass.name,
                    pass.options.GivenAsText());
  return absl::OkStatus();
}

// -input-format, -output-format, else what the file names say.
absl::Status ChooseFormats(Driver& d) {
  const HoptOptions& options = d.options;
  d.input_format = HloFileFormatFromPath(options.input);
  if (!options.input_format.empty()) {
    auto format = ParseHloFileFormat(options.input_format);
    if (!format) return absl::InvalidArgumentError("-input-format must be text, pb or pbtxt");
    d.input_format = *format;
  }
  d.output_format = options.output == "-" ? HloFileFormat::kText
                                          : HloFileFormatFromPath(options.output);
  if (!options.output_format.empty()) {
    auto format = ParseHloFileFormat(options.output_format);
    if (!format) return absl::InvalidArgumentError("-output-format must be text, pb or pbtxt");
    d.output_format = *format;
  }
  if (options.split_input_file &&
      (d.input_format != HloFileFormat::kText || d.output_format != HloFileFormat::kText))
    return absl::InvalidArgumentError("-split-input-file works on HLO text only");
  return absl::OkStatus();
}

absl::Status ReadInput(Driver& d) {
  const HoptOptions& options = d.options;
  d.input_name = options.input == "-" ? "<stdin>" : std::string(options.input);
  auto read_started = std::chrono::steady_clock::now();
  HOPT_ASSIGN_OR_RETURN(
      d.modules, ReadInputModules({options.input, d.input_name, d.input_format,
                                   options.split_input_file},
                                  &d.proto_side));
  if (options.time_read)
    std::fprintf(stderr, "hopt: read %s: %.3f s\n", d.input_name.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - read_started)
                     .count());
  return absl::OkStatus();
}

// The options about running that only make sense together or in a range.
absl::Status CheckRunOptions(Driver& d) {
  const HoptOptions& options = d.options;
  if (options.verify_equivalence.getNumOccurrences() > 0) {
    HOPT_ASSIGN_OR_RETURN(EquivalenceRequest request,
                          ParseEquivalenceRequest(options.verify_equivalence.getValue()));
    d.equivalence_sets = request.sets;
    d.equivalence_mode = request.mode;
    if (request.mode == EquivalenceMode::kRegion && !options.compare_with.empty())
      return absl::InvalidArgumentError(
          "-verify-equivalence=region checks the passes one by one, which -compare-with does "
          "too: give one of them");
  }
  if (!options.verify_equivalence_with.empty()) {
    if (!options.compare_with.empty())
      return absl::InvalidArgumentError(
          "-verify-equivalence-with and -compare-with are two checks: give one at a time");
    if (options.split_input_file)
      return absl::InvalidArgumentError(
          "-verify-equivalence-with checks one module, not with -split-input-file");
    // The same input sets as -verify-equivalence, which may set the count.
    if (d.equivalence_sets == 0) d.equivalence_sets = 3;
  }
  const bool prove = options.prove_equivalence || !options.prove_equivalence_with.empty();
  if (prove) {
    if (!ProofsAvailable()) return ProofsUnavailableError();
    if (!options.compare_with.empty())
      return absl::InvalidArgumentError(
          "-prove-equivalence and -compare-with are two checks: give one at a time");
    if (!options.prove_equivalence_with.empty() && options.split_input_file)
      return absl::InvalidArgumentError(
          "-prove-equivalence-with proves one module, not with -split-input-file");
    if (options.prove_timeout < 1)
      return absl::InvalidArgumentError("-prove-timeout must be at least 1 second");
    if (options.prove_memory < 64)
      return absl::InvalidArgumentError("-prove-memory must be at least 64 (MB)");
  }
  HOPT_RETURN_IF_ERROR(CheckMeshOptions(options.replicas, options.partitions));
  if (!options.compare_keep.empty() && options.compare_with.empty())
    return absl::InvalidArgumentError("-compare-keep needs -compare-with");
  return absl::OkStatus();
}

PrintOptions OutputPrintOptions(const HoptOptions& options) {
  return options.print_style == HoptOptions::Style::kShort
             ? PrintOptions::Short()
             : PrintOptions::Long(options.print_operand_shapes);
}

// The pass manager's prints and checks, and hopt's measurements as
// callbacks around each pass (tools/common/pass_instrumentation.h).
Instrumentation MakeInstrumentation(const Driver& d) {
  Instrumentation instrumentation;
  instrumentation.verify_each = d.options.verify_each;
  instrumentation.print_before = llvm::printBeforePasses();
  instrumentation.print_after = llvm::printAfterPasses();
  instrumentation.print_before_all = llvm::shouldPrintBeforeAll();
  instrumentation.print_after_all = llvm::shouldPrintAfterAll();
  instrumentation.print_changed = LlvmOptionGiven("print-changed") &&
                                  llvm::PrintChanged != llvm::ChangePrinter::None;
  instrumentation.print_options = OutputPrintOptions(d.options);
  instrumentation.registry = &d.extensions->passes;
  // The table encloses the callgrind counts, as the first callbacks
  // enclose the later ones.
  if (llvm::TimePassesIsEnabled)
    instrumentation.callbacks.push_back(TimePassesCallbacks(llvm::errs()));
  if (d.options.callgrind_per_pass)
    instrumentation.callbacks.push_back(CallgrindPerPassCallbacks());
  return instrumentation;
}

// -verify-equivalence's interpreter options for `module`, on the input,
// which still knows where each call stands.
absl::StatusOr<eval::EvalOptions> EquivalenceOptions(const Driver& d, const HloModule& module) {
  eval::EvalOptions eval_options;
  eval_options.opaque_custom_calls = d.options.opaque_custom_calls;
  eval_options.custom_calls = &d.extensions->custom_calls;
  if (eval_options.opaque_custom_calls == eval::EvalOptions::OpaqueCustomCalls::kRefuse)
    HOPT_RETURN_IF_ERROR(eval::RefuseOpaqueCustomCalls(module, eval_options.custom_calls));
  eval::MeshChoice mesh = eval::ChooseMesh(module, d.options.replicas, d.options.partitions,
                                           eval_options.custom_calls);
  if (!mesh.note.empty()) std::fprintf(stderr, "hopt: %s\n", mesh.note.c_str());
  eval_options.replicas = mesh.mesh.replicas;
  eval_options.partitions = mesh.mesh.partitions;
  return eval_options;
}

// The module is verified before it is written, whatever the options: with
// -verify-each=false no pass was checked, and a broken result must not
// leave hopt as a success. Under -verify-each the last pass's check has
// already done it, and with no pass the output is the input (-verify).
absl::Status VerifyResult(const Driver& d, const HloModule& module) {
  if (d.passes.empty() || d.options.verify_each) return absl::OkStatus();
  absl::Status valid = VerifyModule(module);
  if (valid.ok()) return valid;
  return absl::InternalError(absl::StrCat(
      "the pipeline produced an invalid module (-verify-each=false: no pass was checked "
      "alone; drop it to find the pass): ",
      valid.message()));
}

// Verifies each module, runs the pipeline over it (with -compare-with's
// second process when asked) and checks -verify-equivalence.
absl::Status RunPipelines(Driver& d) {
  const HoptOptions& options = d.options;
  Instrumentation instrumentation = MakeInstrumentation(d);
  CompareRequest compare{
      options.compare_with, options.compare_child_dir, options.compare_keep, d.pipeline_text,
      options.compare_sets, options.compare_strict, options.equivalence_seed,
      options.split_input_file, d.plugin_arguments.loads, d.argv, &d.extensions->passes,
      options.replicas, options.partitions, options.opaque_custom_calls};
  compare.custom_calls = &d.extensions->custom_calls;
  for (auto& module : d.modules) {
    std::unique_ptr<HloModule> original;
    const bool against_file = !options.verify_equivalence_with.empty();
    const bool verify_equivalence = options.verify_equivalence.getNumOccurrences() > 0;
    const bool prove_against_file = !options.prove_equivalence_with.empty();
    if (options.verify) HOPT_RETURN_IF_ERROR(VerifyInput(*module, d.input_name));
    eval::EvalOptions eval_options;
    if (verify_equivalence || against_file || options.prove_equivalence || prove_against_file) {
      HOPT_ASSIGN_OR_RETURN(eval_options, EquivalenceOptions(d, *module));
    }
    // Region checks hook into the passes; -compare-with runs them itself.
    Instrumentation module_instrumentation = instrumentation;
    std::unique_ptr<RegionVerifier> by_region;
    if (verify_equivalence) {
      std::string why;
      EquivalenceMode mode =
          compare.requested()
              ? EquivalenceMode::kWhole
              : ResolveEquivalenceMode(d.equivalence_mode, *module, eval_options, &why);
      if (!why.empty())
        std::fprintf(stderr, "hopt: verify-equivalence: by region: %s\n", why.c_str());
      if (mode == EquivalenceMode::kWhole) {
        original = module->Clone();
      } else {
        by_region = std::make_unique<RegionVerifier>(d.equivalence_sets,
                                                     options.equivalence_seed, eval_options);
        by_region->Attach(module_instrumentation);
      }
    }
    ProofRequest proof_request{options.prove_timeout * 1000, options.prove_memory,
                               options.counterexample_file};
    std::unique_ptr<RegionProver> prover;
    if (options.prove_equivalence) {
      prover = std::make_unique<RegionProver>(proof_request, eval_options);
      prover->Attach(module_instrumentation);
    }
    HOPT_RETURN_IF_ERROR(
        (compare.requested()
             ? RunPipelineWithComparison(compare, *module, d.passes, module_instrumentation)
             : RunPipeline(*module, d.passes, module_instrumentation))
            .status());
    HOPT_RETURN_IF_ERROR(VerifyResult(d, *module));
    if (by_region != nullptr) by_region->PrintSummary();
    if (prover != nullptr) prover->PrintSummary();
    if (original != nullptr)
      HOPT_RETURN_IF_ERROR(VerifyEquivalence(*original, *module, d.equivalence_sets,
                                             options.equivalence_seed, eval_options));
    if (against_file)
      HOPT_RETURN_IF_ERROR(VerifyAgainstFile(*module, options.verify_equivalence_with,
                                             d.equivalence_sets, options.equivalence_seed,
                                             d.equivalence_mode, eval_options));
    if (prove_against_file)
      HOPT_RETURN_IF_ERROR(
          ProveAgainstFile(*module, options.prove_equivalence_with, proof_request, eval_options));
  }
  return absl::OkStatus();
}

// Only now, with everything done, is the output written; the files that
// go with it follow it.
absl::Status WriteOutputs(Driver& d) {
  const HoptOptions& options = d.options;
  // Drawn now, committed only after the output (tools/common/emit_dot.h).
  DotFiles dot_files;
  if (!options.emit_dot.empty())
    HOPT_RETURN_IF_ERROR(dot_files.Prepare(
        d.modules, {options.emit_dot, options.emit_dot_computation, options.emit_dot_max_nodes,
                    options.emit_dot_svg, &d.extensions->dot_highlights}));
  std::string proto_output;
  if (d.output_format != HloFileFormat::kText) {
    HOPT_ASSIGN_OR_RETURN(
        proto_output,
        d.output_format == HloFileFormat::kProto
            ? ModuleToProtoBinary(*d.modules[0], absl::EndsWith(options.output, ".gz"),
                                  &d.proto_side)
            : ModuleToProtoText(*d.modules[0], &d.proto_side));
  }
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> output, OutputFile::Open(options.output));
  if (d.output_format != HloFileFormat::kText) {
    output->Write(proto_output);
  } else {
    PrintOptions print_options = OutputPrintOptions(options);
    for (size_t i = 0; i < d.modules.size(); ++i) {
      if (i > 0) output->Write("// -----\n");
      PrintModule(*d.modules[i], print_options,
                  [&](absl::string_view chunk) { output->Write(chunk); });
    }
  }
  HOPT_RETURN_IF_ERROR(output->Commit());
  // The plugins' directories (a split) and the graph follow the module:
  // a run that could not write its output leaves none of them.
  HOPT_RETURN_IF_ERROR(CommitDeferredOutputs());
  return dot_files.Commit();
}

absl::Status PipelineRun(Driver& d) {
  HOPT_RETURN_IF_ERROR(PreparePipeline(d));
  HOPT_RETURN_IF_ERROR(ChooseFormats(d));
  HOPT_RETURN_IF_ERROR(ReadInput(d));
  HOPT_RETURN_IF_ERROR(CheckRunOptions(d));
  HOPT_RETURN_IF_ERROR(RunPipelines(d));
  return WriteOutputs(d);
}

}  // namespace

int HoptMain(int argc, char** argv) {
  InstallCrashReporter(kTool);
  KeepFreedMemoryForReuse();
  ReleaseLibraryCodePages("libLLVM");
  AdoptLlvmOptions();
  auto* options = new HoptOptions();  // lives until exit, like any cl::opt
  cl::HideUnrelatedOptions(HoptCategory());
  SetUpToolInfo(kTool);
  Driver driver(*options);
  driver.argv.assign(argv, argv + argc);
  if (CompareWithGiven(argc, argv) || ValueOptionGiven(argc, argv, "verify-equivalence-with") ||
      ValueOptionGiven(argc, argv, "prove-equivalence-with"))
    driver.error_status = kCompareCouldNotRun;

  absl::StatusOr<bool> parsed = LoadPluginsAndParse(driver, argc, argv);
  if (!parsed.ok()) return driver.Fail(parsed.status());
  if (!*parsed) return driver.error_status;  // LLVM has said why
  absl::Status done = options->list_pipelines || options->list_passes ? ListRegistry(driver)
                                                                      : PipelineRun(driver);
  return done.ok() ? 0 : driver.Fail(done);
}

}  // namespace tools
}  // namespace hopt

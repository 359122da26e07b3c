// SPDX-License-Identifier: Apache-2.0

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
#include "core/eval/tooling/mesh_compare.h"
#include "core/eval/tooling/mesh_inference.h"
#include "core/ir/tooling/input_limits.h"
#include "core/pass_manager/tooling/crash_report.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "core/proto/tooling/io.h"
#include "core/support/tooling/heap_policy.h"
#include "core/support/tooling/startup_pages.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/registrar.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/output_file.h"
#include "hopt/support/status_macros.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "tools/common/emit_dot.h"
#include "tools/common/equivalence.h"
#include "tools/common/input_reading.h"
#include "tools/common/pass_instrumentation.h"
#include "tools/common/proof.h"
#include "tools/common/provider_compare.h"
#include "tools/common/tool_info.h"
#include "tools/common/tool_plugins.h"
#include "tools/hopt_driver/hopt_options.h"

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
absl::Status CheckOutputsApart(const HoptConfig& config, const HoptInput& input,
                               const HoptOutput& output,
                               const std::vector<PipelinePass>& pipeline) {
  std::vector<std::pair<std::string, std::string>> extra;
  if (!config.emit_dot.empty())
    for (const std::string& file : EmitDotTargets({config.emit_dot, "", 0, config.emit_dot_svg}))
      extra.emplace_back("-emit-dot", file);
  // A pass's output-path options (marker-splitter{output-dir=...}, say).
  for (const PipelinePass& pass : pipeline)
    for (auto& [option, path] : pass.options.OutputPaths())
      extra.emplace_back(absl::StrCat(pass.name, "{", option, "}"), path);
  for (const auto& [option, path] : extra) {
    if (!input.contents.has_value() && SamePath(path, input.path))
      return absl::InvalidArgumentError(
          absl::StrCat(option, ": '", path, "' is also the input; refusing to overwrite it"));
    if (output.buffer == nullptr && SamePath(path, output.path))
      return absl::InvalidArgumentError(
          absl::StrCat(option, ": '", path, "' is also the -o output"));
  }
  return absl::OkStatus();
}

// What one run of hopt carries from step to step.
struct Driver {
  Driver(const HoptConfig& config, const HoptInput& input, const HoptOutput& output)
      : config(config), input(input), output(output) {}

  const HoptConfig& config;
  const HoptInput& input;
  const HoptOutput& output;
  std::vector<std::string> loads;    // every plugin in `extensions`, for -compare-with
  Extensions* extensions = nullptr;  // what the plugins registered
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
      auto* passes_help = new std::string(
          absl::StrCat("\nPasses of the loaded plugins (-passes='a,b{option=value}'):\n\n",
                       FormatPassList(registry)));
      new cl::extrahelp(passes_help->c_str());
      return;
    }
}

// -list-pipelines, -list-passes: into the output buffer when there is one,
// else on standard output (whatever -o says).
absl::Status ListRegistry(const Driver& d) {
  const PassRegistry& registry = d.extensions->passes;
  std::string listing =
      d.config.list_pipelines ? FormatPipelineList(registry) : FormatPassList(registry);
  if (d.output.buffer != nullptr) {
    *d.output.buffer = std::move(listing);
    return absl::OkStatus();
  }
  std::fputs(listing.c_str(), stdout);
  return FinishStandardOutput();
}

// The whole pipeline (named pipelines expanded, options checked) is
// checked before any input is read.
// -print-before/-print-after name passes; a misspelt one would print
// nothing and say nothing.
absl::Status CheckPrintedPassNames(const HoptConfig& config, const PassRegistry& registry) {
  for (const auto& [flag, names] : {std::pair{"-print-before", &config.print_before},
                                    std::pair{"-print-after", &config.print_after}}) {
    for (const std::string& name : *names) {
      if (registry.Find(name) != nullptr) continue;
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": unknown pass '", name, "'", registry.SuggestionFor(name)));
    }
  }
  return absl::OkStatus();
}

absl::Status PreparePipeline(Driver& d) {
  HOPT_RETURN_IF_ERROR(CheckPrintedPassNames(d.config, d.extensions->passes));
  HOPT_ASSIGN_OR_RETURN(d.passes,
                        ParsePipeline(d.config.passes, d.extensions->passes, &d.pipeline));
  HOPT_RETURN_IF_ERROR(CheckOutputsApart(d.config, d.input, d.output, d.pipeline));
  for (const PipelinePass& pass : d.pipeline)
    absl::StrAppend(&d.pipeline_text, d.pipeline_text.empty() ? "" : ",", pass.name,
                    pass.options.GivenAsText());
  return absl::OkStatus();
}

// -input-format, -output-format, else what the file names say.
absl::Status ChooseFormats(Driver& d) {
  const HoptConfig& config = d.config;
  d.input_format = HloFileFormatFromPath(d.input.path);
  if (!config.input_format.empty()) {
    auto format = ParseHloFileFormat(config.input_format);
    if (!format) return absl::InvalidArgumentError("-input-format must be text, pb or pbtxt");
    d.input_format = *format;
  }
  d.output_format =
      d.output.path == "-" ? HloFileFormat::kText : HloFileFormatFromPath(d.output.path);
  if (!config.output_format.empty()) {
    auto format = ParseHloFileFormat(config.output_format);
    if (!format) return absl::InvalidArgumentError("-output-format must be text, pb or pbtxt");
    d.output_format = *format;
  }
  if (config.split_input_file &&
      (d.input_format != HloFileFormat::kText || d.output_format != HloFileFormat::kText))
    return absl::InvalidArgumentError("-split-input-file works on HLO text only");
  return absl::OkStatus();
}

absl::Status ReadInput(Driver& d) {
  const HoptInput& input = d.input;
  d.input_name = input.path == "-" && !input.contents ? "<stdin>" : input.path;
  if (input.module != nullptr) {
    d.modules.push_back(input.module->Clone());
    return absl::OkStatus();
  }
  auto read_started = std::chrono::steady_clock::now();
  HOPT_ASSIGN_OR_RETURN(d.modules, ReadInputModules({input.path, d.input_name, d.input_format,
                                                     d.config.split_input_file,
                                                     input.contents ? &*input.contents : nullptr},
                                                    &d.proto_side));
  if (d.config.time_read)
    std::fprintf(
        stderr, "hopt: read %s: %.3f s\n", d.input_name.c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - read_started).count());
  return absl::OkStatus();
}

// The options about running that only make sense together or in a range.
absl::Status CheckRunOptions(Driver& d) {
  const HoptConfig& options = d.config;
  if (options.verify_equivalence.has_value()) {
    HOPT_ASSIGN_OR_RETURN(EquivalenceRequest request,
                          ParseEquivalenceRequest(*options.verify_equivalence));
    d.equivalence_sets = request.sets;
    d.equivalence_mode = request.mode;
    if (request.mode == EquivalenceMode::kRegion && !options.compare_with.empty())
      return absl::InvalidArgumentError(
          "-verify-equivalence=region checks the passes one by one, which -compare-with does "
          "too: give one of them");
  }
  if (!options.verify_equivalence_with.empty() ||
      options.verify_equivalence_with_module != nullptr) {
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

PrintOptions OutputPrintOptions(const HoptConfig& options) {
  return options.print_style == HoptConfig::PrintStyle::kShort
             ? PrintOptions::Short()
             : PrintOptions::Long(options.print_operand_shapes);
}

// HoptOutput::pass_timings: one entry per pass as it ran, added when the
// pipeline got to its end (RunHopt clears the vector first).
PassCallbacks PassTimingCallbacks(const Driver& d) {
  auto started = std::make_shared<std::chrono::steady_clock::time_point>();
  auto timings = std::make_shared<std::vector<PassTiming>>();
  std::vector<PassTiming>* out = d.output.pass_timings;
  PassCallbacks callbacks;
  callbacks.before_pipeline = [timings](const HloModule&) {
    timings->clear();
    return absl::OkStatus();
  };
  callbacks.before_pass = [started](const Pass&, const HloModule&) {
    *started = std::chrono::steady_clock::now();
  };
  callbacks.after_pass = [started, timings](const Pass& pass, const HloModule&) {
    timings->push_back(
        {std::string(pass.name()),
         std::chrono::duration<double>(std::chrono::steady_clock::now() - *started).count()});
  };
  callbacks.after_pipeline = [timings, out](const HloModule&) {
    out->insert(out->end(), timings->begin(), timings->end());
  };
  return callbacks;
}

// The pass manager's prints and checks, and hopt's measurements as
// callbacks around each pass (tools/common/pass_instrumentation.h).
Instrumentation MakeInstrumentation(const Driver& d) {
  Instrumentation instrumentation;
  instrumentation.verify_each = d.config.verify_each;
  instrumentation.print_before = d.config.print_before;
  instrumentation.print_after = d.config.print_after;
  instrumentation.print_before_all = d.config.print_before_all;
  instrumentation.print_after_all = d.config.print_after_all;
  instrumentation.print_changed = d.config.print_changed;
  instrumentation.print_options = OutputPrintOptions(d.config);
  instrumentation.registry = &d.extensions->passes;
  // The table encloses the callgrind counts, as the first callbacks
  // enclose the later ones.
  if (d.config.time_passes) instrumentation.callbacks.push_back(TimePassesCallbacks(llvm::errs()));
  if (d.config.callgrind_per_pass) instrumentation.callbacks.push_back(CallgrindPerPassCallbacks());
  if (d.output.pass_timings != nullptr) instrumentation.callbacks.push_back(PassTimingCallbacks(d));
  return instrumentation;
}

// -verify-equivalence's interpreter options for `module`, on the input,
// which still knows where each call stands.
absl::StatusOr<eval::EvalOptions> EquivalenceOptions(const Driver& d, const HloModule& module) {
  eval::EvalOptions eval_options;
  eval_options.opaque_custom_calls = d.config.opaque_custom_calls;
  eval_options.custom_calls = &d.extensions->custom_calls;
  if (eval_options.opaque_custom_calls == eval::EvalOptions::OpaqueCustomCalls::kRefuse)
    HOPT_RETURN_IF_ERROR(eval::RefuseOpaqueCustomCalls(module, eval_options.custom_calls));
  eval::MeshChoice mesh =
      eval::ChooseMesh(module, d.config.replicas.value_or(0), d.config.partitions.value_or(0),
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
  if (d.passes.empty() || d.config.verify_each) return absl::OkStatus();
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
  const HoptConfig& options = d.config;
  Instrumentation instrumentation = MakeInstrumentation(d);
  CompareRequest compare{options.compare_with,
                         options.compare_child_dir,
                         options.compare_keep,
                         d.pipeline_text,
                         options.compare_sets,
                         options.compare_strict,
                         options.equivalence_seed,
                         options.split_input_file,
                         d.loads,
                         options.command_line,
                         &d.extensions->passes,
                         options.replicas.value_or(0),
                         options.partitions.value_or(0),
                         options.opaque_custom_calls};
  compare.custom_calls = &d.extensions->custom_calls;
  for (auto& module : d.modules) {
    std::unique_ptr<HloModule> original;
    const bool against_file = !options.verify_equivalence_with.empty() ||
                              options.verify_equivalence_with_module != nullptr;
    const bool verify_equivalence = options.verify_equivalence.has_value();
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
        by_region = std::make_unique<RegionVerifier>(d.equivalence_sets, options.equivalence_seed,
                                                     eval_options);
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
    if (options.verify_equivalence_with_module != nullptr)
      HOPT_RETURN_IF_ERROR(VerifyAgainstModule(
          *module, *options.verify_equivalence_with_module,
          options.verify_equivalence_with.empty() ? "<module>" : options.verify_equivalence_with,
          d.equivalence_sets, options.equivalence_seed, d.equivalence_mode, eval_options));
    else if (against_file)
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
  const HoptConfig& options = d.config;
  // Drawn now, committed only after the output (tools/common/emit_dot.h).
  DotFiles dot_files;
  if (!options.emit_dot.empty())
    HOPT_RETURN_IF_ERROR(dot_files.Prepare(
        d.modules, {options.emit_dot, options.emit_dot_computation, options.emit_dot_max_nodes,
                    options.emit_dot_svg, &d.extensions->dot_highlights}));
  if (d.output.modules != nullptr) {
    *d.output.modules = std::move(d.modules);
    HOPT_RETURN_IF_ERROR(CommitDeferredOutputs());
    return dot_files.Commit();
  }
  std::string proto_output;
  if (d.output_format != HloFileFormat::kText) {
    HOPT_ASSIGN_OR_RETURN(
        proto_output, d.output_format == HloFileFormat::kProto
                          ? ModuleToProtoBinary(*d.modules[0], absl::EndsWith(d.output.path, ".gz"),
                                                &d.proto_side)
                          : ModuleToProtoText(*d.modules[0], &d.proto_side));
  }
  // Streamed: a large module is never held twice as text.
  std::unique_ptr<OutputFile> file;
  if (d.output.buffer != nullptr) {
    d.output.buffer->clear();
  } else {
    HOPT_ASSIGN_OR_RETURN(file, OutputFile::Open(d.output.path));
  }
  auto write = [&](absl::string_view chunk) {
    if (file != nullptr)
      file->Write(chunk);
    else
      d.output.buffer->append(chunk.data(), chunk.size());
  };
  if (d.output_format != HloFileFormat::kText) {
    write(proto_output);
  } else {
    PrintOptions print_options = OutputPrintOptions(options);
    for (size_t i = 0; i < d.modules.size(); ++i) {
      if (i > 0) write("// -----\n");
      PrintModule(*d.modules[i], print_options, write);
    }
  }
  if (file != nullptr) HOPT_RETURN_IF_ERROR(file->Commit());
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

// Plugins first: their options (deprecated flags) must exist when the line
// is parsed. False: the command line is wrong, and LLVM has said why.
absl::StatusOr<bool> LoadPluginsAndParse(const PluginArguments& plugins, Extensions& extensions,
                                         int argc, char** argv) {
  PassRegistry& registry = extensions.passes;
  registry.set_allow_override(plugins.override_passes);
  HOPT_RETURN_IF_ERROR(LoadPlugins(plugins.loads, extensions));
  HOPT_ASSIGN_OR_RETURN(std::vector<AliasFlag> alias_flags, DefineAliasFlags(registry));
  AddPassesToHelp(registry, argc, argv);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "hopt: runs pass pipelines over XLA HLO modules\n\n"
                                   "  hopt -load=PLUGIN.so -passes=a,b in.hlo -o out.hlo\n",
                                   &llvm::errs()))
    return false;
  HOPT_RETURN_IF_ERROR(ApplyAliasFlags(alias_flags, registry));
  return true;
}

}  // namespace

absl::Status RunHopt(const HoptConfig& config, const HoptExtensions& extensions,
                     const HoptInput& input, const HoptOutput& output) {
  // Declared first so that it outlives the passes and options made from it.
  std::unique_ptr<Extensions> own_extensions;
  Driver d(config, input, output);
  // The process-wide settings a run reads are set from the config each
  // time, so that one call does not leak its options into the next.
  SetDebugTypes(config.debug_only);
  SetMaxInputBytes(config.max_input_size);
  SetWarnDroppedFields(config.warn_dropped_fields);
  if (output.pass_timings != nullptr) output.pass_timings->clear();
  d.extensions = extensions.registry;
  if (d.extensions == nullptr) {
    own_extensions = std::make_unique<Extensions>();
    d.extensions = own_extensions.get();
  }
  if (extensions.override_passes) d.extensions->passes.set_allow_override(true);
  d.loads = extensions.loaded;
  d.loads.insert(d.loads.end(), extensions.load.begin(), extensions.load.end());
  absl::Status done = LoadPlugins(extensions.load, *d.extensions);
  if (done.ok() && !config.compare_with.empty() && config.command_line.empty())
    done = absl::FailedPreconditionError(
        "-compare-with runs hopt again in a second process: it needs hopt's command line "
        "(HoptConfig::command_line)");
  if (done.ok())
    done = config.list_passes || config.list_pipelines ? ListRegistry(d) : PipelineRun(d);
  // What a failed run staged (a pass's split directory) goes now, not at
  // exit: the next call starts with nothing deferred.
  if (!done.ok()) DiscardDeferredOutputs();
  return done;
}

int HoptExitStatus(const HoptConfig& config, const absl::Status& status) {
  if (status.ok()) return 0;
  return config.ComparesSomething() ? CompareExitStatus(status) : 1;
}

int HoptMain(int argc, char** argv) {
  InstallCrashReporter(kTool);
  KeepFreedMemoryForReuse();
  ReleaseLibraryCodePages("libLLVM");
  AdoptLlvmOptions();
  auto* options = new HoptOptions();  // lives until exit, like any cl::opt
  cl::HideUnrelatedOptions(HoptCategory());
  SetUpToolInfo(kTool);
  // Errors of the command line itself exit as the checks it asks for would.
  const bool compares = CompareWithGiven(argc, argv) ||
                        ValueOptionGiven(argc, argv, "verify-equivalence-with") ||
                        ValueOptionGiven(argc, argv, "prove-equivalence-with");
  const int parse_error_status = compares ? kCompareCouldNotRun : 1;

  PluginArguments plugins = PrescanPluginArguments(argc, argv);
  // Reachable until exit through a static (plugins' code stays loaded and
  // nothing is torn down; LeakSanitizer sees it as held, not leaked).
  static auto* extensions = new Extensions();
  auto load_started = std::chrono::steady_clock::now();
  absl::StatusOr<bool> parsed = LoadPluginsAndParse(plugins, *extensions, argc, argv);
  if (!parsed.ok()) return ReportFailure(kTool, parsed.status(), parse_error_status);
  if (!*parsed) return parse_error_status;  // LLVM has said why

  HoptConfig config = ConfigFromOptions(*options);
  config.command_line.assign(argv, argv + argc);
  HoptExtensions loaded{extensions, {}, plugins.loads, plugins.override_passes};
  absl::Status done =
      RunHopt(config, loaded, HoptInput::File(options->input), HoptOutput::File(options->output));
  if (done.ok() && config.list_passes && std::getenv("HOPT_REPORT_LOAD_TIME") != nullptr) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_started)
            .count();
    std::fprintf(stderr, "hopt: plugin load + list-passes: %.3f ms\n", ms);
  }
  return done.ok() ? 0 : ReportFailure(kTool, done, HoptExitStatus(config, done));
}

}  // namespace tools
}  // namespace hopt

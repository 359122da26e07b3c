// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_HOPT_DRIVER_HOPT_OPTIONS_H_
#define HOPT_TOOLS_HOPT_DRIVER_HOPT_OPTIONS_H_

// hopt's command line: its options, the options of libLLVM's pass manager
// it adopts (-time-passes, -print-after, ...), the deprecated flags plugins
// declare, and the listings of -list-passes, -list-pipelines and -help.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ir/tooling/input_limits.h"
#include "hopt/eval/evaluator.h"
#include "hopt/pass_manager/pass_registry.h"
#include "llvm/Support/CommandLine.h"
#include "tools/common/input_reading.h"
#include "tools/hopt_driver/hopt_config.h"

namespace hopt {
namespace tools {

namespace cl = llvm::cl;

cl::OptionCategory& HoptCategory();

// libLLVM registers options of its own pass manager under the names hopt's
// instrumentation uses (-time-passes, -print-after, ...); a second option of
// the same name would abort. hopt adopts those options instead: same
// spelling, hopt's description and category, values read through LLVM's
// accessors after parsing. Call before HideUnrelatedOptions.
void AdoptLlvmOptions();
// Whether the adopted option `name` was given.
bool LlvmOptionGiven(const char* name);

// hopt's own options. Registered when constructed; one instance lives
// until exit, like any cl::opt. Only HoptMain parses them: RunHopt takes
// the HoptConfig they become (ConfigFromOptions).
struct HoptOptions {
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
  cl::opt<bool> split_input_file{"split-input-file",
                                 cl::desc("Treat '// -----' lines as module separators"),
                                 cl::cat(HoptCategory())};
  cl::opt<bool> verify{"verify", cl::desc("Verify the input module (default on)"), cl::init(true),
                       cl::cat(HoptCategory())};
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
      cl::desc("Check that the pipeline keeps what the module computes: run it before and "
               "after on N (default 3) seeded random input sets on every device of the mesh "
               "and compare all outputs bit for bit; whole: the whole module, region: each "
               "pass by the region it changed, auto (default): whole unless over the "
               "interpreter's budget"),
      cl::value_desc("whole|region|auto[,N]"), cl::cat(HoptCategory())};
  cl::opt<std::string> verify_equivalence_with{
      "verify-equivalence-with",
      cl::desc("Run the result (the input when no pass is given) and the module in this file "
               "(text, .pb, .pbtxt) on -verify-equivalence's input sets on every device and "
               "compare all outputs bit for bit. Exit status: 0 equal, 1 an output differs, 2 "
               "the check could not run"),
      cl::value_desc("file"), cl::cat(HoptCategory())};
  // docs/proofs.md: translation validation with Z3.
  cl::opt<bool> prove_equivalence{
      "prove-equivalence",
      cl::desc("Prove with Z3 that each pass keeps what the module computes: the region it "
               "changed, before and after, encoded as formulas over its inputs on every device "
               "of the mesh; proved, a counterexample the interpreter confirms (exit 1), or "
               "unknown with the reason"),
      cl::cat(HoptCategory())};
  cl::opt<std::string> prove_equivalence_with{
      "prove-equivalence-with",
      cl::desc("Prove the result (the input when no pass is given) equal to the module in this "
               "file for every input on every device. Exit status: 0 proved, 1 a confirmed "
               "counterexample, 2 unknown or could not run"),
      cl::value_desc("file"), cl::cat(HoptCategory())};
  cl::opt<int64_t> prove_timeout{"prove-timeout",
                                 cl::desc("Seconds Z3 may spend on one region (default 60)"),
                                 cl::value_desc("seconds"), cl::init(60), cl::cat(HoptCategory())};
  cl::opt<int64_t> prove_memory{
      "prove-memory",
      cl::desc("Megabytes Z3 may allocate for one region's query; past them the answer is "
               "unknown (default 4096)"),
      cl::value_desc("MB"), cl::init(4096), cl::cat(HoptCategory())};
  cl::opt<std::string> counterexample_file{
      "counterexample-file",
      cl::desc("Write a proof's counterexample here, as hlo-run -args input of the region "
               "module"),
      cl::value_desc("file"), cl::cat(HoptCategory())};
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
  cl::opt<eval::EvalOptions::OpaqueCustomCalls> opaque_custom_calls{
      "opaque-custom-calls",
      cl::desc("Custom-calls without registered semantics, in -verify-equivalence and "
               "-compare-with"),
      cl::init(eval::EvalOptions::OpaqueCustomCalls::kHash),
      cl::values(clEnumValN(eval::EvalOptions::OpaqueCustomCalls::kHash, "hash",
                            "Run each as a deterministic function of its target, "
                            "backend_config and operands, and compare the calls made"),
                 clEnumValN(eval::EvalOptions::OpaqueCustomCalls::kRefuse, "refuse",
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
  // Shared with hlo-run: defined with the input reader that obeys it.
  cl::opt<bool>& warn_dropped_fields = WarnDroppedFieldsOption(HoptCategory());
  cl::opt<uint64_t> max_input_size{"max-input-size", cl::desc(MaxInputSizeHelp()),
                                   cl::value_desc("bytes"), cl::init(kDefaultMaxInputBytes),
                                   cl::cat(HoptCategory())};
  cl::opt<bool> time_read{"time-read", cl::desc("Report the time taken to read the input (stderr)"),
                          cl::cat(HoptCategory())};
  // tools/common/provider_compare.h, docs/hopt.md.
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
  cl::opt<bool> emit_dot_svg{"emit-dot-svg", cl::desc("Also render -emit-dot's graph as FILE.svg"),
                             cl::cat(HoptCategory())};
  cl::opt<HoptConfig::PrintStyle> print_style{
      "print-style", cl::desc("Output style"), cl::init(HoptConfig::PrintStyle::kLong),
      cl::values(clEnumValN(HoptConfig::PrintStyle::kLong, "long",
                            "XLA's default form: %names, signatures"),
                 clEnumValN(HoptConfig::PrintStyle::kShort, "short", "XLA's short parsable form")),
      cl::cat(HoptCategory())};
};

// One line per pass (name, provider, what it overrides, description),
// then one indented line per option: name=<type>, default, description.
std::string FormatPassList(const PassRegistry& registry);
// -list-pipelines: two lines per named pipeline.
std::string FormatPipelineList(const PassRegistry& registry);

// The parsed command line as RunHopt takes it (with the options of
// libLLVM's pass manager hopt adopts); -load, -override-passes, the input
// and -o are not in it (tools/hopt_driver/hopt_config.h).
HoptConfig ConfigFromOptions(const HoptOptions& options);

// A deprecated flag plugins declare (PluginRegistrar::AddFlagAlias): hopt
// defines each once, after the plugins are loaded and before the command
// line is parsed.
struct AliasFlag {
  std::string name;
  std::vector<const FlagAlias*> targets;
  cl::opt<std::string>* option = nullptr;
};

// Defines the flags the loaded plugins declare; a flag hopt already
// defines is refused.
absl::StatusOr<std::vector<AliasFlag>> DefineAliasFlags(const PassRegistry& registry);
// Each deprecated flag given becomes the default of its pass options (the
// pipeline text still wins), with a one-line warning.
absl::Status ApplyAliasFlags(const std::vector<AliasFlag>& flags, PassRegistry& registry);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_HOPT_DRIVER_HOPT_OPTIONS_H_

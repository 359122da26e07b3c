// SPDX-License-Identifier: Apache-2.0
// hlo-run: runs an HLO module, or the stages a module was split into, on a
// simulated mesh and prints every device's outputs as XLA literals.
//
//   hlo-run model.hlo [-load=PLUGIN]... [-replicas=R] [-partitions=P] [-seed=S | -args=FILE]
//   hlo-run DIR/manifest.json [same options]
//   hlo-run model.hlo -check-split=DIR/manifest.json [same options]
//   hlo-run modules.hlo -split-input-file [same options, no -check-split]
//
// Output: one line per device, `device D (replica r, partition p): <shape>
// <literal>`, D = r * partitions + p. With -split-input-file each module of
// the text runs in turn, its results separated from the next's by a
// `// -----` line; a module that fails prints its error on stderr and the
// others still run (exit 1 if any failed).
//
// An input whose name ends in `.json` is a split manifest
// (include/hopt/support/split_manifest.h): the stage modules next to it run in
// order, each fed from the original arguments and earlier stages' outputs,
// and the original module's result is assembled and printed exactly as a
// run of the module prints it, so the two outputs can be diffed. Random
// arguments come from the manifest's entry parameters and equal the
// module's for the same seed.
//
// -check-split runs the module and its stages on the same arguments and
// compares every device's result bit for bit: `hlo-run: split check: ...`
// and exit 0, or one `hlo-run: error: split check: ...` line naming the
// first difference and exit 1.
//
// -load loads a hopt plugin (same search as hopt: a path, or a file name
// looked up in the plugin directories, HOPT_PLUGIN_PATH, the working
// directory) for the interpreter semantics of its custom-calls, such as
// boundary markers. Pass names do not matter here, so two plugins that
// register the same pass name may both be loaded.
//
// -args FILE: one line per entry parameter, `<shape> <literal>` (e.g.
// `f32[4] {1, 2, 3, 4}`), the same for every device; a line starting with
// `device D:` sets the parameters of device D alone (all of them, in order);
// D must be a device of the mesh. -replicas and -partitions, when given,
// must be positive.
//
// Without them a module runs on the smallest mesh that is at least its
// header's and on which every group of its collectives names existing
// devices; when that is not the header's, one line on stderr says so
// (docs/hlo-run.md, "Mesh inference"). Custom-calls without registered
// semantics run as opaque functions of their operands, with a note on
// stderr, unless -opaque-custom-calls=refuse (docs/hlo-run.md,
// "Opaque custom-calls").

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/eval/tooling/mesh_inference.h"
#include "core/eval/tooling/stage_replay.h"
#include "core/ir/tooling/input_limits.h"
#include "core/pass_manager/tooling/crash_report.h"
#include "core/proto/tooling/io.h"
#include "core/support/tooling/heap_policy.h"
#include "core/support/tooling/startup_pages.h"
#include "hopt/eval/evaluator.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/registrar.h"
#include "hopt/support/output_file.h"
#include "hopt/support/split_manifest.h"
#include "hopt/support/status_macros.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "tools/common/input_reading.h"
#include "tools/common/tool_info.h"
#include "tools/common/tool_plugins.h"

namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("hlo-run options");
cl::opt<std::string> input(cl::Positional, cl::Required,
                           cl::desc("<module .hlo, or a split's manifest.json>"),
                           cl::cat(category));
cl::list<std::string> load("load",
                           cl::desc("Load a hopt plugin for the interpreter semantics of its "
                                    "custom-calls (a path, or a file name looked up in hopt's "
                                    "plugin directories and HOPT_PLUGIN_PATH)"),
                           cl::value_desc("plugin"), cl::cat(category));
cl::opt<std::string> check_split(
    "check-split",
    cl::desc("Run the module and the stages of this split manifest on the same arguments and "
             "compare every device's result bit for bit"),
    cl::value_desc("manifest.json"), cl::cat(category));
cl::opt<int64_t> replicas("replicas",
                          cl::desc("Replicas (default: the module's or manifest's replica_count)"),
                          cl::init(0), cl::cat(category));
cl::opt<int64_t> partitions(
    "partitions", cl::desc("Partitions (default: the module's or manifest's num_partitions)"),
    cl::init(0), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random arguments"), cl::init(1),
                       cl::cat(category));
cl::opt<uint64_t> max_input_size("max-input-size", cl::desc(hopt::MaxInputSizeHelp()),
                                 cl::value_desc("bytes"), cl::init(hopt::kDefaultMaxInputBytes),
                                 cl::cat(category));
cl::opt<bool> time_run("time",
                       cl::desc("Print the interpreter's run time (arguments ready to results "
                                "computed, no parsing or printing) to stderr"),
                       cl::init(false), cl::cat(category));
cl::opt<hopt::eval::EvalOptions::OpaqueCustomCalls> opaque_custom_calls(
    "opaque-custom-calls", cl::desc("Custom-calls without registered semantics"),
    cl::init(hopt::eval::EvalOptions::OpaqueCustomCalls::kHash),
    cl::values(clEnumValN(hopt::eval::EvalOptions::OpaqueCustomCalls::kHash, "hash",
                          "Run each as a deterministic function of its target, "
                          "backend_config and operands"),
               clEnumValN(hopt::eval::EvalOptions::OpaqueCustomCalls::kRefuse, "refuse",
                          "Refuse the module, naming the call")),
    cl::cat(category));
cl::opt<bool> split_input_file(
    "split-input-file",
    cl::desc("Run each module of the input (HLO text, modules separated by '// -----' lines) in "
             "turn; the results are separated by the same line"),
    cl::cat(category));
cl::opt<std::string> args_file("args", cl::desc("Arguments file (see the header of hlo_run.cc)"),
                               cl::value_desc("file"), cl::cat(category));

constexpr char kTool[] = "hlo-run";

int Fail(absl::string_view message) { return hopt::tools::FailWithMessage(kTool, message); }

// "<shape> <literal>" -> a literal.
absl::StatusOr<hopt::Literal> ParseArgument(absl::string_view line) {
  // The shape ends at the first space outside brackets.
  int depth = 0;
  size_t split = absl::string_view::npos;
  for (size_t k = 0; k < line.size(); ++k) {
    char c = line[k];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ' ' && depth == 0) {
      split = k;
      break;
    }
  }
  if (split == absl::string_view::npos)
    return absl::InvalidArgumentError(
        absl::StrCat("expected '<shape> <literal>', got '", line, "'"));
  HOPT_ASSIGN_OR_RETURN(hopt::Shape shape, hopt::ParseShape(line.substr(0, split)));
  return hopt::Literal::Parse(shape, absl::StripAsciiWhitespace(line.substr(split + 1)));
}

// Every device's arguments. A value the -args file gives for all devices
// is kept once and read by each (RunModuleOn does not copy it).
struct DeviceArguments {
  std::vector<hopt::Literal> common;
  std::map<int64_t, std::vector<hopt::Literal>> own;     // device -> its own values
  std::vector<std::vector<const hopt::Literal*>> views;  // what each device reads

  void MakeViews(int64_t devices) {
    views.assign(static_cast<size_t>(devices), {});
    for (int64_t d = 0; d < devices; ++d) {
      auto it = own.find(d);
      for (const hopt::Literal& value : it != own.end() ? it->second : common)
        views[static_cast<size_t>(d)].push_back(&value);
    }
  }
  // Copies per device, for the split-stage runners.
  std::vector<std::vector<hopt::Literal>> Copies() const {
    std::vector<std::vector<hopt::Literal>> copies;
    for (const auto& device : views) {
      copies.emplace_back();
      for (const hopt::Literal* value : device) copies.back().push_back(*value);
    }
    return copies;
  }
};

// The -args file; errors read "file:line: what".
absl::StatusOr<DeviceArguments> ReadArgumentsFile(const std::string& path, int64_t devices) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot open '" + path + "'");
  DeviceArguments arguments;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || absl::StartsWith(text, "//")) continue;
    std::optional<int64_t> device;
    if (absl::ConsumePrefix(&text, "device ")) {
      size_t colon = text.find(':');
      int64_t number;
      if (colon == absl::string_view::npos || !absl::SimpleAtoi(text.substr(0, colon), &number))
        return absl::InvalidArgumentError(
            absl::StrCat(path, ":", line_number, ": expected 'device N: ...'"));
      // Arguments for a device the mesh lacks would be dropped unseen: the
      // user meant another mesh, or another file.
      if (number < 0 || number >= devices)
        return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": device ", number,
                                                       " does not exist (the mesh has ", devices,
                                                       " devices, 0 to ", devices - 1, ")"));
      device = number;
      text = absl::StripAsciiWhitespace(text.substr(colon + 1));
    }
    auto value = ParseArgument(text);
    if (!value.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", value.status().message()));
    if (device)
      arguments.own[*device].push_back(*std::move(value));
    else
      arguments.common.push_back(*std::move(value));
  }
  arguments.MakeViews(devices);
  return arguments;
}

// -args when given, else seeded random values for `shapes`.
absl::StatusOr<DeviceArguments> MakeArguments(const std::vector<hopt::Shape>& shapes,
                                              int64_t devices) {
  if (args_file.empty()) {
    HOPT_RETURN_IF_ERROR(hopt::eval::CheckArgumentsFit(shapes));
    DeviceArguments arguments;
    std::vector<std::vector<hopt::Literal>> random =
        hopt::eval::RandomArgumentsForShapes(shapes, devices, seed);
    for (int64_t d = 0; d < devices; ++d)
      arguments.own[d] = std::move(random[static_cast<size_t>(d)]);
    arguments.MakeViews(devices);
    return arguments;
  }
  return ReadArgumentsFile(args_file, devices);
}

void PrintResults(const std::vector<hopt::Literal>& results, int64_t p) {
  for (size_t d = 0; d < results.size(); ++d) {
    const hopt::Literal& out = results[d];
    long long device = static_cast<long long>(d);
    std::printf("device %lld (replica %lld, partition %lld): %s %s\n", device, device / p,
                device % p, out.shape().ToString().c_str(), out.ToText().c_str());
  }
}

// The directory stage files are relative to.
std::string ManifestDirectory(const std::string& manifest_path) {
  size_t slash = manifest_path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : manifest_path.substr(0, slash);
}

// What the loaded plugins registered (custom-call semantics); lives
// until exit.
hopt::Extensions& Loaded() {
  static auto* extensions = new hopt::Extensions();
  return *extensions;
}

hopt::eval::EvalOptions MakeEvalOptions() {
  hopt::eval::EvalOptions options;
  options.custom_calls = &Loaded().custom_calls;
  options.replicas = replicas;
  options.partitions = partitions;
  options.opaque_custom_calls = opaque_custom_calls;
  return options;
}

// The interpreter's errors, located ones (a refused custom-call) as they are.
int FailRun(const absl::Status& status) { return hopt::tools::ReportFailure(kTool, status); }

int RunManifest() {
  auto manifest = hopt::split::ReadManifestFile(input);
  if (!manifest.ok()) return Fail(manifest.status().message());
  std::vector<hopt::Shape> shapes;
  for (const hopt::split::EntryParameter& parameter : manifest->entry_parameters) {
    shapes.push_back(*hopt::ParseShape(parameter.shape));  // checked by the reader
    // As the module parser does, so that the arguments (and a result that
    // passes one through) print as they do for the module.
    shapes.back().EnsureLayout();
  }
  int64_t r = replicas > 0 ? replicas : manifest->replica_count;
  int64_t p = partitions > 0 ? partitions : manifest->num_partitions;
  auto devices = hopt::eval::MeshDevices(r, p);
  if (!devices.ok()) return Fail(devices.status().message());
  auto arguments = MakeArguments(shapes, *devices);
  if (!arguments.ok()) return Fail(arguments.status().message());
  auto results = hopt::eval::RunStages(*manifest, ManifestDirectory(input), arguments->Copies(),
                                       MakeEvalOptions());
  if (!results.ok()) return Fail(results.status().message());
  PrintResults(*results, p);
  return 0;
}

int RunOneModule(std::unique_ptr<hopt::HloModule> module) {
  if (absl::Status valid = hopt::VerifyInput(*module, input); !valid.ok()) return FailRun(valid);
  hopt::eval::EvalOptions eval_options = MakeEvalOptions();
  if (eval_options.opaque_custom_calls == hopt::eval::EvalOptions::OpaqueCustomCalls::kRefuse) {
    if (absl::Status refused = hopt::eval::RefuseOpaqueCustomCalls(*module, &Loaded().custom_calls);
        !refused.ok())
      return FailRun(refused);
  } else if (auto opaque = hopt::eval::FindOpaqueTargets(*module, &Loaded().custom_calls);
             !opaque.empty()) {
    std::fprintf(stderr,
                 "hlo-run: note: custom-call target(s) %s have no registered semantics: run as "
                 "opaque functions of their operands (-opaque-custom-calls=refuse refuses them)\n",
                 hopt::eval::OpaqueTargetList(opaque).c_str());
  }
  hopt::eval::MeshChoice mesh =
      hopt::eval::ChooseMesh(*module, replicas, partitions, &Loaded().custom_calls);
  if (!mesh.note.empty()) std::fprintf(stderr, "hlo-run: %s\n", mesh.note.c_str());
  int64_t r = mesh.mesh.replicas;
  int64_t p = mesh.mesh.partitions;
  eval_options.replicas = r;
  eval_options.partitions = p;
  // Before the arguments, which are made once per device.
  auto devices = hopt::eval::MeshDevices(r, p);
  if (!devices.ok()) return Fail(devices.status().message());
  std::vector<hopt::Shape> shapes;
  for (const hopt::HloInstruction* parameter :
       module->entry_computation()->parameter_instructions())
    shapes.push_back(parameter->shape());
  auto arguments = MakeArguments(shapes, *devices);
  if (!arguments.ok()) return Fail(arguments.status().message());

  if (!check_split.empty()) {
    auto manifest = hopt::split::ReadManifestFile(check_split);
    if (!manifest.ok()) return Fail(absl::StrCat("split check: ", manifest.status().message()));
    std::string report;
    absl::Status same =
        hopt::eval::CheckStagesReproduce(*module, *manifest, ManifestDirectory(check_split),
                                         arguments->Copies(), eval_options, &report);
    if (!same.ok()) return Fail(absl::StrCat("split check: ", same.message()));
    std::printf("hlo-run: split check: %s\n", report.c_str());
    return 0;
  }

  auto start = std::chrono::steady_clock::now();
  auto results = hopt::eval::RunModuleOn(*module, arguments->views, eval_options);
  if (!results.ok()) return FailRun(results.status());
  if (time_run)
    llvm::errs()
        << "hlo-run: run "
        << llvm::format(
               "%.3f",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())
        << " s\n";
  PrintResults(*results, p);
  return 0;
}

int RunModules() {
  hopt::HloFileFormat format = hopt::HloFileFormatFromPath(input);
  if (split_input_file && format != hopt::HloFileFormat::kText)
    return Fail("-split-input-file works on HLO text only");
  if (split_input_file && !check_split.empty())
    return Fail("-check-split compares one module with its split, not with -split-input-file");
  auto modules = hopt::tools::ReadInputModules({input, input, format, split_input_file});
  if (!modules.ok()) return FailRun(modules.status());
  // Each module runs whatever the others did, so that one failure names
  // its module and the rest still report; the exit status is the worst.
  int worst = 0;
  for (size_t k = 0; k < modules->size(); ++k) {
    if (k > 0) std::printf("// -----\n");
    worst = std::max(worst, RunOneModule(std::move((*modules)[k])));
    // Each module's results before the next one's errors.
    if (split_input_file) std::fflush(stdout);
  }
  return worst;
}

// Results that did not reach standard output (> /dev/full, a closed
// pipe) are a failed run, whatever the interpreter said.
int Finish(int code) {
  absl::Status printed = hopt::FinishStandardOutput();
  if (!printed.ok()) return Fail(printed.message());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  hopt::InstallCrashReporter(kTool);
  hopt::KeepFreedMemoryForReuse();
  hopt::ReleaseLibraryCodePages("libLLVM");
  hopt::tools::WarnDroppedFieldsOption(category);
  cl::HideUnrelatedOptions(category);
  hopt::tools::SetUpToolInfo(kTool);
  // Plugins first: their options must exist when the line is parsed.
  Loaded().passes.set_allow_override(true);
  absl::Status loaded =
      hopt::tools::LoadPlugins(hopt::tools::PrescanPluginArguments(argc, argv).loads, Loaded());
  if (!loaded.ok()) return Fail(loaded.message());
  cl::ParseCommandLineOptions(
      argc, argv,
      "hlo-run: runs an HLO module, or the stages of a split (manifest.json), on a simulated "
      "mesh\n");
  hopt::SetMaxInputBytes(max_input_size);
  // Leaving them out means the module's mesh; 0 or less is no mesh at all.
  if (absl::Status mesh = hopt::tools::CheckMeshOptions(replicas, partitions); !mesh.ok())
    return Fail(mesh.message());
  if (absl::EndsWith(input, ".json")) {
    if (!check_split.empty())
      return Fail(
          "-check-split compares a module with its split; the input must be the module, "
          "not a manifest");
    return Finish(RunManifest());
  }
  return Finish(RunModules());
}

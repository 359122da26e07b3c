// SPDX-License-Identifier: Apache-2.0

#include "tools/common/provider_compare.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/eval/tooling/mesh_compare.h"
#include "core/eval/tooling/mesh_inference.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/structural_compare.h"
#include "hopt/support/output_file.h"
#include "hopt/support/signal_cleanup.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace hopt {
namespace tools {
namespace {

constexpr char kFailedFile[] = "failed.txt";
constexpr char kStartedFile[] = "started";
// Marks the error of a difference (CompareDifferenceError): the one
// -compare-with failure that exits 1 rather than 2.
constexpr char kDifferencePayload[] = "hopt.tools/compare-difference";

std::string PassFile(const std::string& dir, size_t index) {
  return absl::StrCat(dir, "/pass-", index, ".hlo");
}

bool WriteFile(const std::string& path, const std::string& text) {
  return WriteOutputFile(path, text).ok();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool Exists(const std::string& path) { return llvm::sys::fs::exists(path); }

std::string BaseName(const std::string& path) {
  return std::string(llvm::sys::path::filename(path));
}

// The one line worth showing from a failed run's output: its last error,
// else its first line (LLVM's option errors and fatal errors come first).
std::string LastError(const std::string& log) {
  std::string first_line, last_error;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (line.empty()) continue;
    if (first_line.empty()) first_line = std::string(line);
    if (absl::ConsumePrefix(&line, "hopt: error: ")) last_error = std::string(line);
  }
  if (!last_error.empty()) return last_error;
  return first_line.empty() ? "(no message)" : first_line;
}

// Removes the private directory whatever way the comparison ends, a
// signal included (it holds files only: include/hopt/support/signal_cleanup.h).
class TempDir {
 public:
  ~TempDir() {
    if (path_.empty()) return;
    llvm::sys::fs::remove_directories(path_);
    DontRemoveDirectoryOnSignal(path_);
  }
  absl::Status Create() {
    llvm::SmallString<128> path;
    if (std::error_code error = llvm::sys::fs::createUniqueDirectory("hopt-compare", path))
      return absl::InternalError(
          absl::StrCat("cannot create a temporary directory: ", error.message()));
    path_ = std::string(path.str());
    RemoveDirectoryOnSignal(path_);
    return absl::OkStatus();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct RunResult {
  int code = 0;         // exit status; -1: could not run; -2: killed by a signal
  std::string message;  // ExecuteAndWait's (the signal, or why it could not run)
};

RunResult RunHopt(const std::string& executable, const std::vector<std::string>& args,
                  const std::string& out_path, const std::string& err_path) {
  std::vector<llvm::StringRef> refs;
  refs.push_back(executable);
  for (const std::string& arg : args) refs.push_back(arg);
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out_path),
                                                llvm::StringRef(err_path)};
  RunResult result;
  bool failed = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      executable, refs, std::nullopt, redirects, /*MemoryLimit=*/0, &result.message, &failed);
  if (failed || child.Pid <= 0) {
    result.code = -1;
    return result;
  }
  // An interrupted comparison takes its second hopt with it.
  KillProcessOnSignal(child.Pid);
  llvm::sys::ProcessInfo done = llvm::sys::Wait(child, std::nullopt, &result.message);
  DontKillProcessOnSignal(child.Pid);
  result.code = done.ReturnCode;
  return result;
}

// ---------------------------------------------------------------------------
// The second run.

absl::StatusOr<bool> RunAsComparisonChild(const CompareRequest& request, HloModule& module,
                                          const std::vector<std::unique_ptr<Pass>>& passes,
                                          Instrumentation instrumentation) {
  const std::string& dir = request.child_dir;
  WriteFile(absl::StrCat(dir, "/", kStartedFile), "");
  size_t completed = 0;
  PassCallbacks keep_results;
  keep_results.after_verifier = [&](size_t index, const Pass&, const HloModule& after) {
    if (!WriteFile(PassFile(dir, index), PrintModule(after, PrintOptions::Long())))
      return absl::InternalError(absl::StrCat("cannot write '", PassFile(dir, index), "'"));
    completed = index + 1;
    return absl::OkStatus();
  };
  instrumentation.callbacks.push_back(std::move(keep_results));
  absl::StatusOr<bool> ran = RunPipeline(module, passes, instrumentation);
  if (!ran.ok())
    WriteFile(absl::StrCat(dir, "/", kFailedFile),
              absl::StrCat(completed, "\n", ran.status().message()));
  return ran;
}

// ---------------------------------------------------------------------------
// The parent.

// Who provides what: for each pipeline pass, whether theirs.so provides
// it (compared) or the reference runs on both sides, and the plugins
// ("name version") on each side.
struct Providers {
  std::vector<bool> compared;             // per pipeline pass
  std::vector<std::string> ours, theirs;  // per pipeline pass, "plugin version"
  size_t compared_count = 0;
  std::vector<std::string> child_loads;  // the second run's -load list
};

absl::StatusOr<Providers> WorkOutProviders(const CompareRequest& request,
                                           const std::vector<std::unique_ptr<Pass>>& passes,
                                           const std::string& list_output) {
  // -list-passes prints "  name  (plugin version[, overrides ...])
  // description" per pass, each option on a more deeply indented line
  // below it, then sections of its own (named pipelines) from an
  // unindented title on.
  std::map<std::string, std::string, std::less<>> their_passes;  // name -> "plugin version"
  for (absl::string_view line : absl::StrSplit(list_output, '\n', absl::SkipWhitespace())) {
    if (!absl::StartsWith(line, "  ")) break;
    if (line.size() > 2 && line[2] == ' ') continue;  // an option of the pass above
    line.remove_prefix(2);
    size_t gap = line.find(' ');
    if (gap == absl::string_view::npos) continue;
    std::string name(line.substr(0, gap));
    size_t open = line.find('(', gap);
    size_t close = open == absl::string_view::npos ? open : line.find(')', open);
    if (close == absl::string_view::npos) continue;
    absl::string_view provider = line.substr(open + 1, close - open - 1);
    provider = provider.substr(0, provider.find(','));
    their_passes.emplace(std::move(name), std::string(provider));
  }
  std::string with = BaseName(request.with);
  if (their_passes.empty())
    return absl::FailedPreconditionError(
        absl::StrCat("-compare-with: '", request.with, "' registers no passes"));

  Providers providers;
  for (const std::unique_ptr<Pass>& pass : passes) {
    const PassInfo* info = request.registry->Find(pass->name());
    std::string ours = info != nullptr ? absl::StrCat(info->plugin, " ", info->plugin_version)
                                       : std::string("hopt");
    auto theirs = their_passes.find(pass->name());
    bool compared = theirs != their_passes.end();
    providers.compared.push_back(compared);
    providers.theirs.push_back(compared ? theirs->second : ours);
    providers.ours.push_back(std::move(ours));
    if (compared) ++providers.compared_count;
  }
  if (providers.compared_count == 0) {
    std::vector<std::string> listed;
    for (const auto& [name, plugin] : their_passes) listed.push_back(name);
    return absl::FailedPreconditionError(absl::StrCat(
        "-compare-with: '", with, "' provides none of the pipeline's passes (it provides ",
        absl::StrJoin(listed, ", "), ")"));
  }
  // Their side: every plugin of ours, then theirs.so overriding the passes
  // it provides (-override-passes). Each side parses the pipeline's pass
  // options with its own plugin, so a faithful replacement that declares
  // the same options as ours loads beside it.
  providers.child_loads = request.loads;
  providers.child_loads.push_back(request.with);
  return providers;
}

std::string MeshText(const HloModule& module) {
  return absl::StrCat(module.replica_count(), "x", module.num_partitions());
}
std::string MeshText(const eval::Mesh& mesh) {
  return absl::StrCat(mesh.replicas, "x", mesh.partitions);
}

struct Semantics {
  enum Kind { kEquivalent, kDiffer, kNotChecked } kind;
  std::string text;
};

// Both modules on the same seeded inputs on every device of the mesh.
Semantics CompareSemantics(const HloModule& ours, const HloModule& theirs,
                           const CompareRequest& request) {
  const int64_t sets = request.sets;
  const uint64_t seed = request.seed;
  if (ours.replica_count() != theirs.replica_count() ||
      ours.num_partitions() != theirs.num_partitions())
    return {Semantics::kDiffer, absl::StrCat("semantics differ: the mesh is ", MeshText(ours),
                                             " in ours, ", MeshText(theirs), " in theirs")};
  const HloComputation* a = ours.entry_computation();
  const HloComputation* b = theirs.entry_computation();
  if (a == nullptr || b == nullptr)
    return {Semantics::kNotChecked, "semantics not checked: no entry computation"};
  bool same_parameters = a->num_parameters() == b->num_parameters();
  for (int64_t i = 0; same_parameters && i < a->num_parameters(); ++i)
    same_parameters =
        a->parameter_instruction(i)->shape().Compatible(b->parameter_instruction(i)->shape());
  if (!same_parameters)
    return {Semantics::kDiffer,
            "semantics differ: the entry computations take different parameters"};
  using Outcome = eval::MeshComparison::Outcome;
  // The mesh ours needs (core/eval/tooling/mesh_inference.h); theirs runs on the
  // same one.
  eval::MeshChoice mesh =
      eval::ChooseMesh(ours, request.replicas, request.partitions, request.custom_calls);
  eval::EvalOptions options;
  options.custom_calls = request.custom_calls;
  options.replicas = mesh.mesh.replicas;
  options.partitions = mesh.mesh.partitions;
  options.opaque_custom_calls = request.opaque_custom_calls;
  eval::MeshComparison compared =
      eval::CompareOnMesh(ours, theirs, sets, seed, options, "in ours", "in theirs");
  switch (compared.outcome) {
    case Outcome::kFirstFailed:
      return {Semantics::kNotChecked,
              absl::StrCat("semantics not checked: cannot run ours: ", compared.message)};
    case Outcome::kSecondFailed:
      return {Semantics::kNotChecked,
              absl::StrCat("semantics not checked: cannot run theirs: ", compared.message)};
    case Outcome::kDiffer:
      return {Semantics::kDiffer,
              absl::StrCat("semantics differ: ", compared.message, " (ours vs theirs)")};
    case Outcome::kEqual: break;
  }
  return {Semantics::kEquivalent,
          absl::StrCat("semantics equivalent on ", MeshText(mesh.mesh), " mesh (", sets,
                       " input set", sets == 1 ? "" : "s", ")")};
}

// What the second run left: how many passes it completed and, if it
// stopped early, why.
struct TheirRun {
  size_t completed = 0;
  std::string failure;  // the failing pass's error
  std::string signal;   // or the signal that ended the run
};

absl::StatusOr<TheirRun> RunTheirPipeline(const CompareRequest& request,
                                          const std::string& executable, const std::string& dir,
                                          const Providers& providers, const HloModule& input,
                                          size_t pass_count) {
  std::string input_path = dir + "/input.hlo";
  if (!WriteFile(input_path, PrintModule(input, PrintOptions::Long())))
    return absl::InternalError(absl::StrCat("cannot write '", input_path, "'"));
  std::vector<std::string> args = ComparisonRunArguments(request.argv);
  for (const std::string& spec : providers.child_loads) args.push_back("-load=" + spec);
  args.push_back("-override-passes");
  args.push_back("-passes=" + request.pipeline);
  args.push_back("-compare-child-dir=" + dir);
  args.push_back("-o");
  args.push_back(dir + "/out.hlo");
  args.push_back(input_path);
  std::string log = dir + "/run.log";
  RunResult run = RunHopt(executable, args, log, log);
  if (run.code == -1)
    return absl::InternalError(absl::StrCat("-compare-with: cannot run '", executable,
                                            "' for the comparison: ", run.message));
  TheirRun result;
  while (result.completed < pass_count && Exists(PassFile(dir, result.completed)))
    ++result.completed;
  if (run.code == 0) return result;
  std::string with = BaseName(request.with);
  if (!Exists(absl::StrCat(dir, "/", kStartedFile))) {
    // It never got to the pipeline: loading, options or the input.
    if (run.code == -2)
      return absl::FailedPreconditionError(
          absl::StrCat("-compare-with: the run with '", with, "' crashed before the pipeline (",
                       run.message, "): ", LastError(ReadFile(log))));
    return absl::FailedPreconditionError(absl::StrCat("-compare-with: the run with '", with,
                                                      "' failed: ", LastError(ReadFile(log))));
  }
  if (run.code == -2) {
    result.signal = run.message;
    return result;
  }
  std::string failed = ReadFile(absl::StrCat(dir, "/", kFailedFile));
  size_t newline = failed.find('\n');
  if (newline == std::string::npos)
    return absl::FailedPreconditionError(absl::StrCat("-compare-with: the run with '", with,
                                                      "' failed: ", LastError(ReadFile(log))));
  result.failure = failed.substr(newline + 1);
  return result;
}

// -compare-keep: the two modules after the pass where the sides first
// differ, as the structural comparison sees them (canonical names, so that
// a diff of the two files shows what differs). Both files or neither.
absl::StatusOr<std::pair<std::string, std::string>> KeepDifference(const std::string& dir,
                                                                   size_t index,
                                                                   absl::string_view pass,
                                                                   const HloModule& ours,
                                                                   const HloModule& theirs) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return absl::FailedPreconditionError(
        absl::StrCat("-compare-keep: cannot create '", dir, "': ", error.message()));
  std::pair<std::string, std::string> paths{
      absl::StrCat(dir, "/", KeepFileName(index, pass, "ours")),
      absl::StrCat(dir, "/", KeepFileName(index, pass, "theirs"))};
  absl::StatusOr<std::unique_ptr<OutputFile>> our_file = OutputFile::Open(paths.first);
  if (!our_file.ok()) return our_file.status();
  absl::StatusOr<std::unique_ptr<OutputFile>> their_file = OutputFile::Open(paths.second);
  if (!their_file.ok()) return their_file.status();
  (*our_file)->Write(CanonicalModuleText(ours));
  (*their_file)->Write(CanonicalModuleText(theirs));
  for (OutputFile* file : {our_file->get(), their_file->get()})
    if (absl::Status written = file->WriteStatus(); !written.ok()) return written;
  if (absl::Status committed = (*our_file)->Commit(); !committed.ok()) return committed;
  if (absl::Status committed = (*their_file)->Commit(); !committed.ok()) {
    llvm::sys::fs::remove(paths.first);  // not half of the pair
    return committed;
  }
  return paths;
}

absl::StatusOr<bool> RunAsComparisonParent(const CompareRequest& request, HloModule& module,
                                           const std::vector<std::unique_ptr<Pass>>& passes,
                                           Instrumentation instrumentation) {
  if (request.split_input)
    return absl::InvalidArgumentError(
        "-compare-with works on one module, not with -split-input-file");
  if (request.sets < 1 || request.sets > 1000)
    return absl::InvalidArgumentError("-compare-sets takes a count from 1 to 1000");
  if (passes.empty()) return absl::InvalidArgumentError("-compare-with needs a pipeline (-passes)");
  if (!request.keep_dir.empty() && llvm::sys::fs::exists(request.keep_dir) &&
      !llvm::sys::fs::is_directory(request.keep_dir))
    return absl::InvalidArgumentError(
        absl::StrCat("-compare-keep: '", request.keep_dir, "' is not a directory"));

  TempDir dir;
  absl::Status created = dir.Create();
  if (!created.ok()) return created;
  static int anchor;
  std::string executable = llvm::sys::fs::getMainExecutable(
      request.argv.empty() ? "hopt" : request.argv[0].c_str(), &anchor);

  // theirs.so alone first: which passes it has (and whether it loads).
  std::string list_out = dir.path() + "/list.out", list_err = dir.path() + "/list.err";
  RunResult listed =
      RunHopt(executable, {"-load=" + request.with, "-list-passes"}, list_out, list_err);
  if (listed.code == -1)
    return absl::InternalError(absl::StrCat("-compare-with: cannot run '", executable,
                                            "' for the comparison: ", listed.message));
  if (listed.code == -2)
    return absl::FailedPreconditionError(absl::StrCat("-compare-with: loading '", request.with,
                                                      "' crashed hopt (", listed.message, ")"));
  if (listed.code != 0)
    return absl::FailedPreconditionError(
        absl::StrCat("-compare-with: ", LastError(ReadFile(list_err))));
  auto providers = WorkOutProviders(request, passes, ReadFile(list_out));
  if (!providers.ok()) return providers.status();

  auto theirs =
      RunTheirPipeline(request, executable, dir.path(), *providers, module, passes.size());
  if (!theirs.ok()) return theirs.status();

  std::string with = BaseName(request.with);
  int64_t identical = 0, equivalent = 0;
  size_t reported = 0;
  std::vector<std::string> failing;
  std::optional<std::string> diverged;  // the first pass whose structures differ
  size_t diverged_index = 0;
  PassCallbacks compare;
  compare.after_verifier = [&](size_t index, const Pass& pass,
                               const HloModule& ours) -> absl::Status {
    std::string name(pass.name());
    if (index >= theirs->completed)
      return absl::FailedPreconditionError(absl::StrCat(
          "compare: theirs (",
          providers->compared[index] ? "" : "reference: ", providers->theirs[index], ") failed: ",
          !theirs->signal.empty()
              ? absl::StrCat("pass '", name, "' crashed hopt (", theirs->signal, ")")
          : theirs->failure.empty() ? absl::StrCat("pass '", name, "' left no result")
                                    : theirs->failure));
    auto their_module = ParseHloModuleFromFile(PassFile(dir.path(), index),
                                               absl::StrCat("theirs after pass '", name, "'"));
    if (!their_module.ok())
      return absl::InternalError(absl::StrCat("compare: cannot read their module after pass '",
                                              name, "': ", their_module.status().message()));
    std::optional<StructuralDifference> difference = FindStructuralDifference(ours, **their_module);
    Semantics semantics = CompareSemantics(ours, **their_module, request);
    std::string line = absl::StrCat("hopt: compare: pass '", name, "': ");
    if (providers->compared[index])
      absl::StrAppend(&line, "compared (theirs: ", providers->theirs[index],
                      "; ours: ", providers->ours[index], "): ");
    else
      absl::StrAppend(&line, "reference on both sides (", providers->ours[index], "): ");
    if (difference)
      absl::StrAppend(&line, "structure differs: ", difference->Describe("ours", "theirs"));
    else
      line.append("structure identical (modulo names)");
    absl::StrAppend(&line, "; ", semantics.text);
    if (diverged)
      absl::StrAppend(&line, " [the inputs already differ, since pass ", *diverged, "]");
    std::fprintf(stderr, "%s\n", line.c_str());
    ++reported;
    // An identical structure computes the same, whether or not the
    // interpreter could run it.
    bool ok = !difference || (!request.strict && semantics.kind == Semantics::kEquivalent);
    if (!difference)
      ++identical;
    else if (semantics.kind == Semantics::kEquivalent)
      ++equivalent;
    if (!ok) failing.push_back(absl::StrCat("'", name, "'"));
    if (difference && !diverged) {
      diverged = absl::StrCat(index + 1, " '", name, "'");
      diverged_index = index;
      if (!request.keep_dir.empty()) {
        auto kept = KeepDifference(request.keep_dir, index, name, ours, **their_module);
        if (!kept.ok())
          return absl::Status(kept.status().code(),
                              absl::StrCat("compare: ", kept.status().message()));
        std::fprintf(stderr, "hopt: compare: the first difference (pass %s) kept in %s and %s\n",
                     diverged->c_str(), kept->first.c_str(), kept->second.c_str());
      }
    }
    return absl::OkStatus();
  };
  instrumentation.callbacks.push_back(std::move(compare));
  absl::StatusOr<bool> ran = RunPipeline(module, passes, instrumentation);
  if (!ran.ok()) {
    if (absl::StartsWith(ran.status().message(), "compare: ")) return ran.status();
    // The pass that failed is the first one without a report line.
    return absl::Status(
        ran.status().code(),
        absl::StrCat("compare: ours (",
                     reported < providers->ours.size() ? providers->ours[reported] : "?",
                     ") failed: ", ran.status().message()));
  }
  size_t from_reference = passes.size() - providers->compared_count;
  std::string counts = absl::StrCat(
      "compared ", providers->compared_count, " of ", passes.size(), " pass",
      passes.size() == 1 ? "" : "es", " with ", with,
      from_reference == 0
          ? ""
          : absl::StrCat(" (", from_reference, " ran from the reference on both sides)"),
      "; results: ", identical, " identical in structure, ", equivalent,
      " equivalent in semantics only");
  if (diverged && diverged_index + 1 < passes.size())
    absl::StrAppend(&counts, "; the outputs diverge from pass ", *diverged,
                    " on, and each side ran the later passes on its own output");
  if (!failing.empty())
    return CompareDifferenceError(
        absl::StrCat("compare: ", counts, "; ", failing.size(), " differ",
                     request.strict ? " in structure (-compare-strict)" : "", ": ",
                     absl::StrJoin(failing, ", ")));
  std::fprintf(stderr, "hopt: compare: %s; %s\n", counts.c_str(),
               request.strict ? "all identical in structure" : "all equivalent");
  return ran;
}

}  // namespace

absl::Status CompareDifferenceError(absl::string_view message) {
  absl::Status status = absl::FailedPreconditionError(message);
  status.SetPayload(kDifferencePayload, absl::Cord("1"));
  return status;
}

int CompareExitStatus(const absl::Status& status) {
  if (status.ok()) return kCompareSame;
  return status.GetPayload(kDifferencePayload).has_value() ? kCompareDiffer : kCompareCouldNotRun;
}

bool ValueOptionGiven(int argc, const char* const* argv, absl::string_view name) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--")) absl::ConsumePrefix(&arg, "-");
    if (absl::ConsumePrefix(&arg, name)) {
      if (absl::ConsumePrefix(&arg, "=")) return !arg.empty();
      if (arg.empty()) return i + 1 < argc && argv[i + 1][0] != '\0';
    }
  }
  return false;
}

bool CompareWithGiven(int argc, const char* const* argv) {
  return ValueOptionGiven(argc, argv, "compare-with");
}

std::string KeepFileName(size_t index, absl::string_view pass, absl::string_view side) {
  std::string name(pass);
  for (char& c : name)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      c = '_';
  if (name.empty()) name = "_";
  return absl::StrFormat("%02d-%s.%s.hlo", index + 1, name, side);
}

std::vector<std::string> ComparisonRunArguments(const std::vector<std::string>& argv) {
  static const std::set<std::string, std::less<>> kDropped = {
      "load", "override-passes", "passes", "o", "compare-with", "compare-sets", "compare-strict",
      "compare-keep", "compare-child-dir", "input-format", "output-format", "split-input-file",
      "list-passes", "verify-equivalence", "time-read",
      // The second process does not run under valgrind: only ours is counted.
      "callgrind-per-pass"};
  auto& registered = llvm::cl::getRegisteredOptions();
  std::vector<std::string> kept;
  for (size_t i = 1; i < argv.size(); ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;  // only positional arguments follow: the input
    if (arg == "-" || !absl::StartsWith(arg, "-")) continue;  // the input
    absl::string_view bare = arg;
    if (!absl::ConsumePrefix(&bare, "--")) absl::ConsumePrefix(&bare, "-");
    size_t equals = bare.find('=');
    absl::string_view name = bare.substr(0, equals);
    bool takes_next = false;
    if (equals == absl::string_view::npos) {
      auto it = registered.find(llvm::StringRef(name.data(), name.size()));
      takes_next = it != registered.end() &&
                   it->second->getValueExpectedFlag() == llvm::cl::ValueRequired &&
                   i + 1 < argv.size();
    }
    // -emit-dot writes a file of its own: the parent's.
    if (kDropped.count(name) == 0 && !absl::StartsWith(name, "emit-dot")) {
      kept.emplace_back(arg);
      if (takes_next) kept.push_back(argv[i + 1]);
    }
    if (takes_next) ++i;
  }
  return kept;
}

absl::StatusOr<bool> RunPipelineWithComparison(const CompareRequest& request, HloModule& module,
                                               const std::vector<std::unique_ptr<Pass>>& passes,
                                               Instrumentation instrumentation) {
  if (!request.child_dir.empty())
    return RunAsComparisonChild(request, module, passes, std::move(instrumentation));
  return RunAsComparisonParent(request, module, passes, std::move(instrumentation));
}

}  // namespace tools
}  // namespace hopt

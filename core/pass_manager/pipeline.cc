#include "hopt/pass_manager/pipeline.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/verifier.h"
#include "core/pass_manager/crash_report.h"
#include "hopt/pass_manager/debug.h"
#include "llvm/Support/Format.h"
#include "valgrind/callgrind.h"

namespace hopt {
namespace {

bool Contains(const std::vector<std::string>& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void Dump(llvm::raw_ostream& out, absl::string_view when, absl::string_view pass,
          absl::string_view suffix, const HloModule& module, const PrintOptions& options) {
  out << "// *** IR Dump " << AsRef(when) << " " << AsRef(pass) << AsRef(suffix) << " ***\n";
  PrintModule(module, options, [&](absl::string_view chunk) { out << AsRef(chunk); });
  out.flush();
}

// " (plugin NAME VERSION)" for a pass a plugin provides, when the
// registry is known.
std::string Provider(const Instrumentation& inst, absl::string_view pass) {
  if (inst.registry == nullptr) return "";
  const PassInfo* info = inst.registry->Find(pass);
  if (info == nullptr || info->plugin == "hopt") return "";
  return absl::StrCat(" (plugin ", info->plugin, " ", info->plugin_version, ")");
}

// Page faults of this process so far (minor and major).
int64_t PageFaults() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_minflt) + static_cast<int64_t>(usage.ru_majflt);
}

}  // namespace

namespace {

absl::Status UnknownPass(absl::string_view name, const PassRegistry& registry) {
  std::vector<std::string> close = registry.ClosestNames(name);
  if (close.empty())
    return absl::NotFoundError(absl::StrCat("unknown pass '", name, "'; see -list-passes"));
  std::vector<std::string> quoted;
  for (const std::string& c : close) quoted.push_back(absl::StrCat("'", c, "'"));
  return absl::NotFoundError(absl::StrCat("unknown pass '", name, "'; did you mean ",
                                          absl::StrJoin(quoted, " or "), "?"));
}

// Named pipelines nest at most this deep (a pipeline naming itself would
// never end).
constexpr int kMaxPipelineDepth = 8;

absl::Status AppendPipeline(absl::string_view text, const PassRegistry& registry, int depth,
                            const NamedPipeline* within,
                            std::vector<std::unique_ptr<Pass>>& passes,
                            std::vector<PipelinePass>* details) {
  auto elements = SplitPipelineText(text);
  if (!elements.ok()) {
    if (within == nullptr) return elements.status();
    return absl::InvalidArgumentError(absl::StrCat("pipeline '", within->name, "' (plugin '",
                                                   within->plugin, "'): ",
                                                   elements.status().message()));
  }
  for (const PipelineElement& element : *elements) {
    const PassInfo* info = registry.Find(element.name);
    const NamedPipeline* named = info == nullptr ? registry.FindPipeline(element.name) : nullptr;
    if (named != nullptr) {
      if (element.has_braces)
        return absl::InvalidArgumentError(absl::StrCat(
            "pipeline '", named->name, "' takes no options (give them to its passes)"));
      if (depth >= kMaxPipelineDepth)
        return absl::InvalidArgumentError(
            absl::StrCat("pipeline '", named->name, "' nests more than ", kMaxPipelineDepth,
                         " pipelines deep (does it name itself?)"));
      absl::Status expanded =
          AppendPipeline(named->text, registry, depth + 1, named, passes, details);
      if (!expanded.ok()) return expanded;
      continue;
    }
    if (info == nullptr) {
      if (within == nullptr) return UnknownPass(element.name, registry);
      std::string load;
      for (const std::string& plugin : within->plugins) absl::StrAppend(&load, " -load=", plugin);
      return absl::NotFoundError(absl::StrCat(
          "pipeline '", within->name, "' needs pass '", element.name,
          "', which no loaded plugin provides",
          load.empty() ? "" : absl::StrCat("; load the pipeline's plugins:", load)));
    }
    auto options =
        ResolvePassOptions(info->name, info->options, element.options, info->flag_defaults);
    if (!options.ok()) return options.status();
    std::unique_ptr<Pass> pass = info->factory(*options);
    if (pass == nullptr)
      return absl::InternalError(
          absl::StrCat("the factory of pass '", element.name, "' returned nothing"));
    passes.push_back(std::move(pass));
    if (details != nullptr) details->push_back({info->name, *std::move(options)});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(
    absl::string_view text, const PassRegistry& registry, std::vector<PipelinePass>* details) {
  std::vector<std::unique_ptr<Pass>> passes;
  absl::Status parsed = AppendPipeline(text, registry, 0, nullptr, passes, details);
  if (!parsed.ok()) return parsed;
  return passes;
}

absl::StatusOr<bool> RunPipeline(HloModule& module,
                                 const std::vector<std::unique_ptr<Pass>>& passes,
                                 const Instrumentation& inst) {
  if (inst.callgrind_per_pass && RUNNING_ON_VALGRIND == 0)
    return absl::FailedPreconditionError(
        "-callgrind-per-pass counts only under valgrind --tool=callgrind --instr-atstart=no");
  llvm::raw_ostream& out = inst.out != nullptr ? *inst.out : llvm::errs();
  // Per pass name: wall seconds and page faults (a fault costs from a
  // fraction of a microsecond to over ten on the virtual machines we
  // measured, and a pass that touches fresh memory takes one per 4 KB page).
  struct Timing {
    std::string name;
    double seconds = 0;
    int64_t page_faults = 0;
  };
  std::vector<Timing> timings;
  bool changed_any = false;
  for (size_t index = 0; index < passes.size(); ++index) {
    const std::unique_ptr<Pass>& pass = passes[index];
    std::string name(pass->name());
    if (inst.print_before_all || Contains(inst.print_before, name))
      Dump(out, "Before", name, "", module, inst.print_options);
    auto start = std::chrono::steady_clock::now();
    int64_t faults_before = PageFaults();
    // A plugin's exception stops at this boundary as an error naming it.
    absl::StatusOr<bool> changed = false;
    bool threw = true;
    if (inst.callgrind_per_pass) {
      CALLGRIND_START_INSTRUMENTATION;
      CALLGRIND_ZERO_STATS;
    }
    try {
      CrashContext crash_context(absl::StrCat("running pass '", name, "'", Provider(inst, name)));
      changed = pass->Run(module);
      threw = false;
    } catch (const std::exception& e) {
      changed = absl::InternalError(absl::StrCat("threw an exception: ", e.what()));
    } catch (...) {
      changed = absl::InternalError("threw an exception that is not a std::exception");
    }
    if (inst.callgrind_per_pass) {
      CALLGRIND_DUMP_STATS_AT(name.c_str());
      CALLGRIND_STOP_INSTRUMENTATION;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int64_t faults = PageFaults() - faults_before;
    // One row per pass name (in order of first run), summing repeated runs.
    auto row = std::find_if(timings.begin(), timings.end(),
                            [&](const Timing& entry) { return entry.name == name; });
    if (row == timings.end()) row = timings.insert(timings.end(), Timing{name, 0, 0});
    row->seconds += seconds;
    row->page_faults += faults;
    if (!changed.ok())
      return absl::Status(changed.status().code(),
                          absl::StrCat("pass '", name, "'", threw ? Provider(inst, name) : "",
                                       ": ", changed.status().message()));
    changed_any |= *changed;
    // A scheduled module prints its list as the schedule: keep every
    // definition before its uses, whatever order the pass appended in.
    if (*changed) RestoreDefBeforeUseOrder(module);
    if (inst.verify_each) {
      absl::Status valid = VerifyModule(module);
      if (!valid.ok())
        return absl::InternalError(
            absl::StrCat("pass '", name, "'", Provider(inst, name),
                         " produced an invalid module: ", valid.message()));
    }
    if (inst.after_pass) {
      absl::Status kept = inst.after_pass(index, *pass, module);
      if (!kept.ok()) return kept;
    }
    if (inst.print_after_all || Contains(inst.print_after, name))
      Dump(out, "After", name, "", module, inst.print_options);
    else if (inst.print_changed && *changed)
      Dump(out, "After", name, " (changed)", module, inst.print_options);
  }
  if (inst.time_passes) {
    double total = 0;
    int64_t total_faults = 0;
    for (const Timing& row : timings) {
      total += row.seconds;
      total_faults += row.page_faults;
    }
    out << "===" << std::string(66, '-') << "===\n"
        << "                      Pass execution timing report\n"
        << "===" << std::string(66, '-') << "===\n"
        << llvm::format("  Total: %.4f s, %lld page faults\n\n", total,
                        static_cast<long long>(total_faults))
        << "   Wall time (s)   ---%---  Page faults  Pass\n";
    for (const Timing& row : timings)
      out << llvm::format("  %14.6f  %7.1f%%  %11lld  ", row.seconds,
                          total > 0 ? 100.0 * row.seconds / total : 0.0,
                          static_cast<long long>(row.page_faults))
          << row.name << "\n";
    out.flush();
  }
  return changed_any;
}

}  // namespace hopt

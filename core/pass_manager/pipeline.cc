// SPDX-License-Identifier: Apache-2.0

#include "core/pass_manager/tooling/pipeline.h"

#include <algorithm>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/pass_manager/pipeline_file.h"
#include "core/pass_manager/tooling/crash_report.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

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

llvm::raw_ostream& Out(const Instrumentation& inst) {
  return inst.out != nullptr ? *inst.out : llvm::errs();
}

// One pass, with what a crash report names. A plugin's exception stops at
// this boundary as an error.
absl::StatusOr<bool> RunOnePass(Pass& pass, HloModule& module, const Instrumentation& inst) {
  try {
    CrashContext crash_context(
        absl::StrCat("running pass '", pass.name(), "'", Provider(inst, pass.name())));
    return pass.Run(module);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("threw an exception: ", e.what()));
  } catch (...) {
    return absl::InternalError("threw an exception that is not a std::exception");
  }
}

}  // namespace

namespace {

absl::Status UnknownPass(absl::string_view name, const PassRegistry& registry) {
  return absl::NotFoundError(
      absl::StrCat("unknown pass '", name, "'", registry.SuggestionFor(name)));
}

// Named pipelines nest at most this deep (a pipeline naming itself would
// never end).
constexpr int kMaxPipelineDepth = 8;

absl::Status AppendPipeline(absl::string_view text, const PassRegistry& registry, int depth,
                            const NamedPipeline* within, std::vector<std::unique_ptr<Pass>>& passes,
                            std::vector<PipelinePass>* details) {
  auto elements = SplitPipelineText(text);
  if (!elements.ok()) {
    if (within == nullptr) return elements.status();
    return absl::InvalidArgumentError(absl::StrCat(
        "pipeline '", within->name, "' (",
        within->plugin == kPipelineFileProvider ? within->plugin_version
                                                : absl::StrCat("plugin '", within->plugin, "'"),
        "): ", elements.status().message()));
  }
  for (const PipelineElement& element : *elements) {
    const PassInfo* info = registry.Find(element.name);
    const NamedPipeline* named = info == nullptr ? registry.FindPipeline(element.name) : nullptr;
    if (named != nullptr) {
      if (element.has_braces)
        return absl::InvalidArgumentError(absl::StrCat(
            "pipeline '", named->name, "' takes no options (give them to its passes)"));
      if (depth >= kMaxPipelineDepth)
        return absl::InvalidArgumentError(absl::StrCat("pipeline '", named->name,
                                                       "' nests more than ", kMaxPipelineDepth,
                                                       " pipelines deep (does it name itself?)"));
      HOPT_RETURN_IF_ERROR(
          AppendPipeline(named->text, registry, depth + 1, named, passes, details));
      continue;
    }
    if (info == nullptr) {
      if (within == nullptr) return UnknownPass(element.name, registry);
      std::string load;
      for (const std::string& plugin : within->plugins) absl::StrAppend(&load, " -load=", plugin);
      return absl::NotFoundError(
          absl::StrCat("pipeline '", within->name, "' needs pass '", element.name,
                       "', which no loaded plugin provides",
                       load.empty() ? "" : absl::StrCat("; load the pipeline's plugins:", load)));
    }
    HOPT_ASSIGN_OR_RETURN(
        PassOptions options,
        ResolvePassOptions(info->name, info->options, element.options, info->flag_defaults));
    std::unique_ptr<Pass> pass = info->factory(options);
    if (pass == nullptr)
      return absl::InternalError(
          absl::StrCat("the factory of pass '", element.name, "' returned nothing"));
    passes.push_back(std::move(pass));
    if (details != nullptr) details->push_back({info->name, std::move(options)});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(
    absl::string_view text, const PassRegistry& registry, std::vector<PipelinePass>* details) {
  std::vector<std::unique_ptr<Pass>> passes;
  HOPT_RETURN_IF_ERROR(AppendPipeline(text, registry, 0, nullptr, passes, details));
  return passes;
}

absl::StatusOr<bool> RunPipeline(HloModule& module,
                                 const std::vector<std::unique_ptr<Pass>>& passes,
                                 const Instrumentation& inst) {
  for (const PassCallbacks& callbacks : inst.callbacks)
    if (callbacks.before_pipeline) HOPT_RETURN_IF_ERROR(callbacks.before_pipeline(module));
  bool changed_any = false;
  for (size_t index = 0; index < passes.size(); ++index) {
    Pass& pass = *passes[index];
    std::string name(pass.name());
    if (inst.print_before_all || Contains(inst.print_before, name))
      Dump(Out(inst), "Before", name, "", module, inst.print_options);
    for (const PassCallbacks& callbacks : inst.callbacks)
      if (callbacks.before_pass) callbacks.before_pass(pass, module);
    absl::StatusOr<bool> changed = RunOnePass(pass, module, inst);
    for (auto it = inst.callbacks.rbegin(); it != inst.callbacks.rend(); ++it)
      if (it->after_pass) it->after_pass(pass, module);
    if (!changed.ok())
      return absl::Status(changed.status().code(),
                          absl::StrCat("pass '", name, "'", Provider(inst, name), ": ",
                                       changed.status().message()));
    changed_any |= *changed;
    // A scheduled module prints its list as the schedule: keep every
    // definition before its uses, whatever order the pass appended in.
    if (*changed) RestoreDefBeforeUseOrder(module);
    if (inst.verify_each) {
      absl::Status valid = VerifyModule(module);
      if (!valid.ok())
        return absl::InternalError(absl::StrCat("pass '", name, "'", Provider(inst, name),
                                                " produced an invalid module: ", valid.message()));
    }
    for (auto it = inst.callbacks.rbegin(); it != inst.callbacks.rend(); ++it)
      if (it->after_verifier) HOPT_RETURN_IF_ERROR(it->after_verifier(index, pass, module));
    if (inst.print_after_all || Contains(inst.print_after, name))
      Dump(Out(inst), "After", name, "", module, inst.print_options);
    else if (inst.print_changed && *changed)
      Dump(Out(inst), "After", name, " (changed)", module, inst.print_options);
  }
  for (auto it = inst.callbacks.rbegin(); it != inst.callbacks.rend(); ++it)
    if (it->after_pipeline) it->after_pipeline(module);
  return changed_any;
}

}  // namespace hopt

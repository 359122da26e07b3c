// SPDX-License-Identifier: Apache-2.0

#include "hopt/testing/plugin_harness.h"

#include <dlfcn.h>

#include <cstring>
#include <exception>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "hopt/eval/evaluator.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace testkit {

absl::Status PluginHarness::LoadPlugin(const std::string& path) {
  // As hopt: RTLD_NOW so an unresolved symbol fails here, RTLD_LOCAL so
  // plugins never see each other's symbols.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' is not a loadable shared object: ", why ? why : "unknown error"));
  }
  void* symbol = dlsym(handle, HOPT_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr)
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "' does not export the entry point '",
                     HOPT_PLUGIN_ENTRY_POINT, "' (is it a hopt plugin?)"));
  return Register(reinterpret_cast<HoptGetPluginInfoFn>(symbol)(), path);
}

absl::Status PluginHarness::RegisterPlugin(HoptGetPluginInfoFn entry) {
  if (entry == nullptr) return absl::InvalidArgumentError("RegisterPlugin: no entry function");
  HoptPluginInfo info = entry();
  return Register(info, info.api_version == HOPT_PLUGIN_API_VERSION && info.name != nullptr
                            ? info.name
                            : "(entry function)");
}

absl::Status PluginHarness::Register(const HoptPluginInfo& info, absl::string_view source) {
  return RegisterPluginInfo(info, source, extensions_);
}

absl::StatusOr<std::unique_ptr<HloModule>> PluginHarness::Run(absl::string_view pipeline,
                                                              absl::string_view hlo_text) const {
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                        ParseHloModule(std::string(hlo_text), "<input>"));
  HOPT_RETURN_IF_ERROR(VerifyInput(*module, "<input>"));
  HOPT_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Pass>> passes,
                        ParsePipeline(pipeline, extensions_.passes));
  Instrumentation instrumentation;
  instrumentation.verify_each = true;
  instrumentation.registry = &extensions_.passes;
  HOPT_RETURN_IF_ERROR(RunPipeline(*module, passes, instrumentation).status());
  return module;
}

absl::StatusOr<std::string> PluginHarness::RunToText(absl::string_view pipeline,
                                                     absl::string_view hlo_text) const {
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, Run(pipeline, hlo_text));
  return PrintModule(*module);
}

absl::StatusOr<EquivalenceVerdict> PluginHarness::VerifyEquivalence(
    absl::string_view pipeline, absl::string_view hlo_text,
    const EquivalenceOptions& options) const {
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> before,
                        ParseHloModule(std::string(hlo_text), "<input>"));
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> after, Run(pipeline, hlo_text));
  return CompareOnMesh(*before, *after, options);
}

EquivalenceVerdict PluginHarness::CompareOnMesh(const HloModule& before, const HloModule& after,
                                                const EquivalenceOptions& options) const {
  EquivalenceVerdict verdict;
  eval::EvalOptions eval_options;
  eval_options.replicas = options.replicas > 0 ? options.replicas : before.replica_count();
  eval_options.partitions = options.partitions > 0 ? options.partitions : before.num_partitions();
  eval_options.custom_calls = &extensions_.custom_calls;
  absl::StatusOr<int64_t> devices =
      eval::MeshDevices(eval_options.replicas, eval_options.partitions);
  if (!devices.ok()) {
    verdict.difference = absl::StrCat("before: ", devices.status().message());
    return verdict;
  }
  verdict.devices = *devices;
  if (absl::Status fits = eval::CheckArgumentsFit(before, eval_options); !fits.ok()) {
    verdict.difference = absl::StrCat("before: ", fits.message());
    return verdict;
  }
  for (int64_t set = 0; set < options.sets; ++set) {
    const uint64_t seed = options.seed + static_cast<uint64_t>(set);
    std::vector<std::vector<Literal>> arguments = eval::RandomArguments(before, *devices, seed);
    eval::RunLog before_log, after_log;
    auto expected = eval::RunModule(before, arguments, eval_options, &before_log);
    if (!expected.ok()) {
      verdict.difference = absl::StrCat("before: ", expected.status().message());
      return verdict;
    }
    auto actual = eval::RunModule(after, arguments, eval_options, &after_log);
    if (!actual.ok()) {
      verdict.difference = absl::StrCat("after: ", actual.status().message());
      return verdict;
    }
    for (int64_t d = 0; d < *devices; ++d) {
      std::string difference;
      // Outputs first; then the opaque calls, whose results no output may show.
      if (eval::BitwiseEqual((*expected)[d], (*actual)[d], &difference))
        difference = eval::CompareOpaqueCallLogs(before_log.opaque_calls[d],
                                                 after_log.opaque_calls[d], "before", "after");
      if (!difference.empty()) {
        verdict.difference =
            absl::StrCat("device ", d, " (replica ", d / eval_options.partitions, ", partition ",
                         d % eval_options.partitions, "), input set ", set, " (seed ", seed,
                         "): ", difference, " (before vs after)");
        return verdict;
      }
    }
  }
  verdict.equivalent = true;
  return verdict;
}

}  // namespace testkit
}  // namespace hopt

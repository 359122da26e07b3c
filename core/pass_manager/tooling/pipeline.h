// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PASS_MANAGER_TOOLING_PIPELINE_H_
#define HOPT_CORE_PASS_MANAGER_TOOLING_PIPELINE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/pass_manager/pass_registry.h"
#include "llvm/Support/raw_ostream.h"

namespace hopt {

// One pass of a parsed pipeline: its name and its option values.
struct PipelinePass {
  std::string name;
  PassOptions options;
};

// `a,b{k=v},c` -> the passes, created from the registry with their options
// (include/hopt/pass_manager/pass_options.h). An element that names a pipeline a
// plugin registered (and no pass) stands for that pipeline's passes. An
// unknown name fails before anything runs, naming the closest registered
// names; so does a malformed or unknown option. When `details` is not
// null it receives each pass's name and option values, in order.
absl::StatusOr<std::vector<std::unique_ptr<Pass>>> ParsePipeline(
    absl::string_view text, const PassRegistry& registry,
    std::vector<PipelinePass>* details = nullptr);

// Callbacks around every pass, in the model of LLVM's
// PassInstrumentationCallbacks: a tool measures passes (hopt's -time-passes,
// -callgrind-per-pass: tools/common/pass_instrumentation.h) or checks and keeps their results
// (-compare-with, -verify-equivalence-region) without the pass manager knowing what is done. Any
// member may be left empty. Per pass, in this order:
//
//   before_pass, the pass's Run, after_pass, the verifier, after_verifier
//
// The callbacks of Instrumentation::callbacks run in the order given before
// a pass, and in the reverse order after it, so that the first one encloses
// the others.
struct PassCallbacks {
  // Before the first pass. An error stops the pipeline before any pass runs
  // and is returned as is (a measurement that cannot be made, say).
  std::function<absl::Status(const HloModule& module)> before_pipeline;
  // Just before each pass runs (after -print-before's dump).
  std::function<void(const Pass& pass, const HloModule& module)> before_pass;
  // Just after each pass returned, also when it failed or threw, before the
  // verifier: what a measurement of the pass alone stops at.
  std::function<void(const Pass& pass, const HloModule& module)> after_pass;
  // After each pass that succeeded, once the verifier accepted its module
  // (right after after_pass under verify_each=false), with the pass's
  // position in the pipeline, before the prints: lets a caller check, keep
  // or compare the module pass by pass. An error stops the pipeline and is
  // returned as is.
  std::function<absl::Status(size_t index, const Pass& pass, const HloModule& module)>
      after_verifier;
  // After the last pass, when every pass succeeded (and was verified).
  std::function<void(const HloModule& module)> after_pipeline;
};

// What the pass manager reports while running a pipeline.
struct Instrumentation {
  bool verify_each = true;                // verifier after every pass
  std::vector<std::string> print_before;  // pass names
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  bool print_changed = false;  // after passes that changed the module
  PrintOptions print_options;
  llvm::raw_ostream* out = nullptr;  // where prints go (stderr if null)
  // When set, errors name the plugin that provides the failing pass.
  const PassRegistry* registry = nullptr;
  std::vector<PassCallbacks> callbacks;
};

// Runs the passes in order. A pass error is returned as
// `pass 'name' (plugin P V): <error>`; a verifier failure after a pass as
// `pass 'name' (plugin P V) produced an invalid module: verifier: ...`
// (the plugin is named when Instrumentation::registry knows it).
absl::StatusOr<bool> RunPipeline(HloModule& module,
                                 const std::vector<std::unique_ptr<Pass>>& passes,
                                 const Instrumentation& instrumentation);

}  // namespace hopt

#endif  // HOPT_CORE_PASS_MANAGER_TOOLING_PIPELINE_H_

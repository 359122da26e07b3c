// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_PROVIDER_COMPARE_H_
#define HOPT_TOOLS_COMMON_PROVIDER_COMPARE_H_

// hopt -compare-with=theirs.so: runs the pipeline with our plugins
// in-process and with theirs.so in a second hopt process, and compares the
// module after every pass, structurally (modulo names) and on the
// interpreter (docs/hopt.md, "-compare-with").
//
// theirs.so may replace only some of the pipeline's passes: the others run
// from the reference (our plugins) on both sides, and the report says
// which passes were compared and which ran from the reference.
//
// The second process is needed because theirs.so and the plugin it
// replaces may both define the same static LLVM options, and two such
// plugins cannot share a process (LLVM aborts on the second registration,
// or the loader refuses the second plugin). That process is hopt itself,
// re-executed with the hidden -compare-child-dir=DIR: it loads our plugins
// and then theirs.so with -override-passes, so that theirs.so replaces
// exactly the passes it provides, runs the same (expanded) pipeline on the
// module the parent wrote to DIR and leaves the module after each pass
// (and the failure of a pass, if any) in DIR. A plugin of ours that
// theirs.so replaces and that runs none of the pipeline's passes there is
// left out of the second process: it would add nothing, and its options
// could clash with theirs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass_registry.h"

namespace hopt {
namespace tools {

struct CompareRequest {
  std::string with;                        // -compare-with=PLUGIN; empty: no comparison
  std::string child_dir;                   // hidden -compare-child-dir: this is the second run
  std::string keep_dir;                    // -compare-keep: where the first difference goes
  std::string pipeline;                    // the pipeline, named pipelines expanded
  int64_t sets = 3;                        // -compare-sets: interpreter input sets per pass
  bool strict = false;                     // -compare-strict: require identical structure
  uint64_t seed = 1;                       // -equivalence-seed: seed of the first input set
  bool split_input = false;                // -split-input-file (not supported)
  std::vector<std::string> loads;          // our -load specs, in order
  std::vector<std::string> argv;           // the whole command line, argv[0] first
  const PassRegistry* registry = nullptr;  // our passes and their plugins
  // The interpreter's -replicas / -partitions (0: the module's, or what its
  // groups need: core/eval/tooling/mesh_inference.h) and -opaque-custom-calls.
  int64_t replicas = 0;
  int64_t partitions = 0;
  eval::EvalOptions::OpaqueCustomCalls opaque_custom_calls =
      eval::EvalOptions::OpaqueCustomCalls::kHash;
  // What our plugins say their custom-calls compute (may be null).
  const eval::CustomCallTable* custom_calls = nullptr;

  bool requested() const { return !with.empty() || !child_dir.empty(); }
};

// hopt's exit status under -compare-with (docs/hopt.md): 0 when the two
// sides agree (identical structure, or equivalent on the interpreter
// unless -compare-strict), 1 when their results differ, 2 when the
// comparison could not run (theirs.so does not load, a pass fails on
// either side, their run crashes, a bad argument). Without -compare-with
// every error of hopt's is 1.
inline constexpr int kCompareSame = 0;
inline constexpr int kCompareDiffer = 1;
inline constexpr int kCompareCouldNotRun = 2;

// The exit status for what RunPipelineWithComparison (or anything else
// hopt does under -compare-with) returned: kCompareDiffer only for the
// error that reports a difference, kCompareCouldNotRun for any other.
int CompareExitStatus(const absl::Status& status);
// The error RunPipelineWithComparison returns for a difference: `message`,
// marked so that CompareExitStatus tells it from a failure to run.
absl::Status CompareDifferenceError(absl::string_view message);

// Whether `argv` asks for a comparison (a non-empty -compare-with before
// any "--"): hopt needs to know before it parses its command line, whose
// errors then exit with kCompareCouldNotRun.
bool CompareWithGiven(int argc, const char* const* argv);
// Whether `argv` gives the option `name` a non-empty value (`-name=V`,
// `--name V`...) before any "--": for the options that change hopt's exit
// statuses, which must be known before the command line is parsed.
bool ValueOptionGiven(int argc, const char* const* argv, absl::string_view name);

// The file names -compare-keep writes for the first difference, at the
// pass with 0-based `index` in the pipeline: "NN-<pass>.ours.hlo" and
// "NN-<pass>.theirs.hlo" (NN counts from 1, as the report does; characters
// other than letters, digits, '-', '_' and '.' in the name become '_').
std::string KeepFileName(size_t index, absl::string_view pass, absl::string_view side);

// Stands in for hopt::RunPipeline when request.requested(). In the parent:
// runs our passes on `module` (which ends up as our result), comparing
// each pass's output with theirs and printing one report line per pass and
// a summary on stderr; an error means a failure or a difference that fails
// the comparison (the driver then writes no output; CompareExitStatus
// tells which). In the second run: runs the passes and leaves each result
// in child_dir.
absl::StatusOr<bool> RunPipelineWithComparison(const CompareRequest& request, HloModule& module,
                                               const std::vector<std::unique_ptr<Pass>>& passes,
                                               Instrumentation instrumentation);

// The arguments of `argv` (without argv[0]) the second run inherits: all
// but -load, -override-passes, -passes (the second run gets its own), -o,
// the -compare-* options, the input and the options about reading and
// writing files (-input-format, -output-format, -split-input-file,
// -list-passes, -verify-equivalence, -time-read, -emit-dot*). Uses the
// registered options to tell an option's separate value from the input file.
std::vector<std::string> ComparisonRunArguments(const std::vector<std::string>& argv);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_PROVIDER_COMPARE_H_

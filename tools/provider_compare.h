#ifndef HOPT_TOOLS_PROVIDER_COMPARE_H_
#define HOPT_TOOLS_PROVIDER_COMPARE_H_

// hopt -compare-with=theirs.so: runs the pipeline with our plugins
// in-process and with theirs.so in a second hopt process, and compares the
// module after every pass, structurally (modulo names) and on the
// interpreter (README_SECTION_compare.md).
//
// The second process is needed because a replacement plugin usually
// defines the same static LLVM options as the plugin it replaces, and two
// such plugins cannot share a process (LLVM aborts on the second
// registration, or the loader refuses the second plugin). That process
// is hopt itself, re-executed with the hidden -compare-child-dir=DIR: it
// loads theirs.so instead of the plugins it replaces, runs the same
// pipeline on the module the parent wrote to DIR and leaves the module
// after each pass (and the failure of a pass, if any) in DIR.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/eval/evaluator.h"
#include "core/ir/module.h"
#include "core/pass_manager/pass_registry.h"
#include "core/pass_manager/pipeline.h"

namespace hopt {
namespace tools {

struct CompareRequest {
  std::string with;                // -compare-with=PLUGIN; empty: no comparison
  std::string child_dir;           // hidden -compare-child-dir: this is the second run
  int64_t sets = 3;                // -compare-sets: interpreter input sets per pass
  bool strict = false;             // -compare-strict: require identical structure
  uint64_t seed = 1;               // -equivalence-seed: seed of the first input set
  bool split_input = false;        // -split-input-file (not supported)
  std::vector<std::string> loads;  // our -load specs, in order
  std::vector<std::string> argv;   // the whole command line, argv[0] first
  const PassRegistry* registry = nullptr;  // our passes and their plugins
  // The interpreter's -replicas / -partitions (0: the module's, or what its
  // groups need: core/eval/mesh_inference.h) and -opaque-custom-calls.
  int64_t replicas = 0;
  int64_t partitions = 0;
  eval::EvalOptions::OpaqueCustomCalls opaque_custom_calls =
      eval::EvalOptions::OpaqueCustomCalls::kHash;
  // What our plugins say their custom-calls compute (may be null).
  const eval::CustomCallTable* custom_calls = nullptr;

  bool requested() const { return !with.empty() || !child_dir.empty(); }
};

// Stands in for hopt::RunPipeline when request.requested(). In the parent:
// runs our passes on `module` (which ends up as our result), comparing
// each pass's output with theirs and printing one report line per pass and
// a summary on stderr; an error means a failure or a difference that fails
// the comparison (the driver then writes no output). In the second run:
// runs the passes and leaves each result in child_dir.
absl::StatusOr<bool> RunPipelineWithComparison(const CompareRequest& request, HloModule& module,
                                               const std::vector<std::unique_ptr<Pass>>& passes,
                                               Instrumentation instrumentation);

// The arguments of `argv` (without argv[0]) the second run inherits: all
// but -load, -o, the -compare-* options, the input and the options about
// reading and writing files (-input-format, -output-format, -split-input-file,
// -list-passes, -verify-equivalence, -time-read, -emit-dot*). Uses the
// registered options to tell an option's separate value from the input file.
std::vector<std::string> ComparisonRunArguments(const std::vector<std::string>& argv);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_PROVIDER_COMPARE_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_TOOLING_STAGE_REPLAY_H_
#define HOPT_CORE_EVAL_TOOLING_STAGE_REPLAY_H_

// Runs a module that was split into stages (include/hopt/support/split_manifest.h)
// the way a pipeline would: stage after stage, each stage's parameters fed
// from the original arguments or from earlier stages' outputs, and checks
// that the stages together compute what the original module computes.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/support/split_manifest.h"

namespace hopt {
namespace eval {

// `manifest_dir/<stage.file>` for every stage ("" stands for the working
// directory).
std::string StageFilePath(absl::string_view manifest_dir, absl::string_view file);

// Reads, verifies and runs every stage of `manifest` on the mesh (the
// manifest's replica_count x num_partitions unless `options` says
// otherwise); `arguments[d]` are device d's arguments of the ORIGINAL entry
// computation. Each stage module must take exactly the manifest's
// parameters, return the tuple of its outputs, and have the manifest's
// replica_count and num_partitions. Returns every device's result of the
// original module: the tuple of the result values when the manifest says
// the result is a tuple, the one value otherwise. Errors start with
// "stage N: " and name the stage file.
absl::StatusOr<std::vector<Literal>> RunStages(const split::Manifest& manifest,
                                               absl::string_view manifest_dir,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options = {});

// Whether `manifest` describes `original`'s entry computation: the same
// parameter shapes, result shape and mesh.
absl::Status CheckManifestMatchesModule(const HloModule& original, const split::Manifest& manifest);

// Runs `original` and the stages on `arguments` and compares every device's
// result bit for bit (NaN payloads included). On success `report` reads
// "N stage(s) reproduce the outputs of 'MODULE' on D device(s)"; a
// difference is an error naming the device (replica, partition), the
// result element with the stage output it came from, and the first
// differing element with both values.
absl::Status CheckStagesReproduce(const HloModule& original, const split::Manifest& manifest,
                                  absl::string_view manifest_dir,
                                  const std::vector<std::vector<Literal>>& arguments,
                                  const EvalOptions& options, std::string* report);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_TOOLING_STAGE_REPLAY_H_

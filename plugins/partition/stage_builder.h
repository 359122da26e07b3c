// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_STAGE_BUILDER_H_
#define HOPT_PLUGINS_PARTITION_STAGE_BUILDER_H_

// Cuts a module's entry computation into stage modules along a stage
// assignment, and describes the wiring in a split manifest
// (include/hopt/support/split_manifest.h).
//
// Each stage module has the original's header (replica_count,
// num_partitions, is_scheduled; not input_output_alias and the like, which
// name the original's parameters), an entry computation of the original's
// name whose parameters are the values the stage reads from outside (entry
// parameters and earlier stages' outputs, numbered in order of first use)
// and whose root is the tuple of the values later stages or the module's
// result read from it, in order of first use. Its instructions keep their
// names and list order; the computations they call come along. Cheap
// producers are copied into every stage that reads them. A value crosses
// from the stage that computes it straight to each stage that reads it,
// once: never relayed through a stage in between.
//
// A root tuple nothing else reads is assembled by the manifest (its
// elements are the result); any other root is the one result value.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/module.h"
#include "hopt/support/split_manifest.h"
#include "markers/marker_utils.h"
#include "partition/stage_assignment.h"

namespace neuron {
namespace partition {

// What the manifest says about a span; taken before the markers go.
struct SpanSummary {
  std::string start_marker;
  std::string end_marker;
  markers::MarkerDirection direction = markers::MarkerDirection::kForward;
  std::optional<int64_t> boundary_count;
};
std::vector<SpanSummary> SummarizeSpans(const LayerBoundaries& boundaries);

struct StagePlan;

// A split, planned: the manifest, and each stage's module made on request,
// so that a caller writing the stages out holds one at a time (a 500,000
// instruction module makes hundreds). Refers to the module it was planned
// on, which must outlive it unchanged.
class SplitProgram {
 public:
  SplitProgram(const hopt::HloModule& module, hopt::split::Manifest manifest,
               std::vector<StagePlan> plans);
  SplitProgram(SplitProgram&&);
  ~SplitProgram();

  const hopt::split::Manifest& manifest() const { return manifest_; }
  int64_t stage_count() const { return static_cast<int64_t>(manifest_.stages.size()); }
  absl::StatusOr<std::unique_ptr<hopt::HloModule>> BuildStage(int64_t stage) const;

 private:
  const hopt::HloModule* module_;
  hopt::split::Manifest manifest_;
  std::vector<StagePlan> plans_;
};

// `module` is the module to cut (markers already removed); `assignment` was
// made on it before the markers went, so every remaining instruction has a
// position. `input_instruction_count` goes to the manifest.
absl::StatusOr<SplitProgram> PlanStages(const hopt::HloModule& module,
                                        absl::Span<const SpanSummary> spans,
                                        const StageAssignment& assignment,
                                        int64_t input_instruction_count);

}  // namespace partition
}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_STAGE_BUILDER_H_

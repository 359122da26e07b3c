// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_STAGE_ASSIGNMENT_H_
#define HOPT_PLUGINS_PARTITION_STAGE_ASSIGNMENT_H_

// Which stage each instruction of the entry computation goes to, given its
// layer spans. With k spans there are 2k+1 stage positions:
//   0        the code before the first span (the prologue),
//   2i+1     span i (its Start, its End and what lies between),
//   2i       the code between span i-1 and span i,
//   2k       the code after the last span (the epilogue).
// Empty positions become no stage.
//
// The rule, in two linear sweeps:
// - lo(x), forward: the latest position x's operands allow. Start i yields
//   2i+1 (its readers are inside span i), End i yields 2i+2 (its readers
//   come after the span).
// - hi(x), backward: the earliest position x's users need it in. Start i
//   needs its operands by 2i, End i by 2i+1.
// - x goes to lo(x) when that is a span (x reads an open span: it is layer
//   code, e.g. an activation kept for the backward pass), else to hi(x):
//   code that reads no open span runs in the first stage that needs it
//   (weights prepared in the layer that uses them, glue before the next
//   span, results in the epilogue).
// lo(x) > hi(x) means x must come after one marker and before another that
// precedes it: the spans cross or nest. An End whose lo is below its own
// span does not depend on its Start. Control edges count as dataflow.
//
// Parameters get no stage: each stage reads the ones it uses. Nor do cheap
// producers (constant, iota, replica-id and partition-id, and broadcast,
// reshape, bitcast or convert of cheap values, with no control edges): each
// stage that uses one computes it again rather than receiving it.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "partition/layer_boundary_analysis.h"

namespace neuron {
namespace partition {

class StageAssignment {
 public:
  static constexpr int32_t kParameter = -1;
  static constexpr int32_t kRematerialized = -2;
  // Not seen by the assignment (created after it).
  static constexpr int32_t kUnknown = -3;

  int64_t span_count() const { return span_count_; }
  int32_t position_count() const { return static_cast<int32_t>(2 * span_count_ + 1); }
  int32_t PositionOf(const hopt::HloInstruction& instruction) const {
    int64_t id = instruction.unique_id();
    return id < static_cast<int64_t>(positions_.size()) ? positions_[id] : kUnknown;
  }

 private:
  friend absl::StatusOr<StageAssignment> AssignStages(absl::Span<hopt::HloInstruction* const>,
                                                      const LayerBoundaries&);
  int64_t span_count_ = 0;
  std::vector<int32_t> positions_;  // by unique_id
};

// `post_order` as for AnalyzeLayerBoundaries, `boundaries` from it.
// Errors are InvalidArgument naming the instruction and markers involved.
absl::StatusOr<StageAssignment> AssignStages(absl::Span<hopt::HloInstruction* const> post_order,
                                             const LayerBoundaries& boundaries);

// Both steps on an entry computation, as both passes run them: post order,
// pairing (hlo2penguin's debug lines under -debug-only=`debug_type`), stage
// assignment. Markers that cannot be cut along are NCC_MOD001
// (PreprocessFailure).
struct LayerCut {
  LayerBoundaries boundaries;
  StageAssignment assignment;
  // Instructions per stage position, markers and their plumbing included.
  std::vector<int64_t> sizes;
};
absl::StatusOr<LayerCut> CutAtLayerMarkers(const hopt::HloComputation& entry,
                                           absl::string_view debug_type);

}  // namespace partition
}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_STAGE_ASSIGNMENT_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_LAYER_BOUNDARY_ANALYSIS_H_
#define HOPT_PLUGINS_PARTITION_LAYER_BOUNDARY_ANALYSIS_H_

// hlo2penguin's MarkerAnalyzer::analyzeLayerBoundary: the layer spans of an
// entry computation, read from its module markers
// (AwsNeuronModuleMarker{Start,End}-{Forward,Backward}).
//
// Pairing rules:
// - A Start and an End with a boundaryCount pair when their direction and
//   boundaryCount agree. Two Starts (or two Ends) with the same direction and
//   boundaryCount, or one without a partner, are errors.
// - Markers without a boundaryCount (frontends often emit none) pair by
//   dataflow: an End closes the innermost still-open Start it depends on,
//   i.e. the open Start reached last in dataflow order through its
//   operands. An End that depends on no open Start, one whose innermost open
//   Start has the other direction, a Start closed twice and a Start never
//   closed are errors.
// - Markers with and without a boundaryCount never pair with each other; an
//   unreadable boundaryCount (`boundaryCount=x`) is an error, not "absent".
// - Loop-body markers (NeuronBoundaryMarker-*) bracket while-loop
//   iterations, not layers: they are no cut points.
// Whether each End really depends on its Start, and whether spans cross or
// nest, is checked when instructions are assigned to stages
// (stage_assignment.h), which sees every path at once. The user's view:
// docs/plugins/partition.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "markers/marker_utils.h"

namespace neuron {
namespace partition {

struct LayerSpan {
  hopt::HloInstruction* start = nullptr;
  hopt::HloInstruction* end = nullptr;
  markers::MarkerDirection direction = markers::MarkerDirection::kForward;
  std::optional<int64_t> boundary_count;
};

struct LayerBoundaries {
  // Module markers in the entry computation (hlo2penguin's cutMarkers).
  int64_t marker_count = 0;
  // In the dataflow order of their Starts (the order of `post_order`).
  std::vector<LayerSpan> spans;
};

// `post_order`: the computation's instructions, operands (and control
// predecessors) before users, e.g. MakeInstructionPostOrder(). Errors are
// InvalidArgument naming the markers involved.
absl::StatusOr<LayerBoundaries> AnalyzeLayerBoundaries(
    absl::Span<hopt::HloInstruction* const> post_order);

// "forward, boundaryCount=3" / "backward, no boundaryCount".
std::string DescribeSpan(const LayerSpan& span);
// "'name' (AwsNeuronModuleMarkerStart-Forward, boundaryCount=3)".
std::string DescribeMarker(const hopt::HloInstruction& marker);
absl::string_view DirectionName(markers::MarkerDirection direction);

// hlo2penguin's debug lines ("[analyzeLayerBoundary] cutMarkers size = N",
// then "found cut point ..." per span) under -debug-only=`debug_type`.
void LogCutPoints(absl::string_view debug_type, const LayerBoundaries& boundaries);

// How the splitter reports markers it cannot cut along (hlo2penguin's
// preprocessBoundaryMarker failure):
//   NCC_MOD001: Pipeline preprocess-boundary-marker failed to execute.
//   Status: INVALID_ARGUMENT: <why>
absl::Status PreprocessFailure(const absl::Status& status);

}  // namespace partition
}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_LAYER_BOUNDARY_ANALYSIS_H_

// SPDX-License-Identifier: Apache-2.0

#include "partition/analyze_layer_boundary.h"

#include <cstdint>
#include <vector>

#include "hopt/ir/computation.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"
#include "llvm/Support/raw_ostream.h"
#include "partition/layer_boundary_analysis.h"
#include "partition/stage_assignment.h"

namespace neuron {

absl::StatusOr<bool> AnalyzeLayerBoundary::Run(hopt::HloModule& module) {
  hopt::HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return false;
  HOPT_ASSIGN_OR_RETURN(partition::LayerCut cut, partition::CutAtLayerMarkers(*entry, name()));
  const partition::LayerBoundaries& boundaries = cut.boundaries;
  const std::vector<int64_t>& sizes = cut.sizes;
  llvm::raw_ostream& out = llvm::errs();
  out << "analyze-layer-boundary: module '" << hopt::AsRef(module.name())
      << "': " << boundaries.marker_count << " module marker(s), " << boundaries.spans.size()
      << " layer span(s)\n";
  const int64_t last = cut.assignment.position_count() - 1;
  for (int64_t position = 0; position <= last; ++position) {
    if (position % 2 == 1) {
      const partition::LayerSpan& span = boundaries.spans[position / 2];
      out << "  span " << position / 2 << ": " << partition::DescribeSpan(span) << ", '"
          << hopt::AsRef(span.start->name()) << "' .. '" << hopt::AsRef(span.end->name()) << "', "
          << sizes[position] << " instruction(s)\n";
    } else if (sizes[position] > 0) {
      const char* what = last == 0          ? "whole module"
                         : position == 0    ? "before the first span"
                         : position == last ? "after the last span"
                                            : "between spans";
      out << "  " << what << ": " << sizes[position] << " instruction(s)\n";
    }
  }
  return false;
}

}  // namespace neuron

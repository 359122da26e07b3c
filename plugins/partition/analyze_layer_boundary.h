// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_ANALYZE_LAYER_BOUNDARY_H_
#define HOPT_PLUGINS_PARTITION_ANALYZE_LAYER_BOUNDARY_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// analyze-layer-boundary: reads the entry computation's module markers,
// pairs them into layer spans and reports the cut points on stderr (one
// line per span, with its direction, boundaryCount, markers and size, and
// the stages a split would make); hlo2penguin's debug lines under
// -debug-only=analyze-layer-boundary. Changes nothing. Markers it could not
// cut along fail it with NCC_MOD001, as marker-splitter would
// (docs/plugins/partition.md).
class AnalyzeLayerBoundary : public hopt::Pass {
 public:
  absl::string_view name() const override { return "analyze-layer-boundary"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_ANALYZE_LAYER_BOUNDARY_H_

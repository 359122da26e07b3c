// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_MARKERS_ADD_BOUNDARY_MARKER_H_
#define HOPT_PLUGINS_MARKERS_ADD_BOUNDARY_MARKER_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// neuron_add_boundary_marker: the root r of every while body becomes
// End(Start(r)), so that later tools can cut at loop iterations (see the
// .cc; docs/plugins/markers.md).
class AddBoundaryMarker : public hopt::Pass {
 public:
  absl::string_view name() const override { return "neuron_add_boundary_marker"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_ADD_BOUNDARY_MARKER_H_

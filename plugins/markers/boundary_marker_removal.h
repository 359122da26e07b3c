// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_MARKERS_BOUNDARY_MARKER_REMOVAL_H_
#define HOPT_PLUGINS_MARKERS_BOUNDARY_MARKER_REMOVAL_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// boundary-marker-removal: every marker goes and its consumers read the
// value it wrapped (see the .cc). A marker over a tuple consumed by
// anything but get-tuple-element fails with NCC_ITUP001. The entry
// computation only, as in the reference compiler; with `everywhere`, every
// computation (docs/plugins/markers.md).
class BoundaryMarkerRemoval : public hopt::Pass {
 public:
  explicit BoundaryMarkerRemoval(bool everywhere = false) : everywhere_(everywhere) {}
  absl::string_view name() const override { return "boundary-marker-removal"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;

 private:
  bool everywhere_;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_BOUNDARY_MARKER_REMOVAL_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_MARKERS_CANONICALIZE_BOUNDARY_MARKER_H_
#define HOPT_PLUGINS_MARKERS_CANONICALIZE_BOUNDARY_MARKER_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// canonicalize-boundary-marker: every marker that does not already take
// exactly one tuple-shaped operand becomes marker(tuple(operands...)) (see
// the .cc). The entry computation only, as in the reference compiler; with
// `everywhere`, every computation (for modules whose loop bodies no
// unroller inlines). docs/plugins/markers.md has the details.
class CanonicalizeBoundaryMarker : public hopt::Pass {
 public:
  explicit CanonicalizeBoundaryMarker(bool everywhere = false) : everywhere_(everywhere) {}
  absl::string_view name() const override { return "canonicalize-boundary-marker"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;

 private:
  bool everywhere_;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_CANONICALIZE_BOUNDARY_MARKER_H_

// SPDX-License-Identifier: Apache-2.0
// libneuron_markers.so: registers the boundary-marker passes with their
// option, and the interpreter semantics and -emit-dot class of the six
// marker targets.

#include <memory>

#include "absl/status/status.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "markers/add_boundary_marker.h"
#include "markers/boundary_marker_removal.h"
#include "markers/canonicalize_boundary_marker.h"
#include "markers/marker_semantics.h"

namespace neuron {
namespace {

// The reference compiler's canonicalize and removal walk the entry
// computation only (its loop bodies reach the entry by unrolling);
// everywhere=true walks every computation (docs/plugins/markers.md).
struct WalkOptions {
  bool everywhere = false;
};

hopt::TypedOption<WalkOptions> EverywhereOption() {
  return hopt::Option(&WalkOptions::everywhere, "everywhere",
                      "process every computation (while bodies included), not only the entry "
                      "computation");
}

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<AddBoundaryMarker>(
      "every while body's root r -> NeuronBoundaryMarker-End(-Start(r)), "
      "boundaryCount=N per loop (all computations)");
  registrar.AddPass(
      "canonicalize-boundary-marker",
      "boundary markers -> marker(tuple(operands)) + get-tuple-element (entry computation only "
      "unless everywhere=true)",
      {EverywhereOption()}, [](const WalkOptions& options) {
        return std::make_unique<CanonicalizeBoundaryMarker>(options.everywhere);
      });
  registrar.AddPass(
      "boundary-marker-removal",
      "remove boundary markers, readers get the wrapped values (entry computation only unless "
      "everywhere=true)",
      {EverywhereOption()}, [](const WalkOptions& options) {
        return std::make_unique<BoundaryMarkerRemoval>(options.everywhere);
      });
  // The flag of the previous release, for one more release: both passes.
  registrar.AddFlagAlias("boundary-markers-everywhere", "canonicalize-boundary-marker",
                         "everywhere");
  registrar.AddFlagAlias("boundary-markers-everywhere", "boundary-marker-removal", "everywhere");
  // The interpreter must know what markers compute (-verify-equivalence,
  // hlo-run).
  AddMarkerSemantics(registrar);
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_markers", "0.1.0",
          &neuron::RegisterPlugin};
}

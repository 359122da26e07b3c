// libneuron_markers.so: registers the boundary-marker passes, their option
// and the interpreter semantics of the six marker targets.

#include <memory>

#include "absl/status/status.h"
#include "core/pass_manager/pass_registry.h"
#include "core/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "plugins/markers/add_boundary_marker.h"
#include "plugins/markers/boundary_marker_removal.h"
#include "plugins/markers/canonicalize_boundary_marker.h"
#include "plugins/markers/marker_semantics.h"

namespace neuron {
namespace {

llvm::cl::OptionCategory category("neuron_markers options");

// The spec's canonicalize and removal walk the entry computation only (its
// loop bodies reach the entry by unrolling). Read when a pass is made, after
// the command line is parsed.
llvm::cl::opt<bool> everywhere(
    "boundary-markers-everywhere",
    llvm::cl::desc("canonicalize-boundary-marker and boundary-marker-removal process every "
                   "computation (while bodies included), not only the entry computation"),
    llvm::cl::init(false), llvm::cl::cat(category));

void RegisterPasses(hopt::PassRegistry& registry) {
  HOPT_REGISTER_OR_STOP(registry.Register<AddBoundaryMarker>(
      "every while body's root r -> NeuronBoundaryMarker-End(-Start(r)), "
      "boundaryCount=N per loop (all computations)"));
  HOPT_REGISTER_OR_STOP(registry.Register(
      "canonicalize-boundary-marker",
      "boundary markers -> marker(tuple(operands)) + get-tuple-element (entry computation only: "
      "markers in while bodies stay unless -boundary-markers-everywhere)",
      [] { return std::make_unique<CanonicalizeBoundaryMarker>(everywhere); }));
  HOPT_REGISTER_OR_STOP(registry.Register(
      "boundary-marker-removal",
      "remove boundary markers, readers get the wrapped values (entry computation only: "
      "markers in while bodies stay unless -boundary-markers-everywhere)",
      [] { return std::make_unique<BoundaryMarkerRemoval>(everywhere); }));
  // The interpreter must know what markers compute (-verify-equivalence,
  // hlo-run).
  RegisterMarkerSemantics();
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_markers", "0.1.0",
          &neuron::RegisterPasses};
}

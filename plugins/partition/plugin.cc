// libneuron_partition.so: the hlo2penguin-style layer splitter
// (analyze-layer-boundary, marker-splitter), its options, and the
// interpreter semantics of the marker targets, so that hlo-run and
// -verify-equivalence can run a module that still has its markers.

#include <memory>

#include "absl/status/status.h"
#include "core/pass_manager/pass_registry.h"
#include "core/support/deferred_outputs.h"
#include "core/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "plugins/markers/marker_semantics.h"
#include "plugins/partition/analyze_layer_boundary.h"
#include "plugins/partition/marker_splitter.h"

namespace neuron {
namespace {

llvm::cl::OptionCategory category("neuron_partition options");

// Read when a pass is made, after the command line is parsed.
llvm::cl::opt<std::string> split_output_dir(
    "split-output-dir",
    llvm::cl::desc("Directory marker-splitter writes the stage modules, manifest.json, "
                   "stages.dot and stages.svg into (created if missing)"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(category));
llvm::cl::opt<bool> split_svg(
    "split-svg",
    llvm::cl::desc("marker-splitter draws stages.svg with Graphviz when it is installed "
                   "(-split-svg=false: only stages.dot)"),
    llvm::cl::init(true), llvm::cl::cat(category));

void RegisterPasses(hopt::PassRegistry& registry) {
  // So that hopt refuses a split directory that is also its input or -o.
  hopt::DeclareOutputOption("-split-output-dir", [] { return split_output_dir.getValue(); });
  HOPT_REGISTER_OR_STOP(registry.Register<AnalyzeLayerBoundary>(
      "report the layer spans (cut points) the entry computation's module markers delimit; "
      "changes nothing"));
  HOPT_REGISTER_OR_STOP(registry.Register(
      "marker-splitter",
      "split the entry computation at its layer markers into stage modules + manifest.json + "
      "stages.dot/.svg in -split-output-dir; leaves the module without entry markers",
      [] {
        return std::make_unique<MarkerSplitter>(
            MarkerSplitter::Options{split_output_dir, split_svg});
      }));
  RegisterMarkerSemantics();
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_partition", "0.1.0",
          &neuron::RegisterPasses};
}

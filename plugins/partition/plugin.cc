// SPDX-License-Identifier: Apache-2.0
// libneuron_partition.so: the hlo2penguin-style layer splitter
// (analyze-layer-boundary, marker-splitter) with its options, and the
// interpreter semantics of the marker targets, so that hlo-run and
// -verify-equivalence can run a module that still has its markers.

#include <memory>

#include "absl/status/status.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "markers/marker_semantics.h"
#include "partition/analyze_layer_boundary.h"
#include "partition/marker_splitter.h"

namespace neuron {
namespace {

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<AnalyzeLayerBoundary>(
      "report the layer spans (cut points) the entry computation's module markers delimit; "
      "changes nothing");
  // output-dir is an output path: hopt refuses a split directory that is
  // also its input or -o.
  registrar.AddPass(
      "marker-splitter",
      "split the entry computation at its layer markers into stage modules + manifest.json + "
      "stages.dot/.svg in output-dir; leaves the module without entry markers",
      {hopt::OutputPathOption(&MarkerSplitter::Options::output_dir, "output-dir",
                              "directory the stage modules, manifest.json, stages.dot and "
                              "stages.svg are written into (created if missing)"),
       hopt::Option(&MarkerSplitter::Options::render_svg, "svg",
                    "draw stages.svg with Graphviz when it is installed (false: only "
                    "stages.dot)")},
      [](const MarkerSplitter::Options& options) {
        return std::make_unique<MarkerSplitter>(options);
      });
  // The flags of the previous release, for one more release.
  registrar.AddFlagAlias("split-output-dir", "marker-splitter", "output-dir");
  registrar.AddFlagAlias("split-svg", "marker-splitter", "svg");
  AddMarkerSemantics(registrar);
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_partition", "0.1.0",
          &neuron::RegisterPlugin};
}

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_MARKER_SPLITTER_H_
#define HOPT_PLUGINS_PARTITION_MARKER_SPLITTER_H_

#include <string>
#include <utility>

#include "hopt/pass_manager/pass.h"

namespace neuron {

// marker-splitter: cuts a training step at its layer markers into one
// module per stage, for pipeline stages or recompute spans (hlo2penguin's
// MarkerSplitter::split). Canonicalizes the entry computation's markers,
// finds the layer spans (layer_boundary_analysis.h), assigns every
// instruction to a stage (stage_assignment.h), removes the markers, cuts the
// entry computation into stage modules (stage_builder.h) and writes them
// with manifest.json (include/hopt/support/split_manifest.h) and
// stages.dot / stages.svg into the output directory. The directory is
// staged and renamed into place only when the whole run succeeds
// (include/hopt/support/deferred_outputs.h), so a failed run leaves no
// split. Markers it cannot cut along fail it with NCC_MOD001 before
// anything is written. The module is left with its entry markers removed:
// what the stages, run in order, compute. docs/plugins/partition.md has
// the files, the placement rule and the errors.
class MarkerSplitter : public hopt::Pass {
 public:
  struct Options {
    std::string output_dir;
    bool render_svg = true;
  };
  explicit MarkerSplitter(Options options) : options_(std::move(options)) {}
  absl::string_view name() const override { return "marker-splitter"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;

 private:
  Options options_;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_MARKER_SPLITTER_H_

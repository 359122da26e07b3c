#ifndef HOPT_PLUGINS_PARTITION_MARKER_SPLITTER_H_
#define HOPT_PLUGINS_PARTITION_MARKER_SPLITTER_H_

#include <string>
#include <utility>

#include "hopt/pass_manager/pass.h"

namespace neuron {

// marker-splitter: the spec's MarkerSplitter::split. Canonicalizes the
// entry computation's markers (the preprocess step), finds the layer spans
// (layer_boundary_analysis.h), assigns every instruction to a stage
// (stage_assignment.h), removes the markers, cuts the entry computation
// into one module per stage (stage_builder.h) and writes into the output
// directory:
//   stage-NN-<kind>.hlo   one module per stage, in run order
//   manifest.json         stage order and wiring (include/hopt/support/split_manifest.h)
//   stages.dot            the stages and the values between them
//   stages.svg            the same, drawn, when Graphviz is installed
// The files go into a private staging directory next to the output
// directory; the directory is renamed into place only when the whole run
// succeeds (include/hopt/support/deferred_outputs.h: the tool commits it after its
// own output), so a later failing pass, a failed -verify-equivalence or an
// unwritable -o leaves no split. An existing output directory is replaced
// whole if it is empty or an earlier split (holds manifest.json); any other
// existing directory is refused. Two modules of one run
// (-split-input-file) cannot split into the same directory: the second is
// refused.
// Markers it cannot cut along (unpaired, crossing, nested, End before
// Start) fail it with NCC_MOD001 before anything is written. The module
// itself is left with its entry computation's markers removed (what the
// stages, run in order, compute).
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

// SPDX-License-Identifier: Apache-2.0

#include "partition/marker_splitter.h"

#include <unistd.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/deferred_outputs.h"
#include "hopt/support/graphviz.h"
#include "hopt/support/json.h"
#include "hopt/support/output_file.h"
#include "hopt/support/signal_cleanup.h"
#include "hopt/support/split_manifest.h"
#include "hopt/support/status_macros.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "markers/boundary_marker_removal.h"
#include "markers/canonicalize_boundary_marker.h"
#include "partition/layer_boundary_analysis.h"
#include "partition/stage_assignment.h"
#include "partition/stage_builder.h"
#include "partition/stage_graph.h"

namespace neuron {
namespace {

std::string JoinPath(const std::string& dir, const std::string& name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path.str());
}

// The files of one split, written into a private staging directory next
// to the output directory and handed to the tool at the end
// (include/hopt/support/deferred_outputs.h), which renames it into place only once
// the whole run has succeeded. Until then a failure or a signal removes it.
class SplitWriter {
 public:
  explicit SplitWriter(std::string dir) : dir_(std::move(dir)) {}
  ~SplitWriter() {
    if (staging_.empty()) return;
    hopt::RemoveFlatDirectory(staging_);
    hopt::DontRemoveDirectoryOnSignal(staging_);
  }

  absl::Status Begin() {
    HOPT_RETURN_IF_ERROR(hopt::CheckReplaceableDirectory(dir_, kMarker, kWhat));
    HOPT_ASSIGN_OR_RETURN(staging_, hopt::MakeStagingDirectory(dir_));
    return absl::OkStatus();
  }

  std::string PathOf(const std::string& name) const { return JoinPath(staging_, name); }

  // Creates `name` and lets `fill` write into it.
  absl::Status Write(const std::string& name, const std::function<void(llvm::raw_ostream&)>& fill) {
    const std::string path = PathOf(name);
    HOPT_ASSIGN_OR_RETURN(int fd, hopt::OpenNewFile(path));
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    fill(out);
    out.close();
    if (out.has_error()) {
      std::string message = out.error().message();
      out.clear_error();
      return absl::UnavailableError(
          absl::StrCat("cannot write '", JoinPath(dir_, name), "': ", message));
    }
    return absl::OkStatus();
  }

  // From here on the tool owns the staging directory.
  absl::Status Hand() {
    absl::Status deferred = hopt::DeferDirectoryCommit(staging_, dir_, kMarker, kWhat);
    if (deferred.ok()) staging_.clear();
    return deferred;
  }

 private:
  static constexpr char kMarker[] = "manifest.json";
  static constexpr char kWhat[] = "output-dir";
  std::string dir_;
  std::string staging_;
};

}  // namespace

absl::StatusOr<bool> MarkerSplitter::Run(hopt::HloModule& module) {
  if (options_.output_dir.empty())
    return absl::InvalidArgumentError("no output directory: give marker-splitter{output-dir=DIR}");
  if (module.entry_computation() == nullptr) return false;
  const int64_t input_instruction_count = module.entry_computation()->instruction_count();

  // hlo2penguin's preprocessBoundaryMarker: markers in canonical form.
  absl::StatusOr<bool> canonicalized = CanonicalizeBoundaryMarker().Run(module);
  if (!canonicalized.ok()) return partition::PreprocessFailure(canonicalized.status());

  HOPT_ASSIGN_OR_RETURN(partition::LayerCut cut,
                        partition::CutAtLayerMarkers(*module.entry_computation(), name()));
  std::vector<partition::SpanSummary> spans = partition::SummarizeSpans(cut.boundaries);

  // hlo2penguin's canonicalizeAndRemoveBoundaryMarker: the stages carry no
  // markers, and the values that crossed a marker cross the stage boundary
  // instead.
  absl::StatusOr<bool> removed = BoundaryMarkerRemoval().Run(module);
  if (!removed.ok()) return partition::PreprocessFailure(removed.status());

  HOPT_ASSIGN_OR_RETURN(
      partition::SplitProgram program,
      partition::PlanStages(module, spans, cut.assignment, input_instruction_count));
  const hopt::split::Manifest& manifest = program.manifest();

  // One stage module at a time: made, printed, dropped.
  SplitWriter writer(options_.output_dir);
  HOPT_RETURN_IF_ERROR(writer.Begin());
  for (int64_t s = 0; s < program.stage_count(); ++s) {
    HOPT_ASSIGN_OR_RETURN(std::unique_ptr<hopt::HloModule> stage, program.BuildStage(s));
    HOPT_RETURN_IF_ERROR(writer.Write(manifest.stages[s].file, [&](llvm::raw_ostream& out) {
      hopt::PrintModule(*stage, {}, [&](absl::string_view text) { out << hopt::AsRef(text); });
    }));
  }
  HOPT_RETURN_IF_ERROR(writer.Write("manifest.json", [&](llvm::raw_ostream& out) {
    out << hopt::json::WritePretty(hopt::split::ToJson(manifest)) << "\n";
  }));
  HOPT_RETURN_IF_ERROR(writer.Write(
      "stages.dot", [&](llvm::raw_ostream& out) { out << partition::StageGraphDot(manifest); }));

  std::string picture = "stages.svg not drawn";
  if (options_.render_svg) {
    const std::string svg = writer.PathOf("stages.svg");
    absl::StatusOr<int> fd = hopt::OpenNewFile(svg);
    absl::Status drawn = fd.status();
    if (fd.ok()) {
      ::close(*fd);
      drawn = hopt::RenderSvg(writer.PathOf("stages.dot"), svg);
      if (!drawn.ok()) ::unlink(svg.c_str());
    }
    picture = drawn.ok() ? "stages.svg" : absl::StrCat("no stages.svg (", drawn.message(), ")");
  }
  HOPT_RETURN_IF_ERROR(writer.Hand());
  int64_t layers = 0;
  for (const auto& stage : manifest.stages) layers += stage.kind == "layer";
  llvm::errs() << "marker-splitter: " << program.stage_count() << " stage(s) (" << layers
               << " layer span(s)) of '" << hopt::AsRef(module.name()) << "' written to "
               << options_.output_dir << ": manifest.json, stages.dot, " << picture << "\n";
  return *canonicalized || *removed;
}

}  // namespace neuron

#include "plugins/partition/marker_splitter.h"

#include <unistd.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/printer.h"
#include "core/pass_manager/debug.h"
#include "core/support/graphviz.h"
#include "core/support/json.h"
#include "core/support/split_manifest.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "plugins/markers/boundary_marker_removal.h"
#include "plugins/markers/canonicalize_boundary_marker.h"
#include "plugins/partition/layer_boundary_analysis.h"
#include "plugins/partition/stage_assignment.h"
#include "plugins/partition/stage_builder.h"
#include "plugins/partition/stage_graph.h"

namespace neuron {
namespace {

std::string JoinPath(const std::string& dir, const std::string& name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path.str());
}

// The files of one split: each written to a temporary name as it is made,
// all renamed into place at the end, so that a failure leaves no file of
// this split behind.
class SplitWriter {
 public:
  explicit SplitWriter(std::string dir)
      : dir_(std::move(dir)), suffix_(absl::StrCat(".tmp.", getpid())) {}
  ~SplitWriter() {
    for (const auto& [temporary, target] : files_) llvm::sys::fs::remove(temporary);
  }

  absl::Status CreateDirectory() {
    if (std::error_code error = llvm::sys::fs::create_directories(dir_))
      return absl::UnavailableError(
          absl::StrCat("cannot create directory '", dir_, "': ", error.message()));
    return absl::OkStatus();
  }

  // Opens `name` (its temporary) and lets `fill` write into it.
  absl::Status Write(const std::string& name,
                     const std::function<void(llvm::raw_ostream&)>& fill) {
    files_.emplace_back(JoinPath(dir_, name + suffix_), JoinPath(dir_, name));
    const std::string& path = files_.back().first;
    std::error_code error;
    llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_None);
    if (error)
      return absl::UnavailableError(absl::StrCat("cannot write '", path, "': ", error.message()));
    fill(out);
    out.close();
    if (out.has_error()) {
      std::string message = out.error().message();
      out.clear_error();
      return absl::UnavailableError(absl::StrCat("cannot write '", path, "': ", message));
    }
    return absl::OkStatus();
  }

  absl::Status Commit() {
    for (size_t k = 0; k < files_.size(); ++k) {
      if (std::error_code error = llvm::sys::fs::rename(files_[k].first, files_[k].second))
        return absl::UnavailableError(absl::StrCat("cannot rename '", files_[k].first, "' to '",
                                                   files_[k].second, "': ", error.message()));
    }
    files_.clear();
    return absl::OkStatus();
  }

 private:
  std::string dir_;
  std::string suffix_;
  std::vector<std::pair<std::string, std::string>> files_;  // temporary, target
};

}  // namespace

absl::StatusOr<bool> MarkerSplitter::Run(hopt::HloModule& module) {
  if (options_.output_dir.empty())
    return absl::InvalidArgumentError("no output directory: give -split-output-dir=DIR");
  if (module.entry_computation() == nullptr) return false;
  const int64_t input_instruction_count = module.entry_computation()->instruction_count();

  // The spec's preprocessBoundaryMarker: markers in canonical form.
  absl::StatusOr<bool> canonicalized = CanonicalizeBoundaryMarker().Run(module);
  if (!canonicalized.ok()) return partition::PreprocessFailure(canonicalized.status());

  absl::StatusOr<partition::LayerCut> cut =
      partition::CutAtLayerMarkers(*module.entry_computation(), name());
  if (!cut.ok()) return cut.status();
  std::vector<partition::SpanSummary> spans = partition::SummarizeSpans(cut->boundaries);

  // The spec's canonicalizeAndRemoveBoundaryMarker: the stages carry no
  // markers, and the values that crossed a marker cross the stage boundary
  // instead.
  absl::StatusOr<bool> removed = BoundaryMarkerRemoval().Run(module);
  if (!removed.ok()) return partition::PreprocessFailure(removed.status());

  absl::StatusOr<partition::SplitProgram> program =
      partition::PlanStages(module, spans, cut->assignment, input_instruction_count);
  if (!program.ok()) return program.status();
  const hopt::split::Manifest& manifest = program->manifest();

  // One stage module at a time: made, printed, dropped.
  SplitWriter writer(options_.output_dir);
  absl::Status status = writer.CreateDirectory();
  for (int64_t s = 0; status.ok() && s < program->stage_count(); ++s) {
    absl::StatusOr<std::unique_ptr<hopt::HloModule>> stage = program->BuildStage(s);
    if (!stage.ok()) return stage.status();
    status = writer.Write(manifest.stages[s].file, [&](llvm::raw_ostream& out) {
      hopt::PrintModule(**stage, {}, [&](absl::string_view text) { out << hopt::AsRef(text); });
    });
  }
  if (status.ok())
    status = writer.Write("manifest.json", [&](llvm::raw_ostream& out) {
      out << hopt::json::WritePretty(hopt::split::ToJson(manifest)) << "\n";
    });
  if (status.ok())
    status = writer.Write("stages.dot", [&](llvm::raw_ostream& out) {
      out << partition::StageGraphDot(manifest);
    });
  if (status.ok()) status = writer.Commit();
  if (!status.ok()) return status;

  std::string picture = "stages.svg not drawn";
  if (options_.render_svg) {
    const std::string svg = JoinPath(options_.output_dir, "stages.svg");
    const std::string temporary = absl::StrCat(svg, ".tmp.", getpid());
    absl::Status drawn =
        hopt::RenderSvg(JoinPath(options_.output_dir, "stages.dot"), temporary);
    if (drawn.ok()) {
      if (std::error_code error = llvm::sys::fs::rename(temporary, svg))
        drawn = absl::UnavailableError(error.message());
    }
    if (!drawn.ok()) llvm::sys::fs::remove(temporary);
    picture = drawn.ok() ? "stages.svg"
                         : absl::StrCat("no stages.svg (", drawn.message(), ")");
  }
  int64_t layers = 0;
  for (const auto& stage : manifest.stages) layers += stage.kind == "layer";
  llvm::errs() << "marker-splitter: " << program->stage_count() << " stage(s) ("
               << layers << " layer span(s)) of '" << hopt::AsRef(module.name())
               << "' written to " << options_.output_dir << ": manifest.json, stages.dot, "
               << picture << "\n";
  return *canonicalized || *removed;
}

}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0

#include "tools/common/emit_dot.h"

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hopt/support/graph_dot.h"
#include "hopt/support/graphviz.h"
#include "hopt/support/output_file.h"
#include "hopt/support/status_macros.h"
#include "llvm/Support/FileSystem.h"

namespace hopt {
namespace tools {
namespace {

// Graphviz lays out a summarised picture in seconds; an unsummarised huge
// one (-emit-dot-max-nodes=0) may never finish, so it is cut off.
constexpr int kRenderSeconds = 300;

bool IsSvgName(const std::string& file) { return absl::EndsWithIgnoreCase(file, ".svg"); }

// graph.dot -> graph.svg; other names get .svg appended.
std::string SvgSibling(const std::string& file) {
  for (absl::string_view extension : {".dot", ".gv"})
    if (absl::EndsWithIgnoreCase(file, extension))
      return file.substr(0, file.size() - extension.size()) + ".svg";
  return file + ".svg";
}

}  // namespace

std::vector<std::string> EmitDotTargets(const EmitDotRequest& request) {
  if (IsSvgName(request.file)) return {request.file};
  if (request.svg) return {request.file, SvgSibling(request.file)};
  return {request.file};
}

DotFiles::~DotFiles() = default;

absl::Status DotFiles::Prepare(absl::Span<const std::unique_ptr<HloModule>> modules,
                               const EmitDotRequest& request) {
  const std::string& file = request.file;
  if (file.empty() || file == "-")
    return absl::InvalidArgumentError("-emit-dot needs a file name (FILE.dot or FILE.svg)");
  if (request.max_nodes < 0)
    return absl::InvalidArgumentError(
        "-emit-dot-max-nodes must be 0 (never summarise) or a node count");
  if (modules.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat("-emit-dot draws one module; the input holds ",
                                                   modules.size(), " (-split-input-file)"));
  const bool svg_only = IsSvgName(file);
  const std::string svg_file = svg_only ? file : SvgSibling(file);
  for (const std::string& target : {file, svg_file})
    if (llvm::sys::fs::is_directory(target))
      return absl::InvalidArgumentError(absl::StrCat("-emit-dot: '", target, "' is a directory"));

  absl::StatusOr<const HloComputation*> computation =
      FindComputationToDraw(*modules[0], request.computation);
  if (!computation.ok())
    return absl::NotFoundError(
        absl::StrCat("-emit-dot-computation: ", computation.status().message()));
  DotGraphOptions options;
  options.max_nodes = request.max_nodes;
  options.budget_name = "-emit-dot-max-nodes budget";
  options.highlights = request.highlights;
  const std::string text = ComputationToDot(**computation, options);

  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> dot_file,
                        svg_only ? OutputFile::OpenScratch(svg_file) : OutputFile::Open(file));
  dot_file->Write(text);
  // write(2) is unbuffered: dot reads all of it, if all of it was written.
  HOPT_RETURN_IF_ERROR(dot_file->WriteStatus());
  pending_.push_back(std::move(dot_file));
  if (!svg_only && !request.svg) return absl::OkStatus();

  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> svg, OutputFile::Open(svg_file));
  absl::Status drawn =
      RenderSvg(pending_.back()->working_path(), svg->working_path(), kRenderSeconds);
  if (svg_only) pending_.pop_back();  // the scratch text goes
  pending_.push_back(std::move(svg));
  if (drawn.ok()) return absl::OkStatus();
  if (absl::IsNotFound(drawn) && !svg_only) {
    // The .dot was the request; the picture is a convenience.
    pending_.pop_back();
    note_ = absl::StrCat("-emit-dot-svg: ", drawn.message(), "; wrote ", file, " only");
    return absl::OkStatus();
  }
  if (absl::IsNotFound(drawn))
    return absl::FailedPreconditionError(
        absl::StrCat("-emit-dot=", file, ": ", drawn.message(),
                     "; install Graphviz, or ask for the dot text only (-emit-dot=",
                     file.substr(0, file.size() - 4), ".dot)"));
  return absl::InternalError(
      absl::StrCat("-emit-dot: cannot draw ", svg_file, ": ", drawn.message()));
}

absl::Status DotFiles::Commit() {
  for (std::unique_ptr<OutputFile>& file : pending_) HOPT_RETURN_IF_ERROR(file->Commit());
  pending_.clear();
  if (!note_.empty()) std::fprintf(stderr, "hopt: note: %s\n", note_.c_str());
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace hopt

#include "tools/emit_dot.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/support/graph_dot.h"
#include "core/support/graphviz.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

namespace hopt {
namespace tools {
namespace {

// Graphviz lays out a summarised picture in seconds; an unsummarised huge
// one (-emit-dot-max-nodes=0) may never finish, so it is cut off.
constexpr int kRenderSeconds = 300;

// A new empty file next to `path`: the same directory keeps the final
// rename on one file system, hence atomic.
absl::StatusOr<std::string> CreateTemporary(const std::string& path, int* fd) {
  llvm::SmallString<256> temporary;
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", *fd, temporary))
    return absl::UnavailableError(absl::StrCat("cannot create a temporary file for '", path,
                                               "': ", error.message()));
  return std::string(temporary.str());
}

absl::Status WriteAll(int fd, absl::string_view text, const std::string& path) {
  const char* p = text.data();
  size_t size = text.size();
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int saved = errno;
      ::close(fd);
      return absl::UnavailableError(
          absl::StrCat("cannot write '", path, "': ", std::strerror(saved)));
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return absl::UnavailableError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  return absl::OkStatus();
}

bool IsSvgName(const std::string& file) { return absl::EndsWithIgnoreCase(file, ".svg"); }

// graph.dot -> graph.svg; other names get .svg appended.
std::string SvgSibling(const std::string& file) {
  for (absl::string_view extension : {".dot", ".gv"})
    if (absl::EndsWithIgnoreCase(file, extension))
      return file.substr(0, file.size() - extension.size()) + ".svg";
  return file + ".svg";
}

}  // namespace

DotFiles::~DotFiles() {
  for (const auto& [temporary, final_name] : pending_) llvm::sys::fs::remove(temporary);
  if (!scratch_.empty()) llvm::sys::fs::remove(scratch_);
}

absl::Status DotFiles::Prepare(absl::Span<const std::unique_ptr<HloModule>> modules,
                               const EmitDotRequest& request) {
  const std::string& file = request.file;
  if (file.empty() || file == "-")
    return absl::InvalidArgumentError("-emit-dot needs a file name (FILE.dot or FILE.svg)");
  if (request.max_nodes < 0)
    return absl::InvalidArgumentError(
        "-emit-dot-max-nodes must be 0 (never summarise) or a node count");
  if (modules.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "-emit-dot draws one module; the input holds ", modules.size(), " (-split-input-file)"));
  const bool svg_only = IsSvgName(file);
  const std::string svg_file = svg_only ? file : SvgSibling(file);
  for (const std::string& target : {file, svg_file})
    if (llvm::sys::fs::is_directory(target))
      return absl::InvalidArgumentError(
          absl::StrCat("-emit-dot: '", target, "' is a directory"));

  absl::StatusOr<const HloComputation*> computation =
      FindComputationToDraw(*modules[0], request.computation);
  if (!computation.ok())
    return absl::NotFoundError(
        absl::StrCat("-emit-dot-computation: ", computation.status().message()));
  DotGraphOptions options;
  options.max_nodes = request.max_nodes;
  options.budget_name = "-emit-dot-max-nodes budget";
  const std::string text = ComputationToDot(**computation, options);

  int fd = -1;
  absl::StatusOr<std::string> dot_temporary = CreateTemporary(svg_only ? svg_file : file, &fd);
  if (!dot_temporary.ok()) return dot_temporary.status();
  if (svg_only)
    scratch_ = *dot_temporary;
  else
    pending_.push_back({*dot_temporary, file});
  if (absl::Status written = WriteAll(fd, text, file); !written.ok()) return written;
  if (!svg_only && !request.svg) return absl::OkStatus();

  absl::StatusOr<std::string> svg_temporary = CreateTemporary(svg_file, &fd);
  if (!svg_temporary.ok()) return svg_temporary.status();
  ::close(fd);
  pending_.push_back({*svg_temporary, svg_file});
  absl::Status drawn = RenderSvg(*dot_temporary, *svg_temporary, kRenderSeconds);
  if (!scratch_.empty()) {
    llvm::sys::fs::remove(scratch_);
    scratch_.clear();
  }
  if (drawn.ok()) return absl::OkStatus();
  if (absl::IsNotFound(drawn) && !svg_only) {
    // The .dot was the request; the picture is a convenience.
    llvm::sys::fs::remove(pending_.back().first);
    pending_.pop_back();
    note_ = absl::StrCat("-emit-dot-svg: ", drawn.message(), "; wrote ", file, " only");
    return absl::OkStatus();
  }
  if (absl::IsNotFound(drawn))
    return absl::FailedPreconditionError(absl::StrCat(
        "-emit-dot=", file, ": ", drawn.message(),
        "; install Graphviz, or ask for the dot text only (-emit-dot=",
        file.substr(0, file.size() - 4), ".dot)"));
  return absl::InternalError(absl::StrCat("-emit-dot: cannot draw ", svg_file, ": ",
                                          drawn.message()));
}

absl::Status DotFiles::Commit() {
  while (!pending_.empty()) {
    const auto& [temporary, final_name] = pending_.front();
    if (std::error_code error = llvm::sys::fs::rename(temporary, final_name))
      return absl::UnavailableError(
          absl::StrCat("cannot rename the graph into '", final_name, "': ", error.message()));
    pending_.erase(pending_.begin());
  }
  if (!note_.empty()) std::fprintf(stderr, "hopt: note: %s\n", note_.c_str());
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_EMIT_DOT_H_
#define HOPT_TOOLS_COMMON_EMIT_DOT_H_

// hopt -emit-dot=FILE: the files of the computation's picture. Prepare
// writes them under temporary names; Commit, called only once hopt's own
// output is in place, renames them; whatever is not committed is removed
// when the object goes, so a failed run leaves none of them behind.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hopt/ir/module.h"
#include "hopt/support/graph_dot.h"
#include "hopt/support/output_file.h"

namespace hopt {
namespace tools {

struct EmitDotRequest {
  // FILE: a .svg name asks for the SVG only (the dot text is an
  // intermediate); any other name gets the dot text.
  std::string file;
  // Empty: the entry computation.
  std::string computation;
  int64_t max_nodes = 200;
  // Also render FILE's .svg sibling; without Graphviz only a note.
  bool svg = false;
  // How the loaded plugins want their custom-calls drawn (may be null).
  const DotHighlightTable* highlights = nullptr;
};

// The files a request writes (FILE, and FILE's .svg sibling if asked for).
std::vector<std::string> EmitDotTargets(const EmitDotRequest& request);

class DotFiles {
 public:
  DotFiles() = default;
  DotFiles(const DotFiles&) = delete;
  DotFiles& operator=(const DotFiles&) = delete;
  ~DotFiles();

  // `modules` must hold exactly one module (not so with -split-input-file).
  absl::Status Prepare(absl::Span<const std::unique_ptr<HloModule>> modules,
                       const EmitDotRequest& request);
  // Renames the prepared files into place and prints the note, if any.
  absl::Status Commit();

 private:
  // Committed in this order.
  std::vector<std::unique_ptr<OutputFile>> pending_;
  std::string note_;
};

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_EMIT_DOT_H_

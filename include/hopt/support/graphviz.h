// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_GRAPHVIZ_H_
#define HOPT_SUPPORT_GRAPHVIZ_H_

// What the Graphviz writers share (hopt -emit-dot, the partition plugin's
// stages.dot): quoting for the dot language and running `dot`.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

// `text` for use inside a double-quoted dot string: quotes and backslashes
// escaped, line breaks as Graphviz's centred \n.
std::string EscapeDotString(absl::string_view text);

// Renders `dot_file` as SVG into `svg_file` with Graphviz's `dot`, found on
// the PATH and run directly (an argument vector, no shell). `svg_file`
// must exist, created by the caller (an OutputFile's working path): dot's
// standard output is appended to it. NotFound when
// `dot` is not installed; Internal when it fails or runs out of time, with
// the first line of what it printed.
absl::Status RenderSvg(const std::string& dot_file, const std::string& svg_file,
                       int timeout_seconds = 120);

}  // namespace hopt

#endif  // HOPT_SUPPORT_GRAPHVIZ_H_

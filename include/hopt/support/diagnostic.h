// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_DIAGNOSTIC_H_
#define HOPT_SUPPORT_DIAGNOSTIC_H_

// Errors as compilers print them, so that editors and scripts that know
// opt's and mlir-opt's messages can jump to the place:
//
//   FILE:LINE:COL: error: message      a place in an input file
//   FILE: error: message               a whole input file (no line known)
//   TOOL: error: message               everything else (options, plugins, I/O)
//
// A status made by LocatedError carries its place in its message and a
// payload that says so; ReportError prints it as it is and gives every
// other status the tool's prefix. Wrapping a located status in a new
// message (absl::Status(code, "context: " + message)) drops the payload, and
// the result is reported as a tool error, which is what a message that no
// longer starts with the place should be.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

// `line` 0: the file as a whole; `column` 0: the line as a whole.
absl::Status LocatedError(absl::StatusCode code, absl::string_view file, int64_t line,
                          int64_t column, absl::string_view message);

bool IsLocated(const absl::Status& status);

// The located message as it is, else "TOOL: error: message".
std::string FormatError(absl::string_view tool, const absl::Status& status);

// FormatError, a newline, to standard error.
void ReportError(absl::string_view tool, const absl::Status& status);

}  // namespace hopt

#endif  // HOPT_SUPPORT_DIAGNOSTIC_H_

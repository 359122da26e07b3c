// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TESTING_FILE_CHECK_H_
#define HOPT_TESTING_FILE_CHECK_H_

// FileCheck-style patterns in a gtest (libhopt_testing): the directives of
// LLVM's FileCheck a pass test needs, checked against a string.
//
//   CHECK:       the next match, on this line or any later one
//   CHECK-NEXT:  a match on the line after the previous match
//   CHECK-SAME:  a match on the same line, after the previous match
//   CHECK-NOT:   no match between the previous match and the next one
//                (or the end of the text)
//   CHECK-EMPTY: the line after the previous match is empty
//
// A pattern is literal text, with `{{regex}}` for an ECMAScript regular
// expression; as in FileCheck, a run of spaces or tabs matches any run of
// them, and a match never spans lines. Lines of `patterns` without a
// directive are ignored, so patterns can sit in a raw string with comments.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {
namespace testkit {

struct FileCheckOptions {
  std::string prefix = "CHECK";  // as FileCheck's --check-prefix
};

// OK when `text` matches; otherwise InvalidArgument saying which pattern
// (with its line in `patterns`) failed and why, where the search started,
// and the text with line numbers. A malformed pattern (an unclosed `{{`, a
// bad regex, no pattern at all) is also InvalidArgument.
absl::Status FileCheck(absl::string_view text, absl::string_view patterns,
                       const FileCheckOptions& options = {});

}  // namespace testkit
}  // namespace hopt

#endif  // HOPT_TESTING_FILE_CHECK_H_

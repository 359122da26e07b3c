// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_PARSER_H_
#define HOPT_IR_PARSER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"

namespace hopt {

// Parses XLA's HLO text (the long or the short form, with or without the
// `HloModule` header). Errors read `filename:line:col: message`, followed by
// the offending line and a caret.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string text,
                                                          absl::string_view filename = "<input>");
// The same for `text` that starts on line `first_line` of `filename` (a
// module -split-input-file cut out of a file): messages give the file's
// line numbers. The text is not copied.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleAt(absl::string_view text,
                                                            absl::string_view filename,
                                                            int64_t first_line);
// The same for a file, read through a memory map whose pages are released
// as the parser moves on, so a large dump never sits in memory twice.
// Errors name the file `display_name`; binary data is refused at its first
// bytes (MappedFile::Content::kText).
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFromFile(const std::string& path,
                                                                  absl::string_view display_name);

// Parses one shape, e.g. `f32[2,3]{1,0}` or `(s32[], token[])`.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

}  // namespace hopt

#endif  // HOPT_IR_PARSER_H_

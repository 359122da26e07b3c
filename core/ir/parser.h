#ifndef HOPT_CORE_IR_PARSER_H_
#define HOPT_CORE_IR_PARSER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/ir/shape.h"

namespace hopt {

// Parses XLA's HLO text (the long or the short form, with or without the
// `HloModule` header). The module keeps `text` and points into it, so
// nothing is copied. Errors read `filename:line:col: message`, followed by
// the offending line and a caret.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    std::string text, absl::string_view filename = "<input>");

// Parses one shape, e.g. `f32[2,3]{1,0}` or `(s32[], token[])`.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

}  // namespace hopt

#endif  // HOPT_CORE_IR_PARSER_H_

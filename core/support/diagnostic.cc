// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/diagnostic.h"

#include <cstdio>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace hopt {
namespace {

constexpr absl::string_view kLocatedPayload = "type.hopt/located";

}  // namespace

absl::Status LocatedError(absl::StatusCode code, absl::string_view file, int64_t line,
                          int64_t column, absl::string_view message) {
  std::string place(file);
  if (line > 0) absl::StrAppend(&place, ":", line);
  if (line > 0 && column > 0) absl::StrAppend(&place, ":", column);
  absl::Status status(code, absl::StrCat(place, ": error: ", message));
  status.SetPayload(kLocatedPayload, absl::Cord());
  return status;
}

bool IsLocated(const absl::Status& status) {
  return status.GetPayload(kLocatedPayload).has_value();
}

std::string FormatError(absl::string_view tool, const absl::Status& status) {
  if (IsLocated(status)) return std::string(status.message());
  return absl::StrCat(tool, ": error: ", status.message());
}

void ReportError(absl::string_view tool, const absl::Status& status) {
  std::string text = FormatError(tool, status);
  std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace hopt

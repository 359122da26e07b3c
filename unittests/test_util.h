// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_TEST_UTIL_H_
#define HOPT_UNITTESTS_TEST_UTIL_H_

// Small helpers shared by the unit tests of every directory below
// unittests/ (parse or fail, positions in a test input).

#include <memory>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"

namespace hopt {

// Lets gtest print shapes in failure messages.
inline void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.ToString(); }

namespace testing_util {

// Parses `text`; on failure records a test failure and returns null.
inline std::unique_ptr<HloModule> ParseOrFail(const std::string& text,
                                              absl::string_view filename = "test.hlo") {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, filename);
  if (!module.ok()) {
    ADD_FAILURE() << "parse failed: " << module.status() << "\n--- input ---\n" << text;
    return nullptr;
  }
  return *std::move(module);
}

// 1-based line and column of the `occurrence`-th (0-based) appearance of
// `marker` in `text`; the test fails if it is missing.
struct TextPosition {
  int64_t line = 0;
  int64_t column = 0;
};
inline TextPosition PositionOf(absl::string_view text, absl::string_view marker,
                               int occurrence = 0) {
  size_t at = text.find(marker);
  for (int i = 0; i < occurrence && at != absl::string_view::npos; ++i)
    at = text.find(marker, at + 1);
  if (at == absl::string_view::npos) {
    ADD_FAILURE() << "marker '" << marker << "' not found in the test input";
    return {};
  }
  TextPosition pos{1, 1};
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

}  // namespace testing_util
}  // namespace hopt

#endif  // HOPT_UNITTESTS_TEST_UTIL_H_

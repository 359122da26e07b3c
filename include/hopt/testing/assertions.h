// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TESTING_ASSERTIONS_H_
#define HOPT_TESTING_ASSERTIONS_H_

// gtest assertions over the test kit (libhopt_testing):
//
//   EXPECT_TRUE(hopt::testkit::MatchesFileCheck(text, R"(
//     CHECK: ROOT
//     CHECK-SAME: custom-call
//   )"));
//   EXPECT_TRUE(hopt::testkit::SameStructureAs(*module, kExpectedHlo));
//   ASSERT_TRUE(hopt::testkit::IsOkAndEquivalent(harness.VerifyEquivalence(...)));

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/testing/file_check.h"
#include "hopt/testing/plugin_harness.h"

namespace hopt {
namespace testkit {

// Success when `text` matches the FileCheck-style `patterns`
// (hopt/testing/file_check.h); the failure message shows why and the text.
::testing::AssertionResult MatchesFileCheck(absl::string_view text, absl::string_view patterns,
                                            const FileCheckOptions& options = {});
// Exact overloads, so that neither converts to the StatusOr one below.
inline ::testing::AssertionResult MatchesFileCheck(const std::string& text,
                                                   absl::string_view patterns,
                                                   const FileCheckOptions& options = {}) {
  return MatchesFileCheck(absl::string_view(text), patterns, options);
}
inline ::testing::AssertionResult MatchesFileCheck(const char* text, absl::string_view patterns,
                                                   const FileCheckOptions& options = {}) {
  return MatchesFileCheck(absl::string_view(text), patterns, options);
}
// The same on a run's result: an error fails, showing it.
::testing::AssertionResult MatchesFileCheck(const absl::StatusOr<std::string>& text,
                                            absl::string_view patterns,
                                            const FileCheckOptions& options = {});

// Success when `module` equals the module `expected_hlo` parses to, up to
// names (hopt/ir/structural_compare.h); the failure names the first
// difference and shows both canonical texts.
::testing::AssertionResult SameStructureAs(const HloModule& module, absl::string_view expected_hlo);

// Success when the check ran and found the two sides equivalent; the
// failure shows the error or the difference.
::testing::AssertionResult IsOkAndEquivalent(const absl::StatusOr<EquivalenceVerdict>& verdict);

}  // namespace testkit
}  // namespace hopt

#endif  // HOPT_TESTING_ASSERTIONS_H_

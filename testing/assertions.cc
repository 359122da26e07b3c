// SPDX-License-Identifier: Apache-2.0

#include "hopt/testing/assertions.h"

#include <memory>
#include <optional>
#include <string>

#include "hopt/ir/parser.h"
#include "hopt/ir/structural_compare.h"

namespace hopt {
namespace testkit {

::testing::AssertionResult MatchesFileCheck(absl::string_view text, absl::string_view patterns,
                                            const FileCheckOptions& options) {
  absl::Status status = FileCheck(text, patterns, options);
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.message();
}

::testing::AssertionResult MatchesFileCheck(const absl::StatusOr<std::string>& text,
                                            absl::string_view patterns,
                                            const FileCheckOptions& options) {
  if (!text.ok()) return ::testing::AssertionFailure() << "no text to check: " << text.status();
  return MatchesFileCheck(*text, patterns, options);
}

::testing::AssertionResult SameStructureAs(const HloModule& module,
                                           absl::string_view expected_hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> expected =
      ParseHloModule(std::string(expected_hlo), "<expected>");
  if (!expected.ok())
    return ::testing::AssertionFailure() << "the expected module: " << expected.status();
  std::optional<StructuralDifference> difference = FindStructuralDifference(module, **expected);
  if (!difference) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << difference->Describe("actual", "expected") << "\nactual (canonical):\n"
         << CanonicalModuleText(module) << "expected (canonical):\n"
         << CanonicalModuleText(**expected);
}

::testing::AssertionResult IsOkAndEquivalent(const absl::StatusOr<EquivalenceVerdict>& verdict) {
  if (!verdict.ok()) return ::testing::AssertionFailure() << verdict.status();
  if (!verdict->equivalent)
    return ::testing::AssertionFailure() << "not equivalent: " << verdict->difference;
  return ::testing::AssertionSuccess() << "equivalent on " << verdict->devices << " device(s)";
}

}  // namespace testkit
}  // namespace hopt

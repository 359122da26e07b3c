// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_PROVE_PROVE_TEST_UTIL_H_
#define HOPT_UNITTESTS_PROVE_PROVE_TEST_UTIL_H_

// The prove tests' common step: two module texts proved equal (or not) on
// a mesh.

#include <cstdint>
#include <string>

#include "core/prove/prover.h"
#include "gtest/gtest.h"
#include "hopt/eval/custom_call_table.h"
#include "unittests/test_util.h"

namespace hopt {
namespace prove {

inline ProofResult ProveTexts(const std::string& before_text, const std::string& after_text,
                              int64_t replicas = 1, int64_t partitions = 1,
                              const ProofOptions& proof_options = {},
                              const eval::CustomCallTable* custom_calls = nullptr) {
  auto before = testing_util::ParseOrFail(before_text);
  auto after = testing_util::ParseOrFail(after_text);
  EXPECT_NE(before, nullptr);
  EXPECT_NE(after, nullptr);
  if (before == nullptr || after == nullptr) return {};
  eval::EvalOptions options;
  options.replicas = replicas;
  options.partitions = partitions;
  options.custom_calls = custom_calls;
  auto result = ProveEquivalent(*before, *after, options, proof_options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : ProofResult{};
}

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_UNITTESTS_PROVE_PROVE_TEST_UTIL_H_

// SPDX-License-Identifier: Apache-2.0
// The interpreter on modules fuzz/module_generator.h writes from
// pseudo-random bytes (the interpreter fuzzer's grammar, run here in the
// plain build too): nearly all verify, and every one that verifies runs to
// a result or an error status on its mesh, never a crash. The fuzzer itself
// runs the same grammar much longer (docs/testing.md).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fuzz/module_generator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::HasSubstr;

TEST(GeneratedModulesTest, VerifiedModulesRunToAResultOrAnError) {
  std::mt19937 rng(7);
  int verified = 0, ran = 0, buffers = 0;
  constexpr int kModules = 300;
  for (int k = 0; k < kModules; ++k) {
    std::vector<uint8_t> bytes(static_cast<size_t>(32 + k % 200));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    fuzz::GeneratedModule generated = fuzz::GenerateModule(bytes.data(), bytes.size());
    auto module = ParseHloModule(generated.text, "<generated>");
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << generated.text;
    if (!VerifyModule(**module).ok()) continue;
    ++verified;
    EvalOptions options;
    options.replicas = generated.replicas;
    options.partitions = 1;
    options.max_bytes_per_device = int64_t{16} << 20;
    options.max_while_iterations = 1000;
    auto results = RunModule(**module, RandomArguments(**module, generated.replicas, 1), options);
    if (generated.text.find("b(f32[2]) parameter") != std::string::npos) {
      // The interpreter has no buffer values: refused before it runs.
      ++buffers;
      ASSERT_FALSE(results.ok());
      EXPECT_THAT(results.status().message(), HasSubstr("holds a buffer"));
      continue;
    }
    if (results.ok()) {
      ++ran;
      EXPECT_EQ(results->size(), static_cast<size_t>(generated.replicas));
    }
  }
  // The grammar is meant to write valid modules: a drop here is a bug in it.
  EXPECT_GE(verified, kModules * 9 / 10);
  EXPECT_GE(ran, (verified - buffers) * 9 / 10);
  EXPECT_GT(buffers, 0);
}

}  // namespace
}  // namespace eval
}  // namespace hopt

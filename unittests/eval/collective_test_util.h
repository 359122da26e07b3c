// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_EVAL_COLLECTIVE_TEST_UTIL_H_
#define HOPT_UNITTESTS_EVAL_COLLECTIVE_TEST_UTIL_H_

// Helpers of the multi-device interpreter tests (eval_collective_test.cc,
// eval_collective_sweep_test.cc, eval_run_module_test.cc,
// eval_limits_test.cc): per-device inputs that
// name their device (element k of device d is k + 100 * d), running a
// module on a mesh, and comparing per-device outputs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {

using Groups = std::vector<std::vector<int64_t>>;
using Values = std::vector<double>;

inline Literal MakeArray(PrimitiveType type, std::vector<int64_t> dims, const Values& values) {
  Literal literal(Shape(type, dims));
  EXPECT_EQ(literal.element_count(), static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size() && static_cast<int64_t>(k) < literal.element_count(); ++k)
    literal.SetFromDouble(static_cast<int64_t>(k), values[k]);
  return literal;
}

inline Literal F32(const Values& values) {
  return MakeArray(PrimitiveType::F32, {static_cast<int64_t>(values.size())}, values);
}

inline Literal S32(const Values& values) {
  return MakeArray(PrimitiveType::S32, {static_cast<int64_t>(values.size())}, values);
}

// k + 100 * device, k = 0..n-1.
inline Values DeviceIota(int64_t device, int64_t n) {
  Values values;
  for (int64_t k = 0; k < n; ++k) values.push_back(static_cast<double>(k + 100 * device));
  return values;
}

inline Values ValuesOf(const Literal& literal) {
  Values values;
  for (int64_t k = 0; k < literal.element_count(); ++k) values.push_back(literal.GetAsDouble(k));
  return values;
}

// One f32[n] argument per device: DeviceIota(d, n).
inline std::vector<std::vector<Literal>> IotaArguments(int64_t devices, int64_t n) {
  std::vector<std::vector<Literal>> arguments(devices);
  for (int64_t d = 0; d < devices; ++d) arguments[d].push_back(F32(DeviceIota(d, n)));
  return arguments;
}

// The custom-call semantics the tests below register (a tool owns such a
// table; here the test binary does).
inline CustomCallTable& TestCustomCalls() {
  static auto* table = new CustomCallTable();
  return *table;
}

inline EvalOptions MeshOptions(int64_t replicas, int64_t partitions) {
  EvalOptions options;
  options.custom_calls = &TestCustomCalls();
  options.replicas = replicas;
  options.partitions = partitions;
  // Nothing here legitimately waits long; a hang shows up as an error.
  options.rendezvous_timeout_ms = 10000;
  return options;
}

// Runs `text` on a replicas x partitions mesh; on failure records a test
// failure and returns no outputs.
inline std::vector<Literal> RunOrFail(const std::string& text,
                                      const std::vector<std::vector<Literal>>& arguments,
                                      int64_t replicas, int64_t partitions) {
  std::unique_ptr<HloModule> module = testing_util::ParseOrFail(text);
  if (module == nullptr) return {};
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, arguments, MeshOptions(replicas, partitions));
  if (!outputs.ok()) {
    ADD_FAILURE() << "RunModule failed: " << outputs.status() << "\n--- module ---\n" << text;
    return {};
  }
  EXPECT_EQ(static_cast<int64_t>(outputs->size()), replicas * partitions);
  return *std::move(outputs);
}

// Expects device d's output (an array) to hold expected[d].
inline void ExpectPerDevice(const std::vector<Literal>& outputs,
                            const std::vector<Values>& expected) {
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t d = 0; d < outputs.size(); ++d)
    EXPECT_THAT(ValuesOf(outputs[d]), ::testing::ElementsAreArray(expected[d])) << "device " << d;
}

inline std::string GroupsText(const Groups& groups) {
  std::vector<std::string> parts;
  for (const std::vector<int64_t>& group : groups)
    parts.push_back(absl::StrCat("{", absl::StrJoin(group, ","), "}"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

constexpr char kAddF32[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// A module whose entry is `x = <in> parameter(0)` and `ROOT out = <out>
// <op>(x), <attributes>`.
inline std::string OneCollective(int64_t replicas, int64_t partitions, const std::string& in,
                                 const std::string& out, const std::string& op,
                                 const std::string& attributes) {
  return absl::StrCat("HloModule m, replica_count=", replicas, ", num_partitions=", partitions,
                      "\n", kAddF32, "\nENTRY main {\n  x = ", in,
                      " parameter(0)\n  ROOT out = ", out, " ", op, "(x)",
                      attributes.empty() ? "" : ", ", attributes, "\n}\n");
}

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_UNITTESTS_EVAL_COLLECTIVE_TEST_UTIL_H_

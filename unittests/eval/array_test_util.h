// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_EVAL_ARRAY_TEST_UTIL_H_
#define HOPT_UNITTESTS_EVAL_ARRAY_TEST_UTIL_H_

// Helpers of the interpreter's array-operation tests (eval_shape_test.cc,
// eval_dot_test.cc, eval_convolution_test.cc and the opcode families'
// tests): literals from values, their values, integers and dimensions
// back, and whole modules whose entry takes no parameters run.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace array_testing {

// An array literal with `values` in row-major order (converted to `type`).
inline Literal Make(PrimitiveType type, std::vector<int64_t> dims, std::vector<double> values) {
  Literal literal(Shape(type, dims));
  EXPECT_EQ(literal.element_count(), static_cast<int64_t>(values.size()))
      << "test literal of " << literal.shape().ToString();
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(literal.element_count()); ++i)
    literal.SetFromDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}

// 0, 1, 2... in row-major order.
inline Literal Counting(PrimitiveType type, std::vector<int64_t> dims) {
  Literal literal(Shape(type, dims));
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromInt64(i, i);
  return literal;
}

inline Literal Scalar(PrimitiveType type, double value) { return Make(type, {}, {value}); }

inline std::vector<double> Values(const Literal& literal) {
  std::vector<double> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsDouble(i));
  return values;
}

inline std::vector<int64_t> Ints(const Literal& literal) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsInt64(i));
  return values;
}

inline std::vector<int64_t> DimsOf(const Literal& literal) {
  const DimensionVector& dims = literal.shape().dimensions();
  return std::vector<int64_t>(dims.begin(), dims.end());
}

// Runs `text`, whose entry takes no parameters, on `replicas` devices (one
// partition each): every device's result.
inline absl::StatusOr<std::vector<Literal>> RunParameterless(const std::string& text,
                                                             int64_t replicas = 1) {
  std::unique_ptr<HloModule> module = testing_util::ParseOrFail(text);
  if (module == nullptr) return absl::InternalError("the test module does not parse");
  EvalOptions options;
  options.replicas = replicas;
  options.partitions = 1;
  return RunModule(*module, std::vector<std::vector<Literal>>(replicas), options);
}

// The same on one device: its result.
inline absl::StatusOr<Literal> RunOnOneDevice(const std::string& text) {
  absl::StatusOr<std::vector<Literal>> outputs = RunParameterless(text);
  if (!outputs.ok()) return outputs.status();
  return std::move((*outputs)[0]);
}

// The status of `result`, for error tests.
template <typename T>
inline absl::Status StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}

}  // namespace array_testing
}  // namespace eval
}  // namespace hopt

// Expects `expr` (a StatusOr) to be InvalidArgument with `substring` in its
// message.
#define EXPECT_INVALID(expr, substring)                                           \
  do {                                                                            \
    absl::Status status_ = ::hopt::eval::array_testing::StatusOf(expr);           \
    EXPECT_EQ(status_.code(), absl::StatusCode::kInvalidArgument) << status_;     \
    EXPECT_THAT(std::string(status_.message()), ::testing::HasSubstr(substring)); \
  } while (0)

#endif  // HOPT_UNITTESTS_EVAL_ARRAY_TEST_UTIL_H_

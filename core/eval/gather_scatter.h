// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_GATHER_SCATTER_H_
#define HOPT_CORE_EVAL_GATHER_SCATTER_H_

// The interpreter's gather and scatter as functions on literals, internal to
// core/eval (not installed): DeviceEvaluator::EvaluateGatherScatter reads the
// attributes and the update computation, the tests call these directly.
// Semantics are XLA's (docs/interpreter-semantics.md, "Gather and scatter"); every
// function checks the dimension numbers as XLA's shape inference does and
// returns InvalidArgument instead of guessing.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/eval/ops.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// The gather attributes, as their HLO text names them.
struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> slice_sizes;
};

// The result shape XLA infers for a gather, after checking the dimension
// numbers against the operand and the start indices.
absl::StatusOr<Shape> GatherShape(const Shape& operand, const Shape& start_indices,
                                  const GatherDimensionNumbers& dims);

// Each start is clamped into [0, operand_dim - slice_size] (a collapsed or
// batching dimension counts as size 1), so every slice lies in the operand.
// Indices of any integer type; u64 values above INT64_MAX read as negative,
// as XLA's evaluator reads them.
absl::StatusOr<Literal> Gather(const Literal& operand, const Literal& start_indices,
                               const GatherDimensionNumbers& dims);

// The scatter attributes, as their HLO text names them.
struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

// Checks a scatter's operands, updates and dimension numbers as XLA's shape
// inference does (the result has the operands' shapes).
absl::Status CheckScatter(absl::Span<const Shape* const> operands, const Shape& indices,
                          absl::Span<const Shape* const> updates,
                          const ScatterDimensionNumbers& dims);

// Variadic scatter: N operands, N updates; `combine` takes 2N scalars (the
// current values of the N results, then the N update values) and returns N
// scalars of the operands' types. `element_combiner` (one operand only), when
// given, is used instead: results[0][a] = op(results[0][a], update[i]).
//
// Order, as XLA's evaluator: the update windows one by one, in row-major
// order of the updates' scatter dimensions; within a window its elements in
// row-major order of the window dimensions. A window that does not lie
// wholly in the operand (start < 0 or start > operand_dim - window_size in
// some dimension) is skipped, all of it.
absl::StatusOr<std::vector<Literal>> Scatter(absl::Span<const Literal* const> operands,
                                             const Literal& indices,
                                             absl::Span<const Literal* const> updates,
                                             const ScatterDimensionNumbers& dims,
                                             const ScalarCombiner& combine,
                                             const ElementCombiner* element_combiner = nullptr);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_GATHER_SCATTER_H_

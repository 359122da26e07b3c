// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_OPS_H_
#define HOPT_CORE_EVAL_OPS_H_

// The array operations of the HLO interpreter, as functions on literals.
// A literal's elements are in row-major order of its logical dimensions
// (layouts do not affect values). Every function checks its arguments and
// returns InvalidArgument with a clear message instead of guessing.
//
// Semantics follow XLA: integer arithmetic wraps around (two's complement),
// division by zero and overflow behave as XLA's evaluator defines them,
// floating-point results are computed in double and rounded to the element
// type (round to nearest even), which is exact for + - * / sqrt on f32 and
// narrower types.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// ---- elementwise (core/eval/elementwise_ops.cc) --------------------------
absl::StatusOr<Literal> Unary(HloOpcode opcode, const Literal& operand);
// Both operands have the same dimensions; the result has the operands'
// element type (add, subtract, multiply, divide, remainder, power, maximum,
// minimum, and, or, xor, shift-left, shift-right-*, atan2, complex).
absl::StatusOr<Literal> Binary(HloOpcode opcode, const Literal& lhs, const Literal& rhs);
// direction: EQ NE LT LE GT GE; `total_order` for comparison_type=TOTALORDER.
// acc[a] = op(acc[a], x[i]) on single elements, computed exactly as Binary
// computes it: for folds (reduce) that would otherwise build a literal per
// element. InvalidArgument for what Binary refuses.
using ElementCombiner = std::function<void(Literal& acc, int64_t a, const Literal& x, int64_t i)>;
absl::StatusOr<ElementCombiner> MakeElementCombiner(HloOpcode opcode, PrimitiveType type);
absl::StatusOr<Literal> Compare(absl::string_view direction, const Literal& lhs, const Literal& rhs,
                                bool total_order = false);
absl::StatusOr<Literal> Select(const Literal& predicate, const Literal& on_true,
                               const Literal& on_false);
absl::StatusOr<Literal> Clamp(const Literal& low, const Literal& operand, const Literal& high);
absl::StatusOr<Literal> Convert(const Literal& operand, PrimitiveType type);
absl::StatusOr<Literal> BitcastConvert(const Literal& operand, const Shape& result);

// ---- shape and data movement (core/eval/shape_ops.cc) --------------------
absl::StatusOr<Literal> Broadcast(const Literal& operand, const Shape& result,
                                  absl::Span<const int64_t> dimensions);
absl::StatusOr<Literal> Reshape(const Literal& operand, const Shape& result);
absl::StatusOr<Literal> Transpose(const Literal& operand, absl::Span<const int64_t> permutation);
absl::StatusOr<Literal> Slice(const Literal& operand, absl::Span<const int64_t> starts,
                              absl::Span<const int64_t> limits, absl::Span<const int64_t> strides);
// Start indices are clamped into range as XLA does.
absl::StatusOr<Literal> DynamicSlice(const Literal& operand, absl::Span<const int64_t> starts,
                                     absl::Span<const int64_t> sizes);
absl::StatusOr<Literal> DynamicUpdateSlice(const Literal& operand, const Literal& update,
                                           absl::Span<const int64_t> starts);
absl::StatusOr<Literal> Concatenate(absl::Span<const Literal* const> operands, int64_t dimension);
// padding per dimension: {low, high, interior}; negative low/high crop.
struct PadDimension {
  int64_t low = 0, high = 0, interior = 0;
};
absl::StatusOr<Literal> Pad(const Literal& operand, const Literal& padding_value,
                            absl::Span<const PadDimension> padding);
absl::StatusOr<Literal> Iota(const Shape& shape, int64_t iota_dimension);
absl::StatusOr<Literal> Reverse(const Literal& operand, absl::Span<const int64_t> dimensions);
// General dot: batch dimensions first, then lhs free, then rhs free
// dimensions. Floating-point operands and results run on sgemm (every type
// of at most 32 bits, accumulating in f32) or dgemm (when one is f64), the
// sum rounded to `result_type` (dense_kernels.h); integers accumulate
// exactly in 64 bits and wrap to the result type, complex and mixed
// integer/float products accumulate in complex<double>/double.
absl::StatusOr<Literal> Dot(const Literal& lhs, const Literal& rhs,
                            absl::Span<const int64_t> lhs_contracting,
                            absl::Span<const int64_t> rhs_contracting,
                            absl::Span<const int64_t> lhs_batch,
                            absl::Span<const int64_t> rhs_batch, PrimitiveType result_type);
// Dot by the exact loop whatever the types (reals accumulate in double, in
// index order): what the tests hold the GEMM path against.
absl::StatusOr<Literal> DotReference(const Literal& lhs, const Literal& rhs,
                                     absl::Span<const int64_t> lhs_contracting,
                                     absl::Span<const int64_t> rhs_contracting,
                                     absl::Span<const int64_t> lhs_batch,
                                     absl::Span<const int64_t> rhs_batch,
                                     PrimitiveType result_type);
// XLA's convolution (core/eval/convolution.cc): `window` and `dim_labels`
// as the HLO text spells them (`{size=3x3 stride=2x2 pad=1_1x1_1
// lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}`, `b01f_01io->b01f`).
// Floating-point types run as im2col + the GEMM of dense_kernels.h, other
// types by the exact loop of ConvolutionReference.
absl::StatusOr<Literal> Convolution(const Literal& lhs, const Literal& rhs,
                                    absl::string_view window, absl::string_view dim_labels,
                                    int64_t feature_group_count, int64_t batch_group_count,
                                    PrimitiveType result_type);
// The exact loop over output elements, window positions and input
// features (reals in double, integers wrapping in 64 bits, complex in
// complex<double>), for every type.
absl::StatusOr<Literal> ConvolutionReference(const Literal& lhs, const Literal& rhs,
                                             absl::string_view window, absl::string_view dim_labels,
                                             int64_t feature_group_count, int64_t batch_group_count,
                                             PrimitiveType result_type);
// Variadic reduce: N inputs, N init values; `combine` takes 2N scalars
// (accumulators, then elements) and returns N scalars (a tuple-free list).
using ScalarCombiner =
    std::function<absl::StatusOr<std::vector<Literal>>(const std::vector<Literal>&)>;
// `element_combiner`, when given (one input only), is used instead of
// `combine`: the same fold, without a literal per element.
absl::StatusOr<std::vector<Literal>> Reduce(absl::Span<const Literal* const> inputs,
                                            absl::Span<const Literal* const> inits,
                                            absl::Span<const int64_t> dimensions,
                                            const ScalarCombiner& combine,
                                            const ElementCombiner* element_combiner = nullptr);

// How dot and convolution accumulate: the widest kind among the operands
// and the result.
enum class Domain { kInteger, kReal, kComplex };
inline Domain DomainOf(PrimitiveType type) {
  if (IsComplexType(type)) return Domain::kComplex;
  if (IsFloatingPointType(type)) return Domain::kReal;
  return Domain::kInteger;
}

// InvalidArgument "op: message": how every array function above reports
// arguments it cannot take.
absl::Status OperationError(absl::string_view op, absl::string_view message);

// The collectives that run in one step (not a -start/-done pair): what the
// interpreter, the group reader and the async shorthand each dispatch on.
bool IsSynchronousCollective(HloOpcode opcode);

// A conditional's branches in index order: `branch_computations`, or
// {true_computation, false_computation}; empty when neither form is whole.
std::vector<HloComputation*> ConditionalBranches(const HloInstruction& conditional);

// Row-major helpers shared by the above.
int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index);
// `{a,b,c}`: how the errors spell a list of dimensions.
std::string DimsText(absl::Span<const int64_t> dims);
bool ContainsValue(absl::Span<const int64_t> list, int64_t value);
// Where `value` stands in `list` (its size when it is absent).
int64_t PositionOf(absl::Span<const int64_t> list, int64_t value);
// dims[from] * ... * dims[to - 1] (1 when from == to).
int64_t ProductOf(absl::Span<const int64_t> dims, size_t from, size_t to);
// `status` with "op: " before its message, for the errors of an operation
// that one operation runs on behalf of another (OK stays OK).
absl::Status InOperation(absl::string_view op, const absl::Status& status);
// The row-major strides of `shape`'s dimensions, in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// Advances a row-major `index` over `dims`; false after the last.
bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> dims);
void MultiIndex(const Shape& shape, int64_t linear, std::vector<int64_t>* index);
// A scalar literal holding element `linear` of `literal`.
Literal ElementAt(const Literal& literal, int64_t linear);
// Copies element `from` of `source` into element `to` of `target` (same
// element type), bit for bit.
void CopyElement(const Literal& source, int64_t from, Literal* target, int64_t to);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_OPS_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_CONVERSION_OPS_H_
#define HOPT_CORE_EVAL_CONVERSION_OPS_H_

// Bitcast, reduce-precision, stochastic-convert and the dynamic-shape
// operations of the interpreter as functions on literals (internal, not
// installed). docs/interpreter-semantics.md, "Bitcast, reduce-precision,
// stochastic-convert and dynamic shapes".
//
// Malformed arguments give InvalidArgument; what XLA defines but the
// interpreter cannot represent (a dynamic size below its bound) gives
// Unimplemented.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// XLA's bitcast: the operand's elements, read in the physical order of its
// layout (minor-to-major; no layout is the default descending one), become
// the result's elements in the physical order of `result`'s layout. Same
// element widths reinterpret element by element; different widths
// reinterpret the little-endian byte stream. The two sides must hold the
// same number of bytes.
absl::StatusOr<Literal> Bitcast(const Literal& operand, const Shape& result);

// XLA's reduce-precision: rounds each element (floating point) to
// `exponent_bits` and `mantissa_bits` as the evaluator does.
absl::StatusOr<Literal> ReducePrecision(const Literal& operand, int64_t exponent_bits,
                                        int64_t mantissa_bits);

// XLA's stochastic-convert of a floating-point `operand` to `result` (a
// signed integer type, the operand's dimensions), `random` (unsigned, the
// operand's width) deciding which way each fraction rounds.
absl::StatusOr<Literal> StochasticConvert(const Literal& operand, const Literal& random,
                                          const Shape& result);

// get-dimension-size: the size of `dimension` as s32. Values hold every
// element of their bounds, so a dynamic dimension's size is its bound.
absl::StatusOr<Literal> GetDimensionSize(const Literal& operand, int64_t dimension);

// set-dimension-size to `size` (an s32 scalar) along `dimension`: the
// operand with `result`'s shape when the size is the bound; Unimplemented
// below it.
absl::StatusOr<Literal> SetDimensionSize(const Literal& operand, const Literal& size,
                                         int64_t dimension, const Shape& result);

// dynamic-reshape to `result` with one size scalar per result dimension:
// a reshape when every size is its dimension's bound; Unimplemented when a
// dynamic dimension's size is below it.
absl::StatusOr<Literal> DynamicReshape(const Literal& operand,
                                       absl::Span<const Literal* const> sizes, const Shape& result);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_CONVERSION_OPS_H_

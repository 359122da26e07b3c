// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_WINDOW_OPS_H_
#define HOPT_CORE_EVAL_WINDOW_OPS_H_

// Reduce-window, select-and-scatter and map as functions on literals,
// internal to the interpreter (not installed); window_ops.cc also holds
// their DeviceEvaluator entry. `window` is the attribute's text
// (core/eval/window.h). The scalar computations are passed as
// ScalarCombiner (ops.h): scalars in, the computation's results out.
// Errors are InvalidArgument naming the operation.

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/eval/ops.h"
#include "hopt/ir/literal.h"

namespace hopt {
namespace eval {

// N inputs of one shape, N scalar init values; output element o of result
// k starts as init k and folds in, in window order, the input elements its
// window reads: accumulators = combine(accumulators..., elements...).
// Padding and the holes of lhs dilation are skipped (a window that reads
// none of the input gives the init values). Result k has init k's element
// type. `element_combiner`, when given (one input whose type is the
// init's), replaces `combine`.
absl::StatusOr<std::vector<Literal>> ReduceWindow(
    absl::Span<const Literal* const> inputs, absl::Span<const Literal* const> inits,
    absl::string_view window, const ScalarCombiner& combine,
    const ElementCombiner* element_combiner = nullptr);

// The result starts as `init` everywhere (operand's shape). For each
// source element, in row-major order, its window over `operand` picks one
// element: the first one read, replaced by each later one c for which
// select(picked, c) is false; then result[picked] = scatter(source element,
// result[picked]). A window that reads only padding scatters nothing.
// Operand, source and init have one element type.
absl::StatusOr<Literal> SelectAndScatter(const Literal& operand, const Literal& source,
                                         const Literal& init, absl::string_view window,
                                         const ScalarCombiner& select,
                                         const ScalarCombiner& scatter);

// The same function applied to whole arrays at once (elementwise).
using ArrayFunction =
    std::function<absl::StatusOr<Literal>(absl::Span<const Literal* const> operands)>;

// result[j] = apply(operand_0[j], operand_1[j], ...) over operands of
// one dimensions (element types may differ); `dimensions` must list every
// dimension in order, as XLA requires. `whole`, when given, computes the
// result in one call instead (used when it gives a `result_type` array).
absl::StatusOr<Literal> Map(absl::Span<const Literal* const> operands,
                            absl::Span<const int64_t> dimensions, PrimitiveType result_type,
                            const ScalarCombiner& apply, const ArrayFunction* whole = nullptr);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_WINDOW_OPS_H_

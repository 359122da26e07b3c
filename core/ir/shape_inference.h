// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_SHAPE_INFERENCE_H_
#define HOPT_CORE_IR_SHAPE_INFERENCE_H_

// Result shapes of the instructions passes build, from their operands and
// attributes. Shared by the builders (which need the shape), the verifier
// (which checks it) and the parser (for instructions written without one).
// Results carry XLA's default layout.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"

namespace hopt {

class HloComputation;
class HloInstruction;

absl::StatusOr<Shape> InferElementwiseShape(HloOpcode opcode,
                                            absl::Span<const Shape* const> operands);
absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs);
absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> operands);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index);
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& result);
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& result,
                                          absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand, absl::Span<const SliceDimension> slice);
absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> indices,
                                             absl::Span<const int64_t> sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   absl::Span<const Shape* const> indices);
absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension);
// Variadic reduce: N inputs then N init values.
absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    absl::Span<const int64_t> lhs_contracting,
                                    absl::Span<const int64_t> rhs_contracting,
                                    absl::Span<const int64_t> lhs_batch,
                                    absl::Span<const int64_t> rhs_batch,
                                    bool check_contracting_sizes = true);
absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t dimension, int64_t group_size);
absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t dimension, int64_t group_size);
absl::StatusOr<Shape> InferPadShape(const Shape& operand, absl::string_view padding);
absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             absl::string_view window);
absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            absl::string_view window, absl::string_view dim_labels,
                                            int64_t batch_group_count,
                                            int64_t feature_group_count = 1);
absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands);

// The shape an instruction should have given its operands and attributes,
// for the opcodes above (and the ones whose shape is an operand's); an error
// names what does not fit. `Unimplemented` for opcodes it does not know.
absl::StatusOr<Shape> InferShapeFromOperands(const HloInstruction& instruction);

// Whether XLA's text reader lets a module omit this opcode's result shape
// (it infers it); the others must write it.
bool ShapeMayBeOmitted(HloOpcode opcode);
// InferShapeFromOperands for the opcodes that need called computations or
// structured attributes (shape_inference_called.cc); `shapes` are the
// operands' shapes. `Unimplemented` for other opcodes.
absl::StatusOr<Shape> InferCalledOrStructuredShape(const HloInstruction& instruction,
                                                   absl::Span<const Shape* const> shapes);

// The shape XLA's text reader gives send, recv, send-done and recv-done
// whatever the text declares (it builds them from their operands, keeping
// only the data shape a recv declares); nullopt for other instructions and
// where the operands give none.
std::optional<Shape> ShapeXlaReaderBuilds(const HloInstruction& instruction);

// How many devices take part in each group of a collective: the size of its
// replica groups, or `default_group_size` when it has none.
int64_t CollectiveGroupSize(const HloInstruction& instruction, int64_t default_group_size);

}  // namespace hopt

#endif  // HOPT_CORE_IR_SHAPE_INFERENCE_H_

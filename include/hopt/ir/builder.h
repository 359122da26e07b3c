// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_BUILDER_H_
#define HOPT_IR_BUILDER_H_

// Factories for the instructions passes create. Each infers the result shape
// from its operands (shape_inference.h), fails with a clear message when the
// operands do not fit, adds the instruction to the operands' computation
// (or the one given) and writes attributes in the order XLA prints them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {

// While one is alive on a thread, every instruction made on that thread
// (through the factories below or HloComputation::AddInstruction) starts
// with `source`'s metadata as written, stack_frame_id included: what a
// rewrite makes in place of `source` keeps pointing at the program line
// that made it, as LLVM's IRBuilder gives new instructions its current
// debug location. Metadata set on an instruction afterwards wins. Scopes
// nest; the text is copied, so `source` may be removed meanwhile.
class MetadataFrom {
 public:
  explicit MetadataFrom(const HloInstruction& source);
  ~MetadataFrom();
  MetadataFrom(const MetadataFrom&) = delete;
  MetadataFrom& operator=(const MetadataFrom&) = delete;

 private:
  std::string text_;
  const std::string* previous_;
};

// How a collective picks its peers (XLA's group modes), as attributes.
struct CollectiveOptions {
  ReplicaGroupList replica_groups;
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
};

absl::StatusOr<HloInstruction*> MakeUnary(HloOpcode opcode, HloInstruction* operand);
absl::StatusOr<HloInstruction*> MakeBinary(HloOpcode opcode, HloInstruction* lhs,
                                           HloInstruction* rhs);
// direction: EQ, NE, LT, LE, GT or GE.
absl::StatusOr<HloInstruction*> MakeCompare(HloInstruction* lhs, HloInstruction* rhs,
                                            absl::string_view direction);
absl::StatusOr<HloInstruction*> MakeSelect(HloInstruction* predicate, HloInstruction* on_true,
                                           HloInstruction* on_false);
absl::StatusOr<HloInstruction*> MakeConvert(HloInstruction* operand, PrimitiveType type);
absl::StatusOr<HloInstruction*> MakeReshape(HloInstruction* operand,
                                            absl::Span<const int64_t> dimensions);
absl::StatusOr<HloInstruction*> MakeBroadcast(HloInstruction* operand,
                                              absl::Span<const int64_t> result_dimensions,
                                              absl::Span<const int64_t> broadcast_dimensions);
absl::StatusOr<HloInstruction*> MakeTranspose(HloInstruction* operand,
                                              absl::Span<const int64_t> permutation);
absl::StatusOr<HloInstruction*> MakeSlice(HloInstruction* operand, absl::Span<const int64_t> starts,
                                          absl::Span<const int64_t> limits,
                                          absl::Span<const int64_t> strides = {});
absl::StatusOr<HloInstruction*> MakeDynamicSlice(HloInstruction* operand,
                                                 absl::Span<HloInstruction* const> indices,
                                                 absl::Span<const int64_t> sizes);
absl::StatusOr<HloInstruction*> MakeConcatenate(absl::Span<HloInstruction* const> operands,
                                                int64_t dimension);
absl::StatusOr<HloInstruction*> MakeReduce(HloInstruction* operand, HloInstruction* init,
                                           absl::Span<const int64_t> dimensions,
                                           HloComputation* to_apply);
absl::StatusOr<HloInstruction*> MakeTuple(HloComputation* computation,
                                          absl::Span<HloInstruction* const> operands);
absl::StatusOr<HloInstruction*> MakeGetTupleElement(HloInstruction* tuple, int64_t index);
absl::StatusOr<HloInstruction*> MakeConstant(HloComputation* computation, const Literal& value);
absl::StatusOr<HloInstruction*> MakeScalarConstant(HloComputation* computation, PrimitiveType type,
                                                   double value);
absl::StatusOr<HloInstruction*> MakeIota(HloComputation* computation, const Shape& shape,
                                         int64_t iota_dimension);
HloInstruction* MakeReplicaId(HloComputation* computation);
HloInstruction* MakePartitionId(HloComputation* computation);

// `group_size` is the number of devices in each group (needed for the shape
// when the replica groups are empty).
absl::StatusOr<HloInstruction*> MakeAllGather(HloInstruction* operand, int64_t dimension,
                                              int64_t group_size, const CollectiveOptions& options);
absl::StatusOr<HloInstruction*> MakeReduceScatter(HloInstruction* operand, int64_t dimension,
                                                  int64_t group_size, HloComputation* to_apply,
                                                  const CollectiveOptions& options);
absl::StatusOr<HloInstruction*> MakeAllReduce(absl::Span<HloInstruction* const> operands,
                                              HloComputation* to_apply,
                                              const CollectiveOptions& options);
// api_version: 0 prints nothing (XLA's ORIGINAL), otherwise the XLA name,
// e.g. API_VERSION_STATUS_RETURNING.
absl::StatusOr<HloInstruction*> MakeCustomCall(HloComputation* computation,
                                               absl::Span<HloInstruction* const> operands,
                                               const Shape& shape, absl::string_view target,
                                               absl::string_view backend_config = "",
                                               absl::string_view api_version = "");

// A computation `(x: T[], y: T[]) -> T[]` applying `opcode` (add, maximum,
// ...), for reductions and collectives.
absl::StatusOr<HloComputation*> MakeScalarReduction(HloModule* module, HloOpcode opcode,
                                                    PrimitiveType type);

}  // namespace hopt

#endif  // HOPT_IR_BUILDER_H_

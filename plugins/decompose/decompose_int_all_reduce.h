#ifndef HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_INT_ALL_REDUCE_H_
#define HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_INT_ALL_REDUCE_H_

// aws_neuron_decompose_int_all_reduce (DecomposeIntAllReduce, registry order
// 88): the collective hardware reduces only floating-point payloads, so an
// integer cross-replica sum becomes "gather every device's value, then add
// locally".
//
// Gate (IsDecomposableIntAllReduce), exactly the spec's, in its order:
//   opcode is all-reduce
//   && the reduction computation's root is add
//   && the result's element type is integral (IsIntegralType: S*/U*, not
//      PRED; a combined all-reduce has a tuple result and fails here)
//   && TrueNumDimensions(result) == 0 (every dimension has size 1:
//      s32[], s32[1], s32[1,1], ...)
//   && the element type is S32 or U32 (the spec's (et-4)&~4 == 0), so S8,
//      S16, S64, U8, U16, U64 and the sub-byte types stay.
//
// Emitted graph, in build (and printed) order, for x = operand 0 of type T
// and G devices per group:
//   s   = T[]   reshape(x)                  only when x is not rank 0
//   bc  = T[2]  broadcast(s), dimensions={}
//   ag  = T[2G] all-gather(bc), dimensions={0}, with the all-reduce's
//         channel_id, replica_groups, constrain_layout, use_global_device_ids
//   acc = T[2]  slice(ag), slice={[0:2]}
//   for b = 2, 4, ..., 2G-2:
//     sl  = T[2] slice(ag), slice={[b:b+2]}
//     acc = T[2] add(acc, sl)                integer add, wraps like the
//                                            all-reduce's add
//   ln  = T[1]  slice(acc), slice={[1:2]}
//   out = reshape(ln) to the all-reduce's shape (its layout kept)
// Every new instruction carries the all-reduce's metadata; out replaces the
// all-reduce.
//
// Decisions beyond the spec (DESIGN.md section 5: a pass never changes what
// a program computes):
// - The spec reshapes the scalar to [2], which is not element preserving;
//   the scalar is broadcast to [2] instead (a value of shape [1] or [1,1] is
//   first reshaped to a scalar, which is).
// - The spec leaves open whether the final reshape reads the add chain or a
//   slice of the gather; it reads lane 1 of the add chain (slice [1:2] of
//   acc), the only choice that yields the sum. Both lanes hold the sum.
// - G is the number of devices in each group under XLA's group modes
//   (ParticipantCount): the first group's size without channel_id or with
//   use_global_device_ids, that size times num_partitions in
//   cross-replica-and-partition mode (channel_id, no global ids), and with
//   empty replica_groups the whole mode's count from the module's
//   replica_count / num_partitions. The spec's |group 0| alone would give
//   the all-gather a wrong shape in cross-replica-and-partition mode.
// - The rewriter leaves an all-reduce alone (the gate still matches; the
//   expander returns null, and -debug-only=<pass> says why) when the
//   rewrite could change the result or the program:
//   * the computation is not exactly add(p0, p1) of two T[] parameters;
//   * the replica groups are uneven (an all-gather needs one size);
//   * the groups are empty and the header states no mesh (1 replica, 1
//     partition, the defaults): G would be baked from a guess;
//   * the shape is dynamic.
// - PRED is not integral here (XLA's primitive_util::IsIntegralType, which
//   the spec says the classifier decodes to); the spec's aside that the
//   classifier's `cmp eax,1` treats PRED as integral contradicts that
//   and is not followed.
// - Control edges of the all-reduce move to the result; its control
//   predecessors also precede the new all-gather.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/pass.h"

namespace neuron {

// The gate (InstructionMatchesPattern).
bool IsDecomposableIntAllReduce(const hopt::HloInstruction& instruction);

// The rewrite of a gated all-reduce: returns the instruction that replaces
// it (not yet wired in), or null when it is left alone (see above).
absl::StatusOr<hopt::HloInstruction*> DecomposeIntAllReduceInstruction(
    hopt::HloInstruction* all_reduce);

class DecomposeIntAllReduce : public hopt::OpExpanderPass {
 public:
  static constexpr absl::string_view kName = "aws_neuron_decompose_int_all_reduce";
  absl::string_view name() const override { return kName; }

 protected:
  bool InstructionMatchesPattern(hopt::HloInstruction* instruction) override {
    return IsDecomposableIntAllReduce(*instruction);
  }
  absl::Span<const hopt::HloOpcode> PatternOpcodes() const override {
    static constexpr hopt::HloOpcode kOpcodes[] = {hopt::HloOpcode::kAllReduce};
    return kOpcodes;
  }
  absl::StatusOr<hopt::HloInstruction*> ExpandInstruction(
      hopt::HloInstruction* instruction) override {
    return DecomposeIntAllReduceInstruction(instruction);
  }
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_INT_ALL_REDUCE_H_

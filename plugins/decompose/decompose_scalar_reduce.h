#ifndef HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_SCALAR_REDUCE_H_
#define HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_SCALAR_REDUCE_H_

// aws_neuron_decompose_scalar_reduce (DecomposeScalarReduce, registry order
// 74): the engine reduce sweeps the 128-partition axis, so a scalar non-add
// integer reduce becomes a two-stage reduce over a [128, N/128] tiling.
//
// Gate (IsDecomposableScalarReduce), exactly the spec's, in its order:
//   opcode is reduce
//   && the result's element type is integral (IsIntegralType: S*/U*, not
//      PRED; a variadic reduce has a tuple result and fails here)
//   && TrueNumDimensions(result) == 0 (every dimension has size 1: s32[],
//      s32[1], ...)
//   && the reduction computation's root is NOT add (add reductions are left
//      to other lowerings)
//   && operand 0 has rank 2
//   && N = product of operand 0's dimensions is divisible by 128 (the
//      spec's N & 0x7F == 0; N = 0 passes, as in the spec).
// Any integral type passes (no S32/U32 narrowing), every non-add root too.
//
// Emitted graph, in build (and printed) order, for R = reduce(x, init),
// to_apply=Rc:
//   rs  = T[128,N/128] reshape(x)
//   r1  = T[128]       reduce(rs, init), dimensions={1}, to_apply=Rc
//   b1  = T[128]       maximum(r1, r1)     anti-fusion barrier (identity)
//   r2  = T[]          reduce(b1, init), dimensions={0}, to_apply=Rc
//   out = reshape(r2) to R's shape (its layout kept; T[] -> T[] when R is
//         a scalar, as in the spec)
// Both stages use the same Rc and the same init; every new instruction
// carries R's metadata; out replaces R.
//
// Decisions beyond the spec (DESIGN.md section 5: a pass never changes what
// a program computes). The gate matches, but the rewriter leaves R alone
// (returns null; -debug-only=<pass> says why) unless the two-stage reduce
// provably computes R's value:
// - Rc must be exactly op(p0, p1) (or op(p1, p0)) of two T[] parameters
//   with op in {maximum, minimum, multiply, and, or, xor}: associative and
//   commutative on wrapping integers, so regrouping changes nothing. Other
//   roots (subtract, divide, shifts, select-based argmax, ...) depend on
//   the order of application and stay.
// - Reusing init on both stages applies it 129 times (once per partition
//   row, once more in stage 2) instead of once. That is exact when init
//   op init == init (maximum, minimum, and, or: any init), for xor (129 is
//   odd: any init), and for multiply when init is a constant with
//   init^129 == init in T (0, 1, -1, ...). Otherwise R stays (the spec's
//   "reuse init verbatim" is kept rather than a stage-specific identity).
// - PRED is not integral here (XLA's primitive_util::IsIntegralType, which
//   the spec says the classifier decodes to); the spec's aside that the
//   classifier's `cmp eax,1` treats PRED as integral contradicts that
//   and is not followed.
// - x must have R's element type and static dimensions.
// - Control edges of R move to the result.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/pass.h"

namespace neuron {

// The gate (InstructionMatchesPattern).
bool IsDecomposableScalarReduce(const hopt::HloInstruction& instruction);

// The rewrite of a gated reduce: returns the instruction that replaces it
// (not yet wired in), or null when it is left alone (see above).
absl::StatusOr<hopt::HloInstruction*> DecomposeScalarReduceInstruction(
    hopt::HloInstruction* reduce);

class DecomposeScalarReduce : public hopt::OpExpanderPass {
 public:
  static constexpr absl::string_view kName = "aws_neuron_decompose_scalar_reduce";
  absl::string_view name() const override { return kName; }

 protected:
  absl::Span<const hopt::HloOpcode> PatternOpcodes() const override {
    static constexpr hopt::HloOpcode kOpcodes[] = {hopt::HloOpcode::kReduce};
    return kOpcodes;
  }
  bool InstructionMatchesPattern(hopt::HloInstruction* instruction) override {
    return IsDecomposableScalarReduce(*instruction);
  }
  absl::StatusOr<hopt::HloInstruction*> ExpandInstruction(
      hopt::HloInstruction* instruction) override {
    return DecomposeScalarReduceInstruction(instruction);
  }
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_SCALAR_REDUCE_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_SCALAR_REDUCE_H_
#define HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_SCALAR_REDUCE_H_

// aws_neuron_decompose_scalar_reduce: the engine's reduce sweeps the
// 128-partition axis, so a scalar non-add integer reduce becomes a
// two-stage reduce over a [128, N/128] tiling.
//
// Gate (the reference compiler's): a reduce with an integral (not pred)
// result whose dimensions all have size 1, a reduction root other than add,
// and a rank-2 operand of N elements, N divisible by 128.
// Rewrite: reshape to [128, N/128] -> reduce dimension 1 -> maximum(x, x),
// an identity that keeps later passes from merging the stages -> reduce
// dimension 0 -> reshape to the reduce's shape; both stages use the
// reduce's computation and init. A reduce the gate matches is still left
// alone unless the two stages provably compute its value (an associative,
// commutative plain op(p0, p1), and an init that survives being applied
// 129 times); -debug-only=<pass> says why. docs/plugins/decompose.md has
// the emitted graph and where and why this departs from the reference.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/pass.h"

namespace neuron {

// The gate (InstructionMatchesPattern).
bool IsDecomposableScalarReduce(const hopt::HloInstruction& instruction);

// The rewrite of a gated reduce: returns the instruction that replaces it
// (not yet wired in), or null when it is left alone.
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

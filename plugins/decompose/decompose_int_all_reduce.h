// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_INT_ALL_REDUCE_H_
#define HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_INT_ALL_REDUCE_H_

// aws_neuron_decompose_int_all_reduce: the collective hardware reduces only
// floating-point payloads, so an integer cross-replica sum becomes "gather
// every device's value, then add locally".
//
// Gate (the reference compiler's): an all-reduce whose reduction root is
// add, with an s32 or u32 result whose dimensions all have size 1.
// Rewrite: broadcast to [2] -> all-gather of 2G lanes (G devices per group,
// under XLA's group modes) -> G [2]-slices folded by a chain of integer adds
// -> lane 1 -> reshape to the all-reduce's shape. An all-reduce the gate
// matches is still left alone when the rewrite could change what it
// computes (-debug-only=<pass> says why). docs/plugins/decompose.md has the
// emitted graph and where and why this departs from the reference.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/pass.h"

namespace neuron {

// The gate (InstructionMatchesPattern).
bool IsDecomposableIntAllReduce(const hopt::HloInstruction& instruction);

// The rewrite of a gated all-reduce: returns the instruction that replaces
// it (not yet wired in), or null when it is left alone.
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

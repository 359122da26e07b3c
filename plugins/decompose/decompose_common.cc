// SPDX-License-Identifier: Apache-2.0

#include "decompose/decompose_common.h"

namespace neuron {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;

int64_t TrueNumDimensions(const hopt::Shape& shape) {
  if (!shape.IsArray()) return -1;
  int64_t count = 0;
  for (int64_t size : shape.dimensions())
    if (size != 1) ++count;
  return count;
}

std::optional<HloOpcode> ReductionRootOpcode(const HloInstruction& instruction) {
  const HloComputation* computation = instruction.to_apply();
  if (computation == nullptr || computation->root_instruction() == nullptr) return std::nullopt;
  return computation->root_instruction()->opcode();
}

bool IsPlainBinaryReduction(const HloComputation* computation, HloOpcode opcode,
                            hopt::PrimitiveType type) {
  if (computation == nullptr || computation->num_parameters() != 2) return false;
  const HloInstruction* root = computation->root_instruction();
  if (root == nullptr || root->opcode() != opcode || root->operand_count() != 2) return false;
  const hopt::Shape scalar = hopt::Shape::MakeScalar(type);
  const HloInstruction* p0 = computation->parameter_instruction(0);
  const HloInstruction* p1 = computation->parameter_instruction(1);
  for (const HloInstruction* i : {root, p0, p1})
    if (!i->shape().Compatible(scalar)) return false;
  return (root->operand(0) == p0 && root->operand(1) == p1) ||
         (root->operand(0) == p1 && root->operand(1) == p0);
}

void CopyMetadata(const HloInstruction& from, HloInstruction* to) {
  to->CopyTextAttributeFrom(from, "metadata");
}

}  // namespace neuron

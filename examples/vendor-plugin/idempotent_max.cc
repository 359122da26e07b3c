// SPDX-License-Identifier: Apache-2.0

#include "idempotent_max.h"

#include <vector>

#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace vendor {

absl::StatusOr<bool> IdempotentMax::Run(hopt::HloModule& module) {
  bool changed = false;
  for (hopt::HloComputation* computation : module.computations()) {
    // Matches first, rewrites after: the walk never sees a half-done list.
    std::vector<hopt::HloInstruction*> matches;
    for (hopt::HloInstruction* instruction : computation->instructions())
      if (instruction->opcode() == hopt::HloOpcode::kMaximum &&
          instruction->operand(0) == instruction->operand(1))
        matches.push_back(instruction);
    for (hopt::HloInstruction* max : matches) {
      // The copy takes max's name and place in the list: users, dumps and
      // a later pass's messages still say %name.
      hopt::HloInstruction* copy = computation->AddInstructionInPlaceOf(
          max, hopt::HloOpcode::kCopy, max->shape(), {max->mutable_operand(0)});
      copy->CopyTextAttributeFrom(*max, "metadata");
      computation->RelayControlDependencies(max, copy);
      HOPT_RETURN_IF_ERROR(max->ReplaceAllUsesWith(copy));
      HOPT_RETURN_IF_ERROR(computation->RemoveInstruction(max));
      changed = true;
    }
  }
  return changed;
}

}  // namespace vendor

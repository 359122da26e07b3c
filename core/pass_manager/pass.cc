// SPDX-License-Identifier: Apache-2.0

#include "hopt/pass_manager/pass.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/support/status_macros.h"

namespace hopt {

absl::StatusOr<bool> OpExpanderPass::Run(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.MakeComputationPostOrder()) {
    std::vector<HloInstruction*> matches;
    absl::Span<const HloOpcode> opcodes = PatternOpcodes();
    for (HloInstruction* instruction :
         opcodes.empty() ? computation->MakeInstructionPostOrder()
                         : computation->InstructionsWithOpcodeInPostOrder(opcodes))
      if (InstructionMatchesPattern(instruction)) matches.push_back(instruction);
    for (HloInstruction* instruction : matches) {
      HOPT_ASSIGN_OR_RETURN(HloInstruction * replacement, ExpandInstruction(instruction));
      if (replacement == nullptr || replacement == instruction) continue;
      absl::Status status = computation->ReplaceInstruction(instruction, replacement);
      if (!status.ok())
        return absl::InternalError(
            absl::StrCat("expanding ", instruction->name(), ": ", status.message()));
      changed = true;
    }
  }
  return changed;
}

}  // namespace hopt

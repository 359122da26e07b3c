// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_VERIFIER_RULES_H_
#define HOPT_CORE_IR_VERIFIER_RULES_H_

#include <optional>
#include <string>

#include "hopt/ir/instruction.h"

namespace hopt {

// A rule of XLA's verifier that an instruction breaks: the rule's name, as
// the verifier's messages show it in brackets, and what is wrong.
struct RuleViolation {
  const char* rule;
  std::string detail;
};

// XLA's rules beyond the shape of the instruction itself: what a
// conditional or a while loop needs of the computations it calls, and the
// attributes an opcode cannot go without. The interpreter relies on them.
std::optional<RuleViolation> CheckOpcodeRules(const HloInstruction& i);

}  // namespace hopt

#endif  // HOPT_CORE_IR_VERIFIER_RULES_H_

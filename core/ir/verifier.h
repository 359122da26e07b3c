#ifndef HOPT_CORE_IR_VERIFIER_H_
#define HOPT_CORE_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "core/ir/module.h"

namespace hopt {

// Checks the module's structure (use/def and user lists, unique names, one
// root per computation, called computations belong to the module, operand
// counts) and the shapes of the instructions hopt builds. The first problem
// found is returned as `verifier: [rule] computation 'c', instruction 'i':
// detail`.
absl::Status VerifyModule(const HloModule& module);

}  // namespace hopt

#endif  // HOPT_CORE_IR_VERIFIER_H_

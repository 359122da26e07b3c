// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_NAME_CHECK_H_
#define HOPT_CORE_IR_NAME_CHECK_H_

#include <vector>

#include "hopt/ir/computation.h"

namespace hopt {

// The first instruction (in the given order) whose name an earlier one
// already has, or null. Linear in memory traffic: it radix-sorts name
// hashes instead of filling a hash set, which matters for the verifier and
// the parser on computations of hundreds of thousands of instructions.
const HloInstruction* FindDuplicateName(InstructionRange instructions);

}  // namespace hopt

#endif  // HOPT_CORE_IR_NAME_CHECK_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_LIST_ORDER_H_
#define HOPT_IR_LIST_ORDER_H_

#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"

namespace hopt {

// In a module with is_scheduled=true the instruction list is the schedule
// and the printer prints it as is, so instructions a pass appends at the end
// of the list would be printed (and scheduled) after their users. Moves every
// instruction that stands after one of its users to just before the first
// of them, keeping the relative order of everything else; a list that is
// already ordered is left untouched. Linear in the computation's size.
void RestoreDefBeforeUseOrder(HloComputation& computation);
// The same for every computation of `module`, if it is scheduled (the pass
// manager calls this after every pass that changed a scheduled module, so
// that passes may append instructions anywhere).
void RestoreDefBeforeUseOrder(HloModule& module);

}  // namespace hopt

#endif  // HOPT_IR_LIST_ORDER_H_

#ifndef HOPT_PLUGINS_MARKERS_LIST_ORDER_H_
#define HOPT_PLUGINS_MARKERS_LIST_ORDER_H_

#include "core/ir/computation.h"

namespace neuron {
namespace markers {

// In a module with is_scheduled=true the instruction list is the schedule
// and the printer prints it as is, so instructions a pass appends at the end
// of the list would be printed (and scheduled) after their users. Moves every
// instruction that stands after one of its users to just before the first
// of them, keeping the relative order of everything else; a list that is
// already ordered is left untouched. Linear in the computation's size.
void RestoreDefBeforeUseOrder(hopt::HloComputation& computation);

}  // namespace markers
}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_LIST_ORDER_H_

// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/list_order.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hopt {

void RestoreDefBeforeUseOrder(HloComputation& computation) {
  // Wanted order: the list, each instruction preceded by whatever it
  // depends on (operands, control predecessors) that is not placed yet.
  std::vector<HloInstruction*> order = computation.MakeListTopologicalOrder();
  std::vector<HloInstruction*> slots;
  slots.reserve(order.size());
  bool ordered = true;
  for (HloInstruction* instruction : computation.instructions()) {
    ordered &= instruction == order[slots.size()];
    slots.push_back(instruction);
  }
  if (ordered) return;
  // Permute the live slots into that order with one swap per misplaced
  // instruction; `where` follows each instruction's slot.
  absl::flat_hash_map<const HloInstruction*, int64_t> where;
  where.reserve(slots.size());
  for (size_t k = 0; k < slots.size(); ++k) where[slots[k]] = static_cast<int64_t>(k);
  for (size_t k = 0; k < order.size(); ++k) {
    HloInstruction* want = order[k];
    HloInstruction* there = slots[k];
    if (there == want) continue;
    int64_t from = where[want];
    computation.SwapListPositions(there, want);
    slots[from] = there;
    where[there] = from;
    slots[k] = want;
    where[want] = static_cast<int64_t>(k);
  }
}

void RestoreDefBeforeUseOrder(HloModule& module) {
  if (!module.is_scheduled()) return;
  for (HloComputation* computation : module.computations()) RestoreDefBeforeUseOrder(*computation);
}

}  // namespace hopt

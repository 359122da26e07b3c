#include "core/ir/list_order.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace hopt {

void RestoreDefBeforeUseOrder(HloComputation& computation) {
  std::vector<HloInstruction*> slots;
  slots.reserve(computation.instruction_count());
  for (HloInstruction* instruction : computation.instructions())
    slots.push_back(instruction);
  // Wanted order: the list, each instruction preceded by whatever it
  // depends on (operands, control predecessors) that is not placed yet.
  std::vector<HloInstruction*> order;
  order.reserve(slots.size());
  // Sized by the computation, not by the module's ids: there may be many
  // small computations in a big module.
  absl::flat_hash_set<const HloInstruction*> placed, pending;
  placed.reserve(slots.size());
  std::vector<std::pair<HloInstruction*, bool>> stack;
  for (HloInstruction* start : slots) {
    if (placed.contains(start)) continue;
    stack.emplace_back(start, false);
    while (!stack.empty()) {
      auto [current, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        if (placed.insert(current).second) order.push_back(current);
        continue;
      }
      if (placed.contains(current) || !pending.insert(current).second) continue;
      stack.emplace_back(current, true);
      // Pushed in reverse so that the first operand is placed first.
      if (current->has_control_predecessors()) {
        std::vector<HloInstruction*> predecessors = current->control_predecessors();
        for (auto it = predecessors.rbegin(); it != predecessors.rend(); ++it)
          if (!placed.contains(*it)) stack.emplace_back(*it, false);
      }
      const auto& operands = current->operands();
      for (auto it = operands.rbegin(); it != operands.rend(); ++it)
        if (!placed.contains(*it)) stack.emplace_back(*it, false);
    }
  }
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

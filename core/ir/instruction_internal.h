// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_INSTRUCTION_INTERNAL_H_
#define HOPT_CORE_IR_INSTRUCTION_INTERNAL_H_

// Core's access to what HloInstruction keeps private, and the flag bits
// only core reads. The public header names this struct as its one
// core-internal friend (beside HloComputation and HloModule), so that the
// readers, the verifier and instruction.cc's helpers reach the
// instruction's fields through here instead of by being named in the SDK.
// Not for passes or plugins.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/shape.h"

namespace hopt {

struct InstructionInternals {
  // --- Bits of HloInstruction's flags byte besides the two its inline
  // accessors read (kControlSuccessors = 1, kMayHaveControlPredecessors = 8).
  static constexpr uint8_t kControlSuccessors = HloInstruction::kControlSuccessors;
  static constexpr uint8_t kMayHaveControlPredecessors =
      HloInstruction::kMayHaveControlPredecessors;
  static constexpr uint8_t kIndexedUsers = 2;
  static constexpr uint8_t kAsyncWrapped = 4;
  // Set when an attribute naming computations is added (conservative, like
  // kMayHaveControlPredecessors).
  static constexpr uint8_t kMayCallComputations = 16;
  // Set when a channel_id attribute is added (conservative too).
  static constexpr uint8_t kMayHaveChannelId = 32;
  // The flags the parent computation mirrors beside its instruction list,
  // so that finding the few instructions with one of them reads a byte per
  // instruction instead of the instructions themselves.
  static constexpr uint8_t kListedTraits =
      kMayHaveControlPredecessors | kMayCallComputations | kMayHaveChannelId;
  // Set while the module keeps an OperandPositions index of this
  // instruction's operands (OperandIndexing, core/ir/instruction.cc).
  static constexpr uint8_t kIndexedOperands = 64;
  // Set while the module counts removals from this instruction's users
  // (HloModule::CountUserRemoval).
  static constexpr uint8_t kCountedUserRemovals = 128;

  // --- Fields, for the readers (which set them once, unchecked, and check
  // the whole module after) and the verifier.
  static uint8_t& flags(HloInstruction& instruction) { return instruction.flags_; }
  static uint8_t& mark(const HloInstruction& instruction) { return instruction.mark_; }
  static int32_t position(const HloInstruction& instruction) { return instruction.position_; }
  static const Shape*& shape(HloInstruction& instruction) { return instruction.shape_; }
  static InstructionVector& operands(HloInstruction& instruction) { return instruction.operands_; }
  // The attribute list; null when there is none.
  static std::vector<HloAttribute>* attributes(HloInstruction& instruction) {
    return instruction.attributes_.get();
  }
  // Operand `index` becomes `operand` (the caller keeps user lists in step).
  static void SetOperandSlot(HloInstruction& instruction, int64_t index, HloInstruction* operand) {
    instruction.SetOperandSlot(index, operand);
  }
  static void AddUser(HloInstruction& operand, HloInstruction* user, int64_t operand_index) {
    operand.AddUser(user, operand_index);
  }
  static void SetParameterNumber(HloInstruction& parameter, int64_t number) {
    parameter.set_parameter_number(number);
  }
  // A constant's value as text (validated by the caller).
  static void StoreLiteral(HloInstruction& constant, absl::string_view text) {
    constant.StoreLiteral(text);
  }

  // instruction.cc's helpers: cache prefetches, and the operand position
  // index of wide instructions.
  struct Prefetch;
  struct OperandIndexing;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_INSTRUCTION_INTERNAL_H_

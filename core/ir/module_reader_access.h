// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_MODULE_READER_ACCESS_H_
#define HOPT_CORE_IR_MODULE_READER_ACCESS_H_

// What a reader that builds a whole module from a file needs beyond the
// public mutation API: computations and instructions created with names
// already known to be unique, the list, root and parameters set without
// the checks a pass's edits need (the reader checks the whole module once),
// and the attribute list reordered in place. The file readers outside
// core/ir (the protobuf reader, core/proto/) build through this class
// rather than being friends of the IR by name. Internal: not for passes or
// plugins, which edit a module through HloComputation's public API.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/ir/instruction_internal.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"

namespace hopt {

class ModuleReaderAccess {
 public:
  // For a module built from nothing: names are indexed as they are made
  // (HloModule::IndexNamesFromTheStart).
  static void IndexNamesFromTheStart(HloModule* module) { module->IndexNamesFromTheStart(); }
  // A new, empty computation at the end of the module's list; `name` is
  // unique and saved in the module's arena already.
  static HloComputation* AppendComputation(HloModule* module, absl::string_view name) {
    module->computations_.emplace_back(new HloComputation(module, name));
    return module->computations_.back().get();
  }
  // An instruction at the end of `computation`'s list, named `name`
  // (unique, saved in the module's arena).
  static HloInstruction* CreateInstruction(HloComputation* computation, HloOpcode opcode,
                                           const Shape* shape, absl::string_view name) {
    return computation->CreateInstruction(opcode, shape, name);
  }
  static const std::vector<HloInstruction*>& instructions(const HloComputation& computation) {
    return computation.instructions_;
  }
  static void SetRootUnchecked(HloComputation* computation, HloInstruction* root) {
    computation->SetRootUnchecked(root);
  }
  // By parameter number; every slot set.
  static void SetParameters(HloComputation* computation, std::vector<HloInstruction*> parameters) {
    computation->parameters_ = std::move(parameters);
  }
  // The instruction's place in its computation's list.
  static int32_t position(const HloInstruction& instruction) {
    return InstructionInternals::position(instruction);
  }
  static void SetParameterNumber(HloInstruction* parameter, int64_t number) {
    InstructionInternals::SetParameterNumber(*parameter, number);
  }
  // A constant's value as text (validated by the caller).
  static void StoreLiteral(HloInstruction* constant, absl::string_view text) {
    InstructionInternals::StoreLiteral(*constant, text);
  }
  // The attribute list, for reordering in place; null when there is none.
  static std::vector<HloAttribute>* attributes(HloInstruction* instruction) {
    return InstructionInternals::attributes(*instruction);
  }
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_MODULE_READER_ACCESS_H_

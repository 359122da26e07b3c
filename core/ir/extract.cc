// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/extract.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/ir/module_internal.h"
#include "hopt/support/status_macros.h"

namespace hopt {

void InstructionCopier::Map(const HloInstruction* source, HloInstruction* copy) {
  instructions_[source] = copy;
}

HloInstruction* InstructionCopier::Find(const HloInstruction* source) const {
  auto it = instructions_.find(source);
  return it == instructions_.end() ? nullptr : it->second;
}

HloInstruction* InstructionCopier::CreateWithoutOperands(const HloInstruction& source,
                                                         HloComputation* into) {
  HloInstruction* copy =
      source.opcode() == HloOpcode::kParameter
          ? into->AddParameter(source.shape(), source.name(), source.parameter_number())
          : into->AddInstruction(source.opcode(), source.shape(), {}, source.name());
  if (source.opcode() == HloOpcode::kConstant) copy->set_literal_text(source.literal_text());
  if (auto wrapped = source.async_wrapped_opcode()) copy->set_async_wrapped_opcode(wrapped);
  instructions_[&source] = copy;
  return copy;
}

absl::Status InstructionCopier::CopyAttributes(const HloInstruction& source, HloInstruction* copy) {
  StringArena& arena = ModuleInternals::Storage(destination_).arena;
  for (const HloAttribute& attribute : source.attributes()) {
    HloAttribute copied;
    copied.name = arena.Intern(attribute.name);
    copied.value = arena.InternValue(attribute.value);
    copied.kind = attribute.kind;
    for (const HloComputation* callee : attribute.computations) {
      HOPT_ASSIGN_OR_RETURN(HloComputation * callee_copy, CopyComputation(*callee));
      copied.computations.push_back(callee_copy);
    }
    if (attribute.kind == HloAttribute::Kind::kInstructionList) {
      for (const HloInstruction* predecessor : attribute.instructions)
        if (HloInstruction* mapped = Find(predecessor)) copied.instructions.push_back(mapped);
      // A control-predecessors list whose every entry stayed behind goes.
      if (copied.instructions.empty() && !attribute.instructions.empty()) continue;
    }
    copy->AddAttribute(std::move(copied));
  }
  return absl::OkStatus();
}

absl::Status InstructionCopier::Copy(absl::Span<const HloInstruction* const> sources,
                                     HloComputation* into) {
  std::vector<HloInstruction*> copies;
  copies.reserve(sources.size());
  for (const HloInstruction* source : sources)
    copies.push_back(CreateWithoutOperands(*source, into));
  for (size_t k = 0; k < sources.size(); ++k) {
    const HloInstruction& source = *sources[k];
    for (const HloInstruction* operand : source.operands()) {
      HloInstruction* mapped = Find(operand);
      if (mapped == nullptr)
        return absl::InternalError(absl::StrCat("copying '", source.name(), "': operand '",
                                                operand->name(), "' has no copy"));
      copies[k]->AppendOperand(mapped);
    }
    HOPT_RETURN_IF_ERROR(CopyAttributes(source, copies[k]));
  }
  return absl::OkStatus();
}

absl::StatusOr<HloComputation*> InstructionCopier::CopyComputation(const HloComputation& source) {
  if (auto it = computations_.find(&source); it != computations_.end()) return it->second;
  // Every computation `source` reaches gets its (empty) copy first, in the
  // order a depth-first walk meets them, so that filling one finds its
  // callees' copies made: no recursion along a call chain, however deep.
  std::vector<const HloComputation*> order;
  std::vector<const HloComputation*> stack = {&source};
  while (!stack.empty()) {
    const HloComputation* next = stack.back();
    stack.pop_back();
    if (computations_.contains(next)) continue;
    HloComputation* copy = destination_.AddComputation(next->name());
    if (!next->execution_thread().empty()) copy->set_execution_thread(next->execution_thread());
    computations_[next] = copy;
    order.push_back(next);
    std::vector<const HloComputation*> callees;
    for (const HloInstruction* instruction : next->instructions())
      for (const HloAttribute& attribute : instruction->attributes())
        for (const HloComputation* callee : attribute.computations) callees.push_back(callee);
    stack.insert(stack.end(), callees.rbegin(), callees.rend());
  }
  for (const HloComputation* computation : order) {
    HOPT_RETURN_IF_ERROR(FillComputation(*computation, computations_.at(computation)));
  }
  return computations_.at(&source);
}

absl::Status InstructionCopier::FillComputation(const HloComputation& source,
                                                HloComputation* copy) {
  std::vector<const HloInstruction*> sources;
  sources.reserve(source.instruction_count());
  for (const HloInstruction* instruction : source.instructions()) sources.push_back(instruction);
  HOPT_RETURN_IF_ERROR(Copy(sources, copy));
  if (source.root_instruction() == nullptr) return absl::OkStatus();
  return copy->set_root_instruction(Find(source.root_instruction()),
                                    /*accept_different_shape=*/true);
}

}  // namespace hopt

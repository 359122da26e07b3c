// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_COMPUTATION_H_
#define HOPT_IR_COMPUTATION_H_

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/instruction.h"

namespace hopt {

// Iterates a computation's live instructions in list order (the vector
// holds null slots where instructions were removed).
class InstructionIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = HloInstruction*;
  using difference_type = std::ptrdiff_t;
  using pointer = HloInstruction**;
  using reference = HloInstruction*;
  InstructionIterator(HloInstruction* const* at, HloInstruction* const* end) : at_(at), end_(end) {
    SkipHoles();
  }
  HloInstruction* operator*() const { return *at_; }
  InstructionIterator& operator++() {
    ++at_;
    SkipHoles();
    return *this;
  }
  bool operator==(const InstructionIterator& o) const { return at_ == o.at_; }
  bool operator!=(const InstructionIterator& o) const { return at_ != o.at_; }

 private:
  void SkipHoles() {
    while (at_ != end_ && *at_ == nullptr) ++at_;
  }
  HloInstruction* const* at_;
  HloInstruction* const* end_;
};

struct InstructionRange {
  HloInstruction* const* first;
  HloInstruction* const* last;
  InstructionIterator begin() const { return InstructionIterator(first, last); }
  InstructionIterator end() const { return InstructionIterator(last, last); }
};

class HloComputation {
 public:
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;
  ~HloComputation();

  absl::string_view name() const { return name_; }
  void SetName(absl::string_view name);
  HloModule* parent() const { return parent_; }
  bool IsEntryComputation() const;

  // Computations that run on another thread carry `execution_thread="..."`.
  absl::string_view execution_thread() const { return execution_thread_; }
  void set_execution_thread(absl::string_view thread);

  HloInstruction* root_instruction() const { return root_; }
  // The new root must have the old root's shape unless
  // `accept_different_shape` (then the caller fixes callers' shapes).
  absl::Status set_root_instruction(HloInstruction* root, bool accept_different_shape = false);

  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  HloInstruction* parameter_instruction(int64_t i) const { return parameters_[i]; }
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }

  int64_t instruction_count() const { return count_; }
  InstructionRange instructions() const {
    return InstructionRange{instructions_.data(), instructions_.data() + instructions_.size()};
  }
  // Capacity hint for parsers that know how many instructions follow.
  void ReserveInstructions(size_t n) {
    instructions_.reserve(n);
    opcodes_.reserve(n);
    traits_.reserve(n);
  }
  // The live instructions whose opcode is one of `opcodes`, in list order.
  // The opcodes are kept beside the list, one byte per slot, so finding the
  // few custom-calls or whiles of an 8-million-instruction computation reads
  // 8 MB, not the 800 MB of the instructions themselves.
  std::vector<HloInstruction*> InstructionsWithOpcode(
      std::initializer_list<HloOpcode> opcodes) const;
  // The same kind of scan for what few instructions have, in list order.
  // Each may hold more than it has: an attribute added and later removed
  // leaves the instruction listed.
  // Instructions with an attribute naming computations (to_apply, body,
  // calls, ...).
  std::vector<HloInstruction*> InstructionsCallingComputations() const;
  // Instructions with a control-predecessors list.
  std::vector<HloInstruction*> InstructionsWithControlPredecessors() const;
  // Instructions with a channel_id.
  std::vector<HloInstruction*> InstructionsWithChannelId() const;
  // XLA's order: operands before users, starting from the instructions no
  // one uses, in list order; control predecessors count as operands.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // The instructions with one of `opcodes`, in MakeInstructionPostOrder's
  // order: what a pass that rewrites some opcodes walks. The same walk,
  // without the whole order and without reading the instructions again to
  // find their opcodes; no walk at all when none has one of them.
  std::vector<HloInstruction*> InstructionsWithOpcodeInPostOrder(
      absl::Span<const HloOpcode> opcodes) const;
  // A topological order (operands and control predecessors before their
  // users) that keeps the list order wherever the list allows: each
  // instruction in list order, preceded by whatever it depends on that is
  // not placed yet. That is the list itself when the list is topological,
  // as it nearly always is (readers see definitions first, rewrites put
  // replacements in place), and then costs one read of each instruction's
  // operands. Unlike the post order, instructions that stand together in
  // the list stand together here.
  std::vector<HloInstruction*> MakeListTopologicalOrder() const;
  // A cycle through operands and control predecessors, if there is one: an
  // instruction on it and the dependency of it that closes the cycle
  // ({nullptr, nullptr} for a DAG). The verifier and the proto reader
  // report it in their own words.
  std::pair<const HloInstruction*, const HloInstruction*> FindDependencyCycle() const;
  // Computations called (transitively) from this one, callees first.
  std::vector<HloComputation*> MakeEmbeddedComputationsList() const;
  HloInstruction* GetInstructionWithName(absl::string_view name) const;

  // Creates an instruction at the end of the list. The name is made unique
  // in the module from `name` (the opcode spelling when empty).
  HloInstruction* AddInstruction(HloOpcode opcode, const Shape& shape,
                                 absl::Span<HloInstruction* const> operands,
                                 absl::string_view name = "");
  // Creates an instruction that stands where `old` stands: same name (no
  // new name is made) and same place in the list. The caller moves `old`'s
  // uses to it and removes `old`, which must happen before anything looks
  // the name up. For rewrites that replace one instruction by another.
  HloInstruction* AddInstructionInPlaceOf(HloInstruction* old, HloOpcode opcode, const Shape& shape,
                                          absl::Span<HloInstruction* const> operands);
  // Parameters are numbered in the order they are added unless a number is
  // given (the parser's case).
  HloInstruction* AddParameter(const Shape& shape, absl::string_view name, int64_t number = -1);
  // Unlinks an instruction that has no users and is not the root.
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Also removes operands (transitively) left without users; parameters
  // stay.
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction);
  // Replaces all uses of `old_instruction` (including the root) with
  // `new_instruction` and removes the old one and operands it orphaned;
  // the old one's control edges pass to the new one.
  absl::Status ReplaceInstruction(HloInstruction* old_instruction, HloInstruction* new_instruction);
  absl::Status ReplaceInstructionWithDifferentShape(HloInstruction* old_instruction,
                                                    HloInstruction* new_instruction);
  // Swaps the list positions (the print order) of two instructions, so a
  // replacement can stand where the instruction it replaces stood.
  void SwapListPositions(HloInstruction* a, HloInstruction* b);
  // Hands `from`'s control edges to `to`: `from`'s control predecessors
  // become `to`'s, and every control-predecessors list naming `from` names
  // `to` instead. For rewrites that replace an instruction, so that no
  // ordering constraint is lost when `from` is removed.
  void RelayControlDependencies(HloInstruction* from, HloInstruction* to);
  // The same for many (from, to) replacements at once, in one walk of the
  // computation (a rewrite with thousands of matches stays linear). Each
  // `from` appears at most once.
  void RelayControlDependencies(
      absl::Span<const std::pair<HloInstruction*, HloInstruction*>> replacements);
  // Removes instructions that have no users, in the given order (users
  // first), dropping the control edges that name them in one walk.
  absl::Status RemoveInstructions(absl::Span<HloInstruction* const> instructions);
  // Removes parameter `number` (it must be unused) and renumbers the rest.
  absl::Status RemoveParameter(int64_t number);

 private:
  friend class HloModule;
  friend class HloInstruction;
  friend class HloParser;
  friend class ModuleReaderAccess;  // module_reader_access.h
  HloComputation(HloModule* parent, absl::string_view name);
  // Creates an instruction with a given, already unique, name, recorded in
  // the module's name index (if it has one yet) unless `name_recorded`:
  // the index is a table of every name, and in a big module each needless
  // lookup is a cache miss.
  HloInstruction* CreateInstruction(HloOpcode opcode, const Shape* shape, absl::string_view name,
                                    bool name_recorded = false);
  void Unlink(HloInstruction* instruction);
  // Removes every control predecessor p with doomed(p) from the lists that
  // name it (and lists left empty).
  template <typename Doomed>
  void DropControlEdgesFrom(Doomed doomed);
  void SetRootUnchecked(HloInstruction* root) { root_ = root; }
  HloInstruction* last_instruction() const;

  HloModule* parent_;
  absl::string_view name_;
  absl::string_view execution_thread_;
  HloInstruction* root_ = nullptr;
  // In creation order; removed instructions leave null slots until the next
  // compaction. The module's arena owns the memory.
  std::vector<HloInstruction*> instructions_;
  // opcodes_[k] is instructions_[k]'s opcode (a hole keeps the opcode of
  // the instruction it held). Kept in step by CreateInstruction, Unlink and
  // SwapListPositions, the only code that changes the list.
  std::vector<HloOpcode> opcodes_;
  // traits_[k] is instructions_[k]'s InstructionInternals::kListedTraits flags,
  // kept like opcodes_ and by HloInstruction::SetFlags.
  std::vector<uint8_t> traits_;
  std::vector<HloInstruction*> InstructionsWithTraits(uint8_t traits) const;
  // The post-order walk; `take(slot)` says whether the instruction in that
  // slot of the list goes into the result.
  template <typename Take>
  std::vector<HloInstruction*> PostOrderOf(Take take, size_t reserve) const;
  int64_t count_ = 0;
  std::vector<HloInstruction*> parameters_;
};

}  // namespace hopt

#endif  // HOPT_IR_COMPUTATION_H_

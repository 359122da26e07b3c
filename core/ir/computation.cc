// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/computation.h"

#include <algorithm>
#include <bitset>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/ir/instruction_internal.h"
#include "core/ir/module_internal.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/module.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

// Calls visit(k) for every k whose column byte `matches`, in order. The
// column holds a byte per instruction and nearly every byte misses, so it is
// read in blocks: `block_matches` folds a block into one test the compiler
// turns into vector compares (a byte at a time took several times longer on
// the millions of instructions of a training step).
template <typename BlockMatches, typename Matches, typename Visit>
void ForEachMatchingByte(const uint8_t* column, size_t size, BlockMatches block_matches,
                         Matches matches, Visit visit) {
  constexpr size_t kBlock = 64;
  size_t k = 0;
  for (; k + kBlock <= size; k += kBlock) {
    if (!block_matches(column + k, kBlock)) continue;
    for (size_t j = k; j < k + kBlock; ++j)
      if (matches(column[j])) visit(j);
  }
  for (; k < size; ++k)
    if (matches(column[k])) visit(k);
}

// Calls visit(k) for every live slot k whose opcode is among `opcodes`.
template <typename Visit>
void ForEachSlotWithOpcode(const std::vector<HloOpcode>& opcode_column,
                           const std::vector<HloInstruction*>& instructions,
                           absl::Span<const HloOpcode> opcodes, Visit visit) {
  std::bitset<256> wanted;
  for (HloOpcode opcode : opcodes) wanted.set(static_cast<uint8_t>(opcode));
  auto matches = [&wanted](uint8_t byte) { return wanted.test(byte); };
  auto visit_live = [&](size_t k) {
    if (instructions[k] != nullptr) visit(k);
  };
  static_assert(sizeof(HloOpcode) == 1);
  const auto* column = reinterpret_cast<const uint8_t*>(opcode_column.data());
  constexpr size_t kCompared = 4;
  if (opcodes.empty() || opcodes.size() > kCompared) {
    ForEachMatchingByte(
        column, opcode_column.size(), [](const uint8_t*, size_t) { return true; }, matches,
        visit_live);
    return;
  }
  uint8_t compared[kCompared];
  for (size_t i = 0; i < kCompared; ++i)
    compared[i] = static_cast<uint8_t>(opcodes[std::min(i, opcodes.size() - 1)]);
  auto block_matches = [&compared](const uint8_t* block, size_t size) {
    uint8_t hit = 0;
    for (size_t j = 0; j < size; ++j) {
      uint8_t byte = block[j];
      hit |= (byte == compared[0]) | (byte == compared[1]) | (byte == compared[2]) |
             (byte == compared[3]);
    }
    return hit != 0;
  };
  ForEachMatchingByte(column, opcode_column.size(), block_matches, matches, visit_live);
}

}  // namespace

HloComputation::HloComputation(HloModule* parent, absl::string_view name)
    : parent_(parent), name_(name) {
  parent_->ReserveName(name_);
}

HloComputation::~HloComputation() {
  for (HloInstruction* instruction : instructions_)
    if (instruction != nullptr) ModuleInternals::DestroyInstruction(*parent_, instruction);
}

void HloComputation::SetName(absl::string_view name) {
  name_ = ModuleInternals::Storage(*parent_).arena.Save(name);
  parent_->ReserveName(name_);
}

bool HloComputation::IsEntryComputation() const { return parent_->entry_computation() == this; }

void HloComputation::set_execution_thread(absl::string_view thread) {
  execution_thread_ = ModuleInternals::Storage(*parent_).arena.Intern(thread);
}

absl::Status HloComputation::set_root_instruction(HloInstruction* root,
                                                  bool accept_different_shape) {
  if (root->parent() != this)
    return absl::InvalidArgumentError(absl::StrCat("cannot make ", root->name(), " the root of ",
                                                   name(), ": it belongs to another computation"));
  if (!accept_different_shape && root_ != nullptr && !root_->shape().Compatible(root->shape()))
    return absl::InvalidArgumentError(
        absl::StrCat("cannot make ", root->name(), " (", root->shape().ToString(), ") the root of ",
                     name(), ": the old root has shape ", root_->shape().ToString()));
  root_ = root;
  return absl::OkStatus();
}

HloInstruction* HloComputation::last_instruction() const {
  for (auto it = instructions_.rbegin(); it != instructions_.rend(); ++it)
    if (*it != nullptr) return *it;
  return nullptr;
}

void HloComputation::Unlink(HloInstruction* instruction) {
  instructions_[instruction->position_] = nullptr;
  --count_;
  // Compact once most slots are holes, keeping the order.
  if (count_ * 2 < static_cast<int64_t>(instructions_.size()) && instructions_.size() > 64) {
    size_t out = 0;
    for (HloInstruction* live : instructions_) {
      if (live == nullptr) continue;
      live->position_ = static_cast<int32_t>(out);
      opcodes_[out] = live->opcode();
      traits_[out] = live->flags_ & InstructionInternals::kListedTraits;
      instructions_[out++] = live;
    }
    instructions_.resize(out);
    opcodes_.resize(out);
    traits_.resize(out);
  }
}

HloInstruction* HloComputation::CreateInstruction(HloOpcode opcode, const Shape* shape,
                                                  absl::string_view name, bool name_recorded) {
  HloInstruction* instruction = ModuleInternals::NewInstruction(*parent_, opcode, shape);
  instruction->parent_ = this;
  instruction->set_name_view(name);
  if (!name_recorded) parent_->ReserveName(name);
  instruction->unique_id_ = static_cast<int32_t>(parent_->NewUniqueId());
  instruction->position_ = static_cast<int32_t>(instructions_.size());
  instructions_.push_back(instruction);
  opcodes_.push_back(opcode);
  traits_.push_back(instruction->flags_ & InstructionInternals::kListedTraits);
  ++count_;
  return instruction;
}

std::vector<HloInstruction*> HloComputation::InstructionsWithOpcode(
    std::initializer_list<HloOpcode> opcodes) const {
  std::vector<HloInstruction*> found;
  ForEachSlotWithOpcode(opcodes_, instructions_, {opcodes.begin(), opcodes.size()},
                        [&](size_t k) { found.push_back(instructions_[k]); });
  return found;
}

std::vector<HloInstruction*> HloComputation::InstructionsWithTraits(uint8_t traits) const {
  std::vector<HloInstruction*> found;
  auto block_matches = [traits](const uint8_t* block, size_t size) {
    uint8_t any = 0;
    for (size_t j = 0; j < size; ++j) any |= block[j];
    return (any & traits) != 0;
  };
  ForEachMatchingByte(
      traits_.data(), traits_.size(), block_matches,
      [traits](uint8_t byte) { return (byte & traits) != 0; },
      [&](size_t k) {
        if (instructions_[k] != nullptr) found.push_back(instructions_[k]);
      });
  return found;
}

std::vector<HloInstruction*> HloComputation::InstructionsCallingComputations() const {
  return InstructionsWithTraits(InstructionInternals::kMayCallComputations);
}

std::vector<HloInstruction*> HloComputation::InstructionsWithControlPredecessors() const {
  return InstructionsWithTraits(HloInstruction::kMayHaveControlPredecessors);
}

std::vector<HloInstruction*> HloComputation::InstructionsWithChannelId() const {
  return InstructionsWithTraits(InstructionInternals::kMayHaveChannelId);
}

HloInstruction* HloComputation::AddInstruction(HloOpcode opcode, const Shape& shape,
                                               absl::Span<HloInstruction* const> operands,
                                               absl::string_view name) {
  absl::string_view unique = parent_->UniqueName(name.empty() ? HloOpcodeString(opcode) : name);
  HloInstruction* instruction =
      CreateInstruction(opcode, ModuleInternals::InternShape(*parent_, shape), unique,
                        /*name_recorded=*/true);
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  if (const std::string* metadata = InheritedMetadata())
    instruction->SetAttributeText("metadata", *metadata);
  if (root_ == nullptr) root_ = instruction;
  return instruction;
}

HloInstruction* HloComputation::AddInstructionInPlaceOf(
    HloInstruction* old, HloOpcode opcode, const Shape& shape,
    absl::Span<HloInstruction* const> operands) {
  // The old instruction's name is recorded already.
  HloInstruction* instruction =
      CreateInstruction(opcode, ModuleInternals::InternShape(*parent_, shape), old->name(),
                        /*name_recorded=*/true);
  for (HloInstruction* operand : operands) instruction->AppendOperand(operand);
  if (const std::string* metadata = InheritedMetadata())
    instruction->SetAttributeText("metadata", *metadata);
  SwapListPositions(old, instruction);
  return instruction;
}

HloInstruction* HloComputation::AddParameter(const Shape& shape, absl::string_view name,
                                             int64_t number) {
  HloInstruction* parameter = AddInstruction(HloOpcode::kParameter, shape, {}, name);
  if (number < 0) number = num_parameters();
  parameter->set_parameter_number(number);
  if (static_cast<int64_t>(parameters_.size()) <= number) parameters_.resize(number + 1, nullptr);
  parameters_[number] = parameter;
  return parameter;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (instruction->parent() != this)
    return absl::InvalidArgumentError(
        absl::StrCat(instruction->name(), " is not in computation ", name()));
  if (instruction->user_count() != 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove ", instruction->name(), ": it still has ", instruction->user_count(),
        " user(s), e.g. ", instruction->users()[0]->name()));
  if (instruction == root_)
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), ": it is the root of ", name()));
  if (instruction->opcode() == HloOpcode::kParameter) {
    int64_t n = instruction->parameter_number();
    if (n < num_parameters() && parameters_[n] == instruction)
      return absl::FailedPreconditionError(
          absl::StrCat("cannot remove parameter ", instruction->name(),
                       " with RemoveInstruction; use RemoveParameter"));
  }
  // Drop control edges that name the removed instruction (only an
  // instruction flagged as a control predecessor can be named).
  if (instruction->flags_ & HloInstruction::kControlSuccessors)
    DropControlEdgesFrom([instruction](const HloInstruction* p) { return p == instruction; });
  instruction->DropAllOperands();
  Unlink(instruction);
  ModuleInternals::DestroyInstruction(*parent_, instruction);
  return absl::OkStatus();
}

template <typename Doomed>
void HloComputation::DropControlEdgesFrom(Doomed doomed) {
  for (HloInstruction* other : InstructionsWithControlPredecessors()) {
    if (!other->attributes_) continue;
    std::vector<HloAttribute>& attributes = *other->attributes_;
    for (HloAttribute& attr : attributes) {
      auto& preds = attr.instructions;
      preds.erase(std::remove_if(preds.begin(), preds.end(), doomed), preds.end());
    }
    attributes.erase(std::remove_if(attributes.begin(), attributes.end(),
                                    [](const HloAttribute& a) {
                                      return a.kind == HloAttribute::Kind::kInstructionList &&
                                             a.instructions.empty();
                                    }),
                     attributes.end());
  }
}

void HloComputation::SwapListPositions(HloInstruction* a, HloInstruction* b) {
  if (a == b || a->parent() != this || b->parent() != this) return;
  std::swap(instructions_[a->position_], instructions_[b->position_]);
  std::swap(opcodes_[a->position_], opcodes_[b->position_]);
  std::swap(traits_[a->position_], traits_[b->position_]);
  std::swap(a->position_, b->position_);
}

namespace {

// The relay for any way of finding an instruction's replacement:
// `replacement_of(i)` is what replaces i, or i itself.
template <typename ReplacementOf>
void RelayControlEdges(const HloComputation& computation,
                       absl::Span<const std::pair<HloInstruction*, HloInstruction*>> replacements,
                       ReplacementOf replacement_of) {
  bool any_successors = false;
  for (const auto& [from, to] : replacements) {
    if (from == to) continue;
    std::vector<HloInstruction*> predecessors = from->control_predecessors();
    if (!predecessors.empty()) {
      std::vector<HloInstruction*> merged = to->control_predecessors();
      for (HloInstruction* p : predecessors) {
        HloInstruction* q = replacement_of(p);
        if (q != to && std::find(merged.begin(), merged.end(), q) == merged.end())
          merged.push_back(q);
      }
      to->set_control_predecessors(std::move(merged));
    }
    any_successors |= from->has_control_successors();
  }
  if (!any_successors) return;
  for (HloInstruction* other : computation.InstructionsWithControlPredecessors()) {
    // Only lists of control predecessors matter, and few instructions
    // have one.
    if (!other->has_control_predecessors() || replacement_of(other) != other) continue;
    std::vector<HloInstruction*> relayed;
    bool touched = false;
    for (HloInstruction* p : other->control_predecessors()) {
      HloInstruction* q = replacement_of(p);
      touched |= q != p;
      if (q == other || std::find(relayed.begin(), relayed.end(), q) != relayed.end()) continue;
      relayed.push_back(q);
    }
    if (touched) other->set_control_predecessors(std::move(relayed));
  }
}

}  // namespace

void HloComputation::RelayControlDependencies(HloInstruction* from, HloInstruction* to) {
  if (from == to) return;
  std::pair<HloInstruction*, HloInstruction*> replacement(from, to);
  RelayControlEdges(*this, {&replacement, 1},
                    [&](HloInstruction* i) { return i == from ? to : i; });
}

void HloComputation::RelayControlDependencies(
    absl::Span<const std::pair<HloInstruction*, HloInstruction*>> replacements) {
  // By unique id: neighbours in the graph have nearby ids, so lookups stay
  // in cache where a hash map of millions of pointers would miss.
  size_t bound = 0;
  for (const auto& [from, to] : replacements)
    bound = std::max(bound, static_cast<size_t>(from->unique_id()) + 1);
  std::vector<HloInstruction*> by_id(bound, nullptr);
  for (const auto& [from, to] : replacements) by_id[from->unique_id()] = to;
  RelayControlEdges(*this, replacements, [&](HloInstruction* i) {
    size_t id = static_cast<size_t>(i->unique_id());
    return id < bound && by_id[id] != nullptr ? by_id[id] : i;
  });
}

absl::Status HloComputation::RemoveInstructions(absl::Span<HloInstruction* const> instructions) {
  bool any_successors = false;
  for (HloInstruction* instruction : instructions)
    any_successors |= (instruction->flags_ & HloInstruction::kControlSuccessors) != 0;
  if (any_successors) {
    DenseInstructionSet doomed;
    for (HloInstruction* instruction : instructions) doomed.insert(instruction);
    DropControlEdgesFrom([&doomed](const HloInstruction* p) { return doomed.contains(p); });
    for (HloInstruction* instruction : instructions)
      instruction->flags_ &= ~HloInstruction::kControlSuccessors;
  }
  for (HloInstruction* instruction : instructions) {
    HOPT_RETURN_IF_ERROR(RemoveInstruction(instruction));
  }
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  absl::flat_hash_set<HloInstruction*> removed;
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (removed.contains(current) || current->user_count() != 0 || current == root_ ||
        current->opcode() == HloOpcode::kParameter)
      continue;
    std::vector<HloInstruction*> operands(current->operands().begin(), current->operands().end());
    auto status = RemoveInstruction(current);
    if (!status.ok()) {
      if (current == instruction) return status;
      continue;
    }
    removed.insert(current);
    for (HloInstruction* operand : operands) worklist.push_back(operand);
  }
  if (!removed.contains(instruction))
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove ", instruction->name(), ": it is a used, root or parameter instruction"));
  return absl::OkStatus();
}

absl::Status HloComputation::ReplaceInstruction(HloInstruction* old_instruction,
                                                HloInstruction* new_instruction) {
  if (!old_instruction->shape().Compatible(new_instruction->shape()))
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace ", old_instruction->name(), " (", old_instruction->shape().ToString(),
        ") with ", new_instruction->name(), " (", new_instruction->shape().ToString(), ")"));
  return ReplaceInstructionWithDifferentShape(old_instruction, new_instruction);
}

absl::Status HloComputation::ReplaceInstructionWithDifferentShape(HloInstruction* old_instruction,
                                                                  HloInstruction* new_instruction) {
  if (old_instruction == new_instruction) return absl::OkStatus();
  HOPT_RETURN_IF_ERROR(old_instruction->ReplaceAllUsesWithDifferentShape(new_instruction));
  if (old_instruction->user_count() != 0) return absl::OkStatus();
  // As XLA: the replacement inherits the control edges, so that removing
  // the old instruction loses no ordering constraint.
  if (old_instruction->has_control_edges())
    RelayControlDependencies(old_instruction, new_instruction);
  return RemoveInstructionAndUnusedOperands(old_instruction);
}

absl::Status HloComputation::RemoveParameter(int64_t number) {
  if (number < 0 || number >= num_parameters())
    return absl::OutOfRangeError(
        absl::StrCat("computation ", name(), " has no parameter ", number));
  HloInstruction* parameter = parameters_[number];
  if (parameter->user_count() != 0 || parameter == root_)
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove parameter ", parameter->name(), ": it is still used"));
  parameter->DropAllOperands();
  Unlink(parameter);
  ModuleInternals::DestroyInstruction(*parent_, parameter);
  parameters_.erase(parameters_.begin() + number);
  for (int64_t i = number; i < num_parameters(); ++i) parameters_[i]->set_parameter_number(i);
  return absl::OkStatus();
}

HloInstruction* HloComputation::GetInstructionWithName(absl::string_view name) const {
  for (HloInstruction* instruction : instructions())
    if (instruction->name() == name) return instruction;
  return nullptr;
}

template <typename Take>
std::vector<HloInstruction*> HloComputation::PostOrderOf(Take take, size_t reserve) const {
  std::vector<HloInstruction*> order;
  order.reserve(reserve);
  // Walk state by position in the instruction vector, local to this call:
  // const methods stay safe to run from several threads at once.
  enum : uint8_t { kUnvisited = 0, kVisiting, kDone };
  std::vector<uint8_t> state(instructions_.size(), kUnvisited);
  auto mark = [&state](const HloInstruction* i) -> uint8_t& { return state[i->position_]; };
  // Entries are instruction pointers whose low bit says "operands pushed".
  // A chain is as deep as it is long; reserving (untouched pages cost no
  // memory) avoids copying the stack while it grows.
  std::vector<uintptr_t> stack;
  stack.reserve(2 * count_ + 2);
  auto push = [&stack](const HloInstruction* i, bool expanded) {
    stack.push_back(reinterpret_cast<uintptr_t>(i) | (expanded ? 1 : 0));
  };
  int64_t done = 0;
  for (HloInstruction* start : instructions()) {
    if (start->user_count() != 0) continue;
    push(start, false);
    while (!stack.empty()) {
      uintptr_t top = stack.back();
      stack.pop_back();
      HloInstruction* current = reinterpret_cast<HloInstruction*>(top & ~uintptr_t{1});
      if (top & 1) {
        if (mark(current) != kDone) {
          mark(current) = kDone;
          ++done;
          if (take(current->position_)) order.push_back(current);
        }
        continue;
      }
      if (mark(current) != kUnvisited) continue;
      mark(current) = kVisiting;
      push(current, true);
      // As XLA: operands pushed in reverse (the first is visited first),
      // then control predecessors, which are therefore visited before them.
      const auto& operands = current->operands();
      for (auto it = operands.rbegin(); it != operands.rend(); ++it)
        if (mark(*it) == kUnvisited) push(*it, false);
      if (current->attributes_)
        for (HloInstruction* pred : current->control_predecessors())
          if (mark(pred) == kUnvisited) push(pred, false);
    }
  }
  // Cycles leave instructions unvisited; keep them so nothing is lost.
  if (done != count_) {
    for (HloInstruction* instruction : instructions())
      if (mark(instruction) != kDone && take(instruction->position_)) order.push_back(instruction);
  }
  return order;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  return PostOrderOf([](int32_t) { return true; }, count_);
}

std::vector<HloInstruction*> HloComputation::InstructionsWithOpcodeInPostOrder(
    absl::Span<const HloOpcode> opcodes) const {
  size_t found = 0;
  ForEachSlotWithOpcode(opcodes_, instructions_, opcodes, [&found](size_t) { ++found; });
  if (found == 0) return {};
  std::bitset<256> wanted;
  for (HloOpcode opcode : opcodes) wanted.set(static_cast<uint8_t>(opcode));
  return PostOrderOf(
      [&](int32_t slot) { return wanted.test(static_cast<uint8_t>(opcodes_[slot])); }, found);
}

std::vector<HloInstruction*> HloComputation::MakeListTopologicalOrder() const {
  std::vector<HloInstruction*> order;
  order.reserve(count_);
  auto after_dependencies = [](const HloInstruction* instruction) {
    for (const HloInstruction* operand : instruction->operands_)
      if (operand->position_ > instruction->position_) return false;
    if (instruction->has_control_predecessors())
      for (const HloInstruction* predecessor : instruction->control_predecessors())
        if (predecessor->position_ > instruction->position_) return false;
    return true;
  };
  bool topological = true;
  for (HloInstruction* instruction : instructions()) {
    if (!after_dependencies(instruction)) {
      topological = false;
      break;
    }
    order.push_back(instruction);
  }
  if (topological) return order;
  order.clear();
  enum : uint8_t { kNew = 0, kPending, kPlaced };
  std::vector<uint8_t> state(instructions_.size(), kNew);
  // Entries are instruction pointers whose low bit says "dependencies
  // pushed". Pushed in reverse, control predecessors below operands, so
  // that the first operand is placed first.
  std::vector<uintptr_t> stack;
  for (HloInstruction* start : instructions()) {
    if (state[start->position_] != kNew) continue;
    stack.push_back(reinterpret_cast<uintptr_t>(start));
    while (!stack.empty()) {
      uintptr_t top = stack.back();
      stack.pop_back();
      HloInstruction* current = reinterpret_cast<HloInstruction*>(top & ~uintptr_t{1});
      uint8_t& mark = state[current->position_];
      if (top & 1) {
        if (mark != kPlaced) order.push_back(current);
        mark = kPlaced;
        continue;
      }
      if (mark != kNew) continue;
      mark = kPending;
      stack.push_back(top | 1);
      if (current->has_control_predecessors()) {
        std::vector<HloInstruction*> predecessors = current->control_predecessors();
        for (auto it = predecessors.rbegin(); it != predecessors.rend(); ++it)
          if (state[(*it)->position_] == kNew) stack.push_back(reinterpret_cast<uintptr_t>(*it));
      }
      for (auto it = current->operands_.rbegin(); it != current->operands_.rend(); ++it)
        if (state[(*it)->position_] == kNew) stack.push_back(reinterpret_cast<uintptr_t>(*it));
    }
  }
  return order;
}

std::pair<const HloInstruction*, const HloInstruction*> HloComputation::FindDependencyCycle()
    const {
  enum : uint8_t { kNew = 0, kOpen, kDone };
  std::vector<uint8_t> state(instructions_.size(), kNew);
  // (instruction, next dependency to follow): operands, then control
  // predecessors.
  std::vector<std::pair<const HloInstruction*, size_t>> stack;
  auto dependency = [](const HloInstruction* i, size_t k) -> const HloInstruction* {
    if (k < i->operands_.size()) return i->operands_[k];
    k -= i->operands_.size();
    if (!i->has_control_predecessors()) return nullptr;
    const HloAttribute* preds = i->FindAttribute("control-predecessors");
    return preds != nullptr && k < preds->instructions.size() ? preds->instructions[k] : nullptr;
  };
  for (const HloInstruction* start : instructions()) {
    if (state[start->position_] != kNew) continue;
    state[start->position_] = kOpen;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      auto& [at, k] = stack.back();
      const HloInstruction* next = dependency(at, k);
      if (next == nullptr) {
        state[at->position_] = kDone;
        stack.pop_back();
        continue;
      }
      ++k;
      if (state[next->position_] == kOpen) return {at, next};
      if (state[next->position_] == kNew) {
        state[next->position_] = kOpen;
        stack.push_back({next, 0});
      }
    }
  }
  return {nullptr, nullptr};
}

std::vector<HloComputation*> HloComputation::MakeEmbeddedComputationsList() const {
  std::vector<HloComputation*> result;
  absl::flat_hash_set<const HloComputation*> visited;
  // Depth-first over the call graph, callees first.
  std::vector<std::pair<const HloComputation*, bool>> stack = {{this, false}};
  while (!stack.empty()) {
    auto [computation, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      if (computation != this) result.push_back(const_cast<HloComputation*>(computation));
      continue;
    }
    if (!visited.insert(computation).second) continue;
    stack.push_back({computation, true});
    std::vector<HloComputation*> callees;
    // Only order the instructions when some of them call computations.
    bool calls = false;
    for (HloInstruction* instruction : computation->InstructionsCallingComputations())
      for (const HloAttribute& attr : instruction->attributes())
        calls |= !attr.computations.empty();
    if (calls)
      for (HloInstruction* instruction : computation->MakeInstructionPostOrder())
        for (HloComputation* callee : instruction->called_computations()) callees.push_back(callee);
    for (auto it = callees.rbegin(); it != callees.rend(); ++it)
      if (!visited.contains(*it)) stack.push_back({*it, false});
  }
  return result;
}

}  // namespace hopt

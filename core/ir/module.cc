// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/module.h"

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/ir/module_internal.h"

namespace hopt {

HloModule::HloModule(absl::string_view name) : storage_(std::make_unique<ModuleStorage>()) {
  name_ = storage_->arena.Save(name);
}

HloModule::~HloModule() {
  storage_->tearing_down = true;
  storage_->user_indexes.clear();
  storage_->operand_indexes.clear();
  computations_.clear();
}

void HloModule::set_name(absl::string_view name) { name_ = storage_->arena.Save(name); }

void HloModule::set_source_name(absl::string_view name) {
  source_name_ = storage_->arena.Save(name);
}

void HloModule::IndexNamesFromTheStart() {
  if (computations_.empty()) storage_->name_index_built = true;
}

HloInstruction* HloModule::NewInstruction(HloOpcode opcode, const Shape* shape) {
  ModuleStorage& s = *storage_;
  void* memory;
  if (s.free_instructions != nullptr) {
    ModuleStorage::FreeSlot* slot = s.free_instructions;
    UnpoisonBulk(slot, sizeof(HloInstruction));
    s.free_instructions = slot->next;
    memory = slot;
  } else {
    if (s.instruction_blocks.empty() || s.block_used == s.block_capacity) {
      size_t bytes = s.instruction_blocks.empty()
                         ? 256 * sizeof(HloInstruction)
                         : std::min(s.instruction_blocks.back()->size * 2, 8 * kLargeBlockSize);
      s.instruction_blocks.push_back(std::make_unique<BulkBlock>(AllocateBulk(bytes), bytes));
      s.block_used = 0;
      s.block_capacity = bytes / sizeof(HloInstruction);
    }
    memory = static_cast<unsigned char*>(s.instruction_blocks.back()->data) +
             s.block_used++ * sizeof(HloInstruction);
  }
  return new (memory) HloInstruction(opcode, shape);
}

void HloModule::DestroyInstruction(HloInstruction* instruction) {
  instruction->~HloInstruction();
  ModuleStorage& s = *storage_;
  if (s.tearing_down) return;
  static_assert(sizeof(ModuleStorage::FreeSlot) <= sizeof(HloInstruction));
  s.free_instructions = new (instruction) ModuleStorage::FreeSlot{s.free_instructions};
  PoisonBulk(instruction, sizeof(HloInstruction));
}

HloComputation* HloModule::AddComputation(absl::string_view name, bool is_entry) {
  absl::string_view unique = UniqueName(name.empty() ? "computation" : name);
  computations_.emplace_back(new HloComputation(this, unique));
  HloComputation* computation = computations_.back().get();
  if (is_entry) entry_ = computation;
  return computation;
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> result;
  result.reserve(computations_.size());
  for (const auto& c : computations_) result.push_back(c.get());
  return result;
}

HloComputation* HloModule::GetComputationWithName(absl::string_view name) const {
  for (const auto& c : computations_)
    if (c->name() == name) return c.get();
  return nullptr;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  absl::flat_hash_set<const HloComputation*> called;
  for (const auto& c : computations_)
    for (HloInstruction* instruction : c->InstructionsCallingComputations())
      for (const HloAttribute& attr : instruction->attributes())
        for (HloComputation* callee : attr.computations) called.insert(callee);
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> added;
  for (const auto& c : computations_) {
    if (called.contains(c.get())) continue;
    for (HloComputation* embedded : c->MakeEmbeddedComputationsList())
      if (added.insert(embedded).second) order.push_back(embedded);
    if (added.insert(c.get()).second) order.push_back(c.get());
  }
  // Computations only reachable through a cycle of calls.
  for (const auto& c : computations_)
    if (added.insert(c.get()).second) order.push_back(c.get());
  return order;
}

std::pair<const HloComputation*, const HloComputation*> HloModule::FindCallCycle() const {
  auto callees = [](const HloComputation* c) {
    std::vector<const HloComputation*> out;
    for (const HloInstruction* i : c->InstructionsCallingComputations())
      for (const HloComputation* callee : i->called_computations()) out.push_back(callee);
    return out;
  };
  enum : uint8_t { kUnseen, kOnPath, kDone };
  absl::flat_hash_map<const HloComputation*, uint8_t> state;
  // The path from a root, each computation with the callees left to visit.
  std::vector<std::pair<const HloComputation*, std::vector<const HloComputation*>>> path;
  for (const auto& root : computations_) {
    if (state[root.get()] != kUnseen) continue;
    state[root.get()] = kOnPath;
    path.emplace_back(root.get(), callees(root.get()));
    while (!path.empty()) {
      auto& [at, pending] = path.back();
      if (pending.empty()) {
        state[at] = kDone;
        path.pop_back();
        continue;
      }
      const HloComputation* next = pending.back();
      pending.pop_back();
      uint8_t& s = state[next];
      if (s == kOnPath) return {next, at};
      if (s == kUnseen) {
        s = kOnPath;
        path.emplace_back(next, callees(next));
      }
    }
  }
  return {nullptr, nullptr};
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  if (computation == entry_)
    return absl::FailedPreconditionError("cannot remove the entry computation");
  for (const auto& c : computations_) {
    if (c.get() == computation) continue;
    for (HloInstruction* instruction : c->InstructionsCallingComputations())
      for (HloComputation* callee : instruction->called_computations())
        if (callee == computation)
          return absl::FailedPreconditionError(
              absl::StrCat("cannot remove computation ", computation->name(), ": ",
                           instruction->name(), " in ", c->name(), " calls it"));
  }
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == computation; });
  if (it == computations_.end())
    return absl::NotFoundError(
        absl::StrCat("computation ", computation->name(), " is not in module ", name()));
  computations_.erase(it);
  return absl::OkStatus();
}

int64_t HloModule::RemoveUnreachableComputations() {
  if (entry_ == nullptr) return 0;
  std::vector<HloComputation*> reachable = entry_->MakeEmbeddedComputationsList();
  absl::flat_hash_set<const HloComputation*> keep(reachable.begin(), reachable.end());
  keep.insert(entry_);
  size_t before = computations_.size();
  computations_.erase(std::remove_if(computations_.begin(), computations_.end(),
                                     [&](const auto& c) { return !keep.contains(c.get()); }),
                      computations_.end());
  return static_cast<int64_t>(before - computations_.size());
}

ProgramLayout HloModule::ComputeEntryLayout() const {
  ProgramLayout layout;
  if (entry_ == nullptr) return layout;
  for (HloInstruction* p : entry_->parameter_instructions())
    if (p != nullptr) layout.parameters.push_back(p->shape());
  if (entry_->root_instruction() != nullptr) layout.result = entry_->root_instruction()->shape();
  return layout;
}

void HloModule::SetHeaderAttribute(absl::string_view name, absl::string_view value) {
  for (auto& [n, v] : header_attributes_) {
    if (n == name) {
      v = storage_->arena.Save(value);
      return;
    }
  }
  header_attributes_.emplace_back(storage_->arena.Save(name), storage_->arena.Save(value));
}

std::optional<absl::string_view> HloModule::GetHeaderAttribute(absl::string_view name) const {
  for (const auto& [n, v] : header_attributes_)
    if (n == name) return v;
  return std::nullopt;
}

const Shape* HloModule::InternShape(const Shape& shape) {
  std::string key = shape.ToString(/*print_layout=*/true);
  if (shape.IsArray() && !shape.has_layout()) key.push_back('!');
  auto it = storage_->shapes.find(key);
  if (it != storage_->shapes.end()) return it->second.get();
  auto owned = std::make_unique<Shape>(shape);
  const Shape* result = owned.get();
  storage_->shapes.emplace(std::move(key), std::move(owned));
  return result;
}

void HloModule::EnsureNameIndex() {
  if (storage_->name_index_built) return;
  storage_->name_index_built = true;
  size_t total = computations_.size();
  for (const auto& c : computations_) total += static_cast<size_t>(c->instruction_count());
  storage_->names.Reserve(total);
  for (const auto& c : computations_) {
    storage_->names.Insert(c->name());
    for (HloInstruction* instruction : c->instructions())
      storage_->names.Insert(instruction->name());
  }
}

void HloModule::ReserveName(absl::string_view name) {
  if (storage_->name_index_built) storage_->names.Insert(name);
}

absl::string_view HloModule::UniqueName(absl::string_view prefix) {
  EnsureNameIndex();
  if (storage_->names.Insert(prefix)) return storage_->arena.Save(prefix);
  storage_->name_scratch.assign(prefix.data(), prefix.size());
  storage_->name_scratch.push_back('.');
  int64_t number = storage_->names.TakeNextNumber(storage_->name_scratch);
  absl::StrAppend(&storage_->name_scratch, number);
  return storage_->arena.Save(storage_->name_scratch);
}

int64_t HloModule::NextChannelId() const {
  int64_t next = 1;
  for (const auto& c : computations_)
    for (HloInstruction* instruction : c->InstructionsWithChannelId())
      if (auto id = instruction->channel_id()) next = std::max(next, *id + 1);
  return next;
}

HloModule::SourceLocation HloModule::LocationOf(const HloInstruction& instruction) const {
  int64_t id = instruction.unique_id();
  if (id < 0 || static_cast<size_t>(id) >= location_lines_.size()) return {};
  return {location_lines_[static_cast<size_t>(id)], location_columns_[static_cast<size_t>(id)]};
}

void HloModule::SetLocation(const HloInstruction& instruction, SourceLocation location) {
  int64_t id = instruction.unique_id();
  if (id < 0) return;
  size_t at = static_cast<size_t>(id);
  uint8_t column = location.column <= 255 ? static_cast<uint8_t>(location.column) : 0;
  // The parser records instructions as it makes them, in id order: an
  // append, the cheap path for every instruction of a large input.
  if (at == location_lines_.size()) {
    location_lines_.push_back(location.line);
    location_columns_.push_back(column);
    return;
  }
  if (at > location_lines_.size()) {
    location_lines_.resize(at + 1);
    location_columns_.resize(at + 1);
  }
  location_lines_[at] = location.line;
  location_columns_[at] = column;
}

void HloModule::ReserveLocations(size_t more) {
  size_t wanted = static_cast<size_t>(next_unique_id_) + more;
  size_t capacity = location_lines_.capacity();
  if (wanted <= capacity) return;
  // Many small computations each ask for a little more: grow by half at
  // least, or every body would copy the arrays again.
  wanted = std::max(wanted, capacity + capacity / 2);
  location_lines_.reserve(wanted);
  location_columns_.reserve(wanted);
}

const StackFrameIndex& HloModule::stack_frames() const {
  static const StackFrameIndex* const kNone = new StackFrameIndex();
  return stack_frames_ != nullptr ? *stack_frames_ : *kNone;
}

void HloModule::set_stack_frames(StackFrameIndex index) {
  if (index.file_names.empty() && index.function_names.empty() && index.file_locations.empty() &&
      index.frames.empty())
    stack_frames_.reset();
  else
    stack_frames_ = std::make_shared<const StackFrameIndex>(std::move(index));
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto clone = std::make_unique<HloModule>(name_);
  clone->replica_count_ = replica_count_;
  clone->num_partitions_ = num_partitions_;
  clone->is_scheduled_ = is_scheduled_;
  clone->entry_layout_ = entry_layout_;
  for (const auto& [n, v] : header_attributes_) clone->SetHeaderAttribute(n, v);
  clone->stack_frames_ = stack_frames_;

  absl::flat_hash_map<const HloComputation*, HloComputation*> computation_map;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> instruction_map;
  // Names are copied as they are, so no uniquing is needed.
  for (const auto& c : computations_) {
    clone->computations_.emplace_back(
        new HloComputation(clone.get(), clone->storage_->arena.Save(c->name())));
    HloComputation* copy = clone->computations_.back().get();
    if (!c->execution_thread().empty()) copy->set_execution_thread(c->execution_thread());
    computation_map[c.get()] = copy;
    if (c.get() == entry_) clone->entry_ = copy;
  }
  for (const auto& c : computations_) {
    HloComputation* copy = computation_map[c.get()];
    for (HloInstruction* instruction : c->instructions()) {
      HloInstruction* new_instruction = copy->CreateInstruction(
          instruction->opcode(), ModuleInternals::InternShape(*clone, instruction->shape()),
          clone->storage_->arena.Save(instruction->name()));
      instruction_map[instruction] = new_instruction;
      if (instruction->opcode() == HloOpcode::kParameter)
        new_instruction->set_parameter_number(instruction->parameter_number());
      if (instruction->opcode() == HloOpcode::kConstant)
        new_instruction->StoreLiteral(instruction->literal_text());
      new_instruction->set_async_wrapped_opcode(instruction->async_wrapped_opcode());
    }
    copy->parameters_.resize(c->parameters_.size(), nullptr);
    for (size_t i = 0; i < c->parameters_.size(); ++i)
      if (c->parameters_[i]) copy->parameters_[i] = instruction_map[c->parameters_[i]];
    if (c->root_instruction()) copy->root_ = instruction_map[c->root_instruction()];
  }
  for (const auto& c : computations_) {
    for (HloInstruction* instruction : c->instructions()) {
      HloInstruction* new_instruction = instruction_map[instruction];
      for (HloInstruction* operand : instruction->operands())
        new_instruction->AppendOperand(instruction_map[operand]);
      for (const HloAttribute& attr : instruction->attributes()) {
        HloAttribute copy;
        copy.name = clone->storage_->arena.Intern(attr.name);
        copy.value = clone->storage_->arena.InternValue(attr.value);
        copy.kind = attr.kind;
        for (HloComputation* callee : attr.computations)
          copy.computations.push_back(computation_map[callee]);
        for (HloInstruction* pred : attr.instructions)
          copy.instructions.push_back(instruction_map[pred]);
        new_instruction->AddAttribute(std::move(copy));
      }
    }
  }
  clone->next_unique_id_ = next_unique_id_;
  return clone;
}

}  // namespace hopt

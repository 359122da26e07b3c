// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/instruction.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/ir/instruction_internal.h"
#include "core/ir/module_internal.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"

namespace hopt {

// Hints to the memory, kept out of the public header: they depend on where
// HloInstruction's fields lie.
struct InstructionInternals::Prefetch {
  // This instruction's operands will be rewritten soon: fetches its header
  // (opcode, flags, id) and its operand list. The two lie on different
  // cache lines for most instructions, and a rewrite checks the flags
  // first: fetching only the list leaves the header as a miss on the
  // rewrite's path (and fetching the whole object costs a line that is not
  // needed).
  static void ForOperandRewrite(const HloInstruction* i) {
    __builtin_prefetch(i, /*rw=*/1);
    __builtin_prefetch(reinterpret_cast<const char*>(&i->operands_ + 1) - 1, /*rw=*/1);
  }
  // opcode() and attributes() will be read soon, in three steps (see
  // ForEachFetchingAttributesAhead): the instruction's header and its
  // pointer to the list (on different cache lines for most instructions),
  // then the list object (needs the pointer), then its elements (needs the
  // list).
  static void HeaderAndAttributes(const HloInstruction* i) {
    __builtin_prefetch(i);
    __builtin_prefetch(&i->attributes_);
  }
  static void AttributeList(const HloInstruction* i) {
    if (i->attributes_) __builtin_prefetch(i->attributes_.get());
  }
  static void AttributeElements(const HloInstruction* i) {
    if (i->attributes_) __builtin_prefetch(i->attributes_->data());
  }
};

void ForEachFetchingAttributesAhead(absl::Span<HloInstruction* const> instructions,
                                    absl::FunctionRef<void(HloInstruction*)> visit) {
  constexpr size_t kAhead = 8;
  const size_t size = instructions.size();
  for (size_t k = 0; k < size; ++k) {
    if (k + 3 * kAhead < size)
      InstructionInternals::Prefetch::HeaderAndAttributes(instructions[k + 3 * kAhead]);
    if (k + 2 * kAhead < size)
      InstructionInternals::Prefetch::AttributeList(instructions[k + 2 * kAhead]);
    if (k + kAhead < size)
      InstructionInternals::Prefetch::AttributeElements(instructions[k + kAhead]);
    visit(instructions[k]);
  }
}

namespace {

static_assert(sizeof(HloAttribute) <= 56, "attributes are most of an instruction's memory");

const std::vector<HloAttribute>& EmptyAttributes() {
  static const auto* const kEmpty = new std::vector<HloAttribute>();
  return *kEmpty;
}

// Where XLA prints an attribute relative to the others; used only to place
// attributes that passes add (parsed ones keep their written order).
int AttributeRank(HloOpcode opcode, absl::string_view name) {
  if (name == "custom_call_target" || name == "kind") return 0;
  if (name == "channel_id") return 10;
  if (name == "replica_groups" || name == "source_target_pairs") return 20;
  if (name == "constrain_layout") return 30;
  // All-gather and all-to-all print their dimensions before
  // use_global_device_ids; reduce-scatter and the rest after.
  bool gather_like = opcode == HloOpcode::kAllGather || opcode == HloOpcode::kAllGatherStart ||
                     opcode == HloOpcode::kAllToAll;
  if (name == "dimensions") return gather_like ? 35 : 50;
  if (name == "use_global_device_ids") return 40;
  if (IsComputationReferenceAttribute(name)) return 200;
  if (name == "sharding") return 300;
  if (name == "frontend_attributes") return 310;
  if (name == "control-predecessors") return 320;
  if (name == "metadata") return 400;
  if (name == "backend_config") return 410;
  return 100;
}

}  // namespace

int AttributePrintRank(HloOpcode opcode, absl::string_view name) {
  return AttributeRank(opcode, name);
}

bool IsComputationReferenceAttribute(absl::string_view name) {
  return name == "to_apply" || name == "calls" || name == "condition" || name == "body" ||
         name == "select" || name == "scatter" || name == "true_computation" ||
         name == "false_computation" || name == "branch_computations" ||
         name == "called_computations" || name == "comparator";
}

HloInstruction::HloInstruction(HloOpcode opcode, const Shape* shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() {
  if (GetModule() == nullptr) return;
  ModuleStorage& storage = ModuleInternals::Storage(*GetModule());
  if (flags_ & InstructionInternals::kIndexedUsers) storage.user_indexes.erase(this);
  if (flags_ & InstructionInternals::kIndexedOperands) storage.operand_indexes.erase(this);
  if (flags_ & InstructionInternals::kCountedUserRemovals) storage.user_removals.erase(this);
}

HloModule* HloInstruction::GetModule() const { return parent_ ? parent_->parent() : nullptr; }

absl::string_view HloInstruction::Save(absl::string_view text) const {
  return ModuleInternals::Storage(*GetModule()).arena.Save(text);
}

void HloInstruction::SetName(absl::string_view name) {
  set_name_view(Save(name));
  GetModule()->ReserveName(this->name());
}

void HloInstruction::StoreLiteral(absl::string_view text) {
  std::string prefixed(sizeof(uint32_t), '\0');
  uint32_t size = static_cast<uint32_t>(text.size());
  std::memcpy(prefixed.data(), &size, sizeof(size));
  prefixed.append(text.data(), text.size());
  payload_.literal = ModuleInternals::Storage(*GetModule()).arena.Save(prefixed).data();
}

absl::string_view HloInstruction::literal_text() const {
  if (opcode_ != HloOpcode::kConstant || payload_.literal == nullptr) return absl::string_view();
  uint32_t size;
  std::memcpy(&size, payload_.literal, sizeof(size));
  return absl::string_view(payload_.literal + sizeof(size), size);
}

void HloInstruction::set_shape(const Shape& shape) {
  shape_ = ModuleInternals::InternShape(*GetModule(), shape);
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

bool HloInstruction::HasUser(const HloInstruction* user) const {
  if (flags_ & InstructionInternals::kIndexedUsers)
    return ModuleInternals::Storage(*GetModule()).UserIndex(this)->contains(user);
  return std::find(users_.begin(), users_.end(), user) != users_.end();
}

void HloInstruction::PushUser(HloInstruction* user) {
  users_.push_back(user);
  if (flags_ & InstructionInternals::kIndexedUsers)
    ModuleInternals::Storage(*GetModule())
        .UserIndex(this)
        ->emplace(user, static_cast<int64_t>(users_.size()) - 1);
}

void HloInstruction::SetUsers(InstructionVector users) {
  users_ = std::move(users);
  if (flags_ & InstructionInternals::kIndexedUsers) {
    ModuleInternals::Storage(*GetModule()).user_indexes.erase(this);
    flags_ &= ~InstructionInternals::kIndexedUsers;
  }
}

// The module's index of where a wide instruction's operands stand
// (OperandPositions, core/ir/module_internal.h): built on first use for
// instructions with more than kIndexOperandsAbove operands, kept in step by
// SetOperandSlot, and read through these.
struct InstructionInternals::OperandIndexing {
  // The index when there is or should be one, else null.
  static OperandPositions* Of(HloInstruction& user) {
    if (user.flags_ & InstructionInternals::kIndexedOperands)
      return ModuleInternals::Storage(*user.GetModule()).OperandIndex(&user);
    if (user.operands_.size() <= kIndexOperandsAbove || user.GetModule() == nullptr) return nullptr;
    OperandPositions* index = ModuleInternals::Storage(*user.GetModule()).OperandIndex(&user);
    index->clear();
    for (size_t k = 0; k < user.operands_.size(); ++k)
      if (user.operands_[k] != nullptr)
        (*index)[user.operands_[k]].push_back(static_cast<int32_t>(k));
    user.flags_ |= InstructionInternals::kIndexedOperands;
    return index;
  }

  // Whether `operand` is among the user's operands.
  static bool Has(HloInstruction& user, const HloInstruction* operand) {
    if (OperandPositions* index = Of(user)) return index->contains(operand);
    return std::find(user.operands_.begin(), user.operands_.end(), operand) != user.operands_.end();
  }

  // Positions of `operand` among the user's operands.
  static absl::InlinedVector<int32_t, 1> PositionsOf(HloInstruction& user,
                                                     const HloInstruction* operand) {
    if (OperandPositions* index = Of(user)) {
      auto it = index->find(operand);
      return it == index->end() ? absl::InlinedVector<int32_t, 1>() : it->second;
    }
    absl::InlinedVector<int32_t, 1> positions;
    for (size_t k = 0; k < user.operands_.size(); ++k)
      if (user.operands_[k] == operand) positions.push_back(static_cast<int32_t>(k));
    return positions;
  }
};

void HloInstruction::AddUser(HloInstruction* user, int64_t operand_index) {
  if (OperandPositions* index = InstructionInternals::OperandIndexing::Of(*user)) {
    auto it = index->find(this);
    if (it != index->end())
      for (int32_t at : it->second)
        if (at < operand_index) return;
  } else {
    for (int64_t i = 0; i < operand_index && i < user->operand_count(); ++i)
      if (user->operands_[i] == this) return;
  }
  PushUser(user);
}

void HloInstruction::SetOperandSlot(int64_t i, HloInstruction* operand) {
  HloInstruction* old = operands_[i];
  operands_[i] = operand;
  if (!(flags_ & InstructionInternals::kIndexedOperands)) return;
  OperandPositions* index = ModuleInternals::Storage(*GetModule()).OperandIndex(this);
  if (old != nullptr) {
    auto it = index->find(old);
    if (it != index->end()) {
      auto& positions = it->second;
      auto at = std::find(positions.begin(), positions.end(), static_cast<int32_t>(i));
      if (at != positions.end()) positions.erase(at);
      if (positions.empty()) index->erase(it);
    }
  }
  if (operand != nullptr) (*index)[operand].push_back(static_cast<int32_t>(i));
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  constexpr size_t kIndexAbove = 64;
  // Scans of a wide user list before it is indexed: dismantling a fan-out
  // of U users costs at most this many times U compares before the
  // removals become O(1), and the odd removal never builds a table.
  constexpr uint32_t kScansBeforeIndex = 8;
  HloModule* module = GetModule();
  if (!(flags_ & InstructionInternals::kIndexedUsers) && users_.size() > kIndexAbove &&
      module != nullptr) {
    flags_ |= InstructionInternals::kCountedUserRemovals;
    ModuleStorage& storage = ModuleInternals::Storage(*module);
    if (++storage.user_removals[this] > kScansBeforeIndex) {
      storage.user_removals.erase(this);
      flags_ &= ~InstructionInternals::kCountedUserRemovals;
      auto* index = storage.UserIndex(this);
      for (size_t i = 0; i < users_.size(); ++i) index->emplace(users_[i], static_cast<int64_t>(i));
      flags_ |= InstructionInternals::kIndexedUsers;
    }
  }
  if (flags_ & InstructionInternals::kIndexedUsers) {
    auto* index = ModuleInternals::Storage(*GetModule()).UserIndex(this);
    auto it = index->find(user);
    if (it == index->end()) return;
    int64_t at = it->second;
    index->erase(it);
    // Swap with the last user: O(1), at the price of the users' order.
    if (at != static_cast<int64_t>(users_.size()) - 1) {
      users_[at] = users_.back();
      (*index)[users_[at]] = at;
    }
    users_.pop_back();
    return;
  }
  for (size_t i = users_.size(); i-- > 0;) {
    if (users_[i] == user) {
      users_.erase(users_.begin() + i);
      return;
    }
  }
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(nullptr);
  SetOperandSlot(operand_count() - 1, operand);
  operand->AddUser(this, operand_count() - 1);
}

void HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* new_operand) {
  HloInstruction* old_operand = operands_[i];
  if (old_operand == new_operand) return;
  bool already_user = InstructionInternals::OperandIndexing::Has(*this, new_operand);
  SetOperandSlot(i, new_operand);
  if (!already_user) new_operand->PushUser(this);
  if (!InstructionInternals::OperandIndexing::Has(*this, old_operand))
    old_operand->RemoveUser(this);
}

absl::Status HloInstruction::ReplaceUseWith(HloInstruction* user, HloInstruction* other) {
  if (!HasUser(user))
    return absl::InvalidArgumentError(absl::StrCat(user->name(), " is not a user of ", name()));
  for (int32_t i : InstructionInternals::OperandIndexing::PositionsOf(*user, this))
    user->ReplaceOperandWith(i, other);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* other) {
  if (!shape().Compatible(other->shape()))
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace uses of ", name(), " (", shape().ToString(), ") with ", other->name(), " (",
        other->shape().ToString(), "): the shapes are not compatible"));
  return ReplaceAllUsesWithDifferentShape(other);
}

absl::Status HloInstruction::ReplaceAllUsesWithDifferentShape(HloInstruction* other) {
  if (other == this) return absl::OkStatus();
  // Rewire every user at once: removing users one by one from a value with
  // many users would be quadratic.
  InstructionVector kept;
  other->users_.reserve(other->users_.size() + users_.size());
  // The value's user index, looked up once and grown once for all the users
  // it gains (a marker's value can carry hundreds).
  UserPositions* index = nullptr;
  if (other->flags_ & InstructionInternals::kIndexedUsers) {
    index = ModuleInternals::Storage(*other->GetModule()).UserIndex(other);
    index->reserve(index->size() + users_.size());
  }
  // The users lie anywhere in the module, each a cache miss; they are
  // fetched a few users ahead so that the misses overlap.
  constexpr size_t kPrefetchAhead = 16;
  for (size_t k = 0; k < users_.size(); ++k) {
    if (k + kPrefetchAhead < users_.size())
      InstructionInternals::Prefetch::ForOperandRewrite(users_[k + kPrefetchAhead]);
    HloInstruction* user = users_[k];
    if (user == other) {  // other = f(this): keep that edge
      kept.push_back(user);
      continue;
    }
    bool other_was_operand = false;
    if (OperandPositions* operand_index = InstructionInternals::OperandIndexing::Of(*user)) {
      // A wide user (a big tuple) of many rewritten values: no scans.
      other_was_operand = operand_index->contains(other);
      auto it = operand_index->find(this);
      if (it != operand_index->end()) {
        absl::InlinedVector<int32_t, 1> positions = std::move(it->second);
        operand_index->erase(it);
        for (int32_t at : positions) user->operands_[at] = other;
        auto& moved = (*operand_index)[other];
        moved.insert(moved.end(), positions.begin(), positions.end());
      }
    } else {
      for (HloInstruction* operand : user->operands_) other_was_operand |= operand == other;
      for (HloInstruction*& operand : user->operands_)
        if (operand == this) operand = other;
    }
    if (other_was_operand) continue;
    other->users_.push_back(user);
    if (index != nullptr) index->emplace(user, static_cast<int64_t>(other->users_.size()) - 1);
  }
  SetUsers(std::move(kept));
  if (parent_ != nullptr && parent_->root_instruction() == this) parent_->SetRootUnchecked(other);
  return absl::OkStatus();
}

void HloInstruction::DropAllOperands() {
  for (HloInstruction* operand : operands_) operand->RemoveUser(this);
  operands_.clear();
  if (flags_ & InstructionInternals::kIndexedOperands) {
    ModuleInternals::Storage(*GetModule()).operand_indexes.erase(this);
    flags_ &= ~InstructionInternals::kIndexedOperands;
  }
}

const std::vector<HloAttribute>& HloInstruction::attributes() const {
  return attributes_ ? *attributes_ : EmptyAttributes();
}

std::vector<HloAttribute>& HloInstruction::MutableAttributes() {
  if (!attributes_) attributes_ = std::make_unique<std::vector<HloAttribute>>();
  return *attributes_;
}

// Instructions keep their attributes for life and hold a handful: growing
// one slot at a time (rather than doubling) keeps each list at its size.
// An all-gather's five attributes took eight 88-byte slots before (704
// bytes; now five of 56, 280), the largest part of what a collective
// rewrite adds to memory.
static void MakeRoomForOne(std::vector<HloAttribute>& attrs) {
  if (attrs.size() == attrs.capacity())
    attrs.reserve(attrs.size() < 16 ? attrs.size() + 1 : attrs.size() * 2);
}

const HloAttribute* HloInstruction::FindAttribute(absl::string_view name) const {
  if (!attributes_) return nullptr;
  for (const HloAttribute& attr : *attributes_)
    if (attr.name == name) return &attr;
  return nullptr;
}

std::optional<absl::string_view> HloInstruction::GetAttributeText(absl::string_view name) const {
  const HloAttribute* attr = FindAttribute(name);
  if (attr == nullptr || attr->kind != HloAttribute::Kind::kText) return std::nullopt;
  return attr->value;
}

void HloInstruction::SetFlags(uint8_t flags) {
  flags_ |= flags;
  if (parent_ != nullptr && (flags & InstructionInternals::kListedTraits))
    parent_->traits_[position_] |= flags & InstructionInternals::kListedTraits;
}

void HloInstruction::NoteAttribute(const HloAttribute& attribute) {
  uint8_t flags = 0;
  switch (attribute.kind) {
    case HloAttribute::Kind::kComputation:
    case HloAttribute::Kind::kComputationList:
      flags |= InstructionInternals::kMayCallComputations;
      break;
    case HloAttribute::Kind::kInstructionList:
      flags |= kMayHaveControlPredecessors;
      for (HloInstruction* predecessor : attribute.instructions)
        predecessor->flags_ |= kControlSuccessors;
      break;
    case HloAttribute::Kind::kText:
      if (attribute.name == "channel_id") flags |= InstructionInternals::kMayHaveChannelId;
      break;
  }
  if (flags != 0) SetFlags(flags);
}

static void PlaceAttribute(HloOpcode opcode, std::vector<HloAttribute>& attrs, HloAttribute attr);

void HloInstruction::AddAttribute(HloAttribute attribute) {
  NoteAttribute(attribute);
  std::vector<HloAttribute>& attrs = MutableAttributes();
  // Under a MetadataFrom scope a pass is building, and the metadata given
  // at creation is already there: place the rest in XLA's order around it
  // (the parser appends in written order and is never under a scope).
  if (InheritedMetadata() != nullptr) {
    PlaceAttribute(opcode_, attrs, std::move(attribute));
    return;
  }
  MakeRoomForOne(attrs);
  attrs.push_back(std::move(attribute));
}

static void PlaceAttribute(HloOpcode opcode, std::vector<HloAttribute>& attrs, HloAttribute attr) {
  for (HloAttribute& existing : attrs) {
    if (existing.name == attr.name) {
      existing = std::move(attr);
      return;
    }
  }
  int rank = AttributeRank(opcode, attr.name);
  auto it = std::find_if(attrs.begin(), attrs.end(), [&](const HloAttribute& a) {
    return AttributeRank(opcode, a.name) > rank;
  });
  size_t at = it - attrs.begin();
  MakeRoomForOne(attrs);  // may move the elements
  attrs.insert(attrs.begin() + at, std::move(attr));
}

void HloInstruction::SetAttributeText(absl::string_view name, absl::string_view value) {
  StringArena& arena = ModuleInternals::Storage(*GetModule()).arena;
  PlaceStoredText(arena.Intern(name), arena.InternValue(value));
}

void HloInstruction::PlaceStoredText(absl::string_view name, absl::string_view value) {
  HloAttribute attr;
  attr.name = name;
  attr.value = value;
  NoteAttribute(attr);
  PlaceAttribute(opcode_, MutableAttributes(), std::move(attr));
}

bool HloInstruction::CopyTextAttributeFrom(const HloInstruction& from, absl::string_view name) {
  const HloAttribute* source = from.FindAttribute(name);
  if (source == nullptr || source->kind != HloAttribute::Kind::kText) return false;
  if (from.GetModule() != GetModule())
    SetAttributeText(source->name, source->value);
  else
    PlaceStoredText(source->name, source->value);
  return true;
}

void HloInstruction::SetComputationAttribute(absl::string_view name, HloComputation* computation) {
  HloAttribute attr;
  attr.name = ModuleInternals::Storage(*GetModule()).arena.Intern(name);
  attr.kind = HloAttribute::Kind::kComputation;
  attr.computations = {computation};
  NoteAttribute(attr);
  PlaceAttribute(opcode_, MutableAttributes(), std::move(attr));
}

void HloInstruction::SetComputationListAttribute(absl::string_view name,
                                                 std::vector<HloComputation*> computations) {
  HloAttribute attr;
  attr.name = ModuleInternals::Storage(*GetModule()).arena.Intern(name);
  attr.kind = HloAttribute::Kind::kComputationList;
  attr.computations = std::move(computations);
  NoteAttribute(attr);
  PlaceAttribute(opcode_, MutableAttributes(), std::move(attr));
}

bool HloInstruction::RemoveAttribute(absl::string_view name) {
  if (!attributes_) return false;
  auto it = std::find_if(attributes_->begin(), attributes_->end(),
                         [&](const HloAttribute& a) { return a.name == name; });
  if (it == attributes_->end()) return false;
  attributes_->erase(it);
  return true;
}

void HloInstruction::set_literal_text(absl::string_view text) { StoreLiteral(text); }

absl::StatusOr<Literal> HloInstruction::literal() const {
  if (opcode_ != HloOpcode::kConstant)
    return absl::FailedPreconditionError(absl::StrCat(name(), " is not a constant"));
  return Literal::Parse(shape(), literal_text());
}

std::vector<int64_t> HloInstruction::dimensions() const {
  auto text = GetAttributeText("dimensions");
  if (!text) return {};
  return ParseIntList(*text).value_or(std::vector<int64_t>{});
}

void HloInstruction::set_dimensions(const std::vector<int64_t>& dims) {
  SetAttributeText("dimensions", FormatIntList(dims));
}

std::optional<int64_t> HloInstruction::IntAttribute(absl::string_view name) const {
  auto text = GetAttributeText(name);
  if (!text) return std::nullopt;
  auto value = ParseInt(*text);
  if (!value.ok()) return std::nullopt;
  return *value;
}

std::optional<int64_t> HloInstruction::channel_id() const { return IntAttribute("channel_id"); }

void HloInstruction::set_channel_id(std::optional<int64_t> id) {
  if (!id) {
    RemoveAttribute("channel_id");
    return;
  }
  SetAttributeText("channel_id", absl::StrCat(*id));
}

std::optional<ReplicaGroupList> HloInstruction::replica_groups() const {
  auto text = GetAttributeText("replica_groups");
  if (!text) return std::nullopt;
  auto groups = ParseReplicaGroups(*text);
  if (!groups.ok()) return std::nullopt;
  return *std::move(groups);
}

void HloInstruction::set_replica_groups(const ReplicaGroupList& groups) {
  SetAttributeText("replica_groups", groups.ToString());
}

std::vector<std::pair<int64_t, int64_t>> HloInstruction::source_target_pairs() const {
  auto text = GetAttributeText("source_target_pairs");
  if (!text) return {};
  return ParseSourceTargetPairs(*text).value_or(std::vector<std::pair<int64_t, int64_t>>{});
}

void HloInstruction::set_source_target_pairs(
    const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  SetAttributeText("source_target_pairs", FormatSourceTargetPairs(pairs));
}

bool HloInstruction::constrain_layout() const {
  auto text = GetAttributeText("constrain_layout");
  return text && *text == "true";
}

bool HloInstruction::use_global_device_ids() const {
  auto text = GetAttributeText("use_global_device_ids");
  return text && *text == "true";
}

int64_t HloInstruction::tuple_index() const { return IntAttribute("index").value_or(-1); }

std::string HloInstruction::custom_call_target() const {
  auto text = GetAttributeText("custom_call_target");
  if (!text) return "";
  return ParseQuotedString(*text).value_or(std::string(*text));
}

void HloInstruction::set_custom_call_target(absl::string_view target) {
  SetAttributeText("custom_call_target", QuoteString(target));
}

std::string HloInstruction::backend_config(bool* raw) const {
  auto text = GetAttributeText("backend_config");
  if (raw) *raw = false;
  if (!text) return "";
  if (!text->empty() && (*text)[0] == '"')
    return ParseQuotedString(*text).value_or(std::string(*text));
  if (raw) *raw = true;
  return std::string(*text);
}

void HloInstruction::set_backend_config(absl::string_view config, bool raw) {
  if (config.empty()) {
    RemoveAttribute("backend_config");
    return;
  }
  SetAttributeText("backend_config", raw ? std::string(config) : QuoteString(config));
}

std::string HloInstruction::api_version() const {
  auto text = GetAttributeText("api_version");
  return text ? std::string(*text) : "API_VERSION_ORIGINAL";
}

absl::string_view HloInstruction::comparison_direction() const {
  return GetAttributeText("direction").value_or(absl::string_view());
}

std::vector<SliceDimension> HloInstruction::slice() const {
  auto text = GetAttributeText("slice");
  if (!text) return {};
  return ParseSlice(*text).value_or(std::vector<SliceDimension>{});
}

std::vector<int64_t> HloInstruction::dynamic_slice_sizes() const {
  auto text = GetAttributeText("dynamic_slice_sizes");
  if (!text) return {};
  return ParseIntList(*text).value_or(std::vector<int64_t>{});
}

std::optional<OpMetadata> HloInstruction::metadata() const {
  auto text = GetAttributeText("metadata");
  if (!text) return std::nullopt;
  auto metadata = ParseMetadata(*text);
  if (!metadata.ok()) return std::nullopt;
  return *std::move(metadata);
}

void HloInstruction::set_metadata(const OpMetadata& metadata) {
  SetAttributeText("metadata", FormatMetadata(metadata));
}

std::vector<std::pair<std::string, std::string>> HloInstruction::frontend_attributes() const {
  auto text = GetAttributeText("frontend_attributes");
  if (!text) return {};
  return ParseFrontendAttributes(*text).value_or(
      std::vector<std::pair<std::string, std::string>>{});
}

void HloInstruction::set_frontend_attributes(
    const std::vector<std::pair<std::string, std::string>>& attrs) {
  if (attrs.empty()) {
    RemoveAttribute("frontend_attributes");
    return;
  }
  SetAttributeText("frontend_attributes", FormatFrontendAttributes(attrs));
}

HloComputation* HloInstruction::to_apply() const {
  const HloAttribute* attr = FindAttribute("to_apply");
  if (attr == nullptr || attr->computations.empty()) return nullptr;
  return attr->computations[0];
}

std::vector<HloComputation*> HloInstruction::called_computations() const {
  std::vector<HloComputation*> result;
  for (const HloAttribute& attr : attributes())
    for (HloComputation* c : attr.computations) result.push_back(c);
  // XLA orders a while loop's callees body first, whatever the text says.
  if (opcode_ == HloOpcode::kWhile && result.size() == 2) {
    const HloAttribute* body = FindAttribute("body");
    if (body != nullptr && !body->computations.empty() && result[0] != body->computations[0])
      std::swap(result[0], result[1]);
  }
  return result;
}

std::vector<HloInstruction*> HloInstruction::control_predecessors() const {
  if (!(flags_ & kMayHaveControlPredecessors)) return {};
  const HloAttribute* attr = FindAttribute("control-predecessors");
  if (attr == nullptr) return {};
  return attr->instructions;
}

void HloInstruction::set_control_predecessors(std::vector<HloInstruction*> predecessors) {
  RemoveAttribute("control-predecessors");
  if (predecessors.empty()) return;
  HloAttribute attr;
  attr.name = "control-predecessors";
  attr.kind = HloAttribute::Kind::kInstructionList;
  attr.instructions = std::move(predecessors);
  NoteAttribute(attr);
  PlaceAttribute(opcode_, MutableAttributes(), std::move(attr));
}

std::optional<HloOpcode> HloInstruction::async_wrapped_opcode() const {
  if (!(flags_ & InstructionInternals::kAsyncWrapped)) return std::nullopt;
  return async_wrapped_;
}

void HloInstruction::set_async_wrapped_opcode(std::optional<HloOpcode> opcode) {
  flags_ = opcode.has_value() ? (flags_ | InstructionInternals::kAsyncWrapped)
                              : (flags_ & ~InstructionInternals::kAsyncWrapped);
  if (opcode) async_wrapped_ = *opcode;
}

std::string HloInstruction::OpcodeSpelling() const {
  if (!(flags_ & InstructionInternals::kAsyncWrapped)) return std::string(HloOpcodeString(opcode_));
  absl::string_view suffix = opcode_ == HloOpcode::kAsyncStart    ? "-start"
                             : opcode_ == HloOpcode::kAsyncUpdate ? "-update"
                                                                  : "-done";
  return absl::StrCat(HloOpcodeString(async_wrapped_), suffix);
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_INSTRUCTION_H_
#define HOPT_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/pointer_list.h"
#include "hopt/ir/shape.h"

namespace hopt {

class HloComputation;
class HloInstruction;
class HloModule;
class HloParser;
class Verifier;

// One `name=value` attribute of an instruction. Values are kept as canonical
// text; references to computations (to_apply, calls, body, ...) and to
// instructions (control-predecessors) are resolved pointers so that renames
// and clones stay consistent.
struct HloAttribute {
  enum class Kind : uint8_t {
    kText,             // value
    kComputation,      // computations[0], printed `name=%comp`
    kComputationList,  // computations, printed `name={%a, %b}`
    kInstructionList,  // instructions, printed `name={%a, %b}`
  };
  absl::string_view name;
  absl::string_view value;
  Kind kind = Kind::kText;
  PointerList<HloComputation*> computations;
  PointerList<HloInstruction*> instructions;
};

// Attribute names whose values name computations.
bool IsComputationReferenceAttribute(absl::string_view name);
// Where an attribute added to an instruction goes relative to the others
// (lower first; equal ranks keep their order), as XLA prints them.
int AttributePrintRank(HloOpcode opcode, absl::string_view name);

using InstructionVector = absl::InlinedVector<HloInstruction*, 2>;

class HloInstruction {
 public:
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;
  ~HloInstruction();

  HloOpcode opcode() const { return opcode_; }
  absl::string_view name() const { return absl::string_view(name_data_, name_size_); }
  // Renames the instruction; the caller keeps names unique (see
  // HloModule::UniqueName).
  void SetName(absl::string_view name);
  const Shape& shape() const { return *shape_; }
  void set_shape(const Shape& shape);
  HloComputation* parent() const { return parent_; }
  HloModule* GetModule() const;
  int64_t unique_id() const { return unique_id_; }

  // --- operands and users -------------------------------------------------
  const InstructionVector& operands() const { return operands_; }
  HloInstruction* mutable_operand(int64_t i) const { return operands_[i]; }
  const HloInstruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  const InstructionVector& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  bool HasUser(const HloInstruction* user) const;
  bool IsRoot() const;

  // Wide instructions (a big tuple) keep an index of their operands' and
  // users' positions in the module, so that these stay cheap at any width.
  void AppendOperand(HloInstruction* operand);
  // Replaces operand i; the old operand loses this user if it no longer
  // appears among the operands.
  void ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  // Replaces every use of this instruction (operands of users, the root of
  // the parent) with `other`. The shapes must be compatible.
  absl::Status ReplaceAllUsesWith(HloInstruction* other);
  // Same, without the shape check: for rewrites that change a value's shape
  // and fix the users afterwards.
  absl::Status ReplaceAllUsesWithDifferentShape(HloInstruction* other);
  // Replaces the uses of this instruction in `user` only.
  absl::Status ReplaceUseWith(HloInstruction* user, HloInstruction* other);
  void DropAllOperands();

  // --- attributes ---------------------------------------------------------
  const std::vector<HloAttribute>& attributes() const;
  const HloAttribute* FindAttribute(absl::string_view name) const;
  bool HasAttribute(absl::string_view name) const { return FindAttribute(name) != nullptr; }
  // Raw value text of a kText attribute.
  std::optional<absl::string_view> GetAttributeText(absl::string_view name) const;
  // Adds or replaces a text attribute; a new one goes where XLA prints it.
  void SetAttributeText(absl::string_view name, absl::string_view value);
  // SetAttributeText(name, *from.GetAttributeText(name)) when `from` has
  // that text attribute (returns whether it had). Within one module the
  // stored text is shared rather than looked up in the module's string
  // table again: a lookup per copied value is a cache miss in a big module.
  bool CopyTextAttributeFrom(const HloInstruction& from, absl::string_view name);
  void SetComputationAttribute(absl::string_view name, HloComputation* computation);
  void SetComputationListAttribute(absl::string_view name,
                                   std::vector<HloComputation*> computations);
  bool RemoveAttribute(absl::string_view name);
  // Appends an attribute as written (the parser's entry point).
  void AddAttribute(HloAttribute attribute);

  // --- typed views of the attributes passes use ---------------------------
  // `parameter(N)`.
  int64_t parameter_number() const {
    return opcode_ == HloOpcode::kParameter ? payload_.parameter_number : -1;
  }
  // The text between the parentheses of `constant(...)`.
  absl::string_view literal_text() const;
  // The constant's value, parsed from its text.
  absl::StatusOr<Literal> literal() const;
  void set_literal_text(absl::string_view text);
  std::vector<int64_t> dimensions() const;  // dimensions={...}
  void set_dimensions(const std::vector<int64_t>& dims);
  std::optional<int64_t> channel_id() const;  // channel_id=N
  void set_channel_id(std::optional<int64_t> id);
  std::optional<ReplicaGroupList> replica_groups() const;
  void set_replica_groups(const ReplicaGroupList& groups);
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs() const;
  void set_source_target_pairs(const std::vector<std::pair<int64_t, int64_t>>& pairs);
  bool constrain_layout() const;
  bool use_global_device_ids() const;
  int64_t tuple_index() const;  // index=N
  std::optional<int64_t> IntAttribute(absl::string_view name) const;
  std::string custom_call_target() const;
  void set_custom_call_target(absl::string_view target);
  // backend_config, unquoted; `raw` tells whether it was a bare {...} value.
  std::string backend_config(bool* raw = nullptr) const;
  // Quoted by default; `raw` writes a JSON object bare (`backend_config={...}`).
  void set_backend_config(absl::string_view config, bool raw = false);
  // A custom-call's api_version spelling; XLA's default when absent.
  std::string api_version() const;
  absl::string_view comparison_direction() const;
  std::vector<SliceDimension> slice() const;
  std::vector<int64_t> dynamic_slice_sizes() const;
  std::optional<OpMetadata> metadata() const;
  void set_metadata(const OpMetadata& metadata);
  std::vector<std::pair<std::string, std::string>> frontend_attributes() const;
  void set_frontend_attributes(const std::vector<std::pair<std::string, std::string>>& attrs);
  // The computation applied elementwise (to_apply=), or null.
  HloComputation* to_apply() const;
  // Every computation this instruction references, in attribute order.
  std::vector<HloComputation*> called_computations() const;
  std::vector<HloInstruction*> control_predecessors() const;
  // Whether the instruction takes part in a control edge: it has control
  // predecessors, or some instruction names it as one (conservative: an
  // edge removed later may leave this true).
  bool has_control_edges() const {
    return (flags_ & kControlSuccessors) != 0 || has_control_predecessors();
  }
  // Whether some instruction names this one as a control predecessor
  // (conservative, like has_control_edges).
  bool has_control_successors() const { return (flags_ & kControlSuccessors) != 0; }
  // Whether a control-predecessors list is present (possibly empty).
  bool has_control_predecessors() const {
    return (flags_ & kMayHaveControlPredecessors) && HasAttribute("control-predecessors");
  }
  // Replaces the control-predecessors list (empty: removes it).
  void set_control_predecessors(std::vector<HloInstruction*> predecessors);

  // For `<op>-start` / `-update` / `-done` sugar around a generic
  // async-start/update/done: the wrapped opcode.
  std::optional<HloOpcode> async_wrapped_opcode() const;
  void set_async_wrapped_opcode(std::optional<HloOpcode> opcode);
  // The opcode spelling as printed (sugar included).
  std::string OpcodeSpelling() const;

 private:
  friend class HloComputation;
  friend class HloModule;
  // Core's readers, verifier and helpers (core/ir/instruction_internal.h).
  friend struct InstructionInternals;
  HloInstruction(HloOpcode opcode, const Shape* shape);
  std::vector<HloAttribute>& MutableAttributes();
  void RemoveUser(HloInstruction* user);
  // Every change to users_ goes through these two (and the bulk move in
  // ReplaceAllUsesWithDifferentShape), which keep the module's user index
  // (for instructions with thousands of users) in step.
  void PushUser(HloInstruction* user);
  void SetUsers(InstructionVector users);
  // Flag bits the accessors above read; core's others are in
  // core/ir/instruction_internal.h.
  static constexpr uint8_t kControlSuccessors = 1;
  // Set when a control-predecessors list is added, so that the common case
  // (none) needs no attribute scan; a list emptied later may leave it set.
  static constexpr uint8_t kMayHaveControlPredecessors = 8;
  // Sets flags, keeping the parent's mirror in step.
  void SetFlags(uint8_t flags);
  // Sets the flags an attribute about to be added implies.
  void NoteAttribute(const HloAttribute& attribute);
  // Adds or replaces a text attribute whose name and value are stored in
  // this instruction's module already.
  void PlaceStoredText(absl::string_view name, absl::string_view value);
  // Adds `user` unless it already is one: it is when the operand appears
  // among the user's operands before `operand_index`.
  void AddUser(HloInstruction* user, int64_t operand_index);
  // Operand i becomes `operand` (the caller keeps user lists in step).
  void SetOperandSlot(int64_t i, HloInstruction* operand);
  void set_parameter_number(int64_t n) { payload_.parameter_number = n; }
  // Stores the literal's text (copied into the module's arena).
  void StoreLiteral(absl::string_view text);
  void set_name_view(absl::string_view name) {
    name_data_ = name.data();
    name_size_ = static_cast<uint32_t>(name.size());
  }
  absl::string_view Save(absl::string_view text) const;

  // Laid out to keep instructions small: a 500k-instruction module holds
  // 500k of these.
  HloOpcode opcode_;
  HloOpcode async_wrapped_ = HloOpcode::kCustomCall;
  // kControlSuccessors | kMayHaveControlPredecessors and core's bits
  // (core/ir/instruction_internal.h).
  uint8_t flags_ = 0;
  // Scratch mark for graph walks (MakeInstructionPostOrder).
  mutable uint8_t mark_ = 0;
  // Index in the parent's instruction vector.
  int32_t position_ = -1;
  const char* name_data_ = nullptr;
  uint32_t name_size_ = 0;
  int32_t unique_id_ = -1;
  const Shape* shape_;
  HloComputation* parent_ = nullptr;
  InstructionVector operands_;
  InstructionVector users_;
  std::unique_ptr<std::vector<HloAttribute>> attributes_;
  // parameter(N), or constant(literal) as a length-prefixed arena string.
  union Payload {
    int64_t parameter_number;
    const char* literal;
  } payload_ = {};
};

// Calls visit(i) for each of `instructions` in order, asking the memory for
// the instructions and their attribute lists several steps ahead. Reading
// an attribute of each of thousands of instructions scattered over a big
// module is three dependent cache misses each (instruction, list, elements);
// fetched ahead they overlap instead of adding up.
void ForEachFetchingAttributesAhead(absl::Span<HloInstruction* const> instructions,
                                    absl::FunctionRef<void(HloInstruction*)> visit);

}  // namespace hopt

#endif  // HOPT_IR_INSTRUCTION_H_

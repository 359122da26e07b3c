// SPDX-License-Identifier: Apache-2.0
// Reading: xla::HloModuleProto -> IR (convert.h). The writer is in
// convert.cc.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "core/ir/module_internal.h"
#include "core/ir/module_reader_access.h"
#include "core/ir/name_check.h"
#include "core/ir/text_cursor.h"
#include "core/proto/attributes.h"
#include "core/proto/convert.h"
#include "core/proto/convert_internal.h"
#include "core/proto/legacy_fields.h"
#include "core/proto/wire.h"
#include "google/protobuf/arena.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

using proto_convert_internal::CallAttribute;
using proto_convert_internal::DefaultCalls;
using proto_convert_internal::kAttributeOrder;
using proto_convert_internal::kCallsEntry;
using proto_convert_internal::kLiteralEntry;
using proto_convert_internal::ParseCalls;
using proto_convert_internal::PredSelector;
using proto_convert_internal::XlaCallOrder;

// A computation's instructions, whether parsed already or still encoded.
// Mutable: legacy fields are cleared as they are read.
struct ComputationSource {
  xla::HloComputationProto* fields;
  const std::vector<absl::string_view>* encoded;  // null: fields->instructions()
  int size() const {
    return encoded != nullptr ? static_cast<int>(encoded->size()) : fields->instructions_size();
  }
};

// Instruction ids -> positions in the computation. XLA's ids within a
// computation are usually a dense range, which a vector indexes; anything
// else goes through a hash map.
class IdIndex {
 public:
  // Returns the position of an earlier instruction with the same id, or -1.
  int Build(const std::vector<int64_t>& ids) {
    if (ids.empty()) return -1;
    auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
    min_ = *lo;
    uint64_t span = static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo);
    dense_ = span < 4 * static_cast<uint64_t>(ids.size()) + 64;
    if (dense_)
      slots_.assign(span + 1, -1);
    else
      sparse_.reserve(ids.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      int& slot = dense_ ? slots_[ids[k] - min_] : sparse_.try_emplace(ids[k], -1).first->second;
      if (slot != -1) return static_cast<int>(k);
      slot = static_cast<int>(k);
    }
    return -1;
  }
  int Find(int64_t id) const {
    if (dense_) {
      if (id < min_ || static_cast<uint64_t>(id - min_) >= slots_.size()) return -1;
      return slots_[id - min_];
    }
    auto it = sparse_.find(id);
    return it == sparse_.end() ? -1 : it->second;
  }

 private:
  bool dense_ = true;
  int64_t min_ = 0;
  std::vector<int> slots_;
  absl::flat_hash_map<int64_t, int> sparse_;
};

// What pass 1 leaves for pass 2 of one computation: references by id,
// resolved once every instruction exists, and the converter's own entries.
struct PendingReferences {
  std::vector<int64_t> ids;
  std::vector<int64_t> operand_ids, called_ids;
  std::vector<uint32_t> operand_end, called_end;  // per instruction, exclusive
  std::vector<std::pair<int, std::vector<int64_t>>> control_ids;
  std::vector<std::pair<int, std::string>> calls_texts, order_texts;
};

}  // namespace

// Builds the IR through the constructors the text parser uses
// (core/ir/module_reader_access.h).
// Why a name from a proto is refused: it could not be written as HLO text
// and read back (XLA's own name uniquer never makes such names).
constexpr absl::string_view kNameRule =
    "cannot be written as HLO text (names start with a letter or '_' and go on with letters, "
    "digits, '_', '.' and '-')";

class ProtoImporter {
 public:
  // `side`, if not null, receives what the IR does not model.
  ProtoImporter(xla::HloModuleProto* fields, std::vector<ComputationSource> computations,
                ProtoSideTable* side)
      : proto_(*fields), sources_(std::move(computations)), side_(side) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Run() {
    if (side_ == nullptr) return Import();
    side_->Clear();
    absl::StatusOr<std::unique_ptr<HloModule>> module = Import();
    if (module.ok())
      side_->set_module(module->get());
    else
      side_->Clear();
    return module;
  }

 private:
  // Where what is left out goes: the side table's list, or nowhere.
  DroppedFields* dropped() {
    return side_ != nullptr ? side_->mutable_dropped_fields() : &discarded_;
  }
  // Unknown fields of an instruction, computation or module message: the
  // side table keeps them, or they are lost.
  void CountOwnUnknownFields(const google::protobuf::Message& message) {
    CountUnknownFields(
        message,
        side_ != nullptr ? DroppedFields::Kind::kKeptUnknown : DroppedFields::Kind::kUnknown,
        dropped());
  }

  absl::StatusOr<std::unique_ptr<HloModule>> Import() {
    if (!proto_.name().empty() && !IsWritableName(proto_.name()))
      return absl::InvalidArgumentError(
          absl::StrCat("module name '", absl::CHexEscape(proto_.name()), "' ", kNameRule));
    // The writer rebuilds the entry layout, the schedule, the frontend
    // attributes and hopt's header from the module; the rest of the module
    // message travels whole in the side table.
    using M = xla::HloModuleProto;
    static const ReadScope kModuleScope{
        M::kComputationsFieldNumber,
        {M::kHostProgramShapeFieldNumber, M::kScheduleFieldNumber,
         M::kFrontendAttributesFieldNumber, M::kHoptHeaderAttributesFieldNumber,
         M::kStackFrameIndexFieldNumber},
        /*all_rebuilt=*/false};
    HOPT_RETURN_IF_ERROR(DropLegacyFields(&proto_, kModuleScope, dropped()));
    module_ = std::make_unique<HloModule>(proto_.name().empty() ? "module" : proto_.name());
    ModuleReaderAccess::IndexNamesFromTheStart(module_.get());
    HOPT_RETURN_IF_ERROR(ReadHeader());
    if (sources_.empty()) return absl::InvalidArgumentError("the module has no computations");
    // Computations first: instructions refer to them by id.
    for (const ComputationSource& source : sources_) {
      const xla::HloComputationProto& c = *source.fields;
      if (c.name().empty())
        return absl::InvalidArgumentError(absl::StrCat("computation id ", c.id(), " has no name"));
      if (!IsWritableName(c.name()))
        return absl::InvalidArgumentError(
            absl::StrCat("computation name '", absl::CHexEscape(c.name()), "' ", kNameRule));
      if (!computation_names_.insert(c.name()).second)
        return absl::InvalidArgumentError(
            absl::StrCat("computation '", c.name(), "' is defined twice"));
      HloComputation* computation = ModuleReaderAccess::AppendComputation(
          module_.get(), ModuleInternals::Storage(*module_).arena.Save(c.name()));
      created_.push_back(computation);
      if (!computations_.emplace(c.id(), computation).second)
        return absl::InvalidArgumentError(absl::StrCat("computation '", c.name(), "' has id ",
                                                       c.id(), ", which another computation has"));
    }
    for (size_t k = 0; k < sources_.size(); ++k) {
      HOPT_RETURN_IF_ERROR(ReadComputation(sources_[k], created_[k]));
    }
    HOPT_RETURN_IF_ERROR(CheckCallCycles());
    HOPT_RETURN_IF_ERROR(ReadEntry());
    KeepModuleExtras();
    return std::move(module_);
  }

  static absl::Status InstructionError(const xla::HloComputationProto& c, absl::string_view name,
                                       int64_t id, absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat("computation '", c.name(), "', instruction '",
                                                   name, "' (id ", id, "): ", message));
  }
  static absl::Status InstructionError(const xla::HloComputationProto& c,
                                       const xla::HloInstructionProto& i,
                                       absl::string_view message) {
    return InstructionError(c, i.name(), i.id(), message);
  }

  absl::Status ReadHeader() {
    for (const xla::HoptTextAttribute& attr : proto_.hopt_header_attributes()) {
      const std::string& name = attr.name();
      if (name == "replica_count" || name == "num_partitions") {
        int64_t n;
        if (!absl::SimpleAtoi(attr.value(), &n) || n < 1)
          return absl::InvalidArgumentError(
              absl::StrCat(name, " must be a positive integer, got '", attr.value(), "'"));
        if (name == "replica_count")
          module_->set_replica_count(n);
        else
          module_->set_num_partitions(n);
      } else if (name == "is_scheduled") {
        module_->set_is_scheduled(attr.value() == "true");
      } else {
        module_->SetHeaderAttribute(name, attr.value());
      }
    }
    if (proto_.has_schedule()) module_->set_is_scheduled(true);
    if (proto_.has_stack_frame_index()) HOPT_RETURN_IF_ERROR(ReadStackFrames());
    if (proto_.has_frontend_attributes() && !module_->GetHeaderAttribute("frontend_attributes")) {
      std::vector<std::pair<std::string, std::string>> attrs(
          proto_.frontend_attributes().map().begin(), proto_.frontend_attributes().map().end());
      std::sort(attrs.begin(), attrs.end());
      module_->SetHeaderAttribute("frontend_attributes", FormatFrontendAttributes(attrs));
    }
    return absl::OkStatus();
  }

  absl::Status ReadStackFrames() {
    const xla::StackFrameIndexProto& proto = proto_.stack_frame_index();
    StackFrameIndex index;
    index.file_names.assign(proto.file_names().begin(), proto.file_names().end());
    index.function_names.assign(proto.function_names().begin(), proto.function_names().end());
    for (const auto& l : proto.file_locations())
      index.file_locations.push_back({l.file_name_id(), l.function_name_id(), l.line(),
                                      l.end_line(), l.column(), l.end_column()});
    for (const auto& f : proto.stack_frames())
      index.frames.push_back({f.file_location_id(), f.parent_frame_id()});
    if (absl::Status valid = index.Validate(); !valid.ok())
      return absl::InvalidArgumentError(absl::StrCat("stack_frame_index: ", valid.message()));
    module_->set_stack_frames(std::move(index));
    return absl::OkStatus();
  }

  // A shape still serialized (from a plain instruction), keyed by its bytes.
  absl::StatusOr<const Shape*> InternEncodedShape(absl::string_view bytes) {
    auto it = encoded_shapes_.find(bytes);
    if (it != encoded_shapes_.end()) return it->second;
    xla::ShapeProto proto;
    if (!ParseMessage(bytes, &proto))
      return absl::InvalidArgumentError("the shape is not a ShapeProto (truncated or corrupt)");
    HOPT_ASSIGN_OR_RETURN(auto shape, InternShape(proto));
    encoded_shapes_.emplace(bytes, shape);
    return shape;
  }

  absl::StatusOr<const Shape*> InternShape(const xla::ShapeProto& proto) {
    // Most instructions share a handful of shapes: convert each once.
    proto.SerializeToString(&shape_key_);
    auto it = shapes_.find(shape_key_);
    if (it != shapes_.end()) return it->second;
    HOPT_ASSIGN_OR_RETURN(auto shape, ShapeFromProto(proto));
    const Shape* interned = ModuleInternals::InternShape(*module_, shape);
    shapes_.emplace(shape_key_, interned);
    return interned;
  }

  // Whether a plain instruction's shape (serialized) has no legacy or
  // unknown field, which only the generated parser's path handles. (A
  // corrupt one stays on the plain path, which names it.)
  bool IsPlainShape(absl::string_view bytes) {
    auto it = plain_shapes_.find(bytes);
    if (it != plain_shapes_.end()) return it->second;
    xla::ShapeProto shape;
    bool plain = !ParseMessage(bytes, &shape) ||
                 !MayHoldOtherSchemaFields(bytes, xla::ShapeProto::descriptor());
    plain_shapes_.emplace(bytes, plain);
    return plain;
  }

  // The k-th instruction of `source`: parsed into a reused message when
  // still encoded.
  absl::StatusOr<xla::HloInstructionProto*> Instruction(const ComputationSource& source, int k) {
    if (source.encoded == nullptr) return source.fields->mutable_instructions(k);
    absl::string_view bytes = (*source.encoded)[k];
    // On an arena, parsing over the same message reuses nothing but frees
    // nothing either (submessages are allocated afresh); starting a new
    // arena every so often keeps the memory bounded and the allocation a
    // pointer bump.
    if (scratch_ == nullptr || ++scratch_uses_ == kScratchUses) {
      scratch_arena_.Reset();
      scratch_ = google::protobuf::Arena::CreateMessage<xla::HloInstructionProto>(&scratch_arena_);
      scratch_uses_ = 0;
    }
    if (!ParseMessage(bytes, scratch_))
      return absl::InvalidArgumentError(
          absl::StrCat("computation '", source.fields->name(), "': instruction ", k,
                       " (counting from 0) is not an HloInstructionProto (truncated or corrupt)"));
    return scratch_;
  }

  // Pass 1 creates every instruction from its own fields and records its
  // references by id; pass 2 resolves them (operands may come later in the
  // list).
  absl::Status ReadComputation(const ComputationSource& source, HloComputation* computation) {
    // The program shape is rebuilt from the instructions.
    using C = xla::HloComputationProto;
    static const ReadScope kComputationScope{
        C::kInstructionsFieldNumber, {C::kProgramShapeFieldNumber}, /*all_rebuilt=*/false};
    absl::Status legacy = DropLegacyFields(source.fields, kComputationScope, dropped());
    if (!legacy.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("computation '", source.fields->name(), "': ", legacy.message()));
    const xla::HloComputationProto& c = *source.fields;
    const int count = source.size();
    if (!c.execution_thread().empty() && c.execution_thread() != "main")
      computation->set_execution_thread(c.execution_thread());
    computation->ReserveInstructions(count);
    std::vector<HloInstruction*> parameters;
    PendingReferences pending;
    pending.ids.reserve(count);
    pending.operand_end.reserve(count);
    pending.called_end.reserve(count);
    pending.operand_ids.reserve(2 * static_cast<size_t>(count));
    std::vector<std::pair<std::string, std::string>> attributes;
    for (int k = 0; k < count; ++k) {
      // Plain instructions skip the generated parser and the codec (a
      // constant without its literal field is an error the codec path
      // reports).
      xla::HloInstructionProto* parsed = nullptr;
      if (source.encoded == nullptr || !DecodePlainInstruction((*source.encoded)[k], &plain_) ||
          plain_.opcode == "constant" || (plain_.has_shape && !IsPlainShape(plain_.shape))) {
        HOPT_ASSIGN_OR_RETURN(parsed, Instruction(source, k));
        static const ReadScope kInstructionScope{0, {}, /*all_rebuilt=*/true};
        if (source.encoded == nullptr ||
            MayHoldOtherSchemaFields((*source.encoded)[k], parsed->GetDescriptor())) {
          absl::Status legacy = DropLegacyFields(parsed, kInstructionScope, dropped());
          if (!legacy.ok()) return InstructionError(c, *parsed, legacy.message());
        }
        FieldsOf(*parsed, &plain_);
      }
      const PlainInstruction& i = plain_;
      HOPT_ASSIGN_OR_RETURN(HloInstruction * instruction,
                            CreateInstruction(c, i, parsed, computation));
      pending.ids.push_back(i.id);
      pending.operand_ids.insert(pending.operand_ids.end(), i.operand_ids.begin(),
                                 i.operand_ids.end());
      pending.operand_end.push_back(static_cast<uint32_t>(pending.operand_ids.size()));
      pending.called_ids.insert(pending.called_ids.end(), i.called_computation_ids.begin(),
                                i.called_computation_ids.end());
      pending.called_end.push_back(static_cast<uint32_t>(pending.called_ids.size()));
      if (!i.control_predecessor_ids.empty())
        pending.control_ids.emplace_back(k, i.control_predecessor_ids);
      if (instruction->opcode() == HloOpcode::kParameter) {
        int64_t n = i.parameter_number;
        if (n < 0 || n >= count)
          return InstructionError(c, i.name, i.id,
                                  absl::StrCat("parameter number ", n, " is out of range"));
        ModuleReaderAccess::SetParameterNumber(instruction, n);
        if (static_cast<int64_t>(parameters.size()) <= n) parameters.resize(n + 1, nullptr);
        if (parameters[n] != nullptr)
          return InstructionError(
              c, i.name, i.id,
              absl::StrCat("parameter number ", n, " is taken by '", parameters[n]->name(), "'"));
        parameters[n] = instruction;
      }
      HOPT_RETURN_IF_ERROR(
          parsed != nullptr ? ReadAttributes(c, *parsed, k, instruction, &attributes, &pending)
                            : AddAttributes(PlainAttributes(instruction->opcode()), instruction));
      if (parsed == nullptr) continue;
      CountOwnUnknownFields(*parsed);
      if (side_ == nullptr) continue;
      const auto& unknown = parsed->GetReflection()->GetUnknownFields(*parsed);
      if (!unknown.empty()) {
        std::string bytes;
        unknown.SerializeToString(&bytes);
        side_->SetInstructionFields(*instruction, std::move(bytes));
      }
    }
    for (size_t n = 0; n < parameters.size(); ++n)
      if (parameters[n] == nullptr)
        return absl::InvalidArgumentError(
            absl::StrCat("computation '", c.name(), "' has no parameter number ", n,
                         " (parameter numbers must be consecutive from 0)"));
    HOPT_RETURN_IF_ERROR(ResolveReferences(c, pending, computation));
    int root = by_id_.Find(c.root_id());
    if (root < 0)
      return absl::InvalidArgumentError(absl::StrCat("computation '", c.name(), "': root id ",
                                                     c.root_id(), " names no instruction of it"));
    ModuleReaderAccess::SetRootUnchecked(computation,
                                         ModuleReaderAccess::instructions(*computation)[root]);
    ModuleReaderAccess::SetParameters(computation, std::move(parameters));
    CountOwnUnknownFields(c);
    const auto& unknown = c.GetReflection()->GetUnknownFields(c);
    if (side_ != nullptr && !unknown.empty()) {
      std::string bytes;
      unknown.SerializeToString(&bytes);
      side_->SetComputationFields(c.name(), std::move(bytes));
    }
    return CheckCycles(c, *computation);
  }

  // The fields pass 1 needs, from a parsed message (views into it).
  static void FieldsOf(const xla::HloInstructionProto& i, PlainInstruction* out) {
    out->name = i.name();
    out->opcode = i.opcode();
    out->shape = absl::string_view();
    out->has_shape = i.has_shape();
    out->id = i.id();
    out->parameter_number = i.parameter_number();
    out->operand_ids.assign(i.operand_ids().begin(), i.operand_ids().end());
    out->control_predecessor_ids.assign(i.control_predecessor_ids().begin(),
                                        i.control_predecessor_ids().end());
    out->called_computation_ids.assign(i.called_computation_ids().begin(),
                                       i.called_computation_ids().end());
  }

  // `parsed`: the message `i` was taken from, null when it was decoded
  // plain (its shape is then still serialized in `i.shape`).
  absl::StatusOr<HloInstruction*> CreateInstruction(const xla::HloComputationProto& c,
                                                    const PlainInstruction& i,
                                                    const xla::HloInstructionProto* parsed,
                                                    HloComputation* computation) {
    auto error = [&](absl::string_view message) {
      return InstructionError(c, i.name, i.id, message);
    };
    if (i.name.empty()) return error("the instruction has no name");
    std::optional<HloOpcode> opcode = StringToHloOpcode(i.opcode);
    std::optional<HloOpcode> wrapped;
    if (!opcode) {
      for (auto [suffix, async] :
           {std::pair<absl::string_view, HloOpcode>{"-start", HloOpcode::kAsyncStart},
            {"-update", HloOpcode::kAsyncUpdate},
            {"-done", HloOpcode::kAsyncDone}}) {
        if (!absl::EndsWith(i.opcode, suffix)) continue;
        wrapped = StringToHloOpcode(i.opcode.substr(0, i.opcode.size() - suffix.size()));
        if (wrapped) opcode = async;
        break;
      }
    }
    if (!opcode) return error(absl::StrCat("unknown opcode '", i.opcode, "'"));
    if (!i.has_shape) return error("the instruction has no shape");
    auto shape = parsed != nullptr ? InternShape(parsed->shape()) : InternEncodedShape(i.shape);
    if (!shape.ok()) return error(shape.status().message());
    HloInstruction* instruction = ModuleReaderAccess::CreateInstruction(
        computation, *opcode, *shape, ModuleInternals::Storage(*module_).arena.Save(i.name));
    if (wrapped) instruction->set_async_wrapped_opcode(wrapped);
    return instruction;
  }

  // What the codec gives an instruction none of whose attribute fields is
  // set: nothing for most opcodes, the fields XLA prints at their defaults
  // for some. Computed once per opcode.
  const std::vector<std::pair<std::string, std::string>>& PlainAttributes(HloOpcode opcode) {
    auto& cached = plain_attributes_[opcode];
    if (!cached) {
      cached.emplace();
      absl::Status status = AttributesFromProto(xla::HloInstructionProto(), opcode, &*cached);
      if (!status.ok()) cached->clear();  // nothing to decode cannot fail
    }
    return *cached;
  }

  absl::Status AddAttributes(const std::vector<std::pair<std::string, std::string>>& attributes,
                             HloInstruction* instruction) {
    StringArena& arena = ModuleInternals::Storage(*module_).arena;
    for (const auto& [name, value] : attributes) {
      HloAttribute attr;
      attr.name = arena.Intern(name);
      attr.value = arena.InternValue(value);
      instruction->AddAttribute(std::move(attr));
    }
    return absl::OkStatus();
  }

  // The codec's attributes and the constant's value; the converter's own
  // entries (calls, attribute order) are left in `pending` for pass 2.
  absl::Status ReadAttributes(const xla::HloComputationProto& c, const xla::HloInstructionProto& i,
                              int index, HloInstruction* instruction,
                              std::vector<std::pair<std::string, std::string>>* attributes,
                              PendingReferences* pending) {
    const xla::HloInstructionProto* codec_input = &i;
    const std::string* literal_text = nullptr;
    bool has_own = false;
    for (const xla::HoptTextAttribute& a : i.hopt_text_attributes()) {
      if (a.name() == kCallsEntry)
        pending->calls_texts.emplace_back(index, a.value()), has_own = true;
      if (a.name() == kLiteralEntry) literal_text = &a.value(), has_own = true;
      if (a.name() == kAttributeOrder)
        pending->order_texts.emplace_back(index, a.value()), has_own = true;
    }
    std::optional<xla::HloInstructionProto> stripped;
    if (has_own) {
      stripped.emplace(i);
      auto* own = stripped->mutable_hopt_text_attributes();
      own->erase(std::remove_if(own->begin(), own->end(),
                                [](const xla::HoptTextAttribute& a) {
                                  return a.name() == kCallsEntry || a.name() == kLiteralEntry ||
                                         a.name() == kAttributeOrder;
                                }),
                 own->end());
      codec_input = &*stripped;
    }
    attributes->clear();
    absl::Status status = AttributesFromProto(*codec_input, instruction->opcode(), attributes);
    if (!status.ok()) return InstructionError(c, i, status.message());
    // Attribute texts from a proto (verbatim ones especially) must print as
    // text that reads back; the text parser checks the same.
    for (const auto& [name, value] : *attributes) {
      absl::Status reads_back = CheckAttributeReadsBack(name, value);
      if (!reads_back.ok()) return InstructionError(c, i, reads_back.message());
    }
    AddAttributes(*attributes, instruction).IgnoreError();
    if (instruction->opcode() != HloOpcode::kConstant) return absl::OkStatus();
    if (literal_text != nullptr) {
      absl::Status valid = Literal::Validate(instruction->shape(), *literal_text);
      if (!valid.ok()) return InstructionError(c, i, valid.message());
      ModuleReaderAccess::StoreLiteral(instruction, *literal_text);
      return absl::OkStatus();
    }
    if (!i.has_literal()) return InstructionError(c, i, "the constant has no literal");
    auto literal = LiteralFromProto(i.literal(), instruction->shape());
    if (!literal.ok()) return InstructionError(c, i, literal.status().message());
    ModuleReaderAccess::StoreLiteral(instruction, literal->ToText());
    return absl::OkStatus();
  }

  absl::Status ResolveReferences(const xla::HloComputationProto& c,
                                 const PendingReferences& pending, HloComputation* computation) {
    const std::vector<HloInstruction*>& list = ModuleReaderAccess::instructions(*computation);
    for (size_t k = 0; k < list.size(); ++k)
      if (!IsWritableName(list[k]->name()))
        return InstructionError(c, absl::CHexEscape(list[k]->name()), pending.ids[k],
                                absl::StrCat("the name ", kNameRule));
    if (const HloInstruction* again = FindDuplicateName(computation->instructions()))
      return InstructionError(c, again->name(), pending.ids[ModuleReaderAccess::position(*again)],
                              "another instruction of this computation has this name");
    int duplicate = by_id_.Build(pending.ids);
    if (duplicate >= 0)
      return InstructionError(c, list[duplicate]->name(), pending.ids[duplicate],
                              "another instruction of this computation has this id");
    auto error = [&](int k, absl::string_view message) {
      return InstructionError(c, list[k]->name(), pending.ids[k], message);
    };
    uint32_t operand_begin = 0, called_begin = 0;
    auto calls_text = pending.calls_texts.begin();
    for (size_t k = 0; k < list.size(); ++k) {
      HloInstruction* instruction = list[k];
      for (uint32_t n = operand_begin; n < pending.operand_end[k]; ++n) {
        int operand = by_id_.Find(pending.operand_ids[n]);
        if (operand < 0)
          return error(k, absl::StrCat("operand id ", pending.operand_ids[n],
                                       " names no instruction of this computation"));
        instruction->AppendOperand(list[operand]);
      }
      operand_begin = pending.operand_end[k];
      const std::string* text = nullptr;
      if (calls_text != pending.calls_texts.end() && calls_text->first == static_cast<int>(k))
        text = &(calls_text++)->second;
      absl::Status status =
          ReadCalls(absl::MakeConstSpan(pending.called_ids)
                        .subspan(called_begin, pending.called_end[k] - called_begin),
                    text, instruction);
      if (!status.ok()) return error(k, status.message());
      called_begin = pending.called_end[k];
    }
    for (const auto& [k, ids] : pending.control_ids) {
      std::vector<HloInstruction*> predecessors;
      for (int64_t id : ids) {
        int predecessor = by_id_.Find(id);
        if (predecessor < 0)
          return error(k, absl::StrCat("control predecessor id ", id,
                                       " names no instruction of this computation"));
        predecessors.push_back(list[predecessor]);
      }
      list[k]->set_control_predecessors(std::move(predecessors));
    }
    for (const auto& [k, names] : pending.order_texts) ReorderAttributes(names, list[k]);
    return absl::OkStatus();
  }

  // Called computations, in XLA's order in `ids`, onto the attributes.
  absl::Status ReadCalls(absl::Span<const int64_t> ids, const std::string* calls_text,
                         HloInstruction* instruction) {
    int count = static_cast<int>(ids.size());
    std::vector<CallAttribute> calls;
    if (calls_text != nullptr) {
      if (!ParseCalls(*calls_text, &calls))
        return absl::InvalidArgumentError(
            absl::StrCat("malformed ", kCallsEntry, " '", *calls_text, "'"));
      int total = 0;
      for (const CallAttribute& a : calls) total += a.count;
      if (total != count)
        return absl::InvalidArgumentError(absl::StrCat(
            kCallsEntry, " names ", total, " computations, called_computation_ids ", count));
    } else {
      calls = DefaultCalls(instruction->opcode(), count, PredSelector(*instruction));
    }
    if (count == 0 && calls.empty()) return absl::OkStatus();
    std::vector<HloComputation*> in_attribute_order(count, nullptr);
    std::vector<int> order = XlaCallOrder(calls);
    for (int k = 0; k < count; ++k) {
      auto it = computations_.find(ids[k]);
      if (it == computations_.end())
        return absl::InvalidArgumentError(
            absl::StrCat("called computation id ", ids[k], " names no computation"));
      if (it->second == instruction->parent())
        return absl::InvalidArgumentError("the instruction calls its own computation");
      in_attribute_order[order[k]] = it->second;
    }
    int next = 0;
    for (const CallAttribute& a : calls) {
      std::vector<HloComputation*> group(in_attribute_order.begin() + next,
                                         in_attribute_order.begin() + next + a.count);
      next += a.count;
      if (a.list)
        instruction->SetComputationListAttribute(a.name, std::move(group));
      else
        instruction->SetComputationAttribute(a.name, group[0]);
    }
    return absl::OkStatus();
  }

  // Puts the attributes in the order `names` (comma-separated) gives;
  // names it does not list stay after the listed ones.
  static void ReorderAttributes(absl::string_view names, HloInstruction* instruction) {
    std::vector<HloAttribute>* list = ModuleReaderAccess::attributes(instruction);
    if (list == nullptr) return;
    std::vector<HloAttribute>& attrs = *list;
    std::vector<HloAttribute> ordered;
    ordered.reserve(attrs.size());
    std::vector<bool> taken(attrs.size(), false);
    for (absl::string_view name : absl::StrSplit(names, ',', absl::SkipEmpty()))
      for (size_t k = 0; k < attrs.size(); ++k)
        if (!taken[k] && attrs[k].name == name) {
          taken[k] = true;
          ordered.push_back(std::move(attrs[k]));
          break;
        }
    for (size_t k = 0; k < attrs.size(); ++k)
      if (!taken[k]) ordered.push_back(std::move(attrs[k]));
    attrs = std::move(ordered);
  }

  // Operands and control predecessors must not form a cycle.
  absl::Status CheckCycles(const xla::HloComputationProto& c, const HloComputation& computation) {
    const HloInstruction* on_cycle = computation.FindDependencyCycle().second;
    if (on_cycle == nullptr) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("computation '", c.name(), "': instruction '", on_cycle->name(),
                     "' depends on itself (a cycle through operands or control predecessors)"));
  }

  absl::Status CheckCallCycles() {
    auto [callee, caller] = module_->FindCallCycle();
    if (callee == nullptr) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "computation '", callee->name(), "' calls itself (through '", caller->name(), "')"));
  }

  absl::Status ReadEntry() {
    HloComputation* entry = nullptr;
    auto by_id = computations_.find(proto_.entry_computation_id());
    if (by_id != computations_.end() && (proto_.entry_computation_name().empty() ||
                                         by_id->second->name() == proto_.entry_computation_name()))
      entry = by_id->second;
    if (entry == nullptr && !proto_.entry_computation_name().empty())
      entry = module_->GetComputationWithName(proto_.entry_computation_name());
    if (entry == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(
          "the entry computation (id ", proto_.entry_computation_id(), ", name '",
          proto_.entry_computation_name(), "') is not among the module's computations"));
    module_->set_entry_computation(entry);
    if (proto_.has_host_program_shape()) {
      const xla::ProgramShapeProto& program = proto_.host_program_shape();
      if (program.parameters_size() == entry->num_parameters()) {
        ProgramLayout layout;
        for (const xla::ShapeProto& p : program.parameters()) {
          auto shape = ShapeFromProto(p);
          if (!shape.ok())
            return absl::InvalidArgumentError(
                absl::StrCat("host_program_shape: ", shape.status().message()));
          layout.parameters.push_back(*std::move(shape));
        }
        auto result = ShapeFromProto(program.result());
        if (!result.ok())
          return absl::InvalidArgumentError(
              absl::StrCat("host_program_shape: ", result.status().message()));
        layout.result = *std::move(result);
        module_->set_entry_computation_layout(std::move(layout));
      }
    }
    return absl::OkStatus();
  }

  // What is left of the module message once its mapped fields are taken.
  void KeepModuleExtras() {
    CountOwnUnknownFields(proto_);
    if (side_ == nullptr) return;
    proto_.clear_name();
    proto_.clear_entry_computation_name();
    proto_.clear_entry_computation_id();
    proto_.clear_computations();
    proto_.clear_host_program_shape();
    proto_.clear_schedule();
    proto_.clear_frontend_attributes();
    proto_.clear_hopt_header_attributes();
    std::string rest;
    proto_.SerializeToString(&rest);
    if (!rest.empty()) side_->set_module_fields(std::move(rest));
  }

  xla::HloModuleProto& proto_;
  std::vector<ComputationSource> sources_;
  ProtoSideTable* side_;
  std::vector<HloComputation*> created_;  // in the order of sources_
  std::unique_ptr<HloModule> module_;
  absl::flat_hash_map<int64_t, HloComputation*> computations_;
  absl::flat_hash_set<std::string> computation_names_;
  absl::flat_hash_map<std::string, const Shape*> shapes_;
  std::string shape_key_;
  absl::flat_hash_map<std::string, const Shape*> encoded_shapes_;
  absl::flat_hash_map<std::string, bool> plain_shapes_;  // IsPlainShape's answers
  DroppedFields discarded_;                              // dropped() without a side table
  PlainInstruction plain_;
  absl::flat_hash_map<HloOpcode, std::optional<std::vector<std::pair<std::string, std::string>>>>
      plain_attributes_;
  IdIndex by_id_;  // of the computation being read
  static constexpr int kScratchUses = 4096;
  google::protobuf::Arena scratch_arena_;
  xla::HloInstructionProto* scratch_ = nullptr;
  int scratch_uses_ = 0;
};

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(xla::HloModuleProto* proto,
                                                           ProtoSideTable* side) {
  std::vector<ComputationSource> sources;
  sources.reserve(proto->computations_size());
  for (xla::HloComputationProto& c : *proto->mutable_computations())
    sources.push_back({&c, nullptr});
  return ProtoImporter(proto, std::move(sources), side).Run();
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromEncodedProto(
    xla::HloModuleProto* fields, std::vector<EncodedComputation>* computations,
    ProtoSideTable* side) {
  std::vector<ComputationSource> sources;
  sources.reserve(computations->size());
  for (EncodedComputation& c : *computations) sources.push_back({&c.fields, &c.instructions});
  return ProtoImporter(fields, std::move(sources), side).Run();
}

}  // namespace hopt

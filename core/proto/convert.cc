// SPDX-License-Identifier: Apache-2.0
// The structure of a module <-> xla::HloModuleProto (convert.h).

#include "core/proto/convert.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/proto/attributes.h"
#include "core/proto/convert_internal.h"
#include "core/proto/wire.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace proto_convert_internal {
namespace {

// XLA's called_computation_ids put a while's body before its condition, a
// select-and-scatter's select before its scatter and a conditional's true
// branch first; the text lists them in print order.
int CallRank(absl::string_view name) {
  return name == "condition" || name == "scatter" || name == "false_computation" ? 1 : 0;
}

}  // namespace

// The attributes XLA's printer uses for `count` called computations.
std::vector<CallAttribute> DefaultCalls(HloOpcode opcode, int count, bool pred_selector) {
  if (count == 0) return {};
  switch (opcode) {
    case HloOpcode::kWhile:
      if (count == 2) return {{"condition"}, {"body"}};
      break;
    case HloOpcode::kSelectAndScatter:
      if (count == 2) return {{"select"}, {"scatter"}};
      break;
    case HloOpcode::kConditional:
      if (count == 2 && pred_selector) return {{"true_computation"}, {"false_computation"}};
      return {{"branch_computations", true, count}};
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      if (count == 1) return {{"calls"}};
      break;
    case HloOpcode::kCustomCall: return {{"called_computations", true, count}};
    default: break;
  }
  if (count == 1) return {{"to_apply"}};
  return {{"called_computations", true, count}};
}

std::string FormatCalls(const std::vector<CallAttribute>& calls) {
  std::string out;
  for (const CallAttribute& c : calls) {
    if (!out.empty()) out.push_back(',');
    out.append(c.name);
    if (c.list) absl::StrAppend(&out, "{", c.count, "}");
  }
  return out;
}

bool ParseCalls(absl::string_view text, std::vector<CallAttribute>* calls) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    CallAttribute c;
    size_t brace = item.find('{');
    if (brace == absl::string_view::npos) {
      c.name = std::string(item);
    } else {
      if (item.back() != '}') return false;
      c.name = std::string(item.substr(0, brace));
      c.list = true;
      if (!absl::SimpleAtoi(item.substr(brace + 1, item.size() - brace - 2), &c.count) ||
          c.count < 0)
        return false;
    }
    if (!IsComputationReferenceAttribute(c.name)) return false;
    calls->push_back(std::move(c));
  }
  return true;
}

// Positions, in XLA's called_computation_ids order, of the computations
// of `calls` taken in attribute order.
std::vector<int> XlaCallOrder(const std::vector<CallAttribute>& calls) {
  std::vector<std::pair<int, int>> keyed;  // (rank, attribute-order position)
  int position = 0;
  for (const CallAttribute& c : calls)
    for (int k = 0; k < c.count; ++k) keyed.emplace_back(CallRank(c.name), position++);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  for (const auto& k : keyed) order.push_back(k.second);
  return order;
}

bool PredSelector(const HloInstruction& instruction) {
  return instruction.operand_count() > 0 && instruction.operand(0) != nullptr &&
         instruction.operand(0)->shape().element_type() == PrimitiveType::PRED;
}

}  // namespace proto_convert_internal

// ---- writing ---------------------------------------------------------------

namespace {

using proto_convert_internal::CallAttribute;
using proto_convert_internal::DefaultCalls;
using proto_convert_internal::FormatCalls;
using proto_convert_internal::kAttributeOrder;
using proto_convert_internal::kCallsEntry;
using proto_convert_internal::kLiteralEntry;
using proto_convert_internal::PredSelector;
using proto_convert_internal::XlaCallOrder;

// Header attributes that travel in hopt_header_attributes: XLA keeps them in
// HloModuleConfig or in fields hopt does not map.
constexpr absl::string_view kVerbatimHeader[] = {"input_output_alias",
                                                 "buffer_donor",
                                                 "alias_passthrough_params",
                                                 "allow_spmd_sharding_propagation_to_parameters",
                                                 "allow_spmd_sharding_propagation_to_output",
                                                 "cross_program_prefetch",
                                                 "cross_program_prefetches"};

// The printer's orders (so that a module read back prints the same):
// instructions in list order when the module is scheduled, XLA's post
// order otherwise; computations callees first.
std::vector<HloInstruction*> WriteOrder(const HloComputation& computation) {
  if (!computation.parent()->is_scheduled()) return computation.MakeInstructionPostOrder();
  std::vector<HloInstruction*> list;
  list.reserve(computation.instruction_count());
  for (HloInstruction* instruction : computation.instructions()) list.push_back(instruction);
  return list;
}

std::vector<HloComputation*> ComputationWriteOrder(const HloModule& module) {
  return module.MakeComputationPostOrder();
}

void AddHoptAttribute(xla::HloInstructionProto* proto, absl::string_view name,
                      absl::string_view value) {
  xla::HoptTextAttribute* a = proto->add_hopt_text_attributes();
  a->set_name(std::string(name));
  a->set_value(std::string(value));
}

// The ids instructions are written with, by unique_id (dense in a module).
class WriteIds {
 public:
  void Set(const HloInstruction* instruction, int64_t id) {
    size_t slot = static_cast<size_t>(instruction->unique_id());
    if (slot >= ids_.size()) ids_.resize(std::max(slot + 1, 2 * ids_.size()), -1);
    ids_[slot] = id;
  }
  int64_t at(const HloInstruction* instruction) const {
    size_t slot = static_cast<size_t>(instruction->unique_id());
    return slot < ids_.size() ? ids_[slot] : -1;
  }
  void reserve(size_t n) { ids_.reserve(n); }

 private:
  std::vector<int64_t> ids_;
};

absl::Status WriteInstruction(
    const HloInstruction& instruction, const WriteIds& ids,
    const absl::flat_hash_map<const HloComputation*, int64_t>& computation_ids,
    const ProtoSideTable* side, xla::HloInstructionProto* proto) {
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat("computation '", instruction.parent()->name(),
                                                   "', instruction '", instruction.name(),
                                                   "': ", message));
  };
  if (side != nullptr)
    if (const std::string* fields = side->InstructionFields(instruction))
      proto->MergeFromString(*fields);
  proto->set_name(std::string(instruction.name()));
  proto->set_opcode(instruction.OpcodeSpelling());
  ShapeToProto(instruction.shape(), proto->mutable_shape());
  proto->set_id(ids.at(&instruction));
  for (const HloInstruction* operand : instruction.operands()) {
    int64_t id = ids.at(operand);
    if (id < 0) return error(absl::StrCat("operand '", operand->name(), "' is not in the module"));
    proto->add_operand_ids(id);
  }
  if (instruction.has_control_predecessors())
    for (const HloInstruction* p : instruction.control_predecessors()) {
      int64_t id = ids.at(p);
      if (id < 0)
        return error(absl::StrCat("control predecessor '", p->name(), "' is not in the module"));
      proto->add_control_predecessor_ids(id);
    }
  if (instruction.opcode() == HloOpcode::kParameter)
    proto->set_parameter_number(instruction.parameter_number());
  absl::Status status = AttributesToProto(instruction, proto);
  if (!status.ok()) return error(status.message());

  // Called computations: XLA's order in the ids, the attribute layout only
  // when XLA's printer would choose other attribute names.
  std::vector<CallAttribute> calls;
  std::vector<const HloComputation*> called;
  for (const HloAttribute& a : instruction.attributes()) {
    if (a.kind == HloAttribute::Kind::kComputation) {
      calls.push_back({std::string(a.name), false, 1});
    } else if (a.kind == HloAttribute::Kind::kComputationList) {
      calls.push_back({std::string(a.name), true, static_cast<int>(a.computations.size())});
    } else {
      continue;
    }
    for (const HloComputation* c : a.computations) called.push_back(c);
  }
  if (!calls.empty()) {
    for (int position : XlaCallOrder(calls)) {
      auto it = computation_ids.find(called[position]);
      if (it == computation_ids.end()) return error("calls a computation outside the module");
      proto->add_called_computation_ids(it->second);
    }
    if (!(calls == DefaultCalls(instruction.opcode(), static_cast<int>(called.size()),
                                PredSelector(instruction))))
      AddHoptAttribute(proto, kCallsEntry, FormatCalls(calls));
  }

  // Reading adds the codec's attributes in their order, then places the
  // structural ones by XLA's print rank; record the order when that would
  // not restore it.
  bool structural = false;
  for (const HloAttribute& a : instruction.attributes())
    structural |= a.kind != HloAttribute::Kind::kText;
  if (structural) {
    std::vector<absl::string_view> placed, actual;
    for (const HloAttribute& a : instruction.attributes()) {
      actual.push_back(a.name);
      if (a.kind == HloAttribute::Kind::kText) placed.push_back(a.name);
    }
    auto place = [&](absl::string_view name) {
      int rank = AttributePrintRank(instruction.opcode(), name);
      auto it = std::find_if(placed.begin(), placed.end(), [&](absl::string_view other) {
        return AttributePrintRank(instruction.opcode(), other) > rank;
      });
      placed.insert(it, name);
    };
    for (const HloAttribute& a : instruction.attributes())
      if (a.kind == HloAttribute::Kind::kComputation ||
          a.kind == HloAttribute::Kind::kComputationList)
        place(a.name);
    for (const HloAttribute& a : instruction.attributes())
      if (a.kind == HloAttribute::Kind::kInstructionList) place(a.name);
    if (placed != actual) AddHoptAttribute(proto, kAttributeOrder, absl::StrJoin(actual, ","));
  }

  if (instruction.opcode() == HloOpcode::kConstant) {
    absl::string_view text = instruction.literal_text();
    // An elided constant (`{...}`) has no values to write, and parsing it
    // would allocate its full size.
    if (absl::StrContains(text, "...")) {
      AddHoptAttribute(proto, kLiteralEntry, text);
      return absl::OkStatus();
    }
    auto literal = Literal::Parse(instruction.shape(), text);
    if (!literal.ok()) return error(literal.status().message());
    status = LiteralToProto(*literal, proto->mutable_literal());
    if (!status.ok()) return error(status.message());
    bool verbatim = literal->ToText() != text;
    // Types narrower than 32 bits travel as bit patterns, which may not
    // tell apart what the text does (`-nan` of a type with one NaN).
    PrimitiveType type = instruction.shape().element_type();
    if (!verbatim && IsFloatingPointType(type) && PrimitiveTypeBitWidth(type) < 32) {
      auto back = LiteralFromProto(proto->literal(), instruction.shape());
      verbatim = !back.ok() || back->ToText() != text;
    }
    if (verbatim) AddHoptAttribute(proto, kLiteralEntry, text);
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

std::string SerializeDeterministic(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);  // maps in key order
  message.SerializeToCodedStream(&coded);
  return bytes;
}

// Serialized bytes in parts (appending to one string would copy it over
// and over as it grows).
struct Parts {
  std::vector<std::string> parts;
  size_t size = 0;
  void Add(std::string part) {
    size += part.size();
    parts.push_back(std::move(part));
  }
};

// Writes one computation's instructions as they are made, each into a
// fresh message on an arena reset every so often (so that no more than a
// few thousand instruction messages ever exist at once), serialized into
// chunks of about a megabyte.
class InstructionStreamer {
 public:
  static constexpr int kInstructionsField = 2;  // HloComputationProto.instructions

  xla::HloInstructionProto* Next() {
    if (++uses_ == kUses) {
      arena_.Reset();
      uses_ = 0;
    }
    return google::protobuf::Arena::CreateMessage<xla::HloInstructionProto>(&arena_);
  }
  void Append(const xla::HloInstructionProto& instruction) {
    size_t size = instruction.ByteSizeLong();
    if (chunk_.size() + size + 16 > chunk_.capacity()) {
      Flush();
      chunk_.reserve(std::max<size_t>(kChunk, size + 16));
    }
    AppendLengthDelimitedHeader(kInstructionsField, size, &chunk_);
    size_t at = chunk_.size();
    chunk_.resize(at + size);
    google::protobuf::io::ArrayOutputStream stream(chunk_.data() + at, static_cast<int>(size));
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // maps in key order
    instruction.SerializeWithCachedSizes(&coded);
  }
  // The instructions appended since the last call.
  void TakeInto(Parts* out) {
    Flush();
    for (std::string& chunk : written_) out->Add(std::move(chunk));
    written_.clear();
  }

 private:
  static constexpr int kUses = 4096;
  static constexpr size_t kChunk = 1 << 20;
  void Flush() {
    if (!chunk_.empty()) written_.push_back(std::move(chunk_));
    chunk_ = std::string();
  }
  google::protobuf::Arena arena_;
  int uses_ = 0;
  std::string chunk_;
  std::vector<std::string> written_;
};

// The module into `proto`; with `encoded_computations`, the computations
// go there serialized (the payload of each `computations` field) instead
// of into `proto`.
absl::Status WriteModule(const HloModule& module, const ProtoSideTable* side,
                         xla::HloModuleProto* proto, std::vector<Parts>* encoded_computations) {
  if (module.entry_computation() == nullptr)
    return absl::FailedPreconditionError("the module has no entry computation");
  if (side != nullptr) {
    HOPT_RETURN_IF_ERROR(side->CheckBelongsTo(module));
    if (side->empty()) side = nullptr;  // nothing to look up per message
  }
  if (side != nullptr && !side->module_fields().empty())
    proto->MergeFromString(side->module_fields());
  proto->set_name(std::string(module.name()));

  std::vector<HloComputation*> computations = ComputationWriteOrder(module);
  absl::flat_hash_map<const HloComputation*, int64_t> computation_ids;
  for (size_t k = 0; k < computations.size(); ++k) computation_ids[computations[k]] = k;
  absl::flat_hash_set<const HloComputation*> fusion_bodies;
  WriteIds ids;
  int64_t next_id = 0;
  size_t instruction_count = 0;
  for (const HloComputation* computation : computations)
    instruction_count += computation->instruction_count();
  ids.reserve(instruction_count);
  std::vector<std::vector<HloInstruction*>> orders;
  orders.reserve(computations.size());
  for (const HloComputation* computation : computations) {
    orders.push_back(WriteOrder(*computation));
    for (const HloInstruction* instruction : orders.back()) ids.Set(instruction, next_id++);
  }
  for (const HloComputation* computation : computations)
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kFusion)
        for (const HloComputation* callee : instruction->called_computations())
          fusion_bodies.insert(callee);
    }

  xla::HloComputationProto local;
  std::optional<InstructionStreamer> streamer;
  if (encoded_computations != nullptr) streamer.emplace();
  for (size_t k = 0; k < computations.size(); ++k) {
    const HloComputation* computation = computations[k];
    xla::HloComputationProto* c = encoded_computations ? &local : proto->add_computations();
    c->Clear();
    if (side != nullptr)
      if (const std::string* fields = side->ComputationFields(*computation))
        c->MergeFromString(*fields);
    c->set_name(std::string(computation->name()));
    c->set_id(computation_ids[computation]);
    if (!computation->execution_thread().empty())
      c->set_execution_thread(std::string(computation->execution_thread()));
    if (fusion_bodies.contains(computation)) c->set_is_fusion_computation(true);
    const std::vector<HloInstruction*>& order = orders[k];
    if (!streamer) c->mutable_instructions()->Reserve(static_cast<int>(order.size()));
    for (const HloInstruction* instruction : order) {
      xla::HloInstructionProto* i = streamer ? streamer->Next() : c->add_instructions();
      HOPT_RETURN_IF_ERROR(WriteInstruction(*instruction, ids, computation_ids, side, i));
      if (streamer) streamer->Append(*i);
    }
    c->set_root_id(ids.at(computation->root_instruction()));
    xla::ProgramShapeProto* program = c->mutable_program_shape();
    for (const HloInstruction* p : computation->parameter_instructions()) {
      ShapeToProto(p->shape(), program->add_parameters());
      program->add_parameter_names(std::string(p->name()));
    }
    ShapeToProto(computation->root_instruction()->shape(), program->mutable_result());
    if (module.is_scheduled() && !fusion_bodies.contains(computation)) {
      auto& sequence = (*proto->mutable_schedule()->mutable_sequences())[c->id()];
      for (const HloInstruction* instruction : order)
        sequence.add_instruction_ids(ids.at(instruction));
    }
    if (streamer) {
      // The instructions where protobuf's serializer would put them.
      std::string fields = SerializeDeterministic(*c);
      size_t at = OffsetAfterField(fields, InstructionStreamer::kInstructionsField);
      Parts& parts = encoded_computations->emplace_back();
      parts.Add(fields.substr(0, at));
      streamer->TakeInto(&parts);
      parts.Add(fields.substr(at));
    }
  }
  const HloComputation* entry = module.entry_computation();
  proto->set_entry_computation_name(std::string(entry->name()));
  proto->set_entry_computation_id(computation_ids[entry]);
  ProgramLayout layout = module.entry_computation_layout().value_or(module.ComputeEntryLayout());
  if (static_cast<int64_t>(layout.parameters.size()) != entry->num_parameters())
    layout = module.ComputeEntryLayout();
  xla::ProgramShapeProto* host = proto->mutable_host_program_shape();
  for (const Shape& p : layout.parameters) ShapeToProto(p, host->add_parameters());
  ShapeToProto(layout.result, host->mutable_result());
  for (const HloInstruction* p : entry->parameter_instructions())
    host->add_parameter_names(std::string(p->name()));

  auto header = [&](absl::string_view name, absl::string_view value) {
    xla::HoptTextAttribute* a = proto->add_hopt_header_attributes();
    a->set_name(std::string(name));
    a->set_value(std::string(value));
  };
  if (module.replica_count() != 1) header("replica_count", absl::StrCat(module.replica_count()));
  if (module.num_partitions() != 1) header("num_partitions", absl::StrCat(module.num_partitions()));
  if (module.is_scheduled() && computations.size() == fusion_bodies.size())
    header("is_scheduled", "true");  // no sequence to carry the flag
  for (absl::string_view name : kVerbatimHeader)
    if (auto value = module.GetHeaderAttribute(name)) header(name, *value);
  if (auto value = module.GetHeaderAttribute("frontend_attributes")) {
    auto attrs = ParseFrontendAttributes(*value);
    bool typed = attrs.ok();
    if (typed) {
      auto sorted = *attrs;
      std::sort(sorted.begin(), sorted.end());
      typed = FormatFrontendAttributes(sorted) == *value;
      for (const auto& [k, v] : *attrs)
        (*proto->mutable_frontend_attributes()->mutable_map())[k] = v;
    }
    if (!typed) header("frontend_attributes", *value);
  }
  StackFramesToProto(module.stack_frames(), proto);
  return absl::OkStatus();
}

}  // namespace

void StackFramesToProto(const StackFrameIndex& index, xla::HloModuleProto* proto) {
  if (index.file_names.empty() && index.function_names.empty() && index.file_locations.empty() &&
      index.frames.empty())
    return;
  xla::StackFrameIndexProto* out = proto->mutable_stack_frame_index();
  for (const std::string& name : index.file_names) out->add_file_names(name);
  for (const std::string& name : index.function_names) out->add_function_names(name);
  for (const StackFrameIndex::FileLocation& l : index.file_locations) {
    auto* row = out->add_file_locations();
    row->set_file_name_id(l.file_name_id);
    row->set_function_name_id(l.function_name_id);
    row->set_line(l.line);
    row->set_end_line(l.end_line);
    row->set_column(l.column);
    row->set_end_column(l.end_column);
  }
  for (const StackFrameIndex::Frame& f : index.frames) {
    auto* row = out->add_stack_frames();
    row->set_file_location_id(f.file_location_id);
    row->set_parent_frame_id(f.parent_frame_id);
  }
}

absl::Status ModuleToProto(const HloModule& module, xla::HloModuleProto* proto,
                           const ProtoSideTable* side) {
  return WriteModule(module, side, proto, nullptr);
}

absl::Status ModuleToEncodedProto(const HloModule& module, std::vector<std::string>* pieces,
                                  const ProtoSideTable* side) {
  constexpr int kComputationsField = 3;  // HloModuleProto.computations
  xla::HloModuleProto fields;
  std::vector<Parts> computations;
  HOPT_RETURN_IF_ERROR(WriteModule(module, side, &fields, &computations));
  std::string header = SerializeDeterministic(fields);
  size_t at = OffsetAfterField(header, kComputationsField);
  pieces->push_back(header.substr(0, at));
  for (Parts& computation : computations) {
    std::string prefix;
    AppendLengthDelimitedHeader(kComputationsField, computation.size, &prefix);
    pieces->push_back(std::move(prefix));
    for (std::string& part : computation.parts) pieces->push_back(std::move(part));
  }
  pieces->push_back(header.substr(at));
  return absl::OkStatus();
}

}  // namespace hopt

// The structure of a module <-> xla::HloModuleProto (proto_convert.h).

#include "core/ir/proto_convert.h"

#include <algorithm>
#include <cstdint>
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
#include "core/ir/attributes.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/proto_attributes.h"

namespace hopt {
namespace {

// hopt_text_attributes entries of the converter's own (the codec keeps to
// names without a '.'): the constant's text when the typed literal would not
// print it back the same way, and the computation attributes when they are
// not the ones XLA's printer would choose for the opcode.
constexpr absl::string_view kLiteralEntry = "hopt.literal";
constexpr absl::string_view kCallsEntry = "hopt.calls";
// The order of all attributes, when placing the computation references and
// control predecessors where XLA prints them would not restore it.
constexpr absl::string_view kAttributeOrder = "hopt.attributes";

// Header attributes that travel in hopt_header_attributes: XLA keeps them in
// HloModuleConfig or in fields hopt does not map.
constexpr absl::string_view kVerbatimHeader[] = {
    "input_output_alias", "buffer_donor", "alias_passthrough_params",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output", "cross_program_prefetch",
    "cross_program_prefetches"};

// One computation-reference attribute: its name, whether it is a list, and
// how many computations it holds.
struct CallAttribute {
  std::string name;
  bool list = false;
  int count = 1;
  bool operator==(const CallAttribute& o) const {
    return name == o.name && list == o.list && count == o.count;
  }
};

// XLA's called_computation_ids put a while's body before its condition, a
// select-and-scatter's select before its scatter and a conditional's true
// branch first; the text lists them in print order.
int CallRank(absl::string_view name) {
  return name == "condition" || name == "scatter" || name == "false_computation" ? 1 : 0;
}

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
    case HloOpcode::kCustomCall:
      return {{"called_computations", true, count}};
    default:
      break;
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

absl::Status InstructionError(const xla::HloComputationProto& c,
                              const xla::HloInstructionProto& i, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("computation '", c.name(), "', instruction '",
                                                 i.name(), "' (id ", i.id(), "): ", message));
}

}  // namespace

// Builds the IR through the constructors the text parser uses (friend of
// HloModule, HloComputation and HloInstruction).
class ProtoImporter {
 public:
  explicit ProtoImporter(xla::HloModuleProto* proto) : proto_(*proto) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Run() {
    module_ = std::make_unique<HloModule>(proto_.name().empty() ? "module" : proto_.name());
    absl::Status status = ReadHeader();
    if (!status.ok()) return status;
    if (proto_.computations_size() == 0)
      return absl::InvalidArgumentError("the module has no computations");
    // Computations first: instructions refer to them by id.
    for (const xla::HloComputationProto& c : proto_.computations()) {
      if (c.name().empty())
        return absl::InvalidArgumentError(absl::StrCat("computation id ", c.id(), " has no name"));
      if (!computation_names_.insert(c.name()).second)
        return absl::InvalidArgumentError(
            absl::StrCat("computation '", c.name(), "' is defined twice"));
      module_->computations_.emplace_back(
          new HloComputation(module_.get(), module_->arena().Save(c.name())));
      HloComputation* computation = module_->computations_.back().get();
      if (!computations_.emplace(c.id(), computation).second)
        return absl::InvalidArgumentError(absl::StrCat(
            "computation '", c.name(), "' has id ", c.id(), ", which another computation has"));
    }
    for (int i = 0; i < proto_.computations_size(); ++i) {
      status = ReadComputation(proto_.computations(i), module_->computations_[i].get());
      if (!status.ok()) return status;
    }
    status = CheckCallCycles();
    if (!status.ok()) return status;
    status = ReadEntry();
    if (!status.ok()) return status;
    KeepModuleExtras();
    return std::move(module_);
  }

 private:
  absl::Status ReadHeader() {
    for (const xla::HoptTextAttribute& attr : proto_.hopt_header_attributes()) {
      const std::string& name = attr.name();
      if (name == "replica_count" || name == "num_partitions") {
        int64_t n;
        if (!absl::SimpleAtoi(attr.value(), &n) || n < 1)
          return absl::InvalidArgumentError(absl::StrCat(name, " must be a positive integer, got '",
                                                         attr.value(), "'"));
        if (name == "replica_count") module_->set_replica_count(n);
        else module_->set_num_partitions(n);
      } else if (name == "is_scheduled") {
        module_->set_is_scheduled(attr.value() == "true");
      } else {
        module_->SetHeaderAttribute(name, attr.value());
      }
    }
    if (proto_.has_schedule()) module_->set_is_scheduled(true);
    if (proto_.has_frontend_attributes() && !module_->GetHeaderAttribute("frontend_attributes")) {
      std::vector<std::pair<std::string, std::string>> attrs(
          proto_.frontend_attributes().map().begin(), proto_.frontend_attributes().map().end());
      std::sort(attrs.begin(), attrs.end());
      module_->SetHeaderAttribute("frontend_attributes", FormatFrontendAttributes(attrs));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<const Shape*> InternShape(const xla::ShapeProto& proto) {
    // Most instructions share a handful of shapes: convert each once.
    proto.SerializeToString(&shape_key_);
    auto it = shapes_.find(shape_key_);
    if (it != shapes_.end()) return it->second;
    auto shape = ShapeFromProto(proto);
    if (!shape.ok()) return shape.status();
    const Shape* interned = module_->InternShape(*shape);
    shapes_.emplace(shape_key_, interned);
    return interned;
  }

  absl::Status ReadComputation(const xla::HloComputationProto& c, HloComputation* computation) {
    if (!c.execution_thread().empty() && c.execution_thread() != "main")
      computation->set_execution_thread(c.execution_thread());
    absl::flat_hash_map<int64_t, HloInstruction*> by_id;
    absl::flat_hash_set<absl::string_view> names;
    by_id.reserve(c.instructions_size());
    names.reserve(c.instructions_size());
    computation->ReserveInstructions(c.instructions_size());
    std::vector<HloInstruction*> parameters;
    // Pass 1: the instructions themselves.
    for (const xla::HloInstructionProto& i : c.instructions()) {
      if (i.name().empty()) return InstructionError(c, i, "the instruction has no name");
      std::optional<HloOpcode> opcode = StringToHloOpcode(i.opcode());
      std::optional<HloOpcode> wrapped;
      if (!opcode) {
        for (auto [suffix, async] : {std::pair<absl::string_view, HloOpcode>{"-start", HloOpcode::kAsyncStart},
                                     {"-update", HloOpcode::kAsyncUpdate},
                                     {"-done", HloOpcode::kAsyncDone}}) {
          if (!absl::EndsWith(i.opcode(), suffix)) continue;
          wrapped = StringToHloOpcode(absl::string_view(i.opcode()).substr(
              0, i.opcode().size() - suffix.size()));
          if (wrapped) opcode = async;
          break;
        }
      }
      if (!opcode) return InstructionError(c, i, absl::StrCat("unknown opcode '", i.opcode(), "'"));
      if (!i.has_shape()) return InstructionError(c, i, "the instruction has no shape");
      auto shape = InternShape(i.shape());
      if (!shape.ok()) return InstructionError(c, i, shape.status().message());
      absl::string_view name = module_->arena().Save(i.name());
      if (!names.insert(name).second)
        return InstructionError(c, i, "another instruction of this computation has this name");
      HloInstruction* instruction = computation->CreateInstruction(*opcode, *shape, name);
      if (wrapped) instruction->set_async_wrapped_opcode(wrapped);
      if (!by_id.emplace(i.id(), instruction).second)
        return InstructionError(c, i, "another instruction of this computation has this id");
      if (*opcode == HloOpcode::kParameter) {
        int64_t n = i.parameter_number();
        if (n < 0 || n >= c.instructions_size())
          return InstructionError(c, i, absl::StrCat("parameter number ", n, " is out of range"));
        instruction->set_parameter_number(n);
        if (static_cast<int64_t>(parameters.size()) <= n) parameters.resize(n + 1, nullptr);
        if (parameters[n] != nullptr)
          return InstructionError(c, i, absl::StrCat("parameter number ", n, " is taken by '",
                                                     parameters[n]->name(), "'"));
        parameters[n] = instruction;
      }
    }
    for (size_t n = 0; n < parameters.size(); ++n)
      if (parameters[n] == nullptr)
        return absl::InvalidArgumentError(absl::StrCat(
            "computation '", c.name(), "' has no parameter number ", n,
            " (parameter numbers must be consecutive from 0)"));
    // Pass 2: references (operands may come later in the list) and attributes.
    int index = 0;
    std::vector<std::pair<std::string, std::string>> attributes;
    for (const xla::HloInstructionProto& i : c.instructions()) {
      HloInstruction* instruction = computation->instructions_[index++];
      for (int64_t id : i.operand_ids()) {
        auto it = by_id.find(id);
        if (it == by_id.end())
          return InstructionError(c, i, absl::StrCat("operand id ", id,
                                                     " names no instruction of this computation"));
        instruction->AppendOperand(it->second);
      }
      absl::Status status = ReadAttributes(c, i, instruction, &attributes);
      if (!status.ok()) return status;
      if (i.control_predecessor_ids_size() > 0) {
        std::vector<HloInstruction*> predecessors;
        for (int64_t id : i.control_predecessor_ids()) {
          auto it = by_id.find(id);
          if (it == by_id.end())
            return InstructionError(
                c, i, absl::StrCat("control predecessor id ", id,
                                   " names no instruction of this computation"));
          predecessors.push_back(it->second);
        }
        instruction->set_control_predecessors(std::move(predecessors));
      }
      if (order_text_ != nullptr) ReorderAttributes(*order_text_, instruction);
      if (instruction->opcode() == HloOpcode::kConstant) {
        status = ReadLiteral(c, i, instruction);
        if (!status.ok()) return status;
      }
      const auto& unknown = i.GetReflection()->GetUnknownFields(i);
      if (!unknown.empty()) {
        std::string bytes;
        unknown.SerializeToString(&bytes);
        module_->proto_extras()[absl::StrCat("i:", c.name(), "/", i.name())] = std::move(bytes);
      }
    }
    auto root = by_id.find(c.root_id());
    if (root == by_id.end())
      return absl::InvalidArgumentError(absl::StrCat(
          "computation '", c.name(), "': root id ", c.root_id(), " names no instruction of it"));
    computation->SetRootUnchecked(root->second);
    computation->parameters_ = std::move(parameters);
    const auto& unknown = c.GetReflection()->GetUnknownFields(c);
    if (!unknown.empty()) {
      std::string bytes;
      unknown.SerializeToString(&bytes);
      module_->proto_extras()[absl::StrCat("c:", c.name())] = std::move(bytes);
    }
    return CheckCycles(c, *computation);
  }

  absl::Status ReadAttributes(const xla::HloComputationProto& c, const xla::HloInstructionProto& i,
                              HloInstruction* instruction,
                              std::vector<std::pair<std::string, std::string>>* attributes) {
    // The converter's own entries are not the codec's business.
    const xla::HloInstructionProto* codec_input = &i;
    xla::HloInstructionProto stripped;
    const std::string* calls_text = nullptr;
    const std::string* order_text = nullptr;
    literal_text_ = nullptr;
    bool has_own = false;
    for (const xla::HoptTextAttribute& a : i.hopt_text_attributes()) {
      if (a.name() == kCallsEntry) calls_text = &a.value(), has_own = true;
      if (a.name() == kLiteralEntry) literal_text_ = &a.value(), has_own = true;
      if (a.name() == kAttributeOrder) order_text = &a.value(), has_own = true;
    }
    if (has_own) {
      stripped = i;
      auto* own = stripped.mutable_hopt_text_attributes();
      own->erase(std::remove_if(own->begin(), own->end(),
                                [](const xla::HoptTextAttribute& a) {
                                  return a.name() == kCallsEntry || a.name() == kLiteralEntry ||
                                         a.name() == kAttributeOrder;
                                }),
                 own->end());
      codec_input = &stripped;
    }
    order_text_ = order_text;
    attributes->clear();
    absl::Status status = AttributesFromProto(*codec_input, instruction->opcode(), attributes);
    if (!status.ok()) return InstructionError(c, i, status.message());
    StringArena& arena = module_->arena();
    for (const auto& [name, value] : *attributes) {
      HloAttribute attr;
      attr.name = arena.Intern(name);
      attr.value = arena.InternValue(value);
      instruction->AddAttribute(std::move(attr));
    }
    // Called computations, in XLA's order, onto the attributes.
    int count = i.called_computation_ids_size();
    std::vector<CallAttribute> calls;
    if (calls_text != nullptr) {
      if (!ParseCalls(*calls_text, &calls))
        return InstructionError(c, i, absl::StrCat("malformed ", kCallsEntry, " '", *calls_text, "'"));
      int total = 0;
      for (const CallAttribute& a : calls) total += a.count;
      if (total != count)
        return InstructionError(c, i, absl::StrCat(kCallsEntry, " names ", total,
                                                   " computations, called_computation_ids ", count));
    } else {
      calls = DefaultCalls(instruction->opcode(), count, PredSelector(*instruction));
    }
    if (count == 0 && calls.empty()) return absl::OkStatus();
    std::vector<HloComputation*> in_attribute_order(count, nullptr);
    std::vector<int> order = XlaCallOrder(calls);
    for (int k = 0; k < count; ++k) {
      int64_t id = i.called_computation_ids(k);
      auto it = computations_.find(id);
      if (it == computations_.end())
        return InstructionError(c, i, absl::StrCat("called computation id ", id,
                                                   " names no computation"));
      if (it->second == instruction->parent())
        return InstructionError(c, i, "the instruction calls its own computation");
      in_attribute_order[order[k]] = it->second;
    }
    int next = 0;
    for (const CallAttribute& a : calls) {
      std::vector<HloComputation*> group(in_attribute_order.begin() + next,
                                         in_attribute_order.begin() + next + a.count);
      next += a.count;
      if (a.list) instruction->SetComputationListAttribute(a.name, std::move(group));
      else instruction->SetComputationAttribute(a.name, group[0]);
    }
    return absl::OkStatus();
  }

  // Puts the attributes in the order `names` (comma-separated) gives;
  // names it does not list stay after the listed ones.
  static void ReorderAttributes(absl::string_view names, HloInstruction* instruction) {
    if (!instruction->attributes_) return;
    std::vector<HloAttribute>& attrs = *instruction->attributes_;
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

  absl::Status ReadLiteral(const xla::HloComputationProto& c, const xla::HloInstructionProto& i,
                           HloInstruction* instruction) {
    if (literal_text_ != nullptr) {
      absl::Status valid = Literal::Validate(instruction->shape(), *literal_text_);
      if (!valid.ok()) return InstructionError(c, i, valid.message());
      instruction->StoreLiteral(*literal_text_);
      return absl::OkStatus();
    }
    if (!i.has_literal()) return InstructionError(c, i, "the constant has no literal");
    auto literal = LiteralFromProto(i.literal(), instruction->shape());
    if (!literal.ok()) return InstructionError(c, i, literal.status().message());
    instruction->StoreLiteral(literal->ToText());
    return absl::OkStatus();
  }

  // Operands and control predecessors must not form a cycle.
  absl::Status CheckCycles(const xla::HloComputationProto& c, const HloComputation& computation) {
    const auto& list = computation.instructions_;
    std::vector<uint8_t> state(list.size(), 0);  // 0 new, 1 on the stack, 2 done
    std::vector<std::pair<const HloInstruction*, size_t>> stack;
    for (const HloInstruction* start : list) {
      if (state[start->position_] != 0) continue;
      stack.emplace_back(start, 0);
      state[start->position_] = 1;
      while (!stack.empty()) {
        auto& [at, next] = stack.back();
        const HloInstruction* following = nullptr;
        size_t operands = at->operands_.size();
        std::vector<HloInstruction*> controls;
        if (next < operands) {
          following = at->operands_[next];
        } else if (at->has_control_predecessors()) {
          controls = at->control_predecessors();
          if (next - operands < controls.size()) following = controls[next - operands];
        }
        if (following == nullptr) {
          state[at->position_] = 2;
          stack.pop_back();
          continue;
        }
        ++next;
        uint8_t& s = state[following->position_];
        if (s == 1)
          return absl::InvalidArgumentError(absl::StrCat(
              "computation '", c.name(), "': instruction '", following->name(),
              "' depends on itself (a cycle through operands or control predecessors)"));
        if (s == 0) {
          s = 1;
          stack.emplace_back(following, 0);
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckCallCycles() {
    absl::flat_hash_map<const HloComputation*, uint8_t> state;
    std::vector<std::pair<const HloComputation*, std::vector<HloComputation*>>> stack;
    for (const auto& root : module_->computations_) {
      if (state[root.get()] != 0) continue;
      auto callees = [](const HloComputation* c) {
        std::vector<HloComputation*> out;
        for (const HloInstruction* i : c->instructions())
          for (HloComputation* callee : i->called_computations()) out.push_back(callee);
        return out;
      };
      stack.emplace_back(root.get(), callees(root.get()));
      state[root.get()] = 1;
      while (!stack.empty()) {
        auto& [at, pending] = stack.back();
        if (pending.empty()) {
          state[at] = 2;
          stack.pop_back();
          continue;
        }
        HloComputation* next = pending.back();
        pending.pop_back();
        uint8_t& s = state[next];
        if (s == 1)
          return absl::InvalidArgumentError(
              absl::StrCat("computation '", next->name(), "' calls itself (through '", at->name(), "')"));
        if (s == 0) {
          s = 1;
          stack.emplace_back(next, callees(next));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadEntry() {
    HloComputation* entry = nullptr;
    auto by_id = computations_.find(proto_.entry_computation_id());
    if (by_id != computations_.end() &&
        (proto_.entry_computation_name().empty() ||
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
    if (!rest.empty()) module_->proto_extras()[""] = std::move(rest);
  }

  xla::HloModuleProto& proto_;
  std::unique_ptr<HloModule> module_;
  absl::flat_hash_map<int64_t, HloComputation*> computations_;
  absl::flat_hash_set<std::string> computation_names_;
  absl::flat_hash_map<std::string, const Shape*> shapes_;
  std::string shape_key_;
  const std::string* literal_text_ = nullptr;
  const std::string* order_text_ = nullptr;
};

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(xla::HloModuleProto* proto) {
  return ProtoImporter(proto).Run();
}

// ---- writing ---------------------------------------------------------------

namespace {

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

absl::Status WriteInstruction(const HloInstruction& instruction,
                              const absl::flat_hash_map<const HloInstruction*, int64_t>& ids,
                              const absl::flat_hash_map<const HloComputation*, int64_t>& computation_ids,
                              const HloModule& module, xla::HloInstructionProto* proto) {
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat("computation '", instruction.parent()->name(),
                                                   "', instruction '", instruction.name(),
                                                   "': ", message));
  };
  if (!module.proto_extras().empty()) {
    auto extra = module.proto_extras().find(
        absl::StrCat("i:", instruction.parent()->name(), "/", instruction.name()));
    if (extra != module.proto_extras().end()) proto->MergeFromString(extra->second);
  }
  proto->set_name(std::string(instruction.name()));
  proto->set_opcode(instruction.OpcodeSpelling());
  ShapeToProto(instruction.shape(), proto->mutable_shape());
  proto->set_id(ids.at(&instruction));
  for (const HloInstruction* operand : instruction.operands()) proto->add_operand_ids(ids.at(operand));
  if (instruction.has_control_predecessors())
    for (const HloInstruction* p : instruction.control_predecessors())
      proto->add_control_predecessor_ids(ids.at(p));
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
      if (a.kind == HloAttribute::Kind::kComputation || a.kind == HloAttribute::Kind::kComputationList)
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

absl::Status ModuleToProto(const HloModule& module, xla::HloModuleProto* proto) {
  if (module.entry_computation() == nullptr)
    return absl::FailedPreconditionError("the module has no entry computation");
  const auto& extras = module.proto_extras();
  if (auto rest = extras.find(""); rest != extras.end()) proto->MergeFromString(rest->second);
  proto->set_name(std::string(module.name()));

  std::vector<HloComputation*> computations = ComputationWriteOrder(module);
  absl::flat_hash_map<const HloComputation*, int64_t> computation_ids;
  for (size_t k = 0; k < computations.size(); ++k) computation_ids[computations[k]] = k;
  absl::flat_hash_set<const HloComputation*> fusion_bodies;
  absl::flat_hash_map<const HloInstruction*, int64_t> ids;
  int64_t next_id = 0;
  std::vector<std::vector<HloInstruction*>> orders;
  orders.reserve(computations.size());
  for (const HloComputation* computation : computations) {
    orders.push_back(WriteOrder(*computation));
    for (const HloInstruction* instruction : orders.back()) ids[instruction] = next_id++;
  }
  for (const HloComputation* computation : computations)
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kFusion)
        for (const HloComputation* callee : instruction->called_computations())
          fusion_bodies.insert(callee);
    }

  for (size_t k = 0; k < computations.size(); ++k) {
    const HloComputation* computation = computations[k];
    xla::HloComputationProto* c = proto->add_computations();
    if (auto extra = extras.find(absl::StrCat("c:", computation->name())); extra != extras.end())
      c->MergeFromString(extra->second);
    c->set_name(std::string(computation->name()));
    c->set_id(computation_ids[computation]);
    if (!computation->execution_thread().empty())
      c->set_execution_thread(std::string(computation->execution_thread()));
    if (fusion_bodies.contains(computation)) c->set_is_fusion_computation(true);
    const std::vector<HloInstruction*>& order = orders[k];
    c->mutable_instructions()->Reserve(static_cast<int>(order.size()));
    for (const HloInstruction* instruction : order) {
      absl::Status status =
          WriteInstruction(*instruction, ids, computation_ids, module, c->add_instructions());
      if (!status.ok()) return status;
    }
    c->set_root_id(ids[computation->root_instruction()]);
    xla::ProgramShapeProto* program = c->mutable_program_shape();
    for (const HloInstruction* p : computation->parameter_instructions()) {
      ShapeToProto(p->shape(), program->add_parameters());
      program->add_parameter_names(std::string(p->name()));
    }
    ShapeToProto(computation->root_instruction()->shape(), program->mutable_result());
    if (module.is_scheduled() && !fusion_bodies.contains(computation)) {
      auto& sequence = (*proto->mutable_schedule()->mutable_sequences())[c->id()];
      for (const HloInstruction* instruction : order) sequence.add_instruction_ids(ids[instruction]);
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
      for (const auto& [k, v] : *attrs) (*proto->mutable_frontend_attributes()->mutable_map())[k] = v;
    }
    if (!typed) header("frontend_attributes", *value);
  }
  return absl::OkStatus();
}

}  // namespace hopt

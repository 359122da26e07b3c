// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/printer.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/attributes.h"

namespace hopt {
namespace {

class Printer {
 public:
  Printer(const PrintOptions& options, const std::function<void(absl::string_view)>* sink,
          size_t chunk_bytes)
      : options_(options), sink_(sink), chunk_bytes_(chunk_bytes) {}

  void Module(const HloModule& module);
  void Computation(const HloComputation& computation);
  void Instruction(const HloInstruction& instruction);
  std::string Take() {
    std::string result;
    result.swap(out_);
    return result;
  }
  void Flush() {
    if (sink_ != nullptr && !out_.empty()) {
      (*sink_)(out_);
      out_.clear();
    }
  }

 private:
  bool long_style() const { return options_.style == PrintOptions::Style::kLong; }
  void Name(absl::string_view name) {
    if (long_style()) out_.push_back('%');
    out_.append(name.data(), name.size());
  }
  void MaybeFlush() {
    if (sink_ != nullptr && out_.size() >= chunk_bytes_) Flush();
  }
  void Attribute(const HloAttribute& attr);
  void ProgramLayoutText(const ProgramLayout& layout);

  // Shapes are interned, so each one's text is formatted once.
  void AppendShape(const Shape& shape) {
    auto [it, inserted] = shape_text_.try_emplace(&shape);
    if (inserted) shape.AppendTo(&it->second, true);
    out_.append(it->second);
  }

  const PrintOptions& options_;
  absl::flat_hash_map<const Shape*, std::string> shape_text_;
  const std::function<void(absl::string_view)>* sink_;
  size_t chunk_bytes_;
  std::string out_;
};

void Printer::ProgramLayoutText(const ProgramLayout& layout) {
  out_.append("{(");
  for (size_t i = 0; i < layout.parameters.size(); ++i) {
    if (i) out_.append(", ");
    if (i && i % 5 == 0) absl::StrAppend(&out_, "/*index=", i, "*/");
    layout.parameters[i].AppendTo(&out_, true);
  }
  out_.append(")->");
  layout.result.AppendTo(&out_, true);
  out_.push_back('}');
}

static bool LayoutMatchesEntry(const ProgramLayout& layout, const HloModule& module) {
  ProgramLayout entry = module.ComputeEntryLayout();
  if (layout.parameters.size() != entry.parameters.size()) return false;
  for (size_t i = 0; i < entry.parameters.size(); ++i)
    if (!layout.parameters[i].Compatible(entry.parameters[i])) return false;
  return layout.result.Compatible(entry.result);
}

void Printer::Module(const HloModule& module) {
  absl::StrAppend(&out_, "HloModule ", module.name());
  if (module.is_scheduled()) out_.append(", is_scheduled=true");
  auto header = [&](absl::string_view name) {
    if (auto value = module.GetHeaderAttribute(name))
      absl::StrAppend(&out_, ", ", name, "=", *value);
  };
  header("input_output_alias");
  header("buffer_donor");
  header("alias_passthrough_params");
  if (module.entry_computation() != nullptr) {
    out_.append(", entry_computation_layout=");
    const auto& given = module.entry_computation_layout();
    if (given && LayoutMatchesEntry(*given, module))
      ProgramLayoutText(*given);
    else
      ProgramLayoutText(module.ComputeEntryLayout());
  }
  header("allow_spmd_sharding_propagation_to_parameters");
  header("allow_spmd_sharding_propagation_to_output");
  if (module.replica_count() != 1)
    absl::StrAppend(&out_, ", replica_count=", module.replica_count());
  if (module.num_partitions() != 1)
    absl::StrAppend(&out_, ", num_partitions=", module.num_partitions());
  header("frontend_attributes");
  header("cross_program_prefetch");
  header("cross_program_prefetches");
  if (!module.stack_frames().empty()) {
    out_.append("\n\n");
    module.stack_frames().AppendText(&out_);
  }
  out_.append("\n\n");
  for (const HloComputation* computation : module.MakeComputationPostOrder()) {
    Computation(*computation);
    out_.append("\n\n");
    MaybeFlush();
  }
}

void Printer::Computation(const HloComputation& computation) {
  if (computation.IsEntryComputation()) out_.append("ENTRY ");
  Name(computation.name());
  if (long_style()) {
    out_.append(" (");
    for (int64_t i = 0; i < computation.num_parameters(); ++i) {
      const HloInstruction* p = computation.parameter_instruction(i);
      if (i) out_.append(", ");
      absl::StrAppend(&out_, p->name(), ": ");
      p->shape().AppendTo(&out_, false);
    }
    out_.append(") -> ");
    computation.root_instruction()->shape().AppendTo(&out_, false);
  }
  out_.append(" {\n");
  bool scheduled = computation.parent()->is_scheduled();
  auto print_line = [&](const HloInstruction* instruction) {
    out_.append("  ");
    if (instruction == computation.root_instruction()) out_.append("ROOT ");
    Instruction(*instruction);
    out_.push_back('\n');
    MaybeFlush();
  };
  if (scheduled) {
    for (const HloInstruction* instruction : computation.instructions()) print_line(instruction);
  } else {
    for (const HloInstruction* instruction : computation.MakeInstructionPostOrder())
      print_line(instruction);
  }
  out_.push_back('}');
  if (!computation.execution_thread().empty())
    absl::StrAppend(&out_, ", execution_thread=", QuoteString(computation.execution_thread()));
}

void Printer::Attribute(const HloAttribute& attr) {
  out_.append(", ");
  out_.append(attr.name.data(), attr.name.size());
  out_.push_back('=');
  switch (attr.kind) {
    case HloAttribute::Kind::kText: out_.append(attr.value.data(), attr.value.size()); return;
    case HloAttribute::Kind::kComputation:
      Name(attr.computations.empty() ? absl::string_view() : attr.computations[0]->name());
      return;
    case HloAttribute::Kind::kComputationList:
      out_.push_back('{');
      for (size_t i = 0; i < attr.computations.size(); ++i) {
        if (i) out_.append(", ");
        Name(attr.computations[i]->name());
      }
      out_.push_back('}');
      return;
    case HloAttribute::Kind::kInstructionList:
      out_.push_back('{');
      for (size_t i = 0; i < attr.instructions.size(); ++i) {
        if (i) out_.append(", ");
        Name(attr.instructions[i]->name());
      }
      out_.push_back('}');
      return;
  }
}

void Printer::Instruction(const HloInstruction& instruction) {
  Name(instruction.name());
  out_.append(" = ");
  AppendShape(instruction.shape());
  out_.push_back(' ');
  if (instruction.async_wrapped_opcode()) {
    out_.append(instruction.OpcodeSpelling());
  } else {
    absl::string_view spelling = HloOpcodeString(instruction.opcode());
    out_.append(spelling.data(), spelling.size());
  }
  out_.push_back('(');
  if (instruction.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&out_, instruction.parameter_number());
  } else if (instruction.opcode() == HloOpcode::kConstant) {
    out_.append(instruction.literal_text().data(), instruction.literal_text().size());
  } else {
    bool shapes = long_style() && options_.print_operand_shapes;
    const auto& operands = instruction.operands();
    for (size_t i = 0; i < operands.size(); ++i) {
      if (i) out_.append(", ");
      if (i && i % 5 == 0 && long_style()) absl::StrAppend(&out_, "/*index=", i, "*/");
      if (shapes) {
        AppendShape(operands[i]->shape());
        out_.push_back(' ');
      }
      Name(operands[i]->name());
    }
  }
  out_.push_back(')');
  for (const HloAttribute& attr : instruction.attributes()) Attribute(attr);
}

}  // namespace

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  Printer printer(options, nullptr, 0);
  printer.Module(module);
  return printer.Take();
}

void PrintModule(const HloModule& module, const PrintOptions& options,
                 const std::function<void(absl::string_view)>& sink, size_t chunk_bytes) {
  Printer printer(options, &sink, chunk_bytes);
  printer.Module(module);
  printer.Flush();
}

std::string PrintComputation(const HloComputation& computation, const PrintOptions& options) {
  Printer printer(options, nullptr, 0);
  printer.Computation(computation);
  return printer.Take();
}

std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options) {
  Printer printer(options, nullptr, 0);
  printer.Instruction(instruction);
  return printer.Take();
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/structural_compare.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"

namespace hopt {
namespace {

// Parameters by number, the post order from the root, then what the root
// does not reach (list order); a scheduled module's list order as is.
std::vector<const HloInstruction*> CanonicalInstructionOrderFor(const HloComputation& computation) {
  std::vector<const HloInstruction*> order;
  order.reserve(computation.instruction_count());
  if (computation.parent() != nullptr && computation.parent()->is_scheduled()) {
    for (const HloInstruction* instruction : computation.instructions())
      order.push_back(instruction);
    return order;
  }
  absl::flat_hash_set<const HloInstruction*> seen;
  seen.reserve(computation.instruction_count());
  for (const HloInstruction* parameter : computation.parameter_instructions())
    if (parameter != nullptr && seen.insert(parameter).second) order.push_back(parameter);
  // Deep chains are common (a long elementwise chain): no recursion.
  std::vector<std::pair<const HloInstruction*, bool>> stack;
  auto walk = [&](const HloInstruction* start) {
    if (seen.contains(start)) return;
    stack.push_back({start, false});
    while (!stack.empty()) {
      auto [current, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        order.push_back(current);
        continue;
      }
      if (!seen.insert(current).second) continue;
      stack.push_back({current, true});
      std::vector<HloInstruction*> predecessors = current->control_predecessors();
      for (auto it = predecessors.rbegin(); it != predecessors.rend(); ++it)
        if (!seen.contains(*it)) stack.push_back({*it, false});
      const auto& operands = current->operands();
      for (auto it = operands.rbegin(); it != operands.rend(); ++it)
        if (!seen.contains(*it)) stack.push_back({*it, false});
    }
  };
  if (computation.root_instruction() != nullptr) walk(computation.root_instruction());
  for (const HloInstruction* instruction : computation.instructions()) walk(instruction);
  return order;
}

// Computations callees first, from the entry; then the ones the entry does
// not reach, in the module's order (each with its own callees first).
std::vector<const HloComputation*> CanonicalComputationOrder(const HloModule& module) {
  std::vector<const HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> seen;
  auto walk = [&](const HloComputation* start) {
    if (seen.contains(start)) return;
    std::vector<std::pair<const HloComputation*, bool>> stack = {{start, false}};
    while (!stack.empty()) {
      auto [computation, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        order.push_back(computation);
        continue;
      }
      if (!seen.insert(computation).second) continue;
      stack.push_back({computation, true});
      std::vector<const HloComputation*> callees;
      for (const HloInstruction* instruction : CanonicalInstructionOrderFor(*computation))
        for (const HloComputation* callee : instruction->called_computations())
          callees.push_back(callee);
      for (auto it = callees.rbegin(); it != callees.rend(); ++it)
        if (!seen.contains(*it)) stack.push_back({*it, false});
    }
  };
  if (module.entry_computation() != nullptr) walk(module.entry_computation());
  for (const HloComputation* computation : module.computations()) walk(computation);
  return order;
}

struct CanonicalComputation {
  const HloComputation* computation;
  std::string header;
  std::vector<std::string> lines;
  std::vector<const HloInstruction*> instructions;  // parallel to lines
};

struct CanonicalModule {
  std::string header;
  std::vector<CanonicalComputation> computations;
};

std::string HeaderLine(const HloModule& module) {
  std::string line = absl::StrCat("replica_count=", module.replica_count(),
                                  ", num_partitions=", module.num_partitions());
  if (module.is_scheduled()) line.append(", is_scheduled=true");
  std::vector<std::pair<absl::string_view, absl::string_view>> attributes =
      module.header_attributes();
  std::stable_sort(attributes.begin(), attributes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, value] : attributes) absl::StrAppend(&line, ", ", name, "=", value);
  return line;
}

CanonicalModule Canonicalize(const HloModule& module) {
  CanonicalModule result;
  result.header = HeaderLine(module);
  std::vector<const HloComputation*> computations = CanonicalComputationOrder(module);
  absl::flat_hash_map<const HloComputation*, std::string> computation_names;
  for (size_t i = 0; i < computations.size(); ++i)
    computation_names[computations[i]] = absl::StrCat("%c", i);
  auto computation_name = [&](const HloComputation* c) -> std::string {
    auto it = computation_names.find(c);
    return it == computation_names.end() ? "%<foreign computation>" : it->second;
  };

  for (const HloComputation* computation : computations) {
    CanonicalComputation canonical{computation, {}, {}, {}};
    canonical.header = absl::StrCat(computation->IsEntryComputation() ? "ENTRY " : "",
                                    computation_name(computation));
    if (!computation->execution_thread().empty())
      absl::StrAppend(&canonical.header, ", execution_thread=\"", computation->execution_thread(),
                      "\"");
    canonical.instructions = CanonicalInstructionOrderFor(*computation);
    absl::flat_hash_map<const HloInstruction*, std::string> names;
    names.reserve(canonical.instructions.size());
    for (size_t i = 0; i < canonical.instructions.size(); ++i)
      names[canonical.instructions[i]] = absl::StrCat("%", i);
    auto name = [&](const HloInstruction* i) -> std::string {
      auto it = names.find(i);
      return it == names.end() ? "%<foreign instruction>" : it->second;
    };
    for (const HloInstruction* instruction : canonical.instructions) {
      std::string line;
      if (instruction == computation->root_instruction()) line.append("ROOT ");
      absl::StrAppend(&line, name(instruction), " = ");
      instruction->shape().AppendTo(&line, true);
      absl::StrAppend(&line, " ", instruction->OpcodeSpelling(), "(");
      if (instruction->opcode() == HloOpcode::kParameter) {
        absl::StrAppend(&line, instruction->parameter_number());
      } else if (instruction->opcode() == HloOpcode::kConstant) {
        line.append(instruction->literal_text().data(), instruction->literal_text().size());
      } else {
        std::vector<std::string> operands;
        for (const HloInstruction* operand : instruction->operands())
          operands.push_back(name(operand));
        line.append(absl::StrJoin(operands, ", "));
      }
      line.push_back(')');
      // The order attributes were added in says nothing about the program.
      std::vector<const HloAttribute*> attributes;
      for (const HloAttribute& attribute : instruction->attributes())
        attributes.push_back(&attribute);
      std::stable_sort(
          attributes.begin(), attributes.end(),
          [](const HloAttribute* a, const HloAttribute* b) { return a->name < b->name; });
      for (const HloAttribute* attribute : attributes) {
        absl::StrAppend(&line, ", ", attribute->name, "=");
        switch (attribute->kind) {
          case HloAttribute::Kind::kText:
            line.append(attribute->value.data(), attribute->value.size());
            break;
          case HloAttribute::Kind::kComputation:
            line.append(attribute->computations.empty()
                            ? std::string()
                            : computation_name(attribute->computations[0]));
            break;
          case HloAttribute::Kind::kComputationList: {
            std::vector<std::string> callees;
            for (const HloComputation* c : attribute->computations)
              callees.push_back(computation_name(c));
            absl::StrAppend(&line, "{", absl::StrJoin(callees, ", "), "}");
            break;
          }
          case HloAttribute::Kind::kInstructionList: {
            // Control predecessors are a set.
            std::vector<std::string> listed;
            for (const HloInstruction* i : attribute->instructions) listed.push_back(name(i));
            std::sort(listed.begin(), listed.end());
            absl::StrAppend(&line, "{", absl::StrJoin(listed, ", "), "}");
            break;
          }
        }
      }
      canonical.lines.push_back(std::move(line));
    }
    result.computations.push_back(std::move(canonical));
  }
  return result;
}

std::string ComputationWhere(const HloComputation* first, const HloComputation* second) {
  if (first == nullptr)
    return absl::StrCat("computation '", second->name(), "' (second module only)");
  if (second == nullptr)
    return absl::StrCat("computation '", first->name(), "' (first module only)");
  if (first->name() == second->name()) return absl::StrCat("computation '", first->name(), "'");
  return absl::StrCat("computation '", first->name(), "' ('", second->name(), "')");
}

}  // namespace

std::string StructuralDifference::Describe(absl::string_view first_label,
                                           absl::string_view second_label) const {
  auto side = [](absl::string_view label, const std::string& line, const std::string& name) {
    std::string text =
        line == "(none)" ? absl::StrCat(label, " (none)") : absl::StrCat(label, " '", line, "'");
    if (!name.empty()) absl::StrAppend(&text, " (", name, ")");
    return text;
  };
  std::string text = where;
  if (instruction >= 0) absl::StrAppend(&text, ", first difference at instruction ", instruction);
  absl::StrAppend(&text, ": ", side(first_label, first_line, first_name), " vs ",
                  side(second_label, second_line, second_name));
  return text;
}

std::optional<StructuralDifference> FindStructuralDifference(const HloModule& first,
                                                             const HloModule& second) {
  CanonicalModule a = Canonicalize(first);
  CanonicalModule b = Canonicalize(second);
  if (a.header != b.header)
    return StructuralDifference{"module header", -1, a.header, b.header, "", ""};
  size_t computations = std::max(a.computations.size(), b.computations.size());
  for (size_t c = 0; c < computations; ++c) {
    const CanonicalComputation* ca = c < a.computations.size() ? &a.computations[c] : nullptr;
    const CanonicalComputation* cb = c < b.computations.size() ? &b.computations[c] : nullptr;
    std::string where =
        ComputationWhere(ca ? ca->computation : nullptr, cb ? cb->computation : nullptr);
    if (ca == nullptr || cb == nullptr || ca->header != cb->header)
      return StructuralDifference{where, -1, ca ? ca->header : "(none)", cb ? cb->header : "(none)",
                                  "",    ""};
    size_t lines = std::max(ca->lines.size(), cb->lines.size());
    for (size_t i = 0; i < lines; ++i) {
      bool in_a = i < ca->lines.size(), in_b = i < cb->lines.size();
      if (in_a && in_b && ca->lines[i] == cb->lines[i]) continue;
      return StructuralDifference{where,
                                  static_cast<int64_t>(i),
                                  in_a ? ca->lines[i] : "(none)",
                                  in_b ? cb->lines[i] : "(none)",
                                  in_a ? std::string(ca->instructions[i]->name()) : "",
                                  in_b ? std::string(cb->instructions[i]->name()) : ""};
    }
  }
  return std::nullopt;
}

std::string CanonicalModuleText(const HloModule& module) {
  CanonicalModule canonical = Canonicalize(module);
  std::string text = canonical.header + "\n";
  for (const CanonicalComputation& computation : canonical.computations) {
    absl::StrAppend(&text, computation.header, " {\n");
    for (const std::string& line : computation.lines) absl::StrAppend(&text, "  ", line, "\n");
    text.append("}\n");
  }
  return text;
}

}  // namespace hopt

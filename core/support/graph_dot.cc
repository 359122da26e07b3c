// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/graph_dot.h"

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/stack_frames.h"
#include "hopt/support/graphviz.h"

namespace hopt {
namespace {

// Labels stay legible: a long tuple shape is cut.
constexpr size_t kMaxShapeChars = 60;
// Opcodes named in a summary node; the rest are "...".
constexpr size_t kSummaryOpcodes = 4;
// Operand indices named on an edge that stands for several.
constexpr size_t kNamedOperandIndices = 6;
// Above this many drawn nodes Graphviz's layout time explodes: a kept
// value read layers later (a weight, an activation kept for the backward
// pass) becomes a chain of virtual nodes across every rank in between, and
// the x-coordinate network simplex over those (hundreds of thousands for a
// 96-layer module) takes minutes. Bounding its iterations and the crossing
// minimisation keeps `dot -Tsvg` in seconds at the price of a less compact
// layout (stages.dot does the same for large splits).
constexpr int64_t kFastLayoutNodes = 400;
constexpr const char* kFastLayoutAttributes =
    "  mclimit=0.01; nslimit=0.0001; nslimit1=0.0001; remincross=false; splines=false;\n";

constexpr const char* kCollectiveColor = "#ffd8a8";
constexpr const char* kCustomCallColor = "#e5dbff";
constexpr const char* kMarkerColor = "#b2f2bb";
constexpr const char* kControlFlowColor = "#a5d8ff";
constexpr const char* kParameterColor = "#fff9db";
constexpr const char* kSummaryColor = "#e9ecef";

bool IsCollectiveOpcode(HloOpcode opcode) {
  if (IsCollective(opcode)) return true;
  switch (opcode) {
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone: return true;
    default: return false;
  }
}

const char* ColorOf(DotHighlight highlight) {
  switch (highlight) {
    case DotHighlight::kCollective: return kCollectiveColor;
    case DotHighlight::kCustomCall: return kCustomCallColor;
    case DotHighlight::kMarker: return kMarkerColor;
    case DotHighlight::kControlFlow: return kControlFlowColor;
    case DotHighlight::kNone: break;
  }
  return nullptr;
}

std::string WithThousands(int64_t n) {
  std::string digits = absl::StrCat(n < 0 ? -n : n);
  std::string out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out.push_back(',');
    out.push_back(digits[k]);
  }
  return n < 0 ? "-" + out : out;
}

std::string ShapeText(const Shape& shape) {
  std::string text = shape.ToString(/*print_layout=*/false);
  if (text.size() > kMaxShapeChars) text = text.substr(0, kMaxShapeChars - 3) + "...";
  return text;
}

// "body=%b, condition=%c": the computations a control-flow instruction runs.
std::string CalledComputationsText(const HloInstruction& instruction) {
  std::vector<std::string> parts;
  for (const HloAttribute& attribute : instruction.attributes()) {
    if (attribute.kind == HloAttribute::Kind::kComputation && !attribute.computations.empty()) {
      parts.push_back(absl::StrCat(attribute.name, "=%", attribute.computations[0]->name()));
    } else if (attribute.kind == HloAttribute::Kind::kComputationList) {
      std::vector<std::string> names;
      for (const HloComputation* callee : attribute.computations)
        names.push_back(absl::StrCat("%", callee->name()));
      parts.push_back(absl::StrCat(attribute.name, "={", absl::StrJoin(names, ", "), "}"));
    }
  }
  return absl::StrJoin(parts, "\n");
}

std::string NodeStatement(const HloInstruction& instruction, int64_t id, DotHighlight highlight,
                          bool is_root) {
  std::string label = absl::StrCat(is_root ? "ROOT " : "", instruction.name(), "\n");
  if (instruction.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&label, "parameter(", instruction.parameter_number(), ")");
  } else {
    absl::StrAppend(&label, instruction.OpcodeSpelling());
  }
  if (instruction.opcode() == HloOpcode::kCustomCall)
    absl::StrAppend(&label, "\n\"", instruction.custom_call_target(), "\"");
  if (highlight == DotHighlight::kControlFlow) {
    std::string called = CalledComputationsText(instruction);
    if (!called.empty()) absl::StrAppend(&label, "\n", called);
  }
  absl::StrAppend(&label, "\n", ShapeText(instruction.shape()));

  std::string statement = absl::StrCat("  n", id, " [label=\"", EscapeDotString(label), "\"");
  if (instruction.opcode() == HloOpcode::kParameter)
    absl::StrAppend(&statement, ", shape=ellipse, fillcolor=\"", kParameterColor, "\"");
  if (const char* color = ColorOf(highlight))
    absl::StrAppend(&statement, ", fillcolor=\"", color, "\"");
  if (is_root) absl::StrAppend(&statement, ", peripheries=2, penwidth=2");
  // Graphviz shows a tooltip on hover in SVG: the program line that made
  // the instruction, which is what a reader of a big graph asks first.
  std::string source = SourceLineOf(instruction, /*with_function=*/true);
  if (!source.empty()) absl::StrAppend(&statement, ", tooltip=\"", EscapeDotString(source), "\"");
  statement += "];\n";
  return statement;
}

void AppendLegend(bool summarised, std::string* dot) {
  *dot += "  subgraph cluster_legend {\n    label=\"legend\"; style=dashed; fontsize=10;\n";
  absl::StrAppend(dot, "    legend_collective [label=\"collective\", fillcolor=\"",
                  kCollectiveColor, "\"];\n");
  absl::StrAppend(dot, "    legend_custom_call [label=\"custom-call\", fillcolor=\"",
                  kCustomCallColor, "\"];\n");
  absl::StrAppend(dot, "    legend_marker [label=\"boundary marker\", fillcolor=\"", kMarkerColor,
                  "\"];\n");
  absl::StrAppend(dot,
                  "    legend_control_flow [label=\"while / call / conditional\", fillcolor=\"",
                  kControlFlowColor, "\"];\n");
  absl::StrAppend(dot, "    legend_parameter [label=\"parameter\", shape=ellipse, fillcolor=\"",
                  kParameterColor, "\"];\n");
  *dot += "    legend_root [label=\"ROOT\", peripheries=2, penwidth=2];\n";
  if (summarised)
    absl::StrAppend(dot,
                    "    legend_summary [label=\"run of other instructions\", shape=note, "
                    "style=filled, fillcolor=\"",
                    kSummaryColor, "\"];\n");
  *dot +=
      "    legend_data_from [shape=point]; legend_data_to [shape=point];\n"
      "    legend_data_from -> legend_data_to [label=\"operand -> user\"];\n"
      "    legend_control_from [shape=point]; legend_control_to [shape=point];\n"
      "    legend_control_from -> legend_control_to [style=dashed, label=\"control\"];\n"
      "  }\n";
}

// An edge that stands for several operand uses (or control edges) between
// two drawn nodes, at least one of them a summary.
struct Aggregate {
  std::string from, to;
  bool control = false;
  int64_t count = 0;
  // Operand indices, when the user is drawn on its own and has several.
  std::vector<int64_t> indices;
};

}  // namespace

void DotHighlightTable::AddTarget(absl::string_view target, DotHighlight highlight) {
  targets_[std::string(target)] = highlight;
}

void DotHighlightTable::AddPrefix(absl::string_view prefix, DotHighlight highlight) {
  prefixes_.emplace_back(std::string(prefix), highlight);
}

DotHighlight DotHighlightTable::Of(absl::string_view target) const {
  if (auto it = targets_.find(target); it != targets_.end()) return it->second;
  DotHighlight found = DotHighlight::kCustomCall;
  size_t longest = 0;
  for (const auto& [prefix, highlight] : prefixes_)
    if (prefix.size() >= longest && absl::StartsWith(target, prefix)) {
      longest = prefix.size();
      found = highlight;
    }
  return found;
}

DotHighlight DotHighlightOf(const HloInstruction& instruction, const DotHighlightTable* table) {
  const HloOpcode opcode = instruction.opcode();
  if (opcode == HloOpcode::kCustomCall)
    return table == nullptr ? DotHighlight::kCustomCall
                            : table->Of(instruction.custom_call_target());
  if (IsCollectiveOpcode(opcode)) return DotHighlight::kCollective;
  if (opcode == HloOpcode::kAsyncStart || opcode == HloOpcode::kAsyncUpdate ||
      opcode == HloOpcode::kAsyncDone) {
    std::optional<HloOpcode> wrapped = instruction.async_wrapped_opcode();
    if (wrapped && IsCollectiveOpcode(*wrapped)) return DotHighlight::kCollective;
  }
  if (opcode == HloOpcode::kWhile || opcode == HloOpcode::kCall ||
      opcode == HloOpcode::kConditional)
    return DotHighlight::kControlFlow;
  return DotHighlight::kNone;
}

std::string ComputationToDot(const HloComputation& computation, const DotGraphOptions& options,
                             DotGraphStats* stats_out) {
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  const int64_t n = static_cast<int64_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  position.reserve(order.size());
  for (int64_t i = 0; i < n; ++i) position.emplace(order[i], i);
  auto position_of = [&](const HloInstruction* instruction) {
    auto it = position.find(instruction);
    return it == position.end() ? int64_t{-1} : it->second;
  };
  std::vector<DotHighlight> highlight(n);
  for (int64_t i = 0; i < n; ++i) highlight[i] = DotHighlightOf(*order[i], options.highlights);
  const HloInstruction* root = computation.root_instruction();

  DotGraphStats stats;
  stats.instructions = n;
  stats.summarised = options.max_nodes > 0 && n > options.max_nodes;
  std::vector<uint8_t> kept(n, stats.summarised ? 0 : 1);
  if (stats.summarised) {
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* instruction = order[i];
      if (highlight[i] == DotHighlight::kNone && instruction->opcode() != HloOpcode::kParameter &&
          instruction != root)
        continue;
      kept[i] = 1;
      for (const HloInstruction* operand : instruction->operands())
        if (int64_t j = position_of(operand); j >= 0) kept[j] = 1;
      for (const HloInstruction* user : instruction->users())
        if (int64_t j = position_of(user); j >= 0) kept[j] = 1;
    }
  }

  // Drawn node of each instruction: its own ("n<position>") or the summary
  // of its run ("s<k>").
  struct Run {
    int64_t first, last;
  };
  std::vector<Run> runs;
  std::vector<int64_t> run_of(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    if (kept[i]) continue;
    if (i == 0 || kept[i - 1]) runs.push_back({i, i});
    runs.back().last = i;
    run_of[i] = static_cast<int64_t>(runs.size()) - 1;
  }
  auto node_name = [&](int64_t i) {
    return kept[i] ? absl::StrCat("n", i) : absl::StrCat("s", run_of[i]);
  };

  std::string dot = absl::StrCat("digraph \"", EscapeDotString(computation.name()), "\" {\n");
  std::string label = absl::StrCat("computation '", computation.name(), "'");
  if (computation.parent() != nullptr)
    absl::StrAppend(&label, " of module '", computation.parent()->name(), "'");
  absl::StrAppend(&label, ": ", WithThousands(n), n == 1 ? " instruction" : " instructions");
  int64_t kept_count = 0;
  for (uint8_t k : kept) kept_count += k;
  stats.kept = kept_count;
  stats.summary_nodes = static_cast<int64_t>(runs.size());
  stats.summarised_instructions = n - kept_count;
  if (stats.summarised)
    absl::StrAppend(&label, "\nsummarised (above the ", options.budget_name, " of ",
                    WithThousands(options.max_nodes), "): ", WithThousands(kept_count),
                    " drawn (highlighted, parameters, root and their direct neighbours); ",
                    WithThousands(n - kept_count), " others in ", WithThousands(runs.size()),
                    " grey summary nodes, one per maximal run of them in post order");
  absl::StrAppend(&dot, "  label=\"", EscapeDotString(label), "\";\n  labelloc=t;\n",
                  "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
                  "fontname=\"Helvetica\", fontsize=10];\n",
                  "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  if (kept_count + static_cast<int64_t>(runs.size()) > kFastLayoutNodes)
    dot += kFastLayoutAttributes;
  AppendLegend(stats.summarised, &dot);

  // Nodes in post order, each summary where its run starts.
  std::array<int64_t, kHloOpcodeCount> opcode_counts{};
  std::vector<HloOpcode> seen_opcodes;
  for (int64_t i = 0; i < n; ++i) {
    if (kept[i]) {
      dot += NodeStatement(*order[i], i, highlight[i], order[i] == root);
      continue;
    }
    const Run& run = runs[run_of[i]];
    if (i != run.first) continue;
    for (int64_t k = run.first; k <= run.last; ++k) {
      HloOpcode opcode = order[k]->opcode();
      if (opcode_counts[static_cast<int>(opcode)]++ == 0) seen_opcodes.push_back(opcode);
    }
    std::sort(seen_opcodes.begin(), seen_opcodes.end(), [&](HloOpcode a, HloOpcode b) {
      int64_t ca = opcode_counts[static_cast<int>(a)], cb = opcode_counts[static_cast<int>(b)];
      return ca != cb ? ca > cb : HloOpcodeString(a) < HloOpcodeString(b);
    });
    const int64_t size = run.last - run.first + 1;
    std::string summary =
        absl::StrCat(WithThousands(size), size == 1 ? " instruction: " : " instructions: ");
    for (size_t k = 0; k < seen_opcodes.size() && k < kSummaryOpcodes; ++k)
      absl::StrAppend(&summary, k > 0 ? ", " : "", HloOpcodeString(seen_opcodes[k]), " x",
                      WithThousands(opcode_counts[static_cast<int>(seen_opcodes[k])]));
    if (seen_opcodes.size() > kSummaryOpcodes) summary += ", ...";
    absl::StrAppend(&summary, "\n", order[run.first]->name());
    if (size > 1) absl::StrAppend(&summary, " .. ", order[run.last]->name());
    absl::StrAppend(&dot, "  s", run_of[i], " [shape=note, style=filled, fillcolor=\"",
                    kSummaryColor, "\", label=\"", EscapeDotString(summary), "\"];\n");
    for (HloOpcode opcode : seen_opcodes) opcode_counts[static_cast<int>(opcode)] = 0;
    seen_opcodes.clear();
  }

  // Edges: between two drawn instructions one per operand (per control
  // edge); those touching a summary merged per pair of drawn nodes.
  std::vector<Aggregate> aggregates;
  absl::flat_hash_map<std::tuple<int64_t, int64_t, bool>, size_t> aggregate_index;
  // Summaries and instructions share one key space: summaries negative.
  auto key_of = [&](int64_t i) { return kept[i] ? i : -1 - run_of[i]; };
  auto add_edge = [&](int64_t from, int64_t to, bool control, int64_t operand_index,
                      bool label_index) {
    if (!kept[to] && !kept[from] && run_of[to] == run_of[from]) return;
    if (kept[from] && kept[to]) {
      absl::StrAppend(&dot, "  n", from, " -> n", to);
      if (control)
        dot += " [style=dashed]";
      else if (label_index)
        absl::StrAppend(&dot, " [label=\"", operand_index, "\"]");
      dot += ";\n";
      ++stats.edges;
      return;
    }
    auto [it, inserted] = aggregate_index.try_emplace(
        std::make_tuple(key_of(from), key_of(to), control), aggregates.size());
    if (inserted) aggregates.push_back({node_name(from), node_name(to), control, 0, {}});
    Aggregate& aggregate = aggregates[it->second];
    ++aggregate.count;
    if (label_index && kept[to]) aggregate.indices.push_back(operand_index);
  };
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* user = order[i];
    const bool label_index = user->operand_count() > 1;
    for (int64_t k = 0; k < user->operand_count(); ++k)
      if (int64_t j = position_of(user->operand(k)); j >= 0) add_edge(j, i, false, k, label_index);
    if (user->has_control_predecessors())
      for (const HloInstruction* predecessor : user->control_predecessors())
        if (int64_t j = position_of(predecessor); j >= 0) add_edge(j, i, true, 0, false);
  }
  for (const Aggregate& aggregate : aggregates) {
    std::string edge_label;
    if (!aggregate.indices.empty()) {
      for (size_t k = 0; k < aggregate.indices.size() && k < kNamedOperandIndices; ++k)
        absl::StrAppend(&edge_label, k > 0 ? "," : "", aggregate.indices[k]);
      if (aggregate.indices.size() > kNamedOperandIndices) edge_label += ",...";
    } else if (aggregate.count > 1) {
      edge_label = absl::StrCat(WithThousands(aggregate.count),
                                aggregate.control ? " control edges" : " uses");
    }
    absl::StrAppend(&dot, "  ", aggregate.from, " -> ", aggregate.to);
    std::vector<std::string> attributes;
    if (aggregate.control) attributes.push_back("style=dashed");
    if (!edge_label.empty()) attributes.push_back(absl::StrCat("label=\"", edge_label, "\""));
    if (!attributes.empty()) absl::StrAppend(&dot, " [", absl::StrJoin(attributes, ", "), "]");
    dot += ";\n";
    ++stats.edges;
  }
  dot += "}\n";
  if (stats_out != nullptr) *stats_out = stats;
  return dot;
}

absl::StatusOr<const HloComputation*> FindComputationToDraw(const HloModule& module,
                                                            absl::string_view name) {
  if (name.empty()) {
    if (module.entry_computation() == nullptr)
      return absl::NotFoundError(
          absl::StrCat("module '", module.name(), "' has no entry computation"));
    return module.entry_computation();
  }
  if (const HloComputation* found = module.GetComputationWithName(name)) return found;
  constexpr size_t kNamesListed = 10;
  std::vector<HloComputation*> computations = module.computations();
  std::vector<std::string> names;
  for (size_t k = 0; k < computations.size() && k < kNamesListed; ++k)
    names.push_back(std::string(computations[k]->name()));
  std::string listed = absl::StrJoin(names, ", ");
  if (computations.size() > kNamesListed)
    absl::StrAppend(&listed, ", ... (", computations.size(), " in all)");
  return absl::NotFoundError(absl::StrCat("no computation '", name, "' in module '", module.name(),
                                          "'; its computations: ", listed));
}

}  // namespace hopt

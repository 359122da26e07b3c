// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_GRAPH_DOT_H_
#define HOPT_SUPPORT_GRAPH_DOT_H_

// A computation drawn as a Graphviz graph (hopt -emit-dot): one node per
// instruction, edges operand -> user in operand order, control edges
// dashed, the instructions that matter for distribution highlighted.
//
// A computation above the node budget is summarised so that the picture
// stays readable: the highlighted instructions, the parameters, the root
// and their direct neighbours (operands and users) stay; every maximal run
// of other instructions in post order becomes one summary node counting
// its opcodes. A run is an interval of a topological order, so the summary
// graph has no cycles, and every edge between kept instructions is drawn
// as it is. Linear in the size of the computation.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace hopt {

enum class DotHighlight {
  kNone,
  // all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
  // collective-broadcast, send/recv and their -start/-done forms, and the
  // custom-calls a plugin declares collectives (DotHighlightTable).
  kCollective,
  // Any other custom-call (its target is shown).
  kCustomCall,
  // Custom-calls a plugin declares markers (DotHighlightTable).
  kMarker,
  // while, call, conditional (the called computations are named).
  kControlFlow,
};

// How plugins want their custom-calls drawn: by exact target name, or by
// target prefix (the longest matching prefix wins). Filled through the
// PluginRegistrar; owned by the tool.
class DotHighlightTable {
 public:
  void AddTarget(absl::string_view target, DotHighlight highlight);
  void AddPrefix(absl::string_view prefix, DotHighlight highlight);
  // kCustomCall when nothing is declared for `target`.
  DotHighlight Of(absl::string_view target) const;

 private:
  std::map<std::string, DotHighlight, std::less<>> targets_;
  std::vector<std::pair<std::string, DotHighlight>> prefixes_;
};

// `table` (may be null) classifies custom-calls; the rest is by opcode.
DotHighlight DotHighlightOf(const HloInstruction& instruction,
                            const DotHighlightTable* table = nullptr);

struct DotGraphOptions {
  // Above this many instructions the graph is summarised; 0: never.
  int64_t max_nodes = 200;
  // How the budget is spelled in the graph's label (hopt names its option).
  std::string budget_name = "node budget";
  // The plugins' custom-call classes (may be null).
  const DotHighlightTable* highlights = nullptr;
};

struct DotGraphStats {
  int64_t instructions = 0;
  bool summarised = false;
  // Instructions drawn as nodes of their own.
  int64_t kept = 0;
  int64_t summary_nodes = 0;
  // Instructions inside summary nodes; kept + this == instructions.
  int64_t summarised_instructions = 0;
  int64_t edges = 0;
};

std::string ComputationToDot(const HloComputation& computation, const DotGraphOptions& options = {},
                             DotGraphStats* stats = nullptr);

// The computation called `name`, or the entry computation when `name` is
// empty. NotFound lists the module's computation names (the first few).
absl::StatusOr<const HloComputation*> FindComputationToDraw(const HloModule& module,
                                                            absl::string_view name);

}  // namespace hopt

#endif  // HOPT_SUPPORT_GRAPH_DOT_H_

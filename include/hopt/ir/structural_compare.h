// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_STRUCTURAL_COMPARE_H_
#define HOPT_IR_STRUCTURAL_COMPARE_H_

// Structural comparison of two modules modulo instruction, computation and
// module names: two modules are the same when one could be renamed into the
// other. Everything else counts: the module header (replica_count,
// num_partitions, is_scheduled, the other header attributes), which
// computation is the entry, execution threads, and for every instruction its
// opcode, shape (layout included), operands in order, parameter number,
// literal text and attributes (custom_call_target, backend_config,
// metadata, ...; compared by name, whatever order they were added in).
//
// Both modules are walked in a canonical order that does not depend on
// names or on the order instructions were created in: computations callees
// first from the entry; in each computation the parameters by number, then
// the post order from the root (operands in order, then control
// predecessors), then whatever the root does not reach, in list order. A
// scheduled module keeps its instruction order, since there the order is
// the schedule. Instructions are named %0, %1, ... in that order within
// their computation and computations %c0, %c1, ...; each instruction is
// written as one canonical line and the lines are compared in turn.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"

namespace hopt {

struct StructuralDifference {
  // "module header", or "computation 'main'" (with the second module's name
  // when it differs: "computation 'main' ('main.1')").
  std::string where;
  // Position in the canonical order of the computation (from 0), or -1
  // when the difference is in a header or the number of computations.
  int64_t instruction = -1;
  // The canonical lines; "(none)" where one module has no counterpart.
  std::string first_line, second_line;
  // The instructions' own names (empty for headers or a missing line).
  std::string first_name, second_name;

  // "computation 'main', instruction 7: ours 'ROOT %7 = ...' (copy.1) vs
  // theirs '...' (c.2)", with `first_label` and `second_label` naming the
  // modules.
  std::string Describe(absl::string_view first_label, absl::string_view second_label) const;
};

// The first difference in the canonical order, or nothing when the modules
// are the same up to names.
std::optional<StructuralDifference> FindStructuralDifference(const HloModule& first,
                                                             const HloModule& second);

// The canonical text of a module (for debugging and tests): the header
// line, then per computation its header line and instruction lines.
std::string CanonicalModuleText(const HloModule& module);

}  // namespace hopt

#endif  // HOPT_IR_STRUCTURAL_COMPARE_H_

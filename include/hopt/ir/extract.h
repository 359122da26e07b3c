// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_EXTRACT_H_
#define HOPT_IR_EXTRACT_H_

// Copies parts of one module into another: the instructions a new module
// takes over from an old one (a stage of a split module, an outlined
// region), with the computations they call. Copies keep names (made unique
// in the destination only where they collide), shapes, attributes and list
// order; operands are looked up in a source -> copy map that the caller
// seeds with the values it provides otherwise (parameters of the new
// computation, say).

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace hopt {

class InstructionCopier {
 public:
  explicit InstructionCopier(HloModule& destination) : destination_(destination) {}

  // Makes `copy` stand for `source` in every copied instruction's operands.
  void Map(const HloInstruction* source, HloInstruction* copy);
  // The copy standing for `source`, or null.
  HloInstruction* Find(const HloInstruction* source) const;

  // Appends copies of `sources`, in that order, to `into`. Each operand must
  // be mapped or among `sources` (in any order). Called computations are
  // copied once, with everything they call. Control predecessors are kept
  // where they were copied too and dropped otherwise: the caller orders
  // what it split apart. A copied parameter keeps its parameter number.
  absl::Status Copy(absl::Span<const HloInstruction* const> sources, HloComputation* into);

  // The copy of a whole computation (made on first request).
  absl::StatusOr<HloComputation*> CopyComputation(const HloComputation& source);

 private:
  HloInstruction* CreateWithoutOperands(const HloInstruction& source, HloComputation* into);
  absl::Status CopyAttributes(const HloInstruction& source, HloInstruction* copy);
  // The instructions and root of `source` into its empty copy, whose
  // callees' copies exist already.
  absl::Status FillComputation(const HloComputation& source, HloComputation* copy);

  HloModule& destination_;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> instructions_;
  absl::flat_hash_map<const HloComputation*, HloComputation*> computations_;
};

}  // namespace hopt

#endif  // HOPT_IR_EXTRACT_H_

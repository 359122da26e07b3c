// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_OPAQUE_CALL_FORMULA_H_
#define HOPT_CORE_PROVE_OPAQUE_CALL_FORMULA_H_

// Custom-calls without registered semantics as uninterpreted functions
// (docs/proofs.md), the formula counterpart of the interpreter's opaque
// calls (include/hopt/eval/opaque_calls.h): a call's result is some fixed
// function of what identifies the call (target, backend_config,
// api_version, operand and result shapes) and of its operand values.
//
// The operands' elements are combined into one digest term by
// uninterpreted functions (one leaf function per element type, one join,
// over a balanced tree, so the formula grows linearly with the operands and
// stays shallow), and each result element is an uninterpreted function of
// (digest, leaf, element index). The same call on the same values gives the
// same terms: a rewrite that keeps an opaque call on equal operands is
// proved for every meaning of the call. A rewrite that changes the
// operands gets a model that the interpreter's digest may or may not
// confirm; the prover reports only what it confirms.

#include <vector>

#include "absl/status/statusor.h"
#include "core/prove/symbolic_value.h"
#include "hopt/ir/instruction.h"

namespace hopt {
namespace prove {

// The formulas of `call`'s result. Unimplemented (the proof is "unknown")
// for a call with side effects, whose effect no output formula shows.
absl::StatusOr<SymValue> OpaqueCallFormula(Encoder& encoder, const HloInstruction& call,
                                           const std::vector<const SymValue*>& operands);

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_OPAQUE_CALL_FORMULA_H_

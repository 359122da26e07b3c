// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_BIT_COUNT_FORMULA_H_
#define HOPT_CORE_PROVE_BIT_COUNT_FORMULA_H_

// popcnt and count-leading-zeros of an integer element, exactly, as
// bit-vector formulas of its width: a sum of its bits, and a choice by its
// highest set bit (the width for zero, as XLA and the interpreter give).

#include "absl/status/statusor.h"
#include "core/prove/symbolic_value.h"

namespace hopt {
namespace prove {

// `opcode` is kPopulationCount or kClz; an error for other opcodes and
// for a type that is not an integer (pred included, as in the interpreter).
absl::StatusOr<z3::expr> BitCountFormula(Encoder& encoder, HloOpcode opcode, PrimitiveType type,
                                         const z3::expr& x);

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_BIT_COUNT_FORMULA_H_

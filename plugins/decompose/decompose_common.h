// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_COMMON_H_
#define HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_COMMON_H_

// Helpers the two decompose passes share: the shape predicate both gates
// use, the reduction-computation check both rewriters use, and metadata
// copying.

#include <cstdint>
#include <optional>

#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"

namespace neuron {

// XLA's ShapeUtil::TrueNumDimensions: the number of dimensions whose size is
// not 1 (0 for a scalar and for s32[1,1]). -1 for a non-array shape.
int64_t TrueNumDimensions(const hopt::Shape& shape);

// The root opcode of the computation `instruction` applies (to_apply=), or
// nullopt when it applies none.
std::optional<hopt::HloOpcode> ReductionRootOpcode(const hopt::HloInstruction& instruction);

// Whether `computation` is exactly `(p0: T[], p1: T[]) -> T[] opcode(p0, p1)`
// (or opcode(p1, p0)) with T == `type`: a plain binary reduction, so the
// order in which it is applied is the only freedom a rewrite uses.
bool IsPlainBinaryReduction(const hopt::HloComputation* computation, hopt::HloOpcode opcode,
                            hopt::PrimitiveType type);

// Gives `to` the metadata of `from` (the raw text, so fields OpMetadata does
// not model survive); nothing when `from` has none.
void CopyMetadata(const hopt::HloInstruction& from, hopt::HloInstruction* to);

}  // namespace neuron

#endif  // HOPT_PLUGINS_DECOMPOSE_DECOMPOSE_COMMON_H_

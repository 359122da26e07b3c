// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_REDUCED_SHAPE_H_
#define HOPT_CORE_PROVE_REDUCED_SHAPE_H_

// Proofs of large regions on a reduced shape (docs/proofs.md, "Large
// regions"). A dimension is *uniform* in a pair of modules when every
// instruction of both treats its indices alike and apart: elementwise
// operations, broadcasts and transposes carry it, collectives that combine
// whole arrays elementwise (all-reduce, permutes) carry it, and no
// instruction slices, concatenates, pads, reverses, reduces, gathers along
// it or builds values that vary along it (iota, array constants). Then
// output slice i of each module is one function, the same for every i and
// every size, of input slice i; the two modules are equal when they are
// equal with that dimension cut to one index.
//
// Dimensions are tracked as classes: every dimension of every value is a
// slot, instructions that carry a dimension join their slots, the
// modules' parameters and results join the two sides, and an instruction
// that depends on a dimension's size or index pins its class.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace prove {

struct ShapeReduction {
  std::unique_ptr<HloModule> before;
  std::unique_ptr<HloModule> after;
  // "4 dimension classes cut to 1 (inputs f32[5120,13824] -> f32[1,1], ...)"
  std::string description;
  // For each entry parameter: which of its dimensions were cut to 1.
  std::vector<std::vector<bool>> parameter_cut;
};

// The two modules with every uniform dimension of size > 1 cut to 1, or
// nullopt when no dimension is uniform. Both modules must have the same
// entry signature.
absl::StatusOr<std::optional<ShapeReduction>> ReduceUniformDimensions(
    const HloModule& before, const HloModule& after, const eval::Mesh& mesh,
    const eval::CustomCallTable* custom_calls);

// `reduced` (a value at the cut shape) repeated along the cut dimensions up
// to `full` shape: the input that shows a reduced counterexample at full
// size.
absl::StatusOr<Literal> ExpandAlongCutDimensions(const Literal& reduced, const Shape& full);

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_REDUCED_SHAPE_H_

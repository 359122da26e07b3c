// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_TOOLING_MESH_COMPARE_H_
#define HOPT_CORE_EVAL_TOOLING_MESH_COMPARE_H_

// Two modules run on the same seeded random arguments on every device of
// the first one's mesh, every output compared bit for bit: what
// `hopt -verify-equivalence` (before vs after the pipeline) and
// `-compare-with` (ours vs theirs, per pass) both ask.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

struct MeshComparison {
  enum class Outcome {
    kEqual,         // every output of every device, every set
    kDiffer,        // `message`: where and what
    kFirstFailed,   // `message`: why the first module could not run
    kSecondFailed,  // `message`: why the second could not
  };
  Outcome outcome = Outcome::kEqual;
  // kDiffer: "device D (replica R, partition P), input set S (seed X): <the
  // first difference>"; otherwise the interpreter's error.
  std::string message;
  int64_t devices = 0;
};

// `sets` input sets, seeds `seed`, `seed + 1`, ... The arguments' size is
// checked against the interpreter's budget before they are made. Both run
// on `options`' mesh (the first module's header where it says 0). Equal
// outputs are not enough: every device must also have run the same opaque
// custom-calls on the same values, as many times (a multiset); a
// difference there is kDiffer too, and `first_label` / `second_label` name
// the two sides in its message ("ran 1 time(s) before, 0 after").
MeshComparison CompareOnMesh(const HloModule& first, const HloModule& second, int64_t sets,
                             uint64_t seed, const EvalOptions& options = {},
                             absl::string_view first_label = "before",
                             absl::string_view second_label = "after");

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_TOOLING_MESH_COMPARE_H_

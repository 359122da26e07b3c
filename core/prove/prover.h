// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_PROVER_H_
#define HOPT_CORE_PROVE_PROVER_H_

// Translation validation with an SMT solver (docs/proofs.md): two modules
// with the same entry signature are encoded as formulas over their inputs
// on every device of a mesh (core/prove/mesh_encoder.h), and Z3 is asked
// whether some input makes an output differ on some device.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace prove {

struct ProofOptions {
  // Z3's time limit for one query; past it the answer is kUnknown.
  int64_t timeout_ms = 60000;
  // Z3's memory for one query (its memory_max_size); past it the answer
  // is kUnknown instead of the process running out of memory.
  int64_t memory_mb = 4096;
};

struct ProofResult {
  enum class Verdict {
    kProved,          // equal for every input, at these shapes, on every device
    kCounterexample,  // `arguments` make an output differ
    kUnknown,         // `reason`: a time-out, an operation without a formula...
  };
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  // "bit-vector" when every element is an integer or pred; with
  // "uninterpreted float operations" when floats took part.
  std::string encoding;
  // kCounterexample: each device's arguments, and what the interpreter
  // showed when it ran both modules on them (the device, output and
  // element that differ).
  std::vector<std::vector<Literal>> arguments;
  std::string difference;
  double seconds = 0;
  // Z3's memory when its largest query of this proof was answered, in MB.
  double solver_mb = 0;
};

// `options` gives the mesh (which must be set) and the custom-call
// semantics. An error only when the two modules cannot be compared at all
// (different signatures).
absl::StatusOr<ProofResult> ProveEquivalent(const HloModule& before, const HloModule& after,
                                            const eval::EvalOptions& options,
                                            const ProofOptions& proof_options = {});

// The -args file text (hlo-run's format: a `device D:` line per device
// and parameter) of a counterexample.
std::string ArgumentsFileText(const HloModule& module,
                              const std::vector<std::vector<Literal>>& arguments);

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_PROVER_H_

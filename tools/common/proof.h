// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_PROOF_H_
#define HOPT_TOOLS_COMMON_PROOF_H_

// hopt's proofs with Z3 (docs/proofs.md): -prove-equivalence (each pass of
// the pipeline, by the region it changed) and -prove-equivalence-with
// (the result against another module). Built with Z3 or not: without it,
// asking for a proof is an error that says how to get one.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace tools {

struct ProofRequest {
  int64_t timeout_ms = 60000;
  int64_t memory_mb = 4096;
  // Where a counterexample's arguments go (hlo-run -args); empty: nowhere.
  std::string counterexample_file;
};

// Whether this hopt was built with Z3.
bool ProofsAvailable();
absl::Status ProofsUnavailableError();

// -prove-equivalence: hooks that keep the module before each pass and,
// after it, prove the region it changed equal before and after on every
// device of the mesh. A confirmed counterexample stops the pipeline with an
// error (exit 1); "unknown" is reported and counted, and the pipeline goes
// on.
class RegionProver {
 public:
  RegionProver(ProofRequest request, eval::EvalOptions options)
      : request_(std::move(request)), options_(std::move(options)) {}
  void Attach(Instrumentation& instrumentation);
  void PrintSummary() const;

 private:
  absl::Status ProvePass(const Pass& pass, const HloModule& after);

  ProofRequest request_;
  eval::EvalOptions options_;
  std::unique_ptr<HloModule> before_;
  int64_t passes_ = 0, proved_ = 0, unchanged_ = 0, unknown_ = 0;
};

// -prove-equivalence-with: `module` against the module in `other_path`, by
// the regions where they differ. OK when proved; CompareDifferenceError
// (exit 1) for a counterexample; any other error (exit 2) when unknown or
// the proof could not run.
absl::Status ProveAgainstFile(const HloModule& module, const std::string& other_path,
                              const ProofRequest& request, const eval::EvalOptions& options);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_PROOF_H_

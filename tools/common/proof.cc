// SPDX-License-Identifier: Apache-2.0

#include "tools/common/proof.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/region_check.h"
#include "core/proto/tooling/io.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/output_file.h"
#include "hopt/support/status_macros.h"
#include "tools/common/equivalence.h"
#include "tools/common/input_reading.h"
#include "tools/common/provider_compare.h"

#ifndef HOPT_WITH_Z3
#define HOPT_WITH_Z3 0
#endif
#if HOPT_WITH_Z3
#include "core/prove/prover.h"
#endif

namespace hopt {
namespace tools {

bool ProofsAvailable() { return HOPT_WITH_Z3 != 0; }

absl::Status ProofsUnavailableError() {
  return absl::FailedPreconditionError(
      "this hopt was built without Z3, which -prove-equivalence and -prove-equivalence-with "
      "need: install libz3-dev and build again (meson option -Dz3=enabled makes its absence an "
      "error)");
}

#if HOPT_WITH_Z3
namespace {

using Verdict = prove::ProofResult::Verdict;

// The proof of every region where `before` and `after` differ.
struct RegionsProof {
  int64_t regions = 0, proved_by_forwarding = 0, changed_before = 0, changed_after = 0;
  double seconds = 0;
  double solver_mb = 0;  // the largest region's
  std::string encoding;
  // The first region that was not proved, and its result.
  std::string region;
  std::optional<prove::ProofResult> failed;
  const HloModule* failed_before = nullptr;
  const HloModule* failed_after = nullptr;
};

absl::StatusOr<RegionsProof> ProveRegions(const HloModule& before, const HloModule& after,
                                          const ProofRequest& request,
                                          const eval::EvalOptions& options,
                                          std::vector<eval::ChangedRegion>* regions) {
  HOPT_ASSIGN_OR_RETURN(*regions, eval::FindChangedRegions(before, after, options.custom_calls));
  RegionsProof proof;
  proof.regions = static_cast<int64_t>(regions->size());
  for (const eval::ChangedRegion& region : *regions) {
    proof.changed_before += region.changed_before;
    proof.changed_after += region.changed_after;
    if (!region.forwarding_difference.empty()) {
      // Both sides only move data, from different inputs: the interpreter
      // shows it on any input; the prover's model is not needed.
      prove::ProofResult result;
      result.verdict = Verdict::kCounterexample;
      result.difference = region.forwarding_difference;
      proof.region = region.computation;
      proof.failed = std::move(result);
      return proof;
    }
    if (region.outputs == 0) {
      ++proof.proved_by_forwarding;
      continue;
    }
    prove::ProofOptions proof_options;
    proof_options.timeout_ms = request.timeout_ms;
    proof_options.memory_mb = request.memory_mb;
    HOPT_ASSIGN_OR_RETURN(
        prove::ProofResult result,
        prove::ProveEquivalent(*region.before, *region.after, options, proof_options));
    proof.seconds += result.seconds;
    proof.solver_mb = std::max(proof.solver_mb, result.solver_mb);
    if (!result.encoding.empty() && proof.encoding.find("float") == std::string::npos)
      proof.encoding = result.encoding;
    if (result.verdict != Verdict::kProved) {
      proof.region = region.computation;
      proof.failed_before = region.before.get();
      proof.failed_after = region.after.get();
      proof.failed = std::move(result);
      return proof;
    }
  }
  if (proof.encoding.empty()) proof.encoding = "data movement";
  return proof;
}

// The counterexample's arguments into the file the user named, and a
// sentence saying where they are.
std::string KeepCounterexample(const RegionsProof& proof, const ProofRequest& request) {
  if (proof.failed_before == nullptr || proof.failed->arguments.empty()) return "";
  if (request.counterexample_file.empty())
    return " (-counterexample-file=FILE keeps its inputs for hlo-run -args)";
  // The region's two sides with the inputs: `hlo-run FILE.before.hlo
  // -args=FILE` shows the difference again, without hopt or the pass.
  const std::string& file = request.counterexample_file;
  std::string text = prove::ArgumentsFileText(*proof.failed_before, proof.failed->arguments);
  absl::Status written = WriteOutputFile(file, text);
  if (written.ok())
    written = WriteOutputFile(file + ".before.hlo", PrintModule(*proof.failed_before));
  if (written.ok())
    written = WriteOutputFile(file + ".after.hlo", PrintModule(*proof.failed_after));
  if (!written.ok())
    return absl::StrCat(" (its inputs could not be written: ", written.message(), ")");
  return absl::StrCat(" (inputs: ", file, "; the region's two sides: ", file, ".before.hlo, ", file,
                      ".after.hlo)");
}

}  // namespace

void RegionProver::Attach(Instrumentation& instrumentation) {
  AttachPassCheck(instrumentation, &before_, [this](const Pass& pass, const HloModule& after) {
    return ProvePass(pass, after);
  });
}

absl::Status RegionProver::ProvePass(const Pass& pass, const HloModule& after) {
  ++passes_;
  if (before_ == nullptr) return absl::InternalError("no module kept before the pass");
  std::unique_ptr<HloModule> before = std::move(before_);
  std::string name(pass.name());
  std::vector<eval::ChangedRegion> regions;
  absl::StatusOr<RegionsProof> proof = ProveRegions(*before, after, request_, options_, &regions);
  if (!proof.ok()) {
    ++unknown_;
    std::fprintf(stderr, "hopt: prove-equivalence: pass %s: unknown: %s\n", name.c_str(),
                 std::string(proof.status().message()).c_str());
    return absl::OkStatus();
  }
  if (proof->regions == 0) {
    ++unchanged_;
    std::fprintf(stderr, "hopt: prove-equivalence: pass %s: no change\n", name.c_str());
    return absl::OkStatus();
  }
  std::string size = absl::StrCat(proof->regions, " region(s), ", proof->changed_before,
                                  " instruction(s) before and ", proof->changed_after, " after");
  if (!proof->failed.has_value()) {
    ++proved_;
    std::fprintf(stderr, "hopt: prove-equivalence: pass %s: proved (%s; %s; %.2f s, Z3 %.0f MB)\n",
                 name.c_str(), size.c_str(), proof->encoding.c_str(), proof->seconds,
                 proof->solver_mb);
    return absl::OkStatus();
  }
  const prove::ProofResult& result = *proof->failed;
  if (result.verdict == Verdict::kCounterexample)
    return CompareDifferenceError(absl::StrCat(
        "-prove-equivalence: pass '", name, "' changed what its region in computation '",
        proof->region, "' computes: counterexample confirmed by the interpreter: ",
        result.difference, KeepCounterexample(*proof, request_)));
  ++unknown_;
  std::fprintf(stderr, "hopt: prove-equivalence: pass %s: unknown (%s): %s\n", name.c_str(),
               size.c_str(), result.reason.c_str());
  return absl::OkStatus();
}

void RegionProver::PrintSummary() const {
  std::fprintf(stderr,
               "hopt: prove-equivalence: %lld pass(es): %lld proved, %lld without change, %lld "
               "unknown\n",
               static_cast<long long>(passes_), static_cast<long long>(proved_),
               static_cast<long long>(unchanged_), static_cast<long long>(unknown_));
}

absl::Status ProveAgainstFile(const HloModule& module, const std::string& other_path,
                              const ProofRequest& request, const eval::EvalOptions& options) {
  HOPT_ASSIGN_OR_RETURN(
      std::vector<std::unique_ptr<HloModule>> others,
      ReadInputModules({other_path, other_path, HloFileFormatFromPath(other_path)}));
  const HloModule& other = *others.front();
  HOPT_RETURN_IF_ERROR(VerifyInput(other, other_path));
  std::vector<eval::ChangedRegion> regions;
  absl::StatusOr<RegionsProof> proof = ProveRegions(module, other, request, options, &regions);
  if (!proof.ok())
    return absl::FailedPreconditionError(absl::StrCat("-prove-equivalence-with ", other_path,
                                                      ": unknown: ", proof.status().message()));
  if (proof->failed.has_value()) {
    const prove::ProofResult& result = *proof->failed;
    if (result.verdict == Verdict::kCounterexample)
      return CompareDifferenceError(absl::StrCat(
          "-prove-equivalence-with: ", other_path, " differs in computation '", proof->region,
          "': counterexample confirmed by the interpreter: ", result.difference, " (input vs ",
          other_path, ")", KeepCounterexample(*proof, request)));
    return absl::FailedPreconditionError(absl::StrCat("-prove-equivalence-with ", other_path,
                                                      ": unknown in computation '", proof->region,
                                                      "': ", result.reason));
  }
  std::fprintf(stderr,
               "hopt: prove-equivalence-with %s: proved equal for every input on %lld device(s) "
               "(%lld region(s), %lld instruction(s) against %lld; %s; %.2f s, Z3 %.0f MB)\n",
               other_path.c_str(), static_cast<long long>(options.replicas * options.partitions),
               static_cast<long long>(proof->regions),
               static_cast<long long>(proof->changed_before),
               static_cast<long long>(proof->changed_after), proof->encoding.c_str(),
               proof->seconds, proof->solver_mb);
  return absl::OkStatus();
}

#else  // !HOPT_WITH_Z3

void RegionProver::Attach(Instrumentation&) {}
void RegionProver::PrintSummary() const {}
absl::Status RegionProver::ProvePass(const Pass&, const HloModule&) {
  return ProofsUnavailableError();
}
absl::Status ProveAgainstFile(const HloModule&, const std::string&, const ProofRequest&,
                              const eval::EvalOptions&) {
  return ProofsUnavailableError();
}

#endif

}  // namespace tools
}  // namespace hopt

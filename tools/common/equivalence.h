// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_EQUIVALENCE_H_
#define HOPT_TOOLS_COMMON_EQUIVALENCE_H_

// hopt's semantic checks on the interpreter (docs/hlo-run.md):
// -verify-equivalence, whole or by changed region, and
// -verify-equivalence-with.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace tools {

enum class EquivalenceMode {
  kAuto,    // whole when the module's run fits the budget, else region
  kWhole,   // the whole module before and after the pipeline
  kRegion,  // each pass by the region it changed
};

struct EquivalenceRequest {
  int64_t sets = 3;
  EquivalenceMode mode = EquivalenceMode::kAuto;
};

// -verify-equivalence's value: empty, a count (1 to 1000), a mode (`whole`,
// `region`, `auto`) or both, comma-separated (`region,5`).
absl::StatusOr<EquivalenceRequest> ParseEquivalenceRequest(absl::string_view value);

// What kAuto means for `module`: kWhole when its arguments and its largest
// value fit the interpreter's budget together, else kRegion, with `why`.
EquivalenceMode ResolveEquivalenceMode(EquivalenceMode requested, const HloModule& module,
                                       const eval::EvalOptions& options, std::string* why);

// Runs both modules on the same seeded inputs on every device and compares
// every output bit for bit.
absl::Status VerifyEquivalence(const HloModule& before, const HloModule& after, int64_t sets,
                               uint64_t seed, const eval::EvalOptions& eval_options);

// -verify-equivalence-with: `module` against the module in `other_path`,
// on the same seeded inputs on every device. A difference is
// CompareDifferenceError (exit 1); anything that keeps the check from
// running is another error (exit 2).
// `mode` as for -verify-equivalence: by region, the two modules are matched
// instruction by instruction as a pass's before and after are, and only
// what differs runs (or is shown equal as data movement).
absl::Status VerifyAgainstFile(const HloModule& module, const std::string& other_path, int64_t sets,
                               uint64_t seed, EquivalenceMode mode,
                               const eval::EvalOptions& options);
// The same against a module in memory, which `other_path` names in
// messages.
absl::Status VerifyAgainstModule(const HloModule& module, const HloModule& other,
                                 const std::string& other_path, int64_t sets, uint64_t seed,
                                 EquivalenceMode mode, const eval::EvalOptions& options);

// Hooks on `instrumentation`: before each
// pass, a clone of the module into `*before`; after it, `check`.
void AttachPassCheck(Instrumentation& instrumentation, std::unique_ptr<HloModule>* before,
                     std::function<absl::Status(const Pass&, const HloModule&)> check);

// -verify-equivalence=region: hooks that keep the module before each pass
// and, after it, run the region it changed before and after on the mesh.
// A difference stops the pipeline with an error naming the pass, the
// computation, the device and the element. A pass whose change no region
// stands for is reported as not checked, and counted.
class RegionVerifier {
 public:
  RegionVerifier(int64_t sets, uint64_t seed, eval::EvalOptions options)
      : sets_(sets), seed_(seed), options_(std::move(options)) {}

  // Adds the hooks to `instrumentation`.
  void Attach(Instrumentation& instrumentation);

  // The closing line: how many passes were checked and how.
  void PrintSummary() const;

 private:
  absl::Status CheckPass(const Pass& pass, const HloModule& after);

  int64_t sets_;
  uint64_t seed_;
  eval::EvalOptions options_;
  std::unique_ptr<HloModule> before_;
  int64_t passes_ = 0, changed_ = 0, unchecked_ = 0, instructions_ = 0;
};

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_EQUIVALENCE_H_

// SPDX-License-Identifier: Apache-2.0

#include "tools/common/equivalence.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/eval/tooling/mesh_compare.h"
#include "core/eval/tooling/region_check.h"
#include "core/proto/tooling/io.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/status_macros.h"
#include "tools/common/input_reading.h"
#include "tools/common/provider_compare.h"

namespace hopt {
namespace tools {
namespace {

// The entry's parameter and result shapes, as the signature reads.
std::string EntrySignature(const HloModule& module) {
  const HloComputation& entry = *module.entry_computation();
  std::vector<std::string> parameters;
  for (const HloInstruction* parameter : entry.parameter_instructions())
    parameters.push_back(parameter->shape().ToString(false));
  return absl::StrCat("(", absl::StrJoin(parameters, ", "), ") -> ",
                      entry.root_instruction()->shape().ToString(false));
}

// The bytes a whole run needs at least on one device: the arguments and
// the largest value any instruction makes, live together.
int64_t WholeRunFloorBytes(const HloModule& module) {
  int64_t arguments = 0;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions())
    arguments += Literal::AllocatedBytesFor(parameter->shape());
  int64_t largest = 0;
  for (const HloComputation* computation : module.computations())
    for (const HloInstruction* i : computation->instructions())
      largest = std::max(largest, Literal::AllocatedBytesFor(i->shape()));
  return arguments + largest;
}

}  // namespace

absl::StatusOr<EquivalenceRequest> ParseEquivalenceRequest(absl::string_view value) {
  EquivalenceRequest request;
  for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    if (part == "whole") {
      request.mode = EquivalenceMode::kWhole;
    } else if (part == "region") {
      request.mode = EquivalenceMode::kRegion;
    } else if (part == "auto") {
      request.mode = EquivalenceMode::kAuto;
    } else if (!absl::SimpleAtoi(part, &request.sets) || request.sets < 1 || request.sets > 1000) {
      return absl::InvalidArgumentError(absl::StrCat(
          "-verify-equivalence takes a count from 1 to 1000 and/or a mode (whole, region, "
          "auto), comma-separated; got '",
          value, "'"));
    }
  }
  return request;
}

EquivalenceMode ResolveEquivalenceMode(EquivalenceMode requested, const HloModule& module,
                                       const eval::EvalOptions& options, std::string* why) {
  if (requested != EquivalenceMode::kAuto) return requested;
  int64_t floor = WholeRunFloorBytes(module);
  if (floor <= options.max_bytes_per_device) return EquivalenceMode::kWhole;
  *why = absl::StrCat("a whole run needs at least ", floor,
                      " bytes per device (arguments and the largest value), over the budget of ",
                      options.max_bytes_per_device);
  return EquivalenceMode::kRegion;
}

absl::Status VerifyEquivalence(const HloModule& before, const HloModule& after, int64_t sets,
                               uint64_t seed, const eval::EvalOptions& eval_options) {
  using Outcome = eval::MeshComparison::Outcome;
  eval::MeshComparison compared = eval::CompareOnMesh(before, after, sets, seed, eval_options);
  switch (compared.outcome) {
    case Outcome::kFirstFailed:
      return absl::FailedPreconditionError(
          absl::StrCat("-verify-equivalence: cannot run the input module: ", compared.message));
    case Outcome::kSecondFailed:
      return absl::FailedPreconditionError(absl::StrCat(
          "-verify-equivalence: cannot run the pipeline's result: ", compared.message));
    case Outcome::kDiffer:
      return absl::FailedPreconditionError(
          absl::StrCat("-verify-equivalence: the pipeline changed the result on ", compared.message,
                       " (before vs after)"));
    case Outcome::kEqual: break;
  }
  std::vector<eval::OpaqueTarget> opaque =
      eval::FindOpaqueTargets(before, eval_options.custom_calls);
  if (!opaque.empty())
    std::fprintf(stderr,
                 "hopt: verify-equivalence: custom-call target(s) %s have no registered "
                 "semantics: run as opaque functions of their operands, and their calls "
                 "compared (-opaque-custom-calls=refuse refuses them)\n",
                 eval::OpaqueTargetList(opaque).c_str());
  std::fprintf(stderr,
               "hopt: verify-equivalence: %lld input set(s) from seed %llu on %lld device(s): "
               "all outputs identical\n",
               static_cast<long long>(sets), static_cast<unsigned long long>(seed),
               static_cast<long long>(compared.devices));
  return absl::OkStatus();
}

namespace {

// How a region check that did not come out equal is reported.
struct RegionWording {
  std::string cannot_run;     // starts the message when a side cannot run
  std::string differs;        // starts it when an output differs
  std::string first, second;  // the two sides
  bool difference_exits_1;    // a difference is CompareDifferenceError
};

absl::Status RegionOutcomeError(const eval::RegionCheck& check, const RegionWording& wording) {
  using Outcome = eval::MeshComparison::Outcome;
  const eval::MeshComparison& compared = check.comparison;
  switch (compared.outcome) {
    case Outcome::kFirstFailed:
    case Outcome::kSecondFailed:
      return absl::FailedPreconditionError(
          absl::StrCat(wording.cannot_run, check.region, " (",
                       compared.outcome == Outcome::kFirstFailed ? wording.first : wording.second,
                       "): ", compared.message));
    case Outcome::kDiffer: {
      std::string message = absl::StrCat(wording.differs, check.region, " on ", compared.message,
                                         " (", wording.first, " vs ", wording.second, ")");
      return wording.difference_exits_1 ? CompareDifferenceError(message)
                                        : absl::FailedPreconditionError(message);
    }
    case Outcome::kEqual: break;
  }
  return absl::OkStatus();
}

// -verify-equivalence-with by region: the two modules matched as a pass's
// before and after are.
absl::Status VerifyAgainstFileByRegion(const HloModule& module, const HloModule& other,
                                       const std::string& other_path, int64_t sets, uint64_t seed,
                                       const eval::EvalOptions& options) {
  absl::StatusOr<eval::RegionCheck> check =
      eval::CheckChangedRegions(module, other, sets, seed, options);
  if (!check.ok())
    return absl::FailedPreconditionError(absl::StrCat(
        "-verify-equivalence-with: cannot check by region: ", check.status().message()));
  HOPT_RETURN_IF_ERROR(RegionOutcomeError(
      *check, {"-verify-equivalence-with: cannot run the region in computation ",
               absl::StrCat("-verify-equivalence-with: ", other_path, " differs in computation "),
               "input", other_path, /*difference_exits_1=*/true}));
  if (!check->unchecked.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        "-verify-equivalence-with: not checked in full: ", absl::StrJoin(check->unchecked, "; ")));
  int64_t outputs = 0;
  for (const eval::ChangedRegion& region : check->regions) outputs += region.outputs;
  std::fprintf(stderr,
               "hopt: verify-equivalence-with %s: by region: %lld region(s), %lld instruction(s) "
               "of the input and %lld of it differ; %lld output(s) run on %lld input set(s) "
               "from seed %llu, %lld that only move data alike: all identical\n",
               other_path.c_str(), static_cast<long long>(check->regions.size()),
               static_cast<long long>(check->changed_before),
               static_cast<long long>(check->changed_after), static_cast<long long>(outputs),
               static_cast<long long>(sets), static_cast<unsigned long long>(seed),
               static_cast<long long>(check->forwarded));
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyAgainstFile(const HloModule& module, const std::string& other_path, int64_t sets,
                               uint64_t seed, EquivalenceMode mode,
                               const eval::EvalOptions& options) {
  HOPT_ASSIGN_OR_RETURN(
      std::vector<std::unique_ptr<HloModule>> others,
      ReadInputModules({other_path, other_path, HloFileFormatFromPath(other_path)}));
  return VerifyAgainstModule(module, *others.front(), other_path, sets, seed, mode, options);
}

absl::Status VerifyAgainstModule(const HloModule& module, const HloModule& other,
                                 const std::string& other_path, int64_t sets, uint64_t seed,
                                 EquivalenceMode mode, const eval::EvalOptions& options) {
  HOPT_RETURN_IF_ERROR(VerifyInput(other, other_path));
  std::string ours = EntrySignature(module), theirs = EntrySignature(other);
  if (ours != theirs)
    return absl::FailedPreconditionError(
        absl::StrCat("-verify-equivalence-with: the entry signatures differ: the input's is ", ours,
                     ", ", other_path, "'s is ", theirs));
  std::string why;
  if (ResolveEquivalenceMode(mode, module, options, &why) == EquivalenceMode::kRegion) {
    if (!why.empty())
      std::fprintf(stderr, "hopt: verify-equivalence-with %s: by region: %s\n", other_path.c_str(),
                   why.c_str());
    return VerifyAgainstFileByRegion(module, other, other_path, sets, seed, options);
  }
  using Outcome = eval::MeshComparison::Outcome;
  eval::MeshComparison compared = eval::CompareOnMesh(module, other, sets, seed, options);
  switch (compared.outcome) {
    case Outcome::kFirstFailed:
      return absl::FailedPreconditionError(
          absl::StrCat("-verify-equivalence-with: cannot run the input: ", compared.message));
    case Outcome::kSecondFailed:
      return absl::FailedPreconditionError(absl::StrCat("-verify-equivalence-with: cannot run ",
                                                        other_path, ": ", compared.message));
    case Outcome::kDiffer:
      return CompareDifferenceError(absl::StrCat("-verify-equivalence-with: ", other_path,
                                                 " differs on ", compared.message, " (input vs ",
                                                 other_path, ")"));
    case Outcome::kEqual: break;
  }
  std::fprintf(stderr,
               "hopt: verify-equivalence-with %s: %lld input set(s) from seed %llu on %lld "
               "device(s): all outputs identical\n",
               other_path.c_str(), static_cast<long long>(sets),
               static_cast<unsigned long long>(seed), static_cast<long long>(compared.devices));
  return absl::OkStatus();
}

void AttachPassCheck(Instrumentation& instrumentation, std::unique_ptr<HloModule>* before,
                     std::function<absl::Status(const Pass&, const HloModule&)> check) {
  PassCallbacks keep;
  keep.before_pass = [before](const Pass&, const HloModule& module) { *before = module.Clone(); };
  keep.after_verifier = [check](size_t, const Pass& pass, const HloModule& module) {
    return check(pass, module);
  };
  instrumentation.callbacks.push_back(std::move(keep));
}

void RegionVerifier::Attach(Instrumentation& instrumentation) {
  AttachPassCheck(instrumentation, &before_, [this](const Pass& pass, const HloModule& after) {
    return CheckPass(pass, after);
  });
}

absl::Status RegionVerifier::CheckPass(const Pass& pass, const HloModule& after) {
  ++passes_;
  if (before_ == nullptr) return absl::InternalError("no module kept before the pass");
  std::unique_ptr<HloModule> before = std::move(before_);
  absl::StatusOr<eval::RegionCheck> check =
      eval::CheckChangedRegions(*before, after, sets_, seed_, options_);
  if (!check.ok()) {
    ++unchecked_;
    std::fprintf(stderr, "hopt: verify-equivalence: pass %s: not checked: %s\n",
                 std::string(pass.name()).c_str(), std::string(check.status().message()).c_str());
    return absl::OkStatus();
  }
  if (check->regions.empty()) {
    std::fprintf(stderr, "hopt: verify-equivalence: pass %s: no change\n",
                 std::string(pass.name()).c_str());
    return absl::OkStatus();
  }
  ++changed_;
  int64_t inputs = 0, outputs = 0;
  for (const eval::ChangedRegion& region : check->regions) {
    inputs += region.inputs;
    outputs += region.outputs;
  }
  instructions_ += check->changed_after;
  HOPT_RETURN_IF_ERROR(RegionOutcomeError(
      *check, {absl::StrCat("-verify-equivalence: pass '", pass.name(),
                            "': cannot run its region in computation "),
               absl::StrCat("-verify-equivalence: pass '", pass.name(),
                            "' changed the result of its region in computation "),
               "before", "after", /*difference_exits_1=*/false}));
  for (const std::string& why : check->unchecked)
    std::fprintf(stderr, "hopt: verify-equivalence: pass %s: not checked: %s\n",
                 std::string(pass.name()).c_str(), why.c_str());
  if (!check->unchecked.empty()) {
    ++unchecked_;
    if (check->checked == 0) return absl::OkStatus();
  }
  if (outputs == 0 && check->forwarded > 0) {
    std::fprintf(stderr,
                 "hopt: verify-equivalence: pass %s: %lld region(s), %lld instruction(s) before "
                 "and %lld after changed; its %lld output(s) only move data, the same input "
                 "arrays on both sides: equal for every input on every device\n",
                 std::string(pass.name()).c_str(), static_cast<long long>(check->regions.size()),
                 static_cast<long long>(check->changed_before),
                 static_cast<long long>(check->changed_after),
                 static_cast<long long>(check->forwarded));
    return absl::OkStatus();
  }
  std::string moved =
      check->forwarded == 0
          ? ""
          : absl::StrCat(" (and ", check->forwarded,
                         " that only move data alike: equal for every input, not run)");
  std::fprintf(
      stderr,
      "hopt: verify-equivalence: pass %s: %lld region(s), %lld instruction(s) before and "
      "%lld after changed, %lld input(s), %lld output(s)%s; %lld input set(s) from seed "
      "%llu on %lld device(s) (%lld x %lld): outputs identical%s\n",
      std::string(pass.name()).c_str(), static_cast<long long>(check->regions.size()),
      static_cast<long long>(check->changed_before), static_cast<long long>(check->changed_after),
      static_cast<long long>(inputs), static_cast<long long>(outputs), moved.c_str(),
      static_cast<long long>(sets_), static_cast<unsigned long long>(seed_),
      static_cast<long long>(options_.replicas * options_.partitions),
      static_cast<long long>(options_.replicas), static_cast<long long>(options_.partitions),
      check->unchecked.empty()
          ? ""
          : absl::StrCat(" in the ", check->checked, " region(s) that ran").c_str());
  return absl::OkStatus();
}

void RegionVerifier::PrintSummary() const {
  std::fprintf(stderr,
               "hopt: verify-equivalence: by region: %lld pass(es), %lld changed the module and "
               "were checked (%lld instruction(s) after them), %lld could not be checked in "
               "full\n",
               static_cast<long long>(passes_), static_cast<long long>(changed_),
               static_cast<long long>(instructions_), static_cast<long long>(unchecked_));
}

}  // namespace tools
}  // namespace hopt

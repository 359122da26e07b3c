// SPDX-License-Identifier: Apache-2.0

#include "core/eval/tooling/mesh_compare.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hopt/eval/evaluator.h"

namespace hopt {
namespace eval {

MeshComparison CompareOnMesh(const HloModule& first, const HloModule& second, int64_t sets,
                             uint64_t seed, const EvalOptions& given_options,
                             absl::string_view first_label, absl::string_view second_label) {
  using Outcome = MeshComparison::Outcome;
  MeshComparison result;
  auto fail = [&](Outcome outcome, absl::string_view message) {
    result.outcome = outcome;
    result.message = std::string(message);
    return result;
  };
  EvalOptions options = given_options;
  if (options.replicas <= 0) options.replicas = first.replica_count();
  if (options.partitions <= 0) options.partitions = first.num_partitions();
  const int64_t partitions = options.partitions;
  // Before the arguments, which are made once per device.
  auto devices = MeshDevices(options.replicas, options.partitions);
  if (!devices.ok()) return fail(Outcome::kFirstFailed, devices.status().message());
  result.devices = *devices;
  absl::Status fits = CheckArgumentsFit(first, options);
  if (!fits.ok()) return fail(Outcome::kFirstFailed, fits.message());
  for (int64_t set = 0; set < sets; ++set) {
    auto arguments = RandomArguments(first, result.devices, seed + set);
    RunLog first_log, second_log;
    auto expected = RunModule(first, arguments, options, &first_log);
    if (!expected.ok()) return fail(Outcome::kFirstFailed, expected.status().message());
    auto actual = RunModule(second, arguments, options, &second_log);
    if (!actual.ok()) return fail(Outcome::kSecondFailed, actual.status().message());
    auto where = [&](int64_t d) {
      return absl::StrCat("device ", d, " (replica ", d / partitions, ", partition ",
                          d % partitions, "), input set ", set, " (seed ", seed + set, "): ");
    };
    for (int64_t d = 0; d < result.devices; ++d) {
      std::string difference;
      if (!BitwiseEqual((*expected)[d], (*actual)[d], &difference))
        return fail(Outcome::kDiffer, absl::StrCat(where(d), difference));
    }
    // The calls whose results no output shows (a transfer's completion
    // token, say) are checked through the log.
    for (int64_t d = 0; d < result.devices; ++d) {
      std::string difference = CompareOpaqueCallLogs(
          first_log.opaque_calls[d], second_log.opaque_calls[d], first_label, second_label);
      if (!difference.empty()) return fail(Outcome::kDiffer, absl::StrCat(where(d), difference));
    }
  }
  return result;
}

}  // namespace eval
}  // namespace hopt

#include "core/eval/mesh_compare.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"

namespace hopt {
namespace eval {

MeshComparison CompareOnMesh(const HloModule& first, const HloModule& second, int64_t sets,
                             uint64_t seed) {
  using Outcome = MeshComparison::Outcome;
  MeshComparison result;
  auto fail = [&](Outcome outcome, absl::string_view message) {
    result.outcome = outcome;
    result.message = std::string(message);
    return result;
  };
  // Before the arguments, which are made once per device.
  auto devices = MeshDevices(first.replica_count(), first.num_partitions());
  if (!devices.ok()) return fail(Outcome::kFirstFailed, devices.status().message());
  result.devices = *devices;
  absl::Status fits = CheckArgumentsFit(first);
  if (!fits.ok()) return fail(Outcome::kFirstFailed, fits.message());
  for (int64_t set = 0; set < sets; ++set) {
    auto arguments = RandomArguments(first, result.devices, seed + set);
    auto expected = RunModule(first, arguments);
    if (!expected.ok()) return fail(Outcome::kFirstFailed, expected.status().message());
    auto actual = RunModule(second, arguments);
    if (!actual.ok()) return fail(Outcome::kSecondFailed, actual.status().message());
    for (int64_t d = 0; d < result.devices; ++d) {
      std::string difference;
      if (!BitwiseEqual((*expected)[d], (*actual)[d], &difference))
        return fail(Outcome::kDiffer,
                    absl::StrCat("device ", d, " (replica ", d / first.num_partitions(),
                                 ", partition ", d % first.num_partitions(), "), input set ", set,
                                 " (seed ", seed + set, "): ", difference));
    }
  }
  return result;
}

}  // namespace eval
}  // namespace hopt

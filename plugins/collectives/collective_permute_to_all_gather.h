// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_PERMUTE_TO_ALL_GATHER_H_
#define HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_PERMUTE_TO_ALL_GATHER_H_

#include <cstdint>
#include <string>

#include "hopt/pass_manager/pass.h"

namespace neuron {

// collective-permute-to-all-gather: rewrites each collective-permute as an
// all-gather plus an id-indexed dynamic-slice, since Neuron has an
// all-gather but no point-to-point primitive (docs/plugins/collectives.md).
class CollectivePermuteToAllGather : public hopt::Pass {
 public:
  // The reference compiler's options: the core count they give is
  // reported under -debug-only but does not drive the rewrite, which reads
  // the module's mesh.
  CollectivePermuteToAllGather(std::string platform_version = "", int64_t nc_divisor = 1,
                               int64_t override_core_count = 0);
  absl::string_view name() const override { return "collective-permute-to-all-gather"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;

  // "3.0": override_core_count when positive, else 128 / nc_divisor; other
  // platforms: 32. 0 for "3.0" with a non-positive nc_divisor, which Run
  // reports as an error (a constructor cannot fail).
  int64_t core_count() const { return core_count_; }

 private:
  std::string platform_version_;
  int64_t nc_divisor_;
  int64_t override_core_count_;
  int64_t core_count_;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_PERMUTE_TO_ALL_GATHER_H_

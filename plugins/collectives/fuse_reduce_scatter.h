// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_FUSE_REDUCE_SCATTER_H_
#define HOPT_PLUGINS_COLLECTIVES_FUSE_REDUCE_SCATTER_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// fuse-reduce-scatter: merges reduce-scatters that feed one concatenate into
// one wider reduce-scatter, one launch instead of many
// (docs/plugins/collectives.md has the patterns matched).
class FuseReduceScatter : public hopt::Pass {
 public:
  absl::string_view name() const override { return "fuse-reduce-scatter"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_FUSE_REDUCE_SCATTER_H_

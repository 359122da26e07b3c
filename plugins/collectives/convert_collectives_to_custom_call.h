// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_CONVERT_COLLECTIVES_TO_CUSTOM_CALL_H_
#define HOPT_PLUGINS_COLLECTIVES_CONVERT_COLLECTIVES_TO_CUSTOM_CALL_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// convert-collectives-to-custom-call: all-reduce, reduce-scatter and
// all-gather of the entry computation become AwsNeuron* custom-calls named
// by the contract in neuron_collective_targets.h.
class ConvertCollectivesToCustomCall : public hopt::Pass {
 public:
  absl::string_view name() const override { return "convert-collectives-to-custom-call"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_CONVERT_COLLECTIVES_TO_CUSTOM_CALL_H_

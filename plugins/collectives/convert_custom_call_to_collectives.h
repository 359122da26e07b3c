// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_CONVERT_CUSTOM_CALL_TO_COLLECTIVES_H_
#define HOPT_PLUGINS_COLLECTIVES_CONVERT_CUSTOM_CALL_TO_COLLECTIVES_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// convert-custom-call-to-collectives: the inverse of
// convert-collectives-to-custom-call. Every custom-call whose target follows
// the naming contract becomes the native collective again, with the
// attributes its backend_config recorded, so the round trip gives back the
// original module.
class ConvertCustomCallToCollectives : public hopt::Pass {
 public:
  absl::string_view name() const override { return "convert-custom-call-to-collectives"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_CONVERT_CUSTOM_CALL_TO_COLLECTIVES_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_CANONICALIZE_VARIADIC_COLLECTIVES_H_
#define HOPT_PLUGINS_COLLECTIVES_CANONICALIZE_VARIADIC_COLLECTIVES_H_

#include "hopt/pass_manager/pass.h"

namespace neuron {

// canonicalize-variadic-collectives: every all-reduce, all-gather and
// reduce-scatter whose result is a tuple becomes collectives of one array
// each, so that convert-collectives-to-custom-call can name a dtype for
// every launch:
// - all-reduce: per element type, the operands flattened and concatenated
//   into one buffer, one all-reduce of it (the reduction retyped where the
//   element type differs from to_apply's), sliced and reshaped back;
// - all-gather / reduce-scatter: one collective per array operand; a scalar
//   operand (torch-xla's ordering token) becomes what docs/formats.md's
//   scalar rule gives: itself in groups of one, otherwise an all-reduce
//   (reduce-scatter) or the first member's value through an all-gather of
//   a [1] vector (all-gather).
// See docs/plugins/collectives.md.
class CanonicalizeVariadicCollectives : public hopt::Pass {
 public:
  absl::string_view name() const override { return "canonicalize-variadic-collectives"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_CANONICALIZE_VARIADIC_COLLECTIVES_H_

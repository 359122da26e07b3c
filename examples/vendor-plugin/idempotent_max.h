// SPDX-License-Identifier: Apache-2.0
// vendor-idempotent-max: maximum(x, x) -> copy(x). The smallest complete
// pass class of the example (docs/writing-a-plugin.md, "A minimal pass"):
// a header, a .cc, and one line of registration in vendor_scalar_reduce.cc.

#ifndef VENDOR_IDEMPOTENT_MAX_H_
#define VENDOR_IDEMPOTENT_MAX_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"

namespace vendor {

// Registered with `registrar.AddPass<IdempotentMax>(...)`, which builds one
// instance to read name(): the class needs a default constructor.
class IdempotentMax : public hopt::Pass {
 public:
  absl::string_view name() const override { return "vendor-idempotent-max"; }
  // True when it changed the module.
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;
};

}  // namespace vendor

#endif  // VENDOR_IDEMPOTENT_MAX_H_

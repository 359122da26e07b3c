// SPDX-License-Identifier: Apache-2.0

#include "core/proto/side_table.h"

#include "absl/strings/str_cat.h"

namespace hopt {

absl::Status ProtoSideTable::CheckBelongsTo(const HloModule& module) const {
  if (empty() || module_ == &module) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the proto side table was read with another module than '", module.name(),
      "' (a clone has new instruction ids): write a module with the table it was read with"));
}

void ProtoSideTable::Clear() {
  module_ = nullptr;
  dropped_.Clear();
  wrapper_.clear();
  module_fields_.clear();
  computations_.clear();
  instructions_.clear();
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "markers/marker_semantics.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/eval/custom_call_table.h"
#include "markers/marker_utils.h"

namespace neuron {
namespace {

// A marker returns its operand, or the tuple of its operands: it only
// moves data, which the interpreter runs and a region check can read.
absl::StatusOr<std::vector<hopt::eval::ForwardedValue>> MarkerForwarding(
    const hopt::HloInstruction& call) {
  switch (markers::ClassifyMarkerResult(call)) {
    case markers::MarkerResult::kOperand:
      return std::vector<hopt::eval::ForwardedValue>{{{}, 0, {}}};
    case markers::MarkerResult::kTupleOfOperands: {
      std::vector<hopt::eval::ForwardedValue> parts;
      for (int64_t k = 0; k < call.operand_count(); ++k) parts.push_back({{k}, k, {}});
      return parts;
    }
    case markers::MarkerResult::kMalformed: break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a boundary marker returns its operand or the tuple of its operands, but this one has "
      "shape ",
      call.shape().ToString(false)));
}

}  // namespace

void AddMarkerSemantics(hopt::PluginRegistrar& registrar) {
  for (absl::string_view target : markers::AllMarkerTargets()) {
    registrar.AddForwardingCustomCall(target, MarkerForwarding);
    registrar.AddDotHighlight(target, hopt::DotHighlight::kMarker);
  }
}

}  // namespace neuron

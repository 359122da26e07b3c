#include "markers/marker_semantics.h"

#include "absl/strings/str_cat.h"
#include "hopt/eval/evaluator.h"
#include "markers/marker_utils.h"

namespace neuron {
namespace {

absl::StatusOr<hopt::Literal> Identity(const hopt::HloInstruction& call,
                                       absl::Span<const hopt::Literal* const> operands,
                                       hopt::eval::DeviceId) {
  switch (markers::ClassifyMarkerResult(call)) {
    case markers::MarkerResult::kOperand:
      return *operands[0];
    case markers::MarkerResult::kTupleOfOperands: {
      hopt::Literal tuple(call.shape());
      for (size_t i = 0; i < operands.size(); ++i)
        tuple.mutable_tuple_elements()[i] = *operands[i];
      return tuple;
    }
    case markers::MarkerResult::kMalformed:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a boundary marker returns its operand or the tuple of its operands, but this one has "
      "shape ", call.shape().ToString(false)));
}

}  // namespace

void AddMarkerSemantics(hopt::PluginRegistrar& registrar) {
  for (absl::string_view target : markers::AllMarkerTargets()) {
    registrar.AddCustomCallSemantics(target, Identity);
    registrar.AddDotHighlight(target, hopt::DotHighlight::kMarker);
  }
}

}  // namespace neuron

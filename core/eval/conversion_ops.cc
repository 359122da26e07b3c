#include "core/eval/device_evaluator.h"

// The interpreter's bitcast, reduce-precision, stochastic-convert and the dynamic-shape ops (docs/hlo-run.md, "What the interpreter runs").

namespace hopt {
namespace eval {

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateConversionOp(const HloInstruction& i,
                                                                    const std::vector<const Literal*>& ops) {
  (void)i;
  (void)ops;
  return std::nullopt;
}

}  // namespace eval
}  // namespace hopt

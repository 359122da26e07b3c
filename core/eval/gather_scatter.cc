#include "core/eval/device_evaluator.h"

// The interpreter's gather and scatter (docs/hlo-run.md, "What the interpreter runs").

namespace hopt {
namespace eval {

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateGatherScatter(const HloInstruction& i,
                                                                     const std::vector<const Literal*>& ops) {
  (void)i;
  (void)ops;
  return std::nullopt;
}

}  // namespace eval
}  // namespace hopt

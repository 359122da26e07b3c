#include "core/eval/device_evaluator.h"

// The interpreter's rng, rng-bit-generator and rng-get-and-update-state (docs/hlo-run.md, "What the interpreter runs").

namespace hopt {
namespace eval {

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateRandomOp(const HloInstruction& i,
                                                                const std::vector<const Literal*>& ops) {
  (void)i;
  (void)ops;
  return std::nullopt;
}

}  // namespace eval
}  // namespace hopt

#include "core/eval/device_evaluator.h"

// The interpreter's sort, topk, ragged-dot and scaled-dot (docs/hlo-run.md, "What the interpreter runs").

namespace hopt {
namespace eval {

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateSortOp(const HloInstruction& i,
                                                              const std::vector<const Literal*>& ops) {
  (void)i;
  (void)ops;
  return std::nullopt;
}

}  // namespace eval
}  // namespace hopt

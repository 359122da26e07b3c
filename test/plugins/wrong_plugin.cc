// hopt_test_wrong: a deliberately wrong rewrite for the tests of
// `hopt -verify-equivalence` (test/verify-equivalence.hlo). Built for tests
// only.
//
// test-swap-subtract-operands: subtract(a, b) -> subtract(b, a) in every
// computation. The module stays valid (same shapes), only the values change,
// so the verifier is happy and only the interpreter can tell.

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/pass_manager/pass.h"
#include "core/pass_manager/pass_registry.h"
#include "core/pass_manager/plugin_api.h"

namespace hopt_test_wrong {
namespace {

class SwapSubtractOperandsPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-swap-subtract-operands"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    bool changed = false;
    for (hopt::HloComputation* computation : module.computations()) {
      std::vector<hopt::HloInstruction*> subtracts;
      for (hopt::HloInstruction* instruction : computation->instructions())
        if (instruction->opcode() == hopt::HloOpcode::kSubtract &&
            instruction->operand_count() == 2)
          subtracts.push_back(instruction);
      for (hopt::HloInstruction* subtract : subtracts) {
        hopt::HloInstruction* lhs = subtract->mutable_operand(0);
        hopt::HloInstruction* rhs = subtract->mutable_operand(1);
        if (lhs == rhs) continue;  // subtract(x, x) stays what it is
        subtract->ReplaceOperandWith(0, rhs);
        subtract->ReplaceOperandWith(1, lhs);
        changed = true;
      }
    }
    return changed;
  }
};

void RegisterPasses(hopt::PassRegistry& registry) {
  // The registry records an error; the loader reports it.
  (void)registry.Register<SwapSubtractOperandsPass>(
      "Swaps the operands of every subtract (a wrong rewrite, for -verify-equivalence tests)");
}

}  // namespace
}  // namespace hopt_test_wrong

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_wrong", "1.0.0",
          &hopt_test_wrong::RegisterPasses};
}

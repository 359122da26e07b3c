// SPDX-License-Identifier: Apache-2.0
// hopt_test_wrong: a deliberately wrong rewrite for the tests of
// `hopt -verify-equivalence` (test/verify-equivalence.hlo). Built for tests
// only.
//
// test-swap-subtract-operands: subtract(a, b) -> subtract(b, a) in every
// computation. The module stays valid (same shapes), only the values change,
// so the verifier is happy and only the interpreter can tell.
//
// test-permute-from-wrong-source: every collective-permute's target
// receives from another pair's source: valid, and wrong on some devices.
//
// test-drop-unused-custom-calls / test-duplicate-custom-calls: remove every
// custom-call nobody uses, or add an unused copy of every custom-call
// (same target, backend_config and operands). The outputs stay the same;
// only the log of opaque calls tells (docs/hlo-run.md).

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

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

// Each target of a collective-permute receives from the source of the
// next pair instead of its own: still a valid permute (sources and
// targets stay distinct), only the data goes wrong.
class PermuteFromWrongSourcePass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-permute-from-wrong-source"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    bool changed = false;
    for (hopt::HloComputation* computation : module.computations())
      for (hopt::HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() != hopt::HloOpcode::kCollectivePermute) continue;
        std::vector<std::pair<int64_t, int64_t>> pairs = instruction->source_target_pairs();
        if (pairs.size() < 2) continue;
        std::vector<std::pair<int64_t, int64_t>> wrong;
        for (size_t k = 0; k < pairs.size(); ++k)
          wrong.push_back({pairs[(k + 1) % pairs.size()].first, pairs[k].second});
        instruction->set_source_target_pairs(wrong);
        changed = true;
      }
    return changed;
  }
};

std::vector<hopt::HloInstruction*> CustomCalls(hopt::HloComputation* computation) {
  std::vector<hopt::HloInstruction*> calls;
  for (hopt::HloInstruction* instruction : computation->instructions())
    if (instruction->opcode() == hopt::HloOpcode::kCustomCall) calls.push_back(instruction);
  return calls;
}

class DropUnusedCustomCallsPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-drop-unused-custom-calls"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    bool changed = false;
    for (hopt::HloComputation* computation : module.computations())
      for (hopt::HloInstruction* call : CustomCalls(computation)) {
        if (call->user_count() > 0 || call == computation->root_instruction()) continue;
        absl::Status removed = computation->RemoveInstruction(call);
        if (!removed.ok()) return removed;
        changed = true;
      }
    return changed;
  }
};

class DuplicateCustomCallsPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-duplicate-custom-calls"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    bool changed = false;
    for (hopt::HloComputation* computation : module.computations())
      for (hopt::HloInstruction* call : CustomCalls(computation)) {
        std::vector<hopt::HloInstruction*> operands;
        for (int64_t k = 0; k < call->operand_count(); ++k)
          operands.push_back(call->mutable_operand(k));
        hopt::HloInstruction* copy = computation->AddInstruction(
            hopt::HloOpcode::kCustomCall, call->shape(), operands, "duplicate");
        copy->set_custom_call_target(call->custom_call_target());
        copy->set_backend_config(call->backend_config());
        changed = true;
      }
    return changed;
  }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  // The registrar records an error; the loader reports it.
  registrar.AddPass<SwapSubtractOperandsPass>(
      "Swaps the operands of every subtract (a wrong rewrite, for -verify-equivalence tests)");
  registrar.AddPass<PermuteFromWrongSourcePass>(
      "Makes every collective-permute target receive from the next pair's source (wrong)");
  registrar.AddPass<DropUnusedCustomCallsPass>(
      "Removes every custom-call nobody uses (wrong for opaque calls: their effects go too)");
  registrar.AddPass<DuplicateCustomCallsPass>(
      "Adds an unused copy of every custom-call (wrong for opaque calls: their effects double)");
}

}  // namespace
}  // namespace hopt_test_wrong

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_wrong", "1.0.0",
          &hopt_test_wrong::RegisterPlugin};
}

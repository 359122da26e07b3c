// SPDX-License-Identifier: Apache-2.0
// hopt_vendor_test: a stand-in for a vendor's replacement of
// hopt_test_plugin, for the -compare-with tests (test/compare):
//   test-noop            the same (identical)
//   test-negate-to-copy  negate(x) -> copy(x): a wrong rewrite
//   test-append-suffix   fails
//   test-debug           crashes (abort)
//   test-fail            succeeds (ours fails)
// No test-break-module, and no -test-suffix option (an option only ours
// knows fails their run).

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt_vendor_test {
namespace {

class NoopPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-noop"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return false; }
};

class NegateToCopyPass : public hopt::OpExpanderPass {
 public:
  absl::string_view name() const override { return "test-negate-to-copy"; }

 protected:
  bool InstructionMatchesPattern(hopt::HloInstruction* instruction) override {
    return instruction->opcode() == hopt::HloOpcode::kNegate;
  }
  absl::StatusOr<hopt::HloInstruction*> ExpandInstruction(
      hopt::HloInstruction* instruction) override {
    return instruction->parent()->AddInstruction(hopt::HloOpcode::kCopy, instruction->shape(),
                                                 {instruction->mutable_operand(0)});
  }
};

class FailingSuffixPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-append-suffix"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override {
    return absl::UnimplementedError("the vendor does not support test-append-suffix");
  }
};

class CrashingDebugPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-debug"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { std::abort(); }
};

class SucceedingFailPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-fail"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return false; }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<NoopPass>("Does nothing");
  registrar.AddPass<SucceedingFailPass>("Does nothing");
  registrar.AddPass<NegateToCopyPass>("negate(x) -> copy(x) (wrong)");
  registrar.AddPass<FailingSuffixPass>("Always fails");
  registrar.AddPass<CrashingDebugPass>("Aborts");
}

}  // namespace
}  // namespace hopt_vendor_test

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_vendor_test", "1.0",
          &hopt_vendor_test::RegisterPlugin};
}

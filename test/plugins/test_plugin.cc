// SPDX-License-Identifier: Apache-2.0
// hopt_test_plugin: passes that exercise the pass manager and the driver
// (options, errors, instrumentation, OpExpanderPass). Built for tests only.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt_test_plugin {
namespace {

// test-append-suffix{suffix=S} (default _x; the deprecated -test-suffix
// flag sets the default).
class AppendSuffixPass : public hopt::Pass {
 public:
  explicit AppendSuffixPass(std::string suffix) : suffix_(std::move(suffix)) {}
  absl::string_view name() const override { return "test-append-suffix"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    if (suffix_.empty()) return false;
    module.set_name(absl::StrCat(module.name(), suffix_));
    return true;
  }

 private:
  std::string suffix_;
};

class NoopPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-noop"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return false; }
};

class FailPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-fail"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override {
    return absl::InternalError("test-fail always fails");
  }
};

// Makes the module invalid in a way only the verifier notices: the entry's
// new root is a copy whose shape does not match its operand's.
class BreakModulePass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-break-module"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    hopt::HloComputation* entry = module.entry_computation();
    if (entry == nullptr || entry->root_instruction() == nullptr)
      return absl::FailedPreconditionError("test-break-module needs an entry computation");
    hopt::HloInstruction* root = entry->root_instruction();
    const hopt::Shape& old_shape = root->shape();
    // Different from the root's shape whatever it is: an array of another
    // rank (or f32[7] for a tuple or token root).
    hopt::Shape bad(hopt::PrimitiveType::F32, {7});
    if (old_shape.IsArray()) {
      std::vector<int64_t> dims(old_shape.dimensions().begin(), old_shape.dimensions().end());
      dims.push_back(7);
      bad = hopt::Shape(old_shape.element_type(), dims);
    }
    hopt::HloInstruction* copy =
        entry->AddInstruction(hopt::HloOpcode::kCopy, bad, {root}, "broken");
    absl::Status status = entry->set_root_instruction(copy, /*accept_different_shape=*/true);
    if (!status.ok()) return status;
    return true;
  }
};

class DebugPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-debug"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    int64_t n = 0;
    for (hopt::HloComputation* computation : module.computations())
      n += computation->instruction_count();
    HOPT_DEBUG("test-debug", dbgs << "visited " << n << " instructions\n");
    return false;
  }
};

// negate(x) -> subtract(broadcast(0), x): same shape, same value (for the
// integer and IEEE types up to the sign of zero), built with the builders.
class NegateToSubtractPass : public hopt::OpExpanderPass {
 public:
  absl::string_view name() const override { return "test-negate-to-copy"; }

 protected:
  bool InstructionMatchesPattern(hopt::HloInstruction* instruction) override {
    return instruction->opcode() == hopt::HloOpcode::kNegate && instruction->shape().IsArray() &&
           instruction->shape().is_static();
  }
  absl::StatusOr<hopt::HloInstruction*> ExpandInstruction(
      hopt::HloInstruction* instruction) override {
    const hopt::Shape& shape = instruction->shape();
    hopt::HloInstruction* operand = instruction->mutable_operand(0);
    auto zero = hopt::MakeScalarConstant(instruction->parent(), shape.element_type(), 0.0);
    if (!zero.ok()) return zero.status();
    hopt::HloInstruction* zeros = *zero;
    if (shape.rank() > 0) {
      std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
      auto broadcast = hopt::MakeBroadcast(zeros, dims, {});
      if (!broadcast.ok()) return broadcast.status();
      zeros = *broadcast;
      zeros->set_shape(shape);  // keep the negate's layout
    }
    auto subtract = hopt::MakeBinary(hopt::HloOpcode::kSubtract, zeros, operand);
    if (!subtract.ok()) return subtract.status();
    (*subtract)->set_shape(shape);
    return *subtract;
  }
};

struct SuffixOptions {
  std::string suffix = "_x";
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  // The registrar records the first error; the loader reports it.
  registrar.AddPass("test-append-suffix", "Appends the suffix option to the module name",
                    {hopt::Option(&SuffixOptions::suffix, "suffix", "what is appended")},
                    [](const SuffixOptions& options) {
                      return std::make_unique<AppendSuffixPass>(options.suffix);
                    });
  registrar.AddFlagAlias("test-suffix", "test-append-suffix", "suffix");
  registrar.AddPass<NoopPass>("Does nothing");
  registrar.AddPass<FailPass>("Always fails");
  registrar.AddPass<BreakModulePass>("Makes the module invalid (for -verify-each)");
  registrar.AddPass<DebugPass>("Writes a debug line under -debug-only=test-debug");
  registrar.AddPass<NegateToSubtractPass>(
      "Rewrites negate(x) as subtract(broadcast(0), x) (an OpExpanderPass)");
  // A named pipeline whose text carries options.
  registrar.AddPipeline("test-suffixes",
                        "test-append-suffix{suffix=_p},test-noop,test-append-suffix",
                        "appends _p, then the default suffix", {"libhopt_test_plugin.so"});
}

}  // namespace
}  // namespace hopt_test_plugin

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_plugin", "1.2.3",
          &hopt_test_plugin::RegisterPlugin};
}

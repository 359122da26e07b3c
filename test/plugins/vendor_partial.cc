// SPDX-License-Identifier: Apache-2.0
// hopt_vendor_partial: a stand-in for a vendor plugin that replaces one pass
// of hopt_test_plugin and nothing else, for -compare-with's partial
// replacement (test/compare/partial.hlo):
//   test-negate-to-copy  negate(x) -> multiply(x, broadcast(-1)): another
//                        structure than ours, the same results for
//                        integers (the tests use s32; for floats the sign
//                        of a NaN may differ)
// Every other pass of a pipeline runs from the reference on both sides.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt_vendor_partial {
namespace {

class NegateToMultiplyPass : public hopt::OpExpanderPass {
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
    auto minus_one = hopt::MakeScalarConstant(instruction->parent(), shape.element_type(), -1.0);
    if (!minus_one.ok()) return minus_one.status();
    hopt::HloInstruction* factor = *minus_one;
    if (shape.rank() > 0) {
      std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
      auto broadcast = hopt::MakeBroadcast(factor, dims, {});
      if (!broadcast.ok()) return broadcast.status();
      factor = *broadcast;
      factor->set_shape(shape);
    }
    auto product =
        hopt::MakeBinary(hopt::HloOpcode::kMultiply, instruction->mutable_operand(0), factor);
    if (!product.ok()) return product.status();
    (*product)->set_shape(shape);
    return *product;
  }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<NegateToMultiplyPass>(
      "vendor test-negate-to-copy (negate(x) -> multiply(x, -1))");
}

}  // namespace
}  // namespace hopt_vendor_partial

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_vendor_partial", "0.5",
          &hopt_vendor_partial::RegisterPlugin};
}

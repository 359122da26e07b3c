// SPDX-License-Identifier: Apache-2.0
// A vendor's own aws_neuron_decompose_scalar_reduce, written against the
// installed hopt SDK only (the public headers hopt installs, found
// through hopt.pc). It is a faithful
// replacement of the reference pass: the same gate, the same refusals, the
// same emitted graph (docs/plugins/decompose.md). Built with
// VENDOR_DELIBERATE_BUG, it also rewrites add reductions, the mistake
// `hopt -compare-with` exists to catch: both stages reuse the init, so an
// add with init 1 then adds it 129 times.

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "hopt/support/status_macros.h"
#include "idempotent_max.h"

#ifndef VENDOR_DELIBERATE_BUG
#define VENDOR_DELIBERATE_BUG 0
#endif

namespace vendor {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;

constexpr int64_t kPartitions = 128;

// The reduction computation's root, when it is op(p0, p1) of its two
// scalar parameters.
std::optional<HloOpcode> PlainBinaryRoot(const HloInstruction& reduce) {
  const hopt::HloComputation* body = reduce.to_apply();
  if (body == nullptr || body->num_parameters() != 2) return std::nullopt;
  const HloInstruction* root = body->root_instruction();
  if (root == nullptr || root->operand_count() != 2) return std::nullopt;
  const HloInstruction* p0 = body->parameter_instruction(0);
  const HloInstruction* p1 = body->parameter_instruction(1);
  const hopt::Shape scalar = hopt::Shape::MakeScalar(reduce.shape().element_type());
  for (const HloInstruction* i : {root, p0, p1})
    if (!i->shape().Compatible(scalar)) return std::nullopt;
  bool plain = (root->operand(0) == p0 && root->operand(1) == p1) ||
               (root->operand(0) == p1 && root->operand(1) == p0);
  if (!plain) return std::nullopt;
  return root->opcode();
}

// init op init ... (129 times) == init for multiply.
bool MultiplyInitSurvives(const HloInstruction& init) {
  if (init.opcode() != HloOpcode::kConstant) return false;
  absl::StatusOr<hopt::Literal> literal = init.literal();
  if (!literal.ok() || literal->is_elided() || literal->element_count() != 1) return false;
  const hopt::PrimitiveType type = init.shape().element_type();
  const int64_t value = literal->GetAsInt64(0);
  int64_t power = value;
  for (int64_t k = 1; k < kPartitions + 1; ++k)
    power = hopt::WrapToIntegralType(
        static_cast<int64_t>(static_cast<uint64_t>(power) * static_cast<uint64_t>(value)), type);
  return power == hopt::WrapToIntegralType(value, type);
}

class ScalarReduce : public hopt::OpExpanderPass {
 public:
  absl::string_view name() const override { return "aws_neuron_decompose_scalar_reduce"; }

 protected:
  absl::Span<const HloOpcode> PatternOpcodes() const override {
    static constexpr HloOpcode kOpcodes[] = {HloOpcode::kReduce};
    return kOpcodes;
  }

  bool InstructionMatchesPattern(HloInstruction* reduce) override {
    const hopt::Shape& shape = reduce->shape();
    if (!shape.IsArray() || !hopt::IsIntegralType(shape.element_type())) return false;
    for (int64_t size : shape.dimensions())
      if (size != 1) return false;
    if (reduce->operand_count() != 2) return false;
    std::optional<HloOpcode> root = PlainBinaryRoot(*reduce);
    if (!root) return false;
    if (*root == HloOpcode::kAdd && !VENDOR_DELIBERATE_BUG) return false;
    const hopt::Shape& input = reduce->operand(0)->shape();
    if (!input.IsArray() || input.rank() != 2 || !input.is_static()) return false;
    if (input.element_type() != shape.element_type() ||
        reduce->operand(1)->shape().element_type() != shape.element_type())
      return false;
    std::optional<int64_t> count = input.ElementCountIfFits();
    if (!count || *count % kPartitions != 0) return false;
    switch (*root) {
      case HloOpcode::kMaximum:
      case HloOpcode::kMinimum:
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kXor:
      case HloOpcode::kAdd:  // only with VENDOR_DELIBERATE_BUG
        return true;
      case HloOpcode::kMultiply: return MultiplyInitSurvives(*reduce->operand(1));
      default: return false;
    }
  }

  // [N] -> [128, N/128] -> reduce rows -> barrier -> reduce -> R's shape.
  absl::StatusOr<HloInstruction*> ExpandInstruction(HloInstruction* reduce) override {
    HloInstruction* input = reduce->mutable_operand(0);
    HloInstruction* init = reduce->mutable_operand(1);
    const int64_t count = input->shape().ElementCount();
    HOPT_ASSIGN_OR_RETURN(HloInstruction * tiled,
                          hopt::MakeReshape(input, {kPartitions, count / kPartitions}));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * rows,
                          hopt::MakeReduce(tiled, init, {1}, reduce->to_apply()));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * barrier,
                          hopt::MakeBinary(HloOpcode::kMaximum, rows, rows));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * total,
                          hopt::MakeReduce(barrier, init, {0}, reduce->to_apply()));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * result,
                          hopt::MakeReshape(total, reduce->shape().dimensions()));
    result->set_shape(reduce->shape());
    for (HloInstruction* made : {tiled, rows, barrier, total, result})
      made->CopyTextAttributeFrom(*reduce, "metadata");
    return result;
  }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  // A name the reference plugin also registers: loaded beside it, this
  // needs -override-passes (and -list-passes then says so).
  registrar.AddPass<ScalarReduce>(
      "scalar integer reduce -> two-stage reduce over 128 partitions (vendor)");
  // A pass of the vendor's own (idempotent_max.h).
  registrar.AddPass<IdempotentMax>("maximum(x, x) -> copy(x), same name");
}

}  // namespace
}  // namespace vendor

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG,
          VENDOR_DELIBERATE_BUG ? "vendor_scalar_reduce_buggy" : "vendor_scalar_reduce", "1.0.0",
          &vendor::RegisterPlugin};
}

// SPDX-License-Identifier: Apache-2.0
// aws_neuron_decompose_scalar_reduce: the header says what and why;
// docs/plugins/decompose.md has the emitted graph and the cases left alone.

#include "decompose/decompose_scalar_reduce.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "decompose/decompose_common.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;
using hopt::PrimitiveType;

#define DECOMPOSE_DEBUG(...) HOPT_DEBUG(DecomposeScalarReduce::kName, __VA_ARGS__)

constexpr int64_t kPartitions = 128;
// Partial results the rewrite folds init into: one per partition row, plus
// the second stage's own.
constexpr int64_t kInitApplications = kPartitions + 1;

// The roots whose regrouping is exact on wrapping integers.
constexpr HloOpcode kRegroupable[] = {HloOpcode::kMaximum,  HloOpcode::kMinimum,
                                      HloOpcode::kMultiply, HloOpcode::kAnd,
                                      HloOpcode::kOr,       HloOpcode::kXor};

// Whether init^129 == init for multiply: init must be a constant.
bool MultiplyInitSurvivesReuse(const HloInstruction& init) {
  if (init.opcode() != HloOpcode::kConstant) return false;
  absl::StatusOr<hopt::Literal> literal = init.literal();
  if (!literal.ok() || literal->is_elided() || literal->element_count() != 1) return false;
  const PrimitiveType type = init.shape().element_type();
  const int64_t value = literal->GetAsInt64(0);
  // Unsigned arithmetic wraps without undefined behaviour; the type's width
  // is applied after every step.
  int64_t power = value;
  for (int64_t k = 1; k < kInitApplications; ++k)
    power = hopt::WrapToIntegralType(
        static_cast<int64_t>(static_cast<uint64_t>(power) * static_cast<uint64_t>(value)), type);
  return power == hopt::WrapToIntegralType(value, type);
}

// Why a gated reduce is left alone, or nullopt when it is rewritten.
std::optional<std::string> Refusal(const HloInstruction& reduce) {
  if (reduce.operand_count() != 2) return std::string("not exactly one input and one init");
  const PrimitiveType type = reduce.shape().element_type();
  const HloInstruction& input = *reduce.operand(0);
  const HloInstruction& init = *reduce.operand(1);
  if (input.shape().element_type() != type || init.shape().element_type() != type)
    return std::string("input, init and result differ in element type");
  if (!input.shape().is_static() || !reduce.shape().is_static())
    return std::string("dynamic shape");
  std::optional<HloOpcode> root = ReductionRootOpcode(reduce);
  bool regroupable = false;
  for (HloOpcode op : kRegroupable)
    regroupable |= root == op && IsPlainBinaryReduction(reduce.to_apply(), op, type);
  if (!regroupable)
    return std::string(
        "the reduction computation is not exactly maximum, minimum, multiply, and, or or xor "
        "of its two parameters (regrouping could change the result)");
  if (*root == HloOpcode::kMultiply && !MultiplyInitSurvivesReuse(init))
    return absl::StrCat("multiply with an init that is not a constant c with c^", kInitApplications,
                        " == c (both stages reuse it)");
  return std::nullopt;
}

}  // namespace

bool IsDecomposableScalarReduce(const HloInstruction& instruction) {
  if (instruction.opcode() != HloOpcode::kReduce) return false;
  if (!hopt::IsIntegralType(instruction.shape().element_type())) return false;
  if (TrueNumDimensions(instruction.shape()) != 0) return false;
  std::optional<HloOpcode> root = ReductionRootOpcode(instruction);
  if (!root || *root == HloOpcode::kAdd) return false;
  if (instruction.operand_count() < 1) return false;
  const hopt::Shape& input = instruction.operand(0)->shape();
  if (!input.IsArray() || input.rank() != 2) return false;
  // A count that overflows would wrap (2^32 x 2^32 to 0) and pass the test.
  std::optional<int64_t> count = input.ElementCountIfFits();
  return count && *count % kPartitions == 0;
}

absl::StatusOr<HloInstruction*> DecomposeScalarReduceInstruction(HloInstruction* reduce) {
  if (std::optional<std::string> why = Refusal(*reduce)) {
    DECOMPOSE_DEBUG(dbgs << "left alone %" << hopt::AsRef(reduce->name()) << ": " << *why << "\n");
    return nullptr;
  }
  HloInstruction* input = reduce->mutable_operand(0);
  HloInstruction* init = reduce->mutable_operand(1);
  hopt::HloComputation* computation = reduce->to_apply();
  const int64_t count = input->shape().ElementCount();
  std::vector<HloInstruction*> created;
  auto keep = [&](absl::StatusOr<HloInstruction*> made) -> absl::StatusOr<HloInstruction*> {
    if (made.ok()) created.push_back(*made);
    return made;
  };

  // The 128-partition tiling, the free axis, the barrier, the partition
  // axis, the original shape.
  HOPT_ASSIGN_OR_RETURN(auto tiled,
                        keep(hopt::MakeReshape(input, {kPartitions, count / kPartitions})));
  HOPT_ASSIGN_OR_RETURN(auto rows, keep(hopt::MakeReduce(tiled, init, {1}, computation)));
  HOPT_ASSIGN_OR_RETURN(auto barrier, keep(hopt::MakeBinary(HloOpcode::kMaximum, rows, rows)));
  HOPT_ASSIGN_OR_RETURN(auto total, keep(hopt::MakeReduce(barrier, init, {0}, computation)));
  const hopt::Shape& shape = reduce->shape();
  HOPT_ASSIGN_OR_RETURN(auto result, keep(hopt::MakeReshape(total, shape.dimensions())));
  result->set_shape(shape);

  for (HloInstruction* made : created) CopyMetadata(*reduce, made);
  DECOMPOSE_DEBUG(dbgs << "decomposed %" << hopt::AsRef(reduce->name()) << ": [128,"
                       << count / kPartitions << "] two-stage reduce\n");
  return result;
}

}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0

#include "core/eval/device_evaluator.h"
#include "hopt/support/status_macros.h"

// The interpreter's fusion, the async pairs, copy-start/copy-done and the
// asynchronous collectives (docs/interpreter-semantics.md, "Fusion, async pairs and
// copy-start/copy-done"). None of them changes a value: an asynchronous
// op's work is done where it starts, and its -update and -done pass on or
// unpack what the start made, which is what XLA computes whatever the
// schedule between them.

namespace hopt {
namespace eval {
namespace {

// The computation a fusion or an async-start runs: its `calls=` (an async
// shorthand such as reduce-scatter-start has none, and its to_apply is the
// wrapped op's reduction, not the computation to run).
const HloComputation* CalledComputation(const HloInstruction& i) {
  if (const HloAttribute* calls = i.FindAttribute("calls"))
    if (calls->computations.size() == 1) return calls->computations[0];
  return nullptr;
}

// Element `index` of a tuple value, checked.
absl::StatusOr<Literal> TupleElement(const HloInstruction& i, const Literal& value, size_t index) {
  if (!value.shape().IsTuple() || value.tuple_elements().size() <= index)
    return UnsupportedInstruction(
        i, absl::StrCat("expects a tuple of at least ", index + 1, " elements as its operand, got ",
                        value.shape().ToString(false)));
  return value.tuple_elements()[index];
}

// `operands` as one value: the operand itself, or a tuple of them.
Literal OperandsValue(const Shape& shape, const std::vector<const Literal*>& operands) {
  if (!shape.IsTuple() && operands.size() == 1) return *operands[0];
  Literal tuple(shape);
  for (size_t k = 0; k < operands.size() && k < tuple.tuple_elements().size(); ++k)
    tuple.mutable_tuple_elements()[k] = *operands[k];
  return tuple;
}

// A start's value: its shape (operands, result, contexts...) with the
// operands and result in place and every context zero.
absl::StatusOr<Literal> StartValue(const HloInstruction& i,
                                   const std::vector<const Literal*>& operands, Literal result) {
  const Shape& shape = i.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2)
    return UnsupportedInstruction(
        i, absl::StrCat("expects a shape (operands, result, ...), got ", shape.ToString(false)));
  if (!shape.tuple_shapes(1).Compatible(result.shape()))
    return UnsupportedInstruction(
        i, absl::StrCat("the computation it starts gives ", result.shape().ToString(false),
                        ", where its shape holds ", shape.tuple_shapes(1).ToString(false)));
  Literal value(shape);
  value.mutable_tuple_elements()[0] = OperandsValue(shape.tuple_shapes(0), operands);
  value.mutable_tuple_elements()[1] = std::move(result);
  return value;
}

bool SameShapes(const Shape& shape, const std::vector<const HloInstruction*>& operands) {
  if (operands.size() == 1 && !shape.IsTuple()) return shape.Compatible(operands[0]->shape());
  if (!shape.IsTuple() || shape.tuple_shapes_size() != static_cast<int64_t>(operands.size()))
    return false;
  for (size_t k = 0; k < operands.size(); ++k)
    if (!shape.tuple_shapes(k).Compatible(operands[k]->shape())) return false;
  return true;
}

}  // namespace

bool EchoesOperands(const HloInstruction& i) {
  if (i.opcode() != HloOpcode::kAllGatherStart && i.opcode() != HloOpcode::kCollectivePermuteStart)
    return false;
  const Shape& shape = i.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2) return false;
  std::vector<const HloInstruction*> operands(i.operands().begin(), i.operands().end());
  // collective-permute-start's in-place form (operand, output buffer,
  // offsets...) echoes its first operand only.
  if (i.opcode() == HloOpcode::kCollectivePermuteStart && operands.size() > 1) operands.resize(1);
  return SameShapes(shape.tuple_shapes(0), operands);
}

const Shape& CollectiveResultShape(const HloInstruction& i) {
  const bool async_shorthand = i.opcode() == HloOpcode::kAsyncStart && i.shape().IsTuple() &&
                               i.shape().tuple_shapes_size() >= 2;
  return EchoesOperands(i) || async_shorthand ? i.shape().tuple_shapes(1) : i.shape();
}

absl::StatusOr<Literal> DeviceEvaluator::CollectiveStart(const HloInstruction& i,
                                                         const std::vector<const Literal*>& ops) {
  std::vector<const Literal*> exchanged = ops;
  // The in-place collective-permute-start writes into its second operand
  // at offsets; only the plain form is run.
  if (i.opcode() == HloOpcode::kCollectivePermuteStart && ops.size() > 1)
    return UnsupportedInstruction(
        i, "the in-place form (output buffer and offsets as operands) is not supported");
  HOPT_ASSIGN_OR_RETURN(Literal result, Collective(i, exchanged));
  if (!EchoesOperands(i)) return result;
  return StartValue(i, ops, std::move(result));
}

absl::StatusOr<Literal> DeviceEvaluator::CollectiveDone(const HloInstruction& i,
                                                        const Literal& started) {
  const HloInstruction* start = i.operand(0);
  if (EchoesOperands(*start)) return TupleElement(i, started, 1);
  return started;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateWrappedOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kFusion: {
      const HloComputation* fused = CalledComputation(i);
      if (fused == nullptr) return UnsupportedInstruction(i, "needs calls=<fused computation>");
      return Evaluate(*fused, ops);
    }
    case HloOpcode::kAsyncStart: {
      const HloComputation* wrapped = CalledComputation(i);
      std::optional<HloOpcode> shorthand = i.async_wrapped_opcode();
      if (wrapped == nullptr && shorthand && IsSynchronousCollective(*shorthand)) {
        absl::StatusOr<Literal> result = Collective(i, ops);
        if (!result.ok()) return result.status();
        return StartValue(i, ops, *std::move(result));
      }
      if (wrapped == nullptr)
        return UnsupportedInstruction(
            i,
            "an async start without its wrapped computation (calls=) is not supported, "
            "except the shorthand of a collective");
      absl::StatusOr<Literal> result = Evaluate(*wrapped, ops);
      if (!result.ok()) return result.status();
      return StartValue(i, ops, *std::move(result));
    }
    case HloOpcode::kAsyncUpdate: return *ops[0];
    case HloOpcode::kAsyncDone: return TupleElement(i, *ops[0], 1);
    case HloOpcode::kCopyStart: {
      // (destination, source, context): both buffers hold the operand.
      if (!i.shape().IsTuple() || i.shape().tuple_shapes_size() < 2)
        return UnsupportedInstruction(
            i, absl::StrCat("expects a shape (destination, source, context), got ",
                            i.shape().ToString(false)));
      Literal value(i.shape());
      value.mutable_tuple_elements()[0] = *ops[0];
      value.mutable_tuple_elements()[1] = *ops[0];
      return value;
    }
    case HloOpcode::kCopyDone: return TupleElement(i, *ops[0], 0);
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      return UnsupportedInstruction(
          i, "it exchanges data with the host program, which the interpreter does not have");
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt

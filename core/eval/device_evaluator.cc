// SPDX-License-Identifier: Apache-2.0

#include "core/eval/device_evaluator.h"

#include <pthread.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hopt/ir/stack_frames.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

std::vector<int64_t> IntListAttribute(const HloInstruction& i, absl::string_view name) {
  auto text = i.GetAttributeText(name);
  if (!text) return {};
  return ParseIntList(*text).value_or(std::vector<int64_t>{});
}

int64_t ScalarAsInt(const Literal& value) { return value.GetAsInt64(0); }

// What one more level of nested evaluation may need, at most.
constexpr size_t kStackReserveBytes = 1u << 20;

// The lowest frame address the calling thread may reach while keeping
// kStackReserveBytes of its stack free (nullptr when unknown).
const char* StackFloor() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return nullptr;
  void* low = nullptr;
  size_t size = 0;
  int got = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  if (got != 0 || size <= kStackReserveBytes) return nullptr;
  return static_cast<const char*>(low) + kStackReserveBytes;
}

}  // namespace

namespace {

// "interpreter: NAME (OPCODE): " and, when the module says which program
// line made the instruction, "; from model.py:187 (fn)" after the message.
std::string InstructionMessage(const HloInstruction& i, absl::string_view message) {
  std::string out =
      absl::StrCat("interpreter: ", i.name(), " (", i.OpcodeSpelling(), "): ", message);
  std::string source = SourceLineOf(i, /*with_function=*/true);
  if (!source.empty()) absl::StrAppend(&out, "; from ", source);
  return out;
}

}  // namespace

absl::Status UnsupportedInstruction(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(InstructionMessage(i, why));
}

absl::Status NameInstruction(const HloInstruction& i, const absl::Status& status) {
  absl::string_view message = status.message();
  absl::ConsumePrefix(&message, absl::StrCat(i.OpcodeSpelling(), ": "));
  return absl::Status(status.code(), InstructionMessage(i, message));
}

Plans MakePlans(const HloModule& module) {
  Plans plans;
  for (const HloComputation* computation : module.computations()) {
    ComputationPlan& plan = plans.computations[computation];
    absl::flat_hash_map<const HloInstruction*, uint32_t> position;
    for (const HloInstruction* i : computation->MakeInstructionPostOrder()) {
      position[i] = static_cast<uint32_t>(plan.order.size());
      plan.order.push_back(i);
      if (i->opcode() == HloOpcode::kConstant &&
          Literal::AllocatedBytesFor(i->shape()) <= kPlannedConstantBytes)
        plans.constants.emplace(i, i->literal());
    }
    auto root = position.find(computation->root_instruction());
    if (root != position.end()) plan.root_position = root->second;
    plan.operand_positions.resize(plan.order.size());
    std::vector<uint32_t> last_use(plan.order.size(), 0);
    std::vector<bool> used(plan.order.size(), false);
    for (size_t k = 0; k < plan.order.size(); ++k) {
      for (const HloInstruction* operand : plan.order[k]->operands()) {
        auto where = position.find(operand);
        if (where == position.end()) {
          plan.operand_positions[k].push_back(kNoPosition);
          continue;
        }
        const uint32_t p = where->second;
        plan.operand_positions[k].push_back(p);
        last_use[p] = static_cast<uint32_t>(k);
        used[p] = true;
      }
    }
    plan.dead_after.resize(plan.order.size());
    for (uint32_t p = 0; p < plan.order.size(); ++p)
      if (used[p] && p != plan.root_position) plan.dead_after[last_use[p]].push_back(p);
  }
  return plans;
}

DeviceEvaluator::DeviceEvaluator(const HloModule& module, const Plans& plans, const Mesh& mesh,
                                 int64_t device, Rendezvous& rendezvous, const EvalOptions& options,
                                 std::vector<OpaqueCall>* opaque_log)
    : module_(module),
      plans_(plans),
      mesh_(mesh),
      device_(device),
      rendezvous_(rendezvous),
      options_(options),
      opaque_log_(opaque_log),
      stack_floor_(StackFloor()) {}

absl::StatusOr<Literal> DeviceEvaluator::Evaluate(const HloComputation& computation,
                                                  absl::Span<const Literal* const> args) {
  if (static_cast<int64_t>(args.size()) != computation.num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("computation ", computation.name(), " takes ",
                                                   computation.num_parameters(), " arguments, got ",
                                                   args.size()));
  if (depth_ >= options_.max_call_depth)
    return absl::ResourceExhaustedError(
        absl::StrCat("interpreter: computations nest more than ", options_.max_call_depth,
                     " deep (at computation ", computation.name(), ")"));
  // The safety net for whatever the depth limit does not foresee (a
  // caller's small stack, an unusually large frame).
  if (static_cast<const char*>(__builtin_frame_address(0)) < stack_floor_)
    return absl::ResourceExhaustedError(
        absl::StrCat("interpreter: computations nest too deeply for the stack (", depth_,
                     " deep, at computation ", computation.name(), ")"));
  struct Nest {
    int64_t& depth;
    explicit Nest(int64_t& d) : depth(d) { ++depth; }
    ~Nest() { --depth; }
  } nest(depth_);
  auto plan_it = plans_.computations.find(&computation);
  if (plan_it == plans_.computations.end())
    return absl::InternalError(absl::StrCat("no plan for computation ", computation.name()));
  const ComputationPlan& plan = plan_it->second;
  // By position in the plan's order; empty until made and after dropped.
  std::vector<std::optional<Literal>> values(plan.order.size());
  // The budget covers every live value on the device, callers' included.
  int64_t& live_bytes = live_bytes_;
  struct Release {
    std::vector<std::optional<Literal>>& values;
    int64_t& live;
    ~Release() {
      for (const std::optional<Literal>& value : values)
        if (value) live -= ValueBytes(*value);
    }
  } release{values, live_bytes};
  // Parameters are read where the caller keeps them (and charged there):
  // a device's arguments, a loop's state or a call's operands are not
  // copied again.
  std::vector<const Literal*> borrowed(plan.order.size(), nullptr);
  std::vector<const Literal*> operands;
  for (size_t k = 0; k < plan.order.size(); ++k) {
    const HloInstruction* instruction = plan.order[k];
    if (instruction->opcode() == HloOpcode::kParameter) {
      borrowed[k] = args[static_cast<size_t>(instruction->parameter_number())];
      continue;
    }
    // Refused before it is made, so the peak stays near the budget; the
    // charge after it is what was really allocated.
    int64_t expected = Literal::AllocatedBytesFor(instruction->shape());
    if (expected > options_.max_bytes_per_device - live_bytes)
      return OverBudget(absl::StrCat("computing ", instruction->name(), " (",
                                     instruction->shape().ToString(false), ", ", expected,
                                     " bytes) in computation ", computation.name(), " with ",
                                     live_bytes, " bytes live"));
    operands.clear();
    for (size_t j = 0; j < plan.operand_positions[k].size(); ++j) {
      const uint32_t p = plan.operand_positions[k][j];
      if (p == kNoPosition || (!values[p] && borrowed[p] == nullptr))
        return absl::InternalError(
            absl::StrCat("operand ", instruction->operand(j)->name(), " has no value"));
      operands.push_back(values[p] ? &*values[p] : borrowed[p]);
    }
    HOPT_ASSIGN_OR_RETURN(Literal value, EvaluateInstruction(*instruction, operands, args));
    live_bytes += ValueBytes(value);
    values[k] = std::move(value);
    if (live_bytes > options_.max_bytes_per_device)
      return OverBudget(absl::StrCat("live values of computation ", computation.name(), " reach ",
                                     live_bytes, " bytes at ", instruction->name()));
    // Values no later instruction reads are dropped at once.
    for (uint32_t dead : plan.dead_after[k]) {
      if (!values[dead]) continue;
      live_bytes -= ValueBytes(*values[dead]);
      values[dead].reset();
    }
  }
  // Moved out, not copied: the caller charges it as its own value.
  if (plan.root_position != kNoPosition && borrowed[plan.root_position] != nullptr)
    return Literal(*borrowed[plan.root_position]);
  if (plan.root_position == kNoPosition || !values[plan.root_position])
    return absl::InternalError("the root has no value");
  std::optional<Literal>& root = values[plan.root_position];
  live_bytes -= ValueBytes(*root);
  Literal result = std::move(*root);
  root.reset();
  return result;
}

absl::Status DeviceEvaluator::ChargeArguments(int64_t bytes) {
  live_bytes_ += bytes;
  if (live_bytes_ > options_.max_bytes_per_device)
    return OverBudget(absl::StrCat("the arguments take ", bytes, " bytes"));
  return absl::OkStatus();
}

absl::Status DeviceEvaluator::OverBudget(absl::string_view what) const {
  return absl::ResourceExhaustedError(absl::StrCat("interpreter: ", what, ", over the budget of ",
                                                   options_.max_bytes_per_device,
                                                   " bytes per device"));
}

absl::StatusOr<std::vector<Literal>> DeviceEvaluator::CallScalars(
    const HloComputation& computation, const std::vector<Literal>& args) {
  std::vector<const Literal*> borrowed;
  for (const Literal& arg : args) borrowed.push_back(&arg);
  HOPT_ASSIGN_OR_RETURN(Literal result, Evaluate(computation, borrowed));
  if (result.shape().IsTuple()) return std::move(result.mutable_tuple_elements());
  return std::vector<Literal>{std::move(result)};
}

std::optional<ElementCombiner> DeviceEvaluator::PlainBinaryCombiner(
    const HloComputation& computation, const Literal& input) {
  const HloInstruction* root = computation.root_instruction();
  PrimitiveType type = input.shape().element_type();
  if (computation.num_parameters() != 2 || !IsElementwiseBinary(root->opcode()) ||
      root->operand_count() != 2 || root->operand(0) != computation.parameter_instruction(0) ||
      root->operand(1) != computation.parameter_instruction(1) || !root->shape().IsScalar() ||
      root->shape().element_type() != type)
    return std::nullopt;
  for (const HloInstruction* parameter : computation.parameter_instructions())
    if (!parameter->shape().IsScalar() || parameter->shape().element_type() != type)
      return std::nullopt;
  auto combiner = MakeElementCombiner(root->opcode(), type);
  if (!combiner.ok()) return std::nullopt;
  return *std::move(combiner);
}

absl::StatusOr<Literal> DeviceEvaluator::Combine(const HloComputation& computation,
                                                 const Literal& a, const Literal& b) {
  const HloInstruction* root = computation.root_instruction();
  if (IsElementwiseBinary(root->opcode()) && root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter && root->operand(0) != root->operand(1))
    return root->operand(0)->parameter_number() == 0 ? Binary(root->opcode(), a, b)
                                                     : Binary(root->opcode(), b, a);
  Literal out(a.shape());
  for (int64_t k = 0; k < a.element_count(); ++k) {
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> r,
                          CallScalars(computation, {ElementAt(a, k), ElementAt(b, k)}));
    if (r.size() != 1) return absl::InvalidArgumentError("reduction must return one value");
    out.CopyElementFrom(r[0], 0, k);
  }
  return out;
}

namespace {

// The type two floating-point types both convert to exactly: the wider,
// or f32 for two of one width (bf16 and f16, two f8 kinds).
PrimitiveType WiderFloat(PrimitiveType a, PrimitiveType b) {
  if (a == b) return a;
  int wa = PrimitiveTypeBitWidth(a), wb = PrimitiveTypeBitWidth(b);
  if (wa != wb) return wa > wb ? a : b;
  return wa >= 32 ? a : PrimitiveType::F32;
}

bool TakesMixedFloats(HloOpcode op) {
  return IsElementwiseBinary(op) || op == HloOpcode::kCompare || op == HloOpcode::kSelect ||
         op == HloOpcode::kClamp || op == HloOpcode::kConcatenate;
}

}  // namespace

absl::StatusOr<Literal> DeviceEvaluator::EvaluateInstruction(
    const HloInstruction& i, const std::vector<const Literal*>& ops,
    absl::Span<const Literal* const> args) {
  // Floating-point operands of mixed types (the verifier accepts them, as
  // XLA's does with mixed precision allowed): each is converted, exactly,
  // to the widest float type among them and the result, the operation runs
  // in that type, and its result is rounded once to the result's type.
  if (TakesMixedFloats(i.opcode())) {
    std::optional<PrimitiveType> wide;
    bool mixed = false;
    for (const Literal* op : ops) {
      PrimitiveType t = op->shape().IsArray() ? op->shape().element_type() : PrimitiveType::INVALID;
      if (!IsFloatingPointType(t)) continue;
      mixed = mixed || (wide && *wide != t);
      wide = wide ? WiderFloat(*wide, t) : t;
    }
    if (mixed) {
      PrimitiveType result_type =
          i.shape().IsArray() ? i.shape().element_type() : PrimitiveType::INVALID;
      if (IsFloatingPointType(result_type)) wide = WiderFloat(*wide, result_type);
      std::vector<Literal> converted;
      converted.reserve(ops.size());
      std::vector<const Literal*> same;
      for (const Literal* op : ops) {
        if (op->shape().IsArray() && IsFloatingPointType(op->shape().element_type()) &&
            op->shape().element_type() != *wide) {
          HOPT_ASSIGN_OR_RETURN(Literal c, Convert(*op, *wide));
          converted.push_back(std::move(c));
          same.push_back(&converted.back());
        } else {
          same.push_back(op);
        }
      }
      HOPT_ASSIGN_OR_RETURN(Literal value, EvaluateInstruction(i, same, args));
      if (IsFloatingPointType(result_type) && value.shape().element_type() != result_type)
        return Convert(value, result_type);
      return value;
    }
  }
  FamilyResult result = EvaluateValueOp(i, ops, args);
  if (!result) result = EvaluateElementwiseWithAttributes(i, ops);
  if (!result) result = EvaluateDataMovement(i, ops);
  if (!result) result = EvaluateDenseOp(i, ops);
  if (!result) result = EvaluateControlFlow(i, ops);
  if (!result) result = EvaluateCommunication(i, ops);
  if (!result) result = EvaluateGatherScatter(i, ops);
  if (!result) result = EvaluateWindowOp(i, ops);
  if (!result) result = EvaluateSortOp(i, ops);
  if (!result) result = EvaluateLinalgOp(i, ops);
  if (!result) result = EvaluateRandomOp(i, ops);
  if (!result) result = EvaluateConversionOp(i, ops);
  if (!result) result = EvaluateWrappedOp(i, ops);
  if (result) return *std::move(result);
  HloOpcode op = i.opcode();
  if (IsElementwiseUnary(op) || op == HloOpcode::kIsFinite || op == HloOpcode::kReal ||
      op == HloOpcode::kImag)
    return Unary(op, *ops[0]);
  if (IsElementwiseBinary(op) || op == HloOpcode::kComplex) return Binary(op, *ops[0], *ops[1]);
  return UnsupportedInstruction(i, "this opcode is not supported by the interpreter");
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateValueOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops,
    absl::Span<const Literal* const> args) {
  switch (i.opcode()) {
    case HloOpcode::kParameter: return *args[i.parameter_number()];
    case HloOpcode::kConstant: return EvaluateConstant(i);
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency: return *ops[0];
    case HloOpcode::kAfterAll: return Literal(Shape::MakeToken());
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      Literal id(Shape(PrimitiveType::U32, {}));
      id.SetFromInt64(
          0, i.opcode() == HloOpcode::kReplicaId ? this->id().replica : this->id().partition);
      return id;
    }
    case HloOpcode::kTuple: {
      Literal tuple(i.shape());
      for (size_t k = 0; k < ops.size(); ++k) tuple.mutable_tuple_elements()[k] = *ops[k];
      return tuple;
    }
    case HloOpcode::kGetTupleElement: {
      int64_t index = i.tuple_index();
      if (!ops[0]->shape().IsTuple() || index < 0 ||
          index >= static_cast<int64_t>(ops[0]->tuple_elements().size()))
        return UnsupportedInstruction(i, "tuple index out of range");
      return ops[0]->tuple_elements()[index];
    }
    default: return std::nullopt;
  }
}

absl::StatusOr<Literal> DeviceEvaluator::EvaluateConstant(const HloInstruction& i) const {
  auto planned = plans_.constants.find(&i);
  HOPT_ASSIGN_OR_RETURN(Literal value,
                        planned != plans_.constants.end() ? planned->second : i.literal());
  if (value.is_elided())
    return UnsupportedInstruction(i, "the constant's values were elided ({...})");
  return value;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateElementwiseWithAttributes(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kCompare: {
      auto type = i.GetAttributeText("type");
      return Compare(i.comparison_direction(), *ops[0], *ops[1], type && *type == "TOTALORDER");
    }
    case HloOpcode::kSelect: return Select(*ops[0], *ops[1], *ops[2]);
    case HloOpcode::kClamp: return Clamp(*ops[0], *ops[1], *ops[2]);
    case HloOpcode::kConvert: return Convert(*ops[0], i.shape().element_type());
    case HloOpcode::kBitcastConvert: return BitcastConvert(*ops[0], i.shape());
    default: return std::nullopt;
  }
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateDataMovement(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kBroadcast: return Broadcast(*ops[0], i.shape(), i.dimensions());
    case HloOpcode::kReshape: return Reshape(*ops[0], i.shape());
    case HloOpcode::kTranspose: return Transpose(*ops[0], i.dimensions());
    case HloOpcode::kSlice: {
      std::vector<int64_t> starts, limits, strides;
      for (const SliceDimension& d : i.slice()) {
        starts.push_back(d.start);
        limits.push_back(d.limit);
        strides.push_back(d.stride);
      }
      return Slice(*ops[0], starts, limits, strides);
    }
    case HloOpcode::kDynamicSlice: {
      std::vector<int64_t> starts;
      for (size_t k = 1; k < ops.size(); ++k) starts.push_back(ScalarAsInt(*ops[k]));
      return DynamicSlice(*ops[0], starts, i.dynamic_slice_sizes());
    }
    case HloOpcode::kDynamicUpdateSlice: {
      std::vector<int64_t> starts;
      for (size_t k = 2; k < ops.size(); ++k) starts.push_back(ScalarAsInt(*ops[k]));
      return DynamicUpdateSlice(*ops[0], *ops[1], starts);
    }
    case HloOpcode::kConcatenate: {
      std::vector<int64_t> dims = i.dimensions();
      if (dims.size() != 1) return UnsupportedInstruction(i, "needs dimensions={d}");
      return Concatenate(ops, dims[0]);
    }
    case HloOpcode::kPad: return EvaluatePad(i, ops);
    case HloOpcode::kIota: return Iota(i.shape(), i.IntAttribute("iota_dimension").value_or(0));
    case HloOpcode::kReverse: return Reverse(*ops[0], i.dimensions());
    default: return std::nullopt;
  }
}

absl::StatusOr<Literal> DeviceEvaluator::EvaluatePad(const HloInstruction& i,
                                                     const std::vector<const Literal*>& ops) {
  std::vector<PadDimension> padding;
  auto text = i.GetAttributeText("padding").value_or("");
  if (text == "{}") text = "";  // a scalar's: no dimension
  for (absl::string_view dim : absl::StrSplit(text, 'x', absl::SkipEmpty())) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    PadDimension p;
    if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &p.low) ||
        !absl::SimpleAtoi(parts[1], &p.high) ||
        (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &p.interior)))
      return UnsupportedInstruction(i, absl::StrCat("malformed padding=", text));
    padding.push_back(p);
  }
  return Pad(*ops[0], *ops[1], padding);
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateDenseOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kDot:
      if (ops.size() != 2) return UnsupportedInstruction(i, "sparse dots are not supported");
      return Dot(*ops[0], *ops[1], IntListAttribute(i, "lhs_contracting_dims"),
                 IntListAttribute(i, "rhs_contracting_dims"), IntListAttribute(i, "lhs_batch_dims"),
                 IntListAttribute(i, "rhs_batch_dims"), i.shape().element_type());
    case HloOpcode::kConvolution: {
      if (ops.size() != 2) return UnsupportedInstruction(i, "takes 2 operands");
      absl::StatusOr<Literal> result =
          Convolution(*ops[0], *ops[1], i.GetAttributeText("window").value_or("{}"),
                      i.GetAttributeText("dim_labels").value_or(""),
                      i.IntAttribute("feature_group_count").value_or(1),
                      i.IntAttribute("batch_group_count").value_or(1), i.shape().element_type());
      if (!result.ok()) return NameInstruction(i, result.status());
      return result;
    }
    case HloOpcode::kReduce: return EvaluateReduce(i, ops);
    default: return std::nullopt;
  }
}

absl::StatusOr<Literal> DeviceEvaluator::EvaluateReduce(const HloInstruction& i,
                                                        const std::vector<const Literal*>& ops) {
  size_t n = ops.size() / 2;
  std::vector<const Literal*> inputs(ops.begin(), ops.begin() + n);
  std::vector<const Literal*> inits(ops.begin() + n, ops.end());
  const HloComputation* to_apply = i.to_apply();
  if (to_apply == nullptr) return UnsupportedInstruction(i, "needs to_apply");
  std::optional<ElementCombiner> element_combiner;
  if (n == 1) element_combiner = PlainBinaryCombiner(*to_apply, *inputs[0]);
  HOPT_ASSIGN_OR_RETURN(
      std::vector<Literal> results,
      Reduce(
          inputs, inits, i.dimensions(),
          [&](const std::vector<Literal>& scalars) { return CallScalars(*to_apply, scalars); },
          element_combiner ? &*element_combiner : nullptr));
  if (results.size() == 1) return std::move(results[0]);
  Literal tuple(i.shape());
  for (size_t k = 0; k < results.size(); ++k)
    tuple.mutable_tuple_elements()[k] = std::move(results[k]);
  return tuple;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateControlFlow(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kCall: return Evaluate(*i.to_apply(), ops);
    case HloOpcode::kWhile: return RunWhile(i, ops);
    case HloOpcode::kConditional: return RunConditional(i, ops);
    default: return std::nullopt;
  }
}

absl::StatusOr<Literal> DeviceEvaluator::RunWhile(const HloInstruction& i,
                                                  const std::vector<const Literal*>& ops) {
  const HloAttribute* cond = i.FindAttribute("condition");
  const HloAttribute* body = i.FindAttribute("body");
  if (cond == nullptr || body == nullptr || cond->computations.empty() ||
      body->computations.empty())
    return UnsupportedInstruction(i, "needs condition and body");
  Literal state = *ops[0];
  HeldBytes held(*this);
  const std::string state_name = absl::StrCat("while loop ", i.name(), "'s state");
  HOPT_RETURN_IF_ERROR(held.Set(ValueBytes(state), state_name));
  while (true) {
    HOPT_ASSIGN_OR_RETURN(Literal go, Evaluate(*cond->computations[0], {&state}));
    // The verifier refuses other condition shapes; a module built in
    // memory may not have been verified.
    if (!go.shape().IsScalar() || go.shape().element_type() != PrimitiveType::PRED)
      return UnsupportedInstruction(
          i, absl::StrCat("the condition ", cond->computations[0]->name(), " returned ",
                          go.shape().ToString(false), ", not pred[]"));
    if (go.GetAsInt64(0) == 0) return state;
    if (rendezvous_.aborted()) return absl::AbortedError("another device failed");
    // One budget for every loop of the run: an inner loop's iterations
    // count on each pass of the outer one, so nesting cannot multiply the
    // work past it.
    if (while_steps_ >= options_.max_while_iterations)
      return absl::ResourceExhaustedError(
          absl::StrCat("interpreter: while loops ran more than ", options_.max_while_iterations,
                       " iterations in all (one budget for the whole run, nested loops included), "
                       "at while loop ",
                       i.name()));
    ++while_steps_;
    HOPT_ASSIGN_OR_RETURN(state, Evaluate(*body->computations[0], {&state}));
    HOPT_RETURN_IF_ERROR(held.Set(ValueBytes(state), state_name));
  }
}

absl::StatusOr<Literal> DeviceEvaluator::RunConditional(const HloInstruction& i,
                                                        const std::vector<const Literal*>& ops) {
  std::vector<HloComputation*> branches = ConditionalBranches(i);
  // What the verifier checks, again for a module built in memory.
  if (branches.empty()) return UnsupportedInstruction(i, "has no branch computations");
  if (!ops[0]->shape().IsScalar())
    return UnsupportedInstruction(
        i, absl::StrCat("the branch index is ", ops[0]->shape().ToString(false), ", not a scalar"));
  int64_t branch;
  if (ops[0]->shape().element_type() == PrimitiveType::PRED) {
    branch = ops[0]->GetAsInt64(0) != 0 ? 0 : 1;
  } else {
    branch = ops[0]->GetAsInt64(0);
    // XLA: an index out of range runs the last branch.
    if (branch < 0 || branch >= static_cast<int64_t>(branches.size()))
      branch = static_cast<int64_t>(branches.size()) - 1;
  }
  if (static_cast<size_t>(branch) + 1 >= ops.size())
    return UnsupportedInstruction(i, "needs one operand per branch");
  return Evaluate(*branches[branch], {ops[branch + 1]});
}

}  // namespace eval
}  // namespace hopt

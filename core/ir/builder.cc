// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/builder.h"

#include "absl/strings/str_cat.h"
#include "core/ir/module_internal.h"
#include "core/ir/shape_inference.h"
#include "hopt/support/status_macros.h"

namespace hopt {

namespace {
thread_local const std::string* inherited_metadata = nullptr;
}  // namespace

const std::string* InheritedMetadata() { return inherited_metadata; }

MetadataFrom::MetadataFrom(const HloInstruction& source) : previous_(inherited_metadata) {
  std::optional<absl::string_view> text = source.GetAttributeText("metadata");
  if (!text.has_value()) return;  // nothing to give: the enclosing scope's stays
  text_ = std::string(*text);
  inherited_metadata = &text_;
}

MetadataFrom::~MetadataFrom() { inherited_metadata = previous_; }
namespace {

absl::Status NeedOperands(absl::Span<HloInstruction* const> operands, absl::string_view what) {
  if (operands.empty())
    return absl::InvalidArgumentError(absl::StrCat(what, " needs at least one operand"));
  HloComputation* parent = operands[0]->parent();
  for (HloInstruction* operand : operands) {
    if (operand == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(what, ": an operand is null"));
    if (operand->parent() != parent)
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": operands come from different computations"));
  }
  return absl::OkStatus();
}

std::vector<const Shape*> ShapesOf(absl::Span<HloInstruction* const> operands) {
  std::vector<const Shape*> shapes;
  for (HloInstruction* operand : operands) shapes.push_back(&operand->shape());
  return shapes;
}

// Appends in the order given (callers list attributes the way XLA prints).
void Append(HloInstruction* instruction, absl::string_view name, absl::string_view value) {
  HloAttribute attr;
  attr.name = ModuleInternals::Storage(*instruction->GetModule()).arena.Intern(name);
  attr.value = ModuleInternals::Storage(*instruction->GetModule()).arena.InternValue(value);
  instruction->AddAttribute(std::move(attr));
}

void AppendComputation(HloInstruction* instruction, absl::string_view name,
                       HloComputation* computation) {
  HloAttribute attr;
  attr.name = ModuleInternals::Storage(*instruction->GetModule()).arena.Intern(name);
  attr.kind = HloAttribute::Kind::kComputation;
  attr.computations = {computation};
  instruction->AddAttribute(std::move(attr));
}

// XLA's order: channel_id, replica_groups, constrain_layout, then
// all-gather: dimensions, use_global_device_ids;
// reduce-scatter and all-reduce: use_global_device_ids, dimensions.
void AppendCollectiveOptions(HloInstruction* instruction, const CollectiveOptions& options,
                             bool gather_like, absl::Span<const int64_t> dims) {
  if (options.channel_id) Append(instruction, "channel_id", absl::StrCat(*options.channel_id));
  Append(instruction, "replica_groups", options.replica_groups.ToString());
  if (options.constrain_layout) Append(instruction, "constrain_layout", "true");
  auto dimensions = [&] {
    if (!dims.empty()) Append(instruction, "dimensions", FormatIntList({dims.begin(), dims.end()}));
  };
  if (gather_like) dimensions();
  if (options.use_global_device_ids) Append(instruction, "use_global_device_ids", "true");
  if (!gather_like) dimensions();
}

absl::StatusOr<HloInstruction*> Add(HloComputation* computation, HloOpcode opcode,
                                    absl::StatusOr<Shape> shape,
                                    absl::Span<HloInstruction* const> operands) {
  if (!shape.ok())
    return absl::InvalidArgumentError(
        absl::StrCat("cannot build ", HloOpcodeString(opcode), ": ", shape.status().message()));
  return computation->AddInstruction(opcode, *shape, operands);
}

}  // namespace

absl::StatusOr<HloInstruction*> MakeUnary(HloOpcode opcode, HloInstruction* operand) {
  if (!IsElementwiseUnary(opcode) && opcode != HloOpcode::kIsFinite)
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(opcode), " is not an elementwise unary operation"));
  HloInstruction* operands[] = {operand};
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, HloOpcodeString(opcode)));
  return Add(operand->parent(), opcode, InferElementwiseShape(opcode, ShapesOf(operands)),
             operands);
}

absl::StatusOr<HloInstruction*> MakeBinary(HloOpcode opcode, HloInstruction* lhs,
                                           HloInstruction* rhs) {
  if (!IsElementwiseBinary(opcode))
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(opcode), " is not an elementwise binary operation"));
  HloInstruction* operands[] = {lhs, rhs};
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, HloOpcodeString(opcode)));
  return Add(lhs->parent(), opcode, InferElementwiseShape(opcode, ShapesOf(operands)), operands);
}

absl::StatusOr<HloInstruction*> MakeCompare(HloInstruction* lhs, HloInstruction* rhs,
                                            absl::string_view direction) {
  HloInstruction* operands[] = {lhs, rhs};
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "compare"));
  HOPT_RETURN_IF_ERROR(ValidateAttribute("direction", direction));
  auto made = Add(lhs->parent(), HloOpcode::kCompare, InferCompareShape(lhs->shape(), rhs->shape()),
                  operands);
  if (made.ok()) Append(*made, "direction", direction);
  return made;
}

absl::StatusOr<HloInstruction*> MakeSelect(HloInstruction* predicate, HloInstruction* on_true,
                                           HloInstruction* on_false) {
  HloInstruction* operands[] = {predicate, on_true, on_false};
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "select"));
  return Add(predicate->parent(), HloOpcode::kSelect,
             InferElementwiseShape(HloOpcode::kSelect, ShapesOf(operands)), operands);
}

absl::StatusOr<HloInstruction*> MakeConvert(HloInstruction* operand, PrimitiveType type) {
  if (!operand->shape().IsArray() || !IsArrayType(type))
    return absl::InvalidArgumentError("convert takes an array to an array element type");
  Shape shape = operand->shape();
  shape.set_element_type(type);
  HloInstruction* operands[] = {operand};
  return Add(operand->parent(), HloOpcode::kConvert, shape, operands);
}

absl::StatusOr<HloInstruction*> MakeReshape(HloInstruction* operand,
                                            absl::Span<const int64_t> dimensions) {
  Shape target(operand->shape().element_type(), dimensions);
  HloInstruction* operands[] = {operand};
  return Add(operand->parent(), HloOpcode::kReshape, InferReshapeShape(operand->shape(), target),
             operands);
}

absl::StatusOr<HloInstruction*> MakeBroadcast(HloInstruction* operand,
                                              absl::Span<const int64_t> result_dimensions,
                                              absl::Span<const int64_t> broadcast_dimensions) {
  Shape target(operand->shape().element_type(), result_dimensions);
  HloInstruction* operands[] = {operand};
  auto made = Add(operand->parent(), HloOpcode::kBroadcast,
                  InferBroadcastShape(operand->shape(), target, broadcast_dimensions), operands);
  if (made.ok())
    Append(*made, "dimensions",
           FormatIntList({broadcast_dimensions.begin(), broadcast_dimensions.end()}));
  return made;
}

absl::StatusOr<HloInstruction*> MakeTranspose(HloInstruction* operand,
                                              absl::Span<const int64_t> permutation) {
  HloInstruction* operands[] = {operand};
  auto made = Add(operand->parent(), HloOpcode::kTranspose,
                  InferTransposeShape(operand->shape(), permutation), operands);
  if (made.ok())
    Append(*made, "dimensions", FormatIntList({permutation.begin(), permutation.end()}));
  return made;
}

absl::StatusOr<HloInstruction*> MakeSlice(HloInstruction* operand, absl::Span<const int64_t> starts,
                                          absl::Span<const int64_t> limits,
                                          absl::Span<const int64_t> strides) {
  if (starts.size() != limits.size() || (!strides.empty() && strides.size() != starts.size()))
    return absl::InvalidArgumentError("slice needs as many starts, limits and strides");
  std::vector<SliceDimension> slice;
  for (size_t i = 0; i < starts.size(); ++i)
    slice.push_back({starts[i], limits[i], strides.empty() ? 1 : strides[i]});
  HloInstruction* operands[] = {operand};
  auto made =
      Add(operand->parent(), HloOpcode::kSlice, InferSliceShape(operand->shape(), slice), operands);
  if (made.ok()) Append(*made, "slice", FormatSlice(slice));
  return made;
}

absl::StatusOr<HloInstruction*> MakeDynamicSlice(HloInstruction* operand,
                                                 absl::Span<HloInstruction* const> indices,
                                                 absl::Span<const int64_t> sizes) {
  std::vector<HloInstruction*> operands = {operand};
  operands.insert(operands.end(), indices.begin(), indices.end());
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "dynamic-slice"));
  std::vector<const Shape*> index_shapes = ShapesOf(indices);
  auto made = Add(operand->parent(), HloOpcode::kDynamicSlice,
                  InferDynamicSliceShape(operand->shape(), index_shapes, sizes), operands);
  if (made.ok()) Append(*made, "dynamic_slice_sizes", FormatIntList({sizes.begin(), sizes.end()}));
  return made;
}

absl::StatusOr<HloInstruction*> MakeConcatenate(absl::Span<HloInstruction* const> operands,
                                                int64_t dimension) {
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "concatenate"));
  auto made = Add(operands[0]->parent(), HloOpcode::kConcatenate,
                  InferConcatenateShape(ShapesOf(operands), dimension), operands);
  if (made.ok()) Append(*made, "dimensions", FormatIntList({dimension}));
  return made;
}

absl::StatusOr<HloInstruction*> MakeReduce(HloInstruction* operand, HloInstruction* init,
                                           absl::Span<const int64_t> dimensions,
                                           HloComputation* to_apply) {
  HloInstruction* operands[] = {operand, init};
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "reduce"));
  if (to_apply == nullptr) return absl::InvalidArgumentError("reduce needs a computation");
  auto made = Add(operand->parent(), HloOpcode::kReduce,
                  InferReduceShape(ShapesOf(operands), dimensions), operands);
  if (made.ok()) {
    Append(*made, "dimensions", FormatIntList({dimensions.begin(), dimensions.end()}));
    AppendComputation(*made, "to_apply", to_apply);
  }
  return made;
}

absl::StatusOr<HloInstruction*> MakeTuple(HloComputation* computation,
                                          absl::Span<HloInstruction* const> operands) {
  for (HloInstruction* operand : operands)
    if (operand->parent() != computation)
      return absl::InvalidArgumentError("tuple: an operand is in another computation");
  return Add(computation, HloOpcode::kTuple, InferTupleShape(ShapesOf(operands)), operands);
}

absl::StatusOr<HloInstruction*> MakeGetTupleElement(HloInstruction* tuple, int64_t index) {
  HloInstruction* operands[] = {tuple};
  auto made = Add(tuple->parent(), HloOpcode::kGetTupleElement,
                  InferGetTupleElementShape(tuple->shape(), index), operands);
  if (made.ok()) Append(*made, "index", absl::StrCat(index));
  return made;
}

absl::StatusOr<HloInstruction*> MakeConstant(HloComputation* computation, const Literal& value) {
  if (value.is_elided())
    return absl::InvalidArgumentError("cannot build a constant from an elided literal");
  HloInstruction* constant =
      computation->AddInstruction(HloOpcode::kConstant, value.shape(), {}, "constant");
  constant->set_literal_text(value.ToText());
  return constant;
}

absl::StatusOr<HloInstruction*> MakeScalarConstant(HloComputation* computation, PrimitiveType type,
                                                   double value) {
  if (!IsArrayType(type))
    return absl::InvalidArgumentError("a scalar constant needs an array type");
  return MakeConstant(computation, Literal::Scalar(type, value));
}

absl::StatusOr<HloInstruction*> MakeIota(HloComputation* computation, const Shape& shape,
                                         int64_t iota_dimension) {
  if (!shape.IsArray() || iota_dimension < 0 || iota_dimension >= shape.rank())
    return absl::InvalidArgumentError(
        absl::StrCat("iota dimension ", iota_dimension, " is out of range for ", shape.ToString()));
  HloInstruction* iota = computation->AddInstruction(HloOpcode::kIota, shape, {});
  Append(iota, "iota_dimension", absl::StrCat(iota_dimension));
  return iota;
}

HloInstruction* MakeReplicaId(HloComputation* computation) {
  return computation->AddInstruction(HloOpcode::kReplicaId, Shape(PrimitiveType::U32, {}), {});
}

HloInstruction* MakePartitionId(HloComputation* computation) {
  return computation->AddInstruction(HloOpcode::kPartitionId, Shape(PrimitiveType::U32, {}), {});
}

absl::StatusOr<HloInstruction*> MakeAllGather(HloInstruction* operand, int64_t dimension,
                                              int64_t group_size,
                                              const CollectiveOptions& options) {
  HloInstruction* operands[] = {operand};
  const Shape* shapes[] = {&operand->shape()};
  auto made = Add(operand->parent(), HloOpcode::kAllGather,
                  InferAllGatherShape(shapes, dimension, group_size), operands);
  if (made.ok()) AppendCollectiveOptions(*made, options, /*gather_like=*/true, {dimension});
  return made;
}

absl::StatusOr<HloInstruction*> MakeReduceScatter(HloInstruction* operand, int64_t dimension,
                                                  int64_t group_size, HloComputation* to_apply,
                                                  const CollectiveOptions& options) {
  if (to_apply == nullptr) return absl::InvalidArgumentError("reduce-scatter needs a computation");
  HloInstruction* operands[] = {operand};
  const Shape* shapes[] = {&operand->shape()};
  auto made = Add(operand->parent(), HloOpcode::kReduceScatter,
                  InferReduceScatterShape(shapes, dimension, group_size), operands);
  if (made.ok()) {
    AppendCollectiveOptions(*made, options, /*gather_like=*/false, {dimension});
    AppendComputation(*made, "to_apply", to_apply);
  }
  return made;
}

absl::StatusOr<HloInstruction*> MakeAllReduce(absl::Span<HloInstruction* const> operands,
                                              HloComputation* to_apply,
                                              const CollectiveOptions& options) {
  HOPT_RETURN_IF_ERROR(NeedOperands(operands, "all-reduce"));
  if (to_apply == nullptr) return absl::InvalidArgumentError("all-reduce needs a computation");
  auto made = Add(operands[0]->parent(), HloOpcode::kAllReduce,
                  InferAllReduceShape(ShapesOf(operands)), operands);
  if (made.ok()) {
    AppendCollectiveOptions(*made, options, /*gather_like=*/false, {});
    AppendComputation(*made, "to_apply", to_apply);
  }
  return made;
}

absl::StatusOr<HloInstruction*> MakeCustomCall(HloComputation* computation,
                                               absl::Span<HloInstruction* const> operands,
                                               const Shape& shape, absl::string_view target,
                                               absl::string_view backend_config,
                                               absl::string_view api_version) {
  for (HloInstruction* operand : operands)
    if (operand->parent() != computation)
      return absl::InvalidArgumentError("custom-call: an operand is in another computation");
  if (target.empty()) return absl::InvalidArgumentError("custom-call needs a target");
  HloInstruction* call = computation->AddInstruction(HloOpcode::kCustomCall, shape, operands);
  Append(call, "custom_call_target", QuoteString(target));
  if (!api_version.empty() && api_version != "API_VERSION_ORIGINAL")
    Append(call, "api_version", api_version);
  if (!backend_config.empty()) Append(call, "backend_config", QuoteString(backend_config));
  return call;
}

absl::StatusOr<HloComputation*> MakeScalarReduction(HloModule* module, HloOpcode opcode,
                                                    PrimitiveType type) {
  if (!IsElementwiseBinary(opcode))
    return absl::InvalidArgumentError(
        absl::StrCat(HloOpcodeString(opcode), " cannot combine two values"));
  HloComputation* computation =
      module->AddComputation(absl::StrCat(HloOpcodeString(opcode), "_", PrimitiveTypeString(type)));
  Shape scalar(type, {});
  HloInstruction* x = computation->AddParameter(scalar, "x");
  HloInstruction* y = computation->AddParameter(scalar, "y");
  HOPT_ASSIGN_OR_RETURN(auto combined, MakeBinary(opcode, x, y));
  HOPT_RETURN_IF_ERROR(
      computation->set_root_instruction(combined, /*accept_different_shape=*/true));
  return computation;
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Shape inference for the opcodes whose result shape XLA's text reader lets a
// module omit and that depend on called computations or on structured
// attributes (sort, conditional, map, gather, batch-norm, ...). The
// elementwise and data-movement rules are in shape_inference.cc; what the
// reader accepts is described in docs/formats.md.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/ir/shape_inference.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

absl::Status InvalidCall(absl::string_view message) { return absl::InvalidArgumentError(message); }

std::vector<int64_t> IntList(const HloInstruction& instruction, absl::string_view name) {
  auto text = instruction.GetAttributeText(name);
  if (!text) return {};
  return ParseIntList(*text).value_or(std::vector<int64_t>{});
}

bool Contains(absl::Span<const int64_t> list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The result shape of the computation an attribute names; the computation
// must already be read (its root known).
absl::StatusOr<const Shape*> CalledResult(const HloInstruction& instruction,
                                          absl::string_view attribute, size_t index = 0) {
  const HloAttribute* attr = instruction.FindAttribute(attribute);
  if (attr == nullptr || attr->computations.size() <= index)
    return InvalidCall(absl::StrCat("needs ", attribute, "="));
  const HloComputation* computation = attr->computations[index];
  if (computation == nullptr || computation->root_instruction() == nullptr)
    return InvalidCall(absl::StrCat(attribute, " names a computation not read yet"));
  return &computation->root_instruction()->shape();
}

// Same sizes and element types, whatever is dynamic (as XLA compares).
bool SameSizesAndTypes(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i)
      if (!SameSizesAndTypes(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    return true;
  }
  return a.dimensions() == b.dimensions();
}

// Marks `into`'s dimensions dynamic where `from`'s are, leaf by leaf.
void MergeDynamism(Shape* into, const Shape& from) {
  if (into->IsTuple()) {
    for (int64_t i = 0; i < into->tuple_shapes_size(); ++i)
      MergeDynamism(&into->mutable_tuple_shapes()[i], from.tuple_shapes(i));
    return;
  }
  if (!into->IsArray()) return;
  for (int64_t i = 0; i < into->rank(); ++i)
    if (from.is_dynamic_dimension(i)) into->set_dynamic_dimension(i, true);
}

absl::StatusOr<Shape> InferConditional(const HloInstruction& instruction,
                                       absl::Span<const Shape* const> shapes) {
  std::vector<const Shape*> results;
  if (instruction.HasAttribute("branch_computations")) {
    const HloAttribute* attr = instruction.FindAttribute("branch_computations");
    for (size_t k = 0; k < attr->computations.size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(auto result, CalledResult(instruction, "branch_computations", k));
      results.push_back(result);
    }
  } else {
    for (absl::string_view name : {"true_computation", "false_computation"}) {
      HOPT_ASSIGN_OR_RETURN(auto result, CalledResult(instruction, name));
      results.push_back(result);
    }
  }
  if (results.empty()) return InvalidCall("conditional needs at least one branch");
  if (shapes.size() != results.size() + 1)
    return InvalidCall(absl::StrCat("conditional with ", results.size(), " branches takes ",
                                    results.size() + 1, " operands, got ", shapes.size()));
  for (const Shape* result : results)
    if (!SameSizesAndTypes(*result, *results[0]))
      return InvalidCall(absl::StrCat("conditional branches give different shapes: ",
                                      results[0]->ToString(), " vs ", result->ToString()));
  // A dimension is dynamic if it is in any branch.
  Shape shape = Shape(*results[0]);
  for (const Shape* result : results) MergeDynamism(&shape, *result);
  return shape;
}

absl::StatusOr<Shape> InferSort(absl::Span<const Shape* const> shapes) {
  if (shapes.empty()) return InvalidCall("sort needs operands");
  for (const Shape* s : shapes)
    if (!s->IsArray() || s->dimensions() != shapes[0]->dimensions())
      return InvalidCall(absl::StrCat("sort operands differ in dimensions: ", shapes[0]->ToString(),
                                      " vs ", s->ToString()));
  if (shapes.size() == 1) return Shape(*shapes[0]);
  std::vector<Shape> elements;
  for (const Shape* s : shapes) elements.push_back(Shape(*s));
  return Shape::MakeTuple(std::move(elements));
}

absl::StatusOr<Shape> InferMap(const HloInstruction& instruction,
                               absl::Span<const Shape* const> shapes) {
  if (shapes.empty()) return InvalidCall("map needs operands");
  HOPT_ASSIGN_OR_RETURN(auto result, CalledResult(instruction, "to_apply"));
  if (!result->IsScalar())
    return InvalidCall(
        absl::StrCat("map's computation must return a scalar, got ", result->ToString()));
  for (const Shape* s : shapes)
    if (!s->IsArray() || s->dimensions() != shapes[0]->dimensions())
      return InvalidCall(absl::StrCat("map operands differ in dimensions: ", shapes[0]->ToString(),
                                      " vs ", s->ToString()));
  return Shape(result->element_type(), shapes[0]->dimensions());
}

// XLA infers a broadcast written without a shape from `dimensions` taken as
// the sizes of new leading dimensions; for a scalar operand (the usual case)
// that is `dimensions={}` and a scalar result.
absl::StatusOr<Shape> InferBroadcastFromSizes(const Shape& operand,
                                              absl::Span<const int64_t> sizes) {
  if (!operand.IsArray()) return InvalidCall("broadcast's operand must be an array");
  DimensionVector dims(sizes.begin(), sizes.end());
  for (int64_t d : sizes)
    if (d < 0) return InvalidCall(absl::StrCat("broadcast with negative dimension size ", d));
  for (int64_t d : operand.dimensions()) dims.push_back(d);
  Shape result(operand.element_type(), dims);
  for (int64_t i = 0; i < operand.rank(); ++i)
    result.set_dynamic_dimension(static_cast<int64_t>(sizes.size()) + i,
                                 operand.is_dynamic_dimension(i));
  return result;
}

absl::StatusOr<Shape> InferGather(const HloInstruction& instruction, const Shape& operand,
                                  const Shape& indices) {
  auto index_vector_dim = instruction.IntAttribute("index_vector_dim");
  if (!index_vector_dim) return InvalidCall("gather needs index_vector_dim=");
  std::vector<int64_t> offset_dims = IntList(instruction, "offset_dims");
  std::vector<int64_t> collapsed = IntList(instruction, "collapsed_slice_dims");
  std::vector<int64_t> operand_batching = IntList(instruction, "operand_batching_dims");
  std::vector<int64_t> slice_sizes = IntList(instruction, "slice_sizes");
  if (!operand.IsArray() || !indices.IsArray()) return InvalidCall("gather takes arrays");
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank())
    return InvalidCall(absl::StrCat("gather slice_sizes must have one size per dimension of ",
                                    operand.ToString()));
  if (*index_vector_dim < 0 || *index_vector_dim > indices.rank())
    return InvalidCall("gather index_vector_dim is out of range");
  std::vector<int64_t> batch_sizes;
  for (int64_t i = 0; i < indices.rank(); ++i)
    if (i != *index_vector_dim) batch_sizes.push_back(indices.dimensions(i));
  std::vector<int64_t> offset_sizes;
  for (int64_t i = 0; i < operand.rank(); ++i)
    if (!Contains(collapsed, i) && !Contains(operand_batching, i))
      offset_sizes.push_back(slice_sizes[i]);
  if (offset_sizes.size() != offset_dims.size())
    return InvalidCall("gather offset_dims do not match the slice dimensions kept");
  int64_t rank = static_cast<int64_t>(batch_sizes.size() + offset_sizes.size());
  DimensionVector dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (Contains(offset_dims, i))
      dims.push_back(offset_sizes[next_offset++]);
    else if (next_batch < batch_sizes.size())
      dims.push_back(batch_sizes[next_batch++]);
    else
      return InvalidCall("gather offset_dims are out of range");
  }
  return Shape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferFft(const HloInstruction& instruction, const Shape& operand) {
  auto type = instruction.GetAttributeText("fft_type");
  std::vector<int64_t> length = IntList(instruction, "fft_length");
  if (!type || !operand.IsArray()) return InvalidCall("fft needs fft_type= and an array operand");
  if (static_cast<int64_t>(length.size()) > operand.rank() || length.empty())
    return InvalidCall("fft_length does not fit the operand");
  PrimitiveType t = operand.element_type();
  Shape result = Shape(operand);
  if (*type == "FFT" || *type == "IFFT") return result;
  int64_t last = operand.rank() - 1;
  if (*type == "RFFT") {
    result.set_element_type(t == PrimitiveType::F64 ? PrimitiveType::C128 : PrimitiveType::C64);
    DimensionVector dims(operand.dimensions().begin(), operand.dimensions().end());
    dims[last] = length.back() / 2 + 1;
    return Shape(result.element_type(), dims);
  }
  if (*type == "IRFFT") {
    PrimitiveType real = t == PrimitiveType::C128 ? PrimitiveType::F64 : PrimitiveType::F32;
    DimensionVector dims(operand.dimensions().begin(), operand.dimensions().end());
    for (size_t k = 0; k < length.size(); ++k) dims[operand.rank() - length.size() + k] = length[k];
    return Shape(real, dims);
  }
  return InvalidCall(absl::StrCat("unknown fft_type ", *type));
}

absl::StatusOr<Shape> InferBatchNorm(const HloInstruction& instruction,
                                     absl::Span<const Shape* const> shapes) {
  auto feature = instruction.IntAttribute("feature_index");
  size_t want = instruction.opcode() == HloOpcode::kBatchNormTraining ? 3 : 5;
  if (shapes.size() != want)
    return InvalidCall(absl::StrCat(HloOpcodeString(instruction.opcode()), " takes ", want,
                                    " operands, got ", shapes.size()));
  const Shape& operand = *shapes[0];
  if (!feature || !operand.IsArray() || *feature < 0 || *feature >= operand.rank())
    return InvalidCall("feature_index is out of range");
  Shape result = Shape(operand);
  if (instruction.opcode() == HloOpcode::kBatchNormInference) return result;
  Shape per_feature(operand.element_type(), {operand.dimensions(*feature)});
  return Shape::MakeTuple({result, per_feature, per_feature});
}

absl::StatusOr<Shape> InferTopK(const HloInstruction& instruction, const Shape& operand) {
  auto k = instruction.IntAttribute("k");
  if (!k || !operand.IsArray() || operand.rank() == 0 || *k < 0 ||
      *k > operand.dimensions(operand.rank() - 1))
    return InvalidCall("topk needs k= within the last dimension of an array");
  DimensionVector dims(operand.dimensions().begin(), operand.dimensions().end());
  dims.back() = *k;
  return Shape::MakeTuple({Shape(operand.element_type(), dims), Shape(PrimitiveType::S32, dims)});
}

}  // namespace

std::optional<Shape> ShapeXlaReaderBuilds(const HloInstruction& instruction) {
  const Shape u32 = Shape::MakeScalar(PrimitiveType::U32);
  const Shape token = Shape::MakeToken();
  // Element 0 of a tuple: the data a recv declares, or a recv-done's operand
  // carries.
  auto data = [](const Shape& shape) -> const Shape* {
    return shape.IsTuple() && shape.tuple_shapes_size() > 0 ? &shape.tuple_shapes(0) : nullptr;
  };
  const Shape* operand = instruction.operand_count() > 0 && instruction.operand(0) != nullptr
                             ? &instruction.operand(0)->shape()
                             : nullptr;
  switch (instruction.opcode()) {
    case HloOpcode::kSend:
      if (operand == nullptr) return std::nullopt;
      return Shape::MakeTuple({*operand, u32, token});
    case HloOpcode::kSendDone: return token;
    case HloOpcode::kRecv:
      if (data(instruction.shape()) == nullptr) return std::nullopt;
      return Shape::MakeTuple({*data(instruction.shape()), u32, token});
    case HloOpcode::kRecvDone:
      if (operand == nullptr || data(*operand) == nullptr) return std::nullopt;
      return Shape::MakeTuple({*data(*operand), token});
    default: return std::nullopt;
  }
}

bool ShapeMayBeOmitted(HloOpcode opcode) {
  switch (opcode) {
    // XLA writes these shapes always, and its reader requires them.
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kSlice:
    case HloOpcode::kBitcast:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kConstant:
    case HloOpcode::kConvert:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kInfeed:
    case HloOpcode::kIota:
    case HloOpcode::kOutfeed:
    case HloOpcode::kParameter:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kReshape:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kStochasticConvert: return false;
    default: return true;
  }
}

absl::StatusOr<Shape> InferCalledOrStructuredShape(const HloInstruction& instruction,
                                                   absl::Span<const Shape* const> shapes) {
  auto need = [&](size_t n) -> absl::Status {
    if (shapes.size() == n) return absl::OkStatus();
    return InvalidCall(absl::StrCat(HloOpcodeString(instruction.opcode()), " takes ", n,
                                    " operand(s), got ", shapes.size()));
  };
  switch (instruction.opcode()) {
    case HloOpcode::kConditional: return InferConditional(instruction, shapes);
    case HloOpcode::kSort: return InferSort(shapes);
    case HloOpcode::kMap: return InferMap(instruction, shapes);
    case HloOpcode::kBroadcast:
      HOPT_RETURN_IF_ERROR(need(1));
      return InferBroadcastFromSizes(*shapes[0], instruction.dimensions());
    case HloOpcode::kReverse:
    case HloOpcode::kCholesky: HOPT_RETURN_IF_ERROR(need(1)); return Shape(*shapes[0]);
    case HloOpcode::kAddDependency: HOPT_RETURN_IF_ERROR(need(2)); return Shape(*shapes[0]);
    case HloOpcode::kTriangularSolve: HOPT_RETURN_IF_ERROR(need(2)); return Shape(*shapes[1]);
    case HloOpcode::kSelectAndScatter: HOPT_RETURN_IF_ERROR(need(3)); return Shape(*shapes[0]);
    case HloOpcode::kGetDimensionSize:
      HOPT_RETURN_IF_ERROR(need(1));
      return Shape(PrimitiveType::S32, {});
    case HloOpcode::kSetDimensionSize: {
      HOPT_RETURN_IF_ERROR(need(2));
      std::vector<int64_t> dims = instruction.dimensions();
      if (dims.size() != 1 || !shapes[0]->IsArray() || dims[0] < 0 || dims[0] >= shapes[0]->rank())
        return InvalidCall("set-dimension-size needs dimensions={d} within its operand");
      Shape result = Shape(*shapes[0]);
      result.set_dynamic_dimension(dims[0], true);
      return result;
    }
    case HloOpcode::kGather:
      HOPT_RETURN_IF_ERROR(need(2));
      return InferGather(instruction, *shapes[0], *shapes[1]);
    case HloOpcode::kScatter: {
      if (shapes.size() < 3 || shapes.size() % 2 == 0)
        return InvalidCall("scatter takes N operands, indices and N updates");
      size_t n = (shapes.size() - 1) / 2;
      if (n == 1) return Shape(*shapes[0]);
      std::vector<Shape> elements;
      for (size_t k = 0; k < n; ++k) elements.push_back(Shape(*shapes[k]));
      return Shape::MakeTuple(std::move(elements));
    }
    case HloOpcode::kFft: HOPT_RETURN_IF_ERROR(need(1)); return InferFft(instruction, *shapes[0]);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad: return InferBatchNorm(instruction, shapes);
    case HloOpcode::kTopK: HOPT_RETURN_IF_ERROR(need(1)); return InferTopK(instruction, *shapes[0]);
    default: break;
  }
  return absl::UnimplementedError(
      absl::StrCat("no shape inference for ", HloOpcodeString(instruction.opcode())));
}

}  // namespace hopt

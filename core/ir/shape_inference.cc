// SPDX-License-Identifier: Apache-2.0

#include "core/ir/shape_inference.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

absl::Status RequireArray(const Shape& shape, absl::string_view what) {
  if (shape.IsArray()) return absl::OkStatus();
  return Invalid(absl::StrCat(what, " must be an array, got ", shape.ToString()));
}

std::string Dims(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

Shape ArrayLike(PrimitiveType type, const Shape& dims_from) {
  Shape result(type, dims_from.dimensions());
  for (int64_t i = 0; i < dims_from.rank(); ++i)
    result.set_dynamic_dimension(i, dims_from.is_dynamic_dimension(i));
  return result;
}

// XLA compares operands of elementwise operations, select, clamp and reduce
// by their sizes (a bound counts as the size): `s32[<=4]` fits `s32[4]`.
bool SameSizes(const Shape& a, const Shape& b) { return a.dimensions() == b.dimensions(); }

// XLA's rule for operands that combine (elementwise operations, select,
// clamp, concatenate): one element type, or floating-point types of any
// precision; the result then takes the more precise type.
bool SameTypeIgnoringFpPrecision(PrimitiveType a, PrimitiveType b) {
  return a == b || (IsFloatingPointType(a) && IsFloatingPointType(b));
}

// The more precise of two element types as XLA ranks them: exponent range
// first, then significand width, then bit width. (The verifier compares
// floating-point types loosely anyway; this matters for a shape the parser
// infers.)
PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b) {
  auto rank = [](PrimitiveType t) -> std::tuple<int, int, int> {
    int range = -1, significand = -1;
    switch (t) {
      case PrimitiveType::F64: range = 1024, significand = 53; break;
      case PrimitiveType::F32: range = 128, significand = 24; break;
      case PrimitiveType::BF16: range = 128, significand = 8; break;
      case PrimitiveType::F8E8M0FNU: range = 128, significand = 1; break;
      case PrimitiveType::F16: range = 16, significand = 11; break;
      case PrimitiveType::F8E5M2:
      case PrimitiveType::F8E5M2FNUZ: range = 16, significand = 3; break;
      case PrimitiveType::F8E4M3FN: range = 9, significand = 4; break;
      case PrimitiveType::F8E4M3:
      case PrimitiveType::F8E4M3FNUZ: range = 8, significand = 4; break;
      case PrimitiveType::F8E4M3B11FNUZ: range = 5, significand = 4; break;
      case PrimitiveType::F8E3M4: range = 4, significand = 5; break;
      case PrimitiveType::F4E2M1FN: range = 3, significand = 2; break;
      default: break;
    }
    return {range, significand, PrimitiveTypeBitWidth(t)};
  };
  return rank(b) > rank(a) ? b : a;
}

// The result of an elementwise operation: `type` over `dims_from`'s sizes,
// a dimension dynamic if it is dynamic in any operand of the same rank.
Shape ElementwiseResult(PrimitiveType type, const Shape& dims_from,
                        absl::Span<const Shape* const> operands) {
  Shape result = ArrayLike(type, dims_from);
  for (const Shape* operand : operands) {
    if (!operand->IsArray() || operand->rank() != result.rank()) continue;
    for (int64_t i = 0; i < result.rank(); ++i)
      if (operand->is_dynamic_dimension(i)) result.set_dynamic_dimension(i, true);
  }
  return result;
}

// `lo_hi[_interior]x...` (pad) or `AxB` (window fields) into per-dimension
// integer tuples.
bool ParseDimTuples(absl::string_view text, std::vector<std::vector<int64_t>>* out) {
  for (absl::string_view dim : absl::StrSplit(text, 'x')) {
    std::vector<int64_t> values;
    for (absl::string_view part : absl::StrSplit(dim, '_')) {
      int64_t v;
      bool negative = !part.empty() && part[0] == '-';
      if (negative) part.remove_prefix(1);
      if (part.empty() || !absl::SimpleAtoi(part, &v)) return false;
      values.push_back(negative ? -v : v);
    }
    out->push_back(std::move(values));
  }
  return true;
}

}  // namespace

absl::StatusOr<Shape> InferPadShape(const Shape& operand, absl::string_view padding) {
  std::vector<std::vector<int64_t>> dims;
  // A scalar has no dimension to pad: `padding={}`.
  bool none = padding == "{}" && operand.rank() == 0;
  if (!none &&
      (!ParseDimTuples(padding, &dims) || static_cast<int64_t>(dims.size()) != operand.rank()))
    return Invalid(absl::StrCat("padding=", padding, " does not fit ", operand.ToString()));
  DimensionVector result;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const auto& p = dims[i];
    if (p.size() < 2 || p.size() > 3) return Invalid(absl::StrCat("malformed padding=", padding));
    int64_t interior = p.size() == 3 ? p[2] : 0;
    int64_t d = operand.dimensions(i);
    // Padding amounts come from the text, as large as it likes.
    int64_t size = 0, inside = 0;
    if (__builtin_add_overflow(p[0], p[1], &size) || __builtin_add_overflow(size, d, &size) ||
        (d > 0 && (__builtin_mul_overflow(d - 1, interior, &inside) ||
                   __builtin_add_overflow(size, inside, &size))))
      return Invalid(absl::StrCat("padding=", padding, " of ", operand.ToString(),
                                  " gives a size that overflows a 64-bit integer"));
    if (size < 0 || interior < 0)
      return Invalid(absl::StrCat("padding=", padding, " gives a negative size"));
    result.push_back(size);
  }
  return Shape(operand.element_type(), result);
}

// Output sizes of a window (`{size=3x3 stride=2x2 pad=1_1x1_1 ...}`) slid
// over `input_sizes`.
absl::StatusOr<std::vector<int64_t>> WindowOutputSizes(const std::vector<int64_t>& input_sizes,
                                                       absl::string_view window) {
  std::vector<std::vector<int64_t>> size, stride, pad, lhs_dilate, rhs_dilate;
  absl::string_view body = window;
  if (!body.empty() && body.front() == '{') body.remove_prefix(1);
  if (!body.empty() && body.back() == '}') body.remove_suffix(1);
  for (absl::string_view field : absl::StrSplit(body, ' ', absl::SkipEmpty())) {
    size_t eq = field.find('=');
    if (eq == absl::string_view::npos) return Invalid(absl::StrCat("malformed window ", window));
    absl::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    std::vector<std::vector<int64_t>>* target = key == "size"         ? &size
                                                : key == "stride"     ? &stride
                                                : key == "pad"        ? &pad
                                                : key == "lhs_dilate" ? &lhs_dilate
                                                : key == "rhs_dilate" ? &rhs_dilate
                                                                      : nullptr;
    if (target != nullptr && !ParseDimTuples(value, target))
      return Invalid(absl::StrCat("malformed window ", window));
  }
  if (size.size() != input_sizes.size())
    return Invalid(absl::StrCat("window ", window, " has ", size.size(), " dimensions, expected ",
                                input_sizes.size()));
  auto at = [](const std::vector<std::vector<int64_t>>& v, size_t i, size_t j, int64_t def) {
    return i < v.size() && j < v[i].size() ? v[i][j] : def;
  };
  std::vector<int64_t> dims;
  for (size_t i = 0; i < input_sizes.size(); ++i) {
    // Window fields come from the text, as large as it likes.
    int64_t base, padded, span;
    if (__builtin_mul_overflow(input_sizes[i] - 1, at(lhs_dilate, i, 0, 1), &base) ||
        __builtin_add_overflow(base, 1, &base) ||
        __builtin_add_overflow(base, at(pad, i, 0, 0), &padded) ||
        __builtin_add_overflow(padded, at(pad, i, 1, 0), &padded) ||
        __builtin_mul_overflow(at(size, i, 0, 1) - 1, at(rhs_dilate, i, 0, 1), &span) ||
        __builtin_add_overflow(span, 1, &span) || __builtin_sub_overflow(padded, span, &base))
      return Invalid(
          absl::StrCat("window ", window, " gives a size that overflows a 64-bit integer"));
    int64_t step = at(stride, i, 0, 1);
    if (step <= 0) return Invalid("window strides must be positive");
    dims.push_back(padded < span ? 0 : (padded - span) / step + 1);
  }
  return dims;
}

absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             absl::string_view window) {
  if (operands.empty() || operands.size() % 2 != 0)
    return Invalid("reduce-window takes N inputs and N init values");
  const Shape& input = *operands[0];
  HOPT_ASSIGN_OR_RETURN(
      auto sizes,
      WindowOutputSizes(std::vector<int64_t>(input.dimensions().begin(), input.dimensions().end()),
                        window));
  DimensionVector dims(sizes.begin(), sizes.end());
  size_t n = operands.size() / 2;
  std::vector<Shape> results;
  for (size_t k = 0; k < n; ++k) results.push_back(Shape(operands[k]->element_type(), dims));
  if (results.size() == 1) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            absl::string_view window, absl::string_view dim_labels,
                                            int64_t batch_group_count,
                                            int64_t feature_group_count) {
  // dim_labels: `b01f_01io->b01f` (lhs _ rhs -> output).
  size_t underscore = dim_labels.find('_');
  size_t arrow = dim_labels.find("->");
  if (underscore == absl::string_view::npos || arrow == absl::string_view::npos ||
      arrow < underscore)
    return Invalid(absl::StrCat("malformed dim_labels=", dim_labels));
  absl::string_view lhs_labels = dim_labels.substr(0, underscore);
  absl::string_view rhs_labels = dim_labels.substr(underscore + 1, arrow - underscore - 1);
  absl::string_view out_labels = dim_labels.substr(arrow + 2);
  // XLA's rule: both operands have a batch (or kernel input) and a feature
  // dimension, then one per window dimension; the window's rank is checked
  // with the sizes below.
  HOPT_RETURN_IF_ERROR(RequireArray(lhs, "a convolution's lhs"));
  HOPT_RETURN_IF_ERROR(RequireArray(rhs, "a convolution's rhs"));
  if (lhs.rank() < 2 || rhs.rank() != lhs.rank())
    return Invalid(
        absl::StrCat("a convolution's operands need the same rank, at least 2 (batch and "
                     "feature dimensions, then the spatial ones): lhs ",
                     lhs.ToString(false), ", rhs ", rhs.ToString(false)));
  if (static_cast<int64_t>(lhs_labels.size()) != lhs.rank() ||
      static_cast<int64_t>(rhs_labels.size()) != rhs.rank() ||
      out_labels.size() != lhs_labels.size())
    return Invalid(absl::StrCat("dim_labels=", dim_labels, " do not fit the operands"));
  int64_t spatial = static_cast<int64_t>(lhs_labels.size()) - 2;
  std::vector<int64_t> input_spatial(spatial, -1);
  int64_t batch = -1, in_features = -1, kernel_in = -1, out_features = -1;
  for (size_t i = 0; i < lhs_labels.size(); ++i) {
    char c = lhs_labels[i];
    if (c == 'b')
      batch = lhs.dimensions(i);
    else if (c == 'f')
      in_features = lhs.dimensions(i);
    else if (c >= '0' && c - '0' < spatial)
      input_spatial[c - '0'] = lhs.dimensions(i);
  }
  for (size_t i = 0; i < rhs_labels.size(); ++i) {
    if (rhs_labels[i] == 'o') out_features = rhs.dimensions(i);
    if (rhs_labels[i] == 'i') kernel_in = rhs.dimensions(i);
  }
  if (batch < 0 || in_features < 0 || kernel_in < 0 || out_features < 0)
    return Invalid(absl::StrCat("dim_labels=", dim_labels, " lack batch or feature dimensions"));
  // The group rules of XLA's shape inference: features (or the batch) split
  // evenly into groups, and only one of the two counts above 1.
  if (batch_group_count <= 0 || feature_group_count <= 0)
    return Invalid(absl::StrCat("batch_group_count=", batch_group_count,
                                " and feature_group_count=", feature_group_count,
                                " must be positive"));
  if (batch_group_count > 1 && feature_group_count > 1)
    return Invalid("batch_group_count and feature_group_count cannot both be above 1");
  if (in_features % feature_group_count != 0 || in_features / feature_group_count != kernel_in ||
      out_features % feature_group_count != 0)
    return Invalid(absl::StrCat("feature_group_count=", feature_group_count, " does not fit ",
                                in_features, " input features, a kernel of ", kernel_in,
                                " input and ", out_features, " output features"));
  if (batch % batch_group_count != 0 || out_features % batch_group_count != 0)
    return Invalid(absl::StrCat("batch_group_count=", batch_group_count,
                                " does not divide the batch (", batch,
                                ") and the output features (", out_features, ")"));
  for (int64_t d : input_spatial)
    if (d < 0) return Invalid(absl::StrCat("dim_labels=", dim_labels, " lack a spatial dimension"));
  // With no spatial dimension the window must be empty too.
  HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> spatial_out, WindowOutputSizes(input_spatial, window));
  DimensionVector dims;
  for (char c : out_labels) {
    if (c == 'b')
      dims.push_back(batch / batch_group_count);
    else if (c == 'f')
      dims.push_back(out_features);
    else if (c >= '0' && c - '0' < spatial)
      dims.push_back(spatial_out[c - '0']);
    else
      return Invalid(absl::StrCat("malformed dim_labels=", dim_labels));
  }
  return Shape(lhs.element_type(), dims);
}

absl::StatusOr<Shape> InferElementwiseShape(HloOpcode opcode,
                                            absl::Span<const Shape* const> operands) {
  if (operands.empty()) return Invalid("an elementwise operation needs operands");
  const Shape* first = operands[0];
  // select's predicate and clamp's bounds may be scalars.
  if (opcode == HloOpcode::kSelect) {
    if (operands.size() != 3) return Invalid("select takes 3 operands");
    // XLA's shape inference takes arrays only: a tuple select is refused.
    for (const Shape* operand : operands)
      HOPT_RETURN_IF_ERROR(RequireArray(*operand, "select's operand"));
    const Shape& on_true = *operands[1];
    const Shape& on_false = *operands[2];
    if (operands[0]->element_type() != PrimitiveType::PRED)
      return Invalid(
          absl::StrCat("select's predicate must be pred, got ", operands[0]->ToString()));
    if (!SameSizes(on_true, on_false) ||
        !SameTypeIgnoringFpPrecision(on_true.element_type(), on_false.element_type()))
      return Invalid(absl::StrCat("select's branches differ: ", on_true.ToString(), " vs ",
                                  on_false.ToString()));
    if (!operands[0]->IsScalar() && !SameSizes(*operands[0], on_true))
      return Invalid(absl::StrCat("select's predicate ", operands[0]->ToString(),
                                  " does not match ", on_true.ToString()));
    return ElementwiseResult(HigherPrecision(on_true.element_type(), on_false.element_type()),
                             on_true, operands);
  }
  if (opcode == HloOpcode::kClamp) {
    if (operands.size() != 3) return Invalid("clamp takes 3 operands");
    const Shape& x = *operands[1];
    for (int i : {0, 2}) {
      const Shape& bound = *operands[i];
      if (!SameTypeIgnoringFpPrecision(bound.element_type(), x.element_type()) ||
          (!bound.IsScalar() && !SameSizes(bound, x)))
        return Invalid(
            absl::StrCat("clamp bound ", bound.ToString(), " does not fit operand ", x.ToString()));
    }
    return ElementwiseResult(x.element_type(), x, operands);
  }
  PrimitiveType type = first->element_type();
  for (const Shape* operand : operands) {
    HOPT_RETURN_IF_ERROR(RequireArray(*operand, "an elementwise operand"));
    if (!SameSizes(*operand, *first))
      return Invalid(
          absl::StrCat("operand shapes differ: ", first->ToString(), " vs ", operand->ToString()));
    if (!SameTypeIgnoringFpPrecision(operand->element_type(), first->element_type()) &&
        opcode != HloOpcode::kComplex)
      return Invalid(absl::StrCat("operand element types differ: ", first->ToString(), " vs ",
                                  operand->ToString()));
    type = HigherPrecision(type, operand->element_type());
  }
  switch (opcode) {
    case HloOpcode::kIsFinite: type = PrimitiveType::PRED; break;
    case HloOpcode::kAbs:
      if (type == PrimitiveType::C64) type = PrimitiveType::F32;
      if (type == PrimitiveType::C128) type = PrimitiveType::F64;
      break;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      if (type == PrimitiveType::C64) type = PrimitiveType::F32;
      if (type == PrimitiveType::C128) type = PrimitiveType::F64;
      break;
    case HloOpcode::kComplex:
      type = type == PrimitiveType::F64 ? PrimitiveType::C128 : PrimitiveType::C64;
      break;
    default: break;
  }
  return ElementwiseResult(type, *first, operands);
}

absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs) {
  const Shape* operands[] = {&lhs, &rhs};
  HOPT_ASSIGN_OR_RETURN(Shape shape, InferElementwiseShape(HloOpcode::kAdd, operands));
  shape.set_element_type(PrimitiveType::PRED);
  return shape;
}

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> operands) {
  std::vector<Shape> elements;
  for (const Shape* s : operands) elements.push_back(*s);
  return Shape::MakeTuple(std::move(elements));
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index) {
  if (!tuple.IsTuple())
    return Invalid(absl::StrCat("get-tuple-element of a non-tuple ", tuple.ToString()));
  if (index < 0 || index >= tuple.tuple_shapes_size())
    return Invalid(absl::StrCat("tuple index ", index, " is out of range for ", tuple.ToString()));
  return tuple.tuple_shapes(index);
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& result) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "reshape's operand"));
  // Counts compared only when both fit: a wrapped product could match.
  std::optional<int64_t> operand_count = operand.ElementCountIfFits();
  std::optional<int64_t> result_count = result.ElementCountIfFits();
  if (!operand_count || !result_count)
    return Invalid(absl::StrCat(
        "reshape from ", operand.ToString(), " to ", result.ToString(), ": the element count of ",
        (operand_count ? result : operand).ToString(), " overflows a 64-bit integer"));
  if (operand.element_type() != result.element_type() ||
      (operand.is_static() && result.is_static() && *operand_count != *result_count))
    return Invalid(absl::StrCat("reshape from ", operand.ToString(), " to ", result.ToString(),
                                " changes the element count or type"));
  return result;
}

absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& result,
                                          absl::Span<const int64_t> dimensions) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "broadcast's operand"));
  if (static_cast<int64_t>(dimensions.size()) != operand.rank())
    return Invalid(absl::StrCat("broadcast dimensions ", Dims(dimensions),
                                " must name one result dimension per operand dimension of ",
                                operand.ToString()));
  for (size_t i = 0; i < dimensions.size(); ++i) {
    int64_t d = dimensions[i];
    if (d < 0 || d >= result.rank())
      return Invalid(
          absl::StrCat("broadcast dimension ", d, " is out of range for ", result.ToString()));
    if (operand.dimensions(i) != result.dimensions(d))
      return Invalid(absl::StrCat("broadcast of ", operand.ToString(), " to ", result.ToString(),
                                  ": dimension ", i, " does not fit"));
  }
  if (operand.element_type() != result.element_type() &&
      !(IsFloatingPointType(operand.element_type()) && IsFloatingPointType(result.element_type())))
    return Invalid("broadcast changes the element type");
  return result;
}

absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "transpose's operand"));
  if (static_cast<int64_t>(permutation.size()) != operand.rank())
    return Invalid(absl::StrCat("transpose permutation ", Dims(permutation), " does not fit ",
                                operand.ToString()));
  std::vector<bool> seen(permutation.size(), false);
  DimensionVector dims;
  for (int64_t p : permutation) {
    if (p < 0 || p >= operand.rank() || seen[p])
      return Invalid(absl::StrCat(Dims(permutation), " is not a permutation"));
    seen[p] = true;
    dims.push_back(operand.dimensions(p));
  }
  return Shape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const SliceDimension> slice) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "slice's operand"));
  if (static_cast<int64_t>(slice.size()) != operand.rank())
    return Invalid(absl::StrCat("slice has ", slice.size(), " ranges for ", operand.ToString()));
  DimensionVector dims;
  for (size_t i = 0; i < slice.size(); ++i) {
    const SliceDimension& s = slice[i];
    if (s.start < 0 || s.limit < s.start || s.limit > operand.dimensions(i) || s.stride <= 0)
      return Invalid(absl::StrCat("slice range [", s.start, ":", s.limit, ":", s.stride,
                                  "] does not fit dimension ", i, " of ", operand.ToString()));
    dims.push_back((s.limit - s.start + s.stride - 1) / s.stride);
  }
  return Shape(operand.element_type(), dims);
}

namespace {

// The start indices of dynamic-slice and dynamic-update-slice: one integer
// scalar per operand dimension, or XLA's older form, one integer vector
// with an entry per dimension. As in XLA, a vector first index means the
// older form (so `s32[1]` starts a rank-1 operand).
absl::Status CheckStartIndices(absl::string_view op, const Shape& operand,
                               absl::Span<const Shape* const> indices) {
  if (!indices.empty() && indices[0]->IsArray() && indices[0]->rank() == 1) {
    const Shape& vector = *indices[0];
    if (indices.size() == 1 && IsIntegralType(vector.element_type()) &&
        vector.dimensions(0) == operand.rank())
      return absl::OkStatus();
    return Invalid(absl::StrCat(
        op, " of ", operand.ToString(), " takes its start indices as one integer vector of ",
        operand.rank(), " entries or as ", operand.rank(), " integer scalars, got ",
        vector.ToString(), indices.size() > 1 ? " and more" : ""));
  }
  if (static_cast<int64_t>(indices.size()) != operand.rank())
    return Invalid(
        absl::StrCat(op, " of ", operand.ToString(), " needs ", operand.rank(), " scalar indices"));
  for (const Shape* index : indices)
    if (!index->IsScalar() || !IsIntegralType(index->element_type()))
      return Invalid(absl::StrCat(op, " index ", index->ToString(), " must be an integer scalar"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> indices,
                                             absl::Span<const int64_t> sizes) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "dynamic-slice's operand"));
  HOPT_RETURN_IF_ERROR(CheckStartIndices("dynamic-slice", operand, indices));
  if (static_cast<int64_t>(sizes.size()) != operand.rank())
    return Invalid(absl::StrCat("dynamic-slice of ", operand.ToString(), " needs ", operand.rank(),
                                " dynamic_slice_sizes"));
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 0 || sizes[i] > operand.dimensions(i))
      return Invalid(
          absl::StrCat("dynamic_slice_sizes ", Dims(sizes), " do not fit ", operand.ToString()));
  return Shape(operand.element_type(), sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   absl::Span<const Shape* const> indices) {
  HOPT_RETURN_IF_ERROR(RequireArray(operand, "dynamic-update-slice's operand"));
  HOPT_RETURN_IF_ERROR(RequireArray(update, "dynamic-update-slice's update"));
  HOPT_RETURN_IF_ERROR(CheckStartIndices("dynamic-update-slice", operand, indices));
  if (update.rank() != operand.rank() ||
      !SameTypeIgnoringFpPrecision(update.element_type(), operand.element_type()))
    return Invalid(absl::StrCat("dynamic-update-slice of ", operand.ToString(), " with ",
                                update.ToString(),
                                ": the update must have the operand's rank (one "
                                "start index per dimension) and element type"));
  for (int64_t i = 0; i < operand.rank(); ++i)
    if (update.dimensions(i) > operand.dimensions(i))
      return Invalid(
          absl::StrCat("update ", update.ToString(), " is larger than ", operand.ToString()));
  return ArrayLike(operand.element_type(), operand);
}

absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension) {
  if (operands.empty()) return Invalid("concatenate needs operands");
  const Shape& first = *operands[0];
  HOPT_RETURN_IF_ERROR(RequireArray(first, "concatenate's operand"));
  if (dimension < 0 || dimension >= first.rank())
    return Invalid(absl::StrCat("concatenate dimension ", dimension, " is out of range for ",
                                first.ToString()));
  DimensionVector dims = first.dimensions();
  PrimitiveType type = first.element_type();
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& s = *operands[k];
    HOPT_RETURN_IF_ERROR(RequireArray(s, "concatenate's operand"));
    if (s.rank() != first.rank() ||
        !SameTypeIgnoringFpPrecision(s.element_type(), first.element_type()))
      return Invalid(absl::StrCat("concatenate operands ", first.ToString(), " and ", s.ToString(),
                                  " differ in rank or type"));
    type = HigherPrecision(type, s.element_type());
    for (int64_t i = 0; i < s.rank(); ++i)
      if (i != dimension && s.dimensions(i) != first.dimensions(i))
        return Invalid(absl::StrCat("concatenate operands ", first.ToString(), " and ",
                                    s.ToString(), " differ outside dimension ", dimension));
    if (__builtin_add_overflow(dims[dimension], s.dimensions(dimension), &dims[dimension]))
      return Invalid(
          absl::StrCat("concatenate dimension ", dimension, " overflows a 64-bit integer"));
  }
  return Shape(type, dims);
}

absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions) {
  if (operands.empty() || operands.size() % 2 != 0)
    return Invalid("reduce takes N inputs and N init values");
  size_t n = operands.size() / 2;
  std::vector<Shape> results;
  for (size_t k = 0; k < n; ++k) {
    const Shape& input = *operands[k];
    const Shape& init = *operands[n + k];
    HOPT_RETURN_IF_ERROR(RequireArray(input, "reduce's input"));
    if (!init.IsScalar() || init.element_type() != input.element_type())
      return Invalid(absl::StrCat("reduce init value ", init.ToString(),
                                  " must be a scalar of the input's type ", input.ToString()));
    if (!SameSizes(input, *operands[0]))
      return Invalid("reduce inputs must have the same dimensions");
    DimensionVector dims;
    std::vector<bool> dynamic;
    for (int64_t i = 0; i < input.rank(); ++i)
      if (std::find(dimensions.begin(), dimensions.end(), i) == dimensions.end()) {
        dims.push_back(input.dimensions(i));
        dynamic.push_back(input.is_dynamic_dimension(i));
      }
    for (int64_t d : dimensions)
      if (d < 0 || d >= input.rank())
        return Invalid(
            absl::StrCat("reduce dimension ", d, " is out of range for ", input.ToString()));
    Shape result(input.element_type(), dims);
    for (size_t i = 0; i < dynamic.size(); ++i) result.set_dynamic_dimension(i, dynamic[i]);
    results.push_back(std::move(result));
  }
  if (results.size() == 1) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    absl::Span<const int64_t> lhs_contracting,
                                    absl::Span<const int64_t> rhs_contracting,
                                    absl::Span<const int64_t> lhs_batch,
                                    absl::Span<const int64_t> rhs_batch,
                                    bool check_contracting_sizes) {
  if (!lhs.IsArray() || !rhs.IsArray()) return Invalid("dot operands must be arrays");
  if (lhs_contracting.size() != rhs_contracting.size() || lhs_batch.size() != rhs_batch.size())
    return Invalid("dot needs as many lhs as rhs contracting and batch dimensions");
  auto in_range = [](absl::Span<const int64_t> ds, const Shape& s) {
    for (int64_t d : ds)
      if (d < 0 || d >= s.rank()) return false;
    return true;
  };
  if (!in_range(lhs_contracting, lhs) || !in_range(lhs_batch, lhs) ||
      !in_range(rhs_contracting, rhs) || !in_range(rhs_batch, rhs))
    return Invalid("dot dimension numbers are out of range");
  for (size_t i = 0; i < lhs_contracting.size() && check_contracting_sizes; ++i)
    if (lhs.dimensions(lhs_contracting[i]) != rhs.dimensions(rhs_contracting[i]))
      return Invalid(absl::StrCat("dot contracting dimensions differ in size: ", lhs.ToString(),
                                  " vs ", rhs.ToString()));
  for (size_t i = 0; i < lhs_batch.size(); ++i)
    if (lhs.dimensions(lhs_batch[i]) != rhs.dimensions(rhs_batch[i]))
      return Invalid(absl::StrCat("dot batch dimensions differ in size: ", lhs.ToString(), " vs ",
                                  rhs.ToString()));
  DimensionVector dims;
  for (int64_t d : lhs_batch) dims.push_back(lhs.dimensions(d));
  auto contains = [](absl::Span<const int64_t> ds, int64_t d) {
    return std::find(ds.begin(), ds.end(), d) != ds.end();
  };
  for (int64_t i = 0; i < lhs.rank(); ++i)
    if (!contains(lhs_contracting, i) && !contains(lhs_batch, i)) dims.push_back(lhs.dimensions(i));
  for (int64_t i = 0; i < rhs.rank(); ++i)
    if (!contains(rhs_contracting, i) && !contains(rhs_batch, i)) dims.push_back(rhs.dimensions(i));
  return Shape(lhs.element_type(), dims);
}

static absl::StatusOr<Shape> ScaleDimension(absl::Span<const Shape* const> operands,
                                            int64_t dimension, int64_t group_size, bool gather,
                                            absl::string_view op) {
  if (operands.empty()) return Invalid(absl::StrCat(op, " needs operands"));
  if (group_size <= 0) return Invalid(absl::StrCat(op, " needs a positive group size"));
  std::vector<Shape> results;
  for (const Shape* operand : operands) {
    HOPT_RETURN_IF_ERROR(RequireArray(*operand, absl::StrCat(op, "'s operand")));
    // Beyond XLA: torch-xla threads a scalar through collectives to order
    // them; its result element keeps the scalar shape (docs/formats.md,
    // "Extension: scalar operands of all-gather and reduce-scatter").
    if (operand->rank() == 0) {
      results.push_back(*operand);
      continue;
    }
    if (dimension < 0 || dimension >= operand->rank())
      return Invalid(
          absl::StrCat(op, " dimension ", dimension, " is out of range for ", operand->ToString()));
    DimensionVector dims = operand->dimensions();
    if (gather) {
      if (__builtin_mul_overflow(dims[dimension], group_size, &dims[dimension]))
        return Invalid(absl::StrCat(op, ": dimension ", dimension, " of ", operand->ToString(),
                                    " times the group size ", group_size,
                                    " overflows a 64-bit integer"));
    } else {
      if (dims[dimension] % group_size != 0)
        return Invalid(absl::StrCat(op, ": dimension ", dimension, " of ", operand->ToString(),
                                    " is not divisible by the group size ", group_size));
      dims[dimension] /= group_size;
    }
    results.push_back(Shape(operand->element_type(), dims));
  }
  if (results.size() == 1) return results[0];
  return Shape::MakeTuple(std::move(results));
}

absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t dimension, int64_t group_size) {
  return ScaleDimension(operands, dimension, group_size, true, "all-gather");
}

absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t dimension, int64_t group_size) {
  return ScaleDimension(operands, dimension, group_size, false, "reduce-scatter");
}

absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands) {
  if (operands.empty()) return Invalid("all-reduce needs operands");
  for (const Shape* s : operands) {
    HOPT_RETURN_IF_ERROR(RequireArray(*s, "all-reduce's operand"));
  }
  if (operands.size() == 1) return *operands[0];
  return InferTupleShape(operands);
}

int64_t CollectiveGroupSize(const HloInstruction& instruction, int64_t default_group_size) {
  auto groups = instruction.replica_groups();
  if (!groups || groups->empty()) return default_group_size;
  if (groups->is_iota) return groups->group_size;
  return static_cast<int64_t>(groups->groups[0].size());
}

absl::StatusOr<Shape> InferShapeFromOperands(const HloInstruction& instruction) {
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : instruction.operands()) {
    if (operand == nullptr) return absl::FailedPreconditionError("unresolved operand");
    shapes.push_back(&operand->shape());
  }
  HloOpcode opcode = instruction.opcode();
  if (opcode == HloOpcode::kCopy && shapes.size() == 1) return *shapes[0];
  auto need = [&](size_t n) -> absl::Status {
    if (shapes.size() == n) return absl::OkStatus();
    return Invalid(
        absl::StrCat(HloOpcodeString(opcode), " takes ", n, " operand(s), got ", shapes.size()));
  };
  if (IsElementwiseUnary(opcode) || opcode == HloOpcode::kIsFinite || opcode == HloOpcode::kReal ||
      opcode == HloOpcode::kImag) {
    HOPT_RETURN_IF_ERROR(need(1));
    return InferElementwiseShape(opcode, shapes);
  }
  if (IsElementwiseBinary(opcode) || opcode == HloOpcode::kComplex) {
    HOPT_RETURN_IF_ERROR(need(2));
    return InferElementwiseShape(opcode, shapes);
  }
  switch (opcode) {
    case HloOpcode::kSelect:
    case HloOpcode::kClamp: return InferElementwiseShape(opcode, shapes);
    case HloOpcode::kCompare: {
      HOPT_RETURN_IF_ERROR(need(2));
      return InferCompareShape(*shapes[0], *shapes[1]);
    }
    case HloOpcode::kTuple: return InferTupleShape(shapes);
    case HloOpcode::kGetTupleElement: {
      HOPT_RETURN_IF_ERROR(need(1));
      return InferGetTupleElementShape(*shapes[0], instruction.tuple_index());
    }
    case HloOpcode::kTranspose: {
      HOPT_RETURN_IF_ERROR(need(1));
      return InferTransposeShape(*shapes[0], instruction.dimensions());
    }
    case HloOpcode::kSlice: {
      HOPT_RETURN_IF_ERROR(need(1));
      return InferSliceShape(*shapes[0], instruction.slice());
    }
    case HloOpcode::kDynamicSlice: {
      if (shapes.empty()) return Invalid("dynamic-slice needs operands");
      return InferDynamicSliceShape(*shapes[0], absl::MakeConstSpan(shapes).subspan(1),
                                    instruction.dynamic_slice_sizes());
    }
    case HloOpcode::kDynamicUpdateSlice: {
      if (shapes.size() < 2) return Invalid("dynamic-update-slice needs operands");
      return InferDynamicUpdateSliceShape(*shapes[0], *shapes[1],
                                          absl::MakeConstSpan(shapes).subspan(2));
    }
    case HloOpcode::kConcatenate: {
      std::vector<int64_t> dims = instruction.dimensions();
      if (dims.size() != 1) return Invalid("concatenate needs dimensions={d}");
      return InferConcatenateShape(shapes, dims[0]);
    }
    case HloOpcode::kReduce: return InferReduceShape(shapes, instruction.dimensions());
    case HloOpcode::kPad: {
      HOPT_RETURN_IF_ERROR(need(2));
      return InferPadShape(*shapes[0], instruction.GetAttributeText("padding").value_or(""));
    }
    case HloOpcode::kReduceWindow:
      return InferReduceWindowShape(shapes, instruction.GetAttributeText("window").value_or(""));
    case HloOpcode::kConvolution: {
      HOPT_RETURN_IF_ERROR(need(2));
      return InferConvolutionShape(*shapes[0], *shapes[1],
                                   instruction.GetAttributeText("window").value_or("{}"),
                                   instruction.GetAttributeText("dim_labels").value_or(""),
                                   instruction.IntAttribute("batch_group_count").value_or(1),
                                   instruction.IntAttribute("feature_group_count").value_or(1));
    }
    case HloOpcode::kWhile:
      if (shapes.size() != 1) break;
      return *shapes[0];
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      const HloAttribute* attr =
          instruction.FindAttribute(opcode == HloOpcode::kCall ? "to_apply" : "calls");
      if (attr == nullptr || attr->computations.size() != 1 ||
          attr->computations[0]->root_instruction() == nullptr)
        break;
      return attr->computations[0]->root_instruction()->shape();
    }
    case HloOpcode::kDot: {
      // Sparse dots add metadata operands after lhs and rhs.
      if (shapes.size() < 2) return need(2);
      auto list = [&](absl::string_view name) {
        auto text = instruction.GetAttributeText(name);
        return text ? ParseIntList(*text).value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
      };
      return InferDotShape(*shapes[0], *shapes[1], list("lhs_contracting_dims"),
                           list("rhs_contracting_dims"), list("lhs_batch_dims"),
                           list("rhs_batch_dims"),
                           /*check_contracting_sizes=*/!instruction.HasAttribute("sparsity"));
    }
    case HloOpcode::kAllReduce: return InferAllReduceShape(shapes);
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kCopy:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kDomain:
      if (shapes.size() != 1) break;
      return *shapes[0];
    case HloOpcode::kAfterAll: return Shape::MakeToken();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: return Shape(PrimitiveType::U32, {});
    default: break;
  }
  return InferCalledOrStructuredShape(instruction, shapes);
}

}  // namespace hopt

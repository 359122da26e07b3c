// SPDX-License-Identifier: Apache-2.0
// Shape and data-movement operations of the HLO interpreter (see ops.h).
//
// Every function checks its arguments first (the shape-inference helpers of
// core/ir do most of it) and only then builds the result, so a bad argument
// gives InvalidArgument instead of an out-of-range access. Elements are in
// row-major order of the logical dimensions; data is moved bit for bit with
// CopyElementFrom, and only Dot and Iota compute new values (Dot on the GEMMs
// of dense_kernels.h for floating-point types).

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/eval/dense_kernels.h"
#include "core/eval/ops.h"
#include "core/ir/shape_inference.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

// The largest result the interpreter builds.
constexpr int64_t kMaxResultElements = int64_t{1} << 28;

// Non-negative dimensions (unbounded dynamic ones are negative) whose
// non-zero sizes multiply to an int64: that product bounds every partial
// product (element counts, strides), even when a zero dimension makes the
// array empty.
absl::Status CheckDimensions(absl::string_view op, const Shape& shape, absl::string_view what,
                             int64_t* nonzero_product) {
  int64_t product = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has a negative or unbounded dimension"));
    if (d == 0) continue;
    if (product > INT64_MAX / d)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has dimensions too large to index"));
    product *= d;
  }
  *nonzero_product = product;
  return absl::OkStatus();
}

// An array literal whose values are known.
absl::Status CheckOperand(absl::string_view op, const Literal& literal, absl::string_view what) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat(what, " must be an array, got ", shape.ToString()));
  if (literal.is_elided())
    return OperationError(
        op, absl::StrCat(what, " ", shape.ToString(), " has elided (unknown) values"));
  int64_t product;
  return CheckDimensions(op, shape, what, &product);
}

// A result shape the interpreter can hold: an array with non-negative
// dimensions and at most kMaxResultElements elements.
absl::Status CheckResultShape(absl::string_view op, const Shape& shape) {
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat("the result must be an array, got ", shape.ToString()));
  int64_t product;
  HOPT_RETURN_IF_ERROR(CheckDimensions(op, shape, "the result", &product));
  bool empty = std::find(shape.dimensions().begin(), shape.dimensions().end(), 0) !=
               shape.dimensions().end();
  if (!empty && product > kMaxResultElements)
    return OperationError(op, absl::StrCat("the result ", shape.ToString(), " has more than 2^28 (",
                                           kMaxResultElements, ") elements; refusing to build it"));
  return absl::OkStatus();
}

// For each index r of `result` in row-major order, copies element
// `base + sum_d r[d] * steps[d]` of `source` (steps may be 0 or negative).
void Gather(const Literal& source, int64_t base, const std::vector<int64_t>& steps,
            Literal* result) {
  const Shape& shape = result->shape();
  int64_t count = result->element_count();
  if (count == 0) return;
  int64_t rank = shape.rank();
  // Rows that are contiguous in the source go in one copy each.
  if (rank > 0 && steps[rank - 1] == 1) {
    const int64_t row = shape.dimensions(rank - 1);
    std::vector<int64_t> index(rank, 0);
    int64_t from = base;
    for (int64_t to = 0; to < count; to += row) {
      result->CopyElementsFrom(source, from, to, row);
      for (int64_t d = rank - 2; d >= 0; --d) {
        from += steps[d];
        if (++index[d] < shape.dimensions(d)) break;
        from -= steps[d] * index[d];
        index[d] = 0;
      }
    }
    return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t from = base;
  for (int64_t to = 0; to < count; ++to) {
    result->CopyElementFrom(source, from, to);
    // Advance the row-major index, keeping `from` in step.
    for (int64_t d = rank - 1; d >= 0; --d) {
      from += steps[d];
      if (++index[d] < shape.dimensions(d)) break;
      from -= steps[d] * index[d];
      index[d] = 0;
    }
  }
}

// Copies each element i of `source` to coordinate origin[d] + i[d] * step[d]
// of `target`, skipping those that fall outside `target`. The coordinates
// are computed in 128 bits: pad's low padding and interior padding + 1 are
// arbitrary (the latter up to 2^63) and only the final coordinate is bounded.
using Wide = __int128;
void Place(const Literal& source, const std::vector<Wide>& origin, const std::vector<Wide>& step,
           Literal* target) {
  const Shape& from_shape = source.shape();
  const Shape& to_shape = target->shape();
  int64_t count = source.element_count();
  if (count == 0 || target->element_count() == 0) return;
  int64_t rank = from_shape.rank();
  std::vector<int64_t> to_strides = RowMajorStrides(to_shape);
  std::vector<int64_t> index(rank, 0);
  // Unit steps along the innermost dimension: each source row lands on one
  // contiguous run of the target, clipped to it, and goes in one copy.
  if (rank > 0 && step[rank - 1] == 1) {
    const int64_t row = from_shape.dimensions(rank - 1);
    const Wide row_target = to_shape.dimensions(rank - 1);
    const Wide first = std::max<Wide>(0, -origin[rank - 1]);
    const Wide last = std::min<Wide>(row, row_target - origin[rank - 1]);
    for (int64_t from = 0; from < count; from += row) {
      bool inside = first < last;
      int64_t to = 0;
      for (int64_t d = 0; d + 1 < rank && inside; ++d) {
        Wide coordinate = origin[d] + static_cast<Wide>(index[d]) * step[d];
        if (coordinate < 0 || coordinate >= to_shape.dimensions(d))
          inside = false;
        else
          to += static_cast<int64_t>(coordinate) * to_strides[d];
      }
      if (inside)
        target->CopyElementsFrom(source, from + static_cast<int64_t>(first),
                                 to + static_cast<int64_t>(origin[rank - 1] + first),
                                 static_cast<int64_t>(last - first));
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++index[d] < from_shape.dimensions(d)) break;
        index[d] = 0;
      }
    }
    return;
  }
  for (int64_t from = 0; from < count; ++from) {
    bool inside = true;
    int64_t to = 0;
    for (int64_t d = 0; d < rank && inside; ++d) {
      Wide coordinate = origin[d] + static_cast<Wide>(index[d]) * step[d];
      if (coordinate < 0 || coordinate >= to_shape.dimensions(d))
        inside = false;
      else
        to += static_cast<int64_t>(coordinate) * to_strides[d];
    }
    if (inside) target->CopyElementFrom(source, from, to);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < from_shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
}

// Distinct values within [0, rank).
absl::Status CheckDimensionList(absl::string_view op, absl::Span<const int64_t> dims, int64_t rank,
                                absl::string_view what) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return OperationError(op, absl::StrCat(what, " ", DimsText(dims), ": dimension ", d,
                                             " is out of range for rank ", rank));
    if (seen[d])
      return OperationError(op, absl::StrCat(what, " ", DimsText(dims), " repeat dimension ", d));
    seen[d] = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> Broadcast(const Literal& operand, const Shape& result,
                                  absl::Span<const int64_t> dimensions) {
  constexpr absl::string_view kOp = "broadcast";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, result));
  const Shape& shape = operand.shape();
  if (result.element_type() != shape.element_type())
    return OperationError(
        kOp, absl::StrCat("the result ", result.ToString(),
                          " has another element type than the operand ", shape.ToString()));
  auto inferred = InferBroadcastShape(shape, result, dimensions);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckDimensionList(kOp, dimensions, result.rank(), "dimensions"));

  std::vector<int64_t> operand_strides = RowMajorStrides(shape);
  std::vector<int64_t> steps(result.rank(), 0);
  for (size_t i = 0; i < dimensions.size(); ++i) steps[dimensions[i]] = operand_strides[i];
  Literal out(result);
  Gather(operand, 0, steps, &out);
  return out;
}

absl::StatusOr<Literal> Reshape(const Literal& operand, const Shape& result) {
  constexpr absl::string_view kOp = "reshape";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, result));
  auto inferred = InferReshapeShape(operand.shape(), result);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  if (result.ElementCount() != operand.element_count())
    return OperationError(
        kOp, absl::StrCat("cannot reshape ", operand.shape().ToString(), " (",
                          operand.element_count(), " elements) to ", result.ToString(), " (",
                          result.ElementCount(), " elements)"));
  Literal out(result);
  for (int64_t i = 0; i < out.element_count(); ++i) out.CopyElementFrom(operand, i, i);
  return out;
}

absl::StatusOr<Literal> Transpose(const Literal& operand, absl::Span<const int64_t> permutation) {
  constexpr absl::string_view kOp = "transpose";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  auto inferred = InferTransposeShape(operand.shape(), permutation);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, *inferred));

  std::vector<int64_t> operand_strides = RowMajorStrides(operand.shape());
  std::vector<int64_t> steps(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) steps[i] = operand_strides[permutation[i]];
  Literal out(*inferred);
  Gather(operand, 0, steps, &out);
  return out;
}

absl::StatusOr<Literal> Slice(const Literal& operand, absl::Span<const int64_t> starts,
                              absl::Span<const int64_t> limits, absl::Span<const int64_t> strides) {
  constexpr absl::string_view kOp = "slice";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  const Shape& shape = operand.shape();
  if (static_cast<int64_t>(starts.size()) != shape.rank() ||
      static_cast<int64_t>(limits.size()) != shape.rank() ||
      static_cast<int64_t>(strides.size()) != shape.rank())
    return OperationError(kOp, absl::StrCat("starts ", DimsText(starts), ", limits ",
                                            DimsText(limits), " and strides ", DimsText(strides),
                                            " must each have one entry"
                                            " per dimension of ",
                                            shape.ToString()));
  std::vector<SliceDimension> slice(shape.rank());
  // A stride past the dimension's size takes one element at most; capping
  // it gives the same result and keeps the size arithmetic from overflowing.
  std::vector<int64_t> capped(strides.begin(), strides.end());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    capped[d] = std::min(capped[d], std::max<int64_t>(shape.dimensions(d), 1));
    slice[d] = {starts[d], limits[d], capped[d]};
  }
  auto inferred = InferSliceShape(shape, slice);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, *inferred));

  std::vector<int64_t> operand_strides = RowMajorStrides(shape);
  std::vector<int64_t> steps(shape.rank());
  int64_t base = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    steps[d] = capped[d] * operand_strides[d];
    // A zero-size result reads nothing; starts may equal the dimension.
    if (starts[d] < shape.dimensions(d)) base += starts[d] * operand_strides[d];
  }
  Literal out(*inferred);
  Gather(operand, base, steps, &out);
  return out;
}

absl::StatusOr<Literal> DynamicSlice(const Literal& operand, absl::Span<const int64_t> starts,
                                     absl::Span<const int64_t> sizes) {
  constexpr absl::string_view kOp = "dynamic-slice";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  const Shape& shape = operand.shape();
  if (static_cast<int64_t>(starts.size()) != shape.rank())
    return OperationError(kOp, absl::StrCat("start indices ", DimsText(starts),
                                            " must have one entry per"
                                            " dimension of ",
                                            shape.ToString()));
  Shape index_shape(PrimitiveType::S64, {});
  std::vector<const Shape*> index_shapes(starts.size(), &index_shape);
  auto inferred = InferDynamicSliceShape(shape, index_shapes, sizes);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, *inferred));

  std::vector<int64_t> operand_strides = RowMajorStrides(shape);
  int64_t base = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    int64_t start = std::min(std::max<int64_t>(starts[d], 0), shape.dimensions(d) - sizes[d]);
    if (start < shape.dimensions(d)) base += start * operand_strides[d];
  }
  Literal out(*inferred);
  Gather(operand, base, operand_strides, &out);
  return out;
}

absl::StatusOr<Literal> DynamicUpdateSlice(const Literal& operand, const Literal& update,
                                           absl::Span<const int64_t> starts) {
  constexpr absl::string_view kOp = "dynamic-update-slice";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, update, "the update"));
  const Shape& shape = operand.shape();
  if (update.shape().element_type() != shape.element_type())
    return OperationError(
        kOp, absl::StrCat("the update ", update.shape().ToString(),
                          " has another element type than the operand ", shape.ToString()));
  if (static_cast<int64_t>(starts.size()) != shape.rank())
    return OperationError(kOp, absl::StrCat("start indices ", DimsText(starts),
                                            " must have one entry per"
                                            " dimension of ",
                                            shape.ToString()));
  Shape index_shape(PrimitiveType::S64, {});
  std::vector<const Shape*> index_shapes(starts.size(), &index_shape);
  auto inferred = InferDynamicUpdateSliceShape(shape, update.shape(), index_shapes);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, *inferred));

  std::vector<Wide> origin(shape.rank()), step(shape.rank(), 1);
  for (int64_t d = 0; d < shape.rank(); ++d)
    origin[d] = std::min(std::max<int64_t>(starts[d], 0),
                         shape.dimensions(d) - update.shape().dimensions(d));
  Literal out(*inferred);
  for (int64_t i = 0; i < out.element_count(); ++i) out.CopyElementFrom(operand, i, i);
  Place(update, origin, step, &out);
  return out;
}

absl::StatusOr<Literal> Concatenate(absl::Span<const Literal* const> operands, int64_t dimension) {
  constexpr absl::string_view kOp = "concatenate";
  if (operands.empty()) return OperationError(kOp, "needs at least one operand");
  std::vector<const Shape*> shapes;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k] == nullptr) return OperationError(kOp, absl::StrCat("operand ", k, " is null"));
    HOPT_RETURN_IF_ERROR(CheckOperand(kOp, *operands[k], absl::StrCat("operand ", k)));
    shapes.push_back(&operands[k]->shape());
  }
  // The result's size along `dimension` must fit in int64 (the operands
  // may be empty arrays with huge dimensions).
  int64_t total = 0;
  for (const Shape* shape : shapes)
    if (dimension >= 0 && dimension < shape->rank()) {
      if (shape->dimensions(dimension) > INT64_MAX - total)
        return OperationError(kOp, "the result's size along the concatenated dimension overflows");
      total += shape->dimensions(dimension);
    }
  auto inferred = InferConcatenateShape(shapes, dimension);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, *inferred));

  int64_t rank = inferred->rank();
  Literal out(*inferred);
  std::vector<Wide> origin(rank, 0), step(rank, 1);
  for (const Literal* operand : operands) {
    Place(*operand, origin, step, &out);
    origin[dimension] += operand->shape().dimensions(dimension);
  }
  return out;
}

absl::StatusOr<Literal> Pad(const Literal& operand, const Literal& padding_value,
                            absl::Span<const PadDimension> padding) {
  constexpr absl::string_view kOp = "pad";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, padding_value, "the padding value"));
  const Shape& shape = operand.shape();
  if (!padding_value.shape().IsScalar() ||
      padding_value.shape().element_type() != shape.element_type())
    return OperationError(kOp, absl::StrCat("the padding value ", padding_value.shape().ToString(),
                                            " must be a scalar of the operand's element type (",
                                            shape.ToString(), ")"));
  if (static_cast<int64_t>(padding.size()) != shape.rank())
    return OperationError(
        kOp, absl::StrCat("has ", padding.size(), " padding entries for ", shape.ToString()));
  DimensionVector dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const PadDimension& p = padding[d];
    if (p.interior < 0)
      return OperationError(
          kOp, absl::StrCat("interior padding ", p.interior, " of dimension ", d, " is negative"));
    Wide n = shape.dimensions(d);
    Wide size = static_cast<Wide>(p.low) + p.high + n + (n > 0 ? (n - 1) * p.interior : 0);
    if (size < 0)
      return OperationError(
          kOp, absl::StrCat("padding ", p.low, "_", p.high, "_", p.interior, " of dimension ", d,
                            " of ", shape.ToString(), " gives a negative size"));
    if (size > kMaxResultElements)
      return OperationError(
          kOp, absl::StrCat("padding ", p.low, "_", p.high, "_", p.interior, " of dimension ", d,
                            " gives more than 2^28 elements"));
    dims.push_back(static_cast<int64_t>(size));
  }
  Shape result(shape.element_type(), dims);
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, result));

  Literal out(result);
  for (int64_t i = 0; i < out.element_count(); ++i) out.CopyElementFrom(padding_value, 0, i);
  std::vector<Wide> origin(shape.rank()), step(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) {
    origin[d] = padding[d].low;
    step[d] = static_cast<Wide>(padding[d].interior) + 1;
  }
  Place(operand, origin, step, &out);
  return out;
}

absl::StatusOr<Literal> Iota(const Shape& shape, int64_t iota_dimension) {
  constexpr absl::string_view kOp = "iota";
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, shape));
  if (iota_dimension < 0 || iota_dimension >= shape.rank())
    return OperationError(kOp, absl::StrCat("iota_dimension ", iota_dimension,
                                            " is out of range for ", shape.ToString()));
  Literal out(shape);
  std::vector<int64_t> strides = RowMajorStrides(shape);
  int64_t size = shape.dimensions(iota_dimension);
  int64_t stride = strides[iota_dimension];
  for (int64_t i = 0; i < out.element_count(); ++i) out.SetFromInt64(i, (i / stride) % size);
  return out;
}

absl::StatusOr<Literal> Reverse(const Literal& operand, absl::Span<const int64_t> dimensions) {
  constexpr absl::string_view kOp = "reverse";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, operand, "the operand"));
  const Shape& shape = operand.shape();
  HOPT_RETURN_IF_ERROR(CheckDimensionList(kOp, dimensions, shape.rank(), "dimensions"));
  Shape result(shape.element_type(), shape.dimensions());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, result));

  std::vector<int64_t> steps = RowMajorStrides(shape);
  int64_t base = 0;
  if (operand.element_count() > 0) {
    for (int64_t d : dimensions) {
      base += (shape.dimensions(d) - 1) * steps[d];
      steps[d] = -steps[d];
    }
  }
  Literal out(result);
  Gather(operand, base, steps, &out);
  return out;
}

namespace {

// The product on sgemm/dgemm: each operand gathered into the GEMM's layout
// (batch, free, contracting for the lhs; batch, contracting, free for the
// rhs), whose result is already in the dot's order (batch, lhs free, rhs
// free).
template <typename T>
Literal DotOnGemm(const Literal& lhs, const Literal& rhs, absl::Span<const int64_t> lhs_contracting,
                  absl::Span<const int64_t> rhs_contracting, absl::Span<const int64_t> lhs_batch,
                  absl::Span<const int64_t> rhs_batch, const Shape& result) {
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  std::vector<int64_t> lhs_strides = RowMajorStrides(ls), rhs_strides = RowMajorStrides(rs);
  std::vector<int64_t> a_dims, a_steps, b_dims, b_steps;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  for (size_t i = 0; i < lhs_batch.size(); ++i) {
    int64_t size = ls.dimensions(lhs_batch[i]);
    batch *= size;
    a_dims.push_back(size);
    a_steps.push_back(lhs_strides[lhs_batch[i]]);
    b_dims.push_back(size);
    b_steps.push_back(rhs_strides[rhs_batch[i]]);
  }
  for (int64_t d = 0; d < ls.rank(); ++d)
    if (!ContainsValue(lhs_batch, d) && !ContainsValue(lhs_contracting, d)) {
      m *= ls.dimensions(d);
      a_dims.push_back(ls.dimensions(d));
      a_steps.push_back(lhs_strides[d]);
    }
  for (size_t i = 0; i < lhs_contracting.size(); ++i) {
    int64_t size = ls.dimensions(lhs_contracting[i]);
    k *= size;
    a_dims.push_back(size);
    a_steps.push_back(lhs_strides[lhs_contracting[i]]);
    b_dims.push_back(size);
    b_steps.push_back(rhs_strides[rhs_contracting[i]]);
  }
  for (int64_t d = 0; d < rs.rank(); ++d)
    if (!ContainsValue(rhs_batch, d) && !ContainsValue(rhs_contracting, d)) {
      n *= rs.dimensions(d);
      b_dims.push_back(rs.dimensions(d));
      b_steps.push_back(rhs_strides[d]);
    }
  // Uninitialized: every element is written before it is read.
  GemmBuffer<T> a = MakeGemmBuffer<T>(batch * m * k), b = MakeGemmBuffer<T>(batch * k * n),
                c = MakeGemmBuffer<T>(batch * m * n);
  GatherValues(lhs, 0, a_dims, a_steps, a.get());
  GatherValues(rhs, 0, b_dims, b_steps, b.get());
  Gemm(batch, m, n, k, a.get(), b.get(), c.get());
  Literal out(result);
  StoreValues(c.get(), batch * m * n, &out);
  return out;
}

// A dot's result shape, once its operands, dimension numbers and result
// type are checked.
absl::StatusOr<Shape> CheckedDotResult(const Literal& lhs, const Literal& rhs,
                                       absl::Span<const int64_t> lhs_contracting,
                                       absl::Span<const int64_t> rhs_contracting,
                                       absl::Span<const int64_t> lhs_batch,
                                       absl::Span<const int64_t> rhs_batch,
                                       PrimitiveType result_type) {
  constexpr absl::string_view kOp = "dot";
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, lhs, "the lhs"));
  HOPT_RETURN_IF_ERROR(CheckOperand(kOp, rhs, "the rhs"));
  if (!IsArrayType(result_type))
    return OperationError(kOp, absl::StrCat("the result type ", PrimitiveTypeString(result_type),
                                            " is not an array element type"));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  auto inferred = InferDotShape(ls, rs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  // Each operand dimension is at most one batch or contracting dimension.
  auto check_disjoint = [&](absl::Span<const int64_t> contracting, absl::Span<const int64_t> batch,
                            const Shape& s, absl::string_view side) {
    std::vector<int64_t> all(batch.begin(), batch.end());
    all.insert(all.end(), contracting.begin(), contracting.end());
    return CheckDimensionList(kOp, all, s.rank(),
                              absl::StrCat(side, " batch and contracting dimensions"));
  };
  HOPT_RETURN_IF_ERROR(check_disjoint(lhs_contracting, lhs_batch, ls, "lhs"));
  HOPT_RETURN_IF_ERROR(check_disjoint(rhs_contracting, rhs_batch, rs, "rhs"));

  Domain domain =
      std::max({DomainOf(ls.element_type()), DomainOf(rs.element_type()), DomainOf(result_type)});
  if (DomainOf(result_type) != domain)
    return OperationError(kOp, absl::StrCat("a ", PrimitiveTypeString(result_type),
                                            " result cannot"
                                            " hold the dot of ",
                                            ls.ToString(), " and ", rs.ToString()));
  Shape result(result_type, inferred->dimensions());
  HOPT_RETURN_IF_ERROR(CheckResultShape(kOp, result));
  return result;
}

// For each result dimension, and each contracting dimension, the steps it
// makes in the lhs and rhs element indices.
struct DotLoopSteps {
  std::vector<int64_t> out_lhs_step, out_rhs_step;      // per result dimension
  std::vector<int64_t> c_size, c_lhs_step, c_rhs_step;  // per contracting dimension
  int64_t contraction = 1;                              // elements summed per result element
};

DotLoopSteps DotStepsFor(const Shape& ls, const Shape& rs,
                         absl::Span<const int64_t> lhs_contracting,
                         absl::Span<const int64_t> rhs_contracting,
                         absl::Span<const int64_t> lhs_batch, absl::Span<const int64_t> rhs_batch) {
  DotLoopSteps steps;
  std::vector<int64_t> lhs_strides = RowMajorStrides(ls), rhs_strides = RowMajorStrides(rs);
  for (size_t k = 0; k < lhs_batch.size(); ++k) {
    steps.out_lhs_step.push_back(lhs_strides[lhs_batch[k]]);
    steps.out_rhs_step.push_back(rhs_strides[rhs_batch[k]]);
  }
  for (int64_t d = 0; d < ls.rank(); ++d)
    if (!ContainsValue(lhs_batch, d) && !ContainsValue(lhs_contracting, d)) {
      steps.out_lhs_step.push_back(lhs_strides[d]);
      steps.out_rhs_step.push_back(0);
    }
  for (int64_t d = 0; d < rs.rank(); ++d)
    if (!ContainsValue(rhs_batch, d) && !ContainsValue(rhs_contracting, d)) {
      steps.out_lhs_step.push_back(0);
      steps.out_rhs_step.push_back(rhs_strides[d]);
    }
  size_t nc = lhs_contracting.size();
  steps.c_size.resize(nc);
  steps.c_lhs_step.resize(nc);
  steps.c_rhs_step.resize(nc);
  for (size_t k = 0; k < nc; ++k) {
    steps.c_size[k] = ls.dimensions(lhs_contracting[k]);
    steps.c_lhs_step[k] = lhs_strides[lhs_contracting[k]];
    steps.c_rhs_step[k] = rhs_strides[rhs_contracting[k]];
    steps.contraction *= steps.c_size[k];  // bounded by the lhs's element count
  }
  return steps;
}

// The dot by the exact loop: each result element is the sum over the
// contracting dimensions, accumulated in `domain`.
Literal DotByLoop(const Literal& lhs, const Literal& rhs, absl::Span<const int64_t> lhs_contracting,
                  absl::Span<const int64_t> rhs_contracting, absl::Span<const int64_t> lhs_batch,
                  absl::Span<const int64_t> rhs_batch, const Shape& result, Domain domain) {
  // A local, not behind a pointer: the loop can keep the steps in registers.
  const DotLoopSteps steps =
      DotStepsFor(lhs.shape(), rhs.shape(), lhs_contracting, rhs_contracting, lhs_batch, rhs_batch);
  const std::vector<int64_t>& out_lhs_step = steps.out_lhs_step;
  const std::vector<int64_t>& out_rhs_step = steps.out_rhs_step;
  const std::vector<int64_t>& c_size = steps.c_size;
  const std::vector<int64_t>& c_lhs_step = steps.c_lhs_step;
  const std::vector<int64_t>& c_rhs_step = steps.c_rhs_step;
  const int64_t contraction = steps.contraction;
  size_t nc = lhs_contracting.size();

  Literal out(result);
  int64_t count = out.element_count();
  int64_t rank = result.rank();
  std::vector<int64_t> out_index(rank, 0), c_index(nc, 0);
  int64_t lhs_base = 0, rhs_base = 0;
  for (int64_t o = 0; o < count; ++o) {
    double real_sum = 0;
    std::complex<double> complex_sum = 0;
    uint64_t int_sum = 0;
    int64_t l = lhs_base, r = rhs_base;
    std::fill(c_index.begin(), c_index.end(), 0);
    for (int64_t c = 0; c < contraction; ++c) {
      switch (domain) {
        case Domain::kInteger:
          int_sum +=
              static_cast<uint64_t>(lhs.GetAsInt64(l)) * static_cast<uint64_t>(rhs.GetAsInt64(r));
          break;
        case Domain::kReal: real_sum += lhs.GetAsDouble(l) * rhs.GetAsDouble(r); break;
        case Domain::kComplex: complex_sum += lhs.GetAsComplex(l) * rhs.GetAsComplex(r); break;
      }
      for (int64_t k = static_cast<int64_t>(nc) - 1; k >= 0; --k) {
        l += c_lhs_step[k];
        r += c_rhs_step[k];
        if (++c_index[k] < c_size[k]) break;
        l -= c_lhs_step[k] * c_index[k];
        r -= c_rhs_step[k] * c_index[k];
        c_index[k] = 0;
      }
    }
    switch (domain) {
      case Domain::kInteger: out.SetFromInt64(o, static_cast<int64_t>(int_sum)); break;
      case Domain::kReal: out.SetFromDouble(o, real_sum); break;
      case Domain::kComplex: out.SetFromComplex(o, complex_sum); break;
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      lhs_base += out_lhs_step[d];
      rhs_base += out_rhs_step[d];
      if (++out_index[d] < result.dimensions(d)) break;
      lhs_base -= out_lhs_step[d] * out_index[d];
      rhs_base -= out_rhs_step[d] * out_index[d];
      out_index[d] = 0;
    }
  }
  return out;
}

absl::StatusOr<Literal> DotImpl(const Literal& lhs, const Literal& rhs,
                                absl::Span<const int64_t> lhs_contracting,
                                absl::Span<const int64_t> rhs_contracting,
                                absl::Span<const int64_t> lhs_batch,
                                absl::Span<const int64_t> rhs_batch, PrimitiveType result_type,
                                bool reference) {
  HOPT_ASSIGN_OR_RETURN(Shape result, CheckedDotResult(lhs, rhs, lhs_contracting, rhs_contracting,
                                                       lhs_batch, rhs_batch, result_type));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (!reference) {
    PrimitiveType gemm = GemmType(ls.element_type(), rs.element_type(), result_type);
    // BLAS takes int sizes; the result's size bounds m and n already.
    int64_t k = 1;
    for (int64_t d : lhs_contracting) k *= ls.dimensions(d);
    if (gemm != PrimitiveType::INVALID) {
      HOPT_RETURN_IF_ERROR(GemmAvailable());
    }
    if (gemm == PrimitiveType::F32 && k <= INT_MAX)
      return DotOnGemm<float>(lhs, rhs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch,
                              result);
    if (gemm == PrimitiveType::F64 && k <= INT_MAX)
      return DotOnGemm<double>(lhs, rhs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch,
                               result);
  }

  Domain domain =
      std::max({DomainOf(ls.element_type()), DomainOf(rs.element_type()), DomainOf(result_type)});
  return DotByLoop(lhs, rhs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch, result,
                   domain);
}

}  // namespace

absl::StatusOr<Literal> Dot(const Literal& lhs, const Literal& rhs,
                            absl::Span<const int64_t> lhs_contracting,
                            absl::Span<const int64_t> rhs_contracting,
                            absl::Span<const int64_t> lhs_batch,
                            absl::Span<const int64_t> rhs_batch, PrimitiveType result_type) {
  return DotImpl(lhs, rhs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch, result_type,
                 /*reference=*/false);
}

absl::StatusOr<Literal> DotReference(const Literal& lhs, const Literal& rhs,
                                     absl::Span<const int64_t> lhs_contracting,
                                     absl::Span<const int64_t> rhs_contracting,
                                     absl::Span<const int64_t> lhs_batch,
                                     absl::Span<const int64_t> rhs_batch,
                                     PrimitiveType result_type) {
  return DotImpl(lhs, rhs, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch, result_type,
                 /*reference=*/true);
}

namespace {

// Inputs and init values present, arrays of known values, and dimensions
// that reduce them.
absl::Status CheckReduceArguments(absl::Span<const Literal* const> inputs,
                                  absl::Span<const Literal* const> inits,
                                  absl::Span<const int64_t> dimensions,
                                  const ScalarCombiner& combine) {
  constexpr absl::string_view kOp = "reduce";
  if (inputs.empty()) return OperationError(kOp, "needs at least one input");
  if (inputs.size() != inits.size())
    return OperationError(
        kOp, absl::StrCat("has ", inputs.size(), " inputs but ", inits.size(), " init values"));
  if (!combine) return OperationError(kOp, "has no combiner");
  size_t n = inputs.size();
  std::vector<const Shape*> shapes;
  for (size_t k = 0; k < n; ++k) {
    if (inputs[k] == nullptr) return OperationError(kOp, absl::StrCat("input ", k, " is null"));
    HOPT_RETURN_IF_ERROR(CheckOperand(kOp, *inputs[k], absl::StrCat("input ", k)));
    shapes.push_back(&inputs[k]->shape());
  }
  for (size_t k = 0; k < n; ++k) {
    if (inits[k] == nullptr) return OperationError(kOp, absl::StrCat("init value ", k, " is null"));
    HOPT_RETURN_IF_ERROR(CheckOperand(kOp, *inits[k], absl::StrCat("init value ", k)));
    shapes.push_back(&inits[k]->shape());
  }
  auto inferred = InferReduceShape(shapes, dimensions);
  if (!inferred.ok()) return InOperation(kOp, inferred.status());
  return CheckDimensionList(kOp, dimensions, inputs[0]->shape().rank(), "dimensions");
}

// The input's dimensions split into the kept ones, in order, and the
// reduced ones, in increasing order, with their steps in the input.
struct ReducedDimensions {
  DimensionVector kept_dims;
  std::vector<int64_t> kept_steps, reduced_sizes, reduced_steps;
  int64_t reduced_count = 1;
};

ReducedDimensions SplitReducedDimensions(const Shape& input_shape,
                                         absl::Span<const int64_t> dimensions) {
  ReducedDimensions split;
  std::vector<int64_t> strides = RowMajorStrides(input_shape);
  for (int64_t d = 0; d < input_shape.rank(); ++d) {
    if (ContainsValue(dimensions, d)) {
      split.reduced_sizes.push_back(input_shape.dimensions(d));
      split.reduced_steps.push_back(strides[d]);
      split.reduced_count *= input_shape.dimensions(d);
    } else {
      split.kept_dims.push_back(input_shape.dimensions(d));
      split.kept_steps.push_back(strides[d]);
    }
  }
  return split;
}

// Folds the inputs into `results` (made, of the kept dimensions): for each
// result element, the init values combined with every reduced element in
// row-major order.
absl::Status FoldReduce(absl::Span<const Literal* const> inputs,
                        absl::Span<const Literal* const> inits, const ReducedDimensions& split,
                        const ScalarCombiner& combine, const ElementCombiner* element_combiner,
                        std::vector<Literal>* results) {
  constexpr absl::string_view kOp = "reduce";
  size_t n = inputs.size();
  const Shape& out_shape = (*results)[0].shape();
  int64_t count = (*results)[0].element_count();
  int64_t out_rank = out_shape.rank();
  int64_t nr = static_cast<int64_t>(split.reduced_sizes.size());

  // args: the N accumulators, then the N current elements.
  std::vector<Literal> args;
  for (size_t k = 0; k < n; ++k) args.push_back(ElementAt(*inits[k], 0));
  for (size_t k = 0; k < n; ++k) args.emplace_back(Shape(inputs[k]->shape().element_type(), {}));
  std::vector<int64_t> out_index(out_rank, 0), r_index(nr, 0);
  int64_t base = 0;
  // One step of the fold at input element `at`: args[0..n) accumulate.
  auto combine_at = [&](int64_t at) -> absl::Status {
    for (size_t k = 0; k < n; ++k) args[n + k].CopyElementFrom(*inputs[k], at, 0);
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> combined, combine(args));
    if (combined.size() != n)
      return OperationError(
          kOp, absl::StrCat("the combiner returned ", combined.size(), " values, expected ", n));
    for (size_t k = 0; k < n; ++k) {
      const Shape& got = combined[k].shape();
      if (!got.IsScalar() || got.element_type() != args[k].shape().element_type() ||
          combined[k].element_count() != 1)
        return OperationError(
            kOp, absl::StrCat("the combiner's result ", k, " is ", got.ToString(), ", expected a ",
                              PrimitiveTypeString(args[k].shape().element_type()), " scalar"));
      args[k].CopyElementFrom(combined[k], 0, 0);
    }
    return absl::OkStatus();
  };
  // The fast path accumulates in the result element itself.
  const bool fast = element_combiner != nullptr && n == 1;
  Literal& first_result = (*results)[0];
  for (int64_t o = 0; o < count; ++o) {
    if (fast) {
      first_result.CopyElementFrom(*inits[0], 0, o);
    } else {
      for (size_t k = 0; k < n; ++k) args[k].CopyElementFrom(*inits[k], 0, 0);
    }
    int64_t at = base;
    std::fill(r_index.begin(), r_index.end(), 0);
    for (int64_t j = 0; j < split.reduced_count; ++j) {
      if (fast) {
        (*element_combiner)(first_result, o, *inputs[0], at);
      } else {
        HOPT_RETURN_IF_ERROR(combine_at(at));
      }
      for (int64_t d = nr - 1; d >= 0; --d) {
        at += split.reduced_steps[d];
        if (++r_index[d] < split.reduced_sizes[d]) break;
        at -= split.reduced_steps[d] * r_index[d];
        r_index[d] = 0;
      }
    }
    if (!fast)
      for (size_t k = 0; k < n; ++k) (*results)[k].CopyElementFrom(args[k], 0, o);
    for (int64_t d = out_rank - 1; d >= 0; --d) {
      base += split.kept_steps[d];
      if (++out_index[d] < out_shape.dimensions(d)) break;
      base -= split.kept_steps[d] * out_index[d];
      out_index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Literal>> Reduce(absl::Span<const Literal* const> inputs,
                                            absl::Span<const Literal* const> inits,
                                            absl::Span<const int64_t> dimensions,
                                            const ScalarCombiner& combine,
                                            const ElementCombiner* element_combiner) {
  HOPT_RETURN_IF_ERROR(CheckReduceArguments(inputs, inits, dimensions, combine));
  const ReducedDimensions split = SplitReducedDimensions(inputs[0]->shape(), dimensions);
  std::vector<Literal> results;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Shape shape(inputs[k]->shape().element_type(), split.kept_dims);
    HOPT_RETURN_IF_ERROR(CheckResultShape("reduce", shape));
    results.emplace_back(shape);
  }
  HOPT_RETURN_IF_ERROR(FoldReduce(inputs, inits, split, combine, element_combiner, &results));
  return results;
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// ragged-dot and scaled-dot as array functions (declared in sort_ops.h).
// Both reduce to the interpreter's Dot: ragged-dot runs one dot per group
// and keeps, of each, the elements that group owns; scaled-dot multiplies
// the scales in and runs one dot. The definitions are XLA's (docs/interpreter-semantics.md,
// "Sort, top-k, ragged-dot and scaled-dot", names the sources).

#include <algorithm>
#include <complex>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/eval/ops.h"
#include "core/eval/sort_ops.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

constexpr absl::string_view kRaggedDot = "ragged-dot";
constexpr absl::string_view kScaledDot = "scaled-dot";

absl::Status CheckDimensionsInRange(absl::string_view op, absl::Span<const int64_t> dims,
                                    int64_t rank, absl::string_view what) {
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return OperationError(
          op, absl::StrCat(what, "=", DimsText(dims), " is out of range for rank ", rank));
  return absl::OkStatus();
}

absl::StatusOr<Literal> DotOf(absl::string_view op, const Literal& lhs, const Literal& rhs,
                              const DotDimensions& dims, PrimitiveType result_type) {
  auto product = Dot(lhs, rhs, dims.lhs_contracting, dims.rhs_contracting, dims.lhs_batch,
                     dims.rhs_batch, result_type);
  if (!product.ok()) return InOperation(op, product.status());
  return product;
}

// out[o] += addend[o] in out's element type (integers wrap).
void AddElement(const Literal& addend, int64_t o, Literal* out) {
  const PrimitiveType type = out->shape().element_type();
  if (IsComplexType(type)) {
    out->SetFromComplex(o, out->GetAsComplex(o) + addend.GetAsComplex(o));
  } else if (IsFloatingPointType(type)) {
    out->SetFromDouble(o, out->GetAsDouble(o) + addend.GetAsDouble(o));
  } else {
    out->SetFromInt64(o, static_cast<int64_t>(static_cast<uint64_t>(out->GetAsInt64(o)) +
                                              static_cast<uint64_t>(addend.GetAsInt64(o))));
  }
}

enum class RaggedMode { kNonContracting, kContracting, kBatch };

// Where each group begins and ends along the ragged dimension, for each
// index of the group sizes' leading ("prefix") dimensions.
class GroupBounds {
 public:
  // `group_sizes` is [g] (the same bounds everywhere) or [prefix..., g].
  explicit GroupBounds(const Literal& group_sizes) {
    const Shape& shape = group_sizes.shape();
    groups_ = shape.dimensions(shape.rank() - 1);
    const int64_t rows = groups_ == 0 ? 0 : shape.ElementCount() / groups_;
    begin_.resize(shape.ElementCount());
    end_.resize(shape.ElementCount());
    for (int64_t row = 0; row < rows; ++row) {
      uint64_t at = 0;  // in 64 bits; XLA sums in the sizes' type
      for (int64_t g = 0; g < groups_; ++g) {
        const int64_t k = row * groups_ + g;
        begin_[k] = static_cast<int64_t>(at);
        at += static_cast<uint64_t>(group_sizes.GetAsInt64(k));
        end_[k] = static_cast<int64_t>(at);
      }
    }
  }

  int64_t groups() const { return groups_; }
  // Whether `position` of the ragged dimension is in group g, at prefix row
  // `row` (0 for [g]).
  bool Owns(int64_t row, int64_t g, int64_t position) const {
    const int64_t k = row * groups_ + g;
    return begin_[k] <= position && position < end_[k];
  }

 private:
  int64_t groups_ = 0;
  std::vector<int64_t> begin_, end_;
};

// For each element of an array: its index along the ragged dimension and
// the row of the group sizes that holds its bounds.
struct RaggedCoordinates {
  std::vector<int64_t> position, row;
};

// `prefix_axes`: the array's axes that index the group sizes' prefix
// dimensions (empty when group_sizes is [g]), sized `prefix_sizes`.
RaggedCoordinates CoordinatesOf(const Shape& shape, int64_t ragged_axis,
                                absl::Span<const int64_t> prefix_axes,
                                absl::Span<const int64_t> prefix_sizes) {
  RaggedCoordinates c;
  const int64_t count = shape.ElementCount();
  c.position.resize(count);
  c.row.resize(count);
  std::vector<int64_t> index;
  for (int64_t e = 0; e < count; ++e) {
    MultiIndex(shape, e, &index);
    c.position[e] = index[ragged_axis];
    int64_t row = 0;
    for (size_t j = 0; j < prefix_axes.size(); ++j)
      row = row * prefix_sizes[j] + index[prefix_axes[j]];
    c.row[e] = row;
  }
  return c;
}

// `operand` with the elements group g does not own set to zero.
Literal OwnedByGroup(const Literal& operand, const RaggedCoordinates& c, const GroupBounds& bounds,
                     int64_t g) {
  Literal owned(operand.shape());
  for (int64_t e = 0; e < operand.element_count(); ++e)
    if (bounds.Owns(c.row[e], g, c.position[e])) owned.CopyElementFrom(operand, e, e);
  return owned;
}

// The rhs's group g, without the group dimension.
absl::StatusOr<Literal> RhsGroup(const Literal& rhs, int64_t group_axis, int64_t g) {
  const Shape& shape = rhs.shape();
  std::vector<int64_t> starts(shape.rank(), 0), strides(shape.rank(), 1);
  std::vector<int64_t> limits(shape.dimensions().begin(), shape.dimensions().end());
  starts[group_axis] = g;
  limits[group_axis] = g + 1;
  HOPT_ASSIGN_OR_RETURN(Literal slice, Slice(rhs, starts, limits, strides));
  DimensionVector dims = shape.dimensions();
  dims.erase(dims.begin() + group_axis);
  return Reshape(slice, Shape(shape.element_type(), dims));
}

// Ragged non-contracting: each lhs row (index along the ragged dimension)
// takes the product with the rhs group that owns it; rows no group owns
// are zeros, rows several groups own (negative sizes) their sum.
absl::StatusOr<Literal> RaggedNonContracting(const Literal& lhs, const Literal& rhs,
                                             const GroupBounds& bounds,
                                             absl::Span<const int64_t> prefix_axes,
                                             absl::Span<const int64_t> prefix_sizes,
                                             const RaggedDotDimensions& dims,
                                             PrimitiveType result_type) {
  const int64_t group_axis = dims.rhs_group[0];
  DotDimensions per_group = dims.dot;
  for (std::vector<int64_t>* list : {&per_group.rhs_contracting, &per_group.rhs_batch})
    for (int64_t& d : *list)
      if (d > group_axis) --d;
  // The dot's result puts the batch dimensions first (in the order listed),
  // then the lhs's others in order: where each lhs axis lands.
  const int64_t lhs_rank = lhs.shape().rank();
  std::vector<int64_t> result_axis(lhs_rank, -1);
  int64_t next = 0;
  for (int64_t d : dims.dot.lhs_batch) result_axis[d] = next++;
  for (int64_t d = 0; d < lhs_rank; ++d)
    if (!ContainsValue(dims.dot.lhs_batch, d) && !ContainsValue(dims.dot.lhs_contracting, d))
      result_axis[d] = next++;
  std::vector<int64_t> result_prefix_axes;
  for (int64_t d : prefix_axes) result_prefix_axes.push_back(result_axis[d]);

  if (bounds.groups() == 0) {
    // No group owns a row: zeros, of the shape the dot gives.
    DimensionVector group_dims = rhs.shape().dimensions();
    group_dims.erase(group_dims.begin() + group_axis);
    Literal no_group(Shape(rhs.shape().element_type(), group_dims));
    HOPT_ASSIGN_OR_RETURN(Literal product,
                          DotOf(kRaggedDot, lhs, no_group, per_group, result_type));
    return Literal(product.shape());
  }
  std::optional<Literal> result;
  std::vector<bool> owned;
  RaggedCoordinates c;
  for (int64_t g = 0; g < bounds.groups(); ++g) {
    HOPT_ASSIGN_OR_RETURN(Literal rhs_g, RhsGroup(rhs, group_axis, g));
    HOPT_ASSIGN_OR_RETURN(Literal product, DotOf(kRaggedDot, lhs, rhs_g, per_group, result_type));
    if (!result) {
      result.emplace(product.shape());
      owned.assign(product.element_count(), false);
      c = CoordinatesOf(product.shape(), result_axis[dims.lhs_ragged[0]], result_prefix_axes,
                        prefix_sizes);
    }
    for (int64_t o = 0; o < product.element_count(); ++o) {
      if (!bounds.Owns(c.row[o], g, c.position[o])) continue;
      // The first owner's value as it is (a -0 stays -0).
      if (owned[o]) {
        AddElement(product, o, &*result);
      } else {
        result->CopyElementFrom(product, o, o);
        owned[o] = true;
      }
    }
  }
  return *std::move(result);
}

// Ragged contracting: result [g] is the dot over the contracting indices
// group g owns, both operands' other elements zeroed as XLA's lowering
// does.
absl::StatusOr<Literal> RaggedContracting(const Literal& lhs, const Literal& rhs,
                                          const GroupBounds& bounds,
                                          absl::Span<const int64_t> lhs_prefix_axes,
                                          absl::Span<const int64_t> prefix_sizes,
                                          const RaggedDotDimensions& dims,
                                          PrimitiveType result_type) {
  const int64_t ragged = dims.lhs_ragged[0];
  const int64_t position = PositionOf(dims.dot.lhs_contracting, ragged);
  const int64_t rhs_ragged = dims.dot.rhs_contracting[position];
  // The rhs's axes matching the lhs's prefix axes (batch dimensions, then
  // contracting dimensions listed before the ragged one).
  std::vector<int64_t> rhs_prefix_axes;
  for (int64_t d : lhs_prefix_axes) {
    if (ContainsValue(dims.dot.lhs_batch, d))
      rhs_prefix_axes.push_back(dims.dot.rhs_batch[PositionOf(dims.dot.lhs_batch, d)]);
    else
      rhs_prefix_axes.push_back(dims.dot.rhs_contracting[PositionOf(dims.dot.lhs_contracting, d)]);
  }
  // The plain dot checks the dimension numbers and gives the shape of each
  // group's part.
  if (bounds.groups() == 0) {
    HOPT_ASSIGN_OR_RETURN(Literal product, DotOf(kRaggedDot, lhs, rhs, dims.dot, result_type));
    DimensionVector result_dims = product.shape().dimensions();
    result_dims.insert(result_dims.begin(), 0);
    return Literal(Shape(result_type, result_dims));
  }
  const RaggedCoordinates lhs_c = CoordinatesOf(lhs.shape(), ragged, lhs_prefix_axes, prefix_sizes);
  const RaggedCoordinates rhs_c =
      CoordinatesOf(rhs.shape(), rhs_ragged, rhs_prefix_axes, prefix_sizes);
  std::optional<Literal> result;
  for (int64_t g = 0; g < bounds.groups(); ++g) {
    HOPT_ASSIGN_OR_RETURN(Literal product,
                          DotOf(kRaggedDot, OwnedByGroup(lhs, lhs_c, bounds, g),
                                OwnedByGroup(rhs, rhs_c, bounds, g), dims.dot, result_type));
    if (!result) {
      DimensionVector result_dims = product.shape().dimensions();
      result_dims.insert(result_dims.begin(), bounds.groups());
      result.emplace(Shape(result_type, result_dims));
    }
    const int64_t part = product.element_count();
    for (int64_t o = 0; o < part; ++o) result->CopyElementFrom(product, o, g * part + o);
  }
  return *std::move(result);
}

}  // namespace

absl::StatusOr<Literal> RaggedDot(const Literal& lhs, const Literal& rhs,
                                  const Literal& group_sizes, const RaggedDotDimensions& dims,
                                  PrimitiveType result_type) {
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kRaggedDot, lhs, "lhs"));
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kRaggedDot, rhs, "rhs"));
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kRaggedDot, group_sizes, "group_sizes"));
  const int64_t lhs_rank = lhs.shape().rank(), rhs_rank = rhs.shape().rank();
  HOPT_RETURN_IF_ERROR(CheckDimensionsInRange(kRaggedDot, dims.dot.lhs_contracting, lhs_rank,
                                              "lhs_contracting_dims"));
  HOPT_RETURN_IF_ERROR(CheckDimensionsInRange(kRaggedDot, dims.dot.rhs_contracting, rhs_rank,
                                              "rhs_contracting_dims"));
  HOPT_RETURN_IF_ERROR(
      CheckDimensionsInRange(kRaggedDot, dims.dot.lhs_batch, lhs_rank, "lhs_batch_dims"));
  HOPT_RETURN_IF_ERROR(
      CheckDimensionsInRange(kRaggedDot, dims.dot.rhs_batch, rhs_rank, "rhs_batch_dims"));
  HOPT_RETURN_IF_ERROR(
      CheckDimensionsInRange(kRaggedDot, dims.rhs_group, rhs_rank, "rhs_group_dims"));
  if (dims.lhs_ragged.size() != 1)
    return OperationError(kRaggedDot, absl::StrCat("needs exactly one lhs ragged dimension, got ",
                                                   "lhs_ragged_dims=", DimsText(dims.lhs_ragged)));
  HOPT_RETURN_IF_ERROR(
      CheckDimensionsInRange(kRaggedDot, dims.lhs_ragged, lhs_rank, "lhs_ragged_dims"));
  if (dims.dot.lhs_contracting.size() != dims.dot.rhs_contracting.size() ||
      dims.dot.lhs_batch.size() != dims.dot.rhs_batch.size())
    return OperationError(kRaggedDot,
                          "the lhs and rhs have different numbers of contracting or "
                          "batch dimensions");
  const PrimitiveType size_type = group_sizes.shape().element_type();
  if (!IsIntegralType(size_type))
    return OperationError(kRaggedDot, absl::StrCat("group_sizes must be integers, got ",
                                                   group_sizes.shape().ToString()));
  if (group_sizes.shape().rank() == 0)
    return OperationError(kRaggedDot, "group_sizes must have a group dimension");

  const int64_t ragged = dims.lhs_ragged[0];
  RaggedMode mode = RaggedMode::kNonContracting;
  if (ContainsValue(dims.dot.lhs_batch, ragged))
    mode = RaggedMode::kBatch;
  else if (ContainsValue(dims.dot.lhs_contracting, ragged))
    mode = RaggedMode::kContracting;

  // The lhs axes group_sizes' leading dimensions run over: the batch
  // dimensions (in ragged batch mode, those listed before the ragged one),
  // then the contracting dimensions listed before the ragged one (ragged
  // contracting) or the free dimensions before it (ragged non-contracting).
  const auto& batch = dims.dot.lhs_batch;
  std::vector<int64_t> prefix_axes(batch.begin(), batch.end());
  switch (mode) {
    case RaggedMode::kBatch: prefix_axes.resize(PositionOf(batch, ragged)); break;
    case RaggedMode::kContracting: {
      const auto& contracting = dims.dot.lhs_contracting;
      prefix_axes.insert(prefix_axes.end(), contracting.begin(),
                         contracting.begin() + PositionOf(contracting, ragged));
      break;
    }
    case RaggedMode::kNonContracting:
      for (int64_t d = 0; d < ragged; ++d)
        if (!ContainsValue(batch, d) && !ContainsValue(dims.dot.lhs_contracting, d))
          prefix_axes.push_back(d);
      break;
  }
  std::vector<int64_t> prefix_sizes;
  for (int64_t d : prefix_axes) prefix_sizes.push_back(lhs.shape().dimensions(d));
  const Shape& sizes_shape = group_sizes.shape();
  if (sizes_shape.rank() == 1) {
    // [g] stands for the same sizes at every prefix index.
    prefix_axes.clear();
    prefix_sizes.clear();
  } else if (sizes_shape.rank() != static_cast<int64_t>(prefix_sizes.size()) + 1 ||
             !std::equal(prefix_sizes.begin(), prefix_sizes.end(),
                         sizes_shape.dimensions().begin())) {
    DimensionVector want(prefix_sizes.begin(), prefix_sizes.end());
    want.push_back(sizes_shape.dimensions(sizes_shape.rank() - 1));
    return OperationError(
        kRaggedDot, absl::StrCat("group_sizes ", sizes_shape.ToString(false), " must be [g] or ",
                                 DimsText(want), " for these dimensions"));
  }
  const GroupBounds bounds(group_sizes);

  if (mode != RaggedMode::kNonContracting) {
    if (!dims.rhs_group.empty())
      return OperationError(kRaggedDot,
                            "the rhs has no group dimension when the lhs ragged "
                            "dimension is a batch or contracting one");
  } else {
    if (dims.rhs_group.size() != 1)
      return OperationError(kRaggedDot,
                            "the rhs needs exactly one group dimension when the lhs "
                            "ragged dimension is a non-contracting one");
    const int64_t group_axis = dims.rhs_group[0];
    if (ContainsValue(dims.dot.rhs_batch, group_axis) ||
        ContainsValue(dims.dot.rhs_contracting, group_axis))
      return OperationError(kRaggedDot,
                            "the rhs group dimension is also a batch or contracting one");
    if (rhs.shape().dimensions(group_axis) != bounds.groups())
      return OperationError(
          kRaggedDot,
          absl::StrCat("the rhs group dimension has size ", rhs.shape().dimensions(group_axis),
                       ", group_sizes has ", bounds.groups(), " groups"));
  }
  switch (mode) {
    case RaggedMode::kBatch:
      // XLA's lowering runs the plain dot: the sizes select nothing.
      return DotOf(kRaggedDot, lhs, rhs, dims.dot, result_type);
    case RaggedMode::kContracting:
      return RaggedContracting(lhs, rhs, bounds, prefix_axes, prefix_sizes, dims, result_type);
    case RaggedMode::kNonContracting:
      return RaggedNonContracting(lhs, rhs, bounds, prefix_axes, prefix_sizes, dims, result_type);
  }
  return absl::InternalError("unknown ragged-dot mode");
}

PrimitiveType ScaledDotComputeType(PrimitiveType a, PrimitiveType b) {
  const int width_a = PrimitiveTypeBitWidth(a), width_b = PrimitiveTypeBitWidth(b);
  if (width_a < 16 && width_b < 16) return PrimitiveType::BF16;
  if (a == b) return a;
  if (width_a == width_b) return PrimitiveType::F32;
  return width_a > width_b ? a : b;
}

namespace {

bool IsRealType(PrimitiveType type) { return IsFloatingPointType(type) || IsIntegralType(type); }

// operand * scale, the scale's element broadcast over its block, in the
// type ScaledDotComputeType gives.
absl::StatusOr<Literal> Dequantize(const Literal& operand, const Literal& scale,
                                   absl::string_view side) {
  const Shape& op_shape = operand.shape();
  const Shape& scale_shape = scale.shape();
  for (const Literal* x : {&operand, &scale})
    if (!IsRealType(x->shape().element_type()))
      return OperationError(kScaledDot, absl::StrCat(side, " ", x->shape().ToString(false),
                                                     ": operands and scales must be integers or "
                                                     "floating point"));
  // XLA's lowering leaves an operand with a rank-0 scale unscaled.
  if (scale_shape.rank() == 0) return operand;
  if (scale_shape.rank() != op_shape.rank())
    return OperationError(
        kScaledDot, absl::StrCat(side, " scale ", scale_shape.ToString(false), " and operand ",
                                 op_shape.ToString(false), " differ in rank"));
  std::vector<int64_t> block(op_shape.rank());
  for (int64_t d = 0; d < op_shape.rank(); ++d) {
    const int64_t size = op_shape.dimensions(d), scales = scale_shape.dimensions(d);
    if (scales == 0 ? size != 0 : size % scales != 0)
      return OperationError(
          kScaledDot,
          absl::StrCat(side, " scale ", scale_shape.ToString(false), " does not divide operand ",
                       op_shape.ToString(false), " in dimension ", d));
    block[d] = scales == 0 ? 1 : size / scales;
  }
  const PrimitiveType type =
      ScaledDotComputeType(op_shape.element_type(), scale_shape.element_type());
  HOPT_ASSIGN_OR_RETURN(Literal converted, Convert(operand, type));
  HOPT_ASSIGN_OR_RETURN(Literal scale_converted, Convert(scale, type));
  Literal expanded(converted.shape());
  std::vector<int64_t> index, scale_index(op_shape.rank());
  for (int64_t e = 0; e < expanded.element_count(); ++e) {
    MultiIndex(op_shape, e, &index);
    for (int64_t d = 0; d < op_shape.rank(); ++d) scale_index[d] = index[d] / block[d];
    expanded.CopyElementFrom(scale_converted, LinearIndex(scale_shape, scale_index), e);
  }
  auto product = Binary(HloOpcode::kMultiply, converted, expanded);
  if (!product.ok()) return InOperation(kScaledDot, product.status());
  return product;
}

}  // namespace

absl::StatusOr<Literal> ScaledDot(const Literal& lhs, const Literal& rhs, const Literal& lhs_scale,
                                  const Literal& rhs_scale, const DotDimensions& dims,
                                  PrimitiveType result_type) {
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kScaledDot, lhs, "lhs"));
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kScaledDot, rhs, "rhs"));
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kScaledDot, lhs_scale, "lhs_scale"));
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kScaledDot, rhs_scale, "rhs_scale"));
  HOPT_ASSIGN_OR_RETURN(Literal lhs_scaled, Dequantize(lhs, lhs_scale, "lhs"));
  HOPT_ASSIGN_OR_RETURN(Literal rhs_scaled, Dequantize(rhs, rhs_scale, "rhs"));
  return DotOf(kScaledDot, lhs_scaled, rhs_scaled, dims, result_type);
}

}  // namespace eval
}  // namespace hopt

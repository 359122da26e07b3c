// SPDX-License-Identifier: Apache-2.0

#include "core/eval/sort_ops.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ops.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

// The interpreter's sort, topk, ragged-dot and scaled-dot (docs/interpreter-semantics.md,
// "Sort, top-k, ragged-dot and scaled-dot"). The ragged and scaled dots' array functions are in
// ragged_dot.cc.

namespace hopt {
namespace eval {
namespace {

// Ranges at least this long are sorted by merging their halves, shorter
// ones by binary insertion (XLA's evaluator's threshold).
constexpr int64_t kMergeLength = 9;

// Flipping the sign bit makes the order of signed integers that of their
// unsigned images.
constexpr uint64_t kSignBit = uint64_t{1} << 63;

// An integer whose signed order is the IEEE total order of doubles (which
// keeps the total order of every narrower float type: widening is exact and
// monotonic, signs and NaN payload order included).
int64_t TotalOrderBits(double x) {
  int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

}  // namespace

absl::Status CheckKnownArray(absl::string_view op, const Literal& literal, absl::string_view what) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat(what, " must be an array, got ", shape.ToString()));
  if (literal.is_elided())
    return OperationError(
        op, absl::StrCat(what, " ", shape.ToString(), " has elided (unknown) values"));
  for (int64_t d : shape.dimensions())
    if (d < 0)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has an unbounded dimension"));
  return absl::OkStatus();
}

namespace {

// Sorts order[low, high): halves sorted on their own then merged, ranges
// shorter than kMergeLength by binary insertion. The same comparisons in
// the same places as XLA's HloEvaluator makes them, so a comparator that is
// no strict weak order gives the permutation XLA's evaluator gives.
absl::Status SortRange(SortLess less, int64_t low, int64_t high, std::vector<int64_t>& order,
                       std::vector<int64_t>& merged) {
  if (high - low < 2) return absl::OkStatus();
  if (high - low < kMergeLength) {
    for (int64_t i = low + 1; i < high; ++i) {
      // After every element the moving one is not less than.
      const int64_t moving = order[i];
      int64_t first = low, count = i - low;
      while (count > 0) {
        const int64_t half = count / 2, probe = first + half;
        HOPT_ASSIGN_OR_RETURN(bool before, less(moving, order[probe]));
        if (before) {
          count = half;
        } else {
          first = probe + 1;
          count -= half + 1;
        }
      }
      std::rotate(order.begin() + first, order.begin() + i, order.begin() + i + 1);
    }
    return absl::OkStatus();
  }
  const int64_t middle = low + (high - low) / 2;
  HOPT_RETURN_IF_ERROR(SortRange(less, middle, high, order, merged));
  HOPT_RETURN_IF_ERROR(SortRange(less, low, middle, order, merged));
  merged.clear();
  int64_t left = low, right = middle;
  while (left < middle && right < high) {
    // Equal elements keep the left half's first: the sort is stable.
    HOPT_ASSIGN_OR_RETURN(bool right_first, less(order[right], order[left]));
    merged.push_back(right_first ? order[right++] : order[left++]);
  }
  merged.insert(merged.end(), order.begin() + left, order.begin() + middle);
  merged.insert(merged.end(), order.begin() + right, order.begin() + high);
  std::copy(merged.begin(), merged.end(), order.begin() + low);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> StableSortOrder(int64_t n, SortLess less) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::vector<int64_t> merged;
  merged.reserve(order.size());
  HOPT_RETURN_IF_ERROR(SortRange(less, 0, n, order, merged));
  return order;
}

absl::StatusOr<std::vector<Literal>> Sort(absl::Span<const Literal* const> operands,
                                          int64_t dimension, SortLess less) {
  constexpr absl::string_view kOp = "sort";
  if (operands.empty()) return OperationError(kOp, "needs at least one operand");
  for (size_t k = 0; k < operands.size(); ++k) {
    HOPT_RETURN_IF_ERROR(CheckKnownArray(kOp, *operands[k], absl::StrCat("operand ", k)));
    if (operands[k]->shape().dimensions() != operands[0]->shape().dimensions())
      return OperationError(kOp, absl::StrCat("operand ", k, " ", operands[k]->shape().ToString(),
                                              " differs in dimensions from operand 0 ",
                                              operands[0]->shape().ToString()));
  }
  const Shape& shape = operands[0]->shape();
  if (dimension < 0 || dimension >= shape.rank())
    return OperationError(
        kOp, absl::StrCat("dimension ", dimension, " is out of range for ", shape.ToString()));
  std::vector<Literal> results;
  for (const Literal* operand : operands) results.emplace_back(operand->shape());
  const int64_t n = shape.dimensions(dimension);
  int64_t stride = 1;
  for (int64_t d = dimension + 1; d < shape.rank(); ++d) stride *= shape.dimensions(d);
  const int64_t count = shape.ElementCount();
  if (count == 0) return results;
  const int64_t lines_outer = count / (n * stride);
  for (int64_t outer = 0; outer < lines_outer; ++outer) {
    for (int64_t inner = 0; inner < stride; ++inner) {
      const int64_t base = outer * n * stride + inner;
      HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> order,
                            StableSortOrder(n, [&](int64_t a, int64_t b) {
                              return less(base + a * stride, base + b * stride);
                            }));
      for (size_t k = 0; k < operands.size(); ++k)
        for (int64_t j = 0; j < n; ++j)
          results[k].CopyElementFrom(*operands[k], base + order[j] * stride, base + j * stride);
    }
  }
  return results;
}

absl::StatusOr<std::vector<uint64_t>> TotalOrderKeys(const Literal& x) {
  const PrimitiveType type = x.shape().element_type();
  std::vector<uint64_t> keys(static_cast<size_t>(x.element_count()));
  if (IsComplexType(type))
    return absl::InvalidArgumentError(
        absl::StrCat("complex values (", x.shape().ToString(), ") have no order"));
  if (IsFloatingPointType(type)) {
    for (size_t i = 0; i < keys.size(); ++i)
      keys[i] = static_cast<uint64_t>(TotalOrderBits(x.GetAsDouble(i))) ^ kSignBit;
  } else if (IsSignedIntegralType(type)) {
    for (size_t i = 0; i < keys.size(); ++i)
      keys[i] = static_cast<uint64_t>(x.GetAsInt64(i)) ^ kSignBit;
  } else if (IsUnsignedIntegralType(type) || type == PrimitiveType::PRED) {
    for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<uint64_t>(x.GetAsInt64(i));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(x.shape().ToString(), " has no ordered element type"));
  }
  return keys;
}

absl::StatusOr<ElementComparison> ElementComparison::Make(const Literal& x,
                                                          absl::string_view direction,
                                                          bool total_order) {
  constexpr absl::string_view kOp = "compare";
  ElementComparison comparison;
  static constexpr std::pair<absl::string_view, Direction> kDirections[] = {
      {"EQ", Direction::kEq}, {"NE", Direction::kNe}, {"LT", Direction::kLt},
      {"LE", Direction::kLe}, {"GT", Direction::kGt}, {"GE", Direction::kGe}};
  auto found = std::find_if(std::begin(kDirections), std::end(kDirections),
                            [&](const auto& entry) { return entry.first == direction; });
  if (found == std::end(kDirections))
    return OperationError(kOp, absl::StrCat("unknown direction '", direction,
                                            "' (expected EQ, NE, LT, LE, GT or GE)"));
  comparison.direction_ = found->second;
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kOp, x, "operand"));
  const PrimitiveType type = x.shape().element_type();
  comparison.x_ = &x;
  if (IsComplexType(type)) {
    if (total_order) return OperationError(kOp, "complex values have no total order");
    if (comparison.direction_ != Direction::kEq && comparison.direction_ != Direction::kNe)
      return OperationError(
          kOp, absl::StrCat("complex values are unordered: only EQ and NE apply, got ", direction));
    comparison.kind_ = Kind::kComplex;
    return comparison;
  }
  if (IsFloatingPointType(type) && !total_order) {
    comparison.kind_ = Kind::kReals;
    return comparison;
  }
  // TOTALORDER on integers and pred is their usual order.
  auto keys = TotalOrderKeys(x);
  if (!keys.ok()) return OperationError(kOp, keys.status().message());
  comparison.keys_ = *std::move(keys);
  return comparison;
}

template <typename T>
bool ElementComparison::Apply(T a, T b) const {
  switch (direction_) {
    case Direction::kEq: return a == b;
    case Direction::kNe: return a != b;
    case Direction::kLt: return a < b;
    case Direction::kLe: return a <= b;
    case Direction::kGt: return a > b;
    case Direction::kGe: return a >= b;
  }
  return false;
}

bool ElementComparison::operator()(int64_t a, int64_t b) const {
  switch (kind_) {
    case Kind::kKeys: return Apply(keys_[a], keys_[b]);
    case Kind::kReals: return Apply(x_->GetAsDouble(a), x_->GetAsDouble(b));
    case Kind::kComplex: {
      bool equal = x_->GetAsComplex(a) == x_->GetAsComplex(b);
      return direction_ == Direction::kEq ? equal : !equal;
    }
  }
  return false;
}

absl::StatusOr<std::pair<Literal, Literal>> TopK(const Literal& operand, int64_t k, bool largest) {
  constexpr absl::string_view kOp = "topk";
  HOPT_RETURN_IF_ERROR(CheckKnownArray(kOp, operand, "operand"));
  const Shape& shape = operand.shape();
  if (shape.rank() == 0)
    return OperationError(kOp, "the operand must have a dimension to select along");
  const int64_t n = shape.dimensions(shape.rank() - 1);
  if (k < 0 || k > n)
    return OperationError(kOp, absl::StrCat("k=", k, " is outside [0, ", n,
                                            "] (the last dimension of ", shape.ToString(), ")"));
  auto keys = TotalOrderKeys(operand);
  if (!keys.ok()) return OperationError(kOp, keys.status().message());
  DimensionVector dims = shape.dimensions();
  dims.back() = k;
  Literal values(Shape(shape.element_type(), dims));
  Literal indices(Shape(PrimitiveType::S32, dims));
  if (n > std::numeric_limits<int32_t>::max())
    return OperationError(kOp,
                          absl::StrCat("the last dimension (", n, ") does not fit s32 indices"));
  const int64_t rows = n == 0 ? 0 : shape.ElementCount() / n;
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t row = 0; row < rows; ++row) {
    const uint64_t* row_keys = keys->data() + row * n;
    std::iota(order.begin(), order.end(), int64_t{0});
    // Ties by index make the selection the first k of a stable sort, which
    // is how XLA decomposes topk.
    auto before = [&](int64_t a, int64_t b) {
      if (row_keys[a] != row_keys[b])
        return largest ? row_keys[a] > row_keys[b] : row_keys[a] < row_keys[b];
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    for (int64_t j = 0; j < k; ++j) {
      values.CopyElementFrom(operand, row * n + order[j], row * k + j);
      indices.SetFromInt64(row * k + j, order[j]);
    }
  }
  return std::make_pair(std::move(values), std::move(indices));
}

namespace {

// A comparator computation that is one compare of the parameters standing
// for one operand's two elements: sorts by it need no computation calls.
struct PlainComparison {
  size_t operand = 0;
  bool swapped = false;  // compare(rhs, lhs)
  std::string direction;
  bool total_order = false;
};

std::optional<PlainComparison> PlainComparisonOf(const HloComputation& comparator) {
  const HloInstruction* root = comparator.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kCompare || root->operand_count() != 2)
    return std::nullopt;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter || b->opcode() != HloOpcode::kParameter)
    return std::nullopt;
  const int64_t pa = a->parameter_number(), pb = b->parameter_number();
  if (pa / 2 != pb / 2 || pa == pb) return std::nullopt;
  PlainComparison plain;
  plain.operand = static_cast<size_t>(pa / 2);
  plain.swapped = pa % 2 == 1;
  plain.direction = std::string(root->comparison_direction());
  // As the compare instruction reads it (EvaluateElementwiseWithAttributes).
  auto type = root->GetAttributeText("type");
  plain.total_order = type && *type == "TOTALORDER";
  return plain;
}

// The comparator takes a scalar of each operand's type for lhs and rhs, in
// operand order, and returns pred[] (or a tuple of it).
absl::Status CheckComparator(const HloInstruction& i, const HloComputation& comparator,
                             const std::vector<const Literal*>& ops) {
  if (comparator.num_parameters() != static_cast<int64_t>(2 * ops.size()))
    return OperationError("sort", absl::StrCat(i.name(), "'s comparator ", comparator.name(),
                                               " takes ", comparator.num_parameters(),
                                               " parameters, not 2 x ", ops.size(), " operands"));
  for (int64_t p = 0; p < comparator.num_parameters(); ++p) {
    const PrimitiveType want = ops[p / 2]->shape().element_type();
    const Shape& have = comparator.parameter_instruction(p)->shape();
    if (!have.IsScalar() || have.element_type() != want)
      return OperationError(
          "sort", absl::StrCat(i.name(), "'s comparator parameter ", p, " is ", have.ToString(),
                               ", the operand's elements are ", PrimitiveTypeString(want)));
  }
  const Shape& result = comparator.root_instruction()->shape();
  const bool pred_scalar = result.IsScalar() && result.element_type() == PrimitiveType::PRED;
  const bool pred_tuple = result.IsTuple() && result.tuple_shapes().size() == 1 &&
                          result.tuple_shapes()[0].IsScalar() &&
                          result.tuple_shapes()[0].element_type() == PrimitiveType::PRED;
  if (!pred_scalar && !pred_tuple)
    return OperationError("sort", absl::StrCat(i.name(), "'s comparator returns ",
                                               result.ToString(), ", not pred[]"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> CheckedIntListAttribute(const HloInstruction& i,
                                                             absl::string_view name) {
  auto text = i.GetAttributeText(name);
  if (!text) return std::vector<int64_t>{};
  auto list = ParseIntList(*text);
  if (!list.ok()) return UnsupportedInstruction(i, absl::StrCat("malformed ", name, "=", *text));
  return list;
}

absl::StatusOr<DotDimensions> DotDimensionsOf(const HloInstruction& i) {
  DotDimensions dims;
  HOPT_ASSIGN_OR_RETURN(dims.lhs_contracting, CheckedIntListAttribute(i, "lhs_contracting_dims"));
  HOPT_ASSIGN_OR_RETURN(dims.rhs_contracting, CheckedIntListAttribute(i, "rhs_contracting_dims"));
  HOPT_ASSIGN_OR_RETURN(dims.lhs_batch, CheckedIntListAttribute(i, "lhs_batch_dims"));
  HOPT_ASSIGN_OR_RETURN(dims.rhs_batch, CheckedIntListAttribute(i, "rhs_batch_dims"));
  return dims;
}

// The instruction's declared shape is what XLA infers; a module that says
// otherwise is refused rather than given a result of another shape.
absl::StatusOr<Literal> MatchingResult(const HloInstruction& i, absl::StatusOr<Literal> result) {
  if (!result.ok()) return result;
  const Shape& want = i.shape();
  if (!want.IsArray() || want.element_type() != result->shape().element_type() ||
      want.dimensions() != result->shape().dimensions())
    return absl::InvalidArgumentError(absl::StrCat(
        i.OpcodeSpelling(), " ", i.name(), ": the result is ", result->shape().ToString(false),
        " but the instruction declares ", want.ToString(false)));
  return result;
}

// The declared tuple shape (with its layouts) holding `elements`.
absl::StatusOr<Literal> TupleOf(const HloInstruction& i, std::vector<Literal> elements) {
  const Shape& shape = i.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != elements.size())
    return absl::InvalidArgumentError(absl::StrCat(i.OpcodeSpelling(), " ", i.name(), ": makes ",
                                                   elements.size(), " results but declares ",
                                                   shape.ToString(false)));
  Literal tuple(shape);
  for (size_t k = 0; k < elements.size(); ++k)
    tuple.mutable_tuple_elements()[k] = std::move(elements[k]);
  return tuple;
}

}  // namespace

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateSortOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kSort: {
      const HloComputation* comparator = i.to_apply();
      if (comparator == nullptr) return UnsupportedInstruction(i, "needs to_apply");
      std::vector<int64_t> dims = i.dimensions();
      if (dims.size() != 1) return UnsupportedInstruction(i, "needs dimensions={d}");
      if (absl::Status s = CheckComparator(i, *comparator, ops); !s.ok()) return s;
      // is_stable=false may order equal elements any way; the stable order
      // is one of those, and the order XLA's evaluator gives.
      absl::StatusOr<std::vector<Literal>> sorted;
      if (std::optional<PlainComparison> plain = PlainComparisonOf(*comparator)) {
        auto compare =
            ElementComparison::Make(*ops[plain->operand], plain->direction, plain->total_order);
        if (!compare.ok()) return compare.status();
        const bool swapped = plain->swapped;
        sorted = Sort(ops, dims[0], [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
          return swapped ? (*compare)(b, a) : (*compare)(a, b);
        });
      } else {
        // One set of argument literals, refilled for every comparison.
        std::vector<Literal> args;
        for (const Literal* op : ops)
          for (int side = 0; side < 2; ++side)
            args.emplace_back(Shape::MakeScalar(op->shape().element_type()));
        sorted = Sort(ops, dims[0], [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
          for (size_t k = 0; k < ops.size(); ++k) {
            args[2 * k].CopyElementFrom(*ops[k], a, 0);
            args[2 * k + 1].CopyElementFrom(*ops[k], b, 0);
          }
          HOPT_ASSIGN_OR_RETURN(std::vector<Literal> result, CallScalars(*comparator, args));
          if (result.size() != 1 || !result[0].shape().IsScalar())
            return absl::InvalidArgumentError(
                absl::StrCat("sort ", i.name(), ": the comparator must return one pred[]"));
          return result[0].GetAsInt64(0) != 0;
        });
      }
      if (!sorted.ok()) return sorted.status();
      if (ops.size() == 1) return std::move((*sorted)[0]);
      return TupleOf(i, *std::move(sorted));
    }
    case HloOpcode::kTopK: {
      std::optional<int64_t> k = i.IntAttribute("k");
      if (!k) return UnsupportedInstruction(i, "needs k=");
      // XLA's default is the largest elements.
      auto largest = i.GetAttributeText("largest");
      if (largest && *largest != "true" && *largest != "false")
        return UnsupportedInstruction(i, absl::StrCat("largest=", *largest, " is not a bool"));
      auto top = TopK(*ops[0], *k, !largest || *largest == "true");
      if (!top.ok()) return top.status();
      std::vector<Literal> elements;
      elements.push_back(std::move(top->first));
      elements.push_back(std::move(top->second));
      return TupleOf(i, std::move(elements));
    }
    case HloOpcode::kRaggedDot: {
      if (ops.size() != 3) return UnsupportedInstruction(i, "takes lhs, rhs and group_sizes");
      RaggedDotDimensions dims;
      auto dot = DotDimensionsOf(i);
      if (!dot.ok()) return dot.status();
      dims.dot = *std::move(dot);
      auto ragged = CheckedIntListAttribute(i, "lhs_ragged_dims");
      auto group = CheckedIntListAttribute(i, "rhs_group_dims");
      if (!ragged.ok()) return ragged.status();
      if (!group.ok()) return group.status();
      dims.lhs_ragged = *std::move(ragged);
      dims.rhs_group = *std::move(group);
      if (!i.shape().IsArray()) return UnsupportedInstruction(i, "must produce an array");
      return MatchingResult(i,
                            RaggedDot(*ops[0], *ops[1], *ops[2], dims, i.shape().element_type()));
    }
    case HloOpcode::kScaledDot: {
      if (ops.size() != 4)
        return UnsupportedInstruction(
            i, "takes lhs, rhs, lhs_scale and rhs_scale (the global-scale form is not supported)");
      auto dims = DotDimensionsOf(i);
      if (!dims.ok()) return dims.status();
      if (!i.shape().IsArray()) return UnsupportedInstruction(i, "must produce an array");
      return MatchingResult(
          i, ScaledDot(*ops[0], *ops[1], *ops[2], *ops[3], *dims, i.shape().element_type()));
    }
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_SORT_OPS_H_
#define HOPT_CORE_EVAL_SORT_OPS_H_

// The array functions behind sort and topk (sort_ops.cc) and ragged-dot and
// scaled-dot (ragged_dot.cc), internal to the interpreter (not installed):
// DeviceEvaluator::EvaluateSortOp reads the attributes and calls these, and
// the tests call them directly. docs/interpreter-semantics.md
// describes what XLA defines and what is chosen where it does not.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// ---- sort and topk (sort_ops.cc) ------------------------------------------

// Whether the element at linear index `a` goes before the one at `b` (the
// sort comparator applied to the operands' elements there).
using SortLess = absl::FunctionRef<absl::StatusOr<bool>(int64_t a, int64_t b)>;

// Positions 0..n-1 in `less` order, stably, by the merge sort XLA's
// HloEvaluator runs (halves merged, binary insertion below 9 elements),
// asking the same comparisons: a comparator that is not a strict weak
// order still ends after O(n log n) calls, with the permutation XLA's
// evaluator gives. Only less(later, earlier) and less(moving, placed) are
// asked.
absl::StatusOr<std::vector<int64_t>> StableSortOrder(int64_t n, SortLess less);

// The operands (arrays of equal dimensions) sorted along `dimension`, each
// line of that dimension on its own, all permuted alike by `less` on linear
// indices of the operands. Stable.
absl::StatusOr<std::vector<Literal>> Sort(absl::Span<const Literal* const> operands,
                                          int64_t dimension, SortLess less);

// compare(x[a], x[b]) as the compare instruction computes it on x's
// elements, without a literal per call: the fast path of a comparator that
// is one compare of its first two parameters.
class ElementComparison {
 public:
  // `direction`: EQ NE LT LE GT GE; `total_order` for type=TOTALORDER.
  // InvalidArgument for what compare refuses (LT on complex values...).
  static absl::StatusOr<ElementComparison> Make(const Literal& x, absl::string_view direction,
                                                bool total_order);
  bool operator()(int64_t a, int64_t b) const;

 private:
  enum class Direction { kEq, kNe, kLt, kLe, kGt, kGe };
  enum class Kind { kKeys, kReals, kComplex };
  template <typename T>
  bool Apply(T a, T b) const;

  Direction direction_ = Direction::kLt;
  Kind kind_ = Kind::kKeys;
  std::vector<uint64_t> keys_;  // kKeys: the elements' order as unsigned integers
  const Literal* x_ = nullptr;  // kReals and kComplex read it
};

// One unsigned integer per element whose order is XLA's total order of the
// type (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN for floats); pred
// and integers in their natural order. InvalidArgument for complex.
absl::StatusOr<std::vector<uint64_t>> TotalOrderKeys(const Literal& x);

// The k largest (or smallest) elements of each row of the last dimension, in
// that order, with their s32 indices: (values, indices). Ties go to the
// lower index; floats are ordered by the total order above, so NaN is the
// largest value (and -NaN the smallest).
absl::StatusOr<std::pair<Literal, Literal>> TopK(const Literal& operand, int64_t k, bool largest);

// ---- ragged-dot and scaled-dot (ragged_dot.cc) -----------------------------

struct DotDimensions {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
};

struct RaggedDotDimensions {
  DotDimensions dot;
  std::vector<int64_t> lhs_ragged, rhs_group;
};

// XLA's ragged-dot: group g of the lhs ragged dimension covers
// [sum of sizes before g, that + size g) of it, per index of the dimensions
// group_sizes has before its last one ([g], or [batch..., x..., g], the
// prefix that the ragged mode defines). The three modes:
// - ragged non-contracting: each lhs row in group g is multiplied by the
//   rhs's group g (rhs_group_dims={d}); a row in no group gives zeros;
// - ragged contracting: the result gains a leading group dimension; result
//   [g] contracts only the ragged indices in group g;
// - ragged batch: a plain dot (the group sizes only shape-checked).
absl::StatusOr<Literal> RaggedDot(const Literal& lhs, const Literal& rhs,
                                  const Literal& group_sizes, const RaggedDotDimensions& dims,
                                  PrimitiveType result_type);

// XLA's scaled-dot: each operand multiplied by its scale (a block of
// operand_dim / scale_dim consecutive indices per scale element, in every
// dimension; a rank-0 scale leaves the operand as it is), the product
// computed in the type XLA upcasts the pair to, then a dot.
absl::StatusOr<Literal> ScaledDot(const Literal& lhs, const Literal& rhs, const Literal& lhs_scale,
                                  const Literal& rhs_scale, const DotDimensions& dims,
                                  PrimitiveType result_type);

// The element type XLA's scaled-dot lowering computes `a`'s and `b`'s
// product in: bf16 when both are narrower than 16 bits, else the type they
// share, f32 for two different types of one width, else the wider one.
PrimitiveType ScaledDotComputeType(PrimitiveType a, PrimitiveType b);

// ---- shared by the two files ------------------------------------------------

// An array with known values and no unbounded dimension.
absl::Status CheckKnownArray(absl::string_view op, const Literal& literal, absl::string_view what);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_SORT_OPS_H_

// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's sort, topk, ragged-dot and scaled-dot
// (core/eval/sort_ops.h): the array functions on hand-computed cases and
// their errors, then whole modules, where the comparator is a computation
// and the attributes are read.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/eval/sort_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType U8 = PrimitiveType::U8;
constexpr PrimitiveType U64 = PrimitiveType::U64;
constexpr PrimitiveType PRED = PrimitiveType::PRED;
constexpr PrimitiveType C64 = PrimitiveType::C64;

using array_testing::DimsOf;
using array_testing::Ints;
using array_testing::Make;
using array_testing::RunOnOneDevice;
using array_testing::Values;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// The values with -0 and NaN told apart (as text), for exact comparisons.
std::vector<std::string> Exact(const Literal& literal) {
  std::vector<std::string> out;
  for (double v : Values(literal))
    out.push_back(std::isnan(v) ? (std::signbit(v) ? "-nan" : "nan")
                                : (v == 0 && std::signbit(v) ? "-0" : absl::StrCat(v)));
  return out;
}

// ---- StableSortOrder and Sort ----------------------------------------------

TEST(SortOrderTest, StableAndComplete) {
  // Keys 2 1 2 0 1 2 1 0 2 1 (more than one insertion run): equal keys keep
  // their order.
  const std::vector<int> keys = {2, 1, 2, 0, 1, 2, 1, 0, 2, 1};
  auto order = StableSortOrder(
      10, [&](int64_t a, int64_t b) -> absl::StatusOr<bool> { return keys[a] < keys[b]; });
  ASSERT_TRUE(order.ok()) << order.status();
  EXPECT_THAT(*order, ElementsAre(3, 7, 1, 4, 6, 9, 0, 2, 5, 8));
}

TEST(SortOrderTest, ComparatorThatIsNoOrderStillGivesAPermutation) {
  // "Always before" and "before when the sum is odd" are no strict weak
  // orders: the sort must end with each position exactly once.
  for (int variant = 0; variant < 2; ++variant) {
    int64_t calls = 0;
    auto order = StableSortOrder(100, [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      ++calls;
      return variant == 0 ? true : (a + b) % 2 == 1;
    });
    ASSERT_TRUE(order.ok());
    std::vector<int64_t> sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t k = 0; k < 100; ++k) EXPECT_EQ(sorted[k], k);
    EXPECT_LT(calls, 100 * 8);  // n log n, not quadratic
  }
}

TEST(SortOrderTest, IncomparableElementsAsXlasEvaluatorPlacesThem) {
  // Values 3 NaN 1 2 0 by a float LT (NaN is neither before nor after
  // anything). Binary insertion, as XLA's evaluator does below 9 elements:
  // 1 and 2 stop at NaN; 0 probes 1 (before it), then NaN (not before), so
  // it lands right after NaN.
  const std::vector<double> values = {3, kNaN, 1, 2, 0};
  auto order = StableSortOrder(
      5, [&](int64_t a, int64_t b) -> absl::StatusOr<bool> { return values[a] < values[b]; });
  ASSERT_TRUE(order.ok());
  EXPECT_THAT(*order, ElementsAre(0, 1, 4, 2, 3));
}

TEST(SortOrderTest, ComparatorErrorStopsTheSort) {
  auto order = StableSortOrder(5, [](int64_t, int64_t) -> absl::StatusOr<bool> {
    return absl::InvalidArgumentError("comparator failed");
  });
  EXPECT_EQ(order.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(StableSortOrder(0, [](int64_t, int64_t) -> absl::StatusOr<bool> {
                return absl::InternalError("never called");
              }).ok());
}

TEST(SortTest, EachLineOfTheDimensionOnItsOwnAndOperandsPermutedAlike) {
  // keys [[3,1,2],[0,5,4]]: along dimension 1 each row is sorted; along
  // dimension 0 each column.
  Literal keys = Make(S32, {2, 3}, {3, 1, 2, 0, 5, 4});
  Literal payload = Make(F32, {2, 3}, {10, 11, 12, 13, 14, 15});
  std::vector<const Literal*> operands = {&keys, &payload};
  auto by_key = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
    return keys.GetAsInt64(a) < keys.GetAsInt64(b);
  };
  auto rows = Sort(operands, 1, by_key);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(Ints((*rows)[0]), ElementsAre(1, 2, 3, 0, 4, 5));
  EXPECT_THAT(Values((*rows)[1]), ElementsAre(11, 12, 10, 13, 15, 14));
  auto columns = Sort(operands, 0, by_key);
  ASSERT_TRUE(columns.ok()) << columns.status();
  EXPECT_THAT(Ints((*columns)[0]), ElementsAre(0, 1, 2, 3, 5, 4));
  EXPECT_THAT(Values((*columns)[1]), ElementsAre(13, 11, 12, 10, 14, 15));
}

TEST(SortTest, ZeroSizedDimensions) {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{0, 3}, {3, 0}, {0}}) {
    Literal x(Shape(F32, dims));
    auto sorted = Sort({&x}, static_cast<int64_t>(dims.size()) - 1,
                       [](int64_t, int64_t) -> absl::StatusOr<bool> {
                         return absl::InternalError("no elements to compare");
                       });
    ASSERT_TRUE(sorted.ok()) << sorted.status();
    EXPECT_EQ(DimsOf((*sorted)[0]), dims);
  }
}

TEST(SortTest, Errors) {
  Literal a = Make(F32, {2, 2}, {1, 2, 3, 4});
  Literal b = Make(F32, {4}, {1, 2, 3, 4});
  Literal scalar = Make(F32, {}, {1});
  auto never = [](int64_t, int64_t) -> absl::StatusOr<bool> { return false; };
  EXPECT_INVALID(Sort({&a, &b}, 0, never), "differs in dimensions");
  EXPECT_INVALID(Sort({&a}, 2, never), "out of range");
  EXPECT_INVALID(Sort({&scalar}, 0, never), "out of range");
  EXPECT_INVALID(Sort({}, 0, never), "at least one operand");
}

// ---- ElementComparison and TotalOrderKeys -----------------------------------

TEST(ElementComparisonTest, TotalOrderOfFloats) {
  // -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN.
  Literal x = Make(F32, {8}, {kNaN, -kNaN, 1, -0.0, kInf, 0.0, -1, -kInf});
  auto lt = ElementComparison::Make(x, "LT", /*total_order=*/true);
  ASSERT_TRUE(lt.ok()) << lt.status();
  const std::vector<int64_t> ascending = {1, 7, 6, 3, 5, 2, 4, 0};
  for (size_t i = 0; i < ascending.size(); ++i)
    for (size_t j = 0; j < ascending.size(); ++j)
      EXPECT_EQ((*lt)(ascending[i], ascending[j]), i < j) << i << " " << j;
  auto eq = ElementComparison::Make(x, "EQ", true);
  EXPECT_FALSE((*eq)(3, 5));  // -0 and +0 differ in the total order
  EXPECT_TRUE((*eq)(0, 0));   // NaN equals itself there
}

TEST(ElementComparisonTest, PartialOrderOfFloats) {
  Literal x = Make(F32, {3}, {kNaN, -0.0, 0.0});
  auto lt = ElementComparison::Make(x, "LT", false);
  auto eq = ElementComparison::Make(x, "EQ", false);
  auto ne = ElementComparison::Make(x, "NE", false);
  ASSERT_TRUE(lt.ok() && eq.ok() && ne.ok());
  EXPECT_FALSE((*lt)(0, 1));
  EXPECT_FALSE((*lt)(1, 0));
  EXPECT_TRUE((*eq)(1, 2));   // -0 == +0
  EXPECT_FALSE((*eq)(0, 0));  // NaN != NaN
  EXPECT_TRUE((*ne)(0, 0));
}

TEST(ElementComparisonTest, IntegersUnsignedAndComplex) {
  Literal u = Make(U64, {2}, {1, 0});
  u.SetFromInt64(1, -1);  // 2^64 - 1
  auto gt = ElementComparison::Make(u, "GT", false);
  ASSERT_TRUE(gt.ok());
  EXPECT_TRUE((*gt)(1, 0));
  Literal s = Make(S32, {2}, {-5, 3});
  auto ge = ElementComparison::Make(s, "GE", true);
  EXPECT_TRUE((*ge)(1, 0));
  EXPECT_FALSE((*ge)(0, 1));
  Literal c(Shape(C64, {2}));
  c.SetFromComplex(0, {1, 2});
  c.SetFromComplex(1, {1, 2});
  auto ceq = ElementComparison::Make(c, "EQ", false);
  ASSERT_TRUE(ceq.ok());
  EXPECT_TRUE((*ceq)(0, 1));
  EXPECT_INVALID(ElementComparison::Make(c, "LT", false), "only EQ and NE");
  EXPECT_INVALID(ElementComparison::Make(c, "EQ", true), "no total order");
  EXPECT_INVALID(ElementComparison::Make(s, "LESS", false), "unknown direction");
}

// ---- TopK ---------------------------------------------------------------------

TEST(TopKTest, LargestWithTiesAndNaN) {
  // Row 0: NaN is the largest, ties (2 at 1 and 4) go to the lower index,
  // -0 is below +0. Row 1: all equal: indices in order.
  Literal x = Make(F32, {2, 6}, {0.0, 2, kNaN, -0.0, 2, -kNaN, 7, 7, 7, 7, 7, 7});
  auto top = TopK(x, 4, /*largest=*/true);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_EQ(DimsOf(top->first), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(top->second.shape().element_type(), S32);
  EXPECT_THAT(Exact(top->first), ElementsAre("nan", "2", "2", "0", "7", "7", "7", "7"));
  EXPECT_THAT(Ints(top->second), ElementsAre(2, 1, 4, 0, 0, 1, 2, 3));
}

TEST(TopKTest, Smallest) {
  Literal x = Make(F32, {6}, {0.0, 2, kNaN, -0.0, 2, -kNaN});
  auto top = TopK(x, 6, /*largest=*/false);
  ASSERT_TRUE(top.ok()) << top.status();
  EXPECT_THAT(Exact(top->first), ElementsAre("-nan", "-0", "0", "2", "2", "nan"));
  EXPECT_THAT(Ints(top->second), ElementsAre(5, 3, 0, 1, 4, 2));
}

TEST(TopKTest, IntegersPredAndEmpty) {
  Literal u = Make(U8, {5}, {3, 255, 0, 255, 7});
  auto top = TopK(u, 3, true);
  ASSERT_TRUE(top.ok());
  EXPECT_THAT(Ints(top->first), ElementsAre(255, 255, 7));
  EXPECT_THAT(Ints(top->second), ElementsAre(1, 3, 4));
  Literal p = Make(PRED, {4}, {0, 1, 0, 1});
  auto lowest = TopK(p, 2, false);
  ASSERT_TRUE(lowest.ok());
  EXPECT_THAT(Ints(lowest->second), ElementsAre(0, 2));
  auto none = TopK(u, 0, true);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(DimsOf(none->first), (std::vector<int64_t>{0}));
  Literal empty(Shape(F32, {3, 0}));
  auto from_empty = TopK(empty, 0, true);
  ASSERT_TRUE(from_empty.ok());
  EXPECT_EQ(DimsOf(from_empty->second), (std::vector<int64_t>{3, 0}));
}

TEST(TopKTest, Errors) {
  Literal x = Make(F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_INVALID(TopK(x, 4, true), "k=4 is outside [0, 3]");
  EXPECT_INVALID(TopK(x, -1, true), "outside");
  EXPECT_INVALID(TopK(Make(F32, {}, {1}), 0, true), "a dimension");
  EXPECT_INVALID(TopK(Literal(Shape(C64, {2})), 1, true), "no order");
}

// ---- RaggedDot ------------------------------------------------------------------

// lhs [5,2] rows: {1,0} {0,1} {1,1} {2,0} {0,3}; rhs [2 groups, 2, 3].
Literal RaggedLhs() { return Make(F32, {5, 2}, {1, 0, 0, 1, 1, 1, 2, 0, 0, 3}); }
Literal RaggedRhs() { return Make(F32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60}); }

RaggedDotDimensions NonContracting() {
  RaggedDotDimensions dims;
  dims.dot.lhs_contracting = {1};
  dims.dot.rhs_contracting = {1};
  dims.lhs_ragged = {0};
  dims.rhs_group = {0};
  return dims;
}

TEST(RaggedDotTest, NonContractingRowsTakeTheirGroupsProduct) {
  // Groups of sizes 2 and 2: rows 0-1 by group 0, rows 2-3 by group 1, row
  // 4 in no group (zeros).
  auto result = RaggedDot(RaggedLhs(), RaggedRhs(), Make(S32, {2}, {2, 2}), NonContracting(), F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(DimsOf(*result), (std::vector<int64_t>{5, 3}));
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3, 4, 5, 6, 50, 70, 90, 20, 40, 60, 0, 0, 0));
  // Sizes 0 and 5: every row by group 1.
  auto all_second =
      RaggedDot(RaggedLhs(), RaggedRhs(), Make(S32, {2}, {0, 5}), NonContracting(), F32);
  ASSERT_TRUE(all_second.ok());
  EXPECT_THAT(Values(*all_second),
              ElementsAre(10, 20, 30, 40, 50, 60, 50, 70, 90, 20, 40, 60, 120, 150, 180));
}

TEST(RaggedDotTest, NonContractingWithBatchAndPerBatchSizes) {
  // lhs [2 batch, 2 rows, 1], rhs [2 groups, 2 batch, 1, 1]: batch 0 puts
  // both rows in group 1, batch 1 row 0 in group 0 and row 1 in none.
  Literal lhs = Make(F32, {2, 2, 1}, {1, 2, 3, 4});
  Literal rhs = Make(F32, {2, 2, 1, 1}, {10, 20, 100, 200});  // [g][b]
  RaggedDotDimensions dims;
  dims.dot.lhs_batch = {0};
  dims.dot.rhs_batch = {1};
  dims.dot.lhs_contracting = {2};
  dims.dot.rhs_contracting = {2};
  dims.lhs_ragged = {1};
  dims.rhs_group = {0};
  auto result = RaggedDot(lhs, rhs, Make(S32, {2, 2}, {0, 2, 1, 0}), dims, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(DimsOf(*result), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_THAT(Values(*result), ElementsAre(100, 200, 60, 0));
}

TEST(RaggedDotTest, ContractingGivesAGroupDimension) {
  // lhs [1, 4] . rhs [4, 1] with the contraction split in groups 1, 3 and
  // an empty one: [3 groups, 1, 1].
  Literal lhs = Make(F32, {1, 4}, {1, 2, 3, 4});
  Literal rhs = Make(F32, {4, 1}, {10, 100, 1000, 10000});
  RaggedDotDimensions dims;
  dims.dot.lhs_contracting = {1};
  dims.dot.rhs_contracting = {0};
  dims.lhs_ragged = {1};
  auto result = RaggedDot(lhs, rhs, Make(S32, {3}, {1, 3, 0}), dims, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(DimsOf(*result), (std::vector<int64_t>{3, 1, 1}));
  EXPECT_THAT(Values(*result), ElementsAre(10, 43200, 0));
}

TEST(RaggedDotTest, BatchIsAPlainDot) {
  Literal lhs = Make(S32, {2, 1, 2}, {1, 2, 3, 4});
  Literal rhs = Make(S32, {2, 2, 1}, {5, 6, 7, 8});
  RaggedDotDimensions dims;
  dims.dot.lhs_batch = {0};
  dims.dot.rhs_batch = {0};
  dims.dot.lhs_contracting = {2};
  dims.dot.rhs_contracting = {1};
  dims.lhs_ragged = {0};
  auto result = RaggedDot(lhs, rhs, Make(S32, {3}, {1, 0, 0}), dims, S32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(17, 53));
}

TEST(RaggedDotTest, Errors) {
  Literal sizes = Make(S32, {2}, {2, 2});
  RaggedDotDimensions two_ragged = NonContracting();
  two_ragged.lhs_ragged = {0, 1};
  EXPECT_INVALID(RaggedDot(RaggedLhs(), RaggedRhs(), sizes, two_ragged, F32),
                 "exactly one lhs ragged dimension");
  EXPECT_INVALID(
      RaggedDot(RaggedLhs(), RaggedRhs(), Make(S32, {3}, {1, 1, 1}), NonContracting(), F32),
      "has size 2, group_sizes has 3 groups");
  EXPECT_INVALID(RaggedDot(RaggedLhs(), RaggedRhs(), Make(F32, {2}, {2, 2}), NonContracting(), F32),
                 "must be integers");
  EXPECT_INVALID(RaggedDot(RaggedLhs(), RaggedRhs(), Make(S32, {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0}),
                           NonContracting(), F32),
                 "must be [g] or {2}");
  RaggedDotDimensions no_group = NonContracting();
  no_group.rhs_group = {};
  EXPECT_INVALID(RaggedDot(RaggedLhs(), RaggedRhs(), sizes, no_group, F32),
                 "exactly one group dimension");
  RaggedDotDimensions out_of_range = NonContracting();
  out_of_range.lhs_ragged = {2};
  EXPECT_INVALID(RaggedDot(RaggedLhs(), RaggedRhs(), sizes, out_of_range, F32), "out of range");
}

// ---- ScaledDot ----------------------------------------------------------------------

TEST(ScaledDotTest, BlocksOfTheContractingDimension) {
  // lhs [1,4] scaled by [1,2] (blocks of 2), rhs [4,1] by a scale per row
  // [4,1]: (1*2)(1*1) + (1*2)(1*2) + (1*3)(1*1) + (1*3)(1*2) = 2+4+3+6.
  DotDimensions dims;
  dims.lhs_contracting = {1};
  dims.rhs_contracting = {0};
  auto result = ScaledDot(Make(F32, {1, 4}, {1, 1, 1, 1}), Make(F32, {4, 1}, {1, 1, 1, 1}),
                          Make(F32, {1, 2}, {2, 3}), Make(F32, {4, 1}, {1, 2, 1, 2}), dims, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(15));
}

TEST(ScaledDotTest, RankZeroScaleLeavesTheOperandAndProductsRoundToTheComputeType) {
  DotDimensions dims;
  dims.lhs_contracting = {0};
  dims.rhs_contracting = {0};
  // bf16 (1 + 2^-7) squared is 1 + 2^-6 + 2^-14, which bf16 rounds to
  // 1 + 2^-6: the scaled lhs is rounded before the dot.
  const double x = 1 + std::ldexp(1.0, -7);
  auto result = ScaledDot(Make(BF16, {1}, {x}), Make(F32, {1}, {1}), Make(BF16, {1}, {x}),
                          Make(F32, {}, {5}), dims, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(1 + std::ldexp(1.0, -6)));
}

TEST(ScaledDotTest, ComputeTypes) {
  using P = PrimitiveType;
  EXPECT_EQ(ScaledDotComputeType(P::F8E4M3FN, P::F8E8M0FNU), P::BF16);
  EXPECT_EQ(ScaledDotComputeType(P::F4E2M1FN, P::F8E4M3FN), P::BF16);
  EXPECT_EQ(ScaledDotComputeType(P::F16, P::F16), P::F16);
  EXPECT_EQ(ScaledDotComputeType(P::F16, P::BF16), P::F32);
  EXPECT_EQ(ScaledDotComputeType(P::F8E4M3FN, P::F32), P::F32);
}

TEST(ScaledDotTest, Errors) {
  DotDimensions dims;
  dims.lhs_contracting = {1};
  dims.rhs_contracting = {0};
  Literal lhs = Make(F32, {1, 4}, {1, 1, 1, 1});
  Literal rhs = Make(F32, {4, 1}, {1, 1, 1, 1});
  Literal one = Make(F32, {}, {1});
  EXPECT_INVALID(ScaledDot(lhs, rhs, Make(F32, {1, 3}, {1, 1, 1}), one, dims, F32),
                 "does not divide");
  EXPECT_INVALID(ScaledDot(lhs, rhs, Make(F32, {4}, {1, 1, 1, 1}), one, dims, F32),
                 "differ in rank");
  EXPECT_INVALID(ScaledDot(lhs, rhs, Literal(Shape(C64, {1, 1})), one, dims, F32),
                 "integers or floating point");
  DotDimensions wrong = dims;
  wrong.rhs_contracting = {1};
  EXPECT_INVALID(ScaledDot(lhs, rhs, one, one, wrong, F32), "scaled-dot: ");
}

// ---- whole modules ----------------------------------------------------------------------

// keys {2, 1, 2, 1, 0, 2} sorted by a comparator that is a computation:
// descending on the key, then ascending on the payload.
constexpr char kLexicographicSort[] = R"(HloModule m
by_key_then_value {
  k0 = s32[] parameter(0)
  k1 = s32[] parameter(1)
  v0 = f32[] parameter(2)
  v1 = f32[] parameter(3)
  key_gt = pred[] compare(k0, k1), direction=GT
  key_eq = pred[] compare(k0, k1), direction=EQ
  value_lt = pred[] compare(v0, v1), direction=LT
  ROOT before = pred[] select(key_eq, value_lt, key_gt)
}
ENTRY e {
  keys = s32[6] constant({2, 1, 2, 1, 0, 2})
  values = f32[6] constant({5, 4, 3, 2, 1, 0})
  ROOT s = (s32[6], f32[6]) sort(keys, values), dimensions={0}, is_stable=false, to_apply=by_key_then_value
})";

TEST(SortModuleTest, ComparatorComputationOrdersLexicographically) {
  auto result = RunOnOneDevice(kLexicographicSort);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(result->tuple_elements()[0]), ElementsAre(2, 2, 2, 1, 1, 0));
  EXPECT_THAT(Values(result->tuple_elements()[1]), ElementsAre(0, 3, 5, 2, 4, 1));
}

// The same values sorted by compare(p0, p1) (the fast path) and by the same
// comparison behind an `and` with true (a computation call each): equal,
// including the order of NaNs that LT (no strict weak order) cannot place.
std::string SortModule(absl::string_view direction, absl::string_view type, bool plain) {
  return absl::StrCat(R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  lt = pred[] compare(a, b), direction=)",
                      direction, type.empty() ? "" : ", type=", type, R"(
  yes = pred[] constant(true)
  both = pred[] and(lt, yes)
  ROOT r = pred[] )",
                      plain ? "compare(a, b), direction=" : "and(lt, yes)",
                      plain ? absl::StrCat(direction, type.empty() ? "" : ", type=", type) : "",
                      R"(
}
ENTRY e {
  x = f32[2,11] constant({{3, nan, -0, 1, 0, nan, -inf, 2, -nan, 1, 0}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1}})
  i = s32[2,11] iota(), iota_dimension=1
  ROOT s = (f32[2,11], s32[2,11]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp
})");
}

TEST(SortModuleTest, FastPathMatchesTheComputation) {
  for (const char* direction : {"LT", "GT", "LE"}) {
    for (const char* type : {"", "TOTALORDER"}) {
      auto fast = RunOnOneDevice(SortModule(direction, type, true));
      auto slow = RunOnOneDevice(SortModule(direction, type, false));
      ASSERT_TRUE(fast.ok()) << fast.status();
      ASSERT_TRUE(slow.ok()) << slow.status();
      EXPECT_EQ(fast->ToText(), slow->ToText()) << direction << " " << type;
    }
  }
  auto total = RunOnOneDevice(SortModule("LT", "TOTALORDER", true));
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(Exact(total->tuple_elements()[0]).front(), "-nan");
  EXPECT_THAT(Ints(total->tuple_elements()[1]),
              ElementsAre(8, 6, 2, 4, 10, 3, 9, 7, 0, 1, 5, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
}

TEST(SortModuleTest, OneOperandGivesAnArrayAndTupleComparatorsWork) {
  auto result = RunOnOneDevice(R"(HloModule m
cmp {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  gt = pred[] compare(a, b), direction=GT
  ROOT t = (pred[]) tuple(gt)
}
ENTRY e {
  x = u8[5] constant({3, 200, 0, 7, 200})
  ROOT s = u8[5] sort(x), dimensions={0}, to_apply=cmp
})");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->shape().IsTuple());
  EXPECT_THAT(Ints(*result), ElementsAre(200, 200, 7, 3, 0));
}

TEST(SortModuleTest, ComparatorMismatchesAreRefused) {
  auto wrong_count = RunOnOneDevice(R"(HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[3] constant({3, 1, 2})
  ROOT s = f32[3] sort(x), dimensions={0}, to_apply=cmp
})");
  EXPECT_EQ(wrong_count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_count.status().message()), HasSubstr("takes 3 parameters"));
  auto wrong_type = RunOnOneDevice(R"(HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[3] constant({3, 1, 2})
  ROOT s = f32[3] sort(x), dimensions={0}, to_apply=cmp
})");
  EXPECT_THAT(std::string(wrong_type.status().message()), HasSubstr("parameter 0 is s32[]"));
}

TEST(TopKModuleTest, AttributesAndDefault) {
  auto smallest = RunOnOneDevice(R"(HloModule m
ENTRY e {
  x = bf16[2,4] constant({{1, -2, 3, -2}, {0, 5, 5, 1}})
  ROOT t = (bf16[2,2], s32[2,2]) topk(x), k=2, largest=false
})");
  ASSERT_TRUE(smallest.ok()) << smallest.status();
  EXPECT_THAT(Values(smallest->tuple_elements()[0]), ElementsAre(-2, -2, 0, 1));
  EXPECT_THAT(Ints(smallest->tuple_elements()[1]), ElementsAre(1, 3, 0, 3));
  auto largest = RunOnOneDevice(R"(HloModule m
ENTRY e {
  x = s32[4] constant({1, 9, 3, 9})
  ROOT t = (s32[3], s32[3]) topk(x), k=3
})");
  ASSERT_TRUE(largest.ok()) << largest.status();
  EXPECT_THAT(Ints(largest->tuple_elements()[1]), ElementsAre(1, 3, 2));
}

TEST(RaggedDotModuleTest, AttributesAndDeclaredShape) {
  const std::string body = R"(
  a = f32[5,2] constant({{1,0},{0,1},{1,1},{2,0},{0,3}})
  b = f32[2,2,3] constant({{{1,2,3},{4,5,6}},{{10,20,30},{40,50,60}}})
  c = u32[2] constant({1, 3})
  ROOT d = )";
  auto result =
      RunOnOneDevice(absl::StrCat("HloModule m\nENTRY e {", body,
                                  "f32[5,3] ragged-dot(a, b, c), lhs_contracting_dims={1}, "
                                  "rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                                  "rhs_group_dims={0}\n}"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3, 40, 50, 60, 50, 70, 90, 20, 40, 60, 0, 0, 0));
  auto wrong =
      RunOnOneDevice(absl::StrCat("HloModule m\nENTRY e {", body,
                                  "f32[5,4] ragged-dot(a, b, c), lhs_contracting_dims={1}, "
                                  "rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
                                  "rhs_group_dims={0}\n}"));
  EXPECT_THAT(std::string(wrong.status().message()),
              HasSubstr("the result is f32[5,3] but the instruction declares f32[5,4]"));
}

TEST(ScaledDotModuleTest, Fp8OperandsWithE8M0Scales) {
  // lhs [1,4] = 1.5 each, scales 2^1 and 2^-1 per block of 2; rhs [2,4] rows
  // of 1 and -2 with scale 4 for all: row 0: 4*(3+3+0.75+0.75) = 30,
  // row 1: -2 times that.
  auto result = RunOnOneDevice(R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[1,4] constant({{1.5, 1.5, 1.5, 1.5}})
  rhs = f8e4m3fn[2,4] constant({{1, 1, 1, 1}, {-2, -2, -2, -2}})
  lhs_scale = f8e8m0fnu[1,2] constant({{2, 0.5}})
  rhs_scale = f8e8m0fnu[2,1] constant({{4}, {4}})
  ROOT d = f32[1,2] scaled-dot(lhs, rhs, lhs_scale, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(30, -60));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

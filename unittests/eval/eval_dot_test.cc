// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's dot: hand-computed cases for each kind of
// dimension and the errors, then the GEMMs of core/eval/dense_kernels.h on
// random shapes against the exact loop (DotReference), and results that do
// not depend on the run or on the number of threads.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/dense_kernels.h"
#include "core/eval/ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType F16 = PrimitiveType::F16;
constexpr PrimitiveType S8 = PrimitiveType::S8;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType U8 = PrimitiveType::U8;
constexpr PrimitiveType C64 = PrimitiveType::C64;

using array_testing::Counting;
using array_testing::DimsOf;
using array_testing::Ints;
using array_testing::Make;
using array_testing::Scalar;
using array_testing::Values;

Literal Random(PrimitiveType type, const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  Literal literal(Shape(type, dims));
  std::uniform_real_distribution<double> value(-2, 2);
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromDouble(i, value(rng));
  return literal;
}

// Unit roundoff of the types.
double Epsilon(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F64: return std::ldexp(1.0, -53);
    case PrimitiveType::F32: return std::ldexp(1.0, -24);
    case PrimitiveType::F16: return std::ldexp(1.0, -11);
    case PrimitiveType::BF16: return std::ldexp(1.0, -8);
    default: return 1;
  }
}

// A random dot: `batch`, `contracting` and free dimensions of random sizes
// shuffled into random positions of each operand.
struct RandomDot {
  std::vector<int64_t> lhs_dims, rhs_dims, lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
  int64_t contraction = 1;
};

RandomDot MakeRandomDot(std::mt19937_64& rng) {
  auto pick = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
  };
  int64_t batch = pick(0, 2), contracting = pick(0, 2), lhs_free = pick(0, 2),
          rhs_free = pick(0, 2);
  std::vector<int64_t> batch_sizes, contracting_sizes;
  for (int64_t i = 0; i < batch; ++i) batch_sizes.push_back(pick(1, 4));
  for (int64_t i = 0; i < contracting; ++i) contracting_sizes.push_back(pick(1, 9));
  RandomDot dot;
  for (int64_t s : contracting_sizes) dot.contraction *= s;
  auto place = [&](int64_t free, std::vector<int64_t>* dims, std::vector<int64_t>* batch_dims,
                   std::vector<int64_t>* contracting_dims) {
    int64_t rank = batch + contracting + free;
    std::vector<int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    dims->assign(rank, 0);
    for (int64_t i = 0; i < batch; ++i) {
      (*dims)[order[i]] = batch_sizes[i];
      batch_dims->push_back(order[i]);
    }
    for (int64_t i = 0; i < contracting; ++i) {
      (*dims)[order[batch + i]] = contracting_sizes[i];
      contracting_dims->push_back(order[batch + i]);
    }
    for (int64_t i = batch + contracting; i < rank; ++i) (*dims)[order[i]] = pick(1, 6);
  };
  place(lhs_free, &dot.lhs_dims, &dot.lhs_batch, &dot.lhs_contracting);
  place(rhs_free, &dot.rhs_dims, &dot.rhs_batch, &dot.rhs_contracting);
  return dot;
}

TEST(EvalDotGemmTest, RandomShapesMatchTheExactLoop) {
  std::mt19937_64 rng(28);
  // lhs, rhs and result types: f32 and f64 on their GEMM, bf16/f16 on
  // sgemm, mixed types on the wider one.
  const PrimitiveType types[][3] = {{F32, F32, F32}, {F64, F64, F64},   {BF16, BF16, BF16},
                                    {F16, F16, F16}, {BF16, BF16, F32}, {F32, BF16, F32},
                                    {F32, F32, F64}, {F64, F32, F32}};
  for (int trial = 0; trial < 400; ++trial) {
    const auto& t = types[trial % 8];
    RandomDot d = MakeRandomDot(rng);
    Literal lhs = Random(t[0], d.lhs_dims, rng), rhs = Random(t[1], d.rhs_dims, rng);
    std::string what = absl::StrCat(
        "trial ", trial, ": ", lhs.shape().ToString(), " x ", rhs.shape().ToString(),
        " contracting {", absl::StrJoin(d.lhs_contracting, ","), "}x{",
        absl::StrJoin(d.rhs_contracting, ","), "} batch {", absl::StrJoin(d.lhs_batch, ","), "}x{",
        absl::StrJoin(d.rhs_batch, ","), "} -> ", PrimitiveTypeString(t[2]));
    auto fast = Dot(lhs, rhs, d.lhs_contracting, d.rhs_contracting, d.lhs_batch, d.rhs_batch, t[2]);
    ASSERT_TRUE(fast.ok()) << what << ": " << fast.status();
    auto exact = DotReference(lhs, rhs, d.lhs_contracting, d.rhs_contracting, d.lhs_batch,
                              d.rhs_batch, t[2]);
    ASSERT_TRUE(exact.ok()) << what << ": " << exact.status();
    ASSERT_EQ(fast->shape().ToString(), exact->shape().ToString()) << what;
    // The sum of |products| is at most 4 * contraction; the GEMM's sum is
    // off by at most contraction units of its type on that, and each
    // result is rounded once more to the result type.
    double compute = GemmType(t[0], t[1], t[2]) == F64 ? Epsilon(F64) : Epsilon(F32);
    double bound = 4.0 * d.contraction * d.contraction * compute;
    std::vector<double> got = Values(*fast), want = Values(*exact);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_LE(std::abs(got[i] - want[i]), bound + 2 * Epsilon(t[2]) * std::abs(want[i]))
          << what << ", element " << i << ": " << got[i] << " vs " << want[i];
  }
}

TEST(EvalDotGemmTest, SameBitsRunToRunAndForAnyThreadCount) {
  // Large enough to be cut into blocks and run on threads.
  std::mt19937_64 rng(7);
  for (PrimitiveType type : {F32, F64}) {
    // m = 520 rows make 3 blocks of the GEMM, in each of 2 batches.
    Literal lhs = Random(type, {2, 100, 520}, rng), rhs = Random(type, {130, 2, 100}, rng);
    auto run = [&](int threads) {
      SetDenseKernelThreadsForTesting(threads);
      auto result = Dot(lhs, rhs, {1}, {2}, {0}, {1}, type);
      SetDenseKernelThreadsForTesting(0);
      EXPECT_TRUE(result.ok()) << result.status();
      return result.ok() ? *result : Literal();
    };
    Literal one = run(1), two = run(2), again = run(2), three = run(3);
    EXPECT_TRUE(one == two) << PrimitiveTypeString(type);
    EXPECT_TRUE(two == again) << PrimitiveTypeString(type);
    EXPECT_TRUE(one == three) << PrimitiveTypeString(type);
    auto exact = DotReference(lhs, rhs, {1}, {2}, {0}, {1}, type);
    ASSERT_TRUE(exact.ok()) << exact.status();
    std::vector<double> got = Values(one), want = Values(*exact);
    double bound = 4.0 * 100 * 100 * (type == F32 ? Epsilon(F32) : Epsilon(F64));
    for (size_t i = 0; i < got.size(); i += 997)
      ASSERT_LE(std::abs(got[i] - want[i]), bound) << "element " << i;
  }
}

TEST(EvalDotGemmTest, HandComputedTransposedBatchLast) {
  // lhs[k, m, b], rhs[b, n, k]: result[b, m, n] = sum_k lhs[k, m, b] * rhs[b, n, k].
  // lhs: k=0: {{1, 2}, {3, 4}}, k=1: {{5, 6}, {7, 8}} (m rows, b columns);
  // rhs: b=0: {{1, 1}}, b=1: {{1, -1}} (n = 1 row, k columns).
  Literal lhs(Shape(F32, {2, 2, 2})), rhs(Shape(F32, {2, 1, 2}));
  for (int64_t i = 0; i < 8; ++i) lhs.SetFromDouble(i, i + 1);
  const double r[] = {1, 1, 1, -1};
  for (int64_t i = 0; i < 4; ++i) rhs.SetFromDouble(i, r[i]);
  // b=0: m=0: 1 + 5 = 6, m=1: 3 + 7 = 10; b=1: m=0: 2 - 6 = -4, m=1: 4 - 8 = -4.
  for (PrimitiveType type : {F32, F64, BF16}) {
    auto result = Dot(lhs, rhs, {0}, {2}, {2}, {0}, type);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->shape().ToString(),
              absl::StrCat(PrimitiveTypeString(type), "[2,2,1]{2,1,0}"));
    EXPECT_THAT(Values(*result), ElementsAre(6, 10, -4, -4)) << PrimitiveTypeString(type);
  }
}

TEST(EvalDotGemmTest, Bf16SumsInF32AndRoundsOnce) {
  // 256 + 1 + 1 in bf16 steps would stay 256 (bf16 has 8 significant bits);
  // in f32 it is 258, which bf16 holds exactly.
  Literal lhs(Shape(BF16, {3})), ones(Shape(BF16, {3}));
  const double values[] = {256, 1, 1};
  for (int64_t i = 0; i < 3; ++i) {
    lhs.SetFromDouble(i, values[i]);
    ones.SetFromDouble(i, 1);
  }
  auto result = Dot(lhs, ones, {0}, {0}, {}, {}, BF16);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(258));
}

// ---- Dot -------------------------------------------------------------------

TEST(EvalDotTest, MatrixVector) {
  // [[1 2 3] [4 5 6]] . [1 0 -1] = [-2 -2].
  auto result =
      Dot(Make(F32, {2, 3}, {1, 2, 3, 4, 5, 6}), Make(F32, {3}, {1, 0, -1}), {1}, {0}, {}, {}, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2));
  EXPECT_THAT(Values(*result), ElementsAre(-2, -2));
}

TEST(EvalDotTest, MatrixMatrix) {
  // [[1 2 3] [4 5 6]] x [[7 8] [9 10] [11 12]] = [[58 64] [139 154]].
  auto result = Dot(Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6}), Make(S32, {3, 2}, {7, 8, 9, 10, 11, 12}),
                    {1}, {0}, {}, {}, S32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2));
  EXPECT_THAT(Ints(*result), ElementsAre(58, 64, 139, 154));
}

TEST(EvalDotTest, Batched) {
  // Batch 0: [[1 2] [3 4]] x [[1 0] [0 1]] = [[1 2] [3 4]];
  // batch 1: [[1 1] [1 1]] x [[2 3] [4 5]] = [[6 8] [6 8]].
  Literal lhs = Make(F32, {2, 2, 2}, {1, 2, 3, 4, 1, 1, 1, 1});
  Literal rhs = Make(F32, {2, 2, 2}, {1, 0, 0, 1, 2, 3, 4, 5});
  auto result = Dot(lhs, rhs, {2}, {1}, {0}, {0}, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2, 2));
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3, 4, 6, 8, 6, 8));
}

TEST(EvalDotTest, BatchDimensionNotFirst) {
  // lhs [k=2, b=2], rhs [b=2, k=2]; batch lhs 1 / rhs 0, contracting
  // lhs 0 / rhs 1. lhs[k][b] = {1 2; 3 4} -> batch 0 column (1 3), batch 1
  // column (2 4); rhs rows (5 6), (7 8): 1*5+3*6 = 23, 2*7+4*8 = 46.
  auto result = Dot(Make(S32, {2, 2}, {1, 2, 3, 4}), Make(S32, {2, 2}, {5, 6, 7, 8}), {0}, {1}, {1},
                    {0}, S32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2));
  EXPECT_THAT(Ints(*result), ElementsAre(23, 46));
}

TEST(EvalDotTest, ContractingDimensionsNotLast) {
  // lhs [3,2] contracting 0, rhs [2,3] contracting 1: lhs^T x rhs^T.
  // lhs = [[1 2] [3 4] [5 6]], rhs = [[1 0 1] [0 1 0]].
  // result[i][j] = sum_k lhs[k][i] * rhs[j][k]:
  //   [0][0] = 1+5 = 6, [0][1] = 3, [1][0] = 2+6 = 8, [1][1] = 4.
  auto result = Dot(Make(F32, {3, 2}, {1, 2, 3, 4, 5, 6}), Make(F32, {2, 3}, {1, 0, 1, 0, 1, 0}),
                    {0}, {1}, {}, {}, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2));
  EXPECT_THAT(Values(*result), ElementsAre(6, 3, 8, 4));
}

TEST(EvalDotTest, TwoContractingDimensionsInSwappedOrder) {
  // lhs [2,2] contracting {0, 1}, rhs [2,2] contracting {1, 0}: sum of
  // lhs[a][b] * rhs[b][a] = 1*5 + 2*7 + 3*6 + 4*8 = 69.
  auto result = Dot(Make(S32, {2, 2}, {1, 2, 3, 4}), Make(S32, {2, 2}, {5, 6, 7, 8}), {0, 1},
                    {1, 0}, {}, {}, S32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->shape().IsScalar());
  EXPECT_THAT(Ints(*result), ElementsAre(69));
}

TEST(EvalDotTest, OuterProduct) {
  auto result = Dot(Make(S32, {2}, {1, 2}), Make(S32, {3}, {3, 4, 5}), {}, {}, {}, {}, S32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 3));
  EXPECT_THAT(Ints(*result), ElementsAre(3, 4, 5, 6, 8, 10));
}

TEST(EvalDotTest, IntegerWrapAround) {
  // 100*2 + 100*1 = 300, which wraps to 44 in s8 and 255 * 255 = 65025
  // -> 65025 mod 256 = 1 in u8.
  Literal lhs = Make(S8, {2}, {100, 100});
  Literal rhs = Make(S8, {2}, {2, 1});
  auto wrapped = Dot(lhs, rhs, {0}, {0}, {}, {}, S8);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status();
  EXPECT_THAT(Ints(*wrapped), ElementsAre(44));
  // Intermediate overflow: 127*127 + 127*127 = 32258 -> 2 in s8 (32258 =
  // 126*256 + 2); accumulating in int64 and wrapping at the end agrees.
  auto big = Dot(Make(S8, {2}, {127, 127}), Make(S8, {2}, {127, 127}), {0}, {0}, {}, {}, S8);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_THAT(Ints(*big), ElementsAre(2));
  // A wider result type keeps the exact value.
  auto wide = Dot(lhs, rhs, {0}, {0}, {}, {}, S32);
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Ints(*wide), ElementsAre(300));
  auto unsigned_bytes = Dot(Make(U8, {1}, {255}), Make(U8, {1}, {255}), {0}, {0}, {}, {}, U8);
  ASSERT_TRUE(unsigned_bytes.ok()) << unsigned_bytes.status();
  EXPECT_THAT(Ints(*unsigned_bytes), ElementsAre(1));
}

TEST(EvalDotTest, AccumulatesInF32LikeXla) {
  // An f32 dot runs on sgemm and sums in f32, as XLA's CPU backend and
  // evaluator do: 1e8 + 1 rounds back to 1e8 and the sum is 0 (it was 1
  // when the interpreter summed f32 products in double). With an f64
  // operand the product runs on dgemm and the sum is 1.
  auto f32 = Dot(Make(F32, {3}, {1e8, 1, -1e8}), Make(F32, {3}, {1, 1, 1}), {0}, {0}, {}, {}, F32);
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_THAT(Values(*f32), ElementsAre(0));
  auto f64 = Dot(Make(F64, {3}, {1e8, 1, -1e8}), Make(F32, {3}, {1, 1, 1}), {0}, {0}, {}, {}, F64);
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_THAT(Values(*f64), ElementsAre(1));
}

TEST(EvalDotTest, RoundsToBf16Result) {
  // bf16's unit in the last place at 1 is 1/128. 1 + 1/256 + 1/256 =
  // 1.0078125 is exact; 1 + 1/256 is a tie between 1 and 1.0078125 and
  // rounds to even (1); 1 + 3/256 is a tie between 1.0078125 and 1.015625
  // and rounds to even (1.015625).
  auto exact = Dot(Make(F32, {3}, {1, 0.00390625, 0.00390625}), Make(F32, {3}, {1, 1, 1}), {0}, {0},
                   {}, {}, BF16);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->shape().element_type(), BF16);
  EXPECT_THAT(Values(*exact), ElementsAre(1.0078125));
  auto down =
      Dot(Make(BF16, {2}, {1, 0.00390625}), Make(BF16, {2}, {1, 1}), {0}, {0}, {}, {}, BF16);
  ASSERT_TRUE(down.ok()) << down.status();
  EXPECT_THAT(Values(*down), ElementsAre(1));
  auto up = Dot(Make(BF16, {2}, {1, 0.01171875}), Make(BF16, {2}, {1, 1}), {0}, {0}, {}, {}, BF16);
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_THAT(Values(*up), ElementsAre(1.015625));
}

TEST(EvalDotTest, IntegerOperandsFloatResult) {
  auto result = Dot(Make(S32, {2}, {3, 4}), Make(S32, {2}, {5, 6}), {0}, {0}, {}, {}, F64);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(39));
}

TEST(EvalDotTest, Complex) {
  // (1+2i)(3+4i) + (0+1i)(0+1i) = (-5+10i) + (-1) = -6+10i.
  Literal lhs(Shape(C64, {2}));
  lhs.SetFromComplex(0, {1, 2});
  lhs.SetFromComplex(1, {0, 1});
  Literal rhs(Shape(C64, {2}));
  rhs.SetFromComplex(0, {3, 4});
  rhs.SetFromComplex(1, {0, 1});
  auto result = Dot(lhs, rhs, {0}, {0}, {}, {}, C64);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsComplex(0), std::complex<double>(-6, 10));
}

TEST(EvalDotTest, ZeroSizes) {
  // Contracting over nothing gives zeros.
  auto zeros = Dot(Make(F32, {2, 0}, {}), Make(F32, {0, 3}, {}), {1}, {0}, {}, {}, F32);
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_THAT(DimsOf(*zeros), ElementsAre(2, 3));
  EXPECT_THAT(Values(*zeros), ElementsAre(0, 0, 0, 0, 0, 0));
  auto empty =
      Dot(Make(S32, {0, 2}, {}), Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6}), {1}, {0}, {}, {}, S32);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(DimsOf(*empty), ElementsAre(0, 3));
}

TEST(EvalDotTest, Errors) {
  Literal m = Counting(F32, {2, 3});
  Literal v = Counting(F32, {2});
  EXPECT_INVALID(Dot(m, v, {1}, {0}, {}, {}, F32), "differ in size");
  EXPECT_INVALID(Dot(m, v, {2}, {0}, {}, {}, F32), "out of range");
  EXPECT_INVALID(Dot(m, v, {1}, {}, {}, {}, F32), "as many");
  EXPECT_INVALID(Dot(m, m, {0, 0}, {0, 0}, {}, {}, F32), "repeat");
  EXPECT_INVALID(Dot(m, m, {0}, {0}, {0}, {0}, F32), "repeat");
  EXPECT_INVALID(Dot(m, m, {0}, {0}, {}, {}, S32), "cannot hold");
  EXPECT_INVALID(Dot(m, m, {0}, {0}, {}, {}, PrimitiveType::TOKEN), "element type");
  Literal big = Make(F32, {1 << 15}, std::vector<double>(1 << 15, 1.0));
  EXPECT_INVALID(Dot(big, big, {}, {}, {}, {}, F32), "2^28");
}

}  // namespace
}  // namespace eval
}  // namespace hopt

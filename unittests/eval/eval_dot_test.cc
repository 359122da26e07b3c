// Tests of the interpreter's dot on the GEMMs of core/eval/dense_kernels.h:
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
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType F16 = PrimitiveType::F16;

Literal Random(PrimitiveType type, const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  Literal literal(Shape(type, dims));
  std::uniform_real_distribution<double> value(-2, 2);
  for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetFromDouble(i, value(rng));
  return literal;
}

std::vector<double> Values(const Literal& literal) {
  std::vector<double> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsDouble(i));
  return values;
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
  const PrimitiveType types[][3] = {{F32, F32, F32},  {F64, F64, F64},  {BF16, BF16, BF16},
                                    {F16, F16, F16},  {BF16, BF16, F32}, {F32, BF16, F32},
                                    {F32, F32, F64},  {F64, F32, F32}};
  for (int trial = 0; trial < 400; ++trial) {
    const auto& t = types[trial % 8];
    RandomDot d = MakeRandomDot(rng);
    Literal lhs = Random(t[0], d.lhs_dims, rng), rhs = Random(t[1], d.rhs_dims, rng);
    std::string what = absl::StrCat(
        "trial ", trial, ": ", lhs.shape().ToString(), " x ", rhs.shape().ToString(),
        " contracting {", absl::StrJoin(d.lhs_contracting, ","), "}x{",
        absl::StrJoin(d.rhs_contracting, ","), "} batch {", absl::StrJoin(d.lhs_batch, ","),
        "}x{", absl::StrJoin(d.rhs_batch, ","), "} -> ", PrimitiveTypeString(t[2]));
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
    EXPECT_EQ(result->shape().ToString(), absl::StrCat(PrimitiveTypeString(type), "[2,2,1]{2,1,0}"));
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

}  // namespace
}  // namespace eval
}  // namespace hopt

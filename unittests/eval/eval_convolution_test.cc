// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's convolution (core/eval/convolution.cc):
// hand-computed small cases for each window field and group count, and the
// im2col + GEMM path against the exact loop on random configurations.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType BF16 = PrimitiveType::BF16;
constexpr PrimitiveType F16 = PrimitiveType::F16;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType S8 = PrimitiveType::S8;

using array_testing::Make;
using array_testing::Values;

// 1-D, one batch and feature: x = {1, 2, 3, 4, 5}, kernel {1, 2, 3}.
std::vector<double> Conv1D(absl::string_view window, PrimitiveType type = F32,
                           std::vector<double> kernel = {1, 2, 3}) {
  Literal x = Make(type, {1, 5, 1}, {1, 2, 3, 4, 5});
  Literal k = Make(type, {static_cast<int64_t>(kernel.size()), 1, 1}, kernel);
  auto result = Convolution(x, k, window, "b0f_0io->b0f", 1, 1, type);
  EXPECT_TRUE(result.ok()) << window << ": " << result.status();
  return result.ok() ? Values(*result) : std::vector<double>{};
}

TEST(EvalConvolutionTest, Valid1D) {
  // 1*1 + 2*2 + 3*3, 2 + 6 + 12, 3 + 8 + 15.
  EXPECT_THAT(Conv1D("{size=3}"), ElementsAre(14, 20, 26));
  EXPECT_THAT(Conv1D("{size=3}", F64), ElementsAre(14, 20, 26));
  EXPECT_THAT(Conv1D("{size=3}", S32), ElementsAre(14, 20, 26));
}

TEST(EvalConvolutionTest, PaddingAndStride) {
  // Padded {0, 1, 2, 3, 4, 5, 0}, windows at 0, 2, 4: 0+2+6, 2+6+12, 4+10+0.
  EXPECT_THAT(Conv1D("{size=3 stride=2 pad=1_1}"), ElementsAre(8, 20, 14));
  // Negative padding crops: {2, 3, 4} alone.
  EXPECT_THAT(Conv1D("{size=3 pad=-1_-1}"), ElementsAre(20));
}

TEST(EvalConvolutionTest, LhsDilation) {
  // Dilated input {1, 0, 2, 0, 3, 0, 4, 0, 5}: 1+6, 4, 2+9, 6, 3+12, 8, 4+15.
  EXPECT_THAT(Conv1D("{size=3 lhs_dilate=2}"), ElementsAre(7, 4, 11, 6, 15, 8, 19));
}

TEST(EvalConvolutionTest, RhsDilation) {
  // Taps at 0, 2, 4: 1*1 + 3*2 + 5*3.
  EXPECT_THAT(Conv1D("{size=3 rhs_dilate=2}"), ElementsAre(22));
}

TEST(EvalConvolutionTest, Reversal) {
  // Kernel read as {3, 2, 1}: 3+4+3, 6+6+4, 9+8+5.
  EXPECT_THAT(Conv1D("{size=3 rhs_reversal=1}"), ElementsAre(10, 16, 22));
  EXPECT_THAT(Conv1D("{size=3 rhs_reversal=1}", S32), ElementsAre(10, 16, 22));
}

TEST(EvalConvolutionTest, FeatureGroups) {
  // x[s][f]: s0 = (1, 10), s1 = (2, 20); kernel[w][i=0][o]: o0 = (1, 1),
  // o1 = (1, -1). Output feature 0 reads feature 0: 1 + 2; output feature
  // 1 reads feature 1: 10 - 20.
  for (PrimitiveType type : {F32, S32}) {
    Literal x = Make(type, {1, 2, 2}, {1, 10, 2, 20});
    Literal k = Make(type, {2, 1, 2}, {1, 1, 1, -1});
    auto result = Convolution(x, k, "{size=2}", "b0f_0io->b0f", 2, 1, type);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->shape().ToString(),
              absl::StrCat(PrimitiveTypeString(type), "[1,1,2]{2,1,0}"));
    EXPECT_THAT(Values(*result), ElementsAre(3, -10));
  }
}

TEST(EvalConvolutionTest, BatchGroups) {
  // Batch 0 = (1, 2), batch 1 = (3, 4); kernel o0 = (1, 1), o1 = (1, -1).
  // Output feature 0 reads batch group 0: 1 + 2; feature 1 batch 1: 3 - 4.
  for (PrimitiveType type : {F32, S32}) {
    Literal x = Make(type, {2, 2, 1}, {1, 2, 3, 4});
    Literal k = Make(type, {2, 1, 2}, {1, 1, 1, -1});
    auto result = Convolution(x, k, "{size=2}", "b0f_0io->b0f", 1, 2, type);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->shape().ToString(),
              absl::StrCat(PrimitiveTypeString(type), "[1,1,2]{2,1,0}"));
    EXPECT_THAT(Values(*result), ElementsAre(3, -1));
  }
}

TEST(EvalConvolutionTest, TwoDimensionsFeatureMajorLabels) {
  // x = 1..9 as a 3x3 image; kernel {{1, 0}, {0, -1}}: x[i][j] - x[i+1][j+1].
  for (PrimitiveType type : {F32, F64, BF16, S32}) {
    Literal x = Make(type, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Literal k = Make(type, {1, 1, 2, 2}, {1, 0, 0, -1});
    auto result = Convolution(x, k, "{size=2x2}", "bf01_oi01->bf01", 1, 1, type);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_THAT(Values(*result), ElementsAre(-4, -4, -4, -4)) << PrimitiveTypeString(type);
  }
  // Output labels in another order than the input's: features first.
  Literal x = Make(F32, {1, 2, 2, 1}, {1, 2, 3, 4});
  Literal k = Make(F32, {1, 1, 1, 2}, {1, 10});
  auto result = Convolution(x, k, "{size=1x1}", "b01f_01io->f01b", 1, 1, F32);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->shape().ToString(), "f32[2,2,2,1]{3,2,1,0}");
  EXPECT_THAT(Values(*result), ElementsAre(1, 2, 3, 4, 10, 20, 30, 40));
}

TEST(EvalConvolutionTest, IntegersWrap) {
  // 100*2 + 100*2 = 400 wraps to 400 - 512 + 256 = 144, i.e. -112 in s8.
  Literal x = Make(S8, {1, 2, 1}, {100, 100});
  Literal k = Make(S8, {2, 1, 1}, {2, 2});
  auto result = Convolution(x, k, "{size=2}", "b0f_0io->b0f", 1, 1, S8);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(-112));
}

TEST(EvalConvolutionTest, Errors) {
  Literal x = Make(F32, {1, 4, 2}, std::vector<double>(8, 1));
  Literal k = Make(F32, {2, 2, 2}, std::vector<double>(8, 1));
  auto message = [](const absl::StatusOr<Literal>& r) {
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  EXPECT_THAT(message(Convolution(x, k, "{size=3}", "b0f_0io->b0f", 1, 1, F32)),
              HasSubstr("has size 3"));
  EXPECT_THAT(message(Convolution(x, k, "{size=2}", "b0f_0io->b0f", 2, 1, F32)),
              HasSubstr("feature_group_count=2"));
  EXPECT_THAT(message(Convolution(x, k, "{size=2}", "b0f_0io->b0f", 2, 2, F32)),
              HasSubstr("cannot both"));
  EXPECT_THAT(message(Convolution(x, k, "{size=2 stride=0}", "b0f_0io->b0f", 1, 1, F32)),
              HasSubstr("positive"));
  EXPECT_THAT(message(Convolution(x, k, "{size=2}", "b0f_0io->bxf", 1, 1, F32)),
              HasSubstr("dim_labels"));
  EXPECT_THAT(message(Convolution(x, k, "{size=2}", "b0f_0io->b0f", 1, 1, S32)),
              HasSubstr("cannot hold"));
}

// A random convolution: 1 or 2 spatial dimensions, random window fields,
// group counts and dimension orders.
struct RandomConv {
  std::vector<int64_t> lhs_dims, rhs_dims;
  std::string window, dim_labels;
  int64_t feature_groups = 1, batch_groups = 1, contraction = 1;
};

RandomConv MakeRandomConv(std::mt19937_64& rng) {
  auto pick = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(rng);
  };
  RandomConv c;
  int64_t spatial = pick(1, 2);
  int64_t groups = pick(1, 3);
  (pick(0, 1) ? c.feature_groups : c.batch_groups) = groups;
  int64_t batch = pick(1, 3) * c.batch_groups, in_group = pick(1, 3);
  int64_t in_features = in_group * c.feature_groups, out_features = groups * pick(1, 3);
  std::vector<int64_t> input(spatial), size(spatial);
  std::vector<std::string> sizes, strides, pads, lhs_dilates, rhs_dilates, reversals;
  for (int64_t d = 0; d < spatial; ++d) {
    input[d] = pick(1, 7);
    size[d] = pick(1, 3);
    sizes.push_back(absl::StrCat(size[d]));
    strides.push_back(absl::StrCat(pick(1, 3)));
    pads.push_back(absl::StrCat(pick(-1, 2), "_", pick(-1, 2)));
    lhs_dilates.push_back(absl::StrCat(pick(1, 2)));
    rhs_dilates.push_back(absl::StrCat(pick(1, 2)));
    reversals.push_back(absl::StrCat(pick(0, 1)));
    c.contraction *= size[d];
  }
  c.contraction *= in_group;
  c.window = absl::StrCat(
      "{size=", absl::StrJoin(sizes, "x"), " stride=", absl::StrJoin(strides, "x"),
      " pad=", absl::StrJoin(pads, "x"), " lhs_dilate=", absl::StrJoin(lhs_dilates, "x"),
      " rhs_dilate=", absl::StrJoin(rhs_dilates, "x"),
      " rhs_reversal=", absl::StrJoin(reversals, "x"), "}");
  // Each operand's roles in a random order.
  auto labels = [&](char batch_label, int64_t batch_size, char feature_label, int64_t feature_size,
                    const std::vector<int64_t>& spatial_sizes, std::vector<int64_t>* dims) {
    std::string text = std::string(1, batch_label) + feature_label;
    for (int64_t d = 0; d < spatial; ++d) text += static_cast<char>('0' + d);
    std::shuffle(text.begin(), text.end(), rng);
    for (char ch : text)
      dims->push_back(ch == batch_label     ? batch_size
                      : ch == feature_label ? feature_size
                                            : spatial_sizes[ch - '0']);
    return text;
  };
  std::vector<int64_t> unused;
  std::string lhs = labels('b', batch, 'f', in_features, input, &c.lhs_dims);
  std::string rhs = labels('i', in_group, 'o', out_features, size, &c.rhs_dims);
  std::string out = labels('b', 0, 'f', 0, std::vector<int64_t>(spatial, 0), &unused);
  c.dim_labels = absl::StrCat(lhs, "_", rhs, "->", out);
  return c;
}

TEST(EvalConvolutionTest, GemmPathMatchesTheExactLoop) {
  std::mt19937_64 rng(2028);
  const PrimitiveType types[][3] = {
      {F32, F32, F32}, {F64, F64, F64}, {BF16, BF16, BF16}, {F16, F16, F16}, {BF16, BF16, F32}};
  std::uniform_real_distribution<double> value(-2, 2);
  int nonempty = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto& t = types[trial % 5];
    RandomConv c = MakeRandomConv(rng);
    Literal lhs(Shape(t[0], c.lhs_dims)), rhs(Shape(t[1], c.rhs_dims));
    for (int64_t i = 0; i < lhs.element_count(); ++i) lhs.SetFromDouble(i, value(rng));
    for (int64_t i = 0; i < rhs.element_count(); ++i) rhs.SetFromDouble(i, value(rng));
    std::string what = absl::StrCat(
        "trial ", trial, ": ", lhs.shape().ToString(), " * ", rhs.shape().ToString(),
        " window=", c.window, " dim_labels=", c.dim_labels,
        " feature_group_count=", c.feature_groups, " batch_group_count=", c.batch_groups);
    auto fast =
        Convolution(lhs, rhs, c.window, c.dim_labels, c.feature_groups, c.batch_groups, t[2]);
    ASSERT_TRUE(fast.ok()) << what << ": " << fast.status();
    auto exact = ConvolutionReference(lhs, rhs, c.window, c.dim_labels, c.feature_groups,
                                      c.batch_groups, t[2]);
    ASSERT_TRUE(exact.ok()) << what << ": " << exact.status();
    ASSERT_EQ(fast->shape().ToString(), exact->shape().ToString()) << what;
    if (fast->element_count() > 0) ++nonempty;
    // As for dot: the GEMM's sum is off by at most contraction units of its
    // type on the sum of |products| (<= 4 * contraction), then rounded once
    // more to the result type.
    double unit = t[0] == F64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    double result_unit = t[2] == F64   ? std::ldexp(1.0, -53)
                         : t[2] == F32 ? std::ldexp(1.0, -24)
                         : t[2] == F16 ? std::ldexp(1.0, -11)
                                       : std::ldexp(1.0, -8);
    double bound = 4.0 * c.contraction * c.contraction * unit;
    std::vector<double> got = Values(*fast), want = Values(*exact);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_LE(std::abs(got[i] - want[i]), bound + 2 * result_unit * std::abs(want[i]))
          << what << ", element " << i << ": " << got[i] << " vs " << want[i];
  }
  // Most configurations leave some output (the rest check empty shapes).
  EXPECT_GT(nonempty, 150);
}

TEST(EvalConvolutionTest, LargeGemmPathMatchesTheExactLoop) {
  // Enough rows for several GEMM blocks and threads: 2 x 30 x 30 outputs of
  // a 3x3 window over 8 input features.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> value(-1, 1);
  Literal x(Shape(F32, {2, 32, 32, 8})), k(Shape(F32, {3, 3, 8, 16}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetFromDouble(i, value(rng));
  for (int64_t i = 0; i < k.element_count(); ++i) k.SetFromDouble(i, value(rng));
  auto fast = Convolution(x, k, "{size=3x3}", "b01f_01io->b01f", 1, 1, F32);
  auto again = Convolution(x, k, "{size=3x3}", "b01f_01io->b01f", 1, 1, F32);
  auto exact = ConvolutionReference(x, k, "{size=3x3}", "b01f_01io->b01f", 1, 1, F32);
  ASSERT_TRUE(fast.ok() && again.ok() && exact.ok());
  EXPECT_TRUE(*fast == *again);
  std::vector<double> got = Values(*fast), want = Values(*exact);
  ASSERT_EQ(got.size(), 2u * 30 * 30 * 16);
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::abs(got[i] - want[i]),
              72.0 * 72 * std::ldexp(1.0, -24) + 2 * std::ldexp(1.0, -24) * std::abs(want[i]))
        << "element " << i;
}

}  // namespace
}  // namespace eval
}  // namespace hopt

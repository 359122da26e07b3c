// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's reduce-window, select-and-scatter and map
// (core/eval/window_ops.h) and of the window helpers they share with
// convolution (core/eval/window.h): hand-computed small cases for each
// window field, XLA's fold orders and tie rules, empty and scalar shapes,
// NaN, the error paths, and whole modules through RunModule.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/eval/ops.h"
#include "core/eval/window.h"
#include "core/eval/window_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using array_testing::DimsOf;
using array_testing::Ints;
using array_testing::Make;
using array_testing::Scalar;
using array_testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;
constexpr PrimitiveType S64 = PrimitiveType::S64;
constexpr PrimitiveType PRED = PrimitiveType::PRED;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// A scalar computation from a function of the arguments' doubles, its
// result of `type`; counts its calls.
struct Computation {
  PrimitiveType type;
  std::function<double(const std::vector<double>&)> f;
  int calls = 0;

  ScalarCombiner AsCombiner() {
    return [this](const std::vector<Literal>& args) -> absl::StatusOr<std::vector<Literal>> {
      ++calls;
      std::vector<double> values;
      for (const Literal& a : args) values.push_back(a.GetAsDouble(0));
      std::vector<Literal> out;
      out.push_back(Scalar(type, f(values)));
      return out;
    };
  }
};

Computation Sum(PrimitiveType type = F32) {
  return {type, [](const std::vector<double>& v) { return v[0] + v[1]; }};
}
Computation Max(PrimitiveType type = F32) {
  // XLA's maximum: NaN wins.
  return {type, [](const std::vector<double>& v) {
            return std::isnan(v[0]) || std::isnan(v[1]) ? kNaN : std::max(v[0], v[1]);
          }};
}

std::vector<double> ReduceWindow1D(std::vector<double> x, absl::string_view window,
                                   double init = 0) {
  Literal input = Make(F32, {static_cast<int64_t>(x.size())}, x);
  Literal start = Scalar(F32, init);
  Computation sum = Sum();
  auto result = ReduceWindow({&input}, {&start}, window, sum.AsCombiner());
  EXPECT_TRUE(result.ok()) << window << ": " << result.status();
  return result.ok() ? Values((*result)[0]) : std::vector<double>{};
}

// ---------------------------------------------------------------------------
// The window helpers

TEST(EvalWindowTest, ParseReadsEveryField) {
  auto w = ParseWindow(
      "{size=3x2 stride=2x1 pad=1_-2x0_3 lhs_dilate=1x4 rhs_dilate=2x1 "
      "rhs_reversal=1x0}",
      2, "op");
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->size, ElementsAre(3, 2));
  EXPECT_THAT(w->stride, ElementsAre(2, 1));
  EXPECT_THAT(w->pad_low, ElementsAre(1, 0));
  EXPECT_THAT(w->pad_high, ElementsAre(-2, 3));
  EXPECT_THAT(w->lhs_dilate, ElementsAre(1, 4));
  EXPECT_THAT(w->rhs_dilate, ElementsAre(2, 1));
  EXPECT_THAT(w->reversal, ElementsAre(true, false));
}

TEST(EvalWindowTest, ParseRefusesMalformedWindows) {
  EXPECT_INVALID(ParseWindow("{size=3x3}", 1, "op"), "op: malformed window {size=3x3}");
  EXPECT_INVALID(ParseWindow("{size=3 bogus=1}", 1, "op"), "malformed window");
  EXPECT_INVALID(ParseWindow("{size=3 pad=1_1_1}", 1, "op"), "malformed window");
  EXPECT_INVALID(ParseWindow("{size=3 stride=0}", 1, "op"), "stride must be positive");
  EXPECT_INVALID(ParseWindow("{size=a}", 1, "op"), "malformed window");
  EXPECT_INVALID(ParseWindow("{stride=2}", 1, "op"), "has no size");
  EXPECT_INVALID(ParseWindow("{}", 2, "op"), "has no size");
  EXPECT_TRUE(ParseWindow("{}", 0, "op").ok());
}

TEST(EvalWindowTest, OutputSizeDilatesAnEmptyInputToNothing) {
  auto w = ParseWindow("{size=1 pad=1_1 lhs_dilate=3}", 1, "op");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*WindowOutputSize(*w, 0, 0, "op"), 2);  // just the padding
  EXPECT_EQ(*WindowOutputSize(*w, 0, 2, "op"), 6);  // {p, x, h, h, x, p}
  auto huge = ParseWindow("{size=1 pad=0_9223372036854775807}", 1, "op");
  ASSERT_TRUE(huge.ok());
  EXPECT_INVALID(WindowOutputSize(*huge, 0, 5, "op"), "more than 2^63");
}

// WindowTapsAlong solves for the progression of input coordinates a window
// reads: it must list exactly what the coordinate rule reads, in window
// order, for any mix of strides, padding and dilations.
TEST(EvalWindowTest, TapsMatchTheCoordinateRule) {
  std::mt19937 rng(7);
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 5000; ++trial) {
    Window w;
    w.size = {draw(1, 9)};
    w.stride = {draw(1, 3)};
    w.pad_low = {draw(-3, 4)};
    w.pad_high = {draw(-3, 4)};
    w.lhs_dilate = {draw(1, 6)};
    w.rhs_dilate = {draw(1, 6)};
    w.reversal = {false};
    int64_t input = draw(0, 8);
    int64_t outputs = *WindowOutputSize(w, 0, input, "op");
    auto taps = WindowTapsAlong(w, 0, input, outputs);
    ASSERT_EQ(static_cast<int64_t>(taps.size()), outputs);
    for (int64_t o = 0; o < outputs; ++o) {
      std::vector<int64_t> want, got;
      for (int64_t k = 0; k < w.size[0]; ++k) {
        int64_t p = WindowInputCoordinate(w, 0, o, k, input);
        if (p >= 0) want.push_back(p);
      }
      for (int64_t t = 0; t < taps[o].count; ++t) got.push_back(taps[o].first + t * taps[o].step);
      EXPECT_EQ(got, want) << "trial " << trial << " output " << o;
    }
  }
}

// ---------------------------------------------------------------------------
// reduce-window

TEST(EvalReduceWindowTest, EachWindowField) {
  // x = {1, 2, 3, 4, 5}.
  std::vector<double> x = {1, 2, 3, 4, 5};
  EXPECT_THAT(ReduceWindow1D(x, "{size=2}"), ElementsAre(3, 5, 7, 9));
  EXPECT_THAT(ReduceWindow1D(x, "{size=2 stride=2}"), ElementsAre(3, 7));
  // Padding reads as nothing (not as the init value): {p, 1, ..., 5, p, p}.
  EXPECT_THAT(ReduceWindow1D(x, "{size=3 stride=2 pad=1_2}", 100), ElementsAre(103, 109, 109));
  // Negative padding crops: {2, 3, 4}.
  EXPECT_THAT(ReduceWindow1D(x, "{size=2 pad=-1_-1}"), ElementsAre(5, 7));
  // rhs_dilate spreads the window: (1,3) (2,4) (3,5).
  EXPECT_THAT(ReduceWindow1D(x, "{size=2 rhs_dilate=2}"), ElementsAre(4, 6, 8));
  // lhs_dilate puts holes in the base: {1, h, 2, h, 3}.
  EXPECT_THAT(ReduceWindow1D({1, 2, 3}, "{size=2 lhs_dilate=2}"), ElementsAre(1, 2, 2, 3));
  // A window wider than the input: {p, p, 1, 2, p, p}, size 5.
  EXPECT_THAT(ReduceWindow1D({1, 2}, "{size=5 pad=2_2}"), ElementsAre(3, 3));
  // One that does not fit gives an empty result.
  EXPECT_THAT(ReduceWindow1D({1, 2}, "{size=3}"), ElementsAre());
}

TEST(EvalReduceWindowTest, TwoDimensionsMaxPool) {
  // 3x4, 2x2 windows, stride 1x2, padded one column on the right.
  Literal x = Make(F32, {3, 4}, {1, 5, 2, 0, 7, 3, 9, 4, 6, 8, 1, 2});
  Literal init = Scalar(F32, -kInf);
  Computation max = Max();
  auto result = ReduceWindow({&x}, {&init}, "{size=2x2 stride=1x2 pad=0_0x0_1}", max.AsCombiner());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf((*result)[0]), ElementsAre(2, 2));
  EXPECT_THAT(Values((*result)[0]), ElementsAre(7, 9, 8, 9));
}

TEST(EvalReduceWindowTest, FoldsInWindowOrderFromTheInit) {
  // acc * 10 + x over a 2x2 window of {1, 2, 3, 4}: row-major order.
  Literal x = Make(S64, {2, 2}, {1, 2, 3, 4});
  Literal init = Scalar(S64, 9);
  Computation horner{S64, [](const std::vector<double>& v) { return v[0] * 10 + v[1]; }};
  auto result = ReduceWindow({&x}, {&init}, "{size=2x2}", horner.AsCombiner());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints((*result)[0]), ElementsAre(91234));
  EXPECT_EQ(horner.calls, 4);
}

TEST(EvalReduceWindowTest, VariadicArgmax) {
  // (value, index) pairs; the larger value wins, ties keep the lower index.
  Literal values = Make(F32, {5}, {3, 7, 7, 1, 2});
  Literal index = Make(S32, {5}, {0, 1, 2, 3, 4});
  Literal v0 = Scalar(F32, -kInf), i0 = Scalar(S32, -1);
  int calls = 0;
  ScalarCombiner argmax =
      [&](const std::vector<Literal>& a) -> absl::StatusOr<std::vector<Literal>> {
    ++calls;
    EXPECT_EQ(a.size(), 4u);
    double av = a[0].GetAsDouble(0), bv = a[2].GetAsDouble(0);
    int64_t ai = a[1].GetAsInt64(0), bi = a[3].GetAsInt64(0);
    bool take = bv > av || (bv == av && bi < ai);
    std::vector<Literal> out;
    out.push_back(Scalar(F32, take ? bv : av));
    out.push_back(Scalar(S32, static_cast<double>(take ? bi : ai)));
    return out;
  };
  auto result = ReduceWindow({&values, &index}, {&v0, &i0}, "{size=3 pad=1_1}", argmax);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->size(), 2u);
  EXPECT_EQ((*result)[1].shape().element_type(), S32);
  EXPECT_THAT(Values((*result)[0]), ElementsAre(7, 7, 7, 7, 2));
  EXPECT_THAT(Ints((*result)[1]), ElementsAre(1, 1, 1, 2, 4));
  EXPECT_EQ(calls, 2 + 3 + 3 + 3 + 2);  // padding is never folded in
}

TEST(EvalReduceWindowTest, ResultTakesTheInitType) {
  Literal x = Make(S32, {3}, {1, 2, 3});
  Literal init = Scalar(S64, 0);
  Computation sum = Sum(S64);
  auto result = ReduceWindow({&x}, {&init}, "{size=3}", sum.AsCombiner());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)[0].shape().element_type(), S64);
  EXPECT_THAT(Ints((*result)[0]), ElementsAre(6));
}

TEST(EvalReduceWindowTest, EmptyAndScalarShapes) {
  // An empty input under padding: the init values alone, lhs_dilate or not.
  Literal empty = Make(F32, {0}, {});
  Literal init = Scalar(F32, 4);
  Computation sum = Sum();
  for (absl::string_view window : {"{size=1 pad=1_1}", "{size=1 pad=1_1 lhs_dilate=3}"}) {
    auto result = ReduceWindow({&empty}, {&init}, window, sum.AsCombiner());
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_THAT(Values((*result)[0]), ElementsAre(4, 4)) << window;
  }
  EXPECT_EQ(sum.calls, 0);
  // A zero-sized dimension beside others.
  Literal wide = Make(F32, {0, 3}, {});
  auto none = ReduceWindow({&wide}, {&init}, "{size=1x2}", sum.AsCombiner());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(DimsOf((*none)[0]), ElementsAre(0, 2));
  // A scalar: window={}, one fold.
  Literal scalar = Scalar(F32, 2.5);
  auto one = ReduceWindow({&scalar}, {&init}, "{}", sum.AsCombiner());
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(DimsOf((*one)[0]), ElementsAre());
  EXPECT_THAT(Values((*one)[0]), ElementsAre(6.5));
}

TEST(EvalReduceWindowTest, ElementCombinerMatchesTheComputation) {
  Literal x = Make(F32, {6}, {1, kNaN, 3, -2, 8, 0.5});
  Literal init = Scalar(F32, -kInf);
  auto fast = MakeElementCombiner(HloOpcode::kMaximum, F32);
  ASSERT_TRUE(fast.ok());
  Computation max = Max();
  auto with_fast = ReduceWindow({&x}, {&init}, "{size=2 pad=0_1}", max.AsCombiner(), &*fast);
  auto without = ReduceWindow({&x}, {&init}, "{size=2 pad=0_1}", max.AsCombiner());
  ASSERT_TRUE(with_fast.ok() && without.ok());
  EXPECT_EQ(max.calls, 11);  // the slow run's folds alone: 2+2+2+2+2+1
  for (const Literal* r : {&(*with_fast)[0], &(*without)[0]}) {
    std::vector<double> v = Values(*r);
    ASSERT_EQ(v.size(), 6u);
    EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
    EXPECT_THAT(std::vector<double>(v.begin() + 2, v.end()), ElementsAre(3, 8, 8, 0.5));
  }
}

TEST(EvalReduceWindowTest, CumulativeSumWindow) {
  // A cumulative sum: window as wide as the input, padded in front; the
  // taps are progressions, not lists.
  const int64_t n = 3000;
  Literal x(Shape(S64, {n}));
  for (int64_t k = 0; k < n; ++k) x.SetFromInt64(k, 1);
  Literal init = Scalar(S64, 0);
  auto add = MakeElementCombiner(HloOpcode::kAdd, S64);
  ASSERT_TRUE(add.ok());
  Computation unused = Sum(S64);
  auto result = ReduceWindow({&x}, {&init}, absl::StrCat("{size=", n, " pad=", n - 1, "_0}"),
                             unused.AsCombiner(), &*add);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<int64_t> sums = Ints((*result)[0]);
  ASSERT_EQ(static_cast<int64_t>(sums.size()), n);
  EXPECT_EQ(sums[0], 1);
  EXPECT_EQ(sums[n - 1], n);
  // A result past 2^28 elements is refused before anything is built.
  Literal one = Make(S64, {1}, {1});
  EXPECT_INVALID(ReduceWindow({&one}, {&init}, "{size=1 pad=0_536870912}", unused.AsCombiner()),
                 "has more than 2^28");
}

TEST(EvalReduceWindowTest, Errors) {
  Literal x = Make(F32, {4}, {1, 2, 3, 4});
  Literal y = Make(F32, {3}, {1, 2, 3});
  Literal init = Scalar(F32, 0);
  Literal vector_init = Make(F32, {1}, {0});
  Computation sum = Sum();
  ScalarCombiner c = sum.AsCombiner();
  EXPECT_INVALID(ReduceWindow({}, {}, "{}", c), "needs at least one input");
  EXPECT_INVALID(ReduceWindow({&x}, {&init, &init}, "{size=1}", c), "1 inputs but 2 init values");
  EXPECT_INVALID(ReduceWindow({&x}, {&vector_init}, "{size=1}", c),
                 "init value 0 must be a scalar");
  EXPECT_INVALID(ReduceWindow({&x, &y}, {&init, &init}, "{size=1}", c), "differ in dimensions");
  EXPECT_INVALID(ReduceWindow({&x}, {&init}, "{size=1x1}", c), "reduce-window: malformed window");
  EXPECT_INVALID(ReduceWindow({&x}, {&init}, "{size=0}", c), "size must be positive");
  Computation wrong_type = Sum(S32);
  EXPECT_INVALID(ReduceWindow({&x}, {&init}, "{size=2}", wrong_type.AsCombiner()),
                 "the combiner's result 0 is s32[], expected a f32 scalar");
  EXPECT_INVALID(ReduceWindow({&x, &x}, {&init, &init}, "{size=2}", c),
                 "the combiner returned 1 values, expected 2");
  Literal tuple(Shape::MakeTuple({Shape(F32, {2})}));
  EXPECT_INVALID(ReduceWindow({&tuple}, {&init}, "{size=1}", c), "input 0 must be an array");
}

// ---------------------------------------------------------------------------
// select-and-scatter

ScalarCombiner CompareBy(absl::string_view direction, int* calls = nullptr) {
  std::string d(direction);
  return [d, calls](const std::vector<Literal>& a) -> absl::StatusOr<std::vector<Literal>> {
    if (calls != nullptr) ++*calls;
    double x = a[0].GetAsDouble(0), y = a[1].GetAsDouble(0);
    bool r = d == "GE" ? x >= y : d == "GT" ? x > y : d == "LE" ? x <= y : x < y;
    std::vector<Literal> out;
    out.push_back(Scalar(PRED, r));
    return out;
  };
}

absl::StatusOr<Literal> Scatter1D(std::vector<double> operand, std::vector<double> source,
                                  absl::string_view window, absl::string_view direction = "GE",
                                  double init = 0) {
  Literal x = Make(F32, {static_cast<int64_t>(operand.size())}, operand);
  Literal s = Make(F32, {static_cast<int64_t>(source.size())}, source);
  Literal i = Scalar(F32, init);
  Computation add = Sum();
  return SelectAndScatter(x, s, i, window, CompareBy(direction), add.AsCombiner());
}

std::vector<double> Scattered(const absl::StatusOr<Literal>& result) {
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? Values(*result) : std::vector<double>{};
}

TEST(EvalSelectAndScatterTest, MaxPoolGradient) {
  // 4x4 operand, 2x2 windows with stride 2: each source value lands on its
  // window's largest element.
  Literal x = Make(F32, {4, 4},
                   {1, 2, 8, 3,  //
                    4, 3, 1, 0,  //
                    0, 9, 2, 2,  //
                    5, 1, 7, 6});
  Literal s = Make(F32, {2, 2}, {10, 20, 30, 40});
  Literal init = Scalar(F32, 0.5);
  Computation add = Sum();
  auto result =
      SelectAndScatter(x, s, init, "{size=2x2 stride=2x2}", CompareBy("GE"), add.AsCombiner());
  EXPECT_THAT(Scattered(result), ElementsAre(0.5, 0.5, 20.5, 0.5,  //
                                             10.5, 0.5, 0.5, 0.5,  //
                                             0.5, 30.5, 0.5, 0.5,  //
                                             0.5, 0.5, 40.5, 0.5));
  EXPECT_EQ(add.calls, 4);
}

TEST(EvalSelectAndScatterTest, OverlappingWindowsAccumulate) {
  // Windows {1,5,3} {5,3,2} {3,2,4}: the 5 is picked twice.
  EXPECT_THAT(Scattered(Scatter1D({1, 5, 3, 2, 4}, {10, 20, 30}, "{size=3}")),
              ElementsAre(0, 30, 0, 0, 30));
}

TEST(EvalSelectAndScatterTest, TiesFollowTheSelectFold) {
  // select(picked, candidate) false replaces the pick: GE keeps the first
  // of equal elements, GT takes the last; LE/LT likewise for the smallest.
  EXPECT_THAT(Scattered(Scatter1D({2, 1, 2}, {7}, "{size=3}", "GE")), ElementsAre(7, 0, 0));
  EXPECT_THAT(Scattered(Scatter1D({2, 1, 2}, {7}, "{size=3}", "GT")), ElementsAre(0, 0, 7));
  EXPECT_THAT(Scattered(Scatter1D({1, 2, 1}, {7}, "{size=3}", "LE")), ElementsAre(7, 0, 0));
  EXPECT_THAT(Scattered(Scatter1D({1, 2, 1}, {7}, "{size=3}", "LT")), ElementsAre(0, 0, 7));
}

TEST(EvalSelectAndScatterTest, NaNTakesOverAndIsReplaced) {
  // GE(1, NaN) is false: NaN is picked; GE(NaN, 3) is false: 3 is.
  EXPECT_THAT(Scattered(Scatter1D({1, kNaN, 3}, {7}, "{size=3}")).back(), 7);
  // GE(1, NaN) false and nothing after it: the NaN keeps the pick.
  auto result = Scatter1D({1, kNaN}, {7}, "{size=2}");
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(Values(*result), ElementsAre(0, 7));
}

TEST(EvalSelectAndScatterTest, ScatterTakesTheSourceFirst) {
  // Both windows of {1, 5, 3} pick the 5; scatter = source - current from
  // 100: 10 - 100 = -90, then 20 - (-90) = 110.
  Literal x = Make(F32, {3}, {1, 5, 3});
  Literal s = Make(F32, {2}, {10, 20});
  Literal init = Scalar(F32, 100);
  Computation minus{F32, [](const std::vector<double>& v) { return v[0] - v[1]; }};
  auto result = SelectAndScatter(x, s, init, "{size=2}", CompareBy("GE"), minus.AsCombiner());
  EXPECT_THAT(Scattered(result), ElementsAre(100, 110, 100));
}

TEST(EvalSelectAndScatterTest, PaddingIsNeverPicked) {
  // {p, p, 1, 2, p, p}, size 2 stride 2: the outer windows read nothing
  // and scatter nothing; the middle one picks the 2.
  int calls = 0;
  Literal x = Make(F32, {2}, {1, 2});
  Literal s = Make(F32, {3}, {7, 8, 9});
  Literal init = Scalar(F32, 0);
  Computation add = Sum();
  auto result = SelectAndScatter(x, s, init, "{size=2 stride=2 pad=2_2}", CompareBy("GE", &calls),
                                 add.AsCombiner());
  EXPECT_THAT(Scattered(result), ElementsAre(0, 8));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(add.calls, 1);
}

TEST(EvalSelectAndScatterTest, DilationsAndEmptyShapes) {
  // lhs_dilate=2: {1, h, 4, h, 2}; size-3 windows {1,h,4} {h,4,h} {4,h,2}.
  EXPECT_THAT(Scattered(Scatter1D({1, 4, 2}, {1, 2, 4}, "{size=3 lhs_dilate=2}")),
              ElementsAre(0, 7, 0));
  // rhs_dilate=2 on {3, 0, 1, 5}: windows {3, 1} and {0, 5}.
  EXPECT_THAT(Scattered(Scatter1D({3, 0, 1, 5}, {1, 2}, "{size=2 rhs_dilate=2}")),
              ElementsAre(1, 0, 0, 2));
  // Nothing to scatter into.
  EXPECT_THAT(Scattered(Scatter1D({}, {}, "{size=2}")), ElementsAre());
  // A scalar operand: one window, the element itself.
  Literal x = Scalar(S32, 3), s = Scalar(S32, 4), init = Scalar(S32, 1);
  Computation add = Sum(S32);
  auto result = SelectAndScatter(x, s, init, "{}", CompareBy("GE"), add.AsCombiner());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(5));
}

TEST(EvalSelectAndScatterTest, Errors) {
  EXPECT_INVALID(Scatter1D({1, 2, 3}, {1, 2, 3}, "{size=2}"),
                 "the source f32[3] does not match the window's output over the operand f32[2]");
  Literal x = Make(F32, {2}, {1, 2});
  Literal s = Make(S32, {1}, {1});
  Literal init = Scalar(F32, 0);
  Computation add = Sum();
  EXPECT_INVALID(SelectAndScatter(x, s, init, "{size=2}", CompareBy("GE"), add.AsCombiner()),
                 "must have one element type");
  Literal fs = Make(F32, {1}, {1});
  Computation not_pred = Sum();
  EXPECT_INVALID(SelectAndScatter(x, fs, init, "{size=2}", not_pred.AsCombiner(), add.AsCombiner()),
                 "the select's result 0 is f32[], expected a pred scalar");
  Computation wrong = Sum(S32);
  EXPECT_INVALID(SelectAndScatter(x, fs, init, "{size=2}", CompareBy("GE"), wrong.AsCombiner()),
                 "the scatter's result 0 is s32[], expected a f32 scalar");
  EXPECT_INVALID(SelectAndScatter(x, fs, init, "{size=2x2}", CompareBy("GE"), add.AsCombiner()),
                 "select-and-scatter: malformed window");
}

// ---------------------------------------------------------------------------
// map

TEST(EvalMapTest, ElementwiseOverOperandsOfMixedTypes) {
  Literal a = Make(F32, {2, 2}, {1.5, -2, 3, 0});
  Literal b = Make(S32, {2, 2}, {2, 3, -1, 7});
  Computation scale{F32, [](const std::vector<double>& v) { return v[0] * v[1]; }};
  auto result = Map({&a, &b}, {0, 1}, F32, scale.AsCombiner());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2));
  EXPECT_THAT(Values(*result), ElementsAre(3, -6, -3, 0));
  Computation greater{PRED, [](const std::vector<double>& v) { return v[0] > v[1]; }};
  auto compared = Map({&a, &b}, {0, 1}, PRED, greater.AsCombiner());
  ASSERT_TRUE(compared.ok()) << compared.status();
  EXPECT_EQ(compared->shape().element_type(), PRED);
  EXPECT_THAT(Ints(*compared), ElementsAre(0, 0, 1, 0));
}

TEST(EvalMapTest, EmptyAndScalar) {
  Literal empty = Make(F32, {3, 0}, {});
  Computation negate{F32, [](const std::vector<double>& v) { return -v[0]; }};
  auto none = Map({&empty}, {0, 1}, F32, negate.AsCombiner());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(DimsOf(*none), ElementsAre(3, 0));
  EXPECT_EQ(negate.calls, 0);
  Literal scalar = Scalar(F32, 2);
  auto one = Map({&scalar}, {}, F32, negate.AsCombiner());
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(Values(*one), ElementsAre(-2));
}

TEST(EvalMapTest, Errors) {
  Literal a = Make(F32, {2, 2}, {1, 2, 3, 4});
  Literal b = Make(F32, {4}, {1, 2, 3, 4});
  Computation add = Sum();
  EXPECT_INVALID(Map({}, {}, F32, add.AsCombiner()), "needs at least one operand");
  EXPECT_INVALID(Map({&a, &b}, {0, 1}, F32, add.AsCombiner()), "differ in dimensions");
  EXPECT_INVALID(Map({&a, &a}, {1, 0}, F32, add.AsCombiner()),
                 "dimensions={1,0} must list every dimension of f32[2,2] in order");
  EXPECT_INVALID(Map({&a, &a}, {0}, F32, add.AsCombiner()), "must list every dimension");
  EXPECT_INVALID(Map({&a, &a}, {0, 1}, S32, add.AsCombiner()),
                 "the computation's result 0 is f32[], expected a s32 scalar");
}

// ---------------------------------------------------------------------------
// Whole modules

constexpr char kComputations[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add_via_negate {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nb = f32[] negate(b)
  ROOT s = f32[] subtract(a, nb)
}

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

ge_via_not {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  lt = pred[] compare(a, b), direction=LT
  ROOT c = pred[] not(lt)
}

gt_swapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(b, a), direction=LT
}

argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

scale_tuple {
  x = f32[] parameter(0)
  n = s32[] parameter(1)
  c = f32[] convert(n)
  m = f32[] multiply(x, c)
  ROOT t = (f32[]) tuple(m)
}
)";

absl::StatusOr<Literal> RunEntry(absl::string_view entry) {
  return array_testing::RunOnOneDevice(
      absl::StrCat("HloModule m\n", kComputations, "\nENTRY e {\n", entry, "\n}\n"));
}

TEST(EvalWindowModuleTest, ReduceWindowFastAndGeneralAgree) {
  const std::string inputs = R"(
  x = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = f32[] constant(0.5))";
  auto fast = RunEntry(
      absl::StrCat(inputs,
                   "\n  ROOT r = f32[2,2] reduce-window(x, z), window={size=2x2 pad=0_1x0_0}, "
                   "to_apply=add"));
  auto general = RunEntry(
      absl::StrCat(inputs,
                   "\n  ROOT r = f32[2,2] reduce-window(x, z), window={size=2x2 pad=0_1x0_0}, "
                   "to_apply=add_via_negate"));
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(general.ok()) << general.status();
  EXPECT_THAT(Values(*fast), ElementsAre(12.5, 16.5, 9.5, 11.5));
  EXPECT_TRUE(*fast == *general);
}

TEST(EvalWindowModuleTest, VariadicReduceWindowIsATuple) {
  auto result = RunEntry(R"(
  x = f32[4] constant({3, 9, 1, 9})
  p = s32[4] iota(), iota_dimension=0
  v = f32[] constant(-inf)
  i = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce-window(x, p, v, i), window={size=2 stride=2}, to_apply=argmax)");
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->tuple_elements().size(), 2u);
  EXPECT_THAT(Values(result->tuple_elements()[0]), ElementsAre(9, 9));
  EXPECT_THAT(Ints(result->tuple_elements()[1]), ElementsAre(1, 3));
}

TEST(EvalWindowModuleTest, SelectAndScatterAndMap) {
  auto scattered = RunEntry(R"(
  x = f32[4] constant({1, 5, 3, 2})
  s = f32[2] constant({10, 20})
  z = f32[] constant(0)
  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=add)");
  ASSERT_TRUE(scattered.ok()) << scattered.status();
  EXPECT_THAT(Values(*scattered), ElementsAre(0, 10, 20, 0));
  // A computation returning a one-element tuple, as XLA's importer tests
  // write it.
  auto mapped = RunEntry(R"(
  x = f32[3] constant({1, 2, 3})
  n = s32[3] constant({2, 0, -1})
  ROOT r = f32[3] map(x, n), dimensions={0}, to_apply=scale_tuple)");
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_THAT(Values(*mapped), ElementsAre(2, 0, -3));
}

// Single-instruction computations run without a computation per element;
// the results must be those of the general path.
TEST(EvalWindowModuleTest, SingleInstructionShortcutsAgree) {
  const std::string inputs = R"(
  x = f32[6] constant({1, 7, 7, -2, 7, 0.5})
  s = f32[3] constant({10, 20, 30})
  y = f32[6] constant({0.25, -3, 2, 8, 1, 1})
  z = f32[] constant(0))";
  auto run = [&](absl::string_view select, absl::string_view map) {
    return RunEntry(absl::StrCat(
        inputs,
        "\n  ss = f32[6] select-and-scatter(x, s, z), window={size=3 stride=2 pad=0_1}, "
        "select=",
        select,
        ", scatter=add\n  m = f32[6] map(x, y), dimensions={0}, "
        "to_apply=",
        map, "\n  ROOT t = (f32[6], f32[6]) tuple(ss, m)"));
  };
  auto single = run("ge", "add");
  auto general = run("ge_via_not", "add_via_negate");
  ASSERT_TRUE(single.ok()) << single.status();
  ASSERT_TRUE(general.ok()) << general.status();
  // Windows {1,7,7} {7,-2,7} {7,0.5,p}: GE keeps the first 7 of each.
  EXPECT_THAT(Values(single->tuple_elements()[0]), ElementsAre(0, 10, 20, 0, 30, 0));
  EXPECT_THAT(Values(single->tuple_elements()[1]), ElementsAre(1.25, 4, 9, 6, 8, 1.5));
  EXPECT_TRUE(*single == *general);
  // compare(b, a) direction=LT is GT with the operands the other way: the
  // last 7 of each window.
  auto swapped = run("gt_swapped", "add");
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  EXPECT_THAT(Values(swapped->tuple_elements()[0]), ElementsAre(0, 0, 10, 0, 50, 0));
}

TEST(EvalWindowModuleTest, DeclaredShapeMustMatch) {
  auto result = RunEntry(R"(
  x = f32[5] constant({1, 2, 3, 4, 5})
  z = f32[] constant(0)
  ROOT r = f32[4] reduce-window(x, z), window={size=2 pad=1_0}, to_apply=add)");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("r (reduce-window): computes f32[5] but is declared f32[4]"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's fft, cholesky, triangular-solve and batch-norm
// ops (core/eval/linalg_ops.h): values worked out by hand, the edges (odd
// lengths, padding, empty arrays, failed factorizations, unread triangles)
// and the errors, then whole modules through RunModule for the attributes.

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/linalg_ops.h"
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
using Complex = std::complex<double>;

constexpr PrimitiveType F16 = PrimitiveType::F16;
constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType F64 = PrimitiveType::F64;
constexpr PrimitiveType C64 = PrimitiveType::C64;
constexpr PrimitiveType C128 = PrimitiveType::C128;
constexpr PrimitiveType S32 = PrimitiveType::S32;

using array_testing::DimsOf;
using array_testing::Make;
using array_testing::Values;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Literal MakeComplex(PrimitiveType type, std::vector<int64_t> dims, std::vector<Complex> values) {
  Literal literal(Shape(type, dims));
  EXPECT_EQ(literal.element_count(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(literal.element_count()); ++i)
    literal.SetFromComplex(static_cast<int64_t>(i), values[i]);
  return literal;
}

std::vector<Complex> ComplexValues(const Literal& literal) {
  std::vector<Complex> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsComplex(i));
  return values;
}

void ExpectNear(const std::vector<Complex>& got, const std::vector<Complex>& want,
                double tolerance = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_NEAR(got[k].real(), want[k].real(), tolerance) << "element " << k;
    EXPECT_NEAR(got[k].imag(), want[k].imag(), tolerance) << "element " << k;
  }
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                double tolerance = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_NEAR(got[k], want[k], tolerance) << "element " << k;
}

template <typename T>
T Ok(absl::StatusOr<T> value) {
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *std::move(value) : T();
}

// ---------------------------------------------------------------------------
// fft

TEST(LinalgFftTest, ForwardAndInverseOfLengthFour) {
  Literal x = MakeComplex(C64, {4}, {1, 2, 3, 4});
  Literal f = Ok(Fft(x, FftType::kFft, {4}, x.shape()));
  ExpectNear(ComplexValues(f), {{10, 0}, {-2, 2}, {-2, 0}, {-2, -2}});
  Literal back = Ok(Fft(f, FftType::kIfft, {4}, x.shape()));
  ExpectNear(ComplexValues(back), {1, 2, 3, 4});
}

TEST(LinalgFftTest, OtherLengthsTakeTheDirectDftOrBluestein) {
  // The DFT of the impulse at 1 is e^(-2 pi i k / n); short lengths take
  // the plain DFT, long ones (over 64) Bluestein's algorithm.
  for (int64_t n : {3, 5, 7, 12, 63, 65, 97, 100, 1000}) {
    std::vector<Complex> impulse(n, 0), want;
    impulse[1] = 1;
    for (int64_t k = 0; k < n; ++k) want.push_back(std::polar(1.0, -2 * M_PI * k / n));
    Literal x = MakeComplex(C128, {n}, impulse);
    ExpectNear(ComplexValues(Ok(Fft(x, FftType::kFft, {n}, x.shape()))), want, 1e-13);
    // The inverse brings the impulse back, scaled by 1/n on the way.
    Literal f = Ok(Fft(x, FftType::kFft, {n}, x.shape()));
    ExpectNear(ComplexValues(Ok(Fft(f, FftType::kIfft, {n}, x.shape()))), impulse, 1e-13);
  }
}

TEST(LinalgFftTest, PowerOfTwoIsAccurate) {
  const int64_t n = 64;
  std::vector<Complex> impulse(n, 0), want;
  impulse[3] = 1;
  for (int64_t k = 0; k < n; ++k) want.push_back(std::polar(1.0, -2 * M_PI * 3 * k / n));
  Literal x = MakeComplex(C128, {n}, impulse);
  ExpectNear(ComplexValues(Ok(Fft(x, FftType::kFft, {n}, x.shape()))), want, 1e-14);
}

TEST(LinalgFftTest, RealTransformsKeepHalfTheSpectrum) {
  Literal x = Make(F32, {4}, {1, 2, 3, 4});
  Literal r = Ok(Fft(x, FftType::kRfft, {4}, Shape(C64, {3})));
  EXPECT_EQ(r.shape().element_type(), C64);
  ExpectNear(ComplexValues(r), {{10, 0}, {-2, 2}, {-2, 0}});
  // IRFFT ignores the imaginary parts of the DC and Nyquist terms, which
  // a real signal cannot have.
  Literal spectrum = MakeComplex(C64, {3}, {{10, 5}, {-2, 2}, {-2, 7}});
  Literal back = Ok(Fft(spectrum, FftType::kIrfft, {4}, Shape(F32, {4})));
  ExpectNear(Values(back), {1, 2, 3, 4});
  // Odd length: n/2+1 = 3 of 5.
  Literal ones = Make(F64, {5}, {1, 1, 1, 1, 1});
  Literal rf = Ok(Fft(ones, FftType::kRfft, {5}, Shape(C128, {3})));
  ExpectNear(ComplexValues(rf), {5, 0, 0}, 1e-14);
  ExpectNear(Values(Ok(Fft(rf, FftType::kIrfft, {5}, Shape(F64, {5})))), {1, 1, 1, 1, 1}, 1e-14);
}

TEST(LinalgFftTest, TwoDimensionsAndBatches) {
  Literal x = MakeComplex(C64, {2, 2}, {1, 2, 3, 4});
  // Over both dimensions: sums and differences of rows and columns.
  ExpectNear(ComplexValues(Ok(Fft(x, FftType::kFft, {2, 2}, x.shape()))), {10, -2, -4, 0});
  // Over the last one only: each row on its own.
  ExpectNear(ComplexValues(Ok(Fft(x, FftType::kFft, {2}, x.shape()))), {3, -1, 7, -1});
  // 2-D IRFFT of the 2-D RFFT gives the signal back.
  Literal real = Make(F32, {2, 3, 4},
                      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, 0, 2, 0, 3, 1, 4, 1, 5, 9, 2, 6});
  Literal spectrum = Ok(Fft(real, FftType::kRfft, {3, 4}, Shape(C64, {2, 3, 3})));
  Literal back = Ok(Fft(spectrum, FftType::kIrfft, {3, 4}, real.shape()));
  ExpectNear(Values(back), Values(real), 1e-5);
}

TEST(LinalgFftTest, MismatchedLengthsCutAndPadAsXlasEvaluator) {
  // c64[3] with fft_length={2}: {1, 2} is transformed, the third result
  // element is zero.
  Literal x = MakeComplex(C64, {3}, {1, 2, 3});
  ExpectNear(ComplexValues(Ok(Fft(x, FftType::kFft, {2}, x.shape()))), {3, -1, 0});
  // fft_length longer than the data: zero padded, then cut back.
  Literal y = MakeComplex(C64, {2}, {1, 1});
  ExpectNear(ComplexValues(Ok(Fft(y, FftType::kFft, {4}, y.shape()))), {2, {1, -1}});
}

TEST(LinalgFftTest, EmptyArrays) {
  Literal x(Shape(C64, {0, 4}));
  Literal f = Ok(Fft(x, FftType::kFft, {4}, x.shape()));
  EXPECT_THAT(DimsOf(f), ElementsAre(0, 4));
  // A zero-length transform of a non-empty operand leaves zeros.
  Literal y = MakeComplex(C64, {2}, {1, 2});
  ExpectNear(ComplexValues(Ok(Fft(y, FftType::kFft, {0}, y.shape()))), {0, 0});
}

TEST(LinalgFftTest, Errors) {
  Literal c = MakeComplex(C64, {4}, {1, 2, 3, 4});
  Literal r = Make(F32, {4}, {1, 2, 3, 4});
  EXPECT_INVALID(Fft(c, FftType::kRfft, {4}, Shape(C64, {3})),
                 "RFFT maps f32->c64 or f64->c128; got c64[4]");
  EXPECT_INVALID(Fft(r, FftType::kFft, {4}, r.shape()),
                 "FFT maps c64->c64 or c128->c128; got f32[4]");
  EXPECT_INVALID(Fft(c, FftType::kFft, {4, 4}, c.shape()), "at least the fft rank");
  EXPECT_INVALID(Fft(c, FftType::kFft, {}, c.shape()), "1 to 3 entries");
  EXPECT_INVALID(Fft(c, FftType::kFft, {-1}, c.shape()), "negative fft_length");
  EXPECT_INVALID(Fft(r, FftType::kRfft, {4}, Shape(C64, {4})), "fft_length/2+1");
  EXPECT_INVALID(Fft(c, FftType::kIrfft, {4}, Shape(F32, {4})), "fft_length/2+1");
  EXPECT_INVALID(Fft(r, FftType::kRfft, {4}, Shape(C128, {3})), "got f32[4] -> c128[3]");
  EXPECT_INVALID(ParseFftType("DFT"), "unknown fft_type=DFT");
}

// ---------------------------------------------------------------------------
// cholesky

TEST(LinalgCholeskyTest, LowerAndUpperReadOnlyTheirTriangle) {
  // The classic 3x3 example; 99 marks what must not be read.
  Literal lower_in = Make(F64, {3, 3}, {4, 99, 99, 12, 37, 99, -16, -43, 98});
  EXPECT_THAT(Values(Ok(Cholesky(lower_in, true))), ElementsAre(2, 0, 0, 6, 1, 0, -8, 5, 3));
  Literal upper_in = Make(F64, {3, 3}, {4, 12, -16, 99, 37, -43, 99, 99, 98});
  EXPECT_THAT(Values(Ok(Cholesky(upper_in, false))), ElementsAre(2, 6, -8, 0, 1, 5, 0, 0, 3));
}

TEST(LinalgCholeskyTest, ComplexHermitian) {
  // A = [[4, 2-2i], [2+2i, 6]]: L = [[2, 0], [1+i, 2]], U = L^H.
  Literal lower_in = MakeComplex(C64, {2, 2}, {4, {99, 99}, {2, 2}, 6});
  ExpectNear(ComplexValues(Ok(Cholesky(lower_in, true))), {2, 0, {1, 1}, 2});
  Literal upper_in = MakeComplex(C128, {2, 2}, {4, {2, -2}, {99, 99}, 6});
  ExpectNear(ComplexValues(Ok(Cholesky(upper_in, false))), {2, {1, -1}, 0, 2});
}

TEST(LinalgCholeskyTest, AFailedPivotMakesOnlyItsMatrixNaN) {
  // Batch of two: the second, [[1, 2], [2, 1]], is indefinite (pivot -3).
  Literal a = Make(F32, {2, 2, 2}, {4, 0, 2, 5, 1, 0, 2, 1});
  std::vector<double> got = Values(Ok(Cholesky(a, true)));
  EXPECT_THAT(std::vector<double>(got.begin(), got.begin() + 4), ElementsAre(2, 0, 1, 2));
  for (int k = 4; k < 8; ++k) EXPECT_TRUE(std::isnan(got[k])) << k;
  // A zero pivot divides by zero; the NaN it makes fails a later pivot.
  Literal singular = Make(F32, {2, 2}, {0, 0, 0, 1});
  for (double v : Values(Ok(Cholesky(singular, true)))) EXPECT_TRUE(std::isnan(v));
  // A NaN on the diagonal fails too; complex NaN is (NaN, 0).
  Literal nan = MakeComplex(C64, {1, 1}, {Complex(kNaN, 0)});
  Complex c = ComplexValues(Ok(Cholesky(nan, true)))[0];
  EXPECT_TRUE(std::isnan(c.real()));
  EXPECT_EQ(c.imag(), 0);
}

TEST(LinalgCholeskyTest, RoundsToTheElementTypeAndHandlesEmpty) {
  // sqrt(2) in f16 is 1.4140625.
  Literal a = Make(F16, {1, 1}, {2});
  EXPECT_THAT(Values(Ok(Cholesky(a, true))), ElementsAre(1.4140625));
  EXPECT_THAT(DimsOf(Ok(Cholesky(Literal(Shape(F32, {0, 3, 3})), true))), ElementsAre(0, 3, 3));
  EXPECT_THAT(DimsOf(Ok(Cholesky(Literal(Shape(F32, {0, 0})), false))), ElementsAre(0, 0));
}

TEST(LinalgCholeskyTest, Errors) {
  EXPECT_INVALID(Cholesky(Literal(Shape(F32, {2, 3})), true), "square");
  EXPECT_INVALID(Cholesky(Literal(Shape(F32, {3})), true), "square");
  EXPECT_INVALID(Cholesky(Literal(Shape(S32, {2, 2})), true), "floating-point or complex");
}

// ---------------------------------------------------------------------------
// triangular-solve

TriangularSolveOptions Options(bool left, bool lower, bool unit, TransposeA t) {
  TriangularSolveOptions o;
  o.left_side = left;
  o.lower = lower;
  o.unit_diagonal = unit;
  o.transpose_a = t;
  return o;
}

TEST(LinalgTriangularSolveTest, LeftSide) {
  // a's lower triangle [[2, 0], [1, 4]]; 99 is never read.
  Literal a = Make(F32, {2, 2}, {2, 99, 1, 4});
  Literal b = Make(F32, {2, 1}, {2, 9});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(a, b, Options(true, true, false, TransposeA::kNoTranspose)))),
      ElementsAre(1, 2));
  // a^T = [[2, 1], [0, 4]]: x = {1, 2} gives b = {4, 8}.
  Literal bt = Make(F32, {2, 1}, {4, 8});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(a, bt, Options(true, true, false, TransposeA::kTranspose)))),
      ElementsAre(1, 2));
}

TEST(LinalgTriangularSolveTest, RightSideAndUnitDiagonal) {
  // x a = b with a's upper triangle [[2, 1], [0, 4]]: x = {1, 2}, b = {2, 9}.
  Literal a = Make(F64, {2, 2}, {2, 1, 99, 4});
  Literal b = Make(F64, {1, 2}, {2, 9});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(a, b, Options(false, false, false, TransposeA::kNoTranspose)))),
      ElementsAre(1, 2));
  // Unit diagonal: the zeros on a's diagonal are not read.
  Literal u = Make(F64, {2, 2}, {0, 99, 3, 0});
  Literal bu = Make(F64, {2, 1}, {1, 5});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(u, bu, Options(true, true, true, TransposeA::kNoTranspose)))),
      ElementsAre(1, 2));
}

TEST(LinalgTriangularSolveTest, AdjointConjugatesAndTransposeDoesNot) {
  // a's lower triangle [[2, 0], [i, 1]]; x = {1, i}.
  Literal a = MakeComplex(C64, {2, 2}, {2, {99, 99}, {0, 1}, 1});
  // a^H = [[2, -i], [0, 1]]: b = {2 + 1, i}.
  Literal b = MakeComplex(C64, {2, 1}, {3, {0, 1}});
  ExpectNear(
      ComplexValues(Ok(TriangularSolve(a, b, Options(true, true, false, TransposeA::kAdjoint)))),
      {1, {0, 1}});
  // a^T = [[2, i], [0, 1]]: b = {2 - 1, i}.
  Literal bt = MakeComplex(C64, {2, 1}, {1, {0, 1}});
  ExpectNear(
      ComplexValues(Ok(TriangularSolve(a, bt, Options(true, true, false, TransposeA::kTranspose)))),
      {1, {0, 1}});
}

TEST(LinalgTriangularSolveTest, BatchesAndSingularMatrices) {
  Literal a = Make(F32, {2, 1, 1}, {2, 4});
  Literal b = Make(F32, {2, 1, 3}, {2, 4, 6, 4, 8, 12});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(a, b, Options(true, true, false, TransposeA::kNoTranspose)))),
      ElementsAre(1, 2, 3, 1, 2, 3));
  // A zero diagonal divides by zero, as IEEE does.
  Literal zero = Make(F32, {1, 1}, {0});
  Literal one = Make(F32, {1, 1}, {1});
  EXPECT_THAT(
      Values(Ok(TriangularSolve(zero, one, Options(true, true, false, TransposeA::kNoTranspose)))),
      ElementsAre(std::numeric_limits<double>::infinity()));
  // Empty b.
  Literal empty(Shape(F32, {2, 0}));
  Literal a2 = Make(F32, {2, 2}, {1, 0, 0, 1});
  EXPECT_THAT(
      DimsOf(Ok(TriangularSolve(a2, empty, Options(true, true, false, TransposeA::kNoTranspose)))),
      ElementsAre(2, 0));
}

TEST(LinalgTriangularSolveTest, Errors) {
  TriangularSolveOptions left = Options(true, true, false, TransposeA::kNoTranspose);
  EXPECT_INVALID(TriangularSolve(Literal(Shape(F32, {2, 3})), Literal(Shape(F32, {2, 1})), left),
                 "square");
  EXPECT_INVALID(TriangularSolve(Literal(Shape(F32, {2, 2})), Literal(Shape(F32, {3, 1})), left),
                 "b's rows must match a");
  EXPECT_INVALID(TriangularSolve(Literal(Shape(F32, {2, 2})), Literal(Shape(F64, {2, 1})), left),
                 "of one type");
  EXPECT_INVALID(
      TriangularSolve(Literal(Shape(F32, {2, 2, 2})), Literal(Shape(F32, {3, 2, 1})), left),
      "batch dimensions");
  EXPECT_INVALID(ParseTransposeA("CONJUGATE"), "unknown transpose_a=CONJUGATE");
}

// ---------------------------------------------------------------------------
// batch norm

TEST(LinalgBatchNormTest, TrainingUsesTheBiasedVariance) {
  // Feature 0: {1, 3}, mean 2, variance 1; feature 1: {2, 6}, mean 4,
  // variance 4.
  Literal x = Make(F32, {2, 2}, {1, 2, 3, 6});
  Literal scale = Make(F32, {2}, {1, 2});
  Literal offset = Make(F32, {2}, {0, 10});
  Literal r = Ok(BatchNormTraining(x, scale, offset, 0, 1));
  ASSERT_EQ(r.tuple_elements().size(), 3u);
  EXPECT_THAT(Values(r.tuple_elements()[0]), ElementsAre(-1, 8, 1, 12));
  EXPECT_THAT(Values(r.tuple_elements()[1]), ElementsAre(2, 4));
  EXPECT_THAT(Values(r.tuple_elements()[2]), ElementsAre(1, 4));
}

TEST(LinalgBatchNormTest, Inference) {
  Literal x = Make(F32, {2, 2}, {1, 2, 3, 6});
  Literal r = Ok(BatchNormInference(x, Make(F32, {2}, {1, 2}), Make(F32, {2}, {0, 10}),
                                    Make(F32, {2}, {2, 4}), Make(F32, {2}, {1, 4}), 0, 1));
  EXPECT_THAT(Values(r), ElementsAre(-1, 8, 1, 12));
}

TEST(LinalgBatchNormTest, EpsilonIsAnF32) {
  // 1 / sqrt(0 + epsilon): f64 math, but epsilon rounded to f32 first.
  Literal r = Ok(BatchNormInference(Make(F64, {1}, {1}), Make(F64, {1}, {1}), Make(F64, {1}, {0}),
                                    Make(F64, {1}, {0}), Make(F64, {1}, {0}), 0.1, 0));
  EXPECT_EQ(Values(r)[0], 1 / std::sqrt(static_cast<double>(0.1f)));
  EXPECT_NE(Values(r)[0], 1 / std::sqrt(0.1));
}

TEST(LinalgBatchNormTest, Grad) {
  // One feature of three: x = {-1, 0, 1} around mean 0, variance 1,
  // grad_output {1, 0, 0}: sum(g) = 1, sum(g (x - mean)) = -1.
  Literal x = Make(F32, {3, 1}, {-1, 0, 1});
  Literal r = Ok(BatchNormGrad(x, Make(F32, {1}, {1}), Make(F32, {1}, {0}), Make(F32, {1}, {1}),
                               Make(F32, {3, 1}, {1, 0, 0}), 0, 1));
  // grad_x = 1/3 (3 g - 1 + (x - mean)).
  ExpectNear(Values(r.tuple_elements()[0]), {1.0 / 3, -1.0 / 3, 0});
  EXPECT_THAT(Values(r.tuple_elements()[1]), ElementsAre(-1));
  EXPECT_THAT(Values(r.tuple_elements()[2]), ElementsAre(1));
}

TEST(LinalgBatchNormTest, AnEmptyBatchHasNaNStatistics) {
  Literal r = Ok(BatchNormTraining(Literal(Shape(F32, {0, 2})), Make(F32, {2}, {1, 1}),
                                   Make(F32, {2}, {0, 0}), 0.001, 1));
  EXPECT_THAT(DimsOf(r.tuple_elements()[0]), ElementsAre(0, 2));
  for (double v : Values(r.tuple_elements()[1])) EXPECT_TRUE(std::isnan(v));
}

TEST(LinalgBatchNormTest, Errors) {
  Literal x = Make(F32, {2, 2}, {1, 2, 3, 4});
  Literal two = Make(F32, {2}, {1, 1});
  EXPECT_INVALID(BatchNormTraining(x, two, two, 0.1, 2), "feature_index=2 is out of range");
  EXPECT_INVALID(BatchNormTraining(x, Make(F32, {3}, {1, 1, 1}), two, 0.1, 0),
                 "per-feature operands must be f32[2]");
  EXPECT_INVALID(BatchNormTraining(x, two, Make(F16, {2}, {0, 0}), 0.1, 0),
                 "per-feature operands must be f32[2], got f16[2]");
  EXPECT_INVALID(BatchNormTraining(Literal(Shape(S32, {2, 2})), two, two, 0.1, 0),
                 "floating-point array");
  EXPECT_INVALID(BatchNormGrad(x, two, two, two, Make(F32, {4}, {1, 2, 3, 4}), 0.1, 0),
                 "grad_output must be shaped as the operand");
}

// ---------------------------------------------------------------------------
// Whole modules: the attributes as the HLO text spells them.

absl::StatusOr<std::vector<Literal>> RunEntry(const std::string& body) {
  return array_testing::RunParameterless(
      absl::StrCat("HloModule m\n\nENTRY main {\n", body, "}\n"));
}

TEST(LinalgModuleTest, AttributesAreRead) {
  auto out = RunEntry(R"(
  x = c64[4] constant({(1,0), (2,0), (3,0), (4,0)})
  f = c64[4] fft(x), fft_type=IFFT, fft_length={4}
  a = f32[2,2] constant({{4, 12}, {12, 37}})
  c = f32[2,2] cholesky(a)
  t = f32[2,2] constant({{2, 99}, {1, 4}})
  b = f32[1,2] constant({{4, 8}})
  s = f32[1,2] triangular-solve(t, b), lower=true, transpose_a=NO_TRANSPOSE
  ROOT r = (c64[4], f32[2,2], f32[1,2]) tuple(f, c, s)
)");
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<Literal>& parts = (*out)[0].tuple_elements();
  ExpectNear(ComplexValues(parts[0]), {2.5, {-0.5, -0.5}, -0.5, {-0.5, 0.5}});
  // No lower=: XLA's default is the upper factor.
  EXPECT_THAT(Values(parts[1]), ElementsAre(2, 6, 0, 1));
  // Right side (no left_side=): x [[2, 0], [1, 4]] = {4, 8} gives x = {1, 2}.
  EXPECT_THAT(Values(parts[2]), ElementsAre(1, 2));
}

TEST(LinalgModuleTest, BatchNormAttributes) {
  auto out = RunEntry(R"(
  x = f32[2,2] constant({{1, 2}, {3, 6}})
  scale = f32[2] constant({1, 2})
  offset = f32[2] constant({0, 10})
  ROOT r = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, scale, offset),
      epsilon=0, feature_index=1
)");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)[0].tuple_elements()[0]), ElementsAre(-1, 8, 1, 12));
}

TEST(LinalgModuleTest, ErrorsNameTheInstruction) {
  auto missing = RunEntry(R"(
  t = f32[1,1] constant({{2}})
  b = f32[1,1] constant({{4}})
  ROOT s = f32[1,1] triangular-solve(t, b), lower=true
)");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("interpreter: s (triangular-solve): needs transpose_a="));
  auto mismatch = RunEntry(R"(
  x = c64[3] constant({(1,0), (2,0), (3,0)})
  ROOT f = c64[3] fft(x), fft_type=FFT, fft_length={1,2,3,4}
)");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("interpreter: f (fft): fft: fft_length must have 1 to 3 entries"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

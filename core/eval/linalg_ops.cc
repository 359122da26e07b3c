// SPDX-License-Identifier: Apache-2.0
// The interpreter's fft, cholesky, triangular-solve and batch-norm ops
// (docs/interpreter-semantics.md, "FFT, Cholesky, triangular-solve and batch
// normalization"): the instruction's attributes are read here, the arrays
// computed by the functions of core/eval/linalg_ops.h (the fft in
// core/eval/fft.cc).

#include "core/eval/linalg_ops.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/eval/device_evaluator.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

using Complex = std::complex<double>;

// Element access in the computing type: double for reals, complex<double>
// for complex types.
template <typename T>
T Load(const Literal& literal, int64_t index);
template <>
double Load<double>(const Literal& literal, int64_t index) {
  return literal.GetAsDouble(index);
}
template <>
Complex Load<Complex>(const Literal& literal, int64_t index) {
  return literal.GetAsComplex(index);
}
void Store(Literal& literal, int64_t index, double value) { literal.SetFromDouble(index, value); }
void Store(Literal& literal, int64_t index, Complex value) { literal.SetFromComplex(index, value); }
double Conj(double value) { return value; }
Complex Conj(Complex value) { return std::conj(value); }

bool IsFloatOrComplex(PrimitiveType type) {
  return IsFloatingPointType(type) || IsComplexType(type);
}

// Matrices of [..., rows, columns]: how many, and elements per matrix.
int64_t MatrixCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < shape.rank(); ++d) count *= shape.dimensions(d);
  return count;
}

bool SameBatchDimensions(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t d = 0; d + 2 < a.rank(); ++d)
    if (a.dimensions(d) != b.dimensions(d)) return false;
  return true;
}

template <typename T>
void CholeskyOf(const Literal& a, bool lower, Literal& out) {
  const int64_t n = a.shape().dimensions(a.shape().rank() - 1);
  // An upper factor is XLA's lower factor of the plain transpose,
  // transposed back: U = L^T with L L^H = A^T, hence U^H U = A.
  auto at = [&](int64_t base, int64_t r, int64_t c) {
    return base + (lower ? r * n + c : c * n + r);
  };
  std::vector<T> l(n * n);
  for (int64_t m = 0; m < MatrixCount(a.shape()); ++m) {
    const int64_t base = m * n * n;
    std::fill(l.begin(), l.end(), T(0));
    bool failed = false;
    for (int64_t j = 0; j < n; ++j) {
      double pivot = std::real(Load<T>(a, at(base, j, j)));
      for (int64_t k = 0; k < j; ++k) pivot -= std::norm(l[j * n + k]);
      const double diagonal = std::sqrt(pivot);
      // As XLA: a NaN pivot (negative or NaN) fails the whole matrix; a
      // zero one divides by zero below and goes on.
      failed = failed || std::isnan(diagonal);
      l[j * n + j] = diagonal;
      for (int64_t i = j + 1; i < n; ++i) {
        T sum = Load<T>(a, at(base, i, j));
        for (int64_t k = 0; k < j; ++k) sum -= l[i * n + k] * Conj(l[j * n + k]);
        l[i * n + j] = sum / diagonal;
      }
    }
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c)
        Store(out, at(base, r, c),
              failed ? T(std::numeric_limits<double>::quiet_NaN()) : l[r * n + c]);
  }
}

template <typename T>
void TriangularSolveOf(const Literal& a, const Literal& b, const TriangularSolveOptions& o,
                       Literal& x) {
  const Shape& bs = b.shape();
  const int64_t m = a.shape().dimensions(a.shape().rank() - 1);
  const int64_t rows = bs.dimensions(bs.rank() - 2), columns = bs.dimensions(bs.rank() - 1);
  const bool transposed = o.transpose_a != TransposeA::kNoTranspose;
  // op(a) is triangular on the other side when transposed.
  const bool op_lower = o.lower != transposed;
  std::vector<T> op(m * m), solution(rows * columns);
  for (int64_t batch = 0; batch < MatrixCount(bs); ++batch) {
    const int64_t a_base = batch * m * m, b_base = batch * rows * columns;
    // op(a) from the named triangle of a only; the rest is zero.
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < m; ++c) {
        const int64_t ar = transposed ? c : r, ac = transposed ? r : c;
        T value(0);
        if (ar == ac && o.unit_diagonal) {
          value = T(1);
        } else if (o.lower ? ar >= ac : ar <= ac) {
          value = Load<T>(a, a_base + ar * m + ac);
          if (o.transpose_a == TransposeA::kAdjoint) value = Conj(value);
        }
        op[r * m + c] = value;
      }
    }
    auto t = [&](int64_t r, int64_t c) { return op[r * m + c]; };
    auto bx = [&](int64_t r, int64_t c) { return Load<T>(b, b_base + r * columns + c); };
    auto sx = [&](int64_t r, int64_t c) -> T& { return solution[r * columns + c]; };
    if (o.left_side) {
      // op(a) x = b, column by column, by substitution from the end where
      // op(a)'s row has one entry.
      for (int64_t j = 0; j < columns; ++j) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t r = op_lower ? step : m - 1 - step;
          T sum = bx(r, j);
          for (int64_t c = op_lower ? 0 : r + 1; c < (op_lower ? r : m); ++c)
            sum -= t(r, c) * sx(c, j);
          sx(r, j) = sum / t(r, r);
        }
      }
    } else {
      // x op(a) = b, row by row, from the end where op(a)'s column has one
      // entry.
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t step = 0; step < m; ++step) {
          const int64_t c = op_lower ? m - 1 - step : step;
          T sum = bx(i, c);
          for (int64_t r = op_lower ? c + 1 : 0; r < (op_lower ? m : c); ++r)
            sum -= sx(i, r) * t(r, c);
          sx(i, c) = sum / t(c, c);
        }
      }
    }
    for (int64_t k = 0; k < rows * columns; ++k) Store(x, b_base + k, solution[k]);
  }
}

// Where each element of a batch-norm operand falls: its feature, and how
// many elements each feature has.
struct FeatureLayout {
  int64_t features = 0, stride = 1, per_feature = 0;
  int64_t FeatureOf(int64_t linear) const { return (linear / stride) % features; }
};

// Checks a batch-norm operand and its per-feature operands (all of one
// floating-point type, each per-feature one of [features]).
absl::StatusOr<FeatureLayout> CheckBatchNorm(absl::string_view op, const Literal& operand,
                                             std::vector<const Literal*> per_feature,
                                             const Literal* same_shape, int64_t feature_index) {
  const Shape& s = operand.shape();
  const PrimitiveType type = s.element_type();
  if (!s.IsArray() || !IsFloatingPointType(type))
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the operand must be a floating-point array, got ", s.ToString(false)));
  if (feature_index < 0 || feature_index >= s.rank())
    return absl::InvalidArgumentError(absl::StrCat(op, ": feature_index=", feature_index,
                                                   " is out of range for ", s.ToString(false)));
  FeatureLayout layout;
  layout.features = s.dimensions(feature_index);
  for (int64_t d = feature_index + 1; d < s.rank(); ++d) layout.stride *= s.dimensions(d);
  layout.per_feature = layout.features == 0 ? 0 : operand.element_count() / layout.features;
  const Shape feature_shape(type, {layout.features});
  for (const Literal* p : per_feature)
    if (!p->shape().IsArray() || p->shape().element_type() != type ||
        p->shape().dimensions() != feature_shape.dimensions())
      return absl::InvalidArgumentError(absl::StrCat(op, ": per-feature operands must be ",
                                                     feature_shape.ToString(false), ", got ",
                                                     p->shape().ToString(false)));
  if (same_shape != nullptr && (same_shape->shape().dimensions() != s.dimensions() ||
                                same_shape->shape().element_type() != type))
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": grad_output must be shaped as the operand, ", s.ToString(false),
                     ", got ", same_shape->shape().ToString(false)));
  return layout;
}

// XLA keeps epsilon as an f32 and converts it to the element type.
double EpsilonFor(double epsilon, PrimitiveType type) {
  return RoundToFloatType(RoundToFloatType(epsilon, PrimitiveType::F32), type);
}

Shape FeatureShape(const Literal& operand, const FeatureLayout& layout) {
  return Shape(operand.shape().element_type(), {layout.features});
}

absl::StatusOr<bool> BoolAttribute(const HloInstruction& i, absl::string_view name) {
  auto text = i.GetAttributeText(name);
  if (!text) return false;
  auto value = ParseBool(*text);
  if (!value.ok()) return UnsupportedInstruction(i, absl::StrCat("malformed ", name, "=", *text));
  return *value;
}

absl::StatusOr<std::pair<double, int64_t>> BatchNormAttributes(const HloInstruction& i) {
  auto epsilon_text = i.GetAttributeText("epsilon");
  auto feature_index = i.IntAttribute("feature_index");
  double epsilon = 0;
  if (!epsilon_text || !absl::SimpleAtod(*epsilon_text, &epsilon) || !feature_index)
    return UnsupportedInstruction(i, "needs epsilon= and feature_index=");
  return std::make_pair(epsilon, *feature_index);
}

}  // namespace

absl::StatusOr<Literal> Cholesky(const Literal& a, bool lower) {
  const Shape& s = a.shape();
  if (!s.IsArray() || !IsFloatOrComplex(s.element_type()) || s.rank() < 2 ||
      s.dimensions(s.rank() - 1) != s.dimensions(s.rank() - 2))
    return absl::InvalidArgumentError(
        absl::StrCat("cholesky: needs square floating-point or complex matrices [..., n, n], got ",
                     s.ToString(false)));
  Literal out(s);
  if (IsComplexType(s.element_type()))
    CholeskyOf<Complex>(a, lower, out);
  else
    CholeskyOf<double>(a, lower, out);
  return out;
}

absl::StatusOr<TransposeA> ParseTransposeA(absl::string_view text) {
  if (text == "NO_TRANSPOSE") return TransposeA::kNoTranspose;
  if (text == "TRANSPOSE") return TransposeA::kTranspose;
  if (text == "ADJOINT") return TransposeA::kAdjoint;
  return absl::InvalidArgumentError(absl::StrCat("triangular-solve: unknown transpose_a=", text,
                                                 " (NO_TRANSPOSE, TRANSPOSE or ADJOINT)"));
}

absl::StatusOr<Literal> TriangularSolve(const Literal& a, const Literal& b,
                                        const TriangularSolveOptions& options) {
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("triangular-solve: ", why, "; got a ",
                                                   as.ToString(false), ", b ", bs.ToString(false)));
  };
  if (!as.IsArray() || !bs.IsArray() || !IsFloatOrComplex(as.element_type()) ||
      as.element_type() != bs.element_type())
    return refuse("a and b must be floating-point or complex arrays of one type");
  if (as.rank() < 2 || as.dimensions(as.rank() - 1) != as.dimensions(as.rank() - 2))
    return refuse("a must be square matrices [..., m, m]");
  if (!SameBatchDimensions(as, bs)) return refuse("a and b must have the same batch dimensions");
  if (bs.dimensions(bs.rank() - (options.left_side ? 2 : 1)) != as.dimensions(as.rank() - 1))
    return refuse(options.left_side ? "b's rows must match a (left_side)"
                                    : "b's columns must match a (right side)");
  Literal x(bs);
  if (IsComplexType(as.element_type()))
    TriangularSolveOf<Complex>(a, b, options, x);
  else
    TriangularSolveOf<double>(a, b, options, x);
  return x;
}

absl::StatusOr<Literal> BatchNormTraining(const Literal& operand, const Literal& scale,
                                          const Literal& offset, double epsilon,
                                          int64_t feature_index) {
  HOPT_ASSIGN_OR_RETURN(
      FeatureLayout layout,
      CheckBatchNorm("batch-norm-training", operand, {&scale, &offset}, nullptr, feature_index));
  const PrimitiveType type = operand.shape().element_type();
  const double eps = EpsilonFor(epsilon, type);
  std::vector<double> sum(layout.features, 0.0), squares(layout.features, 0.0);
  for (int64_t k = 0; k < operand.element_count(); ++k) {
    const double x = operand.GetAsDouble(k);
    sum[layout.FeatureOf(k)] += x;
    squares[layout.FeatureOf(k)] += x * x;
  }
  const Shape feature_shape = FeatureShape(operand, layout);
  Literal result(Shape::MakeTuple({operand.shape(), feature_shape, feature_shape}));
  std::vector<Literal>& parts = result.mutable_tuple_elements();
  std::vector<double> mean(layout.features), rsqrt(layout.features);
  const double count = static_cast<double>(layout.per_feature);
  for (int64_t f = 0; f < layout.features; ++f) {
    mean[f] = sum[f] / count;
    // XLA's expander: Var[X] = E[X^2] - E[X]^2.
    const double variance = squares[f] / count - mean[f] * mean[f];
    rsqrt[f] = 1.0 / std::sqrt(variance + eps);
    parts[1].SetFromDouble(f, mean[f]);
    parts[2].SetFromDouble(f, variance);
  }
  for (int64_t k = 0; k < operand.element_count(); ++k) {
    const int64_t f = layout.FeatureOf(k);
    parts[0].SetFromDouble(k, (operand.GetAsDouble(k) - mean[f]) * rsqrt[f] * scale.GetAsDouble(f) +
                                  offset.GetAsDouble(f));
  }
  return result;
}

absl::StatusOr<Literal> BatchNormInference(const Literal& operand, const Literal& scale,
                                           const Literal& offset, const Literal& mean,
                                           const Literal& variance, double epsilon,
                                           int64_t feature_index) {
  HOPT_ASSIGN_OR_RETURN(FeatureLayout layout, CheckBatchNorm("batch-norm-inference", operand,
                                                             {&scale, &offset, &mean, &variance},
                                                             nullptr, feature_index));
  const double eps = EpsilonFor(epsilon, operand.shape().element_type());
  std::vector<double> factor(layout.features), shift(layout.features);
  for (int64_t f = 0; f < layout.features; ++f) {
    // XLA's expander: x * scale' + (offset - mean * scale'), with
    // scale' = scale / sqrt(var + epsilon).
    factor[f] = scale.GetAsDouble(f) / std::sqrt(variance.GetAsDouble(f) + eps);
    shift[f] = offset.GetAsDouble(f) - mean.GetAsDouble(f) * factor[f];
  }
  Literal out(operand.shape());
  for (int64_t k = 0; k < operand.element_count(); ++k) {
    const int64_t f = layout.FeatureOf(k);
    out.SetFromDouble(k, operand.GetAsDouble(k) * factor[f] + shift[f]);
  }
  return out;
}

absl::StatusOr<Literal> BatchNormGrad(const Literal& operand, const Literal& scale,
                                      const Literal& mean, const Literal& variance,
                                      const Literal& grad_output, double epsilon,
                                      int64_t feature_index) {
  HOPT_ASSIGN_OR_RETURN(FeatureLayout layout,
                        CheckBatchNorm("batch-norm-grad", operand, {&scale, &mean, &variance},
                                       &grad_output, feature_index));
  const double eps = EpsilonFor(epsilon, operand.shape().element_type());
  std::vector<double> sum_grad(layout.features, 0.0), sum_grad_centered(layout.features, 0.0);
  for (int64_t k = 0; k < operand.element_count(); ++k) {
    const int64_t f = layout.FeatureOf(k);
    const double g = grad_output.GetAsDouble(k);
    sum_grad[f] += g;
    sum_grad_centered[f] += g * (operand.GetAsDouble(k) - mean.GetAsDouble(f));
  }
  const Shape feature_shape = FeatureShape(operand, layout);
  Literal result(Shape::MakeTuple({operand.shape(), feature_shape, feature_shape}));
  std::vector<Literal>& parts = result.mutable_tuple_elements();
  const double count = static_cast<double>(layout.per_feature);
  std::vector<double> var_eps(layout.features), rsqrt(layout.features);
  for (int64_t f = 0; f < layout.features; ++f) {
    var_eps[f] = variance.GetAsDouble(f) + eps;
    rsqrt[f] = 1.0 / std::sqrt(var_eps[f]);
    parts[1].SetFromDouble(f, sum_grad_centered[f] * rsqrt[f]);
    parts[2].SetFromDouble(f, sum_grad[f]);
  }
  // XLA's expander: scale * rsqrt(var + eps) / N *
  //   (N * g - sum(g) - (x - mean) * sum(g * (x - mean)) / (var + eps)).
  for (int64_t k = 0; k < operand.element_count(); ++k) {
    const int64_t f = layout.FeatureOf(k);
    const double centered = operand.GetAsDouble(k) - mean.GetAsDouble(f);
    const double inner = count * grad_output.GetAsDouble(k) - sum_grad[f] -
                         centered * sum_grad_centered[f] / var_eps[f];
    parts[0].SetFromDouble(k, scale.GetAsDouble(f) * rsqrt[f] / count * inner);
  }
  return result;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateLinalgOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  auto need = [&](size_t n) -> absl::Status {
    if (ops.size() == n) return absl::OkStatus();
    return UnsupportedInstruction(i, absl::StrCat("takes ", n, " operands, got ", ops.size()));
  };
  auto run = [&]() -> absl::StatusOr<Literal> {
    switch (i.opcode()) {
      case HloOpcode::kFft: {
        HOPT_RETURN_IF_ERROR(need(1));
        auto type_text = i.GetAttributeText("fft_type");
        auto length_text = i.GetAttributeText("fft_length");
        if (!type_text || !length_text)
          return UnsupportedInstruction(i, "needs fft_type= and fft_length=");
        HOPT_ASSIGN_OR_RETURN(FftType type, ParseFftType(*type_text));
        auto lengths = ParseIntList(*length_text);
        if (!lengths.ok())
          return UnsupportedInstruction(i, absl::StrCat("malformed fft_length=", *length_text));
        return Fft(*ops[0], type, *lengths, i.shape());
      }
      case HloOpcode::kCholesky: {
        HOPT_RETURN_IF_ERROR(need(1));
        HOPT_ASSIGN_OR_RETURN(bool lower, BoolAttribute(i, "lower"));
        return Cholesky(*ops[0], lower);
      }
      case HloOpcode::kTriangularSolve: {
        HOPT_RETURN_IF_ERROR(need(2));
        TriangularSolveOptions options;
        HOPT_ASSIGN_OR_RETURN(options.left_side, BoolAttribute(i, "left_side"));
        HOPT_ASSIGN_OR_RETURN(options.lower, BoolAttribute(i, "lower"));
        HOPT_ASSIGN_OR_RETURN(options.unit_diagonal, BoolAttribute(i, "unit_diagonal"));
        // XLA refuses a triangular-solve without transpose_a.
        auto transpose = i.GetAttributeText("transpose_a");
        if (!transpose) return UnsupportedInstruction(i, "needs transpose_a=");
        HOPT_ASSIGN_OR_RETURN(options.transpose_a, ParseTransposeA(*transpose));
        return TriangularSolve(*ops[0], *ops[1], options);
      }
      case HloOpcode::kBatchNormTraining: {
        HOPT_RETURN_IF_ERROR(need(3));
        HOPT_ASSIGN_OR_RETURN(auto attributes, BatchNormAttributes(i));
        return BatchNormTraining(*ops[0], *ops[1], *ops[2], attributes.first, attributes.second);
      }
      case HloOpcode::kBatchNormInference: {
        HOPT_RETURN_IF_ERROR(need(5));
        HOPT_ASSIGN_OR_RETURN(auto attributes, BatchNormAttributes(i));
        return BatchNormInference(*ops[0], *ops[1], *ops[2], *ops[3], *ops[4], attributes.first,
                                  attributes.second);
      }
      case HloOpcode::kBatchNormGrad: {
        HOPT_RETURN_IF_ERROR(need(5));
        HOPT_ASSIGN_OR_RETURN(auto attributes, BatchNormAttributes(i));
        return BatchNormGrad(*ops[0], *ops[1], *ops[2], *ops[3], *ops[4], attributes.first,
                             attributes.second);
      }
      default: return absl::InternalError("not a linalg op");
    }
  };
  switch (i.opcode()) {
    case HloOpcode::kFft:
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad: break;
    default: return std::nullopt;
  }
  absl::StatusOr<Literal> result = run();
  // The array functions do not know the instruction: name it.
  if (result.status().code() == absl::StatusCode::kInvalidArgument)
    return absl::InvalidArgumentError(absl::StrCat(
        "interpreter: ", i.name(), " (", i.OpcodeSpelling(), "): ", result.status().message()));
  return result;
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_LINALG_OPS_H_
#define HOPT_CORE_EVAL_LINALG_OPS_H_

// The interpreter's fft, cholesky, triangular-solve and batch-norm ops as
// functions on literals (internal to core/eval, not installed). Every one
// computes in double (complex<double> for complex types) and rounds to the
// result's element type once, at the end. docs/interpreter-semantics.md, "FFT, Cholesky,
// triangular-solve and batch normalization", gives the semantics and the
// choices where XLA is open.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// ---- fft (core/eval/fft.cc) -----------------------------------------------
enum class FftType { kFft, kIfft, kRfft, kIrfft };

// Parses XLA's spelling (FFT, IFFT, RFFT, IRFFT).
absl::StatusOr<FftType> ParseFftType(absl::string_view text);

// The transform over the innermost `lengths.size()` (1 to 3) dimensions of
// `operand`, shaped as `result` (which the caller takes from the
// instruction). IFFT and IRFFT are scaled by 1/N. As XLA's evaluator does,
// an FFT/IFFT operand whose innermost dimensions differ from `lengths` is
// cut or padded with zeros to them, and the result is cut or padded back.
absl::StatusOr<Literal> Fft(const Literal& operand, FftType type, absl::Span<const int64_t> lengths,
                            const Shape& result);

// ---- cholesky and triangular-solve (core/eval/linalg_ops.cc) ---------------

// Batched over the leading dimensions of a [..., n, n]. Reads only the
// named triangle; the other triangle of the result is zero. A matrix with
// a pivot that is negative or NaN (not positive definite) becomes all NaN.
absl::StatusOr<Literal> Cholesky(const Literal& a, bool lower);

enum class TransposeA { kNoTranspose, kTranspose, kAdjoint };

absl::StatusOr<TransposeA> ParseTransposeA(absl::string_view text);

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TransposeA transpose_a = TransposeA::kNoTranspose;
};

// Solves op(a) x = b (left side) or x op(a) = b, batched over the leading
// dimensions; only the named triangle of a is read (not its diagonal when
// unit_diagonal).
absl::StatusOr<Literal> TriangularSolve(const Literal& a, const Literal& b,
                                        const TriangularSolveOptions& options);

// ---- batch norm (core/eval/linalg_ops.cc) ---------------------------------
// `epsilon` is the attribute's value; like XLA it is taken as an f32 and
// then converted to the element type.

// (output, batch_mean, batch_var), the variance biased: E[x^2] - E[x]^2.
absl::StatusOr<Literal> BatchNormTraining(const Literal& operand, const Literal& scale,
                                          const Literal& offset, double epsilon,
                                          int64_t feature_index);

absl::StatusOr<Literal> BatchNormInference(const Literal& operand, const Literal& scale,
                                           const Literal& offset, const Literal& mean,
                                           const Literal& variance, double epsilon,
                                           int64_t feature_index);

// (grad_operand, grad_scale, grad_offset).
absl::StatusOr<Literal> BatchNormGrad(const Literal& operand, const Literal& scale,
                                      const Literal& mean, const Literal& variance,
                                      const Literal& grad_output, double epsilon,
                                      int64_t feature_index);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_LINALG_OPS_H_

// SPDX-License-Identifier: Apache-2.0

#include "core/eval/conversion_ops.h"

// The interpreter's bitcast, reduce-precision, stochastic-convert and the
// dynamic-shape ops (docs/interpreter-semantics.md, "Bitcast, reduce-precision,
// stochastic-convert and dynamic shapes").

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ops.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

absl::Status CheckArrayShape(absl::string_view op, const Shape& shape, absl::string_view what) {
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat(what, " must be an array, got ", shape.ToString()));
  for (int64_t d : shape.dimensions())
    if (d < 0)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has an unbounded dimension"));
  return absl::OkStatus();
}

// An array whose values are known.
absl::Status CheckOperand(absl::string_view op, const Literal& literal, absl::string_view what) {
  HOPT_RETURN_IF_ERROR(CheckArrayShape(op, literal.shape(), what));
  if (literal.is_elided())
    return OperationError(
        op, absl::StrCat(what, " ", literal.shape().ToString(), " has elided (unknown) values"));
  return absl::OkStatus();
}

// The value of an integer scalar operand.
absl::StatusOr<int64_t> IntegerScalar(absl::string_view op, const Literal& literal,
                                      absl::string_view what) {
  HOPT_RETURN_IF_ERROR(CheckOperand(op, literal, what));
  if (!literal.shape().IsScalar() || !IsIntegralType(literal.shape().element_type()))
    return OperationError(
        op, absl::StrCat(what, " must be an integer scalar, got ", literal.shape().ToString()));
  return literal.GetAsInt64(0);
}

// The operand with `result`'s shape (same element type and element count),
// elements in row-major order.
absl::StatusOr<Literal> WithShape(absl::string_view op, const Literal& operand,
                                  const Shape& result) {
  if (result.element_type() != operand.shape().element_type() ||
      result.ElementCount() != operand.element_count())
    return OperationError(
        op, absl::StrCat("cannot make ", result.ToString(), " from ", operand.shape().ToString()));
  Literal out(result);
  for (int64_t k = 0; k < out.element_count(); ++k) out.CopyElementFrom(operand, k, k);
  return out;
}

// ---- bitcast ---------------------------------------------------------------

// For each position in memory (the layout's minor-to-major order), the
// row-major index of the element stored there.
absl::StatusOr<std::vector<int64_t>> PhysicalOrder(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> minor_to_major;
  if (shape.has_layout()) {
    minor_to_major.assign(shape.minor_to_major().begin(), shape.minor_to_major().end());
    std::vector<bool> seen(rank, false);
    bool permutation = static_cast<int64_t>(minor_to_major.size()) == rank;
    for (int64_t d : minor_to_major) {
      permutation = permutation && d >= 0 && d < rank && !seen[d];
      if (permutation) seen[d] = true;
    }
    if (!permutation)
      return OperationError("bitcast", absl::StrCat("the layout of ", shape.ToString(),
                                                    " is not a permutation of its dimensions"));
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) minor_to_major.push_back(d);
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  const int64_t n = shape.ElementCount();
  std::vector<int64_t> order(n), index(rank, 0);
  int64_t linear = 0;
  for (int64_t p = 0; p < n; ++p) {
    order[p] = linear;
    for (int64_t d : minor_to_major) {
      linear += strides[d];
      if (++index[d] < shape.dimensions(d)) break;
      linear -= strides[d] * shape.dimensions(d);
      index[d] = 0;
    }
  }
  return order;
}

// `stream` (one dimension, in memory order) reinterpreted as `count`
// elements of `type`: element by element for equal widths, else through
// its little-endian bytes (both widths whole bytes).
absl::StatusOr<Literal> Reinterpret(const Literal& stream, PrimitiveType type, int64_t count) {
  const PrimitiveType from = stream.shape().element_type();
  if (from == type) return stream;
  const int from_bits = PrimitiveTypeBitWidth(from), to_bits = PrimitiveTypeBitWidth(type);
  if (from_bits == to_bits) return BitcastConvert(stream, Shape(type, {count}));
  auto bytes_shape = [](int64_t elements, int bits) {
    return bits == 8 ? Shape(PrimitiveType::U8, {elements})
                     : Shape(PrimitiveType::U8, {elements, bits / 8});
  };
  HOPT_ASSIGN_OR_RETURN(Literal bytes,
                        BitcastConvert(stream, bytes_shape(stream.element_count(), from_bits)));
  Literal regrouped(bytes_shape(count, to_bits));
  for (int64_t k = 0; k < regrouped.element_count(); ++k) regrouped.CopyElementFrom(bytes, k, k);
  return BitcastConvert(regrouped, Shape(type, {count}));
}

// ---- reduce-precision ------------------------------------------------------

// XLA's reduce-precision on the bits of a value with `src_exponent` and
// `src_mantissa` bits: round to nearest even in the kept mantissa bits
// (a carry may raise the exponent), then exponents above the reduced range
// become infinity and those at or below its smallest normal one become
// zero (the reduced format has no denormals). NaN is the caller's.
template <typename Uint>
Uint ReduceBits(Uint v, int src_exponent, int src_mantissa, int64_t exponent_bits,
                int64_t mantissa_bits) {
  if (mantissa_bits < src_mantissa) {
    const int dropped = src_mantissa - static_cast<int>(mantissa_bits);
    const Uint last_kept = Uint{1} << dropped;
    // 0111... below the last kept bit, plus that bit: ties go to even.
    const Uint bias = ((last_kept >> 1) - 1) + ((v & last_kept) >> dropped);
    v = (v + bias) & ~(last_kept - 1);
  }
  if (exponent_bits < src_exponent) {
    const Uint sign = Uint{1} << (src_exponent + src_mantissa);
    const Uint exponent_mask = ((Uint{1} << src_exponent) - 1) << src_mantissa;
    const Uint src_bias = (Uint{1} << (src_exponent - 1)) - 1;
    const Uint reduced_bias = (Uint{1} << (exponent_bits - 1)) - 1;
    const Uint exponent = v & exponent_mask;
    if (exponent > ((src_bias + reduced_bias) << src_mantissa))
      v = (v & sign) | exponent_mask;
    else if (exponent <= ((src_bias - reduced_bias) << src_mantissa))
      v = v & sign;
  }
  return v;
}

// One element: f64 on its own bits; every narrower type on its value as
// an f32, as XLA's evaluator computes them (so an f16 denormal is below the
// smallest normal of 5 exponent bits and becomes zero).
double ReduceValue(double x, PrimitiveType type, int64_t exponent_bits, int64_t mantissa_bits) {
  if (type == PrimitiveType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits = ReduceBits<uint64_t>(bits, 11, 52, exponent_bits, mantissa_bits);
    std::memcpy(&x, &bits, sizeof bits);
    return x;
  }
  float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = ReduceBits<uint32_t>(bits, 8, 23, exponent_bits, mantissa_bits);
  std::memcpy(&f, &bits, sizeof bits);
  return f;
}

// ---- stochastic-convert ----------------------------------------------------

// floor(|x|) plus one when `random` is below the fraction's first W bits
// (W the random's width), with x's sign; x at or beyond the type's limits
// (compared in x's type, as XLA does) saturates, NaN gives 0.
int64_t StochasticRound(double x, uint64_t random, int random_bits, PrimitiveType from,
                        PrimitiveType to) {
  const int bits = PrimitiveTypeBitWidth(to);
  const int64_t max = static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1), min = -max - 1;
  if (std::isnan(x)) return 0;
  if (x <= RoundToFloatType(static_cast<double>(min), from)) return min;
  if (x >= RoundToFloatType(static_cast<double>(max), from)) return max;
  const double magnitude = std::fabs(x);
  const double whole = std::floor(magnitude);
  // The fraction times 2^W is below 2^W and exact in double; conversion to
  // the unsigned type truncates it.
  const double fixed = std::ldexp(magnitude - whole, random_bits);
  int64_t rounded = static_cast<int64_t>(whole);
  if (random < static_cast<uint64_t>(fixed)) ++rounded;
  return x < 0 ? -rounded : rounded;
}

}  // namespace

absl::StatusOr<Literal> Bitcast(const Literal& operand, const Shape& result) {
  constexpr absl::string_view op = "bitcast";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckArrayShape(op, result, "the result"));
  const Shape& in = operand.shape();
  const PrimitiveType from = in.element_type(), to = result.element_type();
  const int from_bits = PrimitiveTypeBitWidth(from), to_bits = PrimitiveTypeBitWidth(to);
  const int64_t n = in.ElementCount(), m = result.ElementCount();
  if (from_bits != to_bits && (from_bits % 8 != 0 || to_bits % 8 != 0))
    return absl::UnimplementedError(
        absl::StrCat("bitcast: ", in.ToString(), " to ", result.ToString(),
                     ": a sub-byte type bitcast to another width depends on how its layout packs "
                     "elements, which the interpreter does not model"));
  const bool same_size = from_bits == to_bits ? n == m : n * (from_bits / 8) == m * (to_bits / 8);
  if (!same_size) {
    auto size = [](const Shape& s, int64_t count, int bits) {
      return bits % 8 == 0 ? absl::StrCat(s.ToString(), " (", count * (bits / 8), " bytes)")
                           : absl::StrCat(s.ToString(), " (", count, " elements)");
    };
    return OperationError(op, absl::StrCat("cannot bitcast ", size(in, n, from_bits), " to ",
                                           size(result, m, to_bits), ": the sizes differ"));
  }
  HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> in_order, PhysicalOrder(in));
  HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> out_order, PhysicalOrder(result));
  Literal stream(Shape(from, {n}));
  for (int64_t p = 0; p < n; ++p) stream.CopyElementFrom(operand, in_order[p], p);
  HOPT_ASSIGN_OR_RETURN(Literal converted, Reinterpret(stream, to, m));
  Literal out(result);
  for (int64_t p = 0; p < m; ++p) out.CopyElementFrom(converted, p, out_order[p]);
  return out;
}

absl::StatusOr<Literal> ReducePrecision(const Literal& operand, int64_t exponent_bits,
                                        int64_t mantissa_bits) {
  constexpr absl::string_view op = "reduce-precision";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "the operand"));
  const PrimitiveType type = operand.shape().element_type();
  if (!IsFloatingPointType(type))
    return OperationError(op,
                          absl::StrCat("not defined for element type ", PrimitiveTypeString(type)));
  if (exponent_bits < 1 || mantissa_bits < 0)
    return OperationError(op, absl::StrCat("needs exponent_bits >= 1 and mantissa_bits >= 0, got ",
                                           exponent_bits, " and ", mantissa_bits));
  Literal out(operand.shape());
  for (int64_t k = 0; k < out.element_count(); ++k) {
    const double x = operand.GetAsDouble(k);
    if (std::isnan(x)) {
      // Without mantissa bits there is no NaN to keep: XLA gives +inf.
      if (mantissa_bits > 0)
        out.CopyElementFrom(operand, k, k);
      else
        out.SetFromDouble(k, std::numeric_limits<double>::infinity());
      continue;
    }
    out.SetFromDouble(k, ReduceValue(x, type, exponent_bits, mantissa_bits));
  }
  return out;
}

absl::StatusOr<Literal> StochasticConvert(const Literal& operand, const Literal& random,
                                          const Shape& result) {
  constexpr absl::string_view op = "stochastic-convert";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, random, "the random operand"));
  HOPT_RETURN_IF_ERROR(CheckArrayShape(op, result, "the result"));
  const PrimitiveType from = operand.shape().element_type();
  const PrimitiveType random_type = random.shape().element_type();
  const PrimitiveType to = result.element_type();
  if (!IsFloatingPointType(from))
    return OperationError(
        op, absl::StrCat("the operand must be floating point, got ", operand.shape().ToString()));
  if (!IsUnsignedIntegralType(random_type) ||
      PrimitiveTypeBitWidth(random_type) != PrimitiveTypeBitWidth(from))
    return OperationError(
        op, absl::StrCat("the random operand must be unsigned of the operand's width (",
                         PrimitiveTypeBitWidth(from), " bits), got ", random.shape().ToString()));
  if (!IsSignedIntegralType(to))
    return OperationError(op, absl::StrCat("converts to signed integer types only (as XLA), not ",
                                           PrimitiveTypeString(to)));
  if (random.shape().dimensions() != operand.shape().dimensions() ||
      result.dimensions() != operand.shape().dimensions())
    return OperationError(op, absl::StrCat("the operand ", operand.shape().ToString(), ", random ",
                                           random.shape().ToString(), " and result ",
                                           result.ToString(), " must have the same dimensions"));
  const int random_bits = PrimitiveTypeBitWidth(random_type);
  Literal out(result);
  for (int64_t k = 0; k < out.element_count(); ++k)
    out.SetFromInt64(
        k, StochasticRound(operand.GetAsDouble(k), static_cast<uint64_t>(random.GetAsInt64(k)),
                           random_bits, from, to));
  return out;
}

absl::StatusOr<Literal> GetDimensionSize(const Literal& operand, int64_t dimension) {
  constexpr absl::string_view op = "get-dimension-size";
  const Shape& shape = operand.shape();
  if (!shape.IsArray() || dimension < 0 || dimension >= shape.rank())
    return OperationError(
        op, absl::StrCat("dimension ", dimension, " is not one of ", shape.ToString()));
  const int64_t size = shape.dimensions(dimension);
  if (size < 0)
    return absl::UnimplementedError(
        absl::StrCat(op, ": dimension ", dimension, " of ", shape.ToString(),
                     " is unbounded; the interpreter keeps no dynamic sizes"));
  if (size > std::numeric_limits<int32_t>::max())
    return OperationError(op, absl::StrCat("the size ", size, " does not fit s32"));
  Literal out(Shape(PrimitiveType::S32, {}));
  out.SetFromInt64(0, size);
  return out;
}

absl::StatusOr<Literal> SetDimensionSize(const Literal& operand, const Literal& size,
                                         int64_t dimension, const Shape& result) {
  constexpr absl::string_view op = "set-dimension-size";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "the operand"));
  HOPT_ASSIGN_OR_RETURN(int64_t value, IntegerScalar(op, size, "the size"));
  HOPT_RETURN_IF_ERROR(CheckArrayShape(op, result, "the result"));
  const Shape& in = operand.shape();
  if (dimension < 0 || dimension >= in.rank())
    return OperationError(op,
                          absl::StrCat("dimension ", dimension, " is not one of ", in.ToString()));
  if (result.dimensions() != in.dimensions())
    return OperationError(op, absl::StrCat("the result ", result.ToString(),
                                           " must keep the operand's bounds ", in.ToString()));
  const int64_t bound = in.dimensions(dimension);
  if (value < 0 || value > bound)
    return OperationError(op, absl::StrCat("size ", value, " of dimension ", dimension,
                                           " is outside [0, ", bound, "]"));
  if (value < bound)
    return absl::UnimplementedError(absl::StrCat(
        op, ": size ", value, " below the bound ", bound, " of dimension ", dimension,
        ": the interpreter keeps no dynamic sizes (every value holds its bounds' elements)"));
  return WithShape(op, operand, result);
}

absl::StatusOr<Literal> DynamicReshape(const Literal& operand,
                                       absl::Span<const Literal* const> sizes,
                                       const Shape& result) {
  constexpr absl::string_view op = "dynamic-reshape";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckArrayShape(op, result, "the result"));
  if (static_cast<int64_t>(sizes.size()) != result.rank())
    return OperationError(op, absl::StrCat("takes one size per dimension of ", result.ToString(),
                                           ", got ", sizes.size()));
  for (int64_t d = 0; d < result.rank(); ++d) {
    HOPT_ASSIGN_OR_RETURN(int64_t value, IntegerScalar(op, *sizes[d], absl::StrCat("size ", d)));
    const int64_t bound = result.dimensions(d);
    if (value < 0 || value > bound || (!result.is_dynamic_dimension(d) && value != bound))
      return OperationError(op, absl::StrCat("size ", value, " does not fit dimension ", d, " of ",
                                             result.ToString()));
    if (value < bound)
      return absl::UnimplementedError(absl::StrCat(
          op, ": size ", value, " below the bound ", bound, " of dimension ", d,
          ": the interpreter keeps no dynamic sizes (every value holds its bounds' elements)"));
  }
  return WithShape(op, operand, result);
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateConversionOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  // What the interpreter cannot represent names the instruction (which
  // names the opcode, so the message's own "opcode: " goes).
  auto named = [&](absl::StatusOr<Literal> result) -> absl::StatusOr<Literal> {
    if (result.status().code() != absl::StatusCode::kUnimplemented) return result;
    absl::string_view why = result.status().message();
    absl::ConsumePrefix(&why, absl::StrCat(i.OpcodeSpelling(), ": "));
    return UnsupportedInstruction(i, why);
  };
  auto one_dimension = [&]() -> std::optional<int64_t> {
    std::vector<int64_t> dims = i.dimensions();
    if (dims.size() != 1) return std::nullopt;
    return dims[0];
  };
  switch (i.opcode()) {
    case HloOpcode::kBitcast:
      if (ops.size() != 1) return UnsupportedInstruction(i, "takes one operand");
      return named(Bitcast(*ops[0], i.shape()));
    case HloOpcode::kReducePrecision: {
      auto exponent_bits = i.IntAttribute("exponent_bits");
      auto mantissa_bits = i.IntAttribute("mantissa_bits");
      if (!exponent_bits || !mantissa_bits || ops.size() != 1)
        return UnsupportedInstruction(i, "needs one operand, exponent_bits=E and mantissa_bits=M");
      return ReducePrecision(*ops[0], *exponent_bits, *mantissa_bits);
    }
    case HloOpcode::kStochasticConvert:
      if (ops.size() != 2) return UnsupportedInstruction(i, "takes an operand and random bits");
      return StochasticConvert(*ops[0], *ops[1], i.shape());
    case HloOpcode::kGetDimensionSize: {
      auto dimension = one_dimension();
      if (!dimension || ops.size() != 1)
        return UnsupportedInstruction(i, "needs one operand and dimensions={d}");
      return named(GetDimensionSize(*ops[0], *dimension));
    }
    case HloOpcode::kSetDimensionSize: {
      auto dimension = one_dimension();
      if (!dimension || ops.size() != 2)
        return UnsupportedInstruction(i, "needs an operand, a size and dimensions={d}");
      return named(SetDimensionSize(*ops[0], *ops[1], *dimension, i.shape()));
    }
    case HloOpcode::kDynamicReshape:
      if (ops.empty()) return UnsupportedInstruction(i, "needs an operand and the sizes");
      return named(DynamicReshape(*ops[0], absl::MakeConstSpan(ops).subspan(1), i.shape()));
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Elementwise operations of the HLO interpreter (see ops.h): unary and
// binary arithmetic, compare, select, clamp, convert and bitcast-convert.
//
// Values come from the literal's widened storage: integers as int64 already
// wrapped to their type (unsigned types zero-extended, u64 as its bit
// pattern), floats as doubles already rounded to their type, complex numbers
// as pairs of doubles. Integer results are computed in uint64 (no undefined
// behaviour on overflow) and wrapped to the type's width; floating-point
// results are computed in double and rounded to the element type when
// stored. Every function checks its arguments before computing anything, so
// an unsupported operation on an empty array still reports the error.

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/eval/ops.h"
#include "core/ir/float_bits.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

using Complex = std::complex<double>;
using Bits = unsigned __int128;  // the raw encoding of one element (c128 is 128 bits)

enum class Family { kPred, kSigned, kUnsigned, kFloat, kComplex, kOther };

Family FamilyOf(PrimitiveType type) {
  if (type == PrimitiveType::PRED) return Family::kPred;
  if (IsSignedIntegralType(type)) return Family::kSigned;
  if (IsUnsignedIntegralType(type)) return Family::kUnsigned;
  if (IsFloatingPointType(type)) return Family::kFloat;
  if (IsComplexType(type)) return Family::kComplex;
  return Family::kOther;
}

bool IsIntegerFamily(Family f) {
  return f == Family::kPred || f == Family::kSigned || f == Family::kUnsigned;
}

absl::Status Unsupported(absl::string_view op, PrimitiveType type) {
  return OperationError(op,
                        absl::StrCat("not defined for element type ", PrimitiveTypeString(type)));
}

// An array literal whose values are known and whose dimensions are all
// non-negative (unbounded dynamic dimensions are negative).
absl::Status CheckOperand(absl::string_view op, const Literal& literal, absl::string_view what) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat(what, " must be an array, got ", shape.ToString()));
  if (literal.is_elided())
    return OperationError(
        op, absl::StrCat(what, " ", shape.ToString(), " has elided (unknown) values"));
  for (int64_t d : shape.dimensions())
    if (d < 0)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has an unbounded dimension"));
  return absl::OkStatus();
}

// Same element type and dimension sizes. Whether a dimension is dynamic
// does not matter: as in XLA, `s32[<=4]` and `s32[4]` combine (a value holds
// the bound's elements either way).
bool SameSizes(const Shape& a, const Shape& b) { return a.dimensions() == b.dimensions(); }

absl::Status CheckSameShape(absl::string_view op, const Literal& a, const Literal& b) {
  if (a.shape().element_type() != b.shape().element_type())
    return OperationError(op, absl::StrCat("operand element types differ: ", a.shape().ToString(),
                                           " vs ", b.shape().ToString()));
  if (!SameSizes(a.shape(), b.shape()))
    return OperationError(op, absl::StrCat("operand dimensions differ: ", a.shape().ToString(),
                                           " vs ", b.shape().ToString()));
  return absl::OkStatus();
}

// `shape` with another element type (dimensions, dynamic flags and layout
// kept).
Shape WithType(const Shape& shape, PrimitiveType type) {
  Shape result = shape;
  result.set_element_type(type);
  return result;
}

PrimitiveType ComplexPart(PrimitiveType type) {
  return type == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
}

// ---- integers ---------------------------------------------------------------

// Bits that take part in integer arithmetic (pred: one).
int IntWidth(PrimitiveType type) {
  return type == PrimitiveType::PRED ? 1 : PrimitiveTypeBitWidth(type);
}

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// The value `raw` (two's complement, `bits` wide) sign-extended to int64.
int64_t SignExtend(uint64_t raw, int bits) {
  raw &= Mask(bits);
  if (bits < 64 && ((raw >> (bits - 1)) & 1)) raw |= ~Mask(bits);
  return static_cast<int64_t>(raw);
}

int CountLeadingZeros64(uint64_t v) {
  if (v == 0) return 64;
  int n = 0;
  while (!(v & (uint64_t{1} << 63))) {
    v <<= 1;
    ++n;
  }
  return n;
}

int PopCount64(uint64_t v) {
  int n = 0;
  for (; v; v &= v - 1) ++n;
  return n;
}

// Integer and pred unary operations; false when `op` is not defined for
// `type` (independently of the value).
bool IntUnary(HloOpcode op, PrimitiveType type, int64_t value, int64_t* out) {
  bool is_pred = type == PrimitiveType::PRED;
  bool is_signed = IsSignedIntegralType(type);
  int bits = IntWidth(type);
  uint64_t raw = static_cast<uint64_t>(value) & Mask(bits);
  if (is_pred && op != HloOpcode::kNot) return false;
  uint64_t result;
  switch (op) {
    case HloOpcode::kAbs:
      result = is_signed && value < 0 ? uint64_t{0} - static_cast<uint64_t>(value)
                                      : static_cast<uint64_t>(value);
      break;
    case HloOpcode::kNegate: result = uint64_t{0} - static_cast<uint64_t>(value); break;
    case HloOpcode::kNot:
      result = is_pred ? (value == 0 ? 1 : 0) : ~static_cast<uint64_t>(value);
      break;
    case HloOpcode::kPopulationCount: result = PopCount64(raw); break;
    case HloOpcode::kClz: result = raw == 0 ? bits : CountLeadingZeros64(raw) - (64 - bits); break;
    case HloOpcode::kSign:
      if (is_signed)
        result = static_cast<uint64_t>(static_cast<int64_t>(value > 0) - (value < 0));
      else
        result = value != 0 ? 1 : 0;
      break;
    default: return false;
  }
  *out = WrapToIntegralType(static_cast<int64_t>(result), type);
  return true;
}

// The cases of IntBinary that take more than one expression, on the
// operands as int64 (a, b) and as their `bits`-wide patterns (ua, ub).
// Small and called per element: the compiler inlines them into IntBinary.

// x / 0 is -1 (all bits set); INT_MIN / -1 is INT_MIN.
uint64_t IntDivide(int64_t a, int64_t b, uint64_t ua, uint64_t ub, bool is_signed) {
  if (b == 0) return ~uint64_t{0};
  if (is_signed && b == -1) return uint64_t{0} - static_cast<uint64_t>(a);
  if (is_signed) return static_cast<uint64_t>(a / b);
  return ua / ub;
}

// x % 0 is x; x % -1 is 0.
uint64_t IntRemainder(int64_t a, int64_t b, uint64_t ua, uint64_t ub, bool is_signed) {
  if (b == 0) return static_cast<uint64_t>(a);
  if (is_signed && b == -1) return 0;
  if (is_signed) return static_cast<uint64_t>(a % b);
  return ua % ub;
}

// Unsigned operands are shifted as the signed type of their width.
uint64_t IntShiftRightArithmetic(uint64_t ua, uint64_t ub, int bits, bool out_of_range) {
  int64_t sa = SignExtend(ua, bits);
  int64_t shifted = out_of_range ? (sa < 0 ? -1 : 0) : (sa >> ub);
  return static_cast<uint64_t>(shifted);
}

// Wrapping powers by squaring.
uint64_t IntPower(int64_t a, int64_t b, uint64_t ub, bool is_pred, bool is_signed) {
  if (is_pred) return (a != 0 || b == 0) ? 1 : 0;
  if (is_signed && b < 0) {
    // Only 1 and -1 have integral reciprocal powers.
    if (a == 1) return 1;
    if (a == -1) return (b & 1) ? ~uint64_t{0} : 1;
    return 0;
  }
  uint64_t base = static_cast<uint64_t>(a);
  uint64_t exponent = ub;
  uint64_t result = 1;
  while (exponent != 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

// The high `bits` of the 2*bits-wide product.
uint64_t IntMulhi(int64_t a, int64_t b, uint64_t ua, uint64_t ub, int bits, bool is_signed) {
  if (is_signed) {
    __int128 product = static_cast<__int128>(a) * static_cast<__int128>(b);
    return static_cast<uint64_t>(static_cast<Bits>(product >> bits));
  }
  Bits product = static_cast<Bits>(ua) * static_cast<Bits>(ub);
  return static_cast<uint64_t>(product >> bits);
}

// What integer arithmetic needs to know of an element type, worked out once
// per array rather than per element.
struct IntType {
  explicit IntType(PrimitiveType t)
      : is_pred(t == PrimitiveType::PRED),
        is_signed(IsSignedIntegralType(t)),
        bits(IntWidth(t)),
        mask(Mask(bits)) {}
  bool is_pred, is_signed;
  int bits;
  uint64_t mask;
};

// `value` wrapped to the type, as WrapToIntegralType does.
inline int64_t WrapTo(const IntType& t, uint64_t value) {
  if (t.is_pred) return value != 0 ? 1 : 0;
  if (t.bits >= 64) return static_cast<int64_t>(value);
  uint64_t raw = value & t.mask;
  if (t.is_signed && ((raw >> (t.bits - 1)) & 1)) raw |= ~t.mask;
  return static_cast<int64_t>(raw);
}

// Integer and pred binary operations (XLA evaluator semantics); false when
// `op` is not defined for the type.
inline bool IntBinary(HloOpcode op, const IntType& t, int64_t a, int64_t b, int64_t* out) {
  const bool is_pred = t.is_pred, is_signed = t.is_signed;
  const int bits = t.bits;
  const uint64_t mask = t.mask;
  uint64_t ua = static_cast<uint64_t>(a) & mask;
  uint64_t ub = static_cast<uint64_t>(b) & mask;
  uint64_t result;
  // Shift amounts are read as unsigned: negative ones count as too large.
  bool shift_out_of_range = is_signed ? (b < 0 || b >= bits) : ub >= static_cast<uint64_t>(bits);
  switch (op) {
    case HloOpcode::kAdd: result = static_cast<uint64_t>(a) + static_cast<uint64_t>(b); break;
    case HloOpcode::kSubtract: result = static_cast<uint64_t>(a) - static_cast<uint64_t>(b); break;
    case HloOpcode::kMultiply: result = static_cast<uint64_t>(a) * static_cast<uint64_t>(b); break;
    case HloOpcode::kDivide: result = IntDivide(a, b, ua, ub, is_signed); break;
    case HloOpcode::kRemainder: result = IntRemainder(a, b, ua, ub, is_signed); break;
    case HloOpcode::kMaximum:
      if (is_signed)
        result = static_cast<uint64_t>(a > b ? a : b);
      else
        result = ua > ub ? ua : ub;
      break;
    case HloOpcode::kMinimum:
      if (is_signed)
        result = static_cast<uint64_t>(a < b ? a : b);
      else
        result = ua < ub ? ua : ub;
      break;
    case HloOpcode::kAnd: result = static_cast<uint64_t>(a) & static_cast<uint64_t>(b); break;
    case HloOpcode::kOr: result = static_cast<uint64_t>(a) | static_cast<uint64_t>(b); break;
    case HloOpcode::kXor: result = static_cast<uint64_t>(a) ^ static_cast<uint64_t>(b); break;
    case HloOpcode::kShiftLeft:
      if (is_pred) return false;
      result = shift_out_of_range ? 0 : ua << ub;
      break;
    case HloOpcode::kShiftRightLogical:
      if (is_pred) return false;
      result = shift_out_of_range ? 0 : ua >> ub;
      break;
    case HloOpcode::kShiftRightArithmetic:
      if (is_pred) return false;
      result = IntShiftRightArithmetic(ua, ub, bits, shift_out_of_range);
      break;
    case HloOpcode::kPower: result = IntPower(a, b, ub, is_pred, is_signed); break;
    case HloOpcode::kMulhi:
      if (is_pred) return false;
      result = IntMulhi(a, b, ua, ub, bits, is_signed);
      break;
    default: return false;
  }
  *out = WrapTo(t, result);
  return true;
}

bool IntBinary(HloOpcode op, PrimitiveType type, int64_t a, int64_t b, int64_t* out) {
  return IntBinary(op, IntType(type), a, b, out);
}

// ---- floating point ---------------------------------------------------------

// Round half to even, independent of the current rounding mode.
double RoundHalfEven(double x) {
  if (!std::isfinite(x) || std::fabs(x) >= 4503599627370496.0) return x;  // 2^52: integral
  double lower = std::floor(x);
  double fraction = x - lower;  // exact
  double result;
  if (fraction < 0.5)
    result = lower;
  else if (fraction > 0.5)
    result = lower + 1;
  else
    result = std::fmod(lower, 2.0) == 0 ? lower : lower + 1;
  return result == 0 ? std::copysign(0.0, x) : result;
}

// IEEE 754-2019 maximum/minimum: NaN propagates, +0 > -0.
double FloatMax(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double FloatMin(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// The functions real and complex arguments share, computed in double
// precision (the caller rounds to the element type).
template <typename T>
bool Transcendental(HloOpcode op, T x, T* out) {
  switch (op) {
    case HloOpcode::kExp: *out = std::exp(x); return true;
    case HloOpcode::kLog: *out = std::log(x); return true;
    case HloOpcode::kSqrt: *out = std::sqrt(x); return true;
    case HloOpcode::kRsqrt: *out = 1.0 / std::sqrt(x); return true;
    case HloOpcode::kSin: *out = std::sin(x); return true;
    case HloOpcode::kCos: *out = std::cos(x); return true;
    case HloOpcode::kTan: *out = std::tan(x); return true;
    case HloOpcode::kTanh: *out = std::tanh(x); return true;
    case HloOpcode::kSinh: *out = std::sinh(x); return true;
    case HloOpcode::kCosh: *out = std::cosh(x); return true;
    case HloOpcode::kAsin: *out = std::asin(x); return true;
    case HloOpcode::kAcos: *out = std::acos(x); return true;
    case HloOpcode::kAtan: *out = std::atan(x); return true;
    case HloOpcode::kAsinh: *out = std::asinh(x); return true;
    case HloOpcode::kAcosh: *out = std::acosh(x); return true;
    case HloOpcode::kAtanh: *out = std::atanh(x); return true;
    case HloOpcode::kLogistic: *out = 1.0 / (1.0 + std::exp(-x)); return true;
    default: return false;
  }
}

// Floating-point unary operations computed in double; false when `op` is not
// defined for floats. The caller rounds the result to the element type.
bool FloatUnary(HloOpcode op, double x, double* out) {
  switch (op) {
    case HloOpcode::kAbs: *out = std::fabs(x); return true;
    case HloOpcode::kNegate: *out = -x; return true;
    case HloOpcode::kSign: *out = std::isnan(x) || x == 0 ? x : std::copysign(1.0, x); return true;
    case HloOpcode::kFloor: *out = std::floor(x); return true;
    case HloOpcode::kCeil: *out = std::ceil(x); return true;
    case HloOpcode::kRoundNearestAfz: *out = std::round(x); return true;
    case HloOpcode::kRoundNearestEven: *out = RoundHalfEven(x); return true;
    case HloOpcode::kReal: *out = x; return true;
    case HloOpcode::kImag: *out = 0.0; return true;
    case HloOpcode::kExpm1: *out = std::expm1(x); return true;
    case HloOpcode::kLog1p: *out = std::log1p(x); return true;
    case HloOpcode::kCbrt: *out = std::cbrt(x); return true;
    case HloOpcode::kErf: *out = std::erf(x); return true;
    default: return Transcendental(op, x, out);
  }
}

bool FloatBinary(HloOpcode op, double a, double b, double* out) {
  switch (op) {
    case HloOpcode::kAdd: *out = a + b; return true;
    case HloOpcode::kSubtract: *out = a - b; return true;
    case HloOpcode::kMultiply: *out = a * b; return true;
    case HloOpcode::kDivide: *out = a / b; return true;
    case HloOpcode::kRemainder: *out = std::fmod(a, b); return true;
    case HloOpcode::kPower: *out = std::pow(a, b); return true;
    case HloOpcode::kAtan2: *out = std::atan2(a, b); return true;
    case HloOpcode::kMaximum: *out = FloatMax(a, b); return true;
    case HloOpcode::kMinimum: *out = FloatMin(a, b); return true;
    default: return false;
  }
}

// ---- complex ----------------------------------------------------------------

Complex ComplexExpm1(Complex z) {
  // exp(x)(cos y + i sin y) - 1, accurate near zero.
  double x = z.real(), y = z.imag();
  double half_sin = std::sin(y / 2);
  return {std::expm1(x) * std::cos(y) - 2 * half_sin * half_sin, std::exp(x) * std::sin(y)};
}

Complex ComplexLog1p(Complex z) {
  double x = z.real(), y = z.imag();
  // |1 + z|^2 - 1 = 2x + x^2 + y^2.
  return {0.5 * std::log1p(x * (2 + x) + y * y), std::atan2(y, 1 + x)};
}

bool ComplexUnary(HloOpcode op, Complex z, Complex* out) {
  switch (op) {
    case HloOpcode::kNegate: *out = -z; return true;
    case HloOpcode::kSign: {
      double magnitude = std::abs(z);
      *out = magnitude == 0 ? Complex(0, 0) : z / magnitude;
      return true;
    }
    case HloOpcode::kExpm1: *out = ComplexExpm1(z); return true;
    case HloOpcode::kLog1p: *out = ComplexLog1p(z); return true;
    default: return Transcendental(op, z, out);
  }
}

bool ComplexBinary(HloOpcode op, Complex a, Complex b, Complex* out) {
  switch (op) {
    case HloOpcode::kAdd: *out = a + b; return true;
    case HloOpcode::kSubtract: *out = a - b; return true;
    case HloOpcode::kMultiply: *out = a * b; return true;
    case HloOpcode::kDivide: *out = a / b; return true;
    case HloOpcode::kPower:
      // std::pow computes exp(b log a), which is NaN for 0^b.
      if (b == Complex(0, 0))
        *out = Complex(1, 0);
      else if (a == Complex(0, 0) && b.imag() == 0 && b.real() > 0)
        *out = Complex(0, 0);
      else
        *out = std::pow(a, b);
      return true;
    default: return false;
  }
}

// ---- conversions ------------------------------------------------------------

// The integer `value` (unsigned: its 64-bit pattern) as a double from which
// rounding to `type` gives the correctly rounded result: above 2^53 the bits
// below the 53 kept ones are folded into a sticky bit, so the value is not
// rounded twice.
double IntegerToDouble(int64_t value, bool is_unsigned, PrimitiveType type) {
  uint64_t magnitude;
  bool negative = false;
  if (is_unsigned) {
    magnitude = static_cast<uint64_t>(value);
  } else {
    negative = value < 0;
    magnitude = static_cast<uint64_t>(value);
    if (negative) magnitude = uint64_t{0} - magnitude;
  }
  if (type == PrimitiveType::F64 || magnitude < (uint64_t{1} << 53)) {
    // Exact, or one correctly rounded conversion.
    double d = static_cast<double>(magnitude);
    return negative ? -d : d;
  }
  int shift = (64 - CountLeadingZeros64(magnitude)) - 53;
  uint64_t kept = magnitude >> shift;
  if (magnitude & Mask(shift)) kept |= 1;
  double d = std::ldexp(static_cast<double>(kept), shift);
  return negative ? -d : d;
}

// Float to integer: truncation toward zero, saturating to the type's range,
// NaN to 0 (XLA's convert).
int64_t FloatToInteger(double x, PrimitiveType type) {
  if (type == PrimitiveType::PRED) return x != 0 ? 1 : 0;  // NaN is true
  if (std::isnan(x)) return 0;
  int bits = PrimitiveTypeBitWidth(type);
  x = std::trunc(x);
  if (IsUnsignedIntegralType(type)) {
    if (x <= 0) return 0;
    if (x >= std::ldexp(1.0, bits)) return static_cast<int64_t>(Mask(bits));
    return static_cast<int64_t>(static_cast<uint64_t>(x));
  }
  double limit = std::ldexp(1.0, bits - 1);
  if (x >= limit) return static_cast<int64_t>(Mask(bits - 1));
  if (x <= -limit) return SignExtend(uint64_t{1} << (bits - 1), bits);
  return static_cast<int64_t>(x);
}

// ---- raw bits of an element ------------------------------------------------
// (the floating-point encodings are core/ir/float_bits.h's)

// The raw bits of element `i` (only the type's width is used).
Bits GetBits(const Literal& literal, int64_t i) {
  PrimitiveType type = literal.shape().element_type();
  if (type == PrimitiveType::PRED) return literal.GetAsInt64(i) != 0 ? 1 : 0;
  if (IsIntegralType(type))
    return static_cast<uint64_t>(literal.GetAsInt64(i)) & Mask(PrimitiveTypeBitWidth(type));
  if (IsComplexType(type)) {
    PrimitiveType part = ComplexPart(type);
    int part_bits = PrimitiveTypeBitWidth(part);
    Complex z = literal.GetAsComplex(i);
    return static_cast<Bits>(EncodeFloatBits(z.real(), part)) |
           (static_cast<Bits>(EncodeFloatBits(z.imag(), part)) << part_bits);
  }
  return EncodeFloatBits(literal.GetAsDouble(i), type);
}

void SetBits(Literal* literal, int64_t i, Bits bits) {
  PrimitiveType type = literal->shape().element_type();
  if (type == PrimitiveType::PRED) {
    literal->SetFromInt64(i, bits != 0 ? 1 : 0);
  } else if (IsIntegralType(type)) {
    literal->SetFromInt64(i, static_cast<int64_t>(static_cast<uint64_t>(bits)));
  } else if (IsComplexType(type)) {
    PrimitiveType part = ComplexPart(type);
    int part_bits = PrimitiveTypeBitWidth(part);
    uint64_t re = static_cast<uint64_t>(bits) & Mask(part_bits);
    uint64_t im = static_cast<uint64_t>(bits >> part_bits) & Mask(part_bits);
    literal->SetFromComplex(i, {DecodeFloatBits(re, part), DecodeFloatBits(im, part)});
  } else {
    literal->SetFromDouble(i, DecodeFloatBits(static_cast<uint64_t>(bits), type));
  }
}

Bits BitsMask(int bits) { return bits >= 128 ? ~Bits{0} : (Bits{1} << bits) - 1; }

// ---- compare ----------------------------------------------------------------

enum class Direction { kEq, kNe, kLt, kLe, kGt, kGe };

bool ParseDirection(absl::string_view text, Direction* direction) {
  if (text == "EQ")
    *direction = Direction::kEq;
  else if (text == "NE")
    *direction = Direction::kNe;
  else if (text == "LT")
    *direction = Direction::kLt;
  else if (text == "LE")
    *direction = Direction::kLe;
  else if (text == "GT")
    *direction = Direction::kGt;
  else if (text == "GE")
    *direction = Direction::kGe;
  else
    return false;
  return true;
}

template <typename T>
bool Apply(Direction d, T a, T b) {
  switch (d) {
    case Direction::kEq: return a == b;
    case Direction::kNe: return a != b;
    case Direction::kLt: return a < b;
    case Direction::kLe: return a <= b;
    case Direction::kGt: return a > b;
    case Direction::kGe: return a >= b;
  }
  return false;
}

// An integer whose order is the IEEE total order of doubles:
// -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
int64_t TotalOrderKey(double x) {
  int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

}  // namespace

// ---- public entry points ----------------------------------------------------

absl::StatusOr<Literal> Unary(HloOpcode opcode, const Literal& operand) {
  absl::string_view op = HloOpcodeString(opcode);
  if (!IsElementwiseUnary(opcode) && opcode != HloOpcode::kIsFinite && opcode != HloOpcode::kReal &&
      opcode != HloOpcode::kImag)
    return OperationError(op, "is not an elementwise unary operation");
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "operand"));
  if (opcode == HloOpcode::kCopy) return operand;
  if (opcode == HloOpcode::kReducePrecision)
    return absl::UnimplementedError(
        "reduce-precision: needs exponent_bits/mantissa_bits, which eval::Unary does not take");

  PrimitiveType type = operand.shape().element_type();
  Family family = FamilyOf(type);
  int64_t n = operand.element_count();

  if (IsIntegerFamily(family)) {
    int64_t value;
    if (!IntUnary(opcode, type, 0, &value)) return Unsupported(op, type);
    Literal result(operand.shape());
    for (int64_t i = 0; i < n; ++i) {
      IntUnary(opcode, type, operand.GetAsInt64(i), &value);
      result.SetFromInt64(i, value);
    }
    return result;
  }

  if (family == Family::kFloat) {
    if (opcode == HloOpcode::kIsFinite) {
      Literal result(WithType(operand.shape(), PrimitiveType::PRED));
      for (int64_t i = 0; i < n; ++i)
        result.SetFromInt64(i, std::isfinite(operand.GetAsDouble(i)) ? 1 : 0);
      return result;
    }
    double value;
    if (!FloatUnary(opcode, 0.0, &value)) return Unsupported(op, type);
    Literal result(operand.shape());
    for (int64_t i = 0; i < n; ++i) {
      FloatUnary(opcode, operand.GetAsDouble(i), &value);
      result.SetFromDouble(i, value);  // rounds to the element type
    }
    return result;
  }

  if (family == Family::kComplex) {
    if (opcode == HloOpcode::kAbs || opcode == HloOpcode::kReal || opcode == HloOpcode::kImag) {
      Literal result(WithType(operand.shape(), ComplexPart(type)));
      for (int64_t i = 0; i < n; ++i) {
        Complex z = operand.GetAsComplex(i);
        result.SetFromDouble(i, opcode == HloOpcode::kAbs    ? std::abs(z)
                                : opcode == HloOpcode::kReal ? z.real()
                                                             : z.imag());
      }
      return result;
    }
    Complex value;
    if (!ComplexUnary(opcode, Complex(0, 0), &value)) return Unsupported(op, type);
    Literal result(operand.shape());
    for (int64_t i = 0; i < n; ++i) {
      ComplexUnary(opcode, operand.GetAsComplex(i), &value);
      result.SetFromComplex(i, value);
    }
    return result;
  }
  return Unsupported(op, type);
}

// `combine` over stored values, each result rounded as SetFromDouble
// rounds it (NaNs kept as they are), with the rounding chosen once.
template <typename Combine>
void CombineFloats(const double* a, const double* b, double* out, int64_t n, PrimitiveType type,
                   Combine combine) {
  if (type == PrimitiveType::F64) {
    for (int64_t i = 0; i < n; ++i) out[i] = combine(a[i], b[i]);
  } else if (type == PrimitiveType::F32) {
    for (int64_t i = 0; i < n; ++i) {
      double v = combine(a[i], b[i]);
      out[i] = std::isnan(v) ? v : static_cast<double>(static_cast<float>(v));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = RoundToFloatType(combine(a[i], b[i]), type);
  }
}

// The common float operations on stored values, without a call per
// element; false for the others.
bool BulkFloatBinary(HloOpcode opcode, const Literal& lhs, const Literal& rhs, Literal& result) {
  const double* a = lhs.real_data();
  const double* b = rhs.real_data();
  double* out = result.mutable_real_data();
  if (a == nullptr || b == nullptr || out == nullptr) return false;
  int64_t n = lhs.element_count();
  PrimitiveType type = lhs.shape().element_type();
  switch (opcode) {
    case HloOpcode::kAdd:
      CombineFloats(a, b, out, n, type, [](double x, double y) { return x + y; });
      return true;
    case HloOpcode::kSubtract:
      CombineFloats(a, b, out, n, type, [](double x, double y) { return x - y; });
      return true;
    case HloOpcode::kMultiply:
      CombineFloats(a, b, out, n, type, [](double x, double y) { return x * y; });
      return true;
    case HloOpcode::kDivide:
      CombineFloats(a, b, out, n, type, [](double x, double y) { return x / y; });
      return true;
    case HloOpcode::kMaximum: CombineFloats(a, b, out, n, type, FloatMax); return true;
    case HloOpcode::kMinimum: CombineFloats(a, b, out, n, type, FloatMin); return true;
    default: return false;
  }
}

absl::StatusOr<Literal> Binary(HloOpcode opcode, const Literal& lhs, const Literal& rhs) {
  absl::string_view op = HloOpcodeString(opcode);
  if (!IsElementwiseBinary(opcode) && opcode != HloOpcode::kComplex)
    return OperationError(op, "is not an elementwise binary operation");
  HOPT_RETURN_IF_ERROR(CheckOperand(op, lhs, "lhs"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, rhs, "rhs"));
  HOPT_RETURN_IF_ERROR(CheckSameShape(op, lhs, rhs));

  PrimitiveType type = lhs.shape().element_type();
  Family family = FamilyOf(type);
  int64_t n = lhs.element_count();

  if (opcode == HloOpcode::kComplex) {
    if (type != PrimitiveType::F32 && type != PrimitiveType::F64)
      return OperationError(
          op, absl::StrCat("operands must be f32 or f64, got ", PrimitiveTypeString(type)));
    Literal result(WithType(lhs.shape(),
                            type == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128));
    for (int64_t i = 0; i < n; ++i)
      result.SetFromComplex(i, {lhs.GetAsDouble(i), rhs.GetAsDouble(i)});
    return result;
  }

  Literal result(lhs.shape());
  if (IsIntegerFamily(family)) {
    const IntType t(type);
    int64_t value;
    if (!IntBinary(opcode, t, 0, 0, &value)) return Unsupported(op, type);
    const int64_t* a = lhs.int_data();
    const int64_t* b = rhs.int_data();
    int64_t* out = result.mutable_int_data();
    if (a != nullptr && b != nullptr && out != nullptr) {
      // IntBinary's results are already wrapped to the type.
      for (int64_t i = 0; i < n; ++i) IntBinary(opcode, t, a[i], b[i], &out[i]);
      return result;
    }
    for (int64_t i = 0; i < n; ++i) {
      IntBinary(opcode, t, lhs.GetAsInt64(i), rhs.GetAsInt64(i), &value);
      result.SetFromInt64(i, value);
    }
    return result;
  }
  if (family == Family::kFloat) {
    double value;
    if (!FloatBinary(opcode, 0.0, 0.0, &value)) return Unsupported(op, type);
    if (BulkFloatBinary(opcode, lhs, rhs, result)) return result;
    for (int64_t i = 0; i < n; ++i) {
      FloatBinary(opcode, lhs.GetAsDouble(i), rhs.GetAsDouble(i), &value);
      result.SetFromDouble(i, value);  // rounds to the element type
    }
    return result;
  }
  if (family == Family::kComplex) {
    Complex value;
    if (!ComplexBinary(opcode, Complex(0, 0), Complex(0, 0), &value)) return Unsupported(op, type);
    for (int64_t i = 0; i < n; ++i) {
      ComplexBinary(opcode, lhs.GetAsComplex(i), rhs.GetAsComplex(i), &value);
      result.SetFromComplex(i, value);
    }
    return result;
  }
  return Unsupported(op, type);
}

absl::StatusOr<ElementCombiner> MakeElementCombiner(HloOpcode opcode, PrimitiveType type) {
  absl::string_view op = HloOpcodeString(opcode);
  if (!IsElementwiseBinary(opcode))
    return OperationError(op, "is not an elementwise binary operation");
  Family family = FamilyOf(type);
  if (IsIntegerFamily(family)) {
    int64_t value;
    const IntType t(type);
    if (!IntBinary(opcode, t, 0, 0, &value)) return Unsupported(op, type);
    return ElementCombiner([opcode, t](Literal& acc, int64_t a, const Literal& x, int64_t i) {
      int64_t* to = acc.mutable_int_data();
      const int64_t* from = x.int_data();
      if (to != nullptr && from != nullptr) {
        IntBinary(opcode, t, to[a], from[i], &to[a]);
        return;
      }
      int64_t value;
      IntBinary(opcode, t, acc.GetAsInt64(a), x.GetAsInt64(i), &value);
      acc.SetFromInt64(a, value);
    });
  }
  if (family == Family::kFloat) {
    double value;
    if (!FloatBinary(opcode, 0.0, 0.0, &value)) return Unsupported(op, type);
    return ElementCombiner([opcode](Literal& acc, int64_t a, const Literal& x, int64_t i) {
      double value;
      FloatBinary(opcode, acc.GetAsDouble(a), x.GetAsDouble(i), &value);
      acc.SetFromDouble(a, value);
    });
  }
  if (family == Family::kComplex) {
    Complex value;
    if (!ComplexBinary(opcode, Complex(0, 0), Complex(0, 0), &value)) return Unsupported(op, type);
    return ElementCombiner([opcode](Literal& acc, int64_t a, const Literal& x, int64_t i) {
      Complex value;
      ComplexBinary(opcode, acc.GetAsComplex(a), x.GetAsComplex(i), &value);
      acc.SetFromComplex(a, value);
    });
  }
  return Unsupported(op, type);
}

absl::StatusOr<Literal> Compare(absl::string_view direction, const Literal& lhs, const Literal& rhs,
                                bool total_order) {
  constexpr absl::string_view op = "compare";
  Direction d;
  if (!ParseDirection(direction, &d))
    return OperationError(op, absl::StrCat("unknown direction '", direction,
                                           "' (expected EQ, NE, LT, LE, GT or GE)"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, lhs, "lhs"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, rhs, "rhs"));
  HOPT_RETURN_IF_ERROR(CheckSameShape(op, lhs, rhs));

  PrimitiveType type = lhs.shape().element_type();
  Family family = FamilyOf(type);
  if (family == Family::kComplex) {
    if (d != Direction::kEq && d != Direction::kNe)
      return OperationError(
          op, absl::StrCat("complex values are unordered: only EQ and NE apply, got ", direction));
    if (total_order) return OperationError(op, "complex values have no total order");
  }
  if (family == Family::kOther) return Unsupported(op, type);

  int64_t n = lhs.element_count();
  Literal result(WithType(lhs.shape(), PrimitiveType::PRED));
  for (int64_t i = 0; i < n; ++i) {
    bool r;
    switch (family) {
      case Family::kPred:
      case Family::kSigned: r = Apply(d, lhs.GetAsInt64(i), rhs.GetAsInt64(i)); break;
      case Family::kUnsigned:
        r = Apply(d, static_cast<uint64_t>(lhs.GetAsInt64(i)),
                  static_cast<uint64_t>(rhs.GetAsInt64(i)));
        break;
      case Family::kFloat:
        if (total_order)
          r = Apply(d, TotalOrderKey(lhs.GetAsDouble(i)), TotalOrderKey(rhs.GetAsDouble(i)));
        else
          r = Apply(d, lhs.GetAsDouble(i), rhs.GetAsDouble(i));
        break;
      default: {
        bool equal = lhs.GetAsComplex(i) == rhs.GetAsComplex(i);
        r = d == Direction::kEq ? equal : !equal;
        break;
      }
    }
    result.SetFromInt64(i, r ? 1 : 0);
  }
  return result;
}

absl::StatusOr<Literal> Select(const Literal& predicate, const Literal& on_true,
                               const Literal& on_false) {
  constexpr absl::string_view op = "select";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, predicate, "predicate"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, on_true, "on_true"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, on_false, "on_false"));
  if (predicate.shape().element_type() != PrimitiveType::PRED)
    return OperationError(
        op, absl::StrCat("the predicate must be pred, got ", predicate.shape().ToString()));
  if (on_true.shape().element_type() != on_false.shape().element_type() ||
      !SameSizes(on_true.shape(), on_false.shape()))
    return OperationError(op, absl::StrCat("the branches differ: ", on_true.shape().ToString(),
                                           " vs ", on_false.shape().ToString()));
  bool scalar = predicate.shape().IsScalar();
  if (!scalar && !SameSizes(predicate.shape(), on_true.shape()))
    return OperationError(
        op, absl::StrCat("the predicate ", predicate.shape().ToString(),
                         " does not match the branches ", on_true.shape().ToString()));
  Literal result(on_true.shape());
  int64_t n = on_true.element_count();
  for (int64_t i = 0; i < n; ++i) {
    bool p = predicate.GetAsInt64(scalar ? 0 : i) != 0;
    result.CopyElementFrom(p ? on_true : on_false, i, i);
  }
  return result;
}

absl::StatusOr<Literal> Clamp(const Literal& low, const Literal& operand, const Literal& high) {
  constexpr absl::string_view op = "clamp";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, low, "low bound"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "operand"));
  HOPT_RETURN_IF_ERROR(CheckOperand(op, high, "high bound"));
  PrimitiveType type = operand.shape().element_type();
  for (const Literal* bound : {&low, &high}) {
    if (bound->shape().element_type() != type ||
        (!bound->shape().IsScalar() && !SameSizes(bound->shape(), operand.shape())))
      return OperationError(
          op, absl::StrCat("bound ", bound->shape().ToString(), " does not fit the operand ",
                           operand.shape().ToString()));
  }
  Family family = FamilyOf(type);
  if (family == Family::kComplex || family == Family::kOther) return Unsupported(op, type);

  int64_t n = operand.element_count();
  bool low_scalar = low.shape().IsScalar(), high_scalar = high.shape().IsScalar();
  Literal result(operand.shape());
  for (int64_t i = 0; i < n; ++i) {
    int64_t li = low_scalar ? 0 : i, hi = high_scalar ? 0 : i;
    if (family == Family::kFloat) {
      double v =
          FloatMin(FloatMax(operand.GetAsDouble(i), low.GetAsDouble(li)), high.GetAsDouble(hi));
      result.SetFromDouble(i, v);
    } else {
      int64_t v;
      IntBinary(HloOpcode::kMaximum, type, operand.GetAsInt64(i), low.GetAsInt64(li), &v);
      IntBinary(HloOpcode::kMinimum, type, v, high.GetAsInt64(hi), &v);
      result.SetFromInt64(i, v);
    }
  }
  return result;
}

absl::StatusOr<Literal> Convert(const Literal& operand, PrimitiveType type) {
  constexpr absl::string_view op = "convert";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "operand"));
  if (!IsArrayType(type) || FamilyOf(type) == Family::kOther)
    return OperationError(op, absl::StrCat("cannot convert to ", PrimitiveTypeString(type)));
  PrimitiveType from = operand.shape().element_type();
  Family source = FamilyOf(from), target = FamilyOf(type);
  if (source == Family::kOther) return Unsupported(op, from);

  int64_t n = operand.element_count();
  Literal result(WithType(operand.shape(), type));
  for (int64_t i = 0; i < n; ++i) {
    if (IsIntegerFamily(source)) {
      int64_t v = operand.GetAsInt64(i);
      bool is_unsigned = source == Family::kUnsigned;
      if (IsIntegerFamily(target)) {
        result.SetFromInt64(i, v);  // wraps; pred is v != 0
      } else if (target == Family::kFloat) {
        result.SetFromDouble(i, IntegerToDouble(v, is_unsigned, type));
      } else {
        result.SetFromComplex(i, {IntegerToDouble(v, is_unsigned, ComplexPart(type)), 0.0});
      }
      continue;
    }
    // Floating point or complex: a complex value converts to a real type
    // through its real part.
    Complex z = operand.GetAsComplex(i);
    if (target == Family::kComplex)
      result.SetFromComplex(i, z);
    else if (target == Family::kFloat)
      result.SetFromDouble(i, z.real());
    else
      result.SetFromInt64(i, FloatToInteger(z.real(), type));
  }
  return result;
}

absl::StatusOr<Literal> BitcastConvert(const Literal& operand, const Shape& result_shape) {
  constexpr absl::string_view op = "bitcast-convert";
  HOPT_RETURN_IF_ERROR(CheckOperand(op, operand, "operand"));
  if (!result_shape.IsArray())
    return OperationError(
        op, absl::StrCat("the result must be an array, got ", result_shape.ToString()));
  for (int64_t d : result_shape.dimensions())
    if (d < 0)
      return OperationError(
          op, absl::StrCat("the result ", result_shape.ToString(), " has an unbounded dimension"));
  const Shape& in = operand.shape();
  PrimitiveType from = in.element_type(), to = result_shape.element_type();
  for (PrimitiveType t : {from, to})
    if (FamilyOf(t) == Family::kOther) return Unsupported(op, t);
  int from_bits = PrimitiveTypeBitWidth(from), to_bits = PrimitiveTypeBitWidth(to);

  auto mismatch = [&](absl::string_view why) {
    return OperationError(op, absl::StrCat("cannot bitcast ", in.ToString(), " to ",
                                           result_shape.ToString(), ": ", why));
  };
  // Widths differ: the narrower side has an extra minor dimension of size
  // wide/narrow (XLA's rule).
  const Shape& wide = from_bits >= to_bits ? in : result_shape;
  const Shape& narrow = from_bits >= to_bits ? result_shape : in;
  int64_t ratio = from_bits >= to_bits ? from_bits / to_bits : to_bits / from_bits;
  if (from_bits == to_bits) {
    if (!in.SameDimensions(result_shape)) return mismatch("the dimensions differ");
  } else {
    if (narrow.rank() != wide.rank() + 1)
      return mismatch("the narrower side needs one extra minor dimension");
    for (int64_t d = 0; d < wide.rank(); ++d)
      if (narrow.dimensions(d) != wide.dimensions(d)) return mismatch("the dimensions differ");
    if (narrow.dimensions(narrow.rank() - 1) != ratio)
      return mismatch(absl::StrCat("the extra minor dimension must have size ", ratio));
  }

  Literal result(result_shape);
  int64_t n = result.element_count();
  if (from_bits == to_bits) {
    for (int64_t i = 0; i < n; ++i) SetBits(&result, i, GetBits(operand, i));
  } else if (from_bits < to_bits) {
    // Element k of the minor dimension holds bits [k*from_bits, (k+1)*from_bits).
    for (int64_t i = 0; i < n; ++i) {
      Bits bits = 0;
      for (int64_t k = 0; k < ratio; ++k)
        bits |= (GetBits(operand, i * ratio + k) & BitsMask(from_bits)) << (k * from_bits);
      SetBits(&result, i, bits);
    }
  } else {
    int64_t m = operand.element_count();
    for (int64_t i = 0; i < m; ++i) {
      Bits bits = GetBits(operand, i);
      for (int64_t k = 0; k < ratio; ++k)
        SetBits(&result, i * ratio + k, (bits >> (k * to_bits)) & BitsMask(to_bits));
    }
  }
  return result;
}

}  // namespace eval
}  // namespace hopt

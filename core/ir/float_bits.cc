// SPDX-License-Identifier: Apache-2.0
// The floating-point encodings (float_bits.h), moved from the interpreter so
// that the IR's users (the protobuf library among them) need not depend on
// core/eval.

#include "core/ir/float_bits.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "hopt/ir/literal.h"

namespace hopt {
namespace {

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

enum class NanStyle {
  kIeee,  // all-ones exponent: inf (zero mantissa) or NaN
  kFn,    // no inf; all-ones exponent and mantissa is NaN
  kFnuz,  // no inf, no -0; the negative-zero pattern is the only NaN
  kNone,  // no inf, no NaN
  kE8M0,  // exponent only, no sign, no zero; all ones is NaN
};

struct BitFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  NanStyle style;
};

bool BitFormatOf(PrimitiveType type, BitFormat* format) {
  switch (type) {
    case PrimitiveType::F16: *format = {5, 10, 15, NanStyle::kIeee}; return true;
    case PrimitiveType::BF16: *format = {8, 7, 127, NanStyle::kIeee}; return true;
    case PrimitiveType::F32: *format = {8, 23, 127, NanStyle::kIeee}; return true;
    case PrimitiveType::F64: *format = {11, 52, 1023, NanStyle::kIeee}; return true;
    case PrimitiveType::F8E5M2: *format = {5, 2, 15, NanStyle::kIeee}; return true;
    case PrimitiveType::F8E4M3: *format = {4, 3, 7, NanStyle::kIeee}; return true;
    case PrimitiveType::F8E3M4: *format = {3, 4, 3, NanStyle::kIeee}; return true;
    case PrimitiveType::F8E4M3FN: *format = {4, 3, 7, NanStyle::kFn}; return true;
    case PrimitiveType::F8E4M3B11FNUZ: *format = {4, 3, 11, NanStyle::kFnuz}; return true;
    case PrimitiveType::F8E5M2FNUZ: *format = {5, 2, 16, NanStyle::kFnuz}; return true;
    case PrimitiveType::F8E4M3FNUZ: *format = {4, 3, 8, NanStyle::kFnuz}; return true;
    case PrimitiveType::F4E2M1FN: *format = {2, 1, 1, NanStyle::kNone}; return true;
    case PrimitiveType::F8E8M0FNU: *format = {8, 0, 127, NanStyle::kE8M0}; return true;
    default: return false;
  }
}

uint64_t DoubleBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits;
}

double BitsToDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// A NaN double with `sign` and the top `payload_bits` of its mantissa set
// from `payload` (non-zero), so that encoding it again gives the payload back.
double MakeNan(bool sign, uint64_t payload, int payload_bits) {
  uint64_t mantissa = payload_bits >= 52 ? payload : payload << (52 - payload_bits);
  mantissa &= Mask(52);
  if (mantissa == 0) mantissa = uint64_t{1} << 51;
  return BitsToDouble((sign ? uint64_t{1} << 63 : 0) | (uint64_t{0x7ff} << 52) | mantissa);
}

double DecodeFloat(uint64_t bits, const BitFormat& f) {
  if (f.style == NanStyle::kE8M0) {
    bits &= 0xff;
    if (bits == 0xff) return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  int sign_shift = f.exponent_bits + f.mantissa_bits;
  bool sign = (bits >> sign_shift) & 1;
  uint64_t exponent = (bits >> f.mantissa_bits) & Mask(f.exponent_bits);
  uint64_t mantissa = bits & Mask(f.mantissa_bits);
  uint64_t all_ones = Mask(f.exponent_bits);
  switch (f.style) {
    case NanStyle::kIeee:
      if (exponent == all_ones) {
        if (mantissa == 0)
          return sign ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
        return MakeNan(sign, mantissa, f.mantissa_bits);
      }
      break;
    case NanStyle::kFn:
      if (exponent == all_ones && mantissa == Mask(f.mantissa_bits))
        return MakeNan(sign, mantissa, f.mantissa_bits);
      break;
    case NanStyle::kFnuz:
      if (sign && exponent == 0 && mantissa == 0) return std::numeric_limits<double>::quiet_NaN();
      break;
    default: break;
  }
  double magnitude;
  if (exponent == 0) {  // zero or subnormal
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>((uint64_t{1} << f.mantissa_bits) | mantissa),
                           static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  }
  return sign ? -magnitude : magnitude;
}

// The encoding of `x`, a value of the type described by `f` (it is rounded
// to the type first in case it is not).
uint64_t EncodeFloat(double x, PrimitiveType type, const BitFormat& f) {
  if (!std::isnan(x)) x = RoundToFloatType(x, type);
  if (f.style == NanStyle::kE8M0) {
    if (std::isnan(x) || std::isinf(x) || x < 0) return 0xff;
    if (x == 0) return 0;  // no zero: the smallest value, 2^-127
    int e = std::ilogb(x) + 127;
    return static_cast<uint64_t>(e < 0 ? 0 : e > 254 ? 254 : e);
  }
  int sign_shift = f.exponent_bits + f.mantissa_bits;
  uint64_t sign = std::signbit(x) ? uint64_t{1} << sign_shift : 0;
  uint64_t exponent_mask = Mask(f.exponent_bits) << f.mantissa_bits;
  if (std::isnan(x) || (std::isinf(x) && f.style != NanStyle::kIeee)) {
    switch (f.style) {
      case NanStyle::kIeee: {
        uint64_t payload = (DoubleBits(x) & Mask(52)) >> (52 - f.mantissa_bits);
        if (payload == 0) payload = uint64_t{1} << (f.mantissa_bits - 1);  // quiet
        return sign | exponent_mask | payload;
      }
      case NanStyle::kFn: return sign | exponent_mask | Mask(f.mantissa_bits);
      case NanStyle::kFnuz: return uint64_t{1} << sign_shift;
      default: return Mask(sign_shift);  // no NaN: the largest magnitude
    }
  }
  if (std::isinf(x)) return sign | exponent_mask;
  if (x == 0) return f.style == NanStyle::kFnuz ? 0 : sign;
  double magnitude = std::fabs(x);
  int e = std::ilogb(magnitude);
  if (e < 1 - f.bias) {  // subnormal
    uint64_t mantissa = static_cast<uint64_t>(std::ldexp(magnitude, f.bias - 1 + f.mantissa_bits));
    return sign | (mantissa & Mask(f.mantissa_bits));
  }
  uint64_t exponent = static_cast<uint64_t>(e + f.bias) & Mask(f.exponent_bits);
  uint64_t mantissa =
      static_cast<uint64_t>(std::ldexp(magnitude, f.mantissa_bits - e)) & Mask(f.mantissa_bits);
  return sign | (exponent << f.mantissa_bits) | mantissa;
}

}  // namespace

uint64_t EncodeFloatBits(double value, PrimitiveType type) {
  BitFormat f;
  if (!BitFormatOf(type, &f)) return 0;
  return EncodeFloat(value, type, f);
}

double DecodeFloatBits(uint64_t bits, PrimitiveType type) {
  BitFormat f;
  if (!BitFormatOf(type, &f)) return 0;
  return DecodeFloat(bits & Mask(PrimitiveTypeBitWidth(type)), f);
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_FLOAT_BITS_H_
#define HOPT_CORE_IR_FLOAT_BITS_H_

// The bit patterns of the floating-point element types (F16, BF16, F32,
// F64, the F8 variants, F4E2M1FN, F8E8M0FNU): a literal stores every float
// widened to a double, and both the interpreter (bitcast-convert) and the
// protobuf writer and reader (narrow floats travel as their bits) need the
// type's own encoding. NaN payloads survive a decode/encode trip.

#include <cstdint>

#include "hopt/ir/shape.h"

namespace hopt {

// The encoding of `value` as an element of `type`, in the low
// PrimitiveTypeBitWidth(type) bits (`value` is rounded to the type first).
// 0 for a type that is not a floating-point type.
uint64_t EncodeFloatBits(double value, PrimitiveType type);
// The value the low PrimitiveTypeBitWidth(type) bits of `bits` encode as an
// element of `type`. 0 for a type that is not a floating-point type.
double DecodeFloatBits(uint64_t bits, PrimitiveType type);

}  // namespace hopt

#endif  // HOPT_CORE_IR_FLOAT_BITS_H_

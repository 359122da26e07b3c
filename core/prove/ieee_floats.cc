// SPDX-License-Identifier: Apache-2.0
// Floats as IEEE values (Encoder::set_ieee_floats): the operations the
// interpreter computes exactly rounded (docs/interpreter-semantics.md:
// computed in double, rounded once to the type, which for +, -, *, / and
// sqrt is the correctly rounded result), in Z3's floating-point theory.

#include "absl/strings/str_cat.h"
#include "core/prove/symbolic_value.h"

namespace hopt {
namespace prove {

int IeeeExponentBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16: return 5;
    case PrimitiveType::BF16:
    case PrimitiveType::F32: return 8;
    case PrimitiveType::F64: return 11;
    default: return 0;
  }
}

int IeeeSignificandBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16: return 11;
    case PrimitiveType::BF16: return 8;
    case PrimitiveType::F32: return 24;
    case PrimitiveType::F64: return 53;
    default: return 0;
  }
}

bool Encoder::IsIeee(PrimitiveType type) const { return ieee_ && IeeeExponentBits(type) > 0; }

z3::expr Encoder::Rne() { return z3::expr(context_, Z3_mk_fpa_rne(context_)); }

std::optional<z3::expr> Encoder::IeeeUnary(HloOpcode opcode, PrimitiveType type,
                                           const z3::expr& x) {
  z3::context& c = context_;
  auto round = [&](Z3_ast mode) { return z3::expr(c, Z3_mk_fpa_round_to_integral(c, mode, x)); };
  switch (opcode) {
    case HloOpcode::kNegate: return z3::expr(c, Z3_mk_fpa_neg(c, x));
    case HloOpcode::kAbs: return z3::expr(c, Z3_mk_fpa_abs(c, x));
    case HloOpcode::kSqrt: return z3::expr(c, Z3_mk_fpa_sqrt(c, Rne(), x));
    case HloOpcode::kFloor: return round(Z3_mk_fpa_rtn(c));
    case HloOpcode::kCeil: return round(Z3_mk_fpa_rtp(c));
    case HloOpcode::kRoundNearestEven: return round(Z3_mk_fpa_rne(c));
    case HloOpcode::kRoundNearestAfz: return round(Z3_mk_fpa_rna(c));
    case HloOpcode::kSign: {
      // NaN and zeros are themselves; otherwise -1 or 1.
      z3::expr one(c, Z3_mk_fpa_numeral_double(c, 1.0, x.get_sort()));
      z3::expr minus_one(c, Z3_mk_fpa_numeral_double(c, -1.0, x.get_sort()));
      z3::expr keep = z3::expr(c, Z3_mk_fpa_is_nan(c, x)) || z3::expr(c, Z3_mk_fpa_is_zero(c, x));
      return z3::ite(keep, x, z3::ite(z3::expr(c, Z3_mk_fpa_is_negative(c, x)), minus_one, one));
    }
    default: return std::nullopt;
  }
}

std::optional<z3::expr> Encoder::IeeeBinary(HloOpcode opcode, PrimitiveType type, const z3::expr& a,
                                            const z3::expr& b) {
  z3::context& c = context_;
  auto is_nan = [&](const z3::expr& x) { return z3::expr(c, Z3_mk_fpa_is_nan(c, x)); };
  auto is_negative = [&](const z3::expr& x) { return z3::expr(c, Z3_mk_fpa_is_negative(c, x)); };
  auto eq = [&](const z3::expr& x, const z3::expr& y) {
    return z3::expr(c, Z3_mk_fpa_eq(c, x, y));
  };
  switch (opcode) {
    case HloOpcode::kAdd: return z3::expr(c, Z3_mk_fpa_add(c, Rne(), a, b));
    case HloOpcode::kSubtract: return z3::expr(c, Z3_mk_fpa_sub(c, Rne(), a, b));
    case HloOpcode::kMultiply: return z3::expr(c, Z3_mk_fpa_mul(c, Rne(), a, b));
    case HloOpcode::kDivide: return z3::expr(c, Z3_mk_fpa_div(c, Rne(), a, b));
    // XLA's maximum and minimum propagate NaN (the first operand's when
    // both are), and order -0 below +0.
    case HloOpcode::kMaximum:
      return z3::ite(is_nan(a), a,
                     z3::ite(is_nan(b), b,
                             z3::ite(eq(a, b), z3::ite(is_negative(a), b, a),
                                     z3::ite(z3::expr(c, Z3_mk_fpa_gt(c, a, b)), a, b))));
    case HloOpcode::kMinimum:
      return z3::ite(is_nan(a), a,
                     z3::ite(is_nan(b), b,
                             z3::ite(eq(a, b), z3::ite(is_negative(a), a, b),
                                     z3::ite(z3::expr(c, Z3_mk_fpa_lt(c, a, b)), a, b))));
    default: return std::nullopt;
  }
}

// IEEE comparisons: every one false on NaN but NE.
std::optional<z3::expr> Encoder::IeeeCompare(absl::string_view direction, const z3::expr& a,
                                             const z3::expr& b) {
  z3::context& c = context_;
  if (direction == "EQ") return z3::expr(c, Z3_mk_fpa_eq(c, a, b));
  if (direction == "NE") return !z3::expr(c, Z3_mk_fpa_eq(c, a, b));
  if (direction == "LT") return z3::expr(c, Z3_mk_fpa_lt(c, a, b));
  if (direction == "LE") return z3::expr(c, Z3_mk_fpa_leq(c, a, b));
  if (direction == "GT") return z3::expr(c, Z3_mk_fpa_gt(c, a, b));
  if (direction == "GE") return z3::expr(c, Z3_mk_fpa_geq(c, a, b));
  return std::nullopt;  // a total-order comparison, say: uninterpreted
}

std::optional<z3::expr> Encoder::IeeeConvert(PrimitiveType from, PrimitiveType to,
                                             const z3::expr& x) {
  z3::context& c = context_;
  if (!IsIeee(to)) return std::nullopt;  // to an integer: XLA's saturation rules, uninterpreted
  auto sort = SortOf(to);
  if (!sort.ok()) return std::nullopt;
  if (IsIeee(from)) return z3::expr(c, Z3_mk_fpa_to_fp_float(c, Rne(), x, *sort));
  if (from == PrimitiveType::PRED) {
    z3::expr one(c, Z3_mk_fpa_numeral_double(c, 1.0, *sort));
    z3::expr zero(c, Z3_mk_fpa_numeral_double(c, 0.0, *sort));
    return z3::ite(x, one, zero);
  }
  // Integers of up to 32 bits are exact in the double the interpreter
  // converts through, so its result is the correctly rounded one.
  if (IsInteger(from) && Width(from) <= 32)
    return z3::expr(c, IsSignedIntegralType(from) ? Z3_mk_fpa_to_fp_signed(c, Rne(), x, *sort)
                                                  : Z3_mk_fpa_to_fp_unsigned(c, Rne(), x, *sort));
  return std::nullopt;
}

}  // namespace prove
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "core/prove/symbolic_value.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>

#include "absl/strings/str_cat.h"

namespace hopt {
namespace prove {
namespace {

absl::Status Unsupported(absl::string_view what) {
  return absl::UnimplementedError(std::string(what));
}

// What makes two chains the same operation: the opcode, and for maximum
// and minimum whether the order is signed.
int ChainKind(HloOpcode opcode, PrimitiveType type) {
  bool ordered = opcode == HloOpcode::kMaximum || opcode == HloOpcode::kMinimum;
  return 2 * static_cast<int>(opcode) + (ordered && IsSignedIntegralType(type) ? 1 : 0);
}

}  // namespace

bool Encoder::IsFloat(PrimitiveType type) { return IsFloatingPointType(type); }
bool Encoder::IsInteger(PrimitiveType type) { return IsIntegralType(type); }
int Encoder::Width(PrimitiveType type) { return PrimitiveTypeBitWidth(type); }

z3::func_decl Encoder::Function(const std::string& name, const std::vector<z3::sort>& domain,
                                const z3::sort& range) {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  z3::sort_vector sorts(context_);
  for (const z3::sort& s : domain) sorts.push_back(s);
  z3::func_decl f = context_.function(name.c_str(), sorts, range);
  functions_.emplace(name, f);
  return f;
}

absl::StatusOr<z3::sort> Encoder::SortOf(PrimitiveType type) {
  if (type == PrimitiveType::PRED) return context_.bool_sort();
  if (IsInteger(type)) return context_.bv_sort(Width(type));
  if (IsFloat(type)) {
    auto it = float_sorts_.find(type);
    if (it != float_sorts_.end()) return it->second;
    z3::sort s = IsIeee(type)
                     ? context_.fpa_sort(IeeeExponentBits(type), IeeeSignificandBits(type))
                     : context_.uninterpreted_sort(std::string(PrimitiveTypeString(type)).c_str());
    float_sorts_.emplace(type, s);
    return s;
  }
  return Unsupported(absl::StrCat("no formula for elements of type ", PrimitiveTypeString(type)));
}

absl::StatusOr<z3::expr> Encoder::Variable(PrimitiveType type, const std::string& name) {
  auto sort = SortOf(type);
  if (!sort.ok()) return sort.status();
  return context_.constant(name.c_str(), *sort);
}

absl::StatusOr<z3::expr> Encoder::IntegerConstant(PrimitiveType type, int64_t value) {
  if (type == PrimitiveType::PRED) return context_.bool_val(value != 0);
  if (IsInteger(type)) return context_.bv_val(static_cast<uint64_t>(value), Width(type));
  if (IsFloat(type)) return FloatConstant(type, static_cast<double>(value));
  return Unsupported(absl::StrCat("no constant of type ", PrimitiveTypeString(type)));
}

absl::StatusOr<z3::expr> Encoder::FloatConstant(PrimitiveType type, double value) {
  if (!IsFloat(type)) return IntegerConstant(type, static_cast<int64_t>(value));
  auto sort = SortOf(type);
  if (!sort.ok()) return sort.status();
  if (IsIeee(type)) return z3::expr(context_, Z3_mk_fpa_numeral_double(context_, value, *sort));
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  z3::func_decl literal =
      Function(absl::StrCat(PrimitiveTypeString(type), ".literal"), {context_.bv_sort(64)}, *sort);
  return literal(context_.bv_val(bits, 64));
}

absl::StatusOr<z3::expr> Encoder::Zero(PrimitiveType type) {
  if (IsFloat(type)) return FloatConstant(type, 0.0);
  return IntegerConstant(type, 0);
}

z3::expr Encoder::AsIndex(PrimitiveType type, const z3::expr& x, int width) {
  int from = Width(type);
  if (from == width) return x;
  if (from > width) return x.extract(width - 1, 0);
  // Signed indices keep their sign: XLA clamps a negative start to 0.
  if (IsSignedIntegralType(type)) return z3::sext(x, width - from);
  return z3::zext(x, width - from);
}

absl::StatusOr<z3::expr> Encoder::Unary(HloOpcode opcode, PrimitiveType type, const z3::expr& x) {
  if (type == PrimitiveType::PRED) {
    if (opcode == HloOpcode::kNot) return !x;
    if (opcode == HloOpcode::kCopy) return x;
    return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of pred"));
  }
  if (IsInteger(type)) {
    bool is_signed = IsSignedIntegralType(type);
    switch (opcode) {
      case HloOpcode::kNegate: return -x;
      case HloOpcode::kNot: return ~x;
      case HloOpcode::kCopy: return x;
      case HloOpcode::kAbs: return is_signed ? z3::ite(x < 0, -x, x) : x;
      case HloOpcode::kSign: {
        int w = Width(type);
        z3::expr zero = context_.bv_val(0, w), one = context_.bv_val(1, w);
        if (!is_signed) return z3::ite(x == zero, zero, one);
        return z3::ite(x == zero, zero, z3::ite(x < 0, context_.bv_val(-1, w), one));
      }
      default: return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of integers"));
    }
  }
  if (IsFloat(type)) {
    if (opcode == HloOpcode::kCopy) return x;
    if (IsIeee(type))
      if (std::optional<z3::expr> e = IeeeUnary(opcode, type, x)) return *e;
    auto sort = SortOf(type);
    if (!sort.ok()) return sort.status();
    z3::func_decl f = Function(
        absl::StrCat(PrimitiveTypeString(type), ".", HloOpcodeString(opcode)), {*sort}, *sort);
    return f(x);
  }
  return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of ", PrimitiveTypeString(type)));
}

absl::StatusOr<z3::expr> Encoder::Binary(HloOpcode opcode, PrimitiveType type, const z3::expr& a,
                                         const z3::expr& b) {
  if (type == PrimitiveType::PRED) {
    switch (opcode) {
      case HloOpcode::kAnd:
      case HloOpcode::kMinimum: return a && b;
      case HloOpcode::kOr:
      case HloOpcode::kMaximum: return a || b;
      case HloOpcode::kXor:
      case HloOpcode::kAdd: return a != b;
      default: return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of pred"));
    }
  }
  if (IsInteger(type)) {
    switch (opcode) {
      case HloOpcode::kAdd:
      case HloOpcode::kMultiply:
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kXor:
      case HloOpcode::kMaximum:
      case HloOpcode::kMinimum: return Associative(opcode, type, a, b);
      default: break;
    }
    bool is_signed = IsSignedIntegralType(type);
    int w = Width(type);
    z3::expr zero = context_.bv_val(0, w);
    z3::expr all_ones = context_.bv_val(-1, w);
    // (add, multiply, and, or, xor, maximum, minimum: Associative above.)
    switch (opcode) {
      case HloOpcode::kSubtract: return a - b;
      // XLA: x / 0 is -1 (all ones), INT_MIN / -1 is INT_MIN; x % 0 is x,
      // INT_MIN % -1 is 0. SMT-LIB's bvudiv/bvurem agree for unsigned
      // types; its signed division by zero does not, hence the guard.
      case HloOpcode::kDivide:
        if (!is_signed) return z3::udiv(a, b);
        return z3::ite(b == zero, all_ones, a / b);
      case HloOpcode::kRemainder: return is_signed ? z3::srem(a, b) : z3::urem(a, b);
      // Amounts at or past the width (as unsigned) give 0, or the sign for
      // an arithmetic shift: SMT-LIB's shifts say the same.
      case HloOpcode::kShiftLeft: return z3::shl(a, b);
      case HloOpcode::kShiftRightLogical: return z3::lshr(a, b);
      case HloOpcode::kShiftRightArithmetic: return z3::ashr(a, b);
      default: return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of integers"));
    }
  }
  if (IsFloat(type)) {
    // Float add, multiply, maximum and minimum commute (up to NaN payloads,
    // which outputs are compared without): operands in one order make
    // a + b and b + a one term, in both encodings.
    bool commutes = opcode == HloOpcode::kAdd || opcode == HloOpcode::kMultiply ||
                    opcode == HloOpcode::kMaximum || opcode == HloOpcode::kMinimum;
    if (commutes && a.id() > b.id()) return Binary(opcode, type, b, a);
    if (IsIeee(type))
      if (std::optional<z3::expr> e = IeeeBinary(opcode, type, a, b)) return *e;
    auto sort = SortOf(type);
    if (!sort.ok()) return sort.status();
    z3::func_decl f =
        Function(absl::StrCat(PrimitiveTypeString(type), ".", HloOpcodeString(opcode)),
                 {*sort, *sort}, *sort);
    return f(a, b);
  }
  return Unsupported(absl::StrCat(HloOpcodeString(opcode), " of ", PrimitiveTypeString(type)));
}

z3::expr Encoder::Apply(HloOpcode opcode, PrimitiveType type, const z3::expr& x,
                        const z3::expr& y) {
  bool is_signed = IsSignedIntegralType(type);
  switch (opcode) {
    case HloOpcode::kAdd: return x + y;
    case HloOpcode::kMultiply: return x * y;
    case HloOpcode::kAnd: return x & y;
    case HloOpcode::kOr: return x | y;
    case HloOpcode::kXor: return x ^ y;
    case HloOpcode::kMaximum:
      return is_signed ? z3::ite(x >= y, x, y) : z3::ite(z3::uge(x, y), x, y);
    default:  // kMinimum
      return is_signed ? z3::ite(x <= y, x, y) : z3::ite(z3::ule(x, y), x, y);
  }
}

absl::StatusOr<z3::expr> Encoder::Associative(HloOpcode opcode, PrimitiveType type,
                                              const z3::expr& a, const z3::expr& b) {
  // Two constants are a constant: a loop counter stays a number, so the
  // loop's condition can be decided while unrolling.
  if (a.is_numeral() && b.is_numeral()) return Apply(opcode, type, a, b).simplify();
  bool idempotent = opcode == HloOpcode::kMaximum || opcode == HloOpcode::kMinimum ||
                    opcode == HloOpcode::kAnd || opcode == HloOpcode::kOr;
  // Maximum and minimum order signed and unsigned values apart: a chain of
  // one is no chain of the other, although their leaves are the same bits.
  const int kind = ChainKind(opcode, type);
  auto leaves_of = [&](const z3::expr& x) -> std::vector<unsigned> {
    auto it = chains_.find(x.id());
    if (it != chains_.end() && ChainKind(it->second.opcode, it->second.type) == kind)
      return it->second.leaves;
    leaves_.emplace(x.id(), x);
    return {x.id()};
  };
  std::vector<unsigned> left = leaves_of(a), right = leaves_of(b);
  if (left.size() + right.size() > kMaxLeaves) return Apply(opcode, type, a, b);
  std::vector<unsigned> leaves;
  leaves.reserve(left.size() + right.size());
  std::merge(left.begin(), left.end(), right.begin(), right.end(), std::back_inserter(leaves));
  if (idempotent) leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  // Numbers fold into one: an init applied 129 times (a two-stage reduce)
  // is then the same chain as one applied once whenever the folded
  // numbers agree, without the solver multiplying 1,024 bit-vectors.
  std::optional<z3::expr> number;
  std::vector<unsigned> terms;
  for (unsigned id : leaves) {
    const z3::expr& leaf = leaves_.at(id);
    if (!leaf.is_numeral()) {
      terms.push_back(id);
      continue;
    }
    number = number ? Apply(opcode, type, *number, leaf).simplify() : leaf;
  }
  // x ^ x is 0: pairs of one leaf cancel.
  if (opcode == HloOpcode::kXor) {
    std::vector<unsigned> odd;
    for (size_t k = 0; k < terms.size();) {
      size_t n = 1;
      while (k + n < terms.size() && terms[k + n] == terms[k]) ++n;
      if (n % 2 == 1) odd.push_back(terms[k]);
      k += n;
    }
    terms = std::move(odd);
  }
  if (number) {
    const int w = Width(type);
    const bool is_signed = IsSignedIntegralType(type);
    z3::expr zero = context_.bv_val(0, w), ones = context_.bv_val(-1, w);
    z3::expr lowest = is_signed ? context_.bv_val(uint64_t{1} << (w - 1), w) : zero;
    z3::expr highest = is_signed ? context_.bv_val((uint64_t{1} << (w - 1)) - 1, w) : ones;
    auto is = [&](const z3::expr& v) { return z3::eq(*number, v.simplify()); };
    bool identity = false, absorbing = false;
    switch (opcode) {
      case HloOpcode::kAdd:
      case HloOpcode::kOr:
      case HloOpcode::kXor:
        identity = is(zero);
        absorbing = opcode == HloOpcode::kOr && is(ones);
        break;
      case HloOpcode::kMultiply:
        identity = is(context_.bv_val(1, w));
        absorbing = is(zero);
        break;
      case HloOpcode::kAnd:
        identity = is(ones);
        absorbing = is(zero);
        break;
      case HloOpcode::kMaximum:
        identity = is(lowest);
        absorbing = is(highest);
        break;
      default:  // kMinimum
        identity = is(highest);
        absorbing = is(lowest);
        break;
    }
    if (absorbing || terms.empty()) return *number;
    if (!identity) {
      leaves_.emplace(number->id(), *number);
      terms.push_back(number->id());
      std::sort(terms.begin(), terms.end());
    }
  }
  if (terms.empty()) return context_.bv_val(0, Width(type));  // xor of pairs only
  leaves = std::move(terms);
  if (leaves.size() == 1) return leaves_.at(leaves[0]);
  std::pair<int, std::vector<unsigned>> key(kind, leaves);
  auto it = chain_constants_.find(key);
  if (it != chain_constants_.end()) return it->second;
  z3::expr constant =
      context_.constant(absl::StrCat(HloOpcodeString(opcode), "-chain!", chains_.size()).c_str(),
                        context_.bv_sort(Width(type)));
  chains_.emplace(constant.id(), Chain{opcode, type, std::move(leaves)});
  chain_constants_.emplace(std::move(key), constant);
  return constant;
}

void Encoder::Define(z3::solver& solver, const z3::expr_vector& roots) {
  std::vector<z3::expr> stack;
  std::set<unsigned> seen;
  for (unsigned k = 0; k < roots.size(); ++k) stack.push_back(roots[k]);
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.id()).second) continue;
    auto chain = chains_.find(e.id());
    if (chain != chains_.end()) {
      const Chain& c = chain->second;
      if (c.opcode == HloOpcode::kMaximum || c.opcode == HloOpcode::kMinimum) {
        // The extreme of its leaves, stated as "bounds every leaf and is
        // one of them": linear, where a fold is a chain of comparators and
        // multiplexers as deep as the leaves are many.
        const bool is_signed = IsSignedIntegralType(c.type);
        const bool is_max = c.opcode == HloOpcode::kMaximum;
        z3::expr_vector is_one(context_);
        for (unsigned id : c.leaves) {
          const z3::expr& leaf = leaves_.at(id);
          z3::expr bound = is_max ? (is_signed ? e >= leaf : z3::uge(e, leaf))
                                  : (is_signed ? e <= leaf : z3::ule(e, leaf));
          solver.add(bound);
          is_one.push_back(e == leaf);
        }
        solver.add(z3::mk_or(is_one));
      } else {
        z3::expr folded = leaves_.at(c.leaves[0]);
        for (size_t k = 1; k < c.leaves.size(); ++k)
          folded = Apply(c.opcode, c.type, folded, leaves_.at(c.leaves[k]));
        solver.add(e == folded);
      }
      for (unsigned leaf : c.leaves) stack.push_back(leaves_.at(leaf));
      continue;
    }
    if (e.is_app())
      for (unsigned k = 0; k < e.num_args(); ++k) stack.push_back(e.arg(k));
  }
}

absl::StatusOr<z3::expr> Encoder::Compare(absl::string_view direction, PrimitiveType type,
                                          const z3::expr& a, const z3::expr& b) {
  if (type == PrimitiveType::PRED) {
    // false < true.
    if (direction == "EQ") return a == b;
    if (direction == "NE") return a != b;
    if (direction == "LT") return !a && b;
    if (direction == "LE") return !a || b;
    if (direction == "GT") return a && !b;
    if (direction == "GE") return a || !b;
  } else if (IsInteger(type)) {
    bool s = IsSignedIntegralType(type);
    if (direction == "EQ") return a == b;
    if (direction == "NE") return a != b;
    if (direction == "LT") return s ? a < b : z3::ult(a, b);
    if (direction == "LE") return s ? a <= b : z3::ule(a, b);
    if (direction == "GT") return s ? a > b : z3::ugt(a, b);
    if (direction == "GE") return s ? a >= b : z3::uge(a, b);
  } else if (IsFloat(type)) {
    if (IsIeee(type))
      if (std::optional<z3::expr> e = IeeeCompare(direction, a, b)) return *e;
    auto sort = SortOf(type);
    if (!sort.ok()) return sort.status();
    z3::func_decl f = Function(absl::StrCat(PrimitiveTypeString(type), ".compare-", direction),
                               {*sort, *sort}, context_.bool_sort());
    return f(a, b);
  }
  return Unsupported(absl::StrCat("compare ", direction, " of ", PrimitiveTypeString(type)));
}

absl::StatusOr<z3::expr> Encoder::Convert(PrimitiveType from, PrimitiveType to, const z3::expr& x) {
  if (from == to) return x;
  if (IsInteger(from) && IsInteger(to)) {
    int wf = Width(from), wt = Width(to);
    if (wt < wf) return x.extract(wt - 1, 0);
    if (wt == wf) return x;
    return IsSignedIntegralType(from) ? z3::sext(x, wt - wf) : z3::zext(x, wt - wf);
  }
  if (from == PrimitiveType::PRED && IsInteger(to))
    return z3::ite(x, context_.bv_val(1, Width(to)), context_.bv_val(0, Width(to)));
  if (IsInteger(from) && to == PrimitiveType::PRED) return x != context_.bv_val(0, Width(from));
  if (IsIeee(from) || IsIeee(to))
    if (std::optional<z3::expr> e = IeeeConvert(from, to, x)) return *e;
  auto from_sort = SortOf(from);
  if (!from_sort.ok()) return from_sort.status();
  auto to_sort = SortOf(to);
  if (!to_sort.ok()) return to_sort.status();
  z3::func_decl f =
      Function(absl::StrCat("convert.", PrimitiveTypeString(from), ".", PrimitiveTypeString(to)),
               {*from_sort}, *to_sort);
  return f(x);
}

}  // namespace prove
}  // namespace hopt

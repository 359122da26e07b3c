// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_SYMBOLIC_VALUE_H_
#define HOPT_CORE_PROVE_SYMBOLIC_VALUE_H_

// Values as formulas (docs/proofs.md): an HLO value on one device is its
// shape and one Z3 term per element, in row-major order; a tuple holds its
// elements. Integers are bit-vectors of their width, pred a Boolean, and
// floating-point elements terms of an uninterpreted sort per type, built
// with uninterpreted functions per operation: two formulas are then equal
// for every input only when both sides apply the same operations to the
// same values in the same order, which is what a proof of a rewrite that
// moves data (or keeps arithmetic as it was) needs, and is sound for the
// real IEEE operations, which are functions of their operands' bits.

#include <z3++.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace prove {

struct SymValue {
  Shape shape;
  std::vector<z3::expr> elements;  // arrays: ElementCount() terms
  std::vector<SymValue> tuple;     // tuples
};

// Exponent and significand bits (the hidden bit counted, as Z3 counts it)
// of f16, bf16, f32 and f64; 0 for other types.
int IeeeExponentBits(PrimitiveType type);
int IeeeSignificandBits(PrimitiveType type);

// The sorts and functions of one proof.
class Encoder {
 public:
  explicit Encoder(z3::context& context) : context_(context) {}
  z3::context& context() { return context_; }

  static bool IsFloat(PrimitiveType type);
  static bool IsInteger(PrimitiveType type);  // signed or unsigned, not pred
  // Bits of an integer type.
  static int Width(PrimitiveType type);

  // The sort of an element of `type`; an error for types no formula holds
  // (complex, opaque...).
  absl::StatusOr<z3::sort> SortOf(PrimitiveType type);
  // A fresh variable.
  absl::StatusOr<z3::expr> Variable(PrimitiveType type, const std::string& name);
  // A constant element: an integer's two's-complement bits, a float's value
  // (as double bits), pred's truth.
  absl::StatusOr<z3::expr> IntegerConstant(PrimitiveType type, int64_t value);
  absl::StatusOr<z3::expr> FloatConstant(PrimitiveType type, double value);
  absl::StatusOr<z3::expr> Zero(PrimitiveType type);

  absl::StatusOr<z3::expr> Unary(HloOpcode opcode, PrimitiveType type, const z3::expr& x);
  absl::StatusOr<z3::expr> Binary(HloOpcode opcode, PrimitiveType type, const z3::expr& a,
                                  const z3::expr& b);
  // A Boolean.
  absl::StatusOr<z3::expr> Compare(absl::string_view direction, PrimitiveType type,
                                   const z3::expr& a, const z3::expr& b);
  absl::StatusOr<z3::expr> Convert(PrimitiveType from, PrimitiveType to, const z3::expr& x);
  // An element of `type` from `x`'s bits as an unsigned integer (index
  // arithmetic on any integer type).
  z3::expr AsIndex(PrimitiveType type, const z3::expr& x, int width = 64);

  // Floats of f16, bf16, f32 and f64 as IEEE values (Z3's floating-point
  // theory, rounding to nearest even, as the interpreter rounds) instead of
  // uninterpreted terms: exact, and far costlier per operation. Operations
  // that theory has no exact counterpart for (exp, remainder, float to
  // integer conversion...) stay uninterpreted functions of IEEE values.
  // Set before the first formula is made.
  void set_ieee_floats(bool on) { ieee_ = on; }
  bool ieee_floats() const { return ieee_; }
  bool IsIeee(PrimitiveType type) const;

  // Whether an uninterpreted function was used: the proof then holds for
  // every meaning of the float operations, and a model's float values are
  // abstract.
  bool used_functions() const { return !functions_.empty(); }

 private:
  z3::func_decl Function(const std::string& name, const std::vector<z3::sort>& domain,
                         const z3::sort& range);

  // Integer add, multiply, and, or, xor, maximum and minimum are
  // associative and commutative on bit-vectors (maximum, minimum, and, or
  // idempotent too): a chain of one of them is a constant standing for the
  // set (or multiset) of its leaves, one constant per set, so two
  // regroupings of a reduction (a reduce split in two, a tree of partial
  // maxima) give the same constant and the solver has nothing left to
  // prove. Define() states, for the constants a formula reaches, that each
  // is the fold of its leaves; the chains a reduction passes through on
  // the way are never written out. Past kMaxLeaves a chain is folded as
  // given.
  absl::StatusOr<z3::expr> Associative(HloOpcode opcode, PrimitiveType type, const z3::expr& a,
                                       const z3::expr& b);
  z3::expr Apply(HloOpcode opcode, PrimitiveType type, const z3::expr& x, const z3::expr& y);
  // The IEEE forms (core/prove/ieee_floats.cc); nullopt where the
  // operation stays uninterpreted.
  std::optional<z3::expr> IeeeUnary(HloOpcode opcode, PrimitiveType type, const z3::expr& x);
  std::optional<z3::expr> IeeeBinary(HloOpcode opcode, PrimitiveType type, const z3::expr& a,
                                     const z3::expr& b);
  std::optional<z3::expr> IeeeCompare(absl::string_view direction, const z3::expr& a,
                                      const z3::expr& b);
  std::optional<z3::expr> IeeeConvert(PrimitiveType from, PrimitiveType to, const z3::expr& x);
  z3::expr Rne();
  static constexpr size_t kMaxLeaves = 1 << 16;
  struct Chain {
    HloOpcode opcode;
    PrimitiveType type;
    std::vector<unsigned> leaves;  // Z3 ids, sorted
  };

 public:
  // Adds to `solver` the definition of every chain constant `roots` reach.
  void Define(z3::solver& solver, const z3::expr_vector& roots);

 private:
  z3::context& context_;
  bool ieee_ = false;
  std::map<PrimitiveType, z3::sort> float_sorts_;
  std::map<std::string, z3::func_decl> functions_;
  std::map<unsigned, Chain> chains_;  // by the id of the chain's constant
  std::map<std::pair<int, std::vector<unsigned>>, z3::expr> chain_constants_;
  std::map<unsigned, z3::expr> leaves_;  // every leaf by its id
};

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_SYMBOLIC_VALUE_H_

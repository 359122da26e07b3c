// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_LITERAL_H_
#define HOPT_IR_LITERAL_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/shape.h"

namespace hopt {

// Rounds `value` to the nearest value of a floating-point element type
// (round half to even; overflow gives inf, or NaN for types without inf).
double RoundToFloatType(double value, PrimitiveType type);
// Wraps `value` to an integral type's width (two's complement) or maps it to
// pred (non-zero is true).
int64_t WrapToIntegralType(int64_t value, PrimitiveType type);

// A constant's value: an array of one element type (stored widened: floats
// as doubles already rounded to the type, integers as int64 with unsigned
// 64-bit values in their bit pattern, complex as pairs) or a tuple.
class Literal {
 public:
  Literal() = default;
  explicit Literal(const Shape& shape);  // zero-filled

  // Parses the text between `constant(` and `)`. Elided arrays (`{...}`)
  // parse to a literal whose values are unknown (`is_elided()`).
  static absl::StatusOr<Literal> Parse(const Shape& shape, absl::string_view text);
  // Checks the text like Parse, without storing the values (constants in
  // real dumps can hold hundreds of millions of elements).
  static absl::Status Validate(const Shape& shape, absl::string_view text);
  template <typename T>
  static Literal Scalar(PrimitiveType type, T value) {
    Literal literal(Shape(type, {}));
    literal.SetFromDouble(0, static_cast<double>(value));
    return literal;
  }

  const Shape& shape() const { return shape_; }
  bool is_elided() const { return elided_; }
  int64_t element_count() const { return static_cast<int64_t>(size_); }
  // Heap bytes the values take, tuple elements included: what a budget on
  // memory must count (8 bytes per element whatever the type, 16 complex).
  int64_t AllocatedBytes() const;
  // AllocatedBytes() of a zero-filled literal of `shape`, saturating at
  // INT64_MAX, without making it.
  static int64_t AllocatedBytesFor(const Shape& shape);

  double GetAsDouble(int64_t index) const;
  int64_t GetAsInt64(int64_t index) const;
  std::complex<double> GetAsComplex(int64_t index) const;
  // Stores a value converted (rounded or wrapped) to the element type.
  void SetFromDouble(int64_t index, double value);
  void SetFromInt64(int64_t index, int64_t value);
  void SetFromComplex(int64_t index, std::complex<double> value);
  // A floating-point (not complex) array's stored values, for bulk readers
  // and writers (the interpreter's dense kernels); null otherwise. A writer
  // stores only values that the element type holds exactly.
  const double* real_data() const {
    return stored_ && imags_.empty() && !reals_.empty() ? reals_.data() : nullptr;
  }
  double* mutable_real_data() {
    return stored_ && imags_.empty() && !reals_.empty() ? reals_.data() : nullptr;
  }
  // The same for an integer or pred array: each value as an int64 already
  // wrapped to the element type (pred: 0 or 1). A writer keeps to that.
  const int64_t* int_data() const {
    return stored_ && reals_.empty() && !ints_.empty() ? ints_.data() : nullptr;
  }
  int64_t* mutable_int_data() {
    return stored_ && reals_.empty() && !ints_.empty() ? ints_.data() : nullptr;
  }
  // Element `from` of `source` (same element type) into element `to`, as
  // stored: no conversion, NaN payloads kept.
  void CopyElementFrom(const Literal& source, int64_t from, int64_t to);
  // Elements [from, from + count) of `source` into [to, to + count), as
  // CopyElementFrom does each: one copy per storage array for a row.
  void CopyElementsFrom(const Literal& source, int64_t from, int64_t to, int64_t count);

  // A tuple of `shape` made of `elements`, moved in without a copy; each
  // must be Compatible with its element shape and takes its layouts (the
  // values are stored in logical order, so none moves).
  static absl::StatusOr<Literal> Tuple(const Shape& shape, std::vector<Literal> elements);
  // Takes the layouts of `shape`, which must be Compatible with this
  // value's shape.
  absl::Status SetLayoutFrom(const Shape& shape);

  const std::vector<Literal>& tuple_elements() const { return tuple_; }
  std::vector<Literal>& mutable_tuple_elements() { return tuple_; }

  // XLA's spelling: `42`, `{1, 2}`, `{ { 1, 2 }, { 3, 4 } }`, `(1, {2, 3})`.
  std::string ToText() const;
  bool operator==(const Literal& other) const;

 private:
  Literal(const Shape& shape, bool allocate);
  friend class LiteralParser;
  void AppendText(std::string* out) const;
  void AppendElement(std::string* out, int64_t index) const;

  Shape shape_;
  size_t size_ = 0;
  bool elided_ = false;
  bool stored_ = true;         // false while only validating
  std::vector<double> reals_;  // floating point and complex real parts
  std::vector<double> imags_;  // complex imaginary parts
  std::vector<int64_t> ints_;  // integers and pred
  std::vector<Literal> tuple_;
};

// XLA's shortest-that-round-trips text of a floating-point value of `type`.
std::string FormatFloat(double value, PrimitiveType type);

}  // namespace hopt

#endif  // HOPT_IR_LITERAL_H_

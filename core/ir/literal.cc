// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/literal.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "core/ir/text_cursor.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

struct FloatFormat {
  int mantissa_bits;
  int min_exponent;  // exponent of the smallest normal number
  double max_finite;
  bool has_inf;
  bool has_nan;
  bool unsigned_only;
  int digits10;      // XLA prints with this many digits first...
  int max_digits10;  // ...then with this many when that does not round-trip
};

FloatFormat FormatOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16: return {10, -14, 65504.0, true, true, false, 5, 5};
    case PrimitiveType::BF16: return {7, -126, 3.38953139e38, true, true, false, 4, 4};
    case PrimitiveType::F32: return {23, -126, 3.4028234663852886e38, true, true, false, 6, 9};
    case PrimitiveType::F8E5M2: return {2, -14, 57344.0, true, true, false, 3, 3};
    case PrimitiveType::F8E4M3: return {3, -6, 240.0, true, true, false, 3, 3};
    case PrimitiveType::F8E4M3FN: return {3, -6, 448.0, false, true, false, 3, 3};
    case PrimitiveType::F8E4M3B11FNUZ: return {3, -10, 30.0, false, true, false, 3, 3};
    case PrimitiveType::F8E5M2FNUZ: return {2, -15, 57344.0, false, true, false, 3, 3};
    case PrimitiveType::F8E4M3FNUZ: return {3, -7, 240.0, false, true, false, 3, 3};
    case PrimitiveType::F8E3M4: return {4, -2, 15.5, true, true, false, 3, 3};
    case PrimitiveType::F4E2M1FN: return {1, 0, 6.0, false, false, false, 2, 2};
    case PrimitiveType::F8E8M0FNU: return {0, -127, 1.7014118346046923e38, false, true, true, 3, 3};
    default: return {52, -1022, std::numeric_limits<double>::max(), true, true, false, 15, 17};
  }
}

bool IsFloatStorage(PrimitiveType t) { return IsFloatingPointType(t); }
bool IsComplexStorage(PrimitiveType t) { return IsComplexType(t); }

absl::Status Malformed(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed literal (", why, "): '", text.substr(0, 80), "'"));
}

}  // namespace

double RoundToFloatType(double value, PrimitiveType type) {
  if (type == PrimitiveType::F64 || std::isnan(value)) {
    if (std::isnan(value) && !FormatOf(type).has_nan) return 0.0;
    return value;
  }
  if (type == PrimitiveType::F32) return static_cast<double>(static_cast<float>(value));
  FloatFormat f = FormatOf(type);
  if (f.unsigned_only && value < 0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(value)) {
    if (f.has_inf) return value;
    return f.has_nan ? std::numeric_limits<double>::quiet_NaN()
                     : std::copysign(f.max_finite, value);
  }
  if (value == 0) return f.unsigned_only ? 0.0 : value;
  double magnitude = std::fabs(value);
  int exponent = std::ilogb(magnitude);
  if (exponent < f.min_exponent) exponent = f.min_exponent;
  double ulp = std::ldexp(1.0, exponent - f.mantissa_bits);
  double rounded = std::nearbyint(magnitude / ulp) * ulp;  // ties to even
  // Rounding above the largest finite value overflows.
  if (rounded > f.max_finite) {
    double half_ulp_above = f.max_finite + ulp / 2;
    if (!f.has_inf && !f.has_nan) return std::copysign(f.max_finite, value);
    if (magnitude < half_ulp_above || (!f.has_inf && magnitude < half_ulp_above))
      rounded = f.max_finite;
    else
      return f.has_inf ? std::copysign(std::numeric_limits<double>::infinity(), value)
                       : std::numeric_limits<double>::quiet_NaN();
  }
  return std::copysign(rounded, value);
}

int64_t WrapToIntegralType(int64_t value, PrimitiveType type) {
  if (type == PrimitiveType::PRED) return value != 0 ? 1 : 0;
  int bits = PrimitiveTypeBitWidth(type);
  if (bits >= 64) return value;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t raw = static_cast<uint64_t>(value) & mask;
  if (IsSignedIntegralType(type) && (raw >> (bits - 1)) & 1) raw |= ~mask;
  return static_cast<int64_t>(raw);
}

std::string FormatFloat(double value, PrimitiveType type) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  FloatFormat f = FormatOf(type);
  for (int digits : {f.digits10, f.max_digits10}) {
    std::string text = absl::StrFormat("%.*g", digits, value);
    if (RoundToFloatType(std::strtod(text.c_str(), nullptr), type) == value ||
        digits == f.max_digits10)
      return text;
  }
  return absl::StrFormat("%.17g", value);
}

Literal::Literal(const Shape& shape) : Literal(shape, true) {}

Literal::Literal(const Shape& shape, bool allocate) : shape_(shape), stored_(allocate) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) tuple_.push_back(Literal(element, allocate));
    return;
  }
  if (!shape.IsArray()) return;
  size_ = static_cast<size_t>(shape.ElementCount());
  if (!allocate) return;
  PrimitiveType t = shape.element_type();
  if (IsComplexStorage(t)) {
    reals_.assign(size_, 0.0);
    imags_.assign(size_, 0.0);
  } else if (IsFloatStorage(t)) {
    reals_.assign(size_, 0.0);
  } else {
    ints_.assign(size_, 0);
  }
}

absl::StatusOr<Literal> Literal::Tuple(const Shape& shape, std::vector<Literal> elements) {
  if (!shape.IsTuple() || shape.tuple_shapes_size() != static_cast<int64_t>(elements.size()))
    return absl::InvalidArgumentError(absl::StrCat(
        "a tuple of ", elements.size(), " element(s) cannot have shape ", shape.ToString(false)));
  Literal tuple(Shape::MakeTuple({}), /*allocate=*/false);
  tuple.tuple_ = std::move(elements);
  tuple.stored_ = true;
  for (Literal& element : tuple.tuple_) tuple.stored_ = tuple.stored_ && element.stored_;
  HOPT_RETURN_IF_ERROR(tuple.SetLayoutFrom(shape));
  return tuple;
}

absl::Status Literal::SetLayoutFrom(const Shape& shape) {
  if (shape_.IsTuple()) {
    // The element shapes are checked (and taken) one by one.
    if (!shape.IsTuple() || shape.tuple_shapes_size() != static_cast<int64_t>(tuple_.size()))
      return absl::InvalidArgumentError(absl::StrCat("a value with ", tuple_.size(),
                                                     " tuple element(s) cannot take shape ",
                                                     shape.ToString(false)));
    for (size_t k = 0; k < tuple_.size(); ++k)
      HOPT_RETURN_IF_ERROR(tuple_[k].SetLayoutFrom(shape.tuple_shapes(static_cast<int64_t>(k))));
  } else if (!shape_.Compatible(shape)) {
    return absl::InvalidArgumentError(absl::StrCat("a value of shape ", shape_.ToString(false),
                                                   " cannot take shape ", shape.ToString(false)));
  }
  shape_ = shape;
  return absl::OkStatus();
}

int64_t Literal::AllocatedBytes() const {
  int64_t bytes = static_cast<int64_t>((reals_.capacity() + imags_.capacity()) * sizeof(double) +
                                       ints_.capacity() * sizeof(int64_t) +
                                       tuple_.capacity() * sizeof(Literal));
  for (const Literal& element : tuple_) bytes += element.AllocatedBytes();
  return bytes;
}

int64_t Literal::AllocatedBytesFor(const Shape& shape) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (shape.IsTuple()) {
    int64_t total = 0;
    if (__builtin_mul_overflow(shape.tuple_shapes_size(), static_cast<int64_t>(sizeof(Literal)),
                               &total))
      return kMax;
    for (const Shape& element : shape.tuple_shapes())
      if (__builtin_add_overflow(total, AllocatedBytesFor(element), &total)) return kMax;
    return total;
  }
  if (!shape.IsArray()) return 0;
  int64_t width = IsComplexStorage(shape.element_type()) ? 16 : 8;
  int64_t bytes;
  if (__builtin_mul_overflow(shape.ElementCount(), width, &bytes)) return kMax;
  return bytes;
}

double Literal::GetAsDouble(int64_t i) const {
  if (!reals_.empty()) return reals_[i];
  if (IsUnsignedIntegralType(shape_.element_type()))
    return static_cast<double>(static_cast<uint64_t>(ints_[i]));
  return static_cast<double>(ints_[i]);
}

int64_t Literal::GetAsInt64(int64_t i) const {
  if (!reals_.empty()) return static_cast<int64_t>(reals_[i]);
  return ints_[i];
}

std::complex<double> Literal::GetAsComplex(int64_t i) const {
  if (!imags_.empty()) return {reals_[i], imags_[i]};
  return {GetAsDouble(i), 0.0};
}

void Literal::SetFromDouble(int64_t i, double value) {
  if (!stored_) return;
  PrimitiveType t = shape_.element_type();
  if (IsComplexStorage(t)) {
    SetFromComplex(i, {value, 0.0});
  } else if (IsFloatStorage(t)) {
    reals_[i] = RoundToFloatType(value, t);
  } else if (t == PrimitiveType::PRED) {
    ints_[i] = value != 0 ? 1 : 0;
  } else if (IsUnsignedIntegralType(t) && value >= 9.2233720368547758e18) {
    ints_[i] = WrapToIntegralType(static_cast<int64_t>(static_cast<uint64_t>(value)), t);
  } else {
    ints_[i] = WrapToIntegralType(static_cast<int64_t>(value), t);
  }
}

void Literal::SetFromInt64(int64_t i, int64_t value) {
  if (!stored_) return;
  PrimitiveType t = shape_.element_type();
  if (IsFloatStorage(t) || IsComplexStorage(t)) {
    SetFromDouble(i, static_cast<double>(value));
  } else {
    ints_[i] = WrapToIntegralType(value, t);
  }
}

void Literal::CopyElementFrom(const Literal& source, int64_t from, int64_t to) {
  if (!stored_) return;
  if (!reals_.empty()) reals_[to] = source.reals_[from];
  if (!imags_.empty()) imags_[to] = source.imags_[from];
  if (!ints_.empty()) ints_[to] = source.ints_[from];
}

void Literal::CopyElementsFrom(const Literal& source, int64_t from, int64_t to, int64_t count) {
  if (!stored_ || count <= 0) return;
  if (!reals_.empty()) std::copy_n(source.reals_.begin() + from, count, reals_.begin() + to);
  if (!imags_.empty()) std::copy_n(source.imags_.begin() + from, count, imags_.begin() + to);
  if (!ints_.empty()) std::copy_n(source.ints_.begin() + from, count, ints_.begin() + to);
}

void Literal::SetFromComplex(int64_t i, std::complex<double> value) {
  if (!stored_) return;
  PrimitiveType t = shape_.element_type();
  if (!IsComplexStorage(t)) {
    SetFromDouble(i, value.real());
    return;
  }
  PrimitiveType part = t == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
  reals_[i] = RoundToFloatType(value.real(), part);
  imags_[i] = RoundToFloatType(value.imag(), part);
}

namespace {

// Reads one scalar token: a number, inf/nan with sign, true/false.
bool ReadScalarToken(TextCursor& cursor, absl::string_view* token) {
  cursor.SkipSpace();
  size_t start = cursor.pos();
  while (!cursor.AtEnd()) {
    char c = cursor.Peek();
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
        c == '-' || c == '+' || c == '_')
      cursor.Advance();
    else
      break;
  }
  // NaN payloads: `-nan(0x7f)`.
  if (cursor.Peek() == '(' && cursor.pos() >= start + 3 &&
      cursor.text().substr(cursor.pos() - 3, 3) == "nan") {
    size_t close = cursor.text().find(')', cursor.pos());
    if (close != absl::string_view::npos) cursor.set_pos(close + 1);
  }
  *token = cursor.text().substr(start, cursor.pos() - start);
  return !token->empty();
}

bool TokenToDouble(absl::string_view token, double* value) {
  std::string s(token);
  if (s == "true") {
    *value = 1;
    return true;
  }
  if (s == "false") {
    *value = 0;
    return true;
  }
  bool negative = !s.empty() && s[0] == '-';
  std::string body = negative || (!s.empty() && s[0] == '+') ? s.substr(1) : s;
  if (body == "inf") {
    *value = negative ? -INFINITY : INFINITY;
    return true;
  }
  if (body.rfind("nan", 0) == 0 && (body.size() == 3 || body[3] == '(')) {
    *value = negative ? -NAN : NAN;
    return true;
  }
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0' && !s.empty();
}

}  // namespace

class LiteralParser {
 public:
  explicit LiteralParser(absl::string_view text) : cursor_(text), text_(text) {}

  absl::Status ParseValue(Literal* literal) {
    const Shape& shape = literal->shape();
    cursor_.SkipSpace();
    // Tuple elements may carry their shape: `(f32[2] {1, 2}, s32[] 3)`.
    if (shape.IsTuple()) {
      if (!cursor_.Consume('(')) return Malformed(text_, "expected '(' for a tuple");
      auto& elements = literal->mutable_tuple_elements();
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0 && !cursor_.Consume(',')) return Malformed(text_, "expected ',' in a tuple");
        SkipElementShape();
        HOPT_RETURN_IF_ERROR(ParseValue(&elements[i]));
      }
      if (!cursor_.Consume(')')) return Malformed(text_, "expected ')' after a tuple");
      return absl::OkStatus();
    }
    if (!shape.IsArray()) {
      return Malformed(text_, "tokens and opaque values have no literal");
    }
    if (shape.rank() == 0) return ParseElement(literal, 0);
    index_ = 0;
    if (cursor_.Peek() != '{') {
      // `f32[2,3] constant(0)`: one value for every element.
      HOPT_RETURN_IF_ERROR(ParseElement(literal, 0));
      for (int64_t i = 1; i < literal->element_count(); ++i) {
        if (!literal->stored_) break;
        if (!literal->reals_.empty()) literal->reals_[i] = literal->reals_[0];
        if (!literal->imags_.empty()) literal->imags_[i] = literal->imags_[0];
        if (!literal->ints_.empty()) literal->ints_[i] = literal->ints_[0];
      }
      return absl::OkStatus();
    }
    return ParseArray(literal, 0);
  }

  bool AtEnd() {
    cursor_.SkipSpace();
    return cursor_.AtEnd();
  }
  bool elided() const { return elided_; }

 private:
  void SkipElementShape() {
    cursor_.SkipSpace();
    size_t start = cursor_.pos();
    absl::string_view word = cursor_.ReadWord();
    if (!word.empty() && StringToPrimitiveType(word) && cursor_.Peek() == '[') {
      absl::string_view group;
      cursor_.ReadGroup(&group);
      if (cursor_.Peek() == '{') cursor_.ReadGroup(&group);
      return;
    }
    cursor_.set_pos(start);
  }

  absl::Status ParseElement(Literal* literal, int64_t index) {
    PrimitiveType t = literal->shape().element_type();
    cursor_.SkipSpace();
    if (IsComplexType(t)) {
      if (!cursor_.Consume('(')) return Malformed(text_, "expected '(' for a complex value");
      absl::string_view re, im;
      double r, i;
      if (!ReadScalarToken(cursor_, &re) || !TokenToDouble(re, &r) || !cursor_.Consume(',') ||
          !ReadScalarToken(cursor_, &im) || !TokenToDouble(im, &i) || !cursor_.Consume(')'))
        return Malformed(text_, "bad complex value");
      literal->SetFromComplex(index, {r, i});
      return absl::OkStatus();
    }
    absl::string_view token;
    if (!ReadScalarToken(cursor_, &token)) return Malformed(text_, "expected a value");
    if (IsIntegralType(t) && !IsFloatingPointType(t)) {
      std::string s(token);
      char* end = nullptr;
      errno = 0;
      bool negative = !s.empty() && s[0] == '-';
      int64_t v;
      if (IsUnsignedIntegralType(t) && !negative) {
        v = static_cast<int64_t>(std::strtoull(s.c_str(), &end, 0));
      } else {
        v = std::strtoll(s.c_str(), &end, 0);
      }
      if (end == nullptr || *end != '\0' || errno != 0) {
        double d;  // `1e3` or `true` for integers
        if (!TokenToDouble(token, &d) || d != std::floor(d))
          return Malformed(text_, absl::StrCat("'", token, "' is not an integer"));
        // 2^63 and 2^64 are exact doubles: the casts below are defined
        // only inside these bounds.
        bool fits = IsUnsignedIntegralType(t)
                        ? d >= 0 && d < 18446744073709551616.0
                        : d >= -9223372036854775808.0 && d < 9223372036854775808.0;
        if (!fits)
          return Malformed(text_,
                           absl::StrCat("'", token, "' is out of the range of 64-bit integers"));
        v = IsUnsignedIntegralType(t) ? static_cast<int64_t>(static_cast<uint64_t>(d))
                                      : static_cast<int64_t>(d);
      }
      HOPT_RETURN_IF_ERROR(CheckIntegerFits(token, v, t));
      literal->SetFromInt64(index, v);
      return absl::OkStatus();
    }
    double d;
    if (!TokenToDouble(token, &d))
      return Malformed(text_, absl::StrCat("'", token, "' is not a number"));
    // XLA's text reader refuses a number that the type can only hold as inf
    // or nan (f16 70000, f64 1e400), though it takes inf and nan written
    // as such.
    absl::string_view magnitude = token;
    if (!absl::ConsumePrefix(&magnitude, "-")) absl::ConsumePrefix(&magnitude, "+");
    bool written_as_number = !magnitude.empty() && !absl::ascii_isalpha(magnitude.front());
    if (t != PrimitiveType::PRED && written_as_number && !std::isfinite(RoundToFloatType(d, t)))
      return OutOfRange(
          token, t, absl::StrCat("largest finite value ", FormatFloat(FormatOf(t).max_finite, t)));
    literal->SetFromDouble(index, d);
    return absl::OkStatus();
  }

  absl::Status ParseArray(Literal* literal, int64_t dim) {
    const Shape& shape = literal->shape();
    if (!cursor_.Consume('{')) return Malformed(text_, "expected '{'");
    if (cursor_.ConsumeToken("...")) {
      elided_ = true;
      if (!cursor_.Consume('}')) return Malformed(text_, "expected '}' after '...'");
      return absl::OkStatus();
    }
    int64_t size = shape.dimensions(dim);
    // XLA's text reader skips commas inside an array literal rather than
    // requiring them: `{ {1} {2} }` reads as `{ {1}, {2} }`.
    auto skip_commas = [&] {
      while (cursor_.Consume(',')) {
      }
    };
    for (int64_t i = 0; i < size; ++i) {
      skip_commas();
      HOPT_RETURN_IF_ERROR(dim + 1 == shape.rank() ? ParseElement(literal, index_++)
                                                   : ParseArray(literal, dim + 1));
    }
    skip_commas();
    if (!cursor_.Consume('}'))
      return Malformed(text_, absl::StrCat("dimension ", dim, " should have ", size, " elements"));
    return absl::OkStatus();
  }

  static absl::Status OutOfRange(absl::string_view token, PrimitiveType t,
                                 absl::string_view range) {
    return absl::InvalidArgumentError(absl::StrCat("value ", token, " is out of range for ",
                                                   PrimitiveTypeString(t), " (", range, ")"));
  }

  // XLA's text reader refuses integers its type cannot hold rather than
  // wrapping them (s8 300 would be 44). It reads every value as a 64-bit
  // signed integer first, so a negative value given to u64 stands for its
  // two's complement, while u8..u32 refuse it.
  static absl::Status CheckIntegerFits(absl::string_view token, int64_t v, PrimitiveType t) {
    if (t == PrimitiveType::PRED) return absl::OkStatus();
    int bits = PrimitiveTypeBitWidth(t);
    if (bits >= 64) return absl::OkStatus();
    if (IsUnsignedIntegralType(t)) {
      uint64_t max = (uint64_t{1} << bits) - 1;
      if (static_cast<uint64_t>(v) <= max) return absl::OkStatus();
      return OutOfRange(token, t, absl::StrCat("0 to ", max));
    }
    int64_t max = (int64_t{1} << (bits - 1)) - 1;
    if (v >= -max - 1 && v <= max) return absl::OkStatus();
    return OutOfRange(token, t, absl::StrCat(-max - 1, " to ", max));
  }

  TextCursor cursor_;
  absl::string_view text_;
  int64_t index_ = 0;
  bool elided_ = false;
};

absl::Status Literal::Validate(const Shape& shape, absl::string_view text) {
  Literal literal(shape, /*allocate=*/false);
  LiteralParser parser(text);
  HOPT_RETURN_IF_ERROR(parser.ParseValue(&literal));
  if (!parser.AtEnd()) return Malformed(text, "unexpected text after the value");
  return absl::OkStatus();
}

absl::StatusOr<Literal> Literal::Parse(const Shape& shape, absl::string_view text) {
  if (shape.IsArray() && shape.ElementCount() > (int64_t{1} << 28))
    return absl::InvalidArgumentError("literal is too large to hold");
  Literal literal(shape);
  LiteralParser parser(text);
  HOPT_RETURN_IF_ERROR(parser.ParseValue(&literal));
  if (!parser.AtEnd()) return Malformed(text, "unexpected text after the value");
  literal.elided_ = parser.elided();
  return literal;
}

void Literal::AppendElement(std::string* out, int64_t i) const {
  PrimitiveType t = shape_.element_type();
  if (IsComplexStorage(t)) {
    PrimitiveType part = t == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
    absl::StrAppend(out, "(", FormatFloat(reals_[i], part), ", ", FormatFloat(imags_[i], part),
                    ")");
  } else if (IsFloatStorage(t)) {
    out->append(FormatFloat(reals_[i], t));
  } else if (t == PrimitiveType::PRED) {
    // XLA: `true` for a scalar, 0/1 inside arrays.
    if (shape_.rank() == 0)
      out->append(ints_[i] ? "true" : "false");
    else
      out->push_back(ints_[i] ? '1' : '0');
  } else if (IsUnsignedIntegralType(t)) {
    absl::StrAppend(out, static_cast<uint64_t>(ints_[i]));
  } else {
    absl::StrAppend(out, ints_[i]);
  }
}

void Literal::AppendText(std::string* out) const {
  if (shape_.IsTuple()) {
    out->append("( ");
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (i) out->append(", ");
      tuple_[i].AppendText(out);
    }
    out->append(" )");
    return;
  }
  // Tokens, opaque values and buffers hold no element to print: XLA prints
  // a token as `token`, and hlo-run may return any of them.
  if (!shape_.IsArray()) {
    out->append(shape_.IsToken() ? "token" : shape_.IsOpaque() ? "opaque" : "(no value)");
    return;
  }
  if (shape_.rank() == 0) {
    AppendElement(out, 0);
    return;
  }
  if (elided_) {
    out->append("{...}");
    return;
  }
  // XLA: `{1, 2}` for rank 1; for higher ranks rows of more than one
  // element are padded `{ 1, 2 }`, and from rank 4 on the levels between
  // the outermost and the last carry /*iN=k*/ with the enclosing index.
  int64_t rank = shape_.rank();
  int64_t index = 0;
  std::vector<int64_t> position(rank, 0);
  std::function<void(int64_t)> write = [&](int64_t dim) {
    int64_t size = shape_.dimensions(dim);
    bool innermost = dim + 1 == rank;
    bool padded = rank > 1 && (!innermost || size > 1);
    out->push_back('{');
    if (rank > 3 && dim > 0 && dim <= rank - 2)
      absl::StrAppend(out, " /*i", dim - 1, "=", position[dim - 1], "*/");
    if (size > 0 && padded) out->push_back(' ');
    for (int64_t i = 0; i < size; ++i) {
      if (i) out->append(", ");
      position[dim] = i;
      if (innermost)
        AppendElement(out, index++);
      else
        write(dim + 1);
    }
    out->append(padded ? " }" : "}");
  };
  write(0);
}

std::string Literal::ToText() const {
  std::string out;
  AppendText(&out);
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (!(shape_ == other.shape_) || elided_ != other.elided_) return false;
  auto same_doubles = [](const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
  };
  return same_doubles(reals_, other.reals_) && same_doubles(imags_, other.imags_) &&
         ints_ == other.ints_ && tuple_ == other.tuple_;
}

}  // namespace hopt

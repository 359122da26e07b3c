// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/shape.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

struct TypeInfo {
  absl::string_view spelling;
  int bits;
  char kind;
};

constexpr TypeInfo kTypeInfo[] = {
    {"invalid", 0, 'x'},
    {"tuple", 0, 'x'},
#define PRIMITIVE_TYPE(name, spelling, bits, kind) {spelling, bits, kind},
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
};

const TypeInfo& Info(PrimitiveType type) { return kTypeInfo[static_cast<int>(type)]; }

}  // namespace

absl::string_view PrimitiveTypeString(PrimitiveType type) { return Info(type).spelling; }

std::optional<PrimitiveType> StringToPrimitiveType(absl::string_view spelling) {
  static const auto* const kBySpelling = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, PrimitiveType>();
    for (int i = 2; i < static_cast<int>(sizeof(kTypeInfo) / sizeof(kTypeInfo[0])); ++i)
      map->emplace(kTypeInfo[i].spelling, static_cast<PrimitiveType>(i));
    return map;
  }();
  auto it = kBySpelling->find(spelling);
  if (it == kBySpelling->end()) return std::nullopt;
  return it->second;
}

int PrimitiveTypeBitWidth(PrimitiveType type) { return Info(type).bits; }
bool IsFloatingPointType(PrimitiveType type) { return Info(type).kind == 'f'; }
bool IsSignedIntegralType(PrimitiveType type) { return Info(type).kind == 's'; }
bool IsUnsignedIntegralType(PrimitiveType type) { return Info(type).kind == 'u'; }
bool IsComplexType(PrimitiveType type) { return Info(type).kind == 'c'; }
bool IsArrayType(PrimitiveType type) {
  return type != PrimitiveType::INVALID && Info(type).kind != 'x';
}

Shape::Shape(PrimitiveType type, absl::Span<const int64_t> dims) : type_(type) {
  set_dimensions(dims);
  SetDefaultLayout();
}

Shape Shape::MakeTuple(std::vector<Shape> elements) {
  Shape shape;
  shape.type_ = PrimitiveType::TUPLE;
  shape.tuple_ = std::move(elements);
  return shape;
}

Shape Shape::MakeToken() {
  Shape shape;
  shape.type_ = PrimitiveType::TOKEN;
  return shape;
}

Shape Shape::MakeBuffer(Shape array) {
  Shape shape;
  shape.type_ = PrimitiveType::BUFFER;
  shape.tuple_.push_back(std::move(array));
  return shape;
}

void Shape::set_dimensions(absl::Span<const int64_t> dims) {
  dims_.assign(dims.begin(), dims.end());
  dynamic_.assign(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == kUnboundedSize) dynamic_[i] = true;
}

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_)
      if (!s.is_static()) return false;
    return true;
  }
  for (bool d : dynamic_)
    if (d) return false;
  return true;
}

std::optional<int64_t> Shape::ElementCountIfFits() const {
  // A zero dimension empties the array whatever the others multiply to.
  for (int64_t d : dims_)
    if (d == 0 || d == kUnboundedSize) return 0;
  int64_t count = 1;
  for (int64_t d : dims_)
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  return count;
}

int64_t Shape::ElementCount() const {
  return ElementCountIfFits().value_or(std::numeric_limits<int64_t>::max());
}

std::optional<int64_t> Shape::ByteSizeIfFits() const {
  if (!IsArray()) return 0;
  std::optional<int64_t> count = ElementCountIfFits();
  if (!count) return std::nullopt;
  int64_t width = std::max(1, PrimitiveTypeBitWidth(type_) / 8);
  int64_t bytes;
  if (__builtin_mul_overflow(*count, width, &bytes)) return std::nullopt;
  return bytes;
}

absl::Status CheckArraySizeFits(const Shape& shape) {
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& element : shape.tuple_shapes()) {
      HOPT_RETURN_IF_ERROR(CheckArraySizeFits(element));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  if (!shape.ElementCountIfFits())
    return absl::InvalidArgumentError(absl::StrCat("the element count of ", shape.ToString(false),
                                                   " overflows a 64-bit integer"));
  if (!shape.ByteSizeIfFits())
    return absl::InvalidArgumentError(
        absl::StrCat("the byte size of ", shape.ToString(false), " overflows a 64-bit integer"));
  return absl::OkStatus();
}

void Shape::set_layout(absl::Span<const int64_t> minor_to_major, std::string tail) {
  has_layout_ = true;
  minor_to_major_.assign(minor_to_major.begin(), minor_to_major.end());
  layout_tail_ = std::move(tail);
}

void Shape::SetDefaultLayout() {
  if (!IsArray()) return;
  has_layout_ = true;
  layout_tail_.clear();
  minor_to_major_.resize(dims_.size());
  for (size_t i = 0; i < dims_.size(); ++i)
    minor_to_major_[i] = static_cast<int64_t>(dims_.size() - 1 - i);
}

void Shape::ClearLayout() {
  has_layout_ = false;
  minor_to_major_.clear();
  layout_tail_.clear();
  for (Shape& s : tuple_) s.ClearLayout();
}

void Shape::EnsureLayout() {
  if (IsTuple()) {
    for (Shape& s : tuple_) s.EnsureLayout();
    return;
  }
  if (IsArray() && !has_layout_) SetDefaultLayout();
}

bool Shape::HasDefaultLayout() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_)
      if (!s.HasDefaultLayout()) return false;
    return true;
  }
  if (!IsArray()) return true;
  if (!has_layout_ || !layout_tail_.empty() || minor_to_major_.size() != dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (minor_to_major_[i] != static_cast<int64_t>(dims_.size() - 1 - i)) return false;
  return true;
}

void Shape::AppendTo(std::string* out, bool print_layout) const {
  if (IsBuffer()) {
    out->append("b(");
    if (!tuple_.empty()) tuple_[0].AppendTo(out, print_layout);
    out->push_back(')');
    return;
  }
  if (IsTuple()) {
    out->push_back('(');
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (i) out->append(", ");
      if (i && i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
      tuple_[i].AppendTo(out, print_layout);
    }
    out->push_back(')');
    return;
  }
  out->append(PrimitiveTypeString(type_).data(), PrimitiveTypeString(type_).size());
  out->push_back('[');
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out->push_back(',');
    if (dims_[i] == kUnboundedSize) {
      out->push_back('?');
      continue;
    }
    if (dynamic_[i]) out->append("<=");
    absl::StrAppend(out, dims_[i]);
  }
  out->push_back(']');
  if (!print_layout || !has_layout_ || !IsArray()) return;
  if (dims_.empty() && minor_to_major_.empty() && layout_tail_.empty()) return;
  out->push_back('{');
  for (size_t i = 0; i < minor_to_major_.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, minor_to_major_[i]);
  }
  if (!layout_tail_.empty()) {
    out->push_back(':');
    out->append(layout_tail_);
  }
  out->push_back('}');
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(&out, print_layout);
  return out;
}

bool Shape::SameDimensions(const Shape& other) const {
  return dims_ == other.dims_ && dynamic_ == other.dynamic_;
}

int Shape::TupleNesting() const {
  if (!IsTuple() && !IsBuffer()) return 0;
  int deepest = 0;
  for (const Shape& element : tuple_) deepest = std::max(deepest, element.TupleNesting());
  return deepest + 1;
}

bool Shape::Compatible(const Shape& other) const {
  if (type_ != other.type_) return false;
  if (IsTuple() || IsBuffer()) {
    if (tuple_.size() != other.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i)
      if (!tuple_[i].Compatible(other.tuple_[i])) return false;
    return true;
  }
  return SameDimensions(other);
}

bool Shape::operator==(const Shape& other) const {
  return type_ == other.type_ && has_layout_ == other.has_layout_ && dims_ == other.dims_ &&
         dynamic_ == other.dynamic_ && minor_to_major_ == other.minor_to_major_ &&
         layout_tail_ == other.layout_tail_ && tuple_ == other.tuple_;
}

}  // namespace hopt

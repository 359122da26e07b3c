// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_SHAPE_H_
#define HOPT_IR_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

enum class PrimitiveType : uint8_t {
  INVALID,
  TUPLE,
#define PRIMITIVE_TYPE(name, spelling, bits, kind) name,
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
};

absl::string_view PrimitiveTypeString(PrimitiveType type);
std::optional<PrimitiveType> StringToPrimitiveType(absl::string_view spelling);
int PrimitiveTypeBitWidth(PrimitiveType type);
bool IsFloatingPointType(PrimitiveType type);
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);
inline bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}
bool IsComplexType(PrimitiveType type);
// Array element types (everything but TUPLE, TOKEN, OPAQUE_TYPE, INVALID).
bool IsArrayType(PrimitiveType type);

using DimensionVector = absl::InlinedVector<int64_t, 4>;

// How deep tuples may nest in a shape that hopt reads (text, .pb or
// .pbtxt) or infers: every walk over a shape recurses once per level, and
// each reader refuses deeper ones so that what one writes another reads.
inline constexpr int kMaxTupleNesting = 200;

// An HLO shape: an array (element type, dimensions, optional layout), a
// token, an opaque value or a tuple of shapes. Layout details beyond the
// minor-to-major order (tiles, memory space, element size...) are kept as the
// verbatim text that followed ':' inside the layout braces.
class Shape {
 public:
  // Marks an unbounded dynamic dimension, spelled '?'.
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  Shape() = default;
  // An array shape with XLA's default (descending) layout.
  Shape(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape MakeTuple(std::vector<Shape> elements);
  static Shape MakeToken();
  static Shape MakeBuffer(Shape array);
  static Shape MakeScalar(PrimitiveType type) { return Shape(type, {}); }

  PrimitiveType element_type() const { return type_; }
  void set_element_type(PrimitiveType type) { type_ = type; }
  bool IsTuple() const { return type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return type_ == PrimitiveType::TOKEN; }
  bool IsOpaque() const { return type_ == PrimitiveType::OPAQUE_TYPE; }
  bool IsBuffer() const { return type_ == PrimitiveType::BUFFER; }
  bool IsArray() const { return IsArrayType(type_); }
  bool IsScalar() const { return IsArray() && dims_.empty(); }

  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const DimensionVector& dimensions() const { return dims_; }
  int64_t dimensions(int64_t i) const { return dims_[i]; }
  void set_dimensions(absl::Span<const int64_t> dims);
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  bool is_static() const;
  // Number of elements (bounds for dynamic dimensions, 0 for an unbounded
  // one); 1 for a scalar. Saturates at INT64_MAX: a shape that does not fit
  // is refused where shapes are read (CheckArraySizeFits), but a count made
  // from one must not be undefined behaviour either.
  int64_t ElementCount() const;
  // The element count, or nullopt when it does not fit in int64_t.
  std::optional<int64_t> ElementCountIfFits() const;
  // An array's bytes at one byte or more per element (sub-byte types take a
  // byte each, as the interpreter and an unpacked layout store them), or
  // nullopt when they do not fit in int64_t. 0 for non-arrays.
  std::optional<int64_t> ByteSizeIfFits() const;

  bool has_layout() const { return has_layout_; }
  const DimensionVector& minor_to_major() const { return minor_to_major_; }
  const std::string& layout_tail() const { return layout_tail_; }
  void set_layout(absl::Span<const int64_t> minor_to_major, std::string tail = "");
  void SetDefaultLayout();
  void ClearLayout();
  // Default layouts for this shape and every tuple element, where missing.
  void EnsureLayout();
  bool HasDefaultLayout() const;

  const std::vector<Shape>& tuple_shapes() const { return tuple_; }
  std::vector<Shape>& mutable_tuple_shapes() { return tuple_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_[i]; }
  int64_t tuple_shapes_size() const { return static_cast<int64_t>(tuple_.size()); }
  // Levels of tuples (or buffers) around the deepest element: 0 for an
  // array (kMaxTupleNesting bounds it in what hopt reads).
  int TupleNesting() const;

  // XLA's spelling: `f32[2,3]{1,0}`, `(f32[], token[])`, `s32[<=4,?]`.
  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string* out, bool print_layout) const;

  // Same type, dimensions and dynamic flags, layouts ignored.
  bool Compatible(const Shape& other) const;
  // Compatible() and same element type ignoring... (only dims) for arrays.
  bool SameDimensions(const Shape& other) const;
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType type_ = PrimitiveType::INVALID;
  bool has_layout_ = false;
  DimensionVector dims_;
  absl::InlinedVector<bool, 4> dynamic_;
  DimensionVector minor_to_major_;
  std::string layout_tail_;
  std::vector<Shape> tuple_;
};

// InvalidArgument when `shape` (an array; tuples element by element) has an
// element count or byte size beyond int64_t: every size computed from such a
// shape would wrap (f32[2^32,2^32] would count 0 elements), so the readers
// refuse it outright.
absl::Status CheckArraySizeFits(const Shape& shape);

}  // namespace hopt

#endif  // HOPT_IR_SHAPE_H_

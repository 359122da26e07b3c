// SPDX-License-Identifier: Apache-2.0
// Shapes, layouts and literals <-> their XLA protos (convert.h).

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/ir/float_bits.h"
#include "core/proto/convert.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

// hopt's element types carry XLA's enum names (primitive_types.def), so the
// two enums map by name, once.
struct TypeTables {
  std::vector<xla::PrimitiveType> to_xla;  // by hopt enum value
  std::vector<std::pair<int, PrimitiveType>> from_xla;
  TypeTables() {
    auto add = [&](PrimitiveType hopt, xla::PrimitiveType xla) {
      size_t i = static_cast<size_t>(hopt);
      if (to_xla.size() <= i) to_xla.resize(i + 1, xla::PRIMITIVE_TYPE_INVALID);
      to_xla[i] = xla;
      from_xla.emplace_back(static_cast<int>(xla), hopt);
    };
    add(PrimitiveType::TUPLE, xla::TUPLE);
#define PRIMITIVE_TYPE(name, spelling, bits, kind) add(PrimitiveType::name, xla::name);
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
  }
};

const TypeTables& Types() {
  static const TypeTables* const kTables = new TypeTables();
  return *kTables;
}

xla::PrimitiveType ToXla(PrimitiveType type) {
  size_t i = static_cast<size_t>(type);
  const auto& t = Types().to_xla;
  return i < t.size() ? t[i] : xla::PRIMITIVE_TYPE_INVALID;
}

bool FromXla(int type, PrimitiveType* out) {
  for (const auto& [x, h] : Types().from_xla)
    if (x == type) {
      *out = h;
      return true;
    }
  return false;
}

// ---- layout tails: `T(8,128)(2,1)L(1024)E(4)S(1)M(8)` ---------------------

constexpr int64_t kTileCombine = INT64_MIN;  // a `*` tile dimension

std::string FormatTail(const xla::LayoutProto& layout) {
  std::string out;
  if (layout.tiles_size() > 0) {
    out.push_back('T');
    for (const xla::TileProto& tile : layout.tiles()) {
      out.push_back('(');
      for (int i = 0; i < tile.dimensions_size(); ++i) {
        if (i) out.push_back(',');
        int64_t d = tile.dimensions(i);
        if (d == kTileCombine)
          out.push_back('*');
        else
          absl::StrAppend(&out, d);
      }
      out.push_back(')');
    }
  }
  if (layout.tail_padding_alignment_in_elements() > 1)
    absl::StrAppend(&out, "L(", layout.tail_padding_alignment_in_elements(), ")");
  if (layout.element_size_in_bits() != 0)
    absl::StrAppend(&out, "E(", layout.element_size_in_bits(), ")");
  if (layout.memory_space() != 0) absl::StrAppend(&out, "S(", layout.memory_space(), ")");
  if (layout.dynamic_shape_metadata_prefix_bytes() != 0)
    absl::StrAppend(&out, "M(", layout.dynamic_shape_metadata_prefix_bytes(), ")");
  return out;
}

// Reads `(a,b,...)` at `text[*pos]`.
bool ReadNumbers(absl::string_view text, size_t* pos, std::vector<int64_t>* out) {
  if (*pos >= text.size() || text[*pos] != '(') return false;
  size_t close = text.find(')', *pos);
  if (close == absl::string_view::npos) return false;
  absl::string_view inside = text.substr(*pos + 1, close - *pos - 1);
  *pos = close + 1;
  out->clear();
  if (inside.empty()) return true;
  for (absl::string_view item : absl::StrSplit(inside, ',')) {
    int64_t v;
    if (item == "*")
      v = kTileCombine;
    else if (!absl::SimpleAtoi(item, &v))
      return false;
    out->push_back(v);
  }
  return true;
}

// The typed fields a layout tail names; false when it holds anything else
// (which then travels verbatim in hopt_layout_tail).
bool ParseTail(absl::string_view tail, xla::LayoutProto* layout) {
  size_t pos = 0;
  std::vector<int64_t> numbers;
  while (pos < tail.size()) {
    char c = tail[pos++];
    if (c == 'T') {
      if (pos >= tail.size() || tail[pos] != '(') return false;
      while (pos < tail.size() && tail[pos] == '(') {
        if (!ReadNumbers(tail, &pos, &numbers)) return false;
        auto* tile = layout->add_tiles();
        for (int64_t n : numbers) tile->add_dimensions(n);
      }
      continue;
    }
    if (!ReadNumbers(tail, &pos, &numbers) || numbers.size() != 1) return false;
    switch (c) {
      case 'L': layout->set_tail_padding_alignment_in_elements(numbers[0]); break;
      case 'E': layout->set_element_size_in_bits(numbers[0]); break;
      case 'S': layout->set_memory_space(numbers[0]); break;
      case 'M': layout->set_dynamic_shape_metadata_prefix_bytes(numbers[0]); break;
      default: return false;
    }
  }
  return true;
}

// For each position of the proto's (physical, layout-ordered) element list,
// the logical row-major index; empty when the two orders agree.
std::vector<int64_t> PhysicalOrder(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout() || shape.rank() < 2 || shape.HasDefaultLayout())
    return {};
  const auto& dims = shape.dimensions();
  const auto& m2m = shape.minor_to_major();
  if (m2m.size() != dims.size()) return {};
  int64_t rank = shape.rank();
  std::vector<int64_t> stride(rank, 1);  // logical row-major strides
  for (int64_t d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * dims[d + 1];
  std::vector<int64_t> index(rank, 0), order;
  order.reserve(static_cast<size_t>(shape.ElementCount()));
  for (int64_t n = shape.ElementCount(); n > 0; --n) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d) linear += index[d] * stride[d];
    order.push_back(linear);
    for (int64_t k = 0; k < rank; ++k) {  // the minor-most dimension moves first
      int64_t d = m2m[k];
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return order;
}

// The proto's byte-string field for a type stored one or two bytes per
// element (X-macro over type and field name), or null.
// (Fenced off: clang-format 16 breaks it differently on each run.)
// clang-format off
#define HOPT_BYTES_FIELDS(X)                                                     \
  X(S1, s1s) X(S2, s2s) X(S4, s4s) X(S8, s8s) X(U1, u1s) X(U2, u2s) X(U4, u4s) \
  X(U8, u8s) X(S16, s16s) X(U16, u16s) X(F16, f16s) X(BF16, bf16s)             \
  X(F4E2M1FN, f4e2m1fns) X(F8E3M4, f8e3m4s) X(F8E4M3B11FNUZ, f8e4m3b11fnuzs)   \
  X(F8E4M3FN, f8e4m3fns) X(F8E4M3FNUZ, f8e4m3fnuzs) X(F8E4M3, f8e4m3s)         \
  X(F8E5M2FNUZ, f8e5m2fnuzs) X(F8E5M2, f8e5m2s) X(F8E8M0FNU, f8e8m0fnus)
// clang-format on

std::string* BytesField(PrimitiveType type, xla::LiteralProto* p) {
  switch (type) {
#define X(type, field) \
  case PrimitiveType::type: return p->mutable_##field();
    HOPT_BYTES_FIELDS(X)
#undef X
    default: return nullptr;
  }
}

const std::string* BytesField(PrimitiveType type, const xla::LiteralProto& p) {
  switch (type) {
#define X(type, field) \
  case PrimitiveType::type: return &p.field();
    HOPT_BYTES_FIELDS(X)
#undef X
    default: return nullptr;
  }
}

absl::StatusOr<Shape> ShapeFromProtoAt(const xla::ShapeProto& proto, int depth) {
  // The text parser's limit: a deeper tuple read here could not be
  // written as text and read back.
  if (depth > kMaxTupleNesting)
    return absl::InvalidArgumentError(
        absl::StrCat("tuple shapes nest too deeply (over ", kMaxTupleNesting, " levels)"));
  PrimitiveType type;
  if (!FromXla(proto.element_type(), &type) || type == PrimitiveType::INVALID)
    return absl::InvalidArgumentError(
        absl::StrCat("shape has an invalid element type (", proto.element_type(), ")"));
  if (type == PrimitiveType::TUPLE) {
    std::vector<Shape> elements;
    elements.reserve(proto.tuple_shapes_size());
    for (const xla::ShapeProto& element : proto.tuple_shapes()) {
      HOPT_ASSIGN_OR_RETURN(auto shape, ShapeFromProtoAt(element, depth + 1));
      elements.push_back(std::move(shape));
    }
    return Shape::MakeTuple(std::move(elements));
  }
  if (type == PrimitiveType::TOKEN) return Shape::MakeToken();
  if (type == PrimitiveType::OPAQUE_TYPE) {
    Shape opaque = Shape::MakeToken();
    opaque.set_element_type(PrimitiveType::OPAQUE_TYPE);
    return opaque;
  }
  if (type == PrimitiveType::BUFFER) {
    if (proto.tuple_shapes_size() != 1)
      return absl::InvalidArgumentError("buffer shape must hold exactly one array shape");
    HOPT_ASSIGN_OR_RETURN(auto array, ShapeFromProtoAt(proto.tuple_shapes(0), depth + 1));
    if (!array.IsArray()) return absl::InvalidArgumentError("buffer shape must hold an array");
    return Shape::MakeBuffer(std::move(array));
  }
  if (proto.tuple_shapes_size() != 0)
    return absl::InvalidArgumentError("array shape has tuple elements");
  for (int64_t d : proto.dimensions())
    if (d < 0 && d != Shape::kUnboundedSize)
      return absl::InvalidArgumentError(absl::StrCat("shape has a negative dimension (", d, ")"));
  if (proto.is_dynamic_dimension_size() != 0 &&
      proto.is_dynamic_dimension_size() != proto.dimensions_size())
    return absl::InvalidArgumentError(
        absl::StrCat("shape has ", proto.dimensions_size(), " dimensions but ",
                     proto.is_dynamic_dimension_size(), " dynamic-dimension flags"));
  Shape shape(type, std::vector<int64_t>(proto.dimensions().begin(), proto.dimensions().end()));
  shape.ClearLayout();
  for (int i = 0; i < proto.is_dynamic_dimension_size(); ++i)
    shape.set_dynamic_dimension(i, proto.is_dynamic_dimension(i));
  for (int i = 0; i < proto.dimensions_size(); ++i)
    if (proto.dimensions(i) == Shape::kUnboundedSize) shape.set_dynamic_dimension(i, true);
  HOPT_RETURN_IF_ERROR(CheckArraySizeFits(shape));
  if (proto.has_layout()) {
    const xla::LayoutProto& layout = proto.layout();
    // An array's layout names every dimension (XLA's ValidateLayoutForShape);
    // an empty one could not be printed as text and read back.
    if (layout.minor_to_major_size() != proto.dimensions_size())
      return absl::InvalidArgumentError(absl::StrCat("layout has ", layout.minor_to_major_size(),
                                                     " entries for a shape of rank ",
                                                     proto.dimensions_size()));
    std::vector<bool> seen(proto.dimensions_size(), false);
    for (int64_t d : layout.minor_to_major()) {
      if (d < 0 || d >= proto.dimensions_size() || seen[d])
        return absl::InvalidArgumentError(
            "layout's minor_to_major is not a permutation of the dimensions");
      seen[d] = true;
    }
    std::string tail =
        layout.hopt_layout_tail().empty() ? FormatTail(layout) : layout.hopt_layout_tail();
    shape.set_layout(
        std::vector<int64_t>(layout.minor_to_major().begin(), layout.minor_to_major().end()),
        std::move(tail));
  } else {
    // As the text parser does: an array without a layout gets the default
    // one, so that the module prints the same after a text round trip.
    shape.SetDefaultLayout();
  }
  return shape;
}

}  // namespace

absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto) {
  return ShapeFromProtoAt(proto, 0);
}

void ShapeToProto(const Shape& shape, xla::ShapeProto* proto) {
  proto->set_element_type(ToXla(shape.element_type()));
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& element : shape.tuple_shapes())
      ShapeToProto(element, proto->add_tuple_shapes());
    return;
  }
  if (!shape.IsArray()) return;
  bool dynamic = false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    proto->add_dimensions(shape.dimensions(i));
    dynamic |= shape.is_dynamic_dimension(i);
  }
  // XLA always writes the flags; so do we, for a faithful XLA reader.
  for (int64_t i = 0; i < shape.rank(); ++i)
    proto->add_is_dynamic_dimension(shape.is_dynamic_dimension(i));
  (void)dynamic;
  if (shape.has_layout()) {
    xla::LayoutProto* layout = proto->mutable_layout();
    for (int64_t d : shape.minor_to_major()) layout->add_minor_to_major(d);
    const std::string& tail = shape.layout_tail();
    if (!tail.empty()) {
      if (!ParseTail(tail, layout) || FormatTail(*layout) != tail)
        layout->set_hopt_layout_tail(tail);
    }
  }
}

absl::Status LiteralToProto(const Literal& literal, xla::LiteralProto* proto) {
  const Shape& shape = literal.shape();
  if (literal.is_elided())
    return absl::InvalidArgumentError("an elided literal ({...}) has no values to write");
  ShapeToProto(shape, proto->mutable_shape());
  if (shape.IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      HOPT_RETURN_IF_ERROR(LiteralToProto(element, proto->add_tuple_literals()));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  PrimitiveType type = shape.element_type();
  const int64_t n = literal.element_count();
  std::vector<int64_t> order = PhysicalOrder(shape);
  auto at = [&](int64_t p) { return order.empty() ? p : order[p]; };
  // Floats narrower than 32 bits travel as their bit patterns.
  bool narrow_float =
      IsFloatingPointType(type) && type != PrimitiveType::F32 && type != PrimitiveType::F64;
  if (std::string* bytes = BytesField(type, proto)) {
    int width = PrimitiveTypeBitWidth(type) == 16 ? 2 : 1;
    bytes->resize(static_cast<size_t>(n) * width);
    for (int64_t p = 0; p < n; ++p) {
      uint64_t v = narrow_float ? EncodeFloatBits(literal.GetAsDouble(at(p)), type)
                                : static_cast<uint64_t>(literal.GetAsInt64(at(p)));
      (*bytes)[p * width] = static_cast<char>(v & 0xff);
      if (width == 2) (*bytes)[p * width + 1] = static_cast<char>((v >> 8) & 0xff);
    }
    return absl::OkStatus();
  }
  switch (type) {
    case PrimitiveType::PRED:
      for (int64_t p = 0; p < n; ++p) proto->add_preds(literal.GetAsInt64(at(p)) != 0);
      break;
    case PrimitiveType::S32:
      for (int64_t p = 0; p < n; ++p)
        proto->add_s32s(static_cast<int32_t>(literal.GetAsInt64(at(p))));
      break;
    case PrimitiveType::S64:
      for (int64_t p = 0; p < n; ++p) proto->add_s64s(literal.GetAsInt64(at(p)));
      break;
    case PrimitiveType::U32:
      for (int64_t p = 0; p < n; ++p)
        proto->add_u32s(static_cast<uint32_t>(literal.GetAsInt64(at(p))));
      break;
    case PrimitiveType::U64:
      for (int64_t p = 0; p < n; ++p)
        proto->add_u64s(static_cast<uint64_t>(literal.GetAsInt64(at(p))));
      break;
    case PrimitiveType::F32:
      for (int64_t p = 0; p < n; ++p)
        proto->add_f32s(static_cast<float>(literal.GetAsDouble(at(p))));
      break;
    case PrimitiveType::F64:
      for (int64_t p = 0; p < n; ++p) proto->add_f64s(literal.GetAsDouble(at(p)));
      break;
    case PrimitiveType::C64:
      for (int64_t p = 0; p < n; ++p) {
        auto z = literal.GetAsComplex(at(p));
        proto->add_c64s(static_cast<float>(z.real()));
        proto->add_c64s(static_cast<float>(z.imag()));
      }
      break;
    case PrimitiveType::C128:
      for (int64_t p = 0; p < n; ++p) {
        auto z = literal.GetAsComplex(at(p));
        proto->add_c128s(z.real());
        proto->add_c128s(z.imag());
      }
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("literals of type ", PrimitiveTypeString(type), " cannot be written"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto, const Shape& shape) {
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size())
      return absl::InvalidArgumentError(
          absl::StrCat("tuple literal has ", proto.tuple_literals_size(), " elements, its shape ",
                       shape.tuple_shapes_size()));
    Literal literal(shape);
    for (int i = 0; i < proto.tuple_literals_size(); ++i) {
      HOPT_ASSIGN_OR_RETURN(auto element,
                            LiteralFromProto(proto.tuple_literals(i), shape.tuple_shapes(i)));
      literal.mutable_tuple_elements()[i] = std::move(element);
    }
    return literal;
  }
  // As in HLO text: a constant's value is an array or a tuple of them.
  if (!shape.IsArray())
    return absl::InvalidArgumentError(absl::StrCat("a literal of shape ", shape.ToString(false),
                                                   ": tokens and opaque values have no literal"));
  if (!shape.is_static()) return absl::InvalidArgumentError("a literal's shape must be static");
  PrimitiveType type = shape.element_type();
  const int64_t n = shape.ElementCount();
  std::vector<int64_t> order = PhysicalOrder(shape);
  auto at = [&](int64_t p) { return order.empty() ? p : order[p]; };
  auto count_error = [&](int64_t got) {
    return absl::InvalidArgumentError(
        absl::StrCat("literal of shape ", shape.ToString(), " has ", got, " values, expected ", n));
  };
  Literal literal(shape);
  bool narrow_float =
      IsFloatingPointType(type) && type != PrimitiveType::F32 && type != PrimitiveType::F64;
  if (const std::string* bytes = BytesField(type, proto)) {
    int width = PrimitiveTypeBitWidth(type) == 16 ? 2 : 1;
    if (static_cast<int64_t>(bytes->size()) != n * width)
      return count_error(static_cast<int64_t>(bytes->size()) / width);
    bool is_signed = IsSignedIntegralType(type);
    for (int64_t p = 0; p < n; ++p) {
      uint64_t v = static_cast<uint8_t>((*bytes)[p * width]);
      if (width == 2)
        v |= static_cast<uint64_t>(static_cast<uint8_t>((*bytes)[p * width + 1])) << 8;
      if (narrow_float) {
        literal.SetFromDouble(at(p), DecodeFloatBits(v, type));
        continue;
      }
      int64_t value = static_cast<int64_t>(v);
      if (is_signed) value = width == 2 ? static_cast<int16_t>(v) : static_cast<int8_t>(v);
      literal.SetFromInt64(at(p), value);
    }
    return literal;
  }
  switch (type) {
    case PrimitiveType::PRED:
      if (proto.preds_size() != n) return count_error(proto.preds_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromInt64(at(p), proto.preds(p) ? 1 : 0);
      break;
    case PrimitiveType::S32:
      if (proto.s32s_size() != n) return count_error(proto.s32s_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromInt64(at(p), proto.s32s(p));
      break;
    case PrimitiveType::S64:
      if (proto.s64s_size() != n) return count_error(proto.s64s_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromInt64(at(p), proto.s64s(p));
      break;
    case PrimitiveType::U32:
      if (proto.u32s_size() != n) return count_error(proto.u32s_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromInt64(at(p), proto.u32s(p));
      break;
    case PrimitiveType::U64:
      if (proto.u64s_size() != n) return count_error(proto.u64s_size());
      for (int64_t p = 0; p < n; ++p)
        literal.SetFromInt64(at(p), static_cast<int64_t>(proto.u64s(p)));
      break;
    case PrimitiveType::F32:
      if (proto.f32s_size() != n) return count_error(proto.f32s_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromDouble(at(p), proto.f32s(p));
      break;
    case PrimitiveType::F64:
      if (proto.f64s_size() != n) return count_error(proto.f64s_size());
      for (int64_t p = 0; p < n; ++p) literal.SetFromDouble(at(p), proto.f64s(p));
      break;
    case PrimitiveType::C64:
      if (proto.c64s_size() != 2 * n) return count_error(proto.c64s_size() / 2);
      for (int64_t p = 0; p < n; ++p)
        literal.SetFromComplex(at(p), {proto.c64s(2 * p), proto.c64s(2 * p + 1)});
      break;
    case PrimitiveType::C128:
      if (proto.c128s_size() != 2 * n) return count_error(proto.c128s_size() / 2);
      for (int64_t p = 0; p < n; ++p)
        literal.SetFromComplex(at(p), {proto.c128s(2 * p), proto.c128s(2 * p + 1)});
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("literals of type ", PrimitiveTypeString(type), " cannot be read"));
  }
  return literal;
}

}  // namespace hopt

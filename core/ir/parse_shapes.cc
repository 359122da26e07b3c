// SPDX-License-Identifier: Apache-2.0

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/module_internal.h"
#include "core/ir/parser_impl.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

// Shapes, layouts and the `HloModule` header line.

namespace hopt {

bool HloParser::AtShapeStart() {
  cursor_.SkipSpace();
  char first = cursor_.Peek();
  if (first == '(') return true;
  if (first < 'a' || first > 'z') return false;
  if (cursor_.Peek() == 'b' && cursor_.PeekAt(1) == '(') return true;
  size_t i = 0;
  while (true) {
    char c = cursor_.PeekAt(i);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      ++i;
      continue;
    }
    if (i == 0) return false;
    if (c == '[') return true;
    // `s32 [4]`: XLA's lexer also allows space after an element type.
    if (c != ' ' || !StringToPrimitiveType(cursor_.text().substr(cursor_.pos(), i))) return false;
    while (cursor_.PeekAt(i) == ' ') ++i;
    return cursor_.PeekAt(i) == '[';
  }
}

absl::Status HloParser::ParseArrayShape(Shape* shape) {
  size_t type_pos = cursor_.pos();
  absl::string_view word = cursor_.ReadWord();
  auto type = StringToPrimitiveType(word);
  if (!type) return Error(type_pos, absl::StrCat("unknown element type '", word, "'"));
  if (!cursor_.Consume('[')) return ErrorHere("expected '[' after the element type");
  DimensionVector dims;
  absl::InlinedVector<bool, 4> dynamic;
  cursor_.SkipSpace();
  if (cursor_.Peek() != ']') {
    do {
      cursor_.SkipSpace();
      bool is_dynamic = false;
      int64_t size;
      if (cursor_.Peek() == '?') {
        cursor_.Advance();
        size = Shape::kUnboundedSize;
        is_dynamic = true;
      } else {
        if (cursor_.ConsumeToken("<=")) is_dynamic = true;
        size_t dim_pos = cursor_.pos();
        if (!cursor_.ReadInt(&size)) return ErrorHere("expected a dimension size");
        if (size < 0) return Error(dim_pos, "dimension sizes must not be negative");
      }
      dims.push_back(size);
      dynamic.push_back(is_dynamic);
      if (dims.size() > 64) return ErrorHere("too many dimensions (at most 64)");
    } while (cursor_.Consume(','));
  }
  if (!cursor_.Consume(']')) return ErrorHere("expected ',' or ']' in the dimensions");
  if (*type == PrimitiveType::TOKEN || *type == PrimitiveType::OPAQUE_TYPE) {
    if (!dims.empty()) return Error(type_pos, absl::StrCat(word, " shapes have no dimensions"));
    *shape = *type == PrimitiveType::TOKEN ? Shape::MakeToken() : Shape();
    if (*type == PrimitiveType::OPAQUE_TYPE) shape->set_element_type(*type);
    return absl::OkStatus();
  }
  *shape = Shape(*type, dims);
  for (size_t i = 0; i < dynamic.size(); ++i) shape->set_dynamic_dimension(i, dynamic[i]);
  if (absl::Status fits = CheckArraySizeFits(*shape); !fits.ok())
    return Error(type_pos, fits.message());
  // XLA's lexer drops whitespace and comments between tokens, so a layout
  // may stand apart from its dimensions (`f32[3,6] {1,0}`). A computation
  // body may also follow a shape (`-> f32[2] {`): as in XLA, the brace opens
  // a layout only when a number or ':' comes next. Written directly after
  // the dimensions, `{}` is also read as a layout, as before.
  size_t after_dims = cursor_.pos();
  if (!cursor_.SkipSpace()) cursor_.set_pos(after_dims);
  if (cursor_.Peek() != '{') {
    cursor_.set_pos(after_dims);
    return absl::OkStatus();
  }
  size_t layout_pos = cursor_.pos();
  cursor_.Advance();
  {
    cursor_.SkipSpace();
    char c = cursor_.Peek();
    bool adjacent = layout_pos == after_dims;
    if (!((c >= '0' && c <= '9') || c == '-' || c == ':' || (adjacent && c == '}'))) {
      cursor_.set_pos(after_dims);
      return absl::OkStatus();
    }
  }
  DimensionVector minor_to_major;
  cursor_.SkipSpace();
  while (cursor_.Peek() != ':' && cursor_.Peek() != '}') {
    int64_t d;
    if (!cursor_.ReadInt(&d)) return ErrorHere("expected a dimension number in the layout");
    if (d < 0 || d >= static_cast<int64_t>(dims.size()))
      return Error(layout_pos,
                   absl::StrCat("layout dimension ", d, " is out of range for rank ", dims.size()));
    minor_to_major.push_back(d);
    if (!cursor_.Consume(',')) break;
  }
  std::string tail;
  cursor_.SkipSpace();
  if (cursor_.Peek() == ':') {
    cursor_.Advance();
    size_t tail_start = cursor_.pos();
    int depth = 0;
    while (!cursor_.AtEnd()) {
      char c = cursor_.Peek();
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == '}' && depth <= 0) break;
      if (c == '\n') break;
      cursor_.Advance();
    }
    tail = std::string(cursor_.text().substr(tail_start, cursor_.pos() - tail_start));
  }
  if (!cursor_.Consume('}')) return ErrorHere("expected '}' to close the layout");
  if (minor_to_major.size() != dims.size())
    return Error(layout_pos, absl::StrCat("layout has ", minor_to_major.size(),
                                          " dimensions, the shape has ", dims.size()));
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : minor_to_major) {
    if (seen[d])
      return Error(layout_pos,
                   absl::StrCat("layout names dimension ", d, " twice; it must be a permutation"));
    seen[d] = true;
  }
  shape->set_layout(minor_to_major, std::move(tail));
  return absl::OkStatus();
}

absl::Status HloParser::ParseShape(Shape* shape, int depth) {
  if (depth > kMaxTupleNesting) return ErrorHere("tuple shapes nest too deeply");
  cursor_.SkipSpace();
  if (cursor_.Peek() == '(') {
    cursor_.Advance();
    std::vector<Shape> elements;
    if (!cursor_.Consume(')')) {
      do {
        Shape element;
        HOPT_RETURN_IF_ERROR(ParseShape(&element, depth + 1));
        elements.push_back(std::move(element));
      } while (cursor_.Consume(','));
      if (!cursor_.Consume(')')) return ErrorHere("expected ',' or ')' in the tuple shape");
    }
    *shape = Shape::MakeTuple(std::move(elements));
    return absl::OkStatus();
  }
  if (cursor_.Peek() == 'b' && cursor_.PeekAt(1) == '(') {
    cursor_.Advance(2);
    Shape array;
    HOPT_RETURN_IF_ERROR(ParseArrayShape(&array));
    if (!array.IsArray()) return ErrorHere("a buffer shape holds an array shape");
    if (!cursor_.Consume(')')) return ErrorHere("expected ')' to close the buffer shape");
    *shape = Shape::MakeBuffer(std::move(array));
    return absl::OkStatus();
  }
  return ParseArrayShape(shape);
}

namespace {

// Whether whitespace (or a comment) after a shape's text at `end` may lead
// to its layout: the cached shortcuts below then leave it to ParseShape.
bool MayOpenSpacedLayout(absl::string_view text, size_t end) {
  size_t i = end;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
    ++i;
  if (i == end || i >= text.size()) return false;
  return text[i] == '{' || text[i] == '/';
}

}  // namespace

absl::Status HloParser::ParseInternedShape(const Shape** shape) {
  cursor_.SkipSpace();
  size_t start = cursor_.pos();
  // Fastest path: the same text as the previous shape (a run of
  // instructions of one shape), if it is not the prefix of a longer shape.
  absl::string_view text = cursor_.text();
  if (!last_shape_text_.empty() &&
      text.substr(start, last_shape_text_.size()) == last_shape_text_) {
    size_t end = start + last_shape_text_.size();
    char next = end < text.size() ? text[end] : ' ';
    if ((next == ' ' || next == ',' || next == ')' || next == '\n') &&
        !MayOpenSpacedLayout(text, end)) {
      cursor_.set_pos(end);
      *shape = last_shape_;
      return absl::OkStatus();
    }
  }
  // Fast path for array shapes: find the extent, look the text up.
  if (cursor_.Peek() != '(') {
    size_t close = text.find(']', start);
    if (close != absl::string_view::npos) {
      size_t end = close + 1;
      if (MayOpenSpacedLayout(text, end))
        end = absl::string_view::npos;
      else if (end < text.size() && text[end] == '{') {
        size_t layout_end = text.find('}', end);
        end = layout_end == absl::string_view::npos ? text.size() : layout_end + 1;
      }
      absl::string_view key =
          end == absl::string_view::npos ? absl::string_view() : text.substr(start, end - start);
      auto it = key.empty() ? shape_cache_.end() : shape_cache_.find(key);
      if (it != shape_cache_.end()) {
        cursor_.set_pos(end);
        *shape = it->second;
        last_shape_text_ = key;
        last_shape_ = *shape;
        return absl::OkStatus();
      }
    }
  }
  Shape parsed;
  HOPT_RETURN_IF_ERROR(ParseShape(&parsed));
  *shape = ModuleInternals::InternShape(*module_, parsed);
  absl::string_view key = cursor_.text().substr(start, cursor_.pos() - start);
  shape_cache_.emplace(key, *shape);
  if (!parsed.IsTuple()) {
    last_shape_text_ = key;
    last_shape_ = *shape;
  }
  return absl::OkStatus();
}

absl::Status HloParser::ParseSingleShape(Shape* shape) {
  HOPT_RETURN_IF_ERROR(ParseShape(shape));
  cursor_.SkipSpace();
  if (!cursor_.AtEnd()) return ErrorHere("unexpected text after the shape");
  return absl::OkStatus();
}

absl::Status HloParser::ParseProgramLayout(ProgramLayout* layout) {
  if (!cursor_.Consume('{')) return ErrorHere("expected '{' to start the layout");
  if (!cursor_.Consume('(')) return ErrorHere("expected '(' before the parameter shapes");
  if (!cursor_.Consume(')')) {
    do {
      Shape shape;
      HOPT_RETURN_IF_ERROR(ParseShape(&shape));
      layout->parameters.push_back(std::move(shape));
    } while (cursor_.Consume(','));
    if (!cursor_.Consume(')')) return ErrorHere("expected ',' or ')' in the parameter shapes");
  }
  if (!cursor_.ConsumeToken("->")) return ErrorHere("expected '->' before the result shape");
  HOPT_RETURN_IF_ERROR(ParseShape(&layout->result));
  if (!cursor_.Consume('}')) return ErrorHere("expected '}' to end the layout");
  return absl::OkStatus();
}

absl::Status HloParser::ParseHeader() {
  size_t name_pos = cursor_.pos();
  absl::string_view name = cursor_.ReadName();
  if (name.empty()) return Error(name_pos, "expected the module name after 'HloModule'");
  module_->set_name(name);
  if (cursor_.Peek() == ':') cursor_.Advance();  // older dumps: `HloModule name:`
  while (cursor_.Consume(',')) {
    cursor_.SkipSpace();
    size_t attr_pos = cursor_.pos();
    absl::string_view attr = cursor_.ReadWord();
    if (attr.empty()) return ErrorHere("expected a module attribute name");
    if (!cursor_.Consume('=')) return ErrorHere(absl::StrCat("expected '=' after '", attr, "'"));
    if (attr == "entry_computation_layout") {
      ProgramLayout layout;
      HOPT_RETURN_IF_ERROR(ParseProgramLayout(&layout));
      module_->set_entry_computation_layout(std::move(layout));
      continue;
    }
    size_t value_pos = cursor_.pos();
    absl::string_view value;
    if (!cursor_.ReadValue(&value))
      return ErrorHere(absl::StrCat("expected a value for '", attr, "'"));
    if (attr == "replica_count" || attr == "num_partitions") {
      auto n = ParseInt(value);
      if (!n.ok() || *n < 1)
        return Error(value_pos, absl::StrCat(attr, " must be a positive integer"));
      if (attr == "replica_count")
        module_->set_replica_count(*n);
      else
        module_->set_num_partitions(*n);
    } else if (attr == "is_scheduled") {
      auto b = ParseBool(value);
      if (!b.ok()) return Error(value_pos, "is_scheduled must be true or false");
      module_->set_is_scheduled(*b);
    } else if (attr == "input_output_alias" || attr == "buffer_donor" ||
               attr == "alias_passthrough_params" || attr == "frontend_attributes" ||
               attr == "allow_spmd_sharding_propagation_to_parameters" ||
               attr == "allow_spmd_sharding_propagation_to_output" ||
               attr == "cross_program_prefetch" || attr == "cross_program_prefetches") {
      module_->SetHeaderAttribute(attr, value);
    } else {
      return Error(attr_pos, absl::StrCat("unknown module attribute '", attr, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hopt

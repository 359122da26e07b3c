// SPDX-License-Identifier: Apache-2.0

#include "core/ir/text_cursor.h"

#include <cerrno>
#include <cstdlib>

namespace hopt {

bool TextCursor::SkipSpaceSlow() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && PeekAt(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '/' && PeekAt(1) == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == absl::string_view::npos) return false;
      pos_ = end + 2;
    } else {
      break;
    }
  }
  return true;
}

bool TextCursor::ConsumeToken(absl::string_view token) {
  SkipSpace();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

absl::string_view TextCursor::ReadName() {
  SkipSpace();
  size_t start = pos_;
  bool percent = Peek() == '%';
  if (percent) ++pos_;
  char first = Peek();
  if (!(IsNameStart(first) || (percent && IsNameChar(first)))) {
    pos_ = start;
    return absl::string_view();
  }
  size_t name_start = pos_;
  const char* data = text_.data();
  size_t size = text_.size();
  while (pos_ < size && IsNameChar(data[pos_])) {
    // `->` ends a name (`(p: f32[])->f32[]`).
    if (data[pos_] == '-' && pos_ + 1 < size && data[pos_ + 1] == '>') break;
    ++pos_;
  }
  return text_.substr(name_start, pos_ - name_start);
}

absl::string_view TextCursor::ReadWord() {
  SkipSpace();
  size_t start = pos_;
  char first = Peek();
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_'))
    return absl::string_view();
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
        (c == '-' && PeekAt(1) != '>'))
      ++pos_;
    else
      break;
  }
  return text_.substr(start, pos_ - start);
}

bool TextCursor::ReadInt(int64_t* value) {
  SkipSpace();
  size_t start = pos_;
  if (Peek() == '-' || Peek() == '+') ++pos_;
  size_t digits = pos_;
  while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
  if (pos_ == digits || pos_ - digits > 19) {
    pos_ = start;
    return false;
  }
  std::string buffer(text_.substr(start, pos_ - start));
  errno = 0;
  char* end = nullptr;
  long long parsed = std::strtoll(buffer.c_str(), &end, 10);
  if (errno != 0) {
    pos_ = start;
    return false;
  }
  *value = parsed;
  return true;
}

bool TextCursor::ReadQuoted(absl::string_view* quoted) {
  SkipSpace();
  if (Peek() != '"') return false;
  size_t start = pos_;
  ++pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\\') {
      pos_ += 2;
      continue;
    }
    ++pos_;
    if (c == '"') {
      *quoted = text_.substr(start, pos_ - start);
      return true;
    }
  }
  pos_ = start;
  return false;
}

bool TextCursor::ReadGroup(absl::string_view* group) {
  size_t start = pos_;
  char stack[256];
  int depth = 0;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      absl::string_view ignored;
      if (!ReadQuoted(&ignored)) {
        pos_ = start;
        return false;
      }
      continue;
    }
    if (c == '(' || c == '{' || c == '[') {
      if (depth == 256) {
        pos_ = start;
        return false;
      }
      stack[depth++] = c == '(' ? ')' : c == '{' ? '}' : ']';
    } else if (c == ')' || c == '}' || c == ']') {
      if (depth == 0 || stack[depth - 1] != c) {
        pos_ = start;
        return false;
      }
      --depth;
      if (depth == 0) {
        ++pos_;
        *group = text_.substr(start, pos_ - start);
        return true;
      }
    }
    ++pos_;
  }
  pos_ = start;
  return false;
}

bool TextCursor::ReadValue(absl::string_view* value) {
  SkipSpace();
  size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '(' || c == '{' || c == '[') {
      absl::string_view group;
      if (!ReadGroup(&group)) return false;
      continue;
    }
    if (c == '"') {
      absl::string_view quoted;
      if (!ReadQuoted(&quoted)) return false;
      continue;
    }
    if (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ')' || c == '}' ||
        c == ']')
      break;
    ++pos_;
  }
  *value = text_.substr(start, pos_ - start);
  return pos_ > start;
}

void TextCursor::LineAndColumn(size_t pos, int64_t* line, int64_t* column) const {
  int64_t l = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < pos && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++l;
      line_start = i + 1;
    }
  }
  *line = l;
  *column = static_cast<int64_t>(pos - line_start) + 1;
}

absl::string_view TextCursor::LineAt(size_t pos) const {
  if (pos > text_.size()) pos = text_.size();
  size_t begin = pos;
  while (begin > 0 && text_[begin - 1] != '\n') --begin;
  size_t end = text_.find('\n', pos);
  if (end == absl::string_view::npos) end = text_.size();
  return text_.substr(begin, end - begin);
}

}  // namespace hopt

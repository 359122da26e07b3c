// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_TEXT_CURSOR_H_
#define HOPT_CORE_IR_TEXT_CURSOR_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace hopt {

// A position in HLO text with the small scanning steps the parser and the
// attribute readers share. It never copies: every token is a view of the
// text.
class TextCursor {
 public:
  explicit TextCursor(absl::string_view text, size_t pos = 0) : text_(text), pos_(pos) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  absl::string_view text() const { return text_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  // Current character, or '\0' at the end.
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char PeekAt(size_t offset) const {
    return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
  }
  void Advance(size_t n = 1) { pos_ += n; }

  // Skips white space and // and /* */ comments. Returns false for an
  // unterminated block comment (the cursor is left at its start).
  bool SkipSpace() {
    // Fast path: most calls stand on a token already.
    if (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '/') return true;
    }
    return SkipSpaceSlow();
  }
  // SkipSpace, then consume `c` if it is next.
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  // SkipSpace, then consume `token` (e.g. "->", "<=") if it is next.
  bool ConsumeToken(absl::string_view token);
  // SkipSpace, then a name: optional '%', then [A-Za-z0-9_.-]+ (a bare name
  // must start with a letter or '_'). Empty if there is none.
  absl::string_view ReadName();
  // SkipSpace, then [A-Za-z_][A-Za-z0-9_-]* (keywords, attribute names).
  absl::string_view ReadWord();
  // SkipSpace, then a decimal integer with optional sign.
  bool ReadInt(int64_t* value);
  // SkipSpace, then a "..." string with escapes; returns the whole quoted
  // text. False if there is no string or it is unterminated.
  bool ReadQuoted(absl::string_view* quoted);
  // SkipSpace, then an attribute value: a balanced {...}, (...) or [...]
  // group, a quoted string, or a run of other characters, joined while they
  // abut (`[2,2]<=[4]T(1,0)`). Stops at ',' or white space outside groups.
  // False for an unbalanced group or unterminated string.
  bool ReadValue(absl::string_view* value);
  // Reads a balanced group starting at the current '(' '{' or '['.
  bool ReadGroup(absl::string_view* group);

  // 1-based line and column of a position.
  void LineAndColumn(size_t pos, int64_t* line, int64_t* column) const;
  // The full text of the line holding `pos`.
  absl::string_view LineAt(size_t pos) const;

 private:
  bool SkipSpaceSlow();
  absl::string_view text_;
  size_t pos_;
};

// Character classes for names: bit 1 = may start a bare name, bit 2 = may
// continue a name.
struct NameCharTable {
  unsigned char bits[256] = {};
  constexpr NameCharTable() {
    for (int c = 'a'; c <= 'z'; ++c) bits[c] = 3;
    for (int c = 'A'; c <= 'Z'; ++c) bits[c] = 3;
    for (int c = '0'; c <= '9'; ++c) bits[c] = 2;
    bits[static_cast<unsigned char>('_')] = 3;
    bits[static_cast<unsigned char>('.')] = 2;
    bits[static_cast<unsigned char>('-')] = 2;
  }
};
inline constexpr NameCharTable kNameChars;

inline bool IsNameChar(char c) { return kNameChars.bits[static_cast<unsigned char>(c)] & 2; }
inline bool IsNameStart(char c) { return kNameChars.bits[static_cast<unsigned char>(c)] & 1; }

// Whether `name` reads back as one name in every place the printer puts
// it (after a '%', and bare in a computation's signature): it starts as a
// bare name does, has name characters only, and no "->", which ends a name
// in a signature. (XLA's name uniquer never makes other names.)
inline bool IsWritableName(absl::string_view name) {
  if (name.empty() || !IsNameStart(name[0]) || name.find("->") != absl::string_view::npos)
    return false;
  for (char c : name)
    if (!IsNameChar(c)) return false;
  return true;
}

}  // namespace hopt

#endif  // HOPT_CORE_IR_TEXT_CURSOR_H_

// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace json {

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}
Value Value::Int(int64_t i) {
  Value v;
  v.kind_ = Kind::kInt;
  v.int_ = i;
  return v;
}
Value Value::Double(double d) {
  Value v;
  v.kind_ = Kind::kDouble;
  v.double_ = d;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.string_ = std::move(s);
  return v;
}
Value Value::Array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kArray;
  v.items_ = std::move(items);
  return v;
}
Value Value::Object() {
  Value v;
  v.kind_ = Kind::kObject;
  return v;
}

const Value* Value::Find(absl::string_view key) const {
  for (const auto& [name, value] : members_)
    if (name == key) return &value;
  return nullptr;
}

Value& Value::Set(absl::string_view key, Value value) {
  for (auto& [name, existing] : members_)
    if (name == key) return existing = std::move(value);
  members_.emplace_back(std::string(key), std::move(value));
  return members_.back().second;
}

namespace {

// Guards the recursion on hostile input.
constexpr int kMaxDepth = 256;

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<Value> ParseDocument() {
    HOPT_ASSIGN_OR_RETURN(Value value, ParseValue(0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the value");
    return value;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("JSON: offset ", pos_, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool Consume(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::StatusOr<Value> ParseValue(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a value, found the end");
    char c = text_[pos_];
    if (c == '{') return ParseObject(depth);
    if (c == '[') return ParseArray(depth);
    if (c == '"') {
      HOPT_ASSIGN_OR_RETURN(auto s, ParseString());
      return Value::String(std::move(s));
    }
    if (Consume("true")) return Value::Bool(true);
    if (Consume("false")) return Value::Bool(false);
    if (Consume("null")) return Value();
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber();
    return Error(absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  absl::StatusOr<Value> ParseNumber() {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    size_t int_digits = digits();
    if (int_digits == 0) return Error("malformed number");
    if (int_digits > 1 && text_[pos_ - int_digits] == '0') return Error("leading zero in number");
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (digits() == 0) return Error("malformed number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Error("malformed number");
    }
    std::string number(text_.substr(start, pos_ - start));
    if (integral) {
      errno = 0;
      char* end = nullptr;
      long long value = std::strtoll(number.c_str(), &end, 10);
      if (errno == ERANGE) {
        pos_ = start;
        return Error("integer out of range");
      }
      return Value::Int(value);
    }
    return Value::Double(std::strtod(number.c_str(), nullptr));
  }

  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  absl::StatusOr<uint32_t> ParseHex4() {
    if (pos_ + 4 > text_.size()) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char h = text_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= h - '0';
      else if (h >= 'a' && h <= 'f')
        v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        v |= h - 'A' + 10;
      else
        return Error("bad hex digit in \\u escape");
    }
    return v;
  }

  absl::StatusOr<std::string> ParseString() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return Error("control character in string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) return Error("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          HOPT_ASSIGN_OR_RETURN(uint32_t code, ParseHex4());
          if (code >= 0xD800 && code < 0xDC00) {
            if (!Consume("\\u")) return Error("unpaired surrogate");
            HOPT_ASSIGN_OR_RETURN(auto low, ParseHex4());
            if (low < 0xDC00 || low >= 0xE000) return Error("unpaired surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            return Error("unpaired surrogate");
          }
          AppendUtf8(out, code);
          break;
        }
        default: --pos_; return Error(absl::StrCat("unknown escape '\\", std::string(1, e), "'"));
      }
    }
  }

  absl::StatusOr<Value> ParseArray(int depth) {
    ++pos_;
    Value array = Value::Array();
    SkipSpace();
    if (Consume("]")) return array;
    while (true) {
      HOPT_ASSIGN_OR_RETURN(Value item, ParseValue(depth + 1));
      array.Append(std::move(item));
      SkipSpace();
      if (Consume("]")) return array;
      if (!Consume(",")) return Error("expected ',' or ']'");
    }
  }

  absl::StatusOr<Value> ParseObject(int depth) {
    ++pos_;
    Value object = Value::Object();
    SkipSpace();
    if (Consume("}")) return object;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a member name");
      HOPT_ASSIGN_OR_RETURN(auto key, ParseString());
      if (object.Find(key) != nullptr) return Error(absl::StrCat("duplicate member \"", key, "\""));
      SkipSpace();
      if (!Consume(":")) return Error("expected ':'");
      HOPT_ASSIGN_OR_RETURN(Value value, ParseValue(depth + 1));
      object.Set(key, std::move(value));
      SkipSpace();
      if (Consume("}")) return object;
      if (!Consume(",")) return Error("expected ',' or '}'");
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

void WriteTo(const Value& value, std::string& out, int indent, int depth) {
  auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  switch (value.kind()) {
    case Value::Kind::kNull: out += "null"; return;
    case Value::Kind::kBool: out += value.as_bool() ? "true" : "false"; return;
    case Value::Kind::kInt: absl::StrAppend(&out, value.as_int()); return;
    case Value::Kind::kDouble: {
      double d = value.as_double();
      if (!std::isfinite(d)) {
        out += "null";  // JSON has no inf/nan
        return;
      }
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.17g", d);
      out += buffer;
      return;
    }
    case Value::Kind::kString: out += Quote(value.as_string()); return;
    case Value::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const Value& item : value.items()) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        WriteTo(item, out, indent, depth + 1);
      }
      if (!value.items().empty()) newline(depth);
      out += ']';
      return;
    }
    case Value::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : value.members()) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        out += Quote(key);
        out += indent < 0 ? ":" : ": ";
        WriteTo(member, out, indent, depth + 1);
      }
      if (!value.members().empty()) newline(depth);
      out += '}';
      return;
    }
  }
}

}  // namespace

absl::StatusOr<Value> Parse(absl::string_view text) { return Parser(text).ParseDocument(); }

std::string Write(const Value& value) {
  std::string out;
  WriteTo(value, out, -1, 0);
  return out;
}

std::string WritePretty(const Value& value) {
  std::string out;
  WriteTo(value, out, 2, 0);
  out += '\n';
  return out;
}

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned char>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace json
}  // namespace hopt

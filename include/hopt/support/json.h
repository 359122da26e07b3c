// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_JSON_H_
#define HOPT_SUPPORT_JSON_H_

// A small JSON value with a strict parser and a compact writer, for the
// backend_configs and manifests passes read and write. Object members keep
// their order, so a parsed config writes back byte for byte.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {
namespace json {

class Value {
 public:
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Value() = default;
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Double(double d);
  static Value String(std::string s);
  static Value Array(std::vector<Value> items = {});
  static Value Object();

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool as_bool() const { return bool_; }
  int64_t as_int() const { return int_; }
  double as_double() const { return kind_ == Kind::kInt ? static_cast<double>(int_) : double_; }
  const std::string& as_string() const { return string_; }
  const std::vector<Value>& items() const { return items_; }
  std::vector<Value>& mutable_items() { return items_; }
  const std::vector<std::pair<std::string, Value>>& members() const { return members_; }

  // Object access: Find returns null when the key is absent; Set replaces or
  // appends.
  const Value* Find(absl::string_view key) const;
  Value& Set(absl::string_view key, Value value);
  // Array append.
  void Append(Value value) { items_.push_back(std::move(value)); }

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

// Parses one JSON value (RFC 8259; integers without fraction or exponent are
// kInt). Errors name the byte offset: "JSON: offset 12: expected ','".
absl::StatusOr<Value> Parse(absl::string_view text);

// Compact form: no spaces ({"a":[1,2],"b":true}).
std::string Write(const Value& value);
// Pretty form, two-space indent, for files people read.
std::string WritePretty(const Value& value);

// "text" with JSON escapes.
std::string Quote(absl::string_view text);

}  // namespace json
}  // namespace hopt

#endif  // HOPT_SUPPORT_JSON_H_

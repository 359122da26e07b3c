// SPDX-License-Identifier: Apache-2.0

#include "hopt/pass_manager/pass_options.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pass_manager/option_reads.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

bool ParseBool(absl::string_view text, bool* value) {
  if (text == "true" || text == "1") {
    *value = true;
    return true;
  }
  if (text == "false" || text == "0") {
    *value = false;
    return true;
  }
  return false;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// Reads the options between braces; `pos` is just after '{' and ends just
// after '}'.
absl::Status ParseBraces(absl::string_view text, size_t& pos, PipelineElement& element) {
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline element '", element.name, "': ", what));
  };
  while (true) {
    while (pos < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos >= text.size()) return error("unterminated '{' (missing '}')");
    if (text[pos] == '}') {
      ++pos;
      return absl::OkStatus();
    }
    size_t key_start = pos;
    while (pos < text.size() && IsNameChar(text[pos])) ++pos;
    absl::string_view key = text.substr(key_start, pos - key_start);
    if (key.empty())
      return error(absl::StrCat("expected an option name, found '", text.substr(pos, 1), "'"));
    if (pos >= text.size()) return error("unterminated '{' (missing '}')");
    if (text[pos] != '=')
      return error(absl::StrCat("option '", key, "' needs a value: ", key, "=VALUE"));
    ++pos;
    std::string value;
    if (pos < text.size() && (text[pos] == '\'' || text[pos] == '"')) {
      char quote = text[pos++];
      size_t end = text.find(quote, pos);
      if (end == absl::string_view::npos)
        return error(
            absl::StrCat("option '", key, "': unterminated ", std::string(1, quote), " quote"));
      value = std::string(text.substr(pos, end - pos));
      pos = end + 1;
      if (pos < text.size() && !absl::ascii_isspace(static_cast<unsigned char>(text[pos])) &&
          text[pos] != '}')
        return error(absl::StrCat("option '", key, "': unexpected '", text.substr(pos, 1),
                                  "' after the quoted value"));
    } else {
      size_t start = pos;
      while (pos < text.size() && !absl::ascii_isspace(static_cast<unsigned char>(text[pos])) &&
             text[pos] != '}') {
        if (text[pos] == '{' || text[pos] == '\'' || text[pos] == '"')
          return error(absl::StrCat("option '", key, "': unexpected '", text.substr(pos, 1),
                                    "' in the value (quote the value: ", key, "='...')"));
        ++pos;
      }
      value = std::string(text.substr(start, pos - start));
    }
    element.options.emplace_back(std::string(key), std::move(value));
  }
}

}  // namespace

absl::string_view PassOptionTypeName(PassOptionType type) {
  switch (type) {
    case PassOptionType::kBool: return "bool";
    case PassOptionType::kInt: return "int";
    case PassOptionType::kString: return "string";
    case PassOptionType::kOutputPath: return "output-path";
  }
  return "?";
}

PassOptionSpec BoolOption(std::string name, bool default_value, std::string description) {
  return {std::move(name), PassOptionType::kBool, default_value ? "true" : "false",
          std::move(description)};
}
PassOptionSpec IntOption(std::string name, int64_t default_value, std::string description) {
  return {std::move(name), PassOptionType::kInt, absl::StrCat(default_value),
          std::move(description)};
}
PassOptionSpec StringOption(std::string name, std::string default_value, std::string description) {
  return {std::move(name), PassOptionType::kString, std::move(default_value),
          std::move(description)};
}
PassOptionSpec OutputPathOption(std::string name, std::string description) {
  return {std::move(name), PassOptionType::kOutputPath, "", std::move(description)};
}

absl::Status CheckPassOptionValue(absl::string_view pass, const PassOptionSpec& spec,
                                  absl::string_view value) {
  bool ok = true;
  absl::string_view wanted;
  switch (spec.type) {
    case PassOptionType::kBool: {
      bool b;
      ok = ParseBool(value, &b);
      wanted = "a bool (true, false, 1 or 0)";
      break;
    }
    case PassOptionType::kInt: {
      int64_t i;
      ok = absl::SimpleAtoi(value, &i) && !value.empty() &&
           !absl::ascii_isspace(static_cast<unsigned char>(value.front())) &&
           !absl::ascii_isspace(static_cast<unsigned char>(value.back()));
      wanted = "an integer (int64)";
      break;
    }
    case PassOptionType::kString:
    case PassOptionType::kOutputPath: break;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("pass '", pass, "': option '", spec.name,
                                                 "' takes ", wanted, ", got '", value, "'"));
}

bool PassOptions::GetBool(absl::string_view name) const {
  auto it = values_.find(name);
  bool value = false;
  if (it != values_.end() && it->second.type == PassOptionType::kBool)
    ParseBool(it->second.text, &value);
  else
    NoteUndeclaredOptionRead(name, PassOptionType::kBool);
  return value;
}

int64_t PassOptions::GetInt(absl::string_view name) const {
  auto it = values_.find(name);
  int64_t value = 0;
  if (it == values_.end() || it->second.type != PassOptionType::kInt)
    NoteUndeclaredOptionRead(name, PassOptionType::kInt);
  else if (!absl::SimpleAtoi(it->second.text, &value))
    value = 0;
  return value;
}

std::string PassOptions::GetString(absl::string_view name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second.text;
  NoteUndeclaredOptionRead(name, PassOptionType::kString);
  return std::string();
}

bool PassOptions::Given(absl::string_view name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.given;
}

std::string PassOptions::GivenAsText() const {
  std::string text;
  for (const auto& [name, value] : values_) {
    if (!value.given) continue;
    const char quote = value.text.find('\'') == std::string::npos ? '\'' : '"';
    absl::StrAppend(&text, text.empty() ? "{" : " ", name, "=", std::string(1, quote), value.text,
                    std::string(1, quote));
  }
  if (!text.empty()) text += "}";
  return text;
}

std::vector<std::pair<std::string, std::string>> PassOptions::OutputPaths() const {
  std::vector<std::pair<std::string, std::string>> paths;
  for (const auto& [name, value] : values_)
    if (value.type == PassOptionType::kOutputPath && !value.text.empty())
      paths.emplace_back(name, value.text);
  return paths;
}

void PassOptions::Set(const PassOptionSpec& spec, std::string value, bool given) {
  values_[spec.name] = Value{spec.type, std::move(value), given};
}

absl::StatusOr<std::vector<PipelineElement>> SplitPipelineText(absl::string_view text) {
  std::vector<PipelineElement> elements;
  if (absl::StripAsciiWhitespace(text).empty()) return elements;
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    PipelineElement element;
    size_t start = pos;
    while (pos < text.size() && text[pos] != ',' && text[pos] != '{' && text[pos] != '}' &&
           !absl::ascii_isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
    element.name = std::string(text.substr(start, pos - start));
    if (element.name.empty()) {
      if (pos < text.size() && (text[pos] == '{' || text[pos] == '}'))
        return absl::InvalidArgumentError(absl::StrCat("unexpected '", text.substr(pos, 1),
                                                       "' without a pass name in the pipeline '",
                                                       text, "'"));
      return absl::InvalidArgumentError(
          absl::StrCat("empty pass name in the pipeline '", text, "'"));
    }
    while (pos < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos < text.size() && text[pos] == '{') {
      ++pos;
      element.has_braces = true;
      HOPT_RETURN_IF_ERROR(ParseBraces(text, pos, element));
      while (pos < text.size() && absl::ascii_isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    }
    if (pos < text.size() && text[pos] != ',')
      return absl::InvalidArgumentError(absl::StrCat("pipeline element '", element.name,
                                                     "': unexpected '", text.substr(pos, 1),
                                                     "' (elements are separated by ',')"));
    elements.push_back(std::move(element));
    if (pos >= text.size()) break;
    ++pos;  // ','
  }
  return elements;
}

absl::StatusOr<PassOptions> ResolvePassOptions(
    absl::string_view pass, const std::vector<PassOptionSpec>& specs,
    const std::vector<std::pair<std::string, std::string>>& given,
    const std::map<std::string, std::string, std::less<>>& defaults) {
  PassOptions options;
  std::vector<std::string> seen;
  for (const auto& [key, value] : given) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const PassOptionSpec& s) { return s.name == key; });
    if (spec == specs.end())
      return absl::InvalidArgumentError(absl::StrCat("pass '", pass, "': unknown option '", key,
                                                     "'", UndeclaredOptionHint(key, specs)));
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return absl::InvalidArgumentError(
          absl::StrCat("pass '", pass, "': option '", key, "' is given twice"));
    seen.push_back(key);
    HOPT_RETURN_IF_ERROR(CheckPassOptionValue(pass, *spec, value));
    options.Set(*spec, value, true);
  }
  for (const PassOptionSpec& spec : specs) {
    if (std::find(seen.begin(), seen.end(), spec.name) != seen.end()) continue;
    auto flag = defaults.find(spec.name);
    if (flag != defaults.end())
      options.Set(spec, flag->second, true);
    else
      options.Set(spec, spec.default_value, false);
  }
  return options;
}

namespace {
// The probe of the current thread's registration, if any.
thread_local OptionReadProbe* active_probe = nullptr;
}  // namespace

OptionReadProbe::OptionReadProbe() : outer_(active_probe) { active_probe = this; }
OptionReadProbe::~OptionReadProbe() { active_probe = outer_; }

void NoteUndeclaredOptionRead(absl::string_view name, PassOptionType read_as) {
  if (active_probe != nullptr) active_probe->Add({std::string(name), read_as});
}

std::string UndeclaredOptionHint(absl::string_view name, const std::vector<PassOptionSpec>& specs) {
  if (specs.empty()) return " (the pass has no options)";
  std::vector<std::string> names;
  const PassOptionSpec* closest = nullptr;
  size_t best = std::max<size_t>(2, name.size() / 3) + 1;
  for (const PassOptionSpec& spec : specs) {
    names.push_back(spec.name);
    size_t d = EditDistance(name, spec.name);
    if (d < best) {
      best = d;
      closest = &spec;
    }
  }
  return absl::StrCat(closest != nullptr && closest->name != name
                          ? absl::StrCat("; did you mean '", closest->name, "'?")
                          : "",
                      " (options: ", absl::StrJoin(names, ", "), ")");
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/testing/file_check.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hopt {
namespace testkit {
namespace {

enum class Kind { kCheck, kNext, kSame, kNot, kEmpty };

struct Directive {
  Kind kind;
  std::string spelled;  // "CHECK-NEXT", for messages
  std::string pattern;  // as written, trimmed
  int64_t line;         // in `patterns`, from 1
  std::regex regex;
};

// "ab {{[0-9]+}}  c" -> "ab[ \t]+[0-9]+[ \t]+c", literal text escaped.
absl::StatusOr<std::regex> CompilePattern(absl::string_view pattern, absl::string_view where) {
  std::string regex;
  size_t i = 0;
  while (i < pattern.size()) {
    if (absl::StartsWith(pattern.substr(i), "{{")) {
      size_t close = pattern.find("}}", i + 2);
      if (close == absl::string_view::npos)
        return absl::InvalidArgumentError(absl::StrCat(where, ": '{{' without '}}'"));
      absl::StrAppend(&regex, "(?:", pattern.substr(i + 2, close - i - 2), ")");
      i = close + 2;
    } else if (pattern[i] == ' ' || pattern[i] == '\t') {
      while (i < pattern.size() && (pattern[i] == ' ' || pattern[i] == '\t')) ++i;
      regex += "[ \\t]+";
    } else {
      if (std::strchr("\\^$.|?*+()[]{}", pattern[i]) != nullptr) regex += '\\';
      regex += pattern[i++];
    }
  }
  try {
    return std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": bad regular expression: ", e.what()));
  }
}

absl::StatusOr<std::vector<Directive>> ParseDirectives(absl::string_view patterns,
                                                       const std::string& prefix) {
  static const std::pair<const char*, Kind> kSuffixes[] = {{"-NEXT:", Kind::kNext},
                                                           {"-SAME:", Kind::kSame},
                                                           {"-NOT:", Kind::kNot},
                                                           {"-EMPTY:", Kind::kEmpty},
                                                           {":", Kind::kCheck}};
  std::vector<Directive> directives;
  int64_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(patterns, '\n')) {
    ++line_number;
    size_t at = line.find(prefix);
    // The prefix as a word of its own: CHECK-NEXT:, not MYCHECK:.
    while (at != absl::string_view::npos && at > 0 &&
           (absl::ascii_isalnum(line[at - 1]) || line[at - 1] == '-' || line[at - 1] == '_'))
      at = line.find(prefix, at + 1);
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = line.substr(at + prefix.size());
    for (const auto& [suffix, kind] : kSuffixes) {
      if (!absl::StartsWith(rest, suffix)) continue;
      std::string spelled =
          absl::StrCat(prefix, absl::string_view(suffix).substr(0, std::strlen(suffix) - 1));
      std::string pattern(absl::StripAsciiWhitespace(rest.substr(std::strlen(suffix))));
      std::string where = absl::StrCat("patterns line ", line_number, ": ", spelled);
      if (pattern.empty() && kind != Kind::kEmpty)
        return absl::InvalidArgumentError(absl::StrCat(where, ": no pattern"));
      auto regex = CompilePattern(pattern, where);
      if (!regex.ok()) return regex.status();
      directives.push_back({kind, spelled, pattern, line_number, *std::move(regex)});
      break;
    }
  }
  if (directives.empty())
    return absl::InvalidArgumentError(absl::StrCat("no ", prefix, ": directive in the patterns"));
  return directives;
}

// A position in the text: line (from 0) and column.
struct Position {
  size_t line = 0, column = 0;
};

// The first match of `regex` in `lines` from `from` up to (not including)
// `until`, each line searched on its own.
std::optional<std::pair<Position, Position>> Search(const std::vector<std::string>& lines,
                                                    const std::regex& regex, Position from,
                                                    Position until) {
  for (size_t l = from.line; l < lines.size() && l <= until.line; ++l) {
    size_t begin = l == from.line ? from.column : 0;
    size_t end = l == until.line ? until.column : lines[l].size();
    if (begin > end) continue;
    std::smatch match;
    const std::string& text = lines[l];
    if (std::regex_search(text.begin() + begin, text.begin() + end, match, regex))
      return std::make_pair(Position{l, begin + match.position(0)},
                            Position{l, begin + match.position(0) + match.length(0)});
  }
  return std::nullopt;
}

std::string Numbered(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t l = 0; l < lines.size(); ++l)
    absl::StrAppend(&out, "  ", l + 1, ": ", lines[l], "\n");
  return out;
}

}  // namespace

absl::Status FileCheck(absl::string_view text, absl::string_view patterns,
                       const FileCheckOptions& options) {
  auto directives = ParseDirectives(patterns, options.prefix);
  if (!directives.ok()) return directives.status();
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  const Position end{lines.size() - 1, lines.back().size()};
  auto fail = [&](const Directive& d, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(d.spelled, ": ", d.pattern,
                                                   "\n  (patterns line ", d.line, ") ", why,
                                                   "\ninput:\n", Numbered(lines)));
  };
  Position cursor;           // end of the previous match
  bool matched_any = false;  // whether `cursor` is the end of a match
  std::vector<const Directive*> pending_not;
  // The CHECK-NOTs since the last match must not match in [cursor, until).
  auto check_nots = [&](Position until) -> absl::Status {
    for (const Directive* d : pending_not) {
      if (auto found = Search(lines, d->regex, cursor, until))
        return fail(*d, absl::StrCat("matched at input line ", found->first.line + 1, ": '",
                                     lines[found->first.line], "'"));
    }
    pending_not.clear();
    return absl::OkStatus();
  };
  for (const Directive& d : *directives) {
    if (d.kind == Kind::kNot) {
      pending_not.push_back(&d);
      continue;
    }
    std::optional<std::pair<Position, Position>> found;
    const std::string after =
        matched_any ? absl::StrCat("input line ", cursor.line + 1) : std::string("the start");
    if ((d.kind == Kind::kNext || d.kind == Kind::kSame || d.kind == Kind::kEmpty) && !matched_any)
      return fail(d, "has no previous match to follow");
    switch (d.kind) {
      case Kind::kCheck:
        found = Search(lines, d.regex, cursor, end);
        if (!found) return fail(d, absl::StrCat("not found after ", after));
        break;
      case Kind::kNext:
      case Kind::kEmpty: {
        const size_t next = cursor.line + 1;
        if (next >= lines.size()) return fail(d, absl::StrCat("no line after ", after));
        if (d.kind == Kind::kEmpty) {
          if (!lines[next].empty())
            return fail(
                d, absl::StrCat("input line ", next + 1, " is not empty: '", lines[next], "'"));
          found = std::make_pair(Position{next, 0}, Position{next, 0});
          break;
        }
        found = Search(lines, d.regex, Position{next, 0}, Position{next, lines[next].size()});
        if (!found)
          return fail(d, absl::StrCat("not found on input line ", next + 1, " (the line after ",
                                      after, "): '", lines[next], "'"));
        break;
      }
      case Kind::kSame:
        found = Search(lines, d.regex, cursor, Position{cursor.line, lines[cursor.line].size()});
        if (!found)
          return fail(d, absl::StrCat("not found on the rest of ", after, ": '",
                                      lines[cursor.line].substr(cursor.column), "'"));
        break;
      case Kind::kNot: break;
    }
    if (absl::Status nots = check_nots(found->first); !nots.ok()) return nots;
    cursor = found->second;
    matched_any = true;
  }
  return check_nots(end);
}

}  // namespace testkit
}  // namespace hopt

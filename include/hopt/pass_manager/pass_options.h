// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_PASS_OPTIONS_H_
#define HOPT_PASS_MANAGER_PASS_OPTIONS_H_

// Pass options, MLIR style: a pass declares typed options (name, type,
// default, one-line description) when it is registered, and a pipeline
// element sets them in braces:
//
//   fuse-send-recv{target=MyFused},canonicalize-boundary-marker{everywhere=true}
//   marker-splitter{output-dir='out dir' svg=false}
//
// Options inside braces are separated by spaces; a value may be quoted
// ('...' or "...") to hold spaces, commas or braces. Each pass instance
// gets its own values, so two passes (two plugins) may declare options of
// the same name without clashing. docs/hopt.md, "Pass options".

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {

enum class PassOptionType {
  kBool,    // true/false/1/0
  kInt,     // a signed 64-bit integer
  kString,  // any text
  // A file or directory the pass writes: the tool refuses, before anything
  // runs, a value that is also its input or its -o.
  kOutputPath,
};

// "bool", "int", "string", "output-path" (for -list-passes and messages).
absl::string_view PassOptionTypeName(PassOptionType type);

struct PassOptionSpec {
  std::string name;
  PassOptionType type = PassOptionType::kString;
  std::string default_value;  // in pipeline-text spelling
  std::string description;    // one line
};

// The SDK v2 form, deprecated: a spec without a member, read back by name
// through PassOptions' getters. Prefer Option() (typed options, below).
PassOptionSpec BoolOption(std::string name, bool default_value, std::string description);
PassOptionSpec IntOption(std::string name, int64_t default_value, std::string description);
PassOptionSpec StringOption(std::string name, std::string default_value, std::string description);
PassOptionSpec OutputPathOption(std::string name, std::string description);

// Checks `value` against `spec`'s type: "pass 'P': option 'o' takes an
// integer (int64), got 'x'".
absl::Status CheckPassOptionValue(absl::string_view pass, const PassOptionSpec& spec,
                                  absl::string_view value);

// The values of one pass instance: every declared option, given or default.
// Prefer typed options (TypedOption below), which are read without names.
// A getter of an option the pass did not declare (or of another type)
// is a programming error of the pass: it returns the type's zero value, and
// the registry refuses a pass whose factory does so on its defaults.
class PassOptions {
 public:
  bool GetBool(absl::string_view name) const;
  int64_t GetInt(absl::string_view name) const;
  std::string GetString(absl::string_view name) const;
  // Given in the pipeline text (or by a deprecated flag), not defaulted.
  bool Given(absl::string_view name) const;
  // The given options in pipeline-text spelling, `{a='1' b='x'}`, or ""
  // when none was given: what re-parses to the same values.
  std::string GivenAsText() const;
  // Values of kOutputPath options that are not empty: (option, path).
  std::vector<std::pair<std::string, std::string>> OutputPaths() const;

  // For the registry: sets a value already checked against its spec.
  void Set(const PassOptionSpec& spec, std::string value, bool given);

 private:
  struct Value {
    PassOptionType type;
    std::string text;
    bool given;
  };
  std::map<std::string, Value, std::less<>> values_;
};

// Typed options, MLIR's Option<T> in a plain struct: the options of a pass
// are the members of a struct, their defaults its member initializers, and
// each is declared once, bound to its member. The factory receives the
// struct, so no option is read by name and a misspelled member does not
// compile.
//
//   struct MyFuseOptions {
//     std::string target = "MyFused";
//     int64_t limit = 8;
//   };
//   registrar.AddPass("my-fuse", "fuse things",
//                     {hopt::Option(&MyFuseOptions::target, "target", "the fused call's target"),
//                      hopt::Option(&MyFuseOptions::limit, "limit", "the most fused")},
//                     [](const MyFuseOptions& options) { return MakeMyFuse(options); });
//
// A member is a bool, an int64_t or a std::string; OutputPathOption binds a
// std::string member that names a file or directory the pass writes.
template <typename Options>
struct TypedOption {
  PassOptionSpec spec;
  // Stores the instance's value of `spec` into its member.
  std::function<void(const PassOptions& values, Options& options)> read;
};

namespace pass_options_internal {

template <typename T>
constexpr bool kIsOptionType =
    std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, std::string>;

template <typename T>
PassOptionType TypeOf() {
  if constexpr (std::is_same_v<T, bool>) return PassOptionType::kBool;
  if constexpr (std::is_same_v<T, int64_t>) return PassOptionType::kInt;
  return PassOptionType::kString;
}

inline std::string AsText(bool value) { return value ? "true" : "false"; }
inline std::string AsText(int64_t value) { return std::to_string(value); }
inline std::string AsText(const std::string& value) { return value; }

inline void Read(const PassOptions& values, const std::string& name, bool& value) {
  value = values.GetBool(name);
}
inline void Read(const PassOptions& values, const std::string& name, int64_t& value) {
  value = values.GetInt(name);
}
inline void Read(const PassOptions& values, const std::string& name, std::string& value) {
  value = values.GetString(name);
}

template <typename Options, typename T>
TypedOption<Options> Bind(T Options::*member, std::string name, PassOptionType type,
                          std::string description) {
  static_assert(kIsOptionType<T>, "a pass option's member is a bool, an int64_t or a std::string");
  static_assert(std::is_default_constructible_v<Options>,
                "an options struct is default-constructible: its member initializers are the "
                "options' defaults");
  const Options defaults{};
  PassOptionSpec spec{name, type, AsText(defaults.*member), std::move(description)};
  return {std::move(spec),
          [member, name = std::move(name)](const PassOptions& values, Options& options) {
            Read(values, name, options.*member);
          }};
}

}  // namespace pass_options_internal

// `name` in the pipeline text, bound to `member`; the default is the
// member's initializer.
template <typename Options, typename T>
TypedOption<Options> Option(T Options::*member, std::string name, std::string description) {
  return pass_options_internal::Bind(member, std::move(name), pass_options_internal::TypeOf<T>(),
                                     std::move(description));
}

// A std::string member naming a file or directory the pass writes (see
// PassOptionType::kOutputPath).
template <typename Options>
TypedOption<Options> OutputPathOption(std::string Options::*member, std::string name,
                                      std::string description) {
  return pass_options_internal::Bind(member, std::move(name), PassOptionType::kOutputPath,
                                     std::move(description));
}

// One element of a pipeline's text: a name and the options in its braces,
// in the order written (not yet checked against any pass).
struct PipelineElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
  bool has_braces = false;
};

// Splits pipeline text into elements: `a,b{k=v k2='x y'},c`. Fails on
// malformed text (an empty element, an unterminated brace or quote, text
// after a closing brace, an option without '=') with one message naming
// the element.
absl::StatusOr<std::vector<PipelineElement>> SplitPipelineText(absl::string_view text);

// The values of a pass instance: `given` checked against `specs` (unknown
// key with the closest known key and the list of keys, bad value, key
// given twice), then every option not given from `defaults` (a deprecated
// flag's value, keyed by option name) or the spec's default.
absl::StatusOr<PassOptions> ResolvePassOptions(
    absl::string_view pass, const std::vector<PassOptionSpec>& specs,
    const std::vector<std::pair<std::string, std::string>>& given,
    const std::map<std::string, std::string, std::less<>>& defaults = {});

// Levenshtein distance (also for pass names' suggestions).
size_t EditDistance(absl::string_view a, absl::string_view b);

}  // namespace hopt

#endif  // HOPT_PASS_MANAGER_PASS_OPTIONS_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_HOPT_DRIVER_HOPT_CONFIG_H_
#define HOPT_TOOLS_HOPT_DRIVER_HOPT_CONFIG_H_

// What one run of hopt's driver is asked to do, as plain typed fields
// (MLIR's MlirOptMainConfig): RunHopt (tools/hopt_driver/hopt_main.h) takes
// it, and HoptMain fills it from the command line. Each field is the option
// of the same name (docs/hopt.md); the defaults are the command line's.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/tooling/input_limits.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace tools {

struct HoptConfig {
  // -passes: 'a,b{key=value},c', or a named pipeline.
  std::string passes;
  bool list_passes = false;
  bool list_pipelines = false;
  bool split_input_file = false;
  bool verify = true;       // the input
  bool verify_each = true;  // after every pass; the result is verified in any case
  std::string debug_only;   // comma-separated pass names
  bool print_operand_shapes = false;
  enum class PrintStyle { kLong, kShort };
  PrintStyle print_style = PrintStyle::kLong;
  std::string input_format;   // "", text, pb or pbtxt ("": from the file name)
  std::string output_format;  // "", text, pb or pbtxt ("": from the output's name)
  bool warn_dropped_fields = false;
  uint64_t max_input_size = kDefaultMaxInputBytes;
  bool time_read = false;

  // The pass manager's printing and timing (libLLVM's option names).
  bool time_passes = false;
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  bool print_changed = false;
  bool callgrind_per_pass = false;

  // -verify-equivalence[=whole|region|auto[,N]]: unset, no check; "" is
  // the option given without a value.
  std::optional<std::string> verify_equivalence;
  std::string verify_equivalence_with;
  // A module in memory to check against instead of the file: then
  // `verify_equivalence_with` only names it in messages. Not owned.
  const HloModule* verify_equivalence_with_module = nullptr;
  bool prove_equivalence = false;
  std::string prove_equivalence_with;
  int64_t prove_timeout = 60;   // seconds
  int64_t prove_memory = 4096;  // MB
  std::string counterexample_file;
  uint64_t equivalence_seed = 1;
  // The interpreter's mesh; unset: the module's (or what its collectives need).
  std::optional<int64_t> replicas;
  std::optional<int64_t> partitions;
  eval::EvalOptions::OpaqueCustomCalls opaque_custom_calls =
      eval::EvalOptions::OpaqueCustomCalls::kHash;

  // -compare-with runs hopt again in a second process, from the command
  // line below (argv[0] first; tools/common/provider_compare.h): a run
  // without one refuses -compare-with.
  std::string compare_with;
  std::string compare_keep;
  int64_t compare_sets = 3;
  bool compare_strict = false;
  std::string compare_child_dir;  // set only in that second process
  std::vector<std::string> command_line;

  std::string emit_dot;  // file.dot or file.svg
  std::string emit_dot_computation;
  int64_t emit_dot_max_nodes = 200;
  bool emit_dot_svg = false;

  // The checks whose failures exit 2 when they could not run (and 1 for a
  // difference) rather than 1 for everything.
  bool ComparesSomething() const {
    return !compare_with.empty() || !verify_equivalence_with.empty() ||
           verify_equivalence_with_module != nullptr || !prove_equivalence_with.empty();
  }
};

// Where the passes come from. -load and -override-passes are here rather
// than in HoptConfig: the command line needs the plugins loaded before it
// is parsed (their deprecated flags), so HoptMain loads them itself.
struct HoptExtensions {
  // Where the plugins register passes, pipelines and custom-call
  // semantics; it may already hold some (plugins the caller loaded, passes
  // a test registered). Null: a registry of the call's own.
  Extensions* registry = nullptr;
  // Plugins RunHopt loads into it first: a path, or a file name looked up
  // in hopt's plugin directories and HOPT_PLUGIN_PATH.
  std::vector<std::string> load;
  // Plugins the caller already loaded into `registry`, which -compare-with's
  // second process loads too.
  std::vector<std::string> loaded;
  bool override_passes = false;
};

// The module(s) to read: a file ("-": standard input), text or proto
// bytes in memory, or a module already parsed, which `path` then only names
// in messages (for bytes, its extension still gives the format unless
// HoptConfig::input_format does). A parsed module is cloned, not changed.
struct HoptInput {
  std::string path = "-";
  std::optional<std::string> contents;
  const HloModule* module = nullptr;  // not owned

  static HoptInput File(std::string path) { return {std::move(path), std::nullopt}; }
  static HoptInput Buffer(std::string contents, std::string name = "<buffer>") {
    return {std::move(name), std::move(contents)};
  }
  static HoptInput Module(const HloModule& module, std::string name = "<module>") {
    return {std::move(name), std::nullopt, &module};
  }
};

// One pass as it ran: its name and its wall time (each run of a pass that
// appears twice in the pipeline is its own entry).
struct PassTiming {
  std::string pass;
  double seconds = 0;
};

// Where the result goes: a file ("-": standard output), `buffer` when it
// is set (replaced by the result, whose format `path`'s extension or
// HoptConfig::output_format gives), or `modules` when that is set (replaced
// by the result modules themselves, nothing printed). -list-passes and
// -list-pipelines write their listing to `buffer` too, else to standard
// output. `pass_timings`, when set, receives every pass's wall time, in the
// order they ran, of a run that succeeded.
struct HoptOutput {
  std::string path = "-";
  std::string* buffer = nullptr;
  std::vector<std::unique_ptr<HloModule>>* modules = nullptr;
  std::vector<PassTiming>* pass_timings = nullptr;

  static HoptOutput File(std::string path) { return {std::move(path), nullptr}; }
  static HoptOutput Buffer(std::string* buffer, std::string name = "-") {
    return {std::move(name), buffer};
  }
  static HoptOutput Modules(std::vector<std::unique_ptr<HloModule>>* modules) {
    return {"-", nullptr, modules};
  }
};

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_HOPT_DRIVER_HOPT_CONFIG_H_

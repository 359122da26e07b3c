// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_SPLIT_MANIFEST_H_
#define HOPT_SUPPORT_SPLIT_MANIFEST_H_

// The manifest of a module split into stages (manifest.json, written by
// the partition plugin's marker-splitter and read by
// `hlo-run DIR/manifest.json` and `hlo-run -check-split`): which stage
// modules there are, in which order they run, where each stage's parameters
// come from and how the original module's result is assembled from the
// stages' outputs. The schema lives in core so that the writer (a plugin)
// and the readers (tools, tests) share one definition.
//
// Every stage module's entry computation returns a tuple of its outputs
// (also for zero or one output); a stage parameter is either a parameter of
// the original entry computation or an output of an earlier stage.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/shape.h"
#include "hopt/support/json.h"

namespace hopt {
namespace split {

inline constexpr int64_t kManifestVersion = 1;
inline constexpr const char* kManifestFormat = "hopt-split-manifest";

// Where a value comes from: a parameter of the original entry computation
// or output `output` of stage `stage`.
struct ValueSource {
  enum class Kind { kEntryParameter, kStageOutput };
  Kind kind = Kind::kEntryParameter;
  int64_t entry_parameter = -1;  // kEntryParameter
  int64_t stage = -1;            // kStageOutput
  int64_t output = -1;           // kStageOutput

  static ValueSource EntryParameter(int64_t number);
  static ValueSource StageOutput(int64_t stage, int64_t output);
  bool operator==(const ValueSource& other) const;
};

struct EntryParameter {
  int64_t number = 0;
  std::string name;   // the parameter's name in the original module
  std::string shape;  // XLA text, e.g. "f32[8,16]{1,0}"
};

struct StageParameter {
  int64_t number = 0;  // parameter(number) of the stage's entry computation
  std::string name;    // the value's name in the original module
  std::string shape;
  ValueSource source;
};

struct StageOutput {
  int64_t index = 0;  // element of the stage's root tuple
  std::string name;   // the value's name in the original module
  std::string shape;
  // Later stages that read it; -1 stands for the module's result.
  std::vector<int64_t> consumers;
};

struct Stage {
  int64_t index = 0;
  std::string name;  // e.g. "stage-03-forward-bc2"
  std::string file;  // the stage module, relative to the manifest's directory
  // "prologue" (before the first layer span), "layer", "between" (code
  // between two layer spans), "epilogue" (after the last span) or "whole"
  // (a module without layer markers).
  std::string kind;
  std::string direction;  // "forward", "backward" or "none"
  std::optional<int64_t> boundary_count;
  std::string start_marker;  // names in the input module; empty unless "layer"
  std::string end_marker;
  int64_t instruction_count = 0;  // in the stage module's entry computation
  // Cheap producers (constants, iota, ...) copied into this stage instead of
  // being passed in.
  int64_t rematerialized_count = 0;
  std::vector<StageParameter> parameters;
  std::vector<StageOutput> outputs;
};

struct Manifest {
  int64_t version = kManifestVersion;
  std::string module;  // the original module's name
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  int64_t instruction_count = 0;  // the original entry computation's
  std::vector<EntryParameter> entry_parameters;
  std::vector<Stage> stages;
  // The original result: when `result_is_tuple`, the tuple of `result`'s
  // values (one per element); otherwise `result` holds exactly one value.
  std::string result_shape;
  bool result_is_tuple = false;
  std::vector<ValueSource> result;
};

json::Value ToJson(const Manifest& manifest);
// Reads and checks a manifest: format and version, every member present
// with its JSON type, kind and direction from their sets, entry parameter
// numbers, stage indices, stage parameter numbers and output indices
// 0..n-1 in order, plain stage file names (no '/', no "..": a manifest
// never names a file outside its directory), shapes that parse, every
// source naming an existing entry parameter or an existing output of an
// earlier stage with the parameter's shape, consumers that are later
// stages or -1, and a result whose values match its shape (exactly one
// value unless it is a tuple). Unknown members are ignored. Errors name the
// offending field
// ("manifest: stages[2].parameters[1].source: stage 5 is not before stage 2").
absl::StatusOr<Manifest> ManifestFromJson(const json::Value& value);
absl::StatusOr<Manifest> ParseManifest(absl::string_view text);

// Helpers for writers and readers.
//
// The checks ManifestFromJson makes, for a manifest built in memory (a
// writer calls it before writing anything).
absl::Status ValidateManifest(const Manifest& manifest);
// Reads and parses `path`; errors start with the path.
absl::StatusOr<Manifest> ReadManifestFile(const std::string& path);
// Whether `name` may be a stage file: not empty, no '/', '\\' or NUL, no
// "..", not ".". A manifest must never point outside its own directory.
bool IsPlainFileName(absl::string_view name);
// "entry parameter 3", "stage 1 output 0".
std::string DescribeSource(const ValueSource& source);
// Shape equality where a shape written without a layout has the default
// one (`f32[4]` is `f32[4]{0}`).
bool SameShape(const Shape& a, const Shape& b);

}  // namespace split
}  // namespace hopt

#endif  // HOPT_SUPPORT_SPLIT_MANIFEST_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_MARKERS_MARKER_UTILS_H_
#define HOPT_PLUGINS_MARKERS_MARKER_UTILS_H_

// What a boundary marker is: the six custom-call targets, their
// classification and the `boundaryCount=N` backend_config that pairs a Start
// with its End. Stateless, and a library of its own (neuron_marker_utils_dep),
// so that the partition plugin can read markers without linking the marker
// passes.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/ir/instruction.h"

namespace neuron {
namespace markers {

// Loop-body markers: stamped around while-body roots by
// neuron_add_boundary_marker.
inline constexpr absl::string_view kLoopStart = "NeuronBoundaryMarker-Start";
inline constexpr absl::string_view kLoopEnd = "NeuronBoundaryMarker-End";
// Module markers: emitted by frontends around layer spans; the suffix is the
// only carrier of the autograd direction.
inline constexpr absl::string_view kModuleStartForward = "AwsNeuronModuleMarkerStart-Forward";
inline constexpr absl::string_view kModuleStartBackward = "AwsNeuronModuleMarkerStart-Backward";
inline constexpr absl::string_view kModuleEndForward = "AwsNeuronModuleMarkerEnd-Forward";
inline constexpr absl::string_view kModuleEndBackward = "AwsNeuronModuleMarkerEnd-Backward";

// The six targets: loop Start, loop End, then the module markers
// Start-Forward, Start-Backward, End-Forward, End-Backward.
absl::Span<const absl::string_view> AllMarkerTargets();

enum class MarkerFamily { kLoop, kModule };
enum class MarkerEdge { kStart, kEnd };
// Loop-body markers have no direction.
enum class MarkerDirection { kNone, kForward, kBackward };

struct MarkerKind {
  MarkerFamily family;
  MarkerEdge edge;
  MarkerDirection direction;
};

// The kind of a marker target, or nothing for any other string. Exact,
// case-sensitive comparison, as the reference compiler's detector.
std::optional<MarkerKind> ClassifyMarkerTarget(absl::string_view target);
// The kind of a marker custom-call, or nothing for anything else.
std::optional<MarkerKind> ClassifyMarker(const hopt::HloInstruction& instruction);

bool IsMarkerTarget(absl::string_view target);
// Any of the six targets (XLA's hlo_utils::isMarker).
bool IsMarker(const hopt::HloInstruction& instruction);
bool IsMarkerStart(const hopt::HloInstruction& instruction);
// One of the three End targets (hlo_utils::isMarkerEnd).
bool IsMarkerEnd(const hopt::HloInstruction& instruction);
bool IsLoopMarker(const hopt::HloInstruction& instruction);
bool IsModuleMarker(const hopt::HloInstruction& instruction);
bool IsForwardMarker(const hopt::HloInstruction& instruction);
bool IsBackwardMarker(const hopt::HloInstruction& instruction);

// What a marker returns. Markers compute the identity, in one of two forms:
// its one operand (same shape), or the tuple of its operands, which is how
// frontends emit markers over N values (any N, also 1 and 0).
enum class MarkerResult { kOperand, kTupleOfOperands, kMalformed };
// kOperand when the marker has one operand of a shape compatible with its
// own; else kTupleOfOperands when its shape is compatible with the tuple of
// its operands' shapes; else kMalformed.
MarkerResult ClassifyMarkerResult(const hopt::HloInstruction& marker);

// The target of a marker of the given kind; empty for combinations that do
// not exist (a loop marker with a direction, a module marker without one).
absl::string_view MarkerTarget(MarkerKind kind);

// `boundaryCount=N` (N >= 0), the pairing key of a Start and its End.
std::string FormatBoundaryCount(int64_t count);
// The N of a backend_config. The config is either exactly
// `boundaryCount=N` or a comma-separated list of `key=value` entries of
// which one is `boundaryCount=N` (whitespace around entries is ignored).
// NotFound when no entry is boundaryCount (frontends often emit module
// markers with no backend_config at all); OutOfRange when N is a decimal
// number above INT64_MAX; InvalidArgument when the entry is there but N is
// not a non-negative decimal number or the entry repeats.
absl::StatusOr<int64_t> ParseBoundaryCount(absl::string_view backend_config);
// The marker's boundaryCount, or nothing when absent or malformed.
std::optional<int64_t> BoundaryCountOf(const hopt::HloInstruction& instruction);

}  // namespace markers
}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_MARKER_UTILS_H_

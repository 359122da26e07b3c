// SPDX-License-Identifier: Apache-2.0

#include "markers/marker_utils.h"

#include <array>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hopt/ir/opcode.h"
#include "hopt/ir/shape.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace markers {
namespace {

constexpr std::array<absl::string_view, 6> kTargets = {
    kLoopStart,           kLoopEnd,          kModuleStartForward,
    kModuleStartBackward, kModuleEndForward, kModuleEndBackward,
};

constexpr absl::string_view kBoundaryCountKey = "boundaryCount";

// Markers are checked on every custom-call of big modules: read the quoted
// attribute text in place instead of unquoting it into a new string, unless
// it has escapes (no marker target has any).
std::optional<MarkerKind> ClassifyCall(const hopt::HloInstruction& instruction) {
  if (instruction.opcode() != hopt::HloOpcode::kCustomCall) return std::nullopt;
  std::optional<absl::string_view> raw = instruction.GetAttributeText("custom_call_target");
  if (!raw) return std::nullopt;
  if (raw->size() >= 2 && raw->front() == '"' && raw->back() == '"' &&
      raw->find('\\') == absl::string_view::npos)
    return ClassifyMarkerTarget(raw->substr(1, raw->size() - 2));
  return ClassifyMarkerTarget(instruction.custom_call_target());
}

absl::StatusOr<int64_t> ParseCount(absl::string_view digits, absl::string_view entry) {
  auto malformed = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed boundaryCount in \"", entry, "\": ", why));
  };
  if (digits.empty()) return malformed("no number");
  int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return malformed("not a non-negative decimal number");
    int digit = c - '0';
    // OutOfRange, not InvalidArgument: a well-formed key that no int64_t
    // counter can go above (neuron_add_boundary_marker refuses it).
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
      return absl::OutOfRangeError(absl::StrCat("boundaryCount in \"", entry, "\" is above ",
                                                std::numeric_limits<int64_t>::max()));
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

absl::Span<const absl::string_view> AllMarkerTargets() { return kTargets; }

std::optional<MarkerKind> ClassifyMarkerTarget(absl::string_view target) {
  using D = MarkerDirection;
  if (target == kLoopStart) return MarkerKind{MarkerFamily::kLoop, MarkerEdge::kStart, D::kNone};
  if (target == kLoopEnd) return MarkerKind{MarkerFamily::kLoop, MarkerEdge::kEnd, D::kNone};
  if (target == kModuleStartForward)
    return MarkerKind{MarkerFamily::kModule, MarkerEdge::kStart, D::kForward};
  if (target == kModuleStartBackward)
    return MarkerKind{MarkerFamily::kModule, MarkerEdge::kStart, D::kBackward};
  if (target == kModuleEndForward)
    return MarkerKind{MarkerFamily::kModule, MarkerEdge::kEnd, D::kForward};
  if (target == kModuleEndBackward)
    return MarkerKind{MarkerFamily::kModule, MarkerEdge::kEnd, D::kBackward};
  return std::nullopt;
}

std::optional<MarkerKind> ClassifyMarker(const hopt::HloInstruction& instruction) {
  return ClassifyCall(instruction);
}

bool IsMarkerTarget(absl::string_view target) { return ClassifyMarkerTarget(target).has_value(); }

bool IsMarker(const hopt::HloInstruction& instruction) {
  return ClassifyCall(instruction).has_value();
}

bool IsMarkerStart(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->edge == MarkerEdge::kStart;
}

bool IsMarkerEnd(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->edge == MarkerEdge::kEnd;
}

bool IsLoopMarker(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->family == MarkerFamily::kLoop;
}

bool IsModuleMarker(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->family == MarkerFamily::kModule;
}

bool IsForwardMarker(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->direction == MarkerDirection::kForward;
}

bool IsBackwardMarker(const hopt::HloInstruction& instruction) {
  auto kind = ClassifyCall(instruction);
  return kind && kind->direction == MarkerDirection::kBackward;
}

absl::string_view MarkerTarget(MarkerKind kind) {
  bool start = kind.edge == MarkerEdge::kStart;
  if (kind.family == MarkerFamily::kLoop)
    return kind.direction == MarkerDirection::kNone ? (start ? kLoopStart : kLoopEnd)
                                                    : absl::string_view();
  switch (kind.direction) {
    case MarkerDirection::kForward: return start ? kModuleStartForward : kModuleEndForward;
    case MarkerDirection::kBackward: return start ? kModuleStartBackward : kModuleEndBackward;
    case MarkerDirection::kNone: break;
  }
  return absl::string_view();
}

MarkerResult ClassifyMarkerResult(const hopt::HloInstruction& marker) {
  const hopt::Shape& shape = marker.shape();
  if (marker.operand_count() == 1 && shape.Compatible(marker.operand(0)->shape()))
    return MarkerResult::kOperand;
  if (!shape.IsTuple() || shape.tuple_shapes_size() != marker.operand_count())
    return MarkerResult::kMalformed;
  for (int64_t i = 0; i < marker.operand_count(); ++i)
    if (!shape.tuple_shapes(i).Compatible(marker.operand(i)->shape()))
      return MarkerResult::kMalformed;
  return MarkerResult::kTupleOfOperands;
}

std::string FormatBoundaryCount(int64_t count) {
  return absl::StrCat(kBoundaryCountKey, "=", count);
}

absl::StatusOr<int64_t> ParseBoundaryCount(absl::string_view backend_config) {
  std::optional<int64_t> found;
  for (absl::string_view entry : absl::StrSplit(backend_config, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    size_t equals = entry.find('=');
    absl::string_view key = absl::StripAsciiWhitespace(entry.substr(0, equals));
    if (key != kBoundaryCountKey) continue;
    if (equals == absl::string_view::npos)
      return absl::InvalidArgumentError(
          absl::StrCat("malformed boundaryCount in \"", backend_config, "\": no '='"));
    if (found)
      return absl::InvalidArgumentError(
          absl::StrCat("boundaryCount given twice in \"", backend_config, "\""));
    HOPT_ASSIGN_OR_RETURN(
        found, ParseCount(absl::StripAsciiWhitespace(entry.substr(equals + 1)), backend_config));
  }
  if (!found)
    return absl::NotFoundError(absl::StrCat("no boundaryCount in \"", backend_config, "\""));
  return *found;
}

std::optional<int64_t> BoundaryCountOf(const hopt::HloInstruction& instruction) {
  if (instruction.opcode() != hopt::HloOpcode::kCustomCall) return std::nullopt;
  if (!instruction.HasAttribute("backend_config")) return std::nullopt;
  auto count = ParseBoundaryCount(instruction.backend_config());
  if (!count.ok()) return std::nullopt;
  return *count;
}

}  // namespace markers
}  // namespace neuron

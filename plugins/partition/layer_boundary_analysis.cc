// SPDX-License-Identifier: Apache-2.0

#include "partition/layer_boundary_analysis.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hopt/pass_manager/debug.h"

namespace neuron {
namespace partition {
namespace {

using hopt::HloInstruction;
using markers::MarkerDirection;
using markers::MarkerEdge;

// The open (not yet closed) count-less Starts a value depends on: the few
// latest in dataflow order, as post-order positions, latest first. Deeper
// nesting than this is an error anyway; a Start that falls off the end can
// only make an End pair wrongly, which the stage assignment reports.
constexpr int kTrackedOpenStarts = 4;
using OpenStarts = std::array<int32_t, kTrackedOpenStarts>;
constexpr OpenStarts kNoOpenStarts = {-1, -1, -1, -1};

struct CountlessStart {
  HloInstruction* start = nullptr;
  HloInstruction* end = nullptr;
};

// Inserts `position` into the latest-first list unless present.
void AddOpenStart(OpenStarts& list, int32_t position) {
  for (int32_t value : list)
    if (value == position) return;
  if (position < list[kTrackedOpenStarts - 1]) return;
  int k = kTrackedOpenStarts - 1;
  while (k > 0 && list[k - 1] < position) {
    list[k] = list[k - 1];
    --k;
  }
  list[k] = position;
}

absl::Status Malformed(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

}  // namespace

absl::string_view DirectionName(MarkerDirection direction) {
  switch (direction) {
    case MarkerDirection::kForward: return "forward";
    case MarkerDirection::kBackward: return "backward";
    case MarkerDirection::kNone: break;
  }
  return "none";
}

std::string DescribeSpan(const LayerSpan& span) {
  return absl::StrCat(DirectionName(span.direction), ", ",
                      span.boundary_count ? absl::StrCat("boundaryCount=", *span.boundary_count)
                                          : std::string("no boundaryCount"));
}

std::string DescribeMarker(const HloInstruction& marker) {
  std::string text = absl::StrCat("'", marker.name(), "' (", marker.custom_call_target());
  if (auto count = markers::BoundaryCountOf(marker))
    absl::StrAppend(&text, ", boundaryCount=", *count);
  return text + ")";
}

void LogCutPoints(absl::string_view debug_type, const LayerBoundaries& boundaries) {
  HOPT_DEBUG(debug_type, dbgs << "[analyzeLayerBoundary] cutMarkers size = "
                              << boundaries.marker_count << "\n");
  for (size_t i = 0; i < boundaries.spans.size(); ++i) {
    const LayerSpan& span = boundaries.spans[i];
    HOPT_DEBUG(debug_type, dbgs << "[analyzeLayerBoundary] found cut point " << i << ": "
                                << DescribeSpan(span) << ", start '"
                                << hopt::AsRef(span.start->name()) << "', end '"
                                << hopt::AsRef(span.end->name()) << "'\n");
  }
}

absl::Status PreprocessFailure(const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("NCC_MOD001: Pipeline preprocess-boundary-marker failed to "
                                   "execute. Status: ",
                                   status.ToString()));
}

absl::StatusOr<LayerBoundaries> AnalyzeLayerBoundaries(
    absl::Span<HloInstruction* const> post_order) {
  LayerBoundaries result;
  int64_t id_limit = 0;
  for (const HloInstruction* instruction : post_order)
    id_limit = std::max<int64_t>(id_limit, instruction->unique_id() + 1);
  std::vector<int32_t> position(id_limit, -1);
  std::vector<OpenStarts> open(id_limit, kNoOpenStarts);
  // Count-less Starts by post-order position (ordered: errors come out in
  // dataflow order).
  std::map<int32_t, CountlessStart> countless;
  // Markers with a boundaryCount by (direction, boundaryCount).
  std::map<std::pair<int, int64_t>, std::pair<HloInstruction*, HloInstruction*>> counted;

  // By post-order position: a count-less Start already closed.
  std::vector<bool> closed(post_order.size(), false);
  auto still_open = [&](int32_t at) { return at >= 0 && !closed[at]; };
  for (int32_t at = 0; at < static_cast<int32_t>(post_order.size()); ++at) {
    HloInstruction* instruction = post_order[at];
    position[instruction->unique_id()] = at;
    OpenStarts reached = kNoOpenStarts;
    auto gather = [&](const HloInstruction* from) {
      for (int32_t start : open[from->unique_id()])
        if (still_open(start)) AddOpenStart(reached, start);
    };
    for (const HloInstruction* operand : instruction->operands()) gather(operand);
    if (instruction->has_control_predecessors())
      for (const HloInstruction* predecessor : instruction->control_predecessors())
        gather(predecessor);

    std::optional<markers::MarkerKind> kind;
    if (instruction->opcode() == hopt::HloOpcode::kCustomCall)
      kind = markers::ClassifyMarker(*instruction);
    if (!kind || kind->family != markers::MarkerFamily::kModule) {
      open[instruction->unique_id()] = reached;
      continue;
    }
    ++result.marker_count;
    absl::StatusOr<int64_t> count = markers::ParseBoundaryCount(instruction->backend_config());
    if (!count.ok() && !absl::IsNotFound(count.status()))
      return Malformed(
          absl::StrCat("marker '", instruction->name(), "': ", count.status().message()));
    if (count.ok()) {
      auto& pair = counted[{static_cast<int>(kind->direction), *count}];
      HloInstruction*& slot = kind->edge == MarkerEdge::kStart ? pair.first : pair.second;
      if (slot != nullptr)
        return Malformed(absl::StrCat("two ", instruction->custom_call_target(),
                                      " markers with boundaryCount=", *count, ": '", slot->name(),
                                      "' and '", instruction->name(), "'"));
      slot = instruction;
      open[instruction->unique_id()] = reached;
      continue;
    }
    if (kind->edge == MarkerEdge::kStart) {
      countless[at] = {instruction, nullptr};
      AddOpenStart(reached, at);
      open[instruction->unique_id()] = reached;
      continue;
    }
    // A count-less End closes the innermost open Start it depends on.
    if (reached[0] < 0)
      return Malformed(absl::StrCat(
          "unpaired marker ", DescribeMarker(*instruction),
          ": it depends on no open Start without a boundaryCount (End before Start?)"));
    CountlessStart& start = countless.at(reached[0]);
    if (markers::ClassifyMarker(*start.start)->direction != kind->direction)
      return Malformed(absl::StrCat("marker ", DescribeMarker(*instruction), " would close ",
                                    DescribeMarker(*start.start),
                                    " of the other direction: the spans cross or nest"));
    start.end = instruction;
    closed[reached[0]] = true;
    open[instruction->unique_id()] = reached;
  }

  for (const auto& [at, start] : countless)
    if (start.end == nullptr)
      return Malformed(absl::StrCat("unpaired marker ", DescribeMarker(*start.start),
                                    ": no End without a boundaryCount depends on it"));
  for (const auto& [key, pair] : counted) {
    if (pair.first == nullptr || pair.second == nullptr) {
      const HloInstruction* present = pair.first != nullptr ? pair.first : pair.second;
      return Malformed(absl::StrCat("unpaired marker ", DescribeMarker(*present), ": no ",
                                    pair.first != nullptr ? "End" : "Start",
                                    " of that direction has boundaryCount=", key.second));
    }
  }

  for (const auto& [at, start] : countless)
    result.spans.push_back(
        {start.start, start.end, markers::ClassifyMarker(*start.start)->direction, std::nullopt});
  for (const auto& [key, pair] : counted)
    result.spans.push_back(
        {pair.first, pair.second, static_cast<MarkerDirection>(key.first), key.second});
  std::sort(result.spans.begin(), result.spans.end(), [&](const LayerSpan& a, const LayerSpan& b) {
    return position[a.start->unique_id()] < position[b.start->unique_id()];
  });
  return result;
}

}  // namespace partition
}  // namespace neuron

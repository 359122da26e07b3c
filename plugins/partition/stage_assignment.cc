// SPDX-License-Identifier: Apache-2.0

#include "partition/stage_assignment.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace neuron {
namespace partition {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;

bool IsCheapLeaf(HloOpcode opcode) {
  return opcode == HloOpcode::kConstant || opcode == HloOpcode::kIota ||
         opcode == HloOpcode::kReplicaId || opcode == HloOpcode::kPartitionId;
}

bool IsCheapReshaping(HloOpcode opcode) {
  return opcode == HloOpcode::kBroadcast || opcode == HloOpcode::kReshape ||
         opcode == HloOpcode::kBitcast || opcode == HloOpcode::kConvert;
}

struct SpanMarker {
  int32_t span = 0;
  bool is_end = false;
  // This marker as a MarkerRef.
  int32_t ref() const { return 2 * span + (is_end ? 1 : 0); }
};

// A span marker by number (2i: Start i, 2i+1: End i), or none: four bytes
// per instruction where a pointer takes eight, in vectors as long as the
// module's ids.
using MarkerRef = int32_t;
constexpr MarkerRef kNoMarker = -1;

const HloInstruction* MarkerOf(const LayerBoundaries& boundaries, MarkerRef ref) {
  if (ref == kNoMarker) return nullptr;
  const LayerSpan& span = boundaries.spans[ref / 2];
  return ref % 2 == 0 ? span.start : span.end;
}

}  // namespace

absl::StatusOr<StageAssignment> AssignStages(absl::Span<HloInstruction* const> post_order,
                                             const LayerBoundaries& boundaries) {
  StageAssignment assignment;
  const int32_t k = static_cast<int32_t>(boundaries.spans.size());
  assignment.span_count_ = k;
  int64_t id_limit = 0;
  for (const HloInstruction* instruction : post_order)
    id_limit = std::max<int64_t>(id_limit, instruction->unique_id() + 1);
  std::vector<int32_t>& position = assignment.positions_;
  position.assign(id_limit, StageAssignment::kUnknown);

  absl::flat_hash_map<const HloInstruction*, SpanMarker> span_markers;
  for (int32_t i = 0; i < k; ++i) {
    span_markers[boundaries.spans[i].start] = {i, false};
    span_markers[boundaries.spans[i].end] = {i, true};
  }
  auto span_marker = [&](const HloInstruction* instruction) -> const SpanMarker* {
    if (instruction->opcode() != HloOpcode::kCustomCall) return nullptr;
    auto it = span_markers.find(instruction);
    return it == span_markers.end() ? nullptr : &it->second;
  };
  absl::flat_hash_map<const HloInstruction*, std::vector<HloInstruction*>> control_successors;
  for (HloInstruction* instruction : post_order)
    if (instruction->has_control_predecessors())
      for (HloInstruction* predecessor : instruction->control_predecessors())
        control_successors[predecessor].push_back(instruction);

  // lo(x) and the marker that sets it; for a span marker, what its readers
  // see (2i+1 after a Start, 2i+2 after an End).
  std::vector<int32_t> lo(id_limit, 0);
  std::vector<MarkerRef> lo_marker(id_limit, kNoMarker);
  for (HloInstruction* x : post_order) {
    const int64_t id = x->unique_id();
    if (x->opcode() == HloOpcode::kParameter) {
      position[id] = StageAssignment::kParameter;
      continue;
    }
    bool cheap =
        !x->has_control_edges() &&
        (IsCheapLeaf(x->opcode()) ? x->operand_count() == 0
                                  : IsCheapReshaping(x->opcode()) &&
                                        std::all_of(x->operands().begin(), x->operands().end(),
                                                    [&](const HloInstruction* operand) {
                                                      return position[operand->unique_id()] ==
                                                             StageAssignment::kRematerialized;
                                                    }));
    if (cheap) {
      position[id] = StageAssignment::kRematerialized;
      continue;
    }
    int32_t bound = 0;
    MarkerRef bound_marker = kNoMarker;
    auto raise = [&](const HloInstruction* operand) {
      if (lo[operand->unique_id()] > bound) {
        bound = lo[operand->unique_id()];
        bound_marker = lo_marker[operand->unique_id()];
      }
    };
    for (const HloInstruction* operand : x->operands()) raise(operand);
    if (x->has_control_predecessors())
      for (const HloInstruction* predecessor : x->control_predecessors()) raise(predecessor);
    const SpanMarker* marker = span_marker(x);
    if (marker == nullptr) {
      lo[id] = bound;
      lo_marker[id] = bound_marker;
      continue;
    }
    const int32_t span_position = 2 * marker->span + 1;
    if (marker->is_end && bound < span_position) {
      const HloInstruction* start = boundaries.spans[marker->span].start;
      return absl::InvalidArgumentError(
          absl::StrCat("marker ", DescribeMarker(*x), " does not depend on its Start ",
                       DescribeMarker(*start), " (End before Start?)"));
    }
    if (marker->is_end ? bound > span_position : bound >= span_position)
      return absl::InvalidArgumentError(
          absl::StrCat("the spans cross or nest: marker ", DescribeMarker(*x),
                       " depends on marker ", DescribeMarker(*MarkerOf(boundaries, bound_marker))));
    lo[id] = marker->is_end ? span_position + 1 : span_position;
    lo_marker[id] = marker->ref();
  }

  // hi(x), users first; the position is decided on the way. `reason` is
  // the marker behind a position, for the error message.
  std::vector<MarkerRef> reason(id_limit, kNoMarker);
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    HloInstruction* x = *it;
    const int64_t id = x->unique_id();
    if (position[id] == StageAssignment::kParameter ||
        position[id] == StageAssignment::kRematerialized)
      continue;
    if (const SpanMarker* marker = span_marker(x)) {
      position[id] = 2 * marker->span + 1;
      reason[id] = marker->ref();
      continue;
    }
    int32_t bound = 2 * k;
    MarkerRef bound_marker = kNoMarker;
    auto lower = [&](const HloInstruction* user) {
      int32_t needed;
      MarkerRef why;
      if (const SpanMarker* marker = span_marker(user)) {
        needed = marker->is_end ? 2 * marker->span + 1 : 2 * marker->span;
        why = marker->ref();
      } else if (position[user->unique_id()] == StageAssignment::kParameter) {
        // Only a control edge reaches a parameter. Every stage receives its
        // parameters from outside, so the edge orders nothing a cut keeps.
        return;
      } else {
        needed = position[user->unique_id()];
        why = reason[user->unique_id()];
      }
      if (needed < bound) {
        bound = needed;
        bound_marker = why;
      }
    };
    for (const HloInstruction* user : x->users()) lower(user);
    if (x->has_control_successors()) {
      auto successors = control_successors.find(x);
      if (successors != control_successors.end())
        for (const HloInstruction* successor : successors->second) lower(successor);
    }
    // Reached when the checks above let the spans' order contradict the
    // dataflow (pass_pipeline_fuzzer found inputs that do); either marker
    // may then be unknown.
    if (lo[id] > bound) {
      auto describe = [&](MarkerRef ref) {
        const HloInstruction* marker = MarkerOf(boundaries, ref);
        return marker != nullptr ? DescribeMarker(*marker) : std::string("(none)");
      };
      return absl::InvalidArgumentError(absl::StrCat(
          "the spans cross or nest: '", x->name(), "' depends on marker ", describe(lo_marker[id]),
          " but must be computed before marker ", describe(bound_marker)));
    }
    const bool in_span = lo[id] % 2 == 1;
    position[id] = in_span ? lo[id] : bound;
    reason[id] = in_span ? lo_marker[id] : bound_marker;
  }
  return assignment;
}

absl::StatusOr<LayerCut> CutAtLayerMarkers(const HloComputation& entry,
                                           absl::string_view debug_type) {
  std::vector<HloInstruction*> post_order = entry.MakeInstructionPostOrder();
  absl::StatusOr<LayerBoundaries> boundaries = AnalyzeLayerBoundaries(post_order);
  if (!boundaries.ok()) return PreprocessFailure(boundaries.status());
  LogCutPoints(debug_type, *boundaries);
  absl::StatusOr<StageAssignment> assignment = AssignStages(post_order, *boundaries);
  if (!assignment.ok()) return PreprocessFailure(assignment.status());
  std::vector<int64_t> sizes(assignment->position_count(), 0);
  for (const HloInstruction* instruction : post_order) {
    int32_t position = assignment->PositionOf(*instruction);
    if (position >= 0) ++sizes[position];
  }
  return LayerCut{*std::move(boundaries), *std::move(assignment), std::move(sizes)};
}

}  // namespace partition
}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0
// canonicalize-boundary-marker: afterwards every marker of the walked
// computations takes exactly one operand, a tuple, so that removal (and the
// partitioner) see one form. A marker that already does is left alone; a
// one-operand marker becomes marker(tuple(a)) read through
// get-tuple-element(marker), index=0, an N-operand one marker(tuple(a, b,
// ...)) with its users unchanged. The marker is rewritten where it stands,
// keeping its name, target, backend_config, metadata, frontend attributes
// and control edges; its api_version becomes ORIGINAL. A marker that is
// neither identity form fails the pass before anything changes.
//
// The entry computation only, as in the reference compiler, whose loop
// bodies reach the entry through unrolling; every computation with
// everywhere=true. docs/plugins/markers.md has the details and where this
// departs from the reference.

#include "markers/canonicalize_boundary_marker.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"
#include "markers/marker_utils.h"

namespace neuron {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::Shape;

constexpr absl::string_view kCanonicalizePassName = "canonicalize-boundary-marker";

// A marker to rewrite and its result form, classified once.
struct MarkerToFix {
  HloInstruction* marker;
  markers::MarkerResult result;
};

absl::Status CheckIdentityShape(const MarkerToFix& to_fix) {
  if (to_fix.result != markers::MarkerResult::kMalformed) return absl::OkStatus();
  const HloInstruction& marker = *to_fix.marker;
  std::vector<Shape> operands;
  for (const HloInstruction* operand : marker.operands()) operands.push_back(operand->shape());
  return absl::InvalidArgumentError(absl::StrCat(
      "boundary marker '", marker.name(), "' has shape ", marker.shape().ToString(false),
      ": a marker returns its operand or the tuple of its operands ",
      Shape::MakeTuple(std::move(operands)).ToString(false)));
}

// What a canonical marker keeps: its target, configuration and provenance,
// and its control edges (a list of instructions).
bool IsKeptAttribute(const hopt::HloAttribute& attribute) {
  absl::string_view name = attribute.name;
  return attribute.kind == hopt::HloAttribute::Kind::kInstructionList ||
         name == "custom_call_target" || name == "frontend_attributes" || name == "metadata" ||
         name == "backend_config";
}

// Rewritten in place rather than rebuilt: the marker keeps its slot in the
// list, its control edges and its kept attributes without a copy, a relay
// or a removal, each a cache miss in a module of millions of instructions.
absl::Status Canonicalize(HloComputation& computation, const MarkerToFix& to_fix) {
  HloInstruction* marker = to_fix.marker;
  bool returns_operand = to_fix.result == markers::MarkerResult::kOperand;
  std::vector<HloInstruction*> operands(marker->operands().begin(), marker->operands().end());
  HOPT_ASSIGN_OR_RETURN(auto tuple, hopt::MakeTuple(&computation, operands));
  tuple->CopyTextAttributeFrom(*marker, "metadata");
  std::vector<absl::string_view> dropped;
  for (const hopt::HloAttribute& attribute : marker->attributes())
    if (!IsKeptAttribute(attribute)) dropped.push_back(attribute.name);
  for (absl::string_view name : dropped) marker->RemoveAttribute(name);
  marker->DropAllOperands();
  marker->AppendOperand(tuple);
  marker->set_shape(tuple->shape());
  if (returns_operand) {
    // The element's own edge to the marker stays; every other reader moves.
    HOPT_ASSIGN_OR_RETURN(auto element, hopt::MakeGetTupleElement(marker, 0));
    element->CopyTextAttributeFrom(*marker, "metadata");
    HOPT_RETURN_IF_ERROR(marker->ReplaceAllUsesWithDifferentShape(element));
  }
  HOPT_DEBUG(kCanonicalizePassName, dbgs << hopt::AsRef(marker->name()) << ": " << operands.size()
                                         << " operand(s) -> tuple\n");
  return absl::OkStatus();
}

// The markers not yet in canonical form (one tuple-shaped operand), in list
// order: each rewrite reads its marker's operands as they are then, so the
// order does not matter, and a post order of a big computation costs
// several times the rewrite.
std::vector<MarkerToFix> MarkersToFix(const HloComputation& computation) {
  std::vector<MarkerToFix> to_fix;
  hopt::ForEachFetchingAttributesAhead(
      computation.InstructionsWithOpcode({hopt::HloOpcode::kCustomCall}),
      [&](HloInstruction* instruction) {
        if (!markers::IsMarker(*instruction)) return;
        markers::MarkerResult result = markers::ClassifyMarkerResult(*instruction);
        bool canonical =
            result == markers::MarkerResult::kOperand && instruction->operand(0)->shape().IsTuple();
        if (!canonical) to_fix.push_back({instruction, result});
      });
  return to_fix;
}

absl::Status CanonicalizeIn(HloComputation& computation, const std::vector<MarkerToFix>& to_fix) {
  for (const MarkerToFix& marker : to_fix) {
    HOPT_RETURN_IF_ERROR(Canonicalize(computation, marker));
  }
  if (computation.parent()->is_scheduled()) hopt::RestoreDefBeforeUseOrder(computation);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> CanonicalizeBoundaryMarker::Run(hopt::HloModule& module) {
  std::vector<HloComputation*> computations;
  if (everywhere_)
    computations = module.computations();
  else if (module.entry_computation() != nullptr)
    computations.push_back(module.entry_computation());
  // All checks before the first change: a failed pass leaves the module as
  // it was.
  std::vector<std::pair<HloComputation*, std::vector<MarkerToFix>>> work;
  for (HloComputation* computation : computations) {
    std::vector<MarkerToFix> to_fix = MarkersToFix(*computation);
    if (to_fix.empty()) continue;
    for (const MarkerToFix& marker : to_fix) {
      HOPT_RETURN_IF_ERROR(CheckIdentityShape(marker));
    }
    work.emplace_back(computation, std::move(to_fix));
  }
  for (auto& [computation, to_fix] : work) {
    HOPT_RETURN_IF_ERROR(CanonicalizeIn(*computation, to_fix));
  }
  return !work.empty();
}

}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0
// neuron_add_boundary_marker: brackets every while body so that later
// tools can cut the program at loop iterations. For every while loop of
// every computation, nested bodies included, the body's root r becomes
//   %start = S custom-call(r), custom_call_target="NeuronBoundaryMarker-Start",
//            api_version=API_VERSION_STATUS_RETURNING, backend_config="boundaryCount=N"
//   ROOT %end = S custom-call(%start), custom_call_target="NeuronBoundaryMarker-End",
//            api_version=API_VERSION_STATUS_RETURNING, backend_config="boundaryCount=N"
// with S = r's shape; r's former users read %start. Markers compute the
// identity, so the loop computes what it did. N counts loop bodies in
// module order, starting above every boundaryCount already in the module
// (it is the key that pairs a Start with its End); a body already marked is
// left alone, so the pass is idempotent (docs/plugins/markers.md).

#include "markers/add_boundary_marker.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
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

constexpr absl::string_view kAddPassName = "neuron_add_boundary_marker";
constexpr absl::string_view kEmitApiVersion = "API_VERSION_STATUS_RETURNING";

HloComputation* WhileBody(const HloInstruction& instruction) {
  const hopt::HloAttribute* body = instruction.FindAttribute("body");
  if (body == nullptr || body->computations.empty()) return nullptr;
  return body->computations[0];
}

bool AlreadyMarked(const HloComputation& body) {
  const HloInstruction* root = body.root_instruction();
  auto end = markers::ClassifyMarker(*root);
  if (!end || end->family != markers::MarkerFamily::kLoop ||
      end->edge != markers::MarkerEdge::kEnd || root->operand_count() != 1)
    return false;
  auto start = markers::ClassifyMarker(*root->operand(0));
  return start && start->family == markers::MarkerFamily::kLoop &&
         start->edge == markers::MarkerEdge::kStart;
}

absl::Status MarkBody(HloComputation& body, int64_t count) {
  HloInstruction* root = body.root_instruction();
  std::string config = markers::FormatBoundaryCount(count);
  HOPT_ASSIGN_OR_RETURN(
      auto start, hopt::MakeCustomCall(&body, {root}, root->shape(), markers::kLoopStart, config,
                                       kEmitApiVersion));
  // Also makes %start the root; its own use of the old root stays.
  HOPT_RETURN_IF_ERROR(root->ReplaceAllUsesWith(start));
  HOPT_ASSIGN_OR_RETURN(auto end, hopt::MakeCustomCall(&body, {start}, root->shape(),
                                                       markers::kLoopEnd, config, kEmitApiVersion));
  HOPT_RETURN_IF_ERROR(body.set_root_instruction(end));
  if (body.parent()->is_scheduled()) hopt::RestoreDefBeforeUseOrder(body);
  HOPT_DEBUG(kAddPassName, dbgs << "while body " << hopt::AsRef(body.name()) << ": "
                                << hopt::AsRef(config) << "\n");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> AddBoundaryMarker::Run(hopt::HloModule& module) {
  // Bodies first, marking after: marking adds instructions to the lists the
  // walk would still be reading.
  std::vector<HloComputation*> bodies;
  absl::flat_hash_set<const HloComputation*> seen;
  int64_t next_count = 0;
  // The marker whose key leaves no room above it, when there is one.
  std::optional<std::string> exhausted_by;
  for (HloComputation* computation : module.computations()) {
    hopt::ForEachFetchingAttributesAhead(
        computation->InstructionsWithOpcode(
            {hopt::HloOpcode::kCustomCall, hopt::HloOpcode::kWhile}),
        [&](HloInstruction* instruction) {
          if (instruction->opcode() == hopt::HloOpcode::kCustomCall) {
            if (!markers::IsMarker(*instruction) || !instruction->HasAttribute("backend_config"))
              return;
            auto count = markers::ParseBoundaryCount(instruction->backend_config());
            if (absl::IsOutOfRange(count.status()) ||
                (count.ok() && *count == std::numeric_limits<int64_t>::max())) {
              if (!exhausted_by) exhausted_by = absl::StrCat("marker ", instruction->name());
            } else if (count.ok()) {
              next_count = std::max(next_count, *count + 1);
            }
            return;
          }
          HloComputation* body = WhileBody(*instruction);
          if (body != nullptr && seen.insert(body).second) bodies.push_back(body);
        });
  }
  std::vector<HloComputation*> unmarked;
  for (HloComputation* body : bodies) {
    if (AlreadyMarked(*body)) {
      HOPT_DEBUG(kAddPassName,
                 dbgs << "while body " << hopt::AsRef(body->name()) << ": already marked\n");
      continue;
    }
    unmarked.push_back(body);
  }
  // Refused before any body changes, so a failed run leaves the module as
  // it was.
  if (!unmarked.empty() && exhausted_by)
    return absl::OutOfRangeError(absl::StrCat(
        "while body ", unmarked.front()->name(), " needs a new boundaryCount, but ", *exhausted_by,
        " holds one that cannot be incremented (above ", std::numeric_limits<int64_t>::max() - 1,
        "); new counts must stay above every existing one"));
  if (unmarked.size() > 1 &&
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - next_count) < unmarked.size() - 1)
    return absl::OutOfRangeError(
        absl::StrCat(unmarked.size(), " while bodies need new boundaryCounts from ", next_count,
                     " up, past ", std::numeric_limits<int64_t>::max()));
  for (HloComputation* body : unmarked) {
    HOPT_RETURN_IF_ERROR(MarkBody(*body, next_count));
    if (next_count < std::numeric_limits<int64_t>::max()) ++next_count;
  }
  return !unmarked.empty();
}

}  // namespace neuron

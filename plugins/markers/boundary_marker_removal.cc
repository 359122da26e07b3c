// SPDX-License-Identifier: Apache-2.0
// boundary-marker-removal: every marker of the walked computations goes, and
// whatever read it reads the value it wrapped:
//   Mode A, a marker over one operand that is not a tuple: its users (and
//     the root, if it is the root) read the operand.
//   Mode B, a marker over a tuple (as canonicalize-boundary-marker leaves
//     it, or N operands with a tuple result): each get-tuple-element(marker),
//     index=i is replaced by the tuple's operand i and goes; the marker
//     goes, and so does the tuple when nothing else reads it.
// A mode-B marker read by anything but get-tuple-element or another marker
// fails the pass with NCC_ITUP001 before anything changes. Control edges
// through a removed instruction are kept as edges that skip it: its control
// successors come after its control predecessors and the values it
// forwarded, its users after its control predecessors. A tuple that goes
// with its markers hands its control predecessors to them first.
//
// The entry computation only, as in the reference compiler; every
// computation with everywhere=true. docs/plugins/markers.md has the details
// and where this departs from the reference.

#include "markers/boundary_marker_removal.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/list_order.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"
#include "markers/marker_utils.h"

namespace neuron {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;

constexpr absl::string_view kRemovalPassName = "boundary-marker-removal";

// A set of instructions of one computation: bits by unique id when the
// computation holds a good share of the module's ids (the entry of a big
// module: a test is one cache-friendly bit), a hash set otherwise (many small
// loop bodies of a big module: memory follows the computation, not the
// module's largest id). Both are keyed by unique id, never by address: the
// pass removes instructions as it goes, and a later instruction may be
// built where a removed one was.
class InstructionSet {
 public:
  explicit InstructionSet(bool dense = false) : dense_(dense) {}
  bool dense() const { return dense_; }
  bool insert(const HloInstruction* instruction) {
    return dense_ ? bits_.insert(instruction)
                  : hashed_.insert(static_cast<int32_t>(instruction->unique_id())).second;
  }
  bool contains(const HloInstruction* instruction) const {
    return dense_ ? bits_.contains(instruction)
                  : hashed_.contains(static_cast<int32_t>(instruction->unique_id()));
  }

 private:
  bool dense_;
  hopt::DenseInstructionSet bits_;
  absl::flat_hash_set<int32_t> hashed_;
};

// The plan for one computation, made without changing anything, so that an
// error leaves the module as it was. The markers are found in list order,
// then classified each after the markers it reads (directly, through
// get-tuple-element, or through the tuple it wraps) by a depth-first walk
// over those edges only: it touches the markers' neighbourhood, not the
// whole computation, and each of those instructions about once. In a
// million-instruction module nearly every such touch is a cache miss, and a
// post order of the whole computation costs several times the removal.
class Plan {
 public:
  struct Info {
    // For a marker over one non-tuple value and for a get-tuple-element of
    // a tuple marker: the value it stands for once the markers are gone. For
    // a tuple marker: itself.
    const HloInstruction* source;
    bool marker;
    bool tuple;        // a marker: mode B
    bool of_operands;  // a marker: returns the tuple of its operands
  };

  explicit Plan(const HloComputation& computation) {
    std::vector<HloInstruction*> found;
    int64_t max_id = 0;  // of the markers, which span the computation
    hopt::ForEachFetchingAttributesAhead(
        computation.InstructionsWithOpcode({HloOpcode::kCustomCall}),
        [&](HloInstruction* instruction) {
          if (!markers::IsMarker(*instruction)) return;
          found.push_back(instruction);
          max_id = std::max<int64_t>(max_id, instruction->unique_id());
        });
    if (found.empty()) return;
    dense_ = max_id < 16 * computation.instruction_count() + 4096;
    is_marker_ = InstructionSet(dense_);
    for (HloInstruction* marker : found) is_marker_.insert(marker);
    markers_.reserve(found.size());
    infos_.reserve(found.size());
    auto marker_read = [&](const HloInstruction* i) {
      return is_marker_.contains(i) ||
             (i->opcode() == HloOpcode::kGetTupleElement && is_marker_.contains(i->operand(0)));
    };
    InstructionSet seen(dense_);
    std::vector<std::pair<HloInstruction*, bool>> stack;
    for (HloInstruction* start : found) {
      if (!seen.insert(start)) continue;
      stack.emplace_back(start, false);
      while (!stack.empty()) {
        auto [current, expanded] = stack.back();
        stack.pop_back();
        if (expanded) {
          if (is_marker_.contains(current)) Classify(current);
          if (!status_.ok()) return;
          continue;
        }
        stack.emplace_back(current, true);
        bool is_marker = is_marker_.contains(current);
        const auto& operands = current->operands();
        for (auto it = operands.rbegin(); it != operands.rend(); ++it) {
          HloInstruction* operand = *it;
          bool follow =
              marker_read(operand) || (is_marker && operand->opcode() == HloOpcode::kTuple);
          if (follow && seen.insert(operand)) stack.emplace_back(operand, false);
        }
      }
    }
  }

  // Every reason the removal cannot be done.
  const absl::Status& status() const { return status_; }
  // Each after the markers it reads.
  const std::vector<HloInstruction*>& markers() const { return markers_; }
  // Entry k is markers()[k]'s.
  const std::vector<Info>& infos() const { return infos_; }
  // Whether sets over this computation's instructions should be dense.
  bool dense() const { return dense_; }
  bool IsMarker(const HloInstruction* instruction) const {
    return is_marker_.contains(instruction);
  }

 private:
  bool IsTupleMarker(const HloInstruction* instruction) const {
    Info info;
    return Find(instruction, &info) && info.marker && info.tuple;
  }
  // A marker that returns the tuple of its operands (not canonicalized).
  bool ReturnsTupleOfOperands(const HloInstruction* instruction) const {
    Info info;
    return Find(instruction, &info) && info.of_operands;
  }

  // The entry of a classified marker whose operand is no marker and no
  // get-tuple-element of one (nearly every marker): it follows from the
  // marker and its operand alone, so it is not stored. In a big module a
  // table of every marker's entry is a cache miss per lookup.
  bool Local(const HloInstruction& marker, Info* info) const {
    return Local(marker, markers::ClassifyMarkerResult(marker), info);
  }
  // The same, with the marker's result form already known.
  bool Local(const HloInstruction& marker, markers::MarkerResult result, Info* info) const {
    if (result == markers::MarkerResult::kTupleOfOperands) {
      *info = {&marker, true, true, true};
      return true;
    }
    if (result != markers::MarkerResult::kOperand) return false;
    const HloInstruction* operand = marker.operand(0);
    if (is_marker_.contains(operand) || (operand->opcode() == HloOpcode::kGetTupleElement &&
                                         is_marker_.contains(operand->operand(0))))
      return false;
    bool tuple = operand->opcode() == HloOpcode::kTuple;
    *info = {tuple ? &marker : operand, true, tuple, false};
    return true;
  }
  // Only markers and get-tuple-elements have entries.
  bool Find(const HloInstruction* instruction, Info* info) const {
    if (is_marker_.contains(instruction)) {
      if (Local(*instruction, info)) return true;
    } else if (instruction->opcode() != HloOpcode::kGetTupleElement) {
      return false;
    }
    if (info_.empty()) return false;
    auto it = info_.find(static_cast<int32_t>(instruction->unique_id()));
    if (it == info_.end()) return false;
    *info = it->second;
    return true;
  }
  // What `instruction` stands for once the markers are gone: itself, unless
  // it is a classified marker or a get-tuple-element of a tuple marker
  // (followed down, iteratively, and remembered: chains can be long). A
  // verified module has no get-tuple-element index out of range.
  const HloInstruction* Source(const HloInstruction* instruction) {
    std::vector<const HloInstruction*> path;
    const HloInstruction* at = instruction;
    while (true) {
      Info info;
      if (Find(at, &info)) {
        at = info.source;
        break;
      }
      if (at->opcode() != HloOpcode::kGetTupleElement || !IsTupleMarker(at->operand(0))) break;
      const HloInstruction* element = Element(at->operand(0), at->tuple_index());
      if (element == nullptr) break;
      path.push_back(at);
      at = element;
    }
    for (const HloInstruction* step : path)
      info_[static_cast<int32_t>(step->unique_id())] = {at, false, false, false};
    return at;
  }
  bool IsTupleValue(const HloInstruction* source) const {
    return source->opcode() == HloOpcode::kTuple || IsTupleMarker(source);
  }
  // Element `index` of a tuple marker's wrapped tuple (before resolving),
  // or null when there is none. The markers it looks through are
  // classified, so their operands' sources are known.
  const HloInstruction* Element(const HloInstruction* marker, int64_t index) {
    while (true) {
      if (ReturnsTupleOfOperands(marker))
        return index >= 0 && index < marker->operand_count() ? marker->operand(index) : nullptr;
      const HloInstruction* source = Source(marker->operand(0));
      if (source->opcode() == HloOpcode::kTuple)
        return index >= 0 && index < source->operand_count() ? source->operand(index) : nullptr;
      if (!IsTupleMarker(source)) return nullptr;
      marker = source;
    }
  }

  // Called once the markers `marker` reads are classified.
  void Classify(HloInstruction* marker) {
    markers_.push_back(marker);
    markers::MarkerResult result = markers::ClassifyMarkerResult(*marker);
    if (result == markers::MarkerResult::kMalformed) {
      std::vector<hopt::Shape> operands;
      for (const HloInstruction* operand : marker->operands()) operands.push_back(operand->shape());
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "boundary marker '", marker->name(), "' has shape ", marker->shape().ToString(false),
          ": a marker returns its operand or the tuple of its operands ",
          hopt::Shape::MakeTuple(std::move(operands)).ToString(false)));
      return;
    }
    Info info;
    if (!Local(*marker, result, &info)) {
      bool of_operands = result == markers::MarkerResult::kTupleOfOperands;
      const HloInstruction* source = of_operands ? marker : Source(marker->operand(0));
      bool tuple = of_operands || IsTupleValue(source);
      info = {tuple ? marker : source, true, tuple, of_operands};
      info_[static_cast<int32_t>(marker->unique_id())] = info;
    }
    infos_.push_back(info);
    if (!info.tuple) return;
    const HloInstruction* offender = nullptr;
    int64_t offenders = 0;
    for (const HloInstruction* user : marker->users())
      if (user->opcode() != HloOpcode::kGetTupleElement && !IsMarker(user) && offenders++ == 0)
        offender = user;
    if (offender != nullptr)
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "NCC_ITUP001: boundary marker '", marker->name(), "' used by non-GTE instruction '",
          offender->name(), "' (", offender->OpcodeSpelling(), ")",
          offenders > 1 ? absl::StrCat(" and ", offenders - 1, " other(s)") : "",
          ". Use GetTupleElement to access tuple components in boundary markers"));
  }

  absl::Status status_;
  bool dense_ = false;
  InstructionSet is_marker_;
  std::vector<HloInstruction*> markers_;
  std::vector<Info> infos_;
  // The entries that are not Local, by unique id as InstructionSet.
  absl::flat_hash_map<int32_t, Info> info_;
};

// Keeps the control edges through instructions that are removed (see the
// comment at the top of this file). Built on first need: most modules have no control edge
// near a marker.
class ControlBypass {
 public:
  ControlBypass(HloComputation& computation, const InstructionSet& doomed)
      : computation_(computation), doomed_(doomed) {}

  // The control predecessors of a tuple that only markers read become the
  // markers' own: the tuple goes with them, and an edge left on it would
  // keep it alive, dead, while its readers lost the order it gave them.
  // Call before the first of those markers is bypassed.
  void MoveTupleEdgesToMarkers(HloInstruction* tuple, const Plan& plan) {
    if (!tuple->has_control_predecessors()) return;
    const auto& users = tuple->users();
    if (tuple->IsRoot() || users.empty() ||
        !std::all_of(users.begin(), users.end(),
                     [&](const HloInstruction* user) { return plan.IsMarker(user); }))
      return;
    if (!built_) Build();
    std::vector<HloInstruction*> predecessors = tuple->control_predecessors();
    for (HloInstruction* marker : std::vector<HloInstruction*>(users.begin(), users.end()))
      AddPredecessors(marker, predecessors);
    tuple->set_control_predecessors({});
    for (HloInstruction* p : predecessors) {
      std::vector<HloInstruction*>& list = successors_[p];
      list.erase(std::remove(list.begin(), list.end(), tuple), list.end());
    }
  }

  // Call before `removed`'s users are rewired; `forwarded` are the values
  // that replace it.
  void Bypass(HloInstruction* removed, absl::Span<HloInstruction* const> forwarded) {
    if (!removed->has_control_edges()) return;
    if (!built_) Build();
    std::vector<HloInstruction*> predecessors;
    for (HloInstruction* p : removed->control_predecessors())
      if (!doomed_.contains(p)) predecessors.push_back(p);
    auto it = successors_.find(removed);
    if (it != successors_.end()) {
      std::vector<HloInstruction*> before = predecessors;
      before.insert(before.end(), forwarded.begin(), forwarded.end());
      for (HloInstruction* successor : std::vector<HloInstruction*>(it->second))
        if (!doomed_.contains(successor)) AddPredecessors(successor, before);
    }
    if (predecessors.empty()) return;
    for (HloInstruction* user :
         std::vector<HloInstruction*>(removed->users().begin(), removed->users().end()))
      AddPredecessors(user, predecessors);
  }

 private:
  void Build() {
    built_ = true;
    for (HloInstruction* instruction : computation_.InstructionsWithControlPredecessors())
      if (instruction->has_control_predecessors())
        for (HloInstruction* p : instruction->control_predecessors())
          successors_[p].push_back(instruction);
  }
  void AddPredecessors(HloInstruction* to, absl::Span<HloInstruction* const> more) {
    std::vector<HloInstruction*> list = to->control_predecessors();
    bool added = false;
    for (HloInstruction* p : more) {
      if (p == to || std::find(list.begin(), list.end(), p) != list.end()) continue;
      list.push_back(p);
      successors_[p].push_back(to);
      added = true;
    }
    if (added) to->set_control_predecessors(std::move(list));
  }

  HloComputation& computation_;
  const InstructionSet& doomed_;
  bool built_ = false;
  absl::flat_hash_map<HloInstruction*, std::vector<HloInstruction*>> successors_;
};

absl::Status Internal(const HloInstruction& marker, absl::string_view what) {
  return absl::InternalError(
      absl::StrCat("boundary-marker-removal: marker '", marker.name(), "': ", what));
}

// Rewires one marker's readers; the removal itself comes after the walk.
// Markers are visited after the markers they read, so whatever this marker
// wraps has already been rewired to its final value.
absl::Status RemoveMarker(HloComputation& computation, const Plan& plan, HloInstruction* marker,
                          const Plan::Info& info, InstructionSet& doomed, ControlBypass& bypass,
                          std::vector<HloInstruction*>& dead,
                          std::vector<HloInstruction*>& tuples) {
  if (!info.tuple) {
    HloInstruction* value = marker->mutable_operand(0);
    doomed.insert(marker);
    bypass.Bypass(marker, {value});
    HOPT_RETURN_IF_ERROR(marker->ReplaceAllUsesWith(value));
    dead.push_back(marker);
    return absl::OkStatus();
  }
  HloInstruction* tuple = nullptr;  // what a reader of the whole tuple gets
  absl::InlinedVector<HloInstruction*, 4> elements;
  if (!info.of_operands) {
    tuple = marker->mutable_operand(0);
    if (tuple->opcode() != HloOpcode::kTuple) return Internal(*marker, "the operand is no tuple");
    elements.assign(tuple->operands().begin(), tuple->operands().end());
    tuples.push_back(tuple);
    bypass.MoveTupleEdgesToMarkers(tuple, plan);
  } else {
    elements.assign(marker->operands().begin(), marker->operands().end());
  }
  auto whole = [&]() -> absl::StatusOr<HloInstruction*> {
    if (tuple == nullptr) {
      HOPT_ASSIGN_OR_RETURN(tuple, hopt::MakeTuple(&computation, elements));
    }
    return tuple;
  };
  doomed.insert(marker);
  bypass.Bypass(marker, elements);
  hopt::InstructionVector users = marker->users();
  for (HloInstruction* user : users) {
    if (user->opcode() == HloOpcode::kGetTupleElement) {
      int64_t index = user->tuple_index();
      if (index < 0 || index >= static_cast<int64_t>(elements.size()))
        return Internal(*marker, "get-tuple-element index out of range");
      doomed.insert(user);
      bypass.Bypass(user, {elements[index]});
      HOPT_RETURN_IF_ERROR(user->ReplaceAllUsesWith(elements[index]));
      dead.push_back(user);
    } else if (plan.IsMarker(user)) {
      HOPT_ASSIGN_OR_RETURN(auto value, whole());
      HOPT_RETURN_IF_ERROR(marker->ReplaceUseWith(user, value));
    } else {
      return Internal(*marker, "a non-GTE reader passed the check");
    }
  }
  if (marker->IsRoot()) {
    HOPT_ASSIGN_OR_RETURN(auto value, whole());
    HOPT_RETURN_IF_ERROR(computation.set_root_instruction(value));
  }
  dead.push_back(marker);
  return absl::OkStatus();
}

// Whether `instruction` can be removed on its own now: nothing reads it and
// no control edge names it (those go through ControlBypass and the batch
// removal at the end, which drops such edges in one walk).
bool RemovableNow(const HloInstruction& instruction) {
  return instruction.user_count() == 0 && !instruction.IsRoot() && !instruction.has_control_edges();
}

absl::StatusOr<bool> RemoveIn(HloComputation& computation, const Plan& plan) {
  if (plan.markers().empty()) return false;
  InstructionSet doomed(plan.dense());
  ControlBypass bypass(computation, doomed);
  // Each marker's get-tuple-elements, the marker and (when only that marker
  // read it) its tuple are removed as soon as the marker is rewired, while
  // they and the operands whose user lists change are still in cache: in a
  // module of millions of instructions a later batch would miss on every
  // one of them again. What cannot go yet waits, in removal order (users
  // first), for the batch at the end.
  std::vector<HloInstruction*> dead, tuples, deferred;
  InstructionSet shared_tuples(plan.dense());  // read by several markers
  // Sized up front: growing a vector is a large allocation, and glibc
  // answers each one by sweeping every small block freed since the last.
  tuples.reserve(plan.markers().size());
  dead.reserve(16);
  for (size_t m = 0; m < plan.markers().size(); ++m) {
    HloInstruction* marker = plan.markers()[m];
    size_t first_tuple = tuples.size();
    HOPT_RETURN_IF_ERROR(
        RemoveMarker(computation, plan, marker, plan.infos()[m], doomed, bypass, dead, tuples));
    HOPT_DEBUG(kRemovalPassName, dbgs << "removed " << hopt::AsRef(marker->name()) << "\n");
    for (HloInstruction* instruction : dead) {
      if (!RemovableNow(*instruction)) {
        deferred.push_back(instruction);
        continue;
      }
      HOPT_RETURN_IF_ERROR(computation.RemoveInstruction(instruction));
    }
    dead.clear();
    for (size_t k = first_tuple; k < tuples.size(); ++k) {
      HloInstruction* tuple = tuples[k];
      if (shared_tuples.contains(tuple) || !RemovableNow(*tuple)) {
        shared_tuples.insert(tuple);
        continue;
      }
      HOPT_RETURN_IF_ERROR(computation.RemoveInstruction(tuple));
      tuples[k] = nullptr;
    }
  }
  // A tuple read by several markers goes when only removed markers read it.
  for (HloInstruction* tuple : tuples) {
    if (tuple == nullptr || tuple->IsRoot() || tuple->has_control_edges() || doomed.contains(tuple))
      continue;
    const auto& users = tuple->users();
    if (std::all_of(users.begin(), users.end(),
                    [&](const HloInstruction* user) { return doomed.contains(user); })) {
      doomed.insert(tuple);
      deferred.push_back(tuple);
    }
  }
  HOPT_RETURN_IF_ERROR(computation.RemoveInstructions(deferred));
  if (computation.parent()->is_scheduled()) hopt::RestoreDefBeforeUseOrder(computation);
  return true;
}

}  // namespace

absl::StatusOr<bool> BoundaryMarkerRemoval::Run(hopt::HloModule& module) {
  std::vector<HloComputation*> computations;
  if (everywhere_)
    computations = module.computations();
  else if (module.entry_computation() != nullptr)
    computations.push_back(module.entry_computation());
  // Every computation is checked before any changes.
  std::vector<Plan> plans;
  plans.reserve(computations.size());
  for (HloComputation* computation : computations) {
    plans.emplace_back(*computation);
    if (!plans.back().status().ok()) return plans.back().status();
  }
  bool changed = false;
  for (size_t i = 0; i < computations.size(); ++i) {
    HOPT_ASSIGN_OR_RETURN(auto changed_here, RemoveIn(*computations[i], plans[i]));
    changed |= changed_here;
  }
  return changed;
}

}  // namespace neuron

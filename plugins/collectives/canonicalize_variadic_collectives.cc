// SPDX-License-Identifier: Apache-2.0
// canonicalize-variadic-collectives
//
// convert-collectives-to-custom-call names a launch by its element type and
// has no name but _UNKNOWNDTYPE for a tuple result. PyTorch/XLA programs
// have two kinds of those: all-gather / reduce-scatter that carry a scalar
// ordering operand beside the real one, and one all-reduce over every
// gradient (XLA's all-reduce combiner). This pass turns each into
// collectives of one array, keeping launches few: an all-reduce combines
// per element type into one contiguous buffer, the way XLA's
// AllReduceContiguous does for a single type. all-gather and reduce-scatter
// split per operand, since concatenating would interleave the operands'
// pieces along the gathered or scattered dimension.
//
// The new collectives keep the replica groups (as written), the flags,
// metadata, frontend attributes and backend_config; each gets a fresh
// channel id where the original had one, and the original's control edges.
// A computation's matches are collected before any is rewritten, so the
// scan never sees a rewrite; its control edges are then moved in one walk.
// docs/plugins/collectives.md has what is matched, emitted and left alone.

#include "collectives/canonicalize_variadic_collectives.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/extract.h"
#include "hopt/ir/module.h"
#include "hopt/ir/opcode.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloAttribute;
using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;
using hopt::PrimitiveType;
using hopt::Shape;

constexpr absl::string_view kPassName = "canonicalize-variadic-collectives";

class Rewriter {
 public:
  explicit Rewriter(hopt::HloModule& module) : module_(module) {}

  // Whether the pass takes `i` on: a tuple-shaped collective whose operands
  // are arrays, all-reduce with a scalar-to-scalar reduction.
  static bool Matches(const HloInstruction& i) {
    if (!i.shape().IsTuple() || i.operand_count() != i.shape().tuple_shapes_size()) return false;
    // A tuple sharding describes the tuple, not its pieces.
    if (i.HasAttribute("sharding")) return false;
    for (const HloInstruction* operand : i.operands())
      if (!operand->shape().IsArray()) return false;
    if (i.opcode() == HloOpcode::kAllGather) return i.dimensions().size() == 1;
    const HloComputation* reduction = i.to_apply();
    if (reduction == nullptr || reduction->root_instruction() == nullptr ||
        !reduction->root_instruction()->shape().IsScalar())
      return false;
    if (i.opcode() != HloOpcode::kAllReduce) return i.dimensions().size() == 1;
    PrimitiveType type = reduction->root_instruction()->shape().element_type();
    for (const Shape& element : i.shape().tuple_shapes())
      if (element.element_type() != type && !Retypable(*reduction)) return false;
    return true;
  }

  // Whether changing a reduction's scalar type keeps it well-formed: only
  // parameters and elementwise operations (a constant's text, 0.5 say, need
  // not fit another type; a call's callee would keep its own).
  static bool Retypable(const HloComputation& reduction) {
    for (const HloInstruction* i : reduction.instructions()) {
      HloOpcode op = i->opcode();
      if (op != HloOpcode::kParameter && op != HloOpcode::kCompare && op != HloOpcode::kSelect &&
          !hopt::IsElementwiseUnary(op) && !hopt::IsElementwiseBinary(op))
        return false;
    }
    return true;
  }

  // Replaces `collective` by array collectives; returns how many it made.
  absl::StatusOr<int64_t> Rewrite(HloInstruction* collective) {
    made_.clear();
    // Every piece (reshapes, concatenates, slices, the tuple) stands for it.
    hopt::MetadataFrom metadata(*collective);
    std::vector<HloInstruction*> elements;
    if (collective->opcode() == HloOpcode::kAllReduce) {
      HOPT_ASSIGN_OR_RETURN(elements, RewriteAllReduce(collective));
    } else {
      HOPT_ASSIGN_OR_RETURN(elements, RewriteGatherOrScatter(collective));
    }
    HOPT_RETURN_IF_ERROR(ReplaceUses(collective, elements));
    return static_cast<int64_t>(made_.size());
  }

 private:
  // A collective like `original` over `operands` with `shape`: its
  // attributes except those in `skip`, a fresh channel id where it had one.
  HloInstruction* AddCollective(HloInstruction* original, HloOpcode opcode, const Shape& shape,
                                absl::Span<HloInstruction* const> operands,
                                absl::string_view suffix,
                                std::initializer_list<absl::string_view> skip = {}) {
    HloInstruction* made = original->parent()->AddInstruction(
        opcode, shape, operands, absl::StrCat(original->name(), ".", suffix));
    for (const HloAttribute& attr : original->attributes()) {
      if (attr.kind == HloAttribute::Kind::kInstructionList || attr.name == "channel_id" ||
          std::find(skip.begin(), skip.end(), attr.name) != skip.end())
        continue;
      if (attr.kind == HloAttribute::Kind::kText) {
        made->SetAttributeText(attr.name, attr.value);
      } else {
        made->AddAttribute(attr);
      }
    }
    if (original->channel_id().has_value()) {
      // One scan of the module, on the first need.
      if (!next_channel_id_.has_value()) next_channel_id_ = NextFreeChannelId(module_);
      made->set_channel_id((*next_channel_id_)++);
    }
    made_.push_back(made);
    return made;
  }

  // `reduction` with its scalar type changed from its root's type to
  // `type`, copied once per (reduction, type).
  absl::StatusOr<HloComputation*> Retyped(HloComputation* reduction, PrimitiveType type) {
    PrimitiveType from = reduction->root_instruction()->shape().element_type();
    if (from == type) return reduction;
    auto key = std::make_pair(reduction, type);
    if (auto it = retyped_.find(key); it != retyped_.end()) return it->second;
    hopt::InstructionCopier copier(module_);
    HOPT_ASSIGN_OR_RETURN(HloComputation * copy, copier.CopyComputation(*reduction));
    for (HloInstruction* i : copy->instructions())
      if (i->shape().IsScalar() && i->shape().element_type() == from)
        i->set_shape(Shape::MakeScalar(type));
    retyped_[key] = copy;
    return copy;
  }

  // Per element type, in order of first appearance: the operands flattened
  // into one buffer, one all-reduce, then each operand's slice reshaped back.
  absl::StatusOr<std::vector<HloInstruction*>> RewriteAllReduce(HloInstruction* all_reduce) {
    const Shape& tuple = all_reduce->shape();
    std::vector<PrimitiveType> types;
    for (const Shape& element : tuple.tuple_shapes())
      if (std::find(types.begin(), types.end(), element.element_type()) == types.end())
        types.push_back(element.element_type());
    std::vector<HloInstruction*> elements(tuple.tuple_shapes_size(), nullptr);
    HloComputation* computation = all_reduce->parent();
    for (PrimitiveType type : types) {
      std::vector<int64_t> members;
      for (int64_t k = 0; k < tuple.tuple_shapes_size(); ++k)
        if (tuple.tuple_shapes(k).element_type() == type) members.push_back(k);
      HOPT_ASSIGN_OR_RETURN(HloComputation * reduction, Retyped(all_reduce->to_apply(), type));
      std::string suffix(hopt::PrimitiveTypeString(type));
      if (members.size() == 1) {
        int64_t k = members[0];
        HloInstruction* operand = all_reduce->mutable_operand(k);
        HloInstruction* reduced =
            AddCollective(all_reduce, HloOpcode::kAllReduce, tuple.tuple_shapes(k), {operand},
                          suffix, {"to_apply"});
        reduced->SetComputationAttribute("to_apply", reduction);
        elements[k] = reduced;
        continue;
      }
      std::vector<HloInstruction*> flat;
      std::vector<int64_t> sizes;
      int64_t total = 0;
      for (int64_t k : members) {
        HloInstruction* operand = all_reduce->mutable_operand(k);
        int64_t size = operand->shape().ElementCount();
        if (operand->shape().rank() == 1) {
          flat.push_back(operand);
        } else {
          HOPT_ASSIGN_OR_RETURN(HloInstruction * reshaped, hopt::MakeReshape(operand, {size}));
          flat.push_back(reshaped);
        }
        sizes.push_back(size);
        total += size;
      }
      HOPT_ASSIGN_OR_RETURN(HloInstruction * buffer, hopt::MakeConcatenate(flat, 0));
      HloInstruction* reduced = AddCollective(all_reduce, HloOpcode::kAllReduce,
                                              Shape(type, {total}), {buffer}, suffix, {"to_apply"});
      reduced->SetComputationAttribute("to_apply", reduction);
      int64_t offset = 0;
      for (size_t m = 0; m < members.size(); ++m) {
        HOPT_ASSIGN_OR_RETURN(HloInstruction * slice,
                              hopt::MakeSlice(reduced, {offset}, {offset + sizes[m]}, {1}));
        offset += sizes[m];
        if (tuple.tuple_shapes(members[m]).rank() == 1) {
          elements[members[m]] = slice;
          continue;
        }
        // The element keeps its exact shape, layout included.
        HloInstruction* operands[] = {slice};
        elements[members[m]] = computation->AddInstruction(
            HloOpcode::kReshape, tuple.tuple_shapes(members[m]), operands);
      }
    }
    return elements;
  }

  // Whether every group of `collective` is one device whatever the mesh:
  // explicit groups of one, in a mode where a group id is one device (with
  // a channel and without flattened ids, a replica id stands for every
  // partition of that replica).
  static bool GroupsOfOne(const HloInstruction& collective) {
    if (hopt::GetGroupMode(collective) == hopt::GroupMode::kCrossReplicaAndPartition) return false;
    std::optional<hopt::ReplicaGroupList> groups = collective.replica_groups();
    if (!groups.has_value() || groups->empty()) return false;
    for (const std::vector<int64_t>& group : groups->ExpandedGroups())
      if (group.size() != 1) return false;
    return true;
  }

  // The number of devices in each group, as the module's shapes say it:
  // the ratio of an array element's gathered dimension, else the module
  // header's mesh.
  int64_t GroupSize(const HloInstruction& all_gather, int64_t dimension) const {
    for (int64_t k = 0; k < all_gather.operand_count(); ++k) {
      const Shape& in = all_gather.operand(k)->shape();
      const Shape& out = all_gather.shape().tuple_shapes(k);
      if (in.rank() > dimension && in.dimensions(dimension) > 0)
        return out.dimensions(dimension) / in.dimensions(dimension);
    }
    return hopt::ParticipantCount(all_gather, module_.replica_count(), module_.num_partitions());
  }

  // One collective per array operand; a scalar follows the rule of
  // docs/formats.md ("Extension: scalar operands of all-gather and
  // reduce-scatter").
  absl::StatusOr<std::vector<HloInstruction*>> RewriteGatherOrScatter(HloInstruction* collective) {
    const Shape& tuple = collective->shape();
    bool gather = collective->opcode() == HloOpcode::kAllGather;
    int64_t dimension = collective->dimensions()[0];
    bool alone = GroupsOfOne(*collective);
    std::vector<HloInstruction*> elements;
    for (int64_t k = 0; k < collective->operand_count(); ++k) {
      HloInstruction* operand = collective->mutable_operand(k);
      std::string suffix = absl::StrCat(k);
      if (operand->shape().rank() > 0) {
        elements.push_back(AddCollective(collective, collective->opcode(), tuple.tuple_shapes(k),
                                         {operand}, suffix));
        continue;
      }
      if (alone) {
        elements.push_back(operand);
        continue;
      }
      if (!gather) {
        elements.push_back(AddCollective(collective, HloOpcode::kAllReduce, operand->shape(),
                                         {operand}, suffix, {"dimensions"}));
        continue;
      }
      // The first member's value: element 0 of the scalar gathered as [1].
      HOPT_ASSIGN_OR_RETURN(HloInstruction * vector, hopt::MakeReshape(operand, {1}));
      HloInstruction* gathered =
          AddCollective(collective, HloOpcode::kAllGather,
                        Shape(operand->shape().element_type(), {GroupSize(*collective, dimension)}),
                        {vector}, suffix, {"dimensions"});
      gathered->set_dimensions({0});
      HOPT_ASSIGN_OR_RETURN(HloInstruction * first, hopt::MakeSlice(gathered, {0}, {1}, {1}));
      HOPT_ASSIGN_OR_RETURN(HloInstruction * scalar, hopt::MakeReshape(first, {}));
      elements.push_back(scalar);
    }
    return elements;
  }

  // get-tuple-element users read their element; anyone else (and the
  // root) gets a tuple of the elements. The control edges and the removals
  // wait for Finish, which does them for all of a computation's rewrites in
  // one walk.
  absl::Status ReplaceUses(HloInstruction* collective,
                           const std::vector<HloInstruction*>& elements) {
    HloComputation* computation = collective->parent();
    std::vector<HloInstruction*> predecessors = collective->control_predecessors();
    for (HloInstruction* made : made_) made->set_control_predecessors(predecessors);
    // Whoever waited for the collective waits for what replaced it, or, when
    // nothing did, for what it waited for, so that no ordering is lost.
    replacement_[collective] = made_.empty() ? predecessors : made_;
    std::vector<HloInstruction*> users(collective->users().begin(), collective->users().end());
    // The get-tuple-elements stay users until Finish removes them: only the
    // others need the tuple.
    bool other_users = false;
    for (HloInstruction* user : users) {
      if (user->opcode() != HloOpcode::kGetTupleElement) {
        other_users = true;
        continue;
      }
      HloInstruction* element = elements[user->tuple_index()];
      if (user->has_control_edges()) relays_.emplace_back(user, element);
      HOPT_RETURN_IF_ERROR(user->ReplaceAllUsesWith(element));
      dead_.push_back(user);
    }
    if (other_users || collective->IsRoot()) {
      // The tuple takes the collective's name and place: a root keeps its
      // name.
      HloInstruction* tuple = computation->AddInstructionInPlaceOf(collective, HloOpcode::kTuple,
                                                                   collective->shape(), elements);
      HOPT_RETURN_IF_ERROR(collective->ReplaceAllUsesWith(tuple));
    }
    originals_.push_back(collective);
    return absl::OkStatus();
  }

  // What `p` stands for in a control-predecessors list once the rewritten
  // collectives are gone (a replacement may name another rewritten one).
  const std::vector<HloInstruction*>& Expand(HloInstruction* p) {
    auto [it, inserted] = expanded_.try_emplace(p);
    if (!inserted) return it->second;
    auto replaced = replacement_.find(p);
    if (replaced == replacement_.end()) {
      it->second = {p};
      return it->second;
    }
    std::vector<HloInstruction*> out;
    for (HloInstruction* q : replaced->second)
      for (HloInstruction* r : Expand(q))
        if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    expanded_[p] = out;
    return expanded_[p];
  }

 public:
  // Moves the control edges of the computation's rewritten collectives and
  // removes them and their get-tuple-elements.
  absl::Status Finish(HloComputation* computation) {
    if (!relays_.empty()) computation->RelayControlDependencies(relays_);
    HOPT_RETURN_IF_ERROR(computation->RemoveInstructions(dead_));
    bool edges = !relays_.empty();
    for (HloInstruction* original : originals_) edges |= original->has_control_edges();
    if (edges) {
      for (HloInstruction* i : computation->InstructionsWithControlPredecessors()) {
        if (replacement_.contains(i)) continue;
        std::vector<HloInstruction*> list = i->control_predecessors();
        if (std::none_of(list.begin(), list.end(),
                         [&](HloInstruction* p) { return replacement_.contains(p); }))
          continue;
        std::vector<HloInstruction*> out;
        for (HloInstruction* p : list)
          for (HloInstruction* r : Expand(p))
            if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
        i->set_control_predecessors(std::move(out));
      }
      for (HloInstruction* original : originals_) original->set_control_predecessors({});
    }
    HOPT_RETURN_IF_ERROR(computation->RemoveInstructions(originals_));
    relays_.clear();
    dead_.clear();
    originals_.clear();
    replacement_.clear();
    expanded_.clear();
    return absl::OkStatus();
  }

 private:
  hopt::HloModule& module_;
  std::optional<int64_t> next_channel_id_;
  std::vector<HloInstruction*> made_;
  // The current computation's rewrites, until Finish.
  std::vector<HloInstruction*> originals_;
  std::vector<HloInstruction*> dead_;
  std::vector<std::pair<HloInstruction*, HloInstruction*>> relays_;
  absl::flat_hash_map<HloInstruction*, std::vector<HloInstruction*>> replacement_;
  absl::flat_hash_map<HloInstruction*, std::vector<HloInstruction*>> expanded_;
  absl::flat_hash_map<std::pair<HloComputation*, PrimitiveType>, HloComputation*> retyped_;
};

}  // namespace

absl::StatusOr<bool> CanonicalizeVariadicCollectives::Run(hopt::HloModule& module) {
  // List order, from the opcode bytes alone: each rewrite touches only its
  // collective and the users, so no dataflow order is needed, and a module
  // of millions of instructions with none to rewrite costs one scan.
  std::vector<HloInstruction*> matches;
  Rewriter rewriter(module);
  int64_t made = 0;
  for (HloComputation* computation : module.computations()) {
    size_t first = matches.size();
    for (HloInstruction* i : computation->InstructionsWithOpcode(
             {HloOpcode::kAllReduce, HloOpcode::kReduceScatter, HloOpcode::kAllGather}))
      if (Rewriter::Matches(*i)) matches.push_back(i);
    if (matches.size() == first) continue;
    for (size_t k = first; k < matches.size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(int64_t count, rewriter.Rewrite(matches[k]));
      HOPT_DEBUG(kPassName,
                 dbgs << hopt::AsRef(matches[k]->name()) << " -> " << count << " collective(s)\n");
      made += count;
    }
    HOPT_RETURN_IF_ERROR(rewriter.Finish(computation));
  }
  if (matches.empty()) return false;
  HOPT_DEBUG(kPassName, dbgs << matches.size() << " variadic collective(s) in, " << made
                             << " collective(s) out\n");
  return true;
}

}  // namespace neuron

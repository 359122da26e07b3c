// SPDX-License-Identifier: Apache-2.0
// fuse-reduce-scatter: N >= 2 reduce-scatters that feed one concatenate
// become one wider reduce-scatter of the concatenated inputs, one launch
// instead of N:
//   1. concatenate(rs(x_1), ..., rs(x_N))  ->  rs(concatenate(x_1, ..., x_N)),
//      each rs(x_k) directly or through get-tuple-element of a tuple (or of
//      an opt-barrier of one);
//   2. the mean idiom, concatenate(divide(rs_k, K), ...) ->
//      divide(rs(...), K), with one uniform constant K.
// Equal bit for bit: the reduction combines the same elements in the same
// group order, and taking a device's part along the scatter dimension s
// commutes with joining along the concatenate's dimension c, as long as
// c != s; with c == s (and wherever else the result could differ) the
// group is left alone.
// docs/plugins/collectives.md lists the patterns and what stays.
//
// The entry computation only; one post-order walk collects the matches and
// the rewrites come after it, so the pass is linear in the size of the
// entry computation. Run returns true iff at least one group was fused.

#include "collectives/fuse_reduce_scatter.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;
using hopt::Literal;
using hopt::PrimitiveType;
using hopt::Shape;

constexpr char kReduceScatterDebugType[] = "fuse-reduce-scatter";

struct Match {
  HloInstruction* concat = nullptr;
  // In concatenate operand order.
  std::vector<HloInstruction*> reduce_scatters;
  // Pattern 2: the divides, in the same order; empty for pattern 1.
  std::vector<HloInstruction*> divides;
  // Pattern 2: the common divisor, as a scalar of the element type (boxed:
  // matches are moved around in bulk, literals are heavy).
  std::unique_ptr<Literal> divisor;
  // Pattern 1: every concatenate operand is its reduce-scatter itself.
  bool direct = false;
};

// The reduce-scatter `value` is, directly or through the tuple plumbing
// the reference compiler's matcher accepts; null otherwise.
HloInstruction* ResolveReduceScatter(HloInstruction* value) {
  if (value->opcode() == HloOpcode::kGetTupleElement) {
    HloInstruction* tuple = value->mutable_operand(0);
    if (tuple->opcode() == HloOpcode::kOptimizationBarrier) tuple = tuple->mutable_operand(0);
    if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
    int64_t index = value->tuple_index();
    if (index < 0 || index >= tuple->operand_count()) return nullptr;
    value = tuple->mutable_operand(index);
  }
  return value->opcode() == HloOpcode::kReduceScatter ? value : nullptr;
}

// `ROOT op(p0, p1)` on scalars of one type, and nothing else: two such
// computations reduce alike.
bool SimpleBinaryReduction(const HloComputation* computation, HloOpcode* op, PrimitiveType* type) {
  if (computation->num_parameters() != 2 || computation->instruction_count() != 3) return false;
  const HloInstruction* root = computation->root_instruction();
  if (!hopt::IsElementwiseBinary(root->opcode()) || root->operand_count() != 2) return false;
  if (root->operand(0) != computation->parameter_instruction(0) ||
      root->operand(1) != computation->parameter_instruction(1))
    return false;
  const Shape& shape = root->shape();
  if (!shape.IsScalar()) return false;
  for (const HloInstruction* p : computation->parameter_instructions())
    if (!p->shape().IsScalar() || p->shape().element_type() != shape.element_type()) return false;
  *op = root->opcode();
  *type = shape.element_type();
  return true;
}

bool SameReduction(const HloComputation* a, const HloComputation* b) {
  if (a == nullptr || b == nullptr) return false;
  if (a == b) return true;
  HloOpcode op_a, op_b;
  PrimitiveType type_a, type_b;
  return SimpleBinaryReduction(a, &op_a, &type_a) && SimpleBinaryReduction(b, &op_b, &type_b) &&
         op_a == op_b && type_a == type_b;
}

hopt::ReplicaGroupList GroupsOf(const HloInstruction* instruction) {
  return instruction->replica_groups().value_or(hopt::ReplicaGroupList());
}

bool SameGroups(const HloInstruction* a, const HloInstruction* b) {
  // Members nearly always spell their groups alike: compare the text before
  // parsing anything.
  std::optional<absl::string_view> ta = a->GetAttributeText("replica_groups");
  std::optional<absl::string_view> tb = b->GetAttributeText("replica_groups");
  if (ta && tb && *ta == *tb) return true;
  hopt::ReplicaGroupList ga = GroupsOf(a), gb = GroupsOf(b);
  if (ga.ToString() == gb.ToString()) return true;
  return ga.ExpandedGroups() == gb.ExpandedGroups();
}

// Everything about `rs` alone that the rewrite needs.
bool FusibleReduceScatter(const HloInstruction* rs) {
  if (rs->operand_count() != 1 || rs->to_apply() == nullptr) return false;
  const Shape& shape = rs->shape();
  const Shape& in = rs->operand(0)->shape();
  if (!shape.IsArray() || !in.IsArray() || !shape.is_static() || !in.is_static()) return false;
  if (in.element_type() != shape.element_type() || in.rank() != shape.rank()) return false;
  std::vector<int64_t> dims = rs->dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= shape.rank()) return false;
  int64_t s = dims[0];
  if (shape.dimensions(s) <= 0 || in.dimensions(s) % shape.dimensions(s) != 0) return false;
  for (int64_t d = 0; d < shape.rank(); ++d)
    if (d != s && in.dimensions(d) != shape.dimensions(d)) return false;
  return true;
}

// `rs` can join a group whose first member is `base`, concatenated on `c`.
bool Compatible(const HloInstruction* base, const HloInstruction* rs, int64_t c) {
  const Shape& bs = base->shape();
  const Shape& rss = rs->shape();
  if (rss.element_type() != bs.element_type() || rss.rank() != bs.rank()) return false;
  for (int64_t d = 0; d < bs.rank(); ++d)
    if (d != c && rss.dimensions(d) != bs.dimensions(d)) return false;
  int64_t s = base->dimensions()[0];
  if (rs->dimensions()[0] != s) return false;
  // Same group size; implied by the same groups, except for empty groups
  // whose size comes from the mesh.
  if (rs->operand(0)->shape().dimensions(s) / rss.dimensions(s) !=
      base->operand(0)->shape().dimensions(s) / bs.dimensions(s))
    return false;
  return rs->channel_id().has_value() == base->channel_id().has_value() &&
         rs->use_global_device_ids() == base->use_global_device_ids() &&
         rs->constrain_layout() == base->constrain_layout() &&
         SameReduction(base->to_apply(), rs->to_apply()) && SameGroups(base, rs);
}

bool SameBits(const Literal& a, int64_t i, const Literal& b, int64_t j) {
  PrimitiveType type = a.shape().element_type();
  if (type != b.shape().element_type()) return false;
  if (hopt::IsFloatingPointType(type) || hopt::IsComplexType(type)) {
    std::complex<double> x = a.GetAsComplex(i), y = b.GetAsComplex(j);
    double parts[4] = {x.real(), x.imag(), y.real(), y.imag()};
    return std::memcmp(&parts[0], &parts[2], 2 * sizeof(double)) == 0;
  }
  return a.GetAsInt64(i) == b.GetAsInt64(j);
}

// The value every element of `divisor` has, as a scalar literal, when it is
// a uniform constant or a broadcast of one.
std::optional<Literal> UniformDivisor(const HloInstruction* divisor) {
  if (divisor->opcode() == HloOpcode::kBroadcast) divisor = divisor->operand(0);
  if (divisor->opcode() != HloOpcode::kConstant || !divisor->shape().IsArray()) return std::nullopt;
  absl::StatusOr<Literal> value = divisor->literal();
  if (!value.ok() || value->is_elided() || value->element_count() == 0) return std::nullopt;
  for (int64_t i = 1; i < value->element_count(); ++i)
    if (!SameBits(*value, 0, *value, i)) return std::nullopt;
  Literal scalar(Shape::MakeScalar(divisor->shape().element_type()));
  scalar.CopyElementFrom(*value, 0, 0);
  return scalar;
}

class Matcher {
 public:
  std::optional<Match> TryMatch(HloInstruction* concat) {
    if (concat->operand_count() < 2 || !concat->shape().IsArray() || concat->has_control_edges())
      return std::nullopt;
    // Dead code: fusing would only trade dead collectives for a dead one.
    if (concat->user_count() == 0 && !concat->IsRoot()) return std::nullopt;
    std::vector<int64_t> dims = concat->dimensions();
    if (dims.size() != 1) return std::nullopt;
    Match match;
    match.concat = concat;
    match.direct = true;
    bool dividend = concat->operand(0)->opcode() == HloOpcode::kDivide;
    for (HloInstruction* operand : concat->operands()) {
      HloInstruction* value = operand;
      if (dividend) {
        if (operand->opcode() != HloOpcode::kDivide || operand->has_control_edges())
          return std::nullopt;
        std::optional<Literal> k = DivisorOf(operand);
        if (!k) return std::nullopt;
        if (!match.divisor) {
          match.divisor = std::make_unique<Literal>(*std::move(k));
        } else if (!SameBits(*match.divisor, 0, *k, 0)) {
          return std::nullopt;
        }
        match.divides.push_back(operand);
        value = operand->mutable_operand(0);
      }
      HloInstruction* rs = ResolveReduceScatter(value);
      if (rs == nullptr || rs->has_control_edges() || !FusibleReduceScatter(rs))
        return std::nullopt;
      match.direct &= rs == value;
      match.reduce_scatters.push_back(rs);
    }
    const HloInstruction* base = match.reduce_scatters[0];
    int64_t c = dims[0];
    if (c < 0 || c >= base->shape().rank() || c == base->dimensions()[0]) return std::nullopt;
    if (concat->shape().element_type() != base->shape().element_type()) return std::nullopt;
    for (const HloInstruction* rs : match.reduce_scatters)
      if (!Compatible(base, rs, c)) return std::nullopt;
    for (HloInstruction* divide : match.divides)
      if (divide->shape().element_type() != base->shape().element_type()) return std::nullopt;
    if (match.divisor && match.divisor->shape().element_type() != base->shape().element_type())
      return std::nullopt;
    // Claim last: a failed match must not keep its reduce-scatters from a
    // later one. Distinct members only: the rewrite replaces each once.
    std::vector<const HloInstruction*> mine(match.reduce_scatters.begin(),
                                            match.reduce_scatters.end());
    std::sort(mine.begin(), mine.end());
    if (std::adjacent_find(mine.begin(), mine.end()) != mine.end()) return std::nullopt;
    for (const HloInstruction* rs : mine)
      if (claimed_.contains(rs)) return std::nullopt;
    for (const HloInstruction* rs : mine) claimed_.insert(rs);
    return match;
  }

 private:
  std::optional<Literal> DivisorOf(const HloInstruction* divide) {
    const HloInstruction* divisor = divide->operand(1);
    if (divisor->has_control_edges()) return std::nullopt;
    if (divisor->opcode() == HloOpcode::kBroadcast && divisor->operand(0)->has_control_edges())
      return std::nullopt;
    return UniformDivisor(divisor);
  }

  hopt::DenseInstructionSet claimed_;
};

// True if `user` is the only user of `instruction`.
bool OnlyUser(const HloInstruction* instruction, const HloInstruction* user) {
  return instruction->user_count() == 1 && instruction->users()[0] == user;
}

class Rewriter {
 public:
  explicit Rewriter(hopt::HloModule& module) : module_(module) {}

  absl::Status Rewrite(const Match& match) {
    HloComputation* computation = match.concat->parent();
    HloInstruction* base = match.reduce_scatters[0];
    // The joined input, the fused collective and its divide stand for the
    // first reduce-scatter.
    hopt::MetadataFrom metadata(*base);
    int64_t c = match.concat->dimensions()[0];
    int64_t s = base->dimensions()[0];
    int64_t group_size = base->operand(0)->shape().dimensions(s) / base->shape().dimensions(s);

    std::vector<HloInstruction*> inputs;
    for (HloInstruction* rs : match.reduce_scatters) inputs.push_back(rs->mutable_operand(0));
    HOPT_ASSIGN_OR_RETURN(HloInstruction * joined, hopt::MakeConcatenate(inputs, c));

    hopt::CollectiveOptions options;
    options.replica_groups = GroupsOf(base);
    if (base->channel_id()) options.channel_id = NextChannelId();
    options.use_global_device_ids = base->use_global_device_ids();
    options.constrain_layout = base->constrain_layout();
    HOPT_ASSIGN_OR_RETURN(HloInstruction * rs, hopt::MakeReduceScatter(joined, s, group_size,
                                                                       base->to_apply(), options));

    // What replaces the concatenate, if it goes (patterns 1 direct, 2).
    HloInstruction* replacement = nullptr;
    if (match.divisor) {
      HOPT_ASSIGN_OR_RETURN(replacement, Divide(rs, match));
    } else if (match.direct) {
      replacement = rs;
    }

    // Before the members go.
    HOPT_DEBUG(kReduceScatterDebugType, {
      dbgs << "fused";
      for (const HloInstruction* member : match.reduce_scatters)
        dbgs << (member == base ? " " : ", ") << hopt::AsRef(member->name());
      dbgs << " into " << hopt::AsRef(rs->name()) << " (" << (match.divisor ? "mean; " : "")
           << (replacement ? "replaces " : "through plumbing into ")
           << hopt::AsRef(match.concat->name()) << ")\n";
    });

    // Members with users outside the pattern (or all of them, through
    // plumbing) read their part of the wide result.
    int64_t offset = 0;
    for (size_t k = 0; k < match.reduce_scatters.size(); ++k) {
      HloInstruction* member = match.reduce_scatters[k];
      int64_t width = member->shape().dimensions(c);
      bool inside = replacement != nullptr &&
                    (match.divides.empty() ? OnlyUser(member, match.concat)
                                           : OnlyUser(member, match.divides[k]) &&
                                                 OnlyUser(match.divides[k], match.concat));
      if (!inside) {
        HOPT_RETURN_IF_ERROR(ReplaceWithSlice(member, rs, c, offset));
      }
      offset += width;
    }

    if (replacement == nullptr) return absl::OkStatus();
    if (!replacement->shape().Compatible(match.concat->shape()))
      return absl::InternalError(absl::StrCat("the fused value has shape ",
                                              replacement->shape().ToString(), ", not ",
                                              match.concat->shape().ToString()));
    // Keep the concatenate's layout on the value its users see.
    replacement->set_shape(match.concat->shape());
    return computation->ReplaceInstruction(match.concat, replacement);
  }

 private:
  int64_t NextChannelId() {
    // One scan of the module for the whole run, not one per fusion.
    if (next_channel_id_ < 0) next_channel_id_ = NextFreeChannelId(module_);
    return next_channel_id_++;
  }

  absl::StatusOr<HloInstruction*> Divide(HloInstruction* rs, const Match& match) {
    // Reuse the first divisor's scalar constant when there is one.
    HloInstruction* scalar = nullptr;
    HloInstruction* first = match.divides[0]->mutable_operand(1);
    if (first->opcode() == HloOpcode::kBroadcast && first->operand(0)->shape().IsScalar())
      scalar = first->mutable_operand(0);
    if (scalar == nullptr) {
      HOPT_ASSIGN_OR_RETURN(scalar, hopt::MakeConstant(rs->parent(), *match.divisor));
    }
    const auto& dims = rs->shape().dimensions();
    HOPT_ASSIGN_OR_RETURN(
        HloInstruction * divisor,
        hopt::MakeBroadcast(scalar, std::vector<int64_t>(dims.begin(), dims.end()), {}));
    return hopt::MakeBinary(HloOpcode::kDivide, rs, divisor);
  }

  absl::Status ReplaceWithSlice(HloInstruction* member, HloInstruction* rs, int64_t c,
                                int64_t offset) {
    const Shape& shape = member->shape();
    std::vector<int64_t> starts(shape.rank(), 0);
    std::vector<int64_t> limits(shape.dimensions().begin(), shape.dimensions().end());
    starts[c] = offset;
    limits[c] = offset + shape.dimensions(c);
    HOPT_ASSIGN_OR_RETURN(HloInstruction * slice, hopt::MakeSlice(rs, starts, limits));
    // Same layout as the value it stands for (tuple shapes name it).
    slice->set_shape(shape);
    HOPT_RETURN_IF_ERROR(member->ReplaceAllUsesWith(slice));
    return member->parent()->RemoveInstruction(member);
  }

  hopt::HloModule& module_;
  int64_t next_channel_id_ = -1;  // not scanned yet
};

}  // namespace

absl::StatusOr<bool> FuseReduceScatter::Run(hopt::HloModule& module) {
  HloComputation* entry = module.entry_computation();
  if (entry == nullptr || module.is_scheduled()) return false;

  std::vector<HloInstruction*> concatenates =
      entry->InstructionsWithOpcodeInPostOrder({HloOpcode::kConcatenate});
  Matcher matcher;
  std::vector<Match> matches;
  matches.reserve(concatenates.size());
  for (HloInstruction* instruction : concatenates) {
    if (std::optional<Match> match = matcher.TryMatch(instruction))
      matches.push_back(std::move(*match));
  }

  Rewriter rewriter(module);
  for (const Match& match : matches) {
    absl::Status status = rewriter.Rewrite(match);
    if (!status.ok())
      return absl::InternalError(absl::StrCat("fuse-reduce-scatter: ", status.message()));
  }
  return !matches.empty();
}

}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0

#include "core/prove/reduced_shape.h"

#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/opcode.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace prove {
namespace {

// The array leaves of a shape, depth first.
void CollectLeaves(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) CollectLeaves(element, leaves);
    return;
  }
  leaves->push_back(&shape);
}

int64_t SlotCount(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape& element : shape.tuple_shapes()) n += SlotCount(element);
    return n;
  }
  return shape.IsArray() ? shape.rank() : 0;
}

// Where the subshape at `path` starts among the slots of `shape`.
std::optional<int64_t> SlotOffset(const Shape& shape, const std::vector<int64_t>& path) {
  const Shape* at = &shape;
  int64_t offset = 0;
  for (int64_t k : path) {
    if (!at->IsTuple() || k < 0 || k >= at->tuple_shapes_size()) return std::nullopt;
    for (int64_t j = 0; j < k; ++j) offset += SlotCount(at->tuple_shapes(j));
    at = &at->tuple_shapes(k);
  }
  return offset;
}

const Shape* Subshape(const Shape& shape, const std::vector<int64_t>& path) {
  const Shape* at = &shape;
  for (int64_t k : path) {
    if (!at->IsTuple() || k < 0 || k >= at->tuple_shapes_size()) return nullptr;
    at = &at->tuple_shapes(k);
  }
  return at;
}

bool CarriesEveryDimension(HloOpcode op) {
  switch (op) {
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
    case HloOpcode::kConvert:
    case HloOpcode::kIsFinite:
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kComplex: return true;
    default: return IsElementwiseUnary(op) || IsElementwiseBinary(op);
  }
}

// Dimension slots of both modules' entries, joined into classes.
class DimensionClasses {
 public:
  DimensionClasses(const eval::Mesh& mesh, const eval::CustomCallTable* custom_calls)
      : mesh_(mesh), custom_calls_(custom_calls) {}

  // Slots for every value of `computation`; a parameter number seen before
  // (the other side's) joins that parameter's slots.
  absl::Status Visit(const HloComputation& computation) {
    absl::flat_hash_map<int64_t, const HloInstruction*> sends;
    for (const HloInstruction* i : computation.instructions())
      if (i->opcode() == HloOpcode::kSend && i->channel_id()) sends[*i->channel_id()] = i;
    for (const HloInstruction* i : computation.MakeInstructionPostOrder()) {
      Allocate(*i);
      if (i->opcode() == HloOpcode::kParameter) {
        auto [it, first] = parameters_.emplace(i->parameter_number(), i);
        if (!first) JoinWhole(*it->second, {}, *i, {});
        continue;
      }
      HOPT_RETURN_IF_ERROR(Carry(*i, sends));
    }
    return absl::OkStatus();
  }

  // The two results compare element by element: their slots are one.
  void JoinResults(const HloInstruction& a, const HloInstruction& b) { JoinWhole(a, {}, b, {}); }

  // Whether slot `s` of `i` may be cut to one index.
  bool Cuttable(const HloInstruction& i, int64_t s) {
    int64_t root = Find(base_.at(&i) + s);
    return !pinned_roots_.contains(root) && size_.at(root) > 1;
  }

  // After every Visit: pins become per class, and classes whose slots
  // disagree on their size are pinned.
  void Close() {
    for (int64_t s : pins_) pinned_roots_.insert(Find(s));
    for (int64_t s = 0; s < static_cast<int64_t>(parent_.size()); ++s) {
      int64_t root = Find(s);
      auto [it, first] = size_.emplace(root, sizes_[s]);
      if (!first && it->second != sizes_[s]) pinned_roots_.insert(root);
    }
  }

  int64_t ClassOf(const HloInstruction& i, int64_t s) { return Find(base_.at(&i) + s); }

 private:
  void Allocate(const HloInstruction& i) {
    base_[&i] = static_cast<int64_t>(parent_.size());
    std::vector<const Shape*> leaves;
    CollectLeaves(i.shape(), &leaves);
    for (const Shape* leaf : leaves) {
      if (!leaf->IsArray()) continue;
      for (int64_t d = 0; d < leaf->rank(); ++d) {
        parent_.push_back(static_cast<int64_t>(parent_.size()));
        sizes_.push_back(leaf->dimensions(d));
      }
    }
  }

  int64_t Find(int64_t s) {
    while (parent_[s] != s) s = parent_[s] = parent_[parent_[s]];
    return s;
  }
  void Join(int64_t a, int64_t b) { parent_[Find(a)] = Find(b); }
  int64_t Slot(const HloInstruction& i, int64_t offset, int64_t d) {
    return base_.at(&i) + offset + d;
  }

  void PinAll(const HloInstruction& i) {
    for (int64_t s = 0; s < SlotCount(i.shape()); ++s) pins_.push_back(base_.at(&i) + s);
  }
  void PinEverything(const HloInstruction& i) {
    PinAll(i);
    for (const HloInstruction* operand : i.operands()) PinAll(*operand);
  }

  // Joins the subshape of `a` at `pa` with that of `b` at `pb` slot by slot;
  // shapes that do not match are pinned instead.
  void JoinWhole(const HloInstruction& a, const std::vector<int64_t>& pa, const HloInstruction& b,
                 const std::vector<int64_t>& pb) {
    const Shape* sa = Subshape(a.shape(), pa);
    const Shape* sb = Subshape(b.shape(), pb);
    auto oa = SlotOffset(a.shape(), pa), ob = SlotOffset(b.shape(), pb);
    if (sa == nullptr || sb == nullptr || !oa || !ob || !sa->Compatible(*sb)) {
      PinAll(a);
      PinAll(b);
      return;
    }
    for (int64_t s = 0; s < SlotCount(*sa); ++s)
      Join(base_.at(&a) + *oa + s, base_.at(&b) + *ob + s);
  }

  // Operand `k`'s dimension `from` is output dimension `to` (array shapes).
  void JoinDim(const HloInstruction& i, int64_t k, int64_t from, int64_t to) {
    Join(Slot(*i.operand(k), 0, from), Slot(i, 0, to));
  }
  void PinDim(const HloInstruction& i, int64_t d) { pins_.push_back(Slot(i, 0, d)); }

  absl::Status Carry(const HloInstruction& i,
                     const absl::flat_hash_map<int64_t, const HloInstruction*>& sends);
  absl::Status CarryCollective(const HloInstruction& i, const eval::CollectiveDescription& c);

  eval::Mesh mesh_;
  const eval::CustomCallTable* custom_calls_;
  absl::flat_hash_map<const HloInstruction*, int64_t> base_;
  absl::flat_hash_map<int64_t, const HloInstruction*> parameters_;
  std::vector<int64_t> parent_, sizes_, pins_;
  absl::flat_hash_map<int64_t, int64_t> size_;
  absl::flat_hash_set<int64_t> pinned_roots_;
};

absl::Status DimensionClasses::CarryCollective(const HloInstruction& i,
                                               const eval::CollectiveDescription& c) {
  const bool tuple_result = i.shape().IsTuple();
  for (int64_t k = 0; k < i.operand_count(); ++k) {
    const HloInstruction& operand = *i.operand(k);
    if (!operand.shape().IsArray()) continue;
    std::vector<int64_t> path;
    if (c.point_to_point)
      path = {0};
    else if (tuple_result)
      path = {k};
    const Shape* out = Subshape(i.shape(), path);
    auto offset = SlotOffset(i.shape(), path);
    if (out == nullptr || !offset || !out->IsArray() || out->rank() != operand.shape().rank()) {
      PinEverything(i);
      return absl::OkStatus();
    }
    for (int64_t d = 0; d < out->rank(); ++d) {
      bool along = (c.kind == HloOpcode::kAllGather || c.kind == HloOpcode::kReduceScatter) &&
                   d == c.dimension;
      bool whole = c.kind == HloOpcode::kAllReduce || c.kind == HloOpcode::kCollectivePermute ||
                   c.kind == HloOpcode::kCollectiveBroadcast || c.kind == HloOpcode::kAllGather ||
                   c.kind == HloOpcode::kReduceScatter;
      if (!whole || along) {
        pins_.push_back(Slot(operand, 0, d));
        pins_.push_back(Slot(i, *offset, d));
      } else {
        Join(Slot(operand, 0, d), Slot(i, *offset, d));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DimensionClasses::Carry(
    const HloInstruction& i, const absl::flat_hash_map<int64_t, const HloInstruction*>& sends) {
  const HloOpcode op = i.opcode();
  const Shape& shape = i.shape();
  // Computations other than scalar reducers are not looked into (a
  // custom-call's only if it is a collective, below).
  if (op != HloOpcode::kReduce && op != HloOpcode::kAllReduce && op != HloOpcode::kReduceScatter &&
      op != HloOpcode::kCustomCall && !i.called_computations().empty()) {
    PinEverything(i);
    return absl::OkStatus();
  }
  if (CarriesEveryDimension(op)) {
    for (int64_t k = 0; k < i.operand_count(); ++k) {
      const Shape& s = i.operand(k)->shape();
      if (s.rank() == 0) continue;  // a scalar bound or predicate
      if (s.rank() != shape.rank()) {
        PinEverything(i);
        return absl::OkStatus();
      }
      for (int64_t d = 0; d < shape.rank(); ++d) JoinDim(i, k, d, d);
    }
    return absl::OkStatus();
  }
  switch (op) {
    case HloOpcode::kIota: {  // varies along one dimension only
      std::optional<int64_t> along = i.IntAttribute("iota_dimension");
      if (!along || *along < 0 || *along >= shape.rank()) break;
      PinDim(i, *along);
      return absl::OkStatus();
    }
    case HloOpcode::kConstant:  // values may vary along every dimension
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator: PinAll(i); return absl::OkStatus();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kAfterAll: return absl::OkStatus();
    case HloOpcode::kTuple: {
      for (int64_t k = 0; k < i.operand_count(); ++k) JoinWhole(*i.operand(k), {}, i, {k});
      return absl::OkStatus();
    }
    case HloOpcode::kGetTupleElement:
      JoinWhole(*i.operand(0), {i.tuple_index()}, i, {});
      return absl::OkStatus();
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain: JoinWhole(*i.operand(0), {}, i, {}); return absl::OkStatus();
    case HloOpcode::kAddDependency: JoinWhole(*i.operand(0), {}, i, {}); return absl::OkStatus();
    case HloOpcode::kBroadcast: {
      std::vector<int64_t> dims = i.dimensions();
      for (size_t j = 0; j < dims.size(); ++j) JoinDim(i, 0, static_cast<int64_t>(j), dims[j]);
      return absl::OkStatus();
    }
    case HloOpcode::kTranspose: {
      std::vector<int64_t> perm = i.dimensions();
      for (size_t j = 0; j < perm.size(); ++j) JoinDim(i, 0, perm[j], static_cast<int64_t>(j));
      return absl::OkStatus();
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      // Carried only when the reshape adds or removes dimensions of size 1
      // (a bitcast only between default layouts, where it is a reshape).
      const Shape& in = i.operand(0)->shape();
      auto plain = [](const Shape& s) { return !s.has_layout() || s.HasDefaultLayout(); };
      if (op == HloOpcode::kBitcast && !(plain(in) && plain(shape))) break;
      std::vector<int64_t> a, b;
      for (int64_t d = 0; d < in.rank(); ++d)
        if (in.dimensions(d) != 1) a.push_back(d);
      for (int64_t d = 0; d < shape.rank(); ++d)
        if (shape.dimensions(d) != 1) b.push_back(d);
      bool same = a.size() == b.size() && in.element_type() == shape.element_type();
      for (size_t j = 0; same && j < a.size(); ++j)
        same = in.dimensions(a[j]) == shape.dimensions(b[j]);
      if (!same) {
        PinEverything(i);
        return absl::OkStatus();
      }
      for (size_t j = 0; j < a.size(); ++j) JoinDim(i, 0, a[j], b[j]);
      return absl::OkStatus();
    }
    case HloOpcode::kSlice: {
      std::vector<SliceDimension> slice = i.slice();
      const Shape& in = i.operand(0)->shape();
      for (int64_t d = 0; d < shape.rank(); ++d) {
        const SliceDimension& s = slice[d];
        if (s.start == 0 && s.limit == in.dimensions(d) && s.stride == 1) {
          JoinDim(i, 0, d, d);
        } else {
          PinDim(i, d);
          pins_.push_back(Slot(*i.operand(0), 0, d));
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      // Whole along a dimension, the start is clamped to 0 there.
      const Shape& in = i.operand(0)->shape();
      const Shape& part = op == HloOpcode::kDynamicSlice ? shape : i.operand(1)->shape();
      for (int64_t d = 0; d < in.rank(); ++d) {
        if (part.dimensions(d) == in.dimensions(d)) {
          JoinDim(i, 0, d, d);
          if (op == HloOpcode::kDynamicUpdateSlice) JoinDim(i, 1, d, d);
        } else {
          pins_.push_back(Slot(*i.operand(0), 0, d));
          PinDim(i, d);
          if (op == HloOpcode::kDynamicUpdateSlice) pins_.push_back(Slot(*i.operand(1), 0, d));
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kConcatenate: {
      int64_t along = i.dimensions().empty() ? -1 : i.dimensions()[0];
      for (int64_t k = 0; k < i.operand_count(); ++k)
        for (int64_t d = 0; d < shape.rank(); ++d) {
          if (d == along) {
            pins_.push_back(Slot(*i.operand(k), 0, d));
            PinDim(i, d);
          } else {
            JoinDim(i, k, d, d);
          }
        }
      return absl::OkStatus();
    }
    case HloOpcode::kPad: {
      std::vector<std::string> dims =
          absl::StrSplit(i.GetAttributeText("padding").value_or(""), 'x');
      for (int64_t d = 0; d < shape.rank(); ++d) {
        bool none = d < static_cast<int64_t>(dims.size());
        if (none)
          for (absl::string_view n : absl::StrSplit(dims[d], '_')) none = none && n == "0";
        if (none) {
          JoinDim(i, 0, d, d);
        } else {
          pins_.push_back(Slot(*i.operand(0), 0, d));
          PinDim(i, d);
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kReverse: {
      std::vector<int64_t> reversed = i.dimensions();
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (std::find(reversed.begin(), reversed.end(), d) != reversed.end()) {
          pins_.push_back(Slot(*i.operand(0), 0, d));
          PinDim(i, d);
        } else {
          JoinDim(i, 0, d, d);
        }
      }
      return absl::OkStatus();
    }
    case HloOpcode::kReduce: {
      if (shape.IsTuple()) break;  // variadic: not carried
      std::vector<int64_t> reduced = i.dimensions();
      const Shape& in = i.operand(0)->shape();
      int64_t out = 0;
      for (int64_t d = 0; d < in.rank(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) != reduced.end())
          pins_.push_back(Slot(*i.operand(0), 0, d));
        else
          JoinDim(i, 0, d, out++);
      }
      return absl::OkStatus();
    }
    case HloOpcode::kSend: JoinWhole(*i.operand(0), {}, i, {0}); return absl::OkStatus();
    case HloOpcode::kRecvDone: {
      JoinWhole(*i.operand(0), {0}, i, {0});
      auto send = i.channel_id() ? sends.find(*i.channel_id()) : sends.end();
      if (send == sends.end()) {
        PinEverything(i);
      } else {
        JoinWhole(*send->second, {0}, i, {0});
      }
      return absl::OkStatus();
    }
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone: return absl::OkStatus();  // carried by recv-done, or a token
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast: {
      auto c = eval::DescribeCollective(i);
      if (!c.ok()) break;
      return CarryCollective(i, *c);
    }
    case HloOpcode::kCustomCall: {
      if (custom_calls_ != nullptr) {
        if (const eval::CustomCallForwarding* forwarding = custom_calls_->FindForwarding(i)) {
          auto forwarded = (*forwarding)(i);
          if (!forwarded.ok()) break;
          for (const eval::ForwardedValue& f : *forwarded)
            JoinWhole(*i.operand(f.operand), f.operand_index, i, f.result_index);
          return absl::OkStatus();
        }
      }
      auto c = eval::DescribeCollectiveCustomCall(i, mesh_, custom_calls_);
      if (!c.ok() || !c->has_value()) break;
      return CarryCollective(i, **c);
    }
    default: break;
  }
  PinEverything(i);
  return absl::OkStatus();
}

// `shape` with the leaves' dimensions cut where `cut(slot)` says.
template <typename F>
Shape CutShape(const Shape& shape, int64_t* slot, F cut) {
  Shape out = shape;
  if (shape.IsTuple()) {
    for (Shape& element : out.mutable_tuple_shapes()) element = CutShape(element, slot, cut);
    return out;
  }
  if (!shape.IsArray()) return out;
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  for (int64_t& d : dims)
    if (cut((*slot)++)) d = 1;
  out.set_dimensions(dims);
  return out;
}

// Attributes that spell out a cut dimension's size.
void CutAttributes(HloInstruction* i, const Shape& old_shape) {
  const Shape& shape = i->shape();
  if (i->opcode() == HloOpcode::kSlice) {
    std::vector<SliceDimension> slice = i->slice();
    std::vector<std::string> parts;
    for (size_t d = 0; d < slice.size(); ++d) {
      int64_t limit = shape.dimensions(d) != old_shape.dimensions(d) ? 1 : slice[d].limit;
      parts.push_back(slice[d].stride == 1 ? absl::StrCat("[", slice[d].start, ":", limit, "]")
                                           : absl::StrCat("[", slice[d].start, ":", limit, ":",
                                                          slice[d].stride, "]"));
    }
    i->SetAttributeText("slice", absl::StrCat("{", absl::StrJoin(parts, ", "), "}"));
  } else if (i->opcode() == HloOpcode::kDynamicSlice) {
    std::vector<int64_t> sizes(shape.dimensions().begin(), shape.dimensions().end());
    i->SetAttributeText("dynamic_slice_sizes", absl::StrCat("{", absl::StrJoin(sizes, ","), "}"));
  }
}

std::string DescribeParameters(const HloComputation& full, const HloComputation& cut) {
  std::vector<std::string> parts;
  for (int64_t k = 0; k < full.num_parameters(); ++k) {
    const Shape& a = full.parameter_instruction(k)->shape();
    const Shape& b = cut.parameter_instruction(k)->shape();
    if (a != b)
      parts.push_back(absl::StrCat(a.ToString(/*print_layout=*/false), " -> ",
                                   b.ToString(/*print_layout=*/false)));
    if (parts.size() == 3) {
      parts.push_back("...");
      break;
    }
  }
  return absl::StrJoin(parts, ", ");
}

void CollectCut(const Shape& full, const Shape& cut, std::vector<bool>* out) {
  if (full.IsTuple()) {
    for (int64_t k = 0; k < full.tuple_shapes_size(); ++k)
      CollectCut(full.tuple_shapes(k), cut.tuple_shapes(k), out);
    return;
  }
  if (!full.IsArray()) return;
  for (int64_t d = 0; d < full.rank(); ++d) out->push_back(full.dimensions(d) != cut.dimensions(d));
}

}  // namespace

absl::StatusOr<std::optional<ShapeReduction>> ReduceUniformDimensions(
    const HloModule& before, const HloModule& after, const eval::Mesh& mesh,
    const eval::CustomCallTable* custom_calls) {
  ShapeReduction reduction;
  reduction.before = before.Clone();
  reduction.after = after.Clone();
  HloComputation* a = reduction.before->entry_computation();
  HloComputation* b = reduction.after->entry_computation();
  DimensionClasses classes(mesh, custom_calls);
  HOPT_RETURN_IF_ERROR(classes.Visit(*a));
  HOPT_RETURN_IF_ERROR(classes.Visit(*b));
  classes.JoinResults(*a->root_instruction(), *b->root_instruction());
  classes.Close();
  absl::flat_hash_set<int64_t> cut_classes;
  for (HloComputation* c : {a, b}) {
    for (HloInstruction* i : c->MakeInstructionPostOrder()) {
      int64_t slot = 0;
      const Shape old_shape = i->shape();
      Shape shape = CutShape(old_shape, &slot, [&](int64_t s) {
        if (!classes.Cuttable(*i, s)) return false;
        cut_classes.insert(classes.ClassOf(*i, s));
        return true;
      });
      if (shape == old_shape) continue;
      i->set_shape(shape);
      CutAttributes(i, old_shape);
    }
  }
  if (cut_classes.empty()) return std::nullopt;
  reduction.description =
      absl::StrCat(cut_classes.size(), " uniform dimension class(es) cut to 1: ",
                   DescribeParameters(*before.entry_computation(), *a));
  for (int64_t k = 0; k < a->num_parameters(); ++k) {
    std::vector<bool> cut;
    CollectCut(before.entry_computation()->parameter_instruction(k)->shape(),
               a->parameter_instruction(k)->shape(), &cut);
    reduction.parameter_cut.push_back(std::move(cut));
  }
  return std::optional<ShapeReduction>(std::move(reduction));
}

absl::StatusOr<Literal> ExpandAlongCutDimensions(const Literal& reduced, const Shape& full) {
  if (full.IsTuple()) {
    std::vector<Literal> elements;
    for (int64_t k = 0; k < full.tuple_shapes_size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(
          Literal e, ExpandAlongCutDimensions(reduced.tuple_elements()[k], full.tuple_shapes(k)));
      elements.push_back(std::move(e));
    }
    return Literal::Tuple(full, std::move(elements));
  }
  Literal out(full);
  if (!full.IsArray()) return out;
  const Shape& small = reduced.shape();
  if (small.rank() != full.rank())
    return absl::InternalError("a reduced value of another rank than its full shape");
  std::vector<int64_t> index(full.rank(), 0);
  const int64_t n = full.ElementCount();
  for (int64_t e = 0; e < n; ++e) {
    int64_t from = 0;
    for (int64_t d = 0; d < full.rank(); ++d)
      from = from * small.dimensions(d) + (small.dimensions(d) == 1 ? 0 : index[d]);
    out.CopyElementFrom(reduced, from, e);
    for (int64_t d = full.rank() - 1; d >= 0; --d) {
      if (++index[d] < full.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace prove
}  // namespace hopt

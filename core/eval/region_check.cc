// SPDX-License-Identifier: Apache-2.0

#include "core/eval/tooling/region_check.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/forwarding.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/extract.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

// A shape as a value sees it: a layout counts only where it is not the
// default one (a pass that spells the default out changes nothing).
std::string ShapeKey(const Shape& shape) {
  if (shape.IsTuple()) {
    std::string key = "(";
    for (const Shape& element : shape.tuple_shapes()) absl::StrAppend(&key, ShapeKey(element), ",");
    return key + ")";
  }
  bool layout = shape.has_layout() && !shape.HasDefaultLayout();
  return shape.ToString(layout);
}

// What makes an instruction the same one on both sides, its operands
// aside: everything else that can change its value, callees by name.
// Metadata and control edges cannot change a value and are left out.
std::string LocalSignature(const HloInstruction& i) {
  std::string signature = absl::StrCat(i.OpcodeSpelling(), " ", ShapeKey(i.shape()), " (",
                                       i.operand_count(), " operands)");
  if (i.opcode() == HloOpcode::kParameter) absl::StrAppend(&signature, " #", i.parameter_number());
  if (i.opcode() == HloOpcode::kConstant) absl::StrAppend(&signature, " ", i.literal_text());
  std::vector<std::string> attributes;
  for (const HloAttribute& attribute : i.attributes()) {
    if (attribute.name == "metadata" || attribute.name == "control-predecessors") continue;
    std::string text = absl::StrCat(attribute.name, "=", attribute.value);
    for (const HloComputation* callee : attribute.computations)
      absl::StrAppend(&text, "%", callee->name(), ",");
    attributes.push_back(std::move(text));
  }
  std::sort(attributes.begin(), attributes.end());
  absl::StrAppend(&signature, " ", absl::StrJoin(attributes, " "));
  return signature;
}

using NameMap = absl::flat_hash_map<absl::string_view, const HloInstruction*>;

// How many bytes of inputs (per device, as the interpreter stores them)
// independent parts of a region may take together in one run.
constexpr int64_t kRegionInputBytes = int64_t{64} << 20;

NameMap ByName(const HloComputation& computation) {
  NameMap names;
  for (const HloInstruction* i : computation.instructions()) names[i->name()] = i;
  return names;
}

// The two sides of one computation, matched: an instruction is unchanged
// when the other side has a twin (same name, same LocalSignature) and each
// operand slot either names the same instruction on both sides or holds a
// changed instruction on at least one side; such a slot is where the
// region hands a value to the unchanged part. An instruction reading two
// unchanged values of different names is changed: the region must compute
// them to compare them.
struct Matching {
  absl::flat_hash_set<const HloInstruction*> changed_before, changed_after;
};

Matching Match(const HloComputation& before, const NameMap& before_names,
               const HloComputation& after, const NameMap& after_names) {
  Matching m;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> twin;
  for (const HloInstruction* a : after.instructions()) {
    auto b = before_names.find(a->name());
    if (b == before_names.end() || LocalSignature(*b->second) != LocalSignature(*a)) {
      m.changed_after.insert(a);
      continue;
    }
    twin[a] = b->second;
  }
  for (const HloInstruction* b : before.instructions()) {
    auto a = after_names.find(b->name());
    if (a == after_names.end() || !twin.contains(a->second)) m.changed_before.insert(b);
  }
  // Operands first, so that a slot sees its operands' final status.
  for (const HloInstruction* a : after.MakeInstructionPostOrder()) {
    auto found = twin.find(a);
    if (found == twin.end()) continue;
    const HloInstruction* b = found->second;
    for (int64_t k = 0; k < a->operand_count(); ++k) {
      const HloInstruction* ob = b->operand(k);
      const HloInstruction* oa = a->operand(k);
      if (ob->name() == oa->name()) continue;
      if (m.changed_before.contains(ob) || m.changed_after.contains(oa)) continue;
      m.changed_after.insert(a);
      m.changed_before.insert(b);
      break;
    }
  }
  return m;
}

// Constants up to this size are copied into a region (see below).
constexpr int64_t kMaxCopiedConstantElements = 4096;

// One side of a region as a module: an entry taking `inputs` (named as in
// the source) and returning a tuple of `outputs`, with the region's
// instructions copied between, and what they call.
absl::StatusOr<std::unique_ptr<HloModule>> RegionModule(
    absl::string_view name, const HloModule& source_module,
    const std::vector<const HloInstruction*>& inputs,
    const std::vector<const HloInstruction*>& region,
    const std::vector<const HloInstruction*>& outputs) {
  auto module = std::make_unique<HloModule>(name);
  module->set_replica_count(source_module.replica_count());
  module->set_num_partitions(source_module.num_partitions());
  module->ShareStackFramesFrom(source_module);
  HloComputation* entry = module->AddComputation("region", /*is_entry=*/true);
  InstructionCopier copier(*module);
  for (size_t k = 0; k < inputs.size(); ++k)
    copier.Map(inputs[k],
               entry->AddParameter(inputs[k]->shape(), inputs[k]->name(), static_cast<int64_t>(k)));
  HOPT_RETURN_IF_ERROR(copier.Copy(region, entry));
  std::vector<HloInstruction*> results;
  for (const HloInstruction* output : outputs) {
    HloInstruction* copy = copier.Find(output);
    if (copy == nullptr)
      return absl::InternalError(absl::StrCat("region output ", output->name(), " has no copy"));
    results.push_back(copy);
  }
  HOPT_ASSIGN_OR_RETURN(HloInstruction * root, MakeTuple(entry, results));
  HOPT_RETURN_IF_ERROR(entry->set_root_instruction(root, /*accept_different_shape=*/true));
  return module;
}

// In the order the computation lists them, so both sides copy alike.
std::vector<const HloInstruction*> InListOrder(
    const HloComputation& computation, const absl::flat_hash_set<const HloInstruction*>& set) {
  std::vector<const HloInstruction*> ordered;
  for (const HloInstruction* i : computation.instructions())
    if (set.contains(i)) ordered.push_back(i);
  return ordered;
}

// Keeps every array of `region` the region made on one side, with the
// instructions of the region that made it.
absl::flat_hash_set<const HloInstruction*> NeededFor(
    const absl::flat_hash_set<const HloInstruction*>& region,
    const std::vector<const HloInstruction*>& outputs) {
  absl::flat_hash_set<const HloInstruction*> needed;
  std::vector<const HloInstruction*> stack;
  for (const HloInstruction* output : outputs)
    if (region.contains(output) && needed.insert(output).second) stack.push_back(output);
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    for (const HloInstruction* operand : i->operands())
      if (region.contains(operand) && needed.insert(operand).second) stack.push_back(operand);
  }
  return needed;
}

// Outputs whose every array both sides only move from the same input
// array are equal for all inputs on every device: they are counted in
// `forwarded` and taken out of `outputs`, and the instructions only they
// needed out of the two sides. An output whose arrays both sides move from
// different inputs differs: `difference` says where (the first one).
void SettleDataMovement(
    absl::flat_hash_set<const HloInstruction*>& before,
    absl::flat_hash_set<const HloInstruction*>& after,
    std::vector<std::pair<const HloInstruction*, const HloInstruction*>>& outputs,
    const CustomCallTable* custom_calls, int64_t* forwarded, std::string* difference) {
  ForwardingAnalysis before_sources(before, custom_calls), after_sources(after, custom_calls);
  auto same = [](const std::optional<ArraySource>& b, const std::optional<ArraySource>& a) {
    if (!b.has_value() || !a.has_value()) return false;
    if (b->value == nullptr || a->value == nullptr) return b->value == a->value;
    return b->value->name() == a->value->name() && b->index == a->index;
  };
  std::vector<std::pair<const HloInstruction*, const HloInstruction*>> left;
  for (const auto& [b, a] : outputs) {
    const ArraySources& from_before = before_sources.SourcesOf(b);
    const ArraySources& from_after = after_sources.SourcesOf(a);
    bool moved = from_before.size() == from_after.size();
    for (size_t k = 0; moved && k < from_before.size(); ++k) {
      if (same(from_before[k], from_after[k])) continue;
      moved = false;
      if (from_before[k].has_value() && from_after[k].has_value() && difference->empty()) {
        std::vector<std::vector<int64_t>> arrays = ArrayIndexes(a->shape());
        std::string part =
            arrays[k].empty() ? "" : absl::StrCat(" {", absl::StrJoin(arrays[k], ", "), "}");
        *difference = absl::StrCat("output ", a->name(), part, ", on every device: before, it is ",
                                   DescribeSource(*from_before[k]), "; after, ",
                                   DescribeSource(*from_after[k]));
      }
    }
    if (moved)
      ++*forwarded;
    else
      left.push_back({b, a});
  }
  if (left.size() == outputs.size()) return;
  outputs = std::move(left);
  std::vector<const HloInstruction*> outputs_before, outputs_after;
  for (const auto& [b, a] : outputs) {
    outputs_before.push_back(b);
    outputs_after.push_back(a);
  }
  before = NeededFor(before, outputs_before);
  after = NeededFor(after, outputs_after);
}

// The changed regions of one computation, one per independent part.
absl::StatusOr<std::vector<ChangedRegion>> RegionsOf(const HloModule& before_module,
                                                     const HloComputation& before,
                                                     const HloModule& after_module,
                                                     const HloComputation& after,
                                                     const CustomCallTable* custom_calls) {
  NameMap before_names = ByName(before), after_names = ByName(after);
  Matching m = Match(before, before_names, after, after_names);
  const auto& changed_before = m.changed_before;
  const auto& changed_after = m.changed_after;
  if (changed_before.empty() && changed_after.empty()) return std::vector<ChangedRegion>{};
  for (const auto* side : {&changed_before, &changed_after})
    for (const HloInstruction* i : *side)
      if (i->opcode() == HloOpcode::kParameter)
        return absl::FailedPreconditionError(
            absl::StrCat("parameter ", i->name(), " of computation ", after.name(),
                         " changed: a region check needs the computation's parameters unchanged"));
  // Outputs: (before, after) pairs of the values the unchanged part reads
  // from the region, slot by slot, then the root when it changed.
  std::vector<std::pair<const HloInstruction*, const HloInstruction*>> outputs;
  std::set<std::pair<std::string, std::string>> seen;
  auto add_output = [&](const HloInstruction* b, const HloInstruction* a) {
    if (seen.insert({std::string(b->name()), std::string(a->name())}).second)
      outputs.push_back({b, a});
  };
  for (const HloInstruction* a : after.instructions()) {
    if (changed_after.contains(a)) continue;
    const HloInstruction* b = before_names.at(a->name());
    for (int64_t k = 0; k < a->operand_count(); ++k)
      if (changed_before.contains(b->operand(k)) || changed_after.contains(a->operand(k)))
        add_output(b->operand(k), a->operand(k));
  }
  const HloInstruction* root_before = before.root_instruction();
  const HloInstruction* root_after = after.root_instruction();
  if (root_before->name() != root_after->name() || changed_after.contains(root_after)) {
    if (!root_before->shape().Compatible(root_after->shape()))
      return absl::FailedPreconditionError(absl::StrCat(
          "the root of computation ", after.name(), " changed shape from ",
          root_before->shape().ToString(false), " to ", root_after->shape().ToString(false)));
    add_output(root_before, root_after);
  }
  // The changed instructions fall into independent parts: instructions
  // joined by an operand edge on one side, by their name across the sides,
  // or by an output pair. Each part is checked alone, so a pass that
  // changes many layers alike needs the memory of one.
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> parent;
  std::function<const HloInstruction*(const HloInstruction*)> find = [&](const HloInstruction* i) {
    while (parent.at(i) != i) i = parent[i] = parent.at(parent.at(i));
    return i;
  };
  auto unite = [&](const HloInstruction* x, const HloInstruction* y) { parent[find(x)] = find(y); };
  for (const auto* side : {&changed_before, &changed_after})
    for (const HloInstruction* i : *side) parent[i] = i;
  for (const HloInstruction* a : changed_after) {
    auto b = before_names.find(a->name());
    if (b != before_names.end() && changed_before.contains(b->second)) unite(a, b->second);
  }
  for (const auto* side : {&changed_before, &changed_after})
    for (const HloInstruction* i : *side)
      for (const HloInstruction* operand : i->operands())
        if (side->contains(operand)) unite(i, operand);
  for (const auto& [b, a] : outputs)
    if (changed_before.contains(b) && changed_after.contains(a)) unite(b, a);

  struct Part {
    absl::flat_hash_set<const HloInstruction*> before, after;
    std::vector<std::pair<const HloInstruction*, const HloInstruction*>> outputs;
    int64_t changed_before = 0, changed_after = 0;
    int64_t forwarded = 0;
    std::string difference;
  };
  std::vector<Part> parts;
  absl::flat_hash_map<const HloInstruction*, size_t> part_of;
  auto part_for = [&](const HloInstruction* i) -> Part& {
    auto [it, added] = part_of.try_emplace(find(i), parts.size());
    if (added) parts.emplace_back();
    return parts[it->second];
  };
  // In list order, so the parts and their instructions come out alike run
  // after run.
  for (const HloInstruction* i : before.instructions())
    if (changed_before.contains(i)) part_for(i).before.insert(i);
  for (const HloInstruction* i : after.instructions())
    if (changed_after.contains(i)) part_for(i).after.insert(i);
  for (const auto& pair : outputs)
    part_for(changed_before.contains(pair.first) ? pair.first : pair.second)
        .outputs.push_back(pair);
  for (Part& part : parts) {
    part.changed_before = static_cast<int64_t>(part.before.size());
    part.changed_after = static_cast<int64_t>(part.after.size());
    SettleDataMovement(part.before, part.after, part.outputs, custom_calls, &part.forwarded,
                       &part.difference);
  }

  // Inputs: the unchanged values a part reads, and an output that is
  // unchanged on its side (a pass that rewired a user to an existing
  // value); by name, which is the same value on both sides.
  auto input_names_of = [](const Part& part) {
    std::set<std::string> names;
    for (const auto* side : {&part.before, &part.after})
      for (const HloInstruction* i : *side)
        for (const HloInstruction* operand : i->operands())
          if (!side->contains(operand)) names.insert(std::string(operand->name()));
    for (const auto& [b, a] : part.outputs) {
      if (!part.before.contains(b)) names.insert(std::string(b->name()));
      if (!part.after.contains(a)) names.insert(std::string(a->name()));
    }
    return names;
  };
  // Small parts run together, up to kRegionInputBytes of inputs per device
  // (a pass that rewrote 169 collectives runs a handful of modules, not
  // 169); a part larger than that runs alone.
  std::vector<Part> bins;
  int64_t bin_bytes = 0;
  for (Part& part : parts) {
    int64_t bytes = 0;
    for (const std::string& name : input_names_of(part))
      if (auto a = after_names.find(name); a != after_names.end())
        bytes += Literal::AllocatedBytesFor(a->second->shape());
    if (bins.empty() || bin_bytes + bytes > kRegionInputBytes) {
      bins.push_back(std::move(part));
      bin_bytes = bytes;
      continue;
    }
    Part& bin = bins.back();
    bin.before.insert(part.before.begin(), part.before.end());
    bin.after.insert(part.after.begin(), part.after.end());
    bin.outputs.insert(bin.outputs.end(), part.outputs.begin(), part.outputs.end());
    bin.changed_before += part.changed_before;
    bin.changed_after += part.changed_after;
    bin.forwarded += part.forwarded;
    if (bin.difference.empty()) bin.difference = part.difference;
    bin_bytes += bytes;
  }

  std::vector<ChangedRegion> regions;
  for (const Part& part : bins) {
    std::set<std::string> input_names = input_names_of(part);
    std::vector<const HloInstruction*> inputs_before, inputs_after, outputs_before, outputs_after;
    // A constant the region reads is copied into both sides rather than
    // made an input: a reduce's init is then the number it is, not any
    // value (a two-stage reduce that applies init 129 times is right for
    // init 1, not for every init).
    std::vector<const HloInstruction*> constants_before, constants_after;
    for (const std::string& name : input_names) {
      auto b = before_names.find(name);
      auto a = after_names.find(name);
      if (b == before_names.end() || a == after_names.end() || changed_before.contains(b->second) ||
          changed_after.contains(a->second))
        return absl::FailedPreconditionError(
            absl::StrCat("the region of computation ", after.name(), " reads ", name,
                         ", which is not one unchanged value on both sides"));
      if (b->second->opcode() == HloOpcode::kConstant &&
          a->second->opcode() == HloOpcode::kConstant && b->second->shape().IsArray() &&
          b->second->shape().ElementCount() <= kMaxCopiedConstantElements) {
        constants_before.push_back(b->second);
        constants_after.push_back(a->second);
        continue;
      }
      inputs_before.push_back(b->second);
      inputs_after.push_back(a->second);
    }
    auto with_constants = [](std::vector<const HloInstruction*> constants,
                             const std::vector<const HloInstruction*>& instructions) {
      constants.insert(constants.end(), instructions.begin(), instructions.end());
      return constants;
    };
    for (const auto& [b, a] : part.outputs) {
      outputs_before.push_back(b);
      outputs_after.push_back(a);
    }
    ChangedRegion region;
    region.computation = std::string(after.name());
    region.changed_before = part.changed_before;
    region.changed_after = part.changed_after;
    region.forwarded = part.forwarded;
    region.forwarding_difference = part.difference;
    region.inputs = static_cast<int64_t>(inputs_after.size());
    region.outputs = static_cast<int64_t>(outputs_after.size());
    for (const HloInstruction* output : outputs_after)
      region.output_names.push_back(std::string(output->name()));
    HOPT_ASSIGN_OR_RETURN(
        region.before,
        RegionModule(absl::StrCat("region_before_", after.name()), before_module, inputs_before,
                     with_constants(constants_before, InListOrder(before, part.before)),
                     outputs_before));
    HOPT_ASSIGN_OR_RETURN(
        region.after,
        RegionModule(absl::StrCat("region_after_", after.name()), after_module, inputs_after,
                     with_constants(constants_after, InListOrder(after, part.after)),
                     outputs_after));
    regions.push_back(std::move(region));
  }
  return regions;
}

}  // namespace

absl::StatusOr<std::vector<ChangedRegion>> FindChangedRegions(const HloModule& before,
                                                              const HloModule& after,
                                                              const CustomCallTable* custom_calls) {
  std::vector<ChangedRegion> regions;
  const HloComputation* entry_before = before.entry_computation();
  const HloComputation* entry_after = after.entry_computation();
  if (entry_before == nullptr || entry_after == nullptr)
    return absl::FailedPreconditionError("a module without an entry computation");
  if (entry_before->num_parameters() != entry_after->num_parameters())
    return absl::FailedPreconditionError("the pass changed the entry's parameters");
  for (const HloComputation* computation : after.computations()) {
    const HloComputation* twin = computation == entry_after
                                     ? entry_before
                                     : before.GetComputationWithName(computation->name());
    // A computation new on this side is reached only through changed
    // instructions, which copy it into the region with them.
    if (twin == nullptr || (twin == entry_before) != (computation == entry_after)) continue;
    HOPT_ASSIGN_OR_RETURN(std::vector<ChangedRegion> found,
                          RegionsOf(before, *twin, after, *computation, custom_calls));
    for (ChangedRegion& region : found) regions.push_back(std::move(region));
  }
  return regions;
}

absl::StatusOr<RegionCheck> CheckChangedRegions(const HloModule& before, const HloModule& after,
                                                int64_t sets, uint64_t seed,
                                                const EvalOptions& options) {
  RegionCheck check;
  HOPT_ASSIGN_OR_RETURN(check.regions, FindChangedRegions(before, after, options.custom_calls));
  for (const ChangedRegion& region : check.regions) {
    check.changed_before += region.changed_before;
    check.changed_after += region.changed_after;
    check.forwarded += region.forwarded;
  }
  for (const ChangedRegion& region : check.regions) {
    if (region.forwarding_difference.empty()) continue;
    // Shown without running: it holds for every input, on every device.
    check.comparison.outcome = MeshComparison::Outcome::kDiffer;
    check.comparison.message = region.forwarding_difference;
    check.region = region.computation;
    return check;
  }
  for (const ChangedRegion& region : check.regions) {
    // A region no unchanged value reads (dead code removed or added) has
    // nothing to compare.
    if (region.outputs == 0) continue;
    // A region whose inputs alone are over the budget is not run: it is
    // reported unchecked, and the others still run.
    if (absl::Status fits = CheckArgumentsFit(*region.before, options); !fits.ok()) {
      check.unchecked.push_back(
          absl::StrCat("a region of computation ", region.computation, " with outputs ",
                       absl::StrJoin(region.output_names, ", "), ": ", fits.message()));
      continue;
    }
    ++check.checked;
    MeshComparison compared = CompareOnMesh(*region.before, *region.after, sets, seed, options);
    check.comparison.devices = compared.devices;
    if (compared.outcome != MeshComparison::Outcome::kEqual) {
      // "tuple element K" of the region's result is an instruction of the
      // module: say which.
      constexpr absl::string_view kElement = "tuple element ";
      size_t at = compared.message.find(std::string(kElement));
      if (compared.outcome == MeshComparison::Outcome::kDiffer && at != std::string::npos) {
        size_t digits = at + kElement.size(), end = digits;
        while (end < compared.message.size() && absl::ascii_isdigit(compared.message[end])) ++end;
        size_t k = 0;
        if (absl::SimpleAtoi(compared.message.substr(digits, end - digits), &k) &&
            k < region.output_names.size())
          compared.message.replace(at, end - at, absl::StrCat("output ", region.output_names[k]));
      }
      check.comparison = std::move(compared);
      check.region = region.computation;
      return check;
    }
  }
  return check;
}

}  // namespace eval
}  // namespace hopt

#include "core/eval/region_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/extract.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

// What makes an instruction the same one on both sides: everything that
// can change its value, by name where it points elsewhere. Metadata and
// control edges cannot change a value and are left out.
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

std::string LocalSignature(const HloInstruction& i) {
  std::string signature = absl::StrCat(i.OpcodeSpelling(), " ", ShapeKey(i.shape()), " (");
  for (const HloInstruction* operand : i.operands()) absl::StrAppend(&signature, operand->name(), ",");
  signature.push_back(')');
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

NameMap ByName(const HloComputation& computation) {
  NameMap names;
  for (const HloInstruction* i : computation.instructions()) names[i->name()] = i;
  return names;
}

// The instructions of `mine` that have no twin in `other`.
absl::flat_hash_set<const HloInstruction*> Changed(const HloComputation& mine,
                                                   const NameMap& other) {
  absl::flat_hash_set<const HloInstruction*> changed;
  for (const HloInstruction* i : mine.instructions()) {
    auto twin = other.find(i->name());
    if (twin == other.end() || LocalSignature(*twin->second) != LocalSignature(*i))
      changed.insert(i);
  }
  return changed;
}

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
  HloComputation* entry = module->AddComputation("region", /*is_entry=*/true);
  InstructionCopier copier(*module);
  for (size_t k = 0; k < inputs.size(); ++k)
    copier.Map(inputs[k], entry->AddParameter(inputs[k]->shape(), inputs[k]->name(),
                                              static_cast<int64_t>(k)));
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

absl::StatusOr<std::optional<ChangedRegion>> RegionOf(const HloModule& before_module,
                                                      const HloComputation& before,
                                                      const HloModule& after_module,
                                                      const HloComputation& after) {
  NameMap before_names = ByName(before), after_names = ByName(after);
  absl::flat_hash_set<const HloInstruction*> changed_before = Changed(before, after_names);
  absl::flat_hash_set<const HloInstruction*> changed_after = Changed(after, before_names);
  if (changed_before.empty() && changed_after.empty()) return std::nullopt;
  for (const auto* side : {&changed_before, &changed_after})
    for (const HloInstruction* i : *side)
      if (i->opcode() == HloOpcode::kParameter)
        return absl::FailedPreconditionError(absl::StrCat(
            "parameter ", i->name(), " of computation ", after.name(),
            " changed: a region check needs the computation's parameters unchanged"));
  // Inputs: unchanged values a changed instruction reads, by name (the
  // same name is the same unchanged value on both sides).
  std::set<std::string> input_names;
  for (const auto* side : {&changed_before, &changed_after})
    for (const HloInstruction* i : *side)
      for (const HloInstruction* operand : i->operands())
        if (!side->contains(operand)) input_names.insert(std::string(operand->name()));
  // Outputs: the changed values unchanged instructions read, and the root
  // when it is changed on either side.
  std::set<std::string> output_names;
  for (const HloInstruction* i : after.instructions()) {
    if (changed_after.contains(i)) continue;
    for (const HloInstruction* operand : i->operands())
      if (changed_after.contains(operand)) output_names.insert(std::string(operand->name()));
  }
  // The root is an output when it changed on either side. A root that
  // did not change on one side (a pass that wrapped the old root, say) is
  // read there from the unchanged part: it is an input too.
  const HloInstruction* root_before = before.root_instruction();
  const HloInstruction* root_after = after.root_instruction();
  const bool root_output =
      (changed_before.contains(root_before) || changed_after.contains(root_after)) &&
      !output_names.count(std::string(root_after->name()));
  if (root_output) {
    if (!root_before->shape().Compatible(root_after->shape()))
      return absl::FailedPreconditionError(absl::StrCat(
          "the root of computation ", after.name(), " changed shape from ",
          root_before->shape().ToString(false), " to ", root_after->shape().ToString(false)));
    if (!changed_before.contains(root_before)) input_names.insert(std::string(root_before->name()));
    if (!changed_after.contains(root_after)) input_names.insert(std::string(root_after->name()));
  }
  std::vector<const HloInstruction*> inputs_before, inputs_after, outputs_before, outputs_after;
  for (const std::string& name : input_names) {
    auto b = before_names.find(name);
    auto a = after_names.find(name);
    if (b == before_names.end() || a == after_names.end())
      return absl::InternalError(absl::StrCat("region input ", name, " is not on both sides"));
    inputs_before.push_back(b->second);
    inputs_after.push_back(a->second);
  }
  for (const std::string& name : output_names) {
    auto b = before_names.find(name);
    if (b == before_names.end() || !changed_before.contains(b->second))
      return absl::InternalError(absl::StrCat("region output ", name, " has no changed twin"));
    outputs_before.push_back(b->second);
    outputs_after.push_back(after_names.at(name));
  }
  if (root_output) {
    outputs_before.push_back(root_before);
    outputs_after.push_back(root_after);
  }
  ChangedRegion region;
  region.computation = std::string(after.name());
  region.changed_before = static_cast<int64_t>(changed_before.size());
  region.changed_after = static_cast<int64_t>(changed_after.size());
  region.inputs = static_cast<int64_t>(inputs_after.size());
  region.outputs = static_cast<int64_t>(outputs_after.size());
  for (const HloInstruction* output : outputs_after)
    region.output_names.push_back(std::string(output->name()));
  HOPT_ASSIGN_OR_RETURN(region.before,
                        RegionModule(absl::StrCat("region_before_", after.name()), before_module,
                                     inputs_before, InListOrder(before, changed_before),
                                     outputs_before));
  HOPT_ASSIGN_OR_RETURN(region.after,
                        RegionModule(absl::StrCat("region_after_", after.name()), after_module,
                                     inputs_after, InListOrder(after, changed_after),
                                     outputs_after));
  return region;
}

}  // namespace

absl::StatusOr<std::vector<ChangedRegion>> FindChangedRegions(const HloModule& before,
                                                              const HloModule& after) {
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
    HOPT_ASSIGN_OR_RETURN(std::optional<ChangedRegion> region,
                          RegionOf(before, *twin, after, *computation));
    if (region) regions.push_back(*std::move(region));
  }
  return regions;
}

absl::StatusOr<RegionCheck> CheckChangedRegions(const HloModule& before, const HloModule& after,
                                                int64_t sets, uint64_t seed,
                                                const EvalOptions& options) {
  RegionCheck check;
  HOPT_ASSIGN_OR_RETURN(check.regions, FindChangedRegions(before, after));
  for (const ChangedRegion& region : check.regions) {
    check.changed_before += region.changed_before;
    check.changed_after += region.changed_after;
  }
  for (const ChangedRegion& region : check.regions) {
    // A region no unchanged value reads (dead code removed or added) has
    // nothing to compare.
    if (region.outputs == 0) continue;
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
          compared.message.replace(at, end - at,
                                   absl::StrCat("output ", region.output_names[k]));
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

// SPDX-License-Identifier: Apache-2.0

#include "core/eval/forwarding.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

std::string IndexText(absl::Span<const int64_t> index) {
  return absl::StrCat("{", absl::StrJoin(index, ", "), "}");
}

bool StartsWith(absl::Span<const int64_t> index, absl::Span<const int64_t> prefix) {
  return prefix.size() <= index.size() && index.subspan(0, prefix.size()) == prefix;
}

void CollectArrayIndexes(const Shape& shape, std::vector<int64_t>& at,
                         std::vector<std::vector<int64_t>>& out) {
  if (!shape.IsTuple()) {
    out.push_back(at);
    return;
  }
  for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k) {
    at.push_back(k);
    CollectArrayIndexes(shape.tuple_shapes(k), at, out);
    at.pop_back();
  }
}

const Literal* SubliteralAt(const Literal& literal, absl::Span<const int64_t> index) {
  const Literal* at = &literal;
  for (int64_t k : index) {
    if (k < 0 || k >= static_cast<int64_t>(at->tuple_elements().size())) return nullptr;
    at = &at->tuple_elements()[static_cast<size_t>(k)];
  }
  return at;
}

// The part of the result at `index`: a forwarded copy, or a tuple of the
// parts below it.
absl::StatusOr<Literal> BuildPart(const Shape& shape, std::vector<int64_t>& index,
                                  const std::vector<ForwardedValue>& parts,
                                  absl::Span<const Literal* const> operands) {
  for (const ForwardedValue& part : parts) {
    if (part.result_index != index) continue;
    const Literal* source =
        SubliteralAt(*operands[static_cast<size_t>(part.operand)], part.operand_index);
    if (source == nullptr)
      return absl::InternalError("a forwarded operand part is missing from its value");
    Literal copy = *source;
    HOPT_RETURN_IF_ERROR(copy.SetLayoutFrom(shape));
    return copy;
  }
  std::vector<Literal> elements;
  for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k) {
    index.push_back(k);
    HOPT_ASSIGN_OR_RETURN(Literal element,
                          BuildPart(shape.tuple_shapes(k), index, parts, operands));
    index.pop_back();
    elements.push_back(std::move(element));
  }
  return Literal::Tuple(shape, std::move(elements));
}

}  // namespace

const Shape* SubshapeAt(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* at = &shape;
  for (int64_t k : index) {
    if (!at->IsTuple() || k < 0 || k >= at->tuple_shapes_size()) return nullptr;
    at = &at->tuple_shapes(k);
  }
  return at;
}

std::vector<std::vector<int64_t>> ArrayIndexes(const Shape& shape) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> at;
  CollectArrayIndexes(shape, at, out);
  return out;
}

absl::StatusOr<std::vector<ForwardedValue>> CheckedForwarding(
    const CustomCallForwarding& forwarding, const HloInstruction& call) {
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("custom-call ", call.name(), " (",
                                                   call.custom_call_target(),
                                                   "): its registered forwarding ", what));
  };
  absl::StatusOr<std::vector<ForwardedValue>> parts = forwarding(call);
  if (!parts.ok()) return error(absl::StrCat("refuses the call: ", parts.status().message()));
  for (const ForwardedValue& part : *parts) {
    const Shape* result = SubshapeAt(call.shape(), part.result_index);
    if (result == nullptr)
      return error(absl::StrCat("names result part ", IndexText(part.result_index),
                                ", which the result does not have"));
    if (part.operand < 0 || part.operand >= call.operand_count())
      return error(absl::StrCat("names operand ", part.operand, " of ", call.operand_count()));
    const Shape* source = SubshapeAt(call.operand(part.operand)->shape(), part.operand_index);
    if (source == nullptr)
      return error(absl::StrCat("names part ", IndexText(part.operand_index), " of operand ",
                                part.operand, ", which it does not have"));
    if (!source->Compatible(*result))
      return error(absl::StrCat("puts operand ", part.operand, " part ",
                                IndexText(part.operand_index), " (", source->ToString(false),
                                ") at result part ", IndexText(part.result_index), " (",
                                result->ToString(false), ")"));
  }
  for (const std::vector<int64_t>& array : ArrayIndexes(call.shape())) {
    int covering = 0;
    for (const ForwardedValue& part : *parts)
      if (StartsWith(array, part.result_index)) ++covering;
    if (covering != 1)
      return error(absl::StrCat(covering == 0 ? "leaves result part " : "fills result part ",
                                IndexText(array), covering == 0 ? " unset" : " more than once"));
  }
  return parts;
}

absl::StatusOr<Literal> ForwardOperands(const HloInstruction& call,
                                        const std::vector<ForwardedValue>& parts,
                                        absl::Span<const Literal* const> operands) {
  std::vector<int64_t> index;
  return BuildPart(call.shape(), index, parts, operands);
}

const ArraySources& ForwardingAnalysis::SourcesOf(const HloInstruction* value) {
  if (auto it = sources_.find(value); it != sources_.end()) return it->second;
  // Operands first, without recursion: region chains can be long.
  std::vector<const HloInstruction*> stack = {value};
  while (!stack.empty()) {
    const HloInstruction* top = stack.back();
    if (sources_.contains(top)) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    if (region_.contains(top))
      for (const HloInstruction* operand : top->operands())
        if (!sources_.contains(operand)) {
          stack.push_back(operand);
          ready = false;
        }
    if (!ready) continue;
    sources_.emplace(top, Follow(top));
    stack.pop_back();
  }
  return sources_.at(value);
}

ArraySources ForwardingAnalysis::Follow(const HloInstruction* value) {
  const Shape& shape = value->shape();
  std::vector<std::vector<int64_t>> arrays = ArrayIndexes(shape);
  ArraySources out;
  if (!region_.contains(value)) {
    for (std::vector<int64_t>& index : arrays) {
      if (SubshapeAt(shape, index)->IsToken())
        out.push_back(ArraySource{});
      else
        out.push_back(ArraySource{value, std::move(index)});
    }
    return out;
  }
  // The sources of operand `k`'s part at `index`, in array order.
  auto part_of = [&](int64_t k, absl::Span<const int64_t> index) {
    const HloInstruction* operand = value->operand(k);
    const ArraySources& all = sources_.at(operand);
    std::vector<std::vector<int64_t>> operand_arrays = ArrayIndexes(operand->shape());
    ArraySources part;
    for (size_t a = 0; a < operand_arrays.size(); ++a)
      if (StartsWith(operand_arrays[a], index)) part.push_back(all[a]);
    return part;
  };
  switch (value->opcode()) {
    case HloOpcode::kTuple:
      for (int64_t k = 0; k < value->operand_count(); ++k)
        for (auto& source : part_of(k, {})) out.push_back(std::move(source));
      return out;
    case HloOpcode::kGetTupleElement: return part_of(0, {value->tuple_index()});
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency: return part_of(0, {});
    case HloOpcode::kCustomCall:
      if (custom_calls_ != nullptr)
        if (const CustomCallForwarding* forwarding = custom_calls_->FindForwarding(*value)) {
          absl::StatusOr<std::vector<ForwardedValue>> parts =
              CheckedForwarding(*forwarding, *value);
          if (!parts.ok()) break;  // the run reports it
          for (const std::vector<int64_t>& array : arrays)
            for (const ForwardedValue& part : *parts) {
              if (!StartsWith(array, part.result_index)) continue;
              std::vector<int64_t> source_index = part.operand_index;
              source_index.insert(source_index.end(),
                                  array.begin() + static_cast<int64_t>(part.result_index.size()),
                                  array.end());
              ArraySources one = part_of(part.operand, source_index);
              out.push_back(one.empty() ? std::nullopt : std::move(one.front()));
            }
          return out;
        }
      break;
    default: break;
  }
  // Computed: a token made here is still just a token.
  for (const std::vector<int64_t>& index : arrays)
    out.push_back(SubshapeAt(shape, index)->IsToken() ? std::optional<ArraySource>(ArraySource{})
                                                      : std::nullopt);
  return out;
}

std::string DescribeSource(const ArraySource& source) {
  if (source.value == nullptr) return "a token";
  if (source.index.empty()) return absl::StrCat("%", source.value->name());
  return absl::StrCat("%", source.value->name(), " ", IndexText(source.index));
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "mutant_operators.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "collectives/neuron_collective_targets.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/shape.h"
#include "hopt/support/status_macros.h"

namespace hopt_test_mutants {
namespace {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloOpcode;
using hopt::PrimitiveType;
using hopt::Shape;

// Why an operator does not apply to one instruction: the caller tries the
// next one, so this is not an error of the mutant.
constexpr bool kSkip = false;

bool Matches(const HloInstruction& instruction, absl::string_view site) {
  if (site.empty()) return true;
  std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(site, ':');
  if (!parts.second.empty() &&
      hopt::PrimitiveTypeString(instruction.shape().element_type()) != parts.second)
    return false;
  if (instruction.OpcodeSpelling() == parts.first) return true;
  return instruction.opcode() == HloOpcode::kCustomCall &&
         absl::StartsWith(instruction.custom_call_target(), parts.first);
}

bool IsCollectiveCall(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kCustomCall &&
         neuron::ParseCollectiveTargetName(instruction.custom_call_target()).has_value();
}

// Every use of `from` (the root included) now reads `to`, except `to`'s own.
absl::Status RedirectUses(HloInstruction* from, HloInstruction* to) {
  std::vector<HloInstruction*> users(from->users().begin(), from->users().end());
  for (HloInstruction* user : users)
    if (user != to) HOPT_RETURN_IF_ERROR(from->ReplaceUseWith(user, to));
  if (from->IsRoot()) return from->parent()->set_root_instruction(to);
  return absl::OkStatus();
}

// --- replica groups --------------------------------------------------------

// Two groups: their boundary devices trade places. One group: its first two
// members swap (the order matters to gathers and scatters).
bool MisgroupDevices(std::vector<std::vector<int64_t>>& groups) {
  if (groups.size() >= 2 && !groups[0].empty() && !groups[1].empty()) {
    std::swap(groups[0].back(), groups[1].front());
    return true;
  }
  if (groups.size() == 1 && groups[0].size() >= 2) {
    std::swap(groups[0][0], groups[0][1]);
    return true;
  }
  return false;
}

absl::StatusOr<bool> WrongGroup(HloInstruction* instruction) {
  if (IsCollectiveCall(*instruction)) {
    HOPT_ASSIGN_OR_RETURN(auto config,
                          neuron::ParseCollectiveConfig(instruction->backend_config()));
    if (!MisgroupDevices(config.replica_groups)) return kSkip;
    instruction->set_backend_config(neuron::FormatCollectiveConfig(config), /*raw=*/true);
    return true;
  }
  std::optional<hopt::ReplicaGroupList> groups = instruction->replica_groups();
  if (!groups || groups->is_iota || !MisgroupDevices(groups->groups)) return kSkip;
  instruction->set_replica_groups(*groups);
  return true;
}

// --- dimensions ------------------------------------------------------------

// The shape `instruction` would have if it worked along `to` instead of
// `from` (gathers and concatenates grow a dimension, scatters shrink one);
// nullopt when the sizes do not allow it.
std::optional<Shape> ShapeAlong(const HloInstruction& instruction, int64_t from, int64_t to) {
  const Shape& operand = instruction.operand(0)->shape();
  const Shape& result = instruction.shape();
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  switch (instruction.opcode()) {
    case HloOpcode::kConcatenate:
      for (const HloInstruction* other : instruction.operands())
        if (!other->shape().SameDimensions(operand)) return std::nullopt;
      dims[to] *= instruction.operand_count();
      break;
    case HloOpcode::kReduceScatter: {
      int64_t parts = operand.dimensions(from) / result.dimensions(from);
      if (dims[to] % parts != 0) return std::nullopt;
      dims[to] /= parts;
      break;
    }
    default: {  // gathers, native or custom-call
      if (instruction.opcode() == HloOpcode::kCustomCall &&
          absl::StartsWith(instruction.custom_call_target(), "AwsNeuronReduceScatter")) {
        int64_t parts = operand.dimensions(from) / result.dimensions(from);
        if (dims[to] % parts != 0) return std::nullopt;
        dims[to] /= parts;
      } else {
        dims[to] *= result.dimensions(from) / operand.dimensions(from);
      }
    }
  }
  Shape shape(result.element_type(), dims);
  if (result.has_layout()) shape.SetDefaultLayout();
  return shape;
}

absl::StatusOr<bool> WrongDimension(HloInstruction* instruction) {
  bool native = instruction->opcode() == HloOpcode::kAllGather ||
                instruction->opcode() == HloOpcode::kReduceScatter ||
                instruction->opcode() == HloOpcode::kConcatenate;
  bool call = IsCollectiveCall(*instruction) &&
              !absl::StartsWith(instruction->custom_call_target(), "AwsNeuronAllReduce");
  if ((!native && !call) || instruction->operand_count() < 1 || !instruction->shape().IsArray() ||
      instruction->shape().rank() < 2)
    return kSkip;
  std::optional<neuron::CollectiveConfig> config;
  int64_t from = 0;
  if (native) {
    std::vector<int64_t> dims = instruction->dimensions();
    if (dims.size() != 1) return kSkip;
    from = dims[0];
  } else {
    HOPT_ASSIGN_OR_RETURN(auto parsed,
                          neuron::ParseCollectiveConfig(instruction->backend_config()));
    if (!parsed.dimension) return kSkip;
    config = parsed;
    from = *parsed.dimension;
  }
  int64_t rank = instruction->shape().rank();
  for (int64_t step = 1; step < rank; ++step) {
    int64_t to = (from + step) % rank;
    if (instruction->shape().dimensions(to) == 1) continue;  // moving onto 1 changes nothing
    std::optional<Shape> shape = ShapeAlong(*instruction, from, to);
    if (!shape) continue;
    std::vector<int64_t> old_dims(instruction->shape().dimensions().begin(),
                                  instruction->shape().dimensions().end());
    instruction->set_shape(*shape);
    if (native) {
      instruction->set_dimensions({to});
    } else {
      config->dimension = to;
      instruction->set_backend_config(neuron::FormatCollectiveConfig(*config), /*raw=*/true);
    }
    HOPT_ASSIGN_OR_RETURN(auto back, hopt::MakeReshape(instruction, old_dims));
    HOPT_RETURN_IF_ERROR(RedirectUses(instruction, back));
    return true;
  }
  return kSkip;
}

// --- operations --------------------------------------------------------------

std::optional<HloOpcode> OtherOp(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd: return HloOpcode::kMaximum;
    // Not maximum <-> minimum: maximum(r, r) and minimum(r, r) agree.
    case HloOpcode::kMaximum: return HloOpcode::kAdd;
    case HloOpcode::kMinimum: return HloOpcode::kAdd;
    case HloOpcode::kMultiply: return HloOpcode::kAdd;
    case HloOpcode::kSubtract: return HloOpcode::kAdd;
    default: return std::nullopt;
  }
}

// The reduce-op word of the custom-call target names (collectives plugin).
std::optional<absl::string_view> TargetOpWord(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd: return "Add";
    case HloOpcode::kMaximum: return "Max";
    case HloOpcode::kMinimum: return "Min";
    default: return std::nullopt;
  }
}

// Gives `instruction` the reducer `opcode` over `type`; a collective
// custom-call's target says the op and type too, as its semantics check.
absl::StatusOr<bool> Rereduce(HloInstruction* instruction, HloOpcode opcode, PrimitiveType type) {
  HloComputation* reducer = instruction->to_apply();
  if (reducer == nullptr) return kSkip;
  HloOpcode old_op = reducer->root_instruction()->opcode();
  PrimitiveType old_type = reducer->root_instruction()->shape().element_type();
  if (IsCollectiveCall(*instruction)) {
    std::optional<absl::string_view> old_word = TargetOpWord(old_op);
    std::optional<absl::string_view> new_word = TargetOpWord(opcode);
    if (!old_word || !new_word) return kSkip;
    std::string target =
        absl::StrReplaceAll(instruction->custom_call_target(),
                            {{absl::StrCat(*old_word, "_", hopt::PrimitiveTypeString(old_type)),
                              absl::StrCat(*new_word, "_", hopt::PrimitiveTypeString(type))}});
    instruction->set_custom_call_target(target);
  }
  HOPT_ASSIGN_OR_RETURN(auto computation,
                        hopt::MakeScalarReduction(instruction->parent()->parent(), opcode, type));
  instruction->SetComputationAttribute("to_apply", computation);
  return true;
}

absl::StatusOr<bool> WrongReduceOp(HloInstruction* instruction) {
  if (instruction->to_apply() == nullptr) return kSkip;
  const HloInstruction* root = instruction->to_apply()->root_instruction();
  std::optional<HloOpcode> other = OtherOp(root->opcode());
  if (!other) return kSkip;
  return Rereduce(instruction, *other, root->shape().element_type());
}

absl::StatusOr<bool> WrongElementwiseOp(HloInstruction* instruction) {
  std::optional<HloOpcode> other = OtherOp(instruction->opcode());
  if (!other || instruction->operand_count() != 2) return kSkip;
  HloComputation* computation = instruction->parent();
  std::vector<HloInstruction*> operands(instruction->operands().begin(),
                                        instruction->operands().end());
  HloInstruction* replacement =
      computation->AddInstructionInPlaceOf(instruction, *other, instruction->shape(), operands);
  HOPT_RETURN_IF_ERROR(RedirectUses(instruction, replacement));
  HOPT_RETURN_IF_ERROR(computation->RemoveInstruction(instruction));
  return true;
}

// --- slices ------------------------------------------------------------------

absl::StatusOr<bool> ShiftedSlice(HloInstruction* instruction) {
  const Shape& operand = instruction->operand(0)->shape();
  if (instruction->opcode() == HloOpcode::kSlice) {
    std::vector<hopt::SliceDimension> slice = instruction->slice();
    for (size_t d = 0; d < slice.size(); ++d) {
      int64_t shift = slice[d].start > 0 ? -1 : slice[d].limit < operand.dimensions(d) ? 1 : 0;
      if (shift == 0) continue;
      slice[d].start += shift;
      slice[d].limit += shift;
      instruction->SetAttributeText("slice", hopt::FormatSlice(slice));
      return true;
    }
    return kSkip;
  }
  if (instruction->opcode() != HloOpcode::kDynamicSlice) return kSkip;
  std::vector<int64_t> sizes = instruction->dynamic_slice_sizes();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == operand.dimensions(d)) continue;  // a clamped start could not move
    HloInstruction* start = instruction->mutable_operand(d + 1);
    HOPT_ASSIGN_OR_RETURN(auto one, hopt::MakeScalarConstant(instruction->parent(),
                                                             start->shape().element_type(), 1));
    HOPT_ASSIGN_OR_RETURN(auto shifted, hopt::MakeBinary(HloOpcode::kAdd, start, one));
    instruction->ReplaceOperandWith(d + 1, shifted);
    return true;
  }
  return kSkip;
}

// --- operands ----------------------------------------------------------------

bool IsCommutative(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor: return true;
    default: return false;
  }
}

absl::StatusOr<bool> SwappedOperands(HloInstruction* instruction) {
  if (IsCommutative(*instruction)) return kSkip;
  // The predicate of a select and the indices of slices are not data.
  int64_t first = instruction->opcode() == HloOpcode::kSelect ? 1 : 0;
  int64_t end =
      instruction->opcode() == HloOpcode::kDynamicSlice ? 1 : instruction->operand_count();
  for (int64_t i = first; i < end; ++i)
    for (int64_t j = i + 1; j < end; ++j) {
      HloInstruction* a = instruction->mutable_operand(i);
      HloInstruction* b = instruction->mutable_operand(j);
      if (a == b || a->shape() != b->shape()) continue;
      instruction->ReplaceOperandWith(i, b);
      instruction->ReplaceOperandWith(j, a);
      return true;
    }
  return kSkip;
}

// An operand of `value` with its shape: reading it instead of `value` skips
// one step of the computation and cannot close a cycle.
HloInstruction* StaleVersionOf(HloInstruction* value) {
  for (HloInstruction* earlier : value->operands())
    if (earlier->shape() == value->shape() && earlier != value) return earlier;
  return nullptr;
}

absl::StatusOr<bool> StaleOperand(HloInstruction* instruction) {
  for (int64_t k = 0; k < instruction->operand_count(); ++k) {
    HloInstruction* stale = StaleVersionOf(instruction->mutable_operand(k));
    if (stale == nullptr) continue;
    instruction->ReplaceOperandWith(k, stale);
    return true;
  }
  return kSkip;
}

// A marker (or any reader) of a tuple gets a copy of it with one element
// one step stale: the "forwards the wrong element" bug.
absl::StatusOr<bool> StaleTupleElement(HloInstruction* instruction) {
  for (int64_t k = 0; k < instruction->operand_count(); ++k) {
    HloInstruction* tuple = instruction->mutable_operand(k);
    if (tuple->opcode() != HloOpcode::kTuple) continue;
    std::vector<HloInstruction*> elements(tuple->operands().begin(), tuple->operands().end());
    // From the last element: loop bodies keep their counter first, and a
    // stale counter would never end the loop the random check runs.
    for (auto element = elements.rbegin(); element != elements.rend(); ++element) {
      HloInstruction* stale = StaleVersionOf(*element);
      if (stale == nullptr) continue;
      *element = stale;
      HOPT_ASSIGN_OR_RETURN(auto copy, hopt::MakeTuple(instruction->parent(), elements));
      instruction->ReplaceOperandWith(k, copy);
      return true;
    }
  }
  return kSkip;
}

absl::StatusOr<bool> WrongTupleIndex(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kGetTupleElement) return kSkip;
  const Shape& tuple = instruction->operand(0)->shape();
  int64_t index = instruction->tuple_index();
  for (int64_t other = 0; other < tuple.tuple_shapes_size(); ++other)
    if (other != index && tuple.tuple_shapes(other) == instruction->shape()) {
      instruction->SetAttributeText("index", absl::StrCat(other));
      return true;
    }
  return kSkip;
}

// --- types and constants -------------------------------------------------------

std::optional<PrimitiveType> OtherSignedness(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::S32: return PrimitiveType::U32;
    case PrimitiveType::U32: return PrimitiveType::S32;
    default: return std::nullopt;
  }
}

// The collective runs on the other signedness, between two converts that
// keep the bits: equal for add, wrong for maximum and minimum.
absl::StatusOr<bool> WrongDtype(HloInstruction* instruction) {
  if (instruction->to_apply() == nullptr || instruction->operand_count() != 1 ||
      !instruction->shape().IsArray())
    return kSkip;
  HloOpcode op = instruction->to_apply()->root_instruction()->opcode();
  PrimitiveType type = instruction->shape().element_type();
  std::optional<PrimitiveType> other = OtherSignedness(type);
  if (!other || (op != HloOpcode::kMaximum && op != HloOpcode::kMinimum)) return kSkip;
  HOPT_ASSIGN_OR_RETURN(auto converted, hopt::MakeConvert(instruction->mutable_operand(0), *other));
  HOPT_ASSIGN_OR_RETURN(auto changed, Rereduce(instruction, op, *other));
  if (!changed) return kSkip;
  instruction->ReplaceOperandWith(0, converted);
  Shape shape = instruction->shape();
  shape.set_element_type(*other);
  instruction->set_shape(shape);
  HOPT_ASSIGN_OR_RETURN(auto back, hopt::MakeConvert(instruction, type));
  HOPT_RETURN_IF_ERROR(RedirectUses(instruction, back));
  return true;
}

// Two entries of a small integer or pred table swapped (or, all equal, the
// first one changed): a wrong source index or mask on some devices.
absl::StatusOr<bool> WrongTable(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kConstant || instruction->shape().rank() != 1 ||
      instruction->shape().dimensions(0) < 2)
    return kSkip;
  absl::string_view text = instruction->literal_text();
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) return kSkip;
  std::vector<std::string> entries = absl::StrSplit(text, ',');
  for (std::string& entry : entries) entry = std::string(absl::StripAsciiWhitespace(entry));
  for (size_t k = 1; k < entries.size(); ++k)
    if (entries[k] != entries[0]) {
      std::swap(entries[0], entries[k]);
      instruction->set_literal_text(absl::StrCat("{", absl::StrJoin(entries, ", "), "}"));
      return true;
    }
  int64_t first = 0;
  if (!absl::SimpleAtoi(entries[0], &first)) return kSkip;
  entries[0] = absl::StrCat(first == 0 ? 1 : 0);
  instruction->set_literal_text(absl::StrCat("{", absl::StrJoin(entries, ", "), "}"));
  return true;
}

// A reduce whose init is its type's extreme value (the identity of maximum
// or minimum) starts one step inside instead: wrong only when every element
// is that extreme, which random inputs never are.
absl::StatusOr<bool> WrongInit(HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kReduce || instruction->operand_count() != 2)
    return kSkip;
  HloInstruction* init = instruction->mutable_operand(1);
  PrimitiveType type = init->shape().element_type();
  int64_t value = 0;
  if (init->opcode() != HloOpcode::kConstant || !hopt::IsIntegralType(type) ||
      !absl::SimpleAtoi(init->literal_text(), &value))
    return kSkip;
  int64_t inward = value <= 0 ? value + 1 : value - 1;
  HOPT_ASSIGN_OR_RETURN(auto moved, hopt::MakeScalarConstant(instruction->parent(), type,
                                                             static_cast<double>(inward)));
  instruction->ReplaceOperandWith(1, moved);
  return true;
}

// a + b computed in 64 bits and clamped to the 32-bit range: the same as
// the wrapping add unless the sum overflows.
absl::StatusOr<bool> Overflow(HloInstruction* instruction) {
  PrimitiveType type = instruction->shape().element_type();
  if (instruction->opcode() != HloOpcode::kAdd ||
      (type != PrimitiveType::S32 && type != PrimitiveType::U32))
    return kSkip;
  bool is_signed = type == PrimitiveType::S32;
  PrimitiveType wide = is_signed ? PrimitiveType::S64 : PrimitiveType::U64;
  double low = is_signed ? std::numeric_limits<int32_t>::min() : 0;
  double high =
      is_signed ? std::numeric_limits<int32_t>::max() : std::numeric_limits<uint32_t>::max();
  HloComputation* computation = instruction->parent();
  std::vector<int64_t> dims(instruction->shape().dimensions().begin(),
                            instruction->shape().dimensions().end());
  HOPT_ASSIGN_OR_RETURN(auto a, hopt::MakeConvert(instruction->mutable_operand(0), wide));
  HOPT_ASSIGN_OR_RETURN(auto b, hopt::MakeConvert(instruction->mutable_operand(1), wide));
  HOPT_ASSIGN_OR_RETURN(auto sum, hopt::MakeBinary(HloOpcode::kAdd, a, b));
  HOPT_ASSIGN_OR_RETURN(auto low_scalar, hopt::MakeScalarConstant(computation, wide, low));
  HOPT_ASSIGN_OR_RETURN(auto high_scalar, hopt::MakeScalarConstant(computation, wide, high));
  HOPT_ASSIGN_OR_RETURN(auto low_all, hopt::MakeBroadcast(low_scalar, dims, {}));
  HOPT_ASSIGN_OR_RETURN(auto high_all, hopt::MakeBroadcast(high_scalar, dims, {}));
  HOPT_ASSIGN_OR_RETURN(auto capped, hopt::MakeBinary(HloOpcode::kMinimum, sum, high_all));
  HOPT_ASSIGN_OR_RETURN(auto clamped, hopt::MakeBinary(HloOpcode::kMaximum, capped, low_all));
  HOPT_ASSIGN_OR_RETURN(auto narrow, hopt::MakeConvert(clamped, type));
  HOPT_RETURN_IF_ERROR(RedirectUses(instruction, narrow));
  HOPT_RETURN_IF_ERROR(computation->RemoveInstruction(instruction));
  return true;
}

// --- send/recv pairs -------------------------------------------------------------

constexpr absl::string_view kSendRecvPairsKey = "_xla_send_recv_source_target_pairs";

using Pairs = std::vector<std::pair<int64_t, int64_t>>;

Pairs Reversed(const Pairs& pairs) {
  Pairs reversed;
  for (const auto& [source, target] : pairs) reversed.push_back({target, source});
  return reversed;
}

Pairs Rotated(const Pairs& pairs) {
  Pairs rotated;
  for (size_t k = 0; k < pairs.size(); ++k)
    rotated.push_back({pairs[(k + 1) % pairs.size()].first, pairs[k].second});
  return rotated;
}

// Rewrites the pairs of a collective-permute or of a fused send/recv (its
// frontend attribute).
absl::StatusOr<bool> RewritePairs(HloInstruction* instruction, Pairs (*rewrite)(const Pairs&)) {
  if (instruction->opcode() == HloOpcode::kCollectivePermute) {
    Pairs pairs = instruction->source_target_pairs();
    if (pairs.size() < 2) return kSkip;
    instruction->set_source_target_pairs(rewrite(pairs));
    return true;
  }
  std::vector<std::pair<std::string, std::string>> attributes = instruction->frontend_attributes();
  for (auto& [key, value] : attributes) {
    if (key != kSendRecvPairsKey) continue;
    HOPT_ASSIGN_OR_RETURN(auto pairs, hopt::ParseSourceTargetPairs(value));
    if (pairs.size() < 2) return kSkip;
    value = hopt::FormatSourceTargetPairs(rewrite(pairs));
    instruction->set_frontend_attributes(attributes);
    return true;
  }
  return kSkip;
}

absl::StatusOr<bool> Apply(Corruption corruption, HloInstruction* instruction) {
  switch (corruption) {
    case Corruption::kWrongGroup: return WrongGroup(instruction);
    case Corruption::kWrongDimension: return WrongDimension(instruction);
    case Corruption::kWrongReduceOp: return WrongReduceOp(instruction);
    case Corruption::kWrongElementwiseOp: return WrongElementwiseOp(instruction);
    case Corruption::kShiftedSlice: return ShiftedSlice(instruction);
    case Corruption::kSwappedOperands: return SwappedOperands(instruction);
    case Corruption::kWrongDtype: return WrongDtype(instruction);
    case Corruption::kPairsReversed: return RewritePairs(instruction, &Reversed);
    case Corruption::kPairsRotated: return RewritePairs(instruction, &Rotated);
    case Corruption::kWrongTable: return WrongTable(instruction);
    case Corruption::kStaleOperand: return StaleOperand(instruction);
    case Corruption::kStaleTupleElement: return StaleTupleElement(instruction);
    case Corruption::kWrongTupleIndex: return WrongTupleIndex(instruction);
    case Corruption::kWrongInit: return WrongInit(instruction);
    case Corruption::kOverflow: return Overflow(instruction);
  }
  return kSkip;
}

}  // namespace

absl::string_view CorruptionName(Corruption corruption) {
  switch (corruption) {
    case Corruption::kWrongGroup: return "wrong group";
    case Corruption::kWrongDimension: return "wrong dimension";
    case Corruption::kWrongReduceOp: return "wrong reduction op";
    case Corruption::kWrongElementwiseOp: return "wrong elementwise op";
    case Corruption::kShiftedSlice: return "shifted slice";
    case Corruption::kSwappedOperands: return "swapped operands";
    case Corruption::kWrongDtype: return "wrong dtype";
    case Corruption::kPairsReversed: return "send/recv pairs reversed";
    case Corruption::kPairsRotated: return "pairs from the wrong source";
    case Corruption::kWrongTable: return "wrong id table";
    case Corruption::kStaleOperand: return "stale operand";
    case Corruption::kStaleTupleElement: return "wrong tuple element forwarded";
    case Corruption::kWrongTupleIndex: return "wrong tuple index";
    case Corruption::kWrongInit: return "wrong reduce init";
    case Corruption::kOverflow: return "integer overflow";
  }
  return "?";
}

absl::StatusOr<std::string> Corrupt(Corruption corruption, absl::string_view site,
                                    const std::vector<HloInstruction*>& touched) {
  for (HloInstruction* instruction : touched) {
    if (!Matches(*instruction, site)) continue;
    std::string name(instruction->name());
    absl::StatusOr<bool> applied = Apply(corruption, instruction);
    if (!applied.ok()) return applied.status();
    if (*applied) return name;
  }
  return absl::NotFoundError(absl::StrCat("no instruction the pass created or rewired matches '",
                                          site, "' and takes the corruption '",
                                          CorruptionName(corruption), "'"));
}

}  // namespace hopt_test_mutants

// SPDX-License-Identifier: Apache-2.0

#include "hopt/eval/opaque_calls.h"

#include <cstring>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/support/diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SHA256.h"

namespace hopt {
namespace eval {
namespace {

// Every field is length-prefixed, so that ("ab", "c") and ("a", "bc")
// hash differently.
void AddBytes(llvm::SHA256& hasher, const void* data, size_t size) {
  uint64_t length = size;
  hasher.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&length), 8));
  hasher.update(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t*>(data), size));
}
void AddText(llvm::SHA256& hasher, absl::string_view text) {
  AddBytes(hasher, text.data(), text.size());
}
void AddWord(llvm::SHA256& hasher, uint64_t word) { AddBytes(hasher, &word, 8); }

uint64_t DoubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

// The values as the interpreter stores them (each element widened to 64
// bits, already rounded or wrapped to its type): equal values, equal bytes.
void AddValue(llvm::SHA256& hasher, const Literal& value) {
  AddText(hasher, value.shape().ToString(/*print_layout=*/false));
  if (value.shape().IsTuple()) {
    for (const Literal& element : value.tuple_elements()) AddValue(hasher, element);
    return;
  }
  if (!value.shape().IsArray()) return;
  PrimitiveType type = value.shape().element_type();
  std::vector<uint64_t> words;
  words.reserve(value.element_count() * (IsComplexType(type) ? 2 : 1));
  for (int64_t k = 0; k < value.element_count(); ++k) {
    if (IsComplexType(type)) {
      std::complex<double> c = value.GetAsComplex(k);
      words.push_back(DoubleBits(c.real()));
      words.push_back(DoubleBits(c.imag()));
    } else if (IsFloatingPointType(type)) {
      words.push_back(DoubleBits(value.GetAsDouble(k)));
    } else {
      words.push_back(static_cast<uint64_t>(value.GetAsInt64(k)));
    }
  }
  AddBytes(hasher, words.data(), words.size() * 8);
}

// A float from 8 random bytes: a multiple of 1/64 in [-2, 2), exact in
// every float type of 8 significant bits or more.
double FloatFrom(uint64_t bits) {
  return static_cast<double>(static_cast<int64_t>(bits % 256) - 128) / 64.0;
}

void Fill(Literal& value, const OpaqueCallDigest& digest, uint64_t& leaf) {
  const Shape& shape = value.shape();
  if (shape.IsTuple()) {
    for (Literal& element : value.mutable_tuple_elements()) Fill(element, digest, leaf);
    return;
  }
  uint64_t my_leaf = leaf++;
  if (!shape.IsArray()) return;
  PrimitiveType type = shape.element_type();
  std::array<uint8_t, 32> block{};
  uint64_t block_number = ~uint64_t{0};
  auto word = [&](uint64_t index) {
    // Counter mode: one SHA-256 of (digest, leaf, index / 4) for every
    // four 64-bit words.
    if (index / 4 != block_number) {
      block_number = index / 4;
      llvm::SHA256 hasher;
      hasher.update(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()));
      AddWord(hasher, my_leaf);
      AddWord(hasher, block_number);
      block = hasher.final();
    }
    uint64_t bits;
    std::memcpy(&bits, block.data() + (index % 4) * 8, 8);
    return bits;
  };
  for (int64_t k = 0; k < value.element_count(); ++k) {
    if (IsComplexType(type)) {
      value.SetFromComplex(k, {FloatFrom(word(2 * k)), FloatFrom(word(2 * k + 1))});
    } else if (IsFloatingPointType(type)) {
      value.SetFromDouble(k, FloatFrom(word(k)));
    } else if (type == PrimitiveType::PRED) {
      value.SetFromInt64(k, static_cast<int64_t>(word(k) & 1));
    } else if (IsUnsignedIntegralType(type)) {
      value.SetFromInt64(k, WrapToIntegralType(static_cast<int64_t>(word(k) % 256), type));
    } else {
      value.SetFromInt64(k, WrapToIntegralType(static_cast<int64_t>(word(k) % 256) - 128, type));
    }
  }
}

}  // namespace

OpaqueCallDigest DigestOpaqueCall(const HloInstruction& call,
                                  absl::Span<const Literal* const> operands) {
  llvm::SHA256 hasher;
  AddText(hasher, "hopt opaque custom-call v1");
  AddText(hasher, call.custom_call_target());
  AddText(hasher, call.backend_config());
  AddWord(hasher, operands.size());
  for (const Literal* operand : operands) AddValue(hasher, *operand);
  AddText(hasher, call.shape().ToString(/*print_layout=*/false));
  return hasher.final();
}

Literal OpaqueCallResult(const Shape& shape, const OpaqueCallDigest& digest) {
  Literal value(shape);
  uint64_t leaf = 0;
  Fill(value, digest, leaf);
  return value;
}

std::string ShortDigest(const OpaqueCallDigest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (int k = 0; k < 8; ++k) {
    text.push_back(kHex[digest[k] >> 4]);
    text.push_back(kHex[digest[k] & 15]);
  }
  return text;
}

std::string CompareOpaqueCallLogs(const std::vector<OpaqueCall>& first,
                                  const std::vector<OpaqueCall>& second,
                                  absl::string_view first_label, absl::string_view second_label) {
  struct Count {
    int64_t first = 0, second = 0;
    std::string name;  // from the first call seen
  };
  // Ordered by target, then digest: the report is the same whatever order
  // the calls ran in.
  std::map<std::pair<std::string, OpaqueCallDigest>, Count> counts;
  for (const OpaqueCall& call : first) {
    Count& count = counts[{call.target, call.digest}];
    if (count.first++ == 0 && count.name.empty()) count.name = call.name;
  }
  for (const OpaqueCall& call : second) {
    Count& count = counts[{call.target, call.digest}];
    if (count.second++ == 0 && count.name.empty()) count.name = call.name;
  }
  std::vector<std::string> differences;
  for (const auto& [key, count] : counts) {
    if (count.first == count.second) continue;
    differences.push_back(absl::StrCat("opaque custom-call '", key.first, "' (%", count.name,
                                       ") on operands ", ShortDigest(key.second), " ran ",
                                       count.first, " time(s) ", first_label, ", ", count.second,
                                       " ", second_label));
  }
  if (differences.empty()) return "";
  std::string text = differences[0];
  if (differences.size() > 1)
    absl::StrAppend(&text, "; and ", differences.size() - 1, " more difference(s)");
  return text;
}

std::vector<OpaqueTarget> FindOpaqueTargets(const HloModule& module,
                                            const CustomCallTable* custom_calls) {
  std::vector<OpaqueTarget> found;
  absl::flat_hash_set<std::string> seen;
  for (const HloComputation* computation : module.computations())
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kCustomCall) continue;
      std::string target = instruction->custom_call_target();
      if ((custom_calls != nullptr && custom_calls->Handles(*instruction)) ||
          !seen.insert(target).second)
        continue;
      found.push_back({target, instruction});
    }
  return found;
}

absl::Status RefuseOpaqueCustomCalls(const HloModule& module, const CustomCallTable* custom_calls) {
  std::vector<OpaqueTarget> found = FindOpaqueTargets(module, custom_calls);
  if (found.empty()) return absl::OkStatus();
  const HloInstruction& call = *found[0].first_call;
  std::string message = absl::StrCat(
      "interpreter: %", call.name(), ": no semantics registered for custom-call target '",
      found[0].target,
      "' and -opaque-custom-calls=refuse (load the plugin that registers them, or leave "
      "-opaque-custom-calls=hash to run it as an opaque function)");
  HloModule::SourceLocation at = module.LocationOf(call);
  if (at.line > 0 && !module.source_name().empty())
    return LocatedError(absl::StatusCode::kUnimplemented, module.source_name(), at.line, at.column,
                        message);
  return absl::UnimplementedError(message);
}

std::string OpaqueTargetList(const std::vector<OpaqueTarget>& targets) {
  constexpr size_t kShown = 3;
  std::vector<std::string> names;
  for (size_t k = 0; k < targets.size() && k < kShown; ++k)
    names.push_back(absl::StrCat("'", targets[k].target, "'"));
  std::string text = absl::StrJoin(names, ", ");
  if (targets.size() > kShown) absl::StrAppend(&text, " and ", targets.size() - kShown, " more");
  return text;
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "core/prove/opaque_call_formula.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/prove/element_index.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace prove {
namespace {

// Length-prefixed, so that no two different calls spell the same key.
void AddField(std::string& key, absl::string_view field) {
  absl::StrAppend(&key, field.size(), ":", field, ";");
}

// What identifies the call, as the name of its seed constant: a different
// target, config, api_version or shape is a different function.
std::string CallKey(const HloInstruction& call, const std::vector<const SymValue*>& operands) {
  std::string key = "opaque.call;";
  AddField(key, call.custom_call_target());
  AddField(key, call.backend_config());
  AddField(key, call.api_version());
  for (const SymValue* operand : operands) AddField(key, operand->shape.ToString(false));
  AddField(key, call.shape().ToString(false));
  return key;
}

class OpaqueCallEncoder {
 public:
  explicit OpaqueCallEncoder(Encoder& encoder)
      : encoder_(encoder),
        context_(encoder.context()),
        digest_(context_.uninterpreted_sort("opaque.digest")),
        index_(context_.bv_sort(64)) {}

  // Every operand element, depth-first, as a digest leaf.
  absl::Status AddLeaves(const SymValue& value) {
    for (const SymValue& element : value.tuple) HOPT_RETURN_IF_ERROR(AddLeaves(element));
    if (value.elements.empty()) return absl::OkStatus();
    PrimitiveType type = value.shape.element_type();
    HOPT_ASSIGN_OR_RETURN(z3::sort sort, encoder_.SortOf(type));
    z3::func_decl leaf = context_.function(
        absl::StrCat("opaque.leaf.", PrimitiveTypeString(type)).c_str(), sort, digest_);
    for (const z3::expr& x : value.elements) leaves_.push_back(leaf(x));
    return absl::OkStatus();
  }

  // The digest of the call: its seed joined with a balanced tree of the
  // leaves (depth logarithmic in the operands' size).
  z3::expr Digest(const std::string& key) {
    z3::expr seed = context_.constant(key.c_str(), digest_);
    if (leaves_.empty()) return seed;
    z3::func_decl join = context_.function("opaque.join", digest_, digest_, digest_);
    std::vector<z3::expr> level = leaves_;
    while (level.size() > 1) {
      std::vector<z3::expr> next;
      for (size_t k = 0; k + 1 < level.size(); k += 2) next.push_back(join(level[k], level[k + 1]));
      if (level.size() % 2 == 1) next.push_back(level.back());
      level = std::move(next);
    }
    return join(seed, level[0]);
  }

  // Leaves of the result numbered depth-first from 0, tokens included, as
  // the interpreter's OpaqueCallResult numbers them.
  absl::StatusOr<SymValue> Result(const Shape& shape, const z3::expr& digest, uint64_t& leaf) {
    SymValue value = ArrayOf(shape);
    if (shape.IsTuple()) {
      for (const Shape& element : shape.tuple_shapes()) {
        HOPT_ASSIGN_OR_RETURN(SymValue part, Result(element, digest, leaf));
        value.tuple.push_back(std::move(part));
      }
      return value;
    }
    uint64_t my_leaf = leaf++;
    if (!shape.IsArray()) return value;
    PrimitiveType type = shape.element_type();
    HOPT_ASSIGN_OR_RETURN(z3::sort sort, encoder_.SortOf(type));
    z3::func_decl out =
        context_.function(absl::StrCat("opaque.result.", PrimitiveTypeString(type)).c_str(),
                          digest_, index_, index_, sort);
    z3::expr leaf_index = context_.bv_val(my_leaf, 64);
    for (int64_t e = 0; e < shape.ElementCount(); ++e)
      value.elements.push_back(out(digest, leaf_index, context_.bv_val(e, 64)));
    return value;
  }

 private:
  Encoder& encoder_;
  z3::context& context_;
  z3::sort digest_;
  z3::sort index_;
  std::vector<z3::expr> leaves_;
};

}  // namespace

absl::StatusOr<SymValue> OpaqueCallFormula(Encoder& encoder, const HloInstruction& call,
                                           const std::vector<const SymValue*>& operands) {
  const std::string target = call.custom_call_target();
  if (const HloAttribute* effect = call.FindAttribute("custom_call_has_side_effect");
      effect != nullptr && effect->value == "true")
    return Unsupported(call, absl::StrCat("custom-call target '", target,
                                          "' has no registered semantics and has side effects, "
                                          "which no formula of its result shows"));
  OpaqueCallEncoder opaque(encoder);
  for (const SymValue* operand : operands) {
    absl::Status added = opaque.AddLeaves(*operand);
    if (!added.ok()) return Unsupported(call, added.message());
  }
  z3::expr digest = opaque.Digest(CallKey(call, operands));
  uint64_t leaf = 0;
  absl::StatusOr<SymValue> result = opaque.Result(call.shape(), digest, leaf);
  if (!result.ok()) return Unsupported(call, result.status().message());
  return result;
}

}  // namespace prove
}  // namespace hopt

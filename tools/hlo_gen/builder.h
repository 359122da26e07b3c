// SPDX-License-Identifier: Apache-2.0
// hlo-gen's text builder, shared by the layer model (generator.cc) and the
// optional features (generator_features.cc). Internal to tools/hlo_gen.

#ifndef HOPT_TOOLS_HLO_GEN_BUILDER_H_
#define HOPT_TOOLS_HLO_GEN_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tools/hlo_gen/generator.h"

namespace hlo_gen {
namespace internal {

// SplitMix64: small, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // One of n choices.
  int Pick(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

// Each layer and direction draws from its own stream, so a layer's text
// does not depend on the number of layers.
inline Rng LayerRng(uint64_t seed, int64_t layer, int direction) {
  Rng mix(seed ^ (static_cast<uint64_t>(layer) * 0xD1B54A32D192ED03ull) ^
          (static_cast<uint64_t>(direction + 1) << 56));
  return Rng(mix.Next());
}

// The module being written. Instructions go into the entry computation
// unless a nested computation (a while body or condition) is open; the
// reducers and the nested computations are written before the entry by
// Finish().
class Builder {
 public:
  explicit Builder(const Options& options);

  const Options& options() const { return o_; }
  const std::string& bh() const { return bh_; }  // activations, f32[B,H]
  const std::string& hh() const { return hh_; }  // weights, f32[H,H]

  // `  [ROOT ]%name = shape opcode(%a, %b)[, attrs]`
  void Emit(absl::string_view name, absl::string_view shape, absl::string_view opcode,
            std::initializer_list<absl::string_view> operands, absl::string_view attrs = {}) {
    Line(name, shape, opcode, operands.begin(), operands.end(), attrs, /*root=*/false);
  }
  void EmitList(absl::string_view name, absl::string_view shape, absl::string_view opcode,
                const std::vector<std::string>& operands, absl::string_view attrs,
                bool root = false) {
    Line(name, shape, opcode, operands.begin(), operands.end(), attrs, root);
  }

  // `  %name = shape opcode(literal)`: constants and parameters.
  void EmitLiteral(absl::string_view name, absl::string_view shape, absl::string_view opcode,
                   absl::string_view literal) {
    absl::StrAppend(out_, "  %", name, " = ", shape, " ", opcode, "(", literal, ")\n");
    ++count_;
  }

  // A scalar f32 constant `<prefix>_c.<layer>` broadcast to `shape` as
  // `<prefix>.<layer>` (without `.<layer>` for layer -1); returns the
  // broadcast.
  std::string Splat(absl::string_view prefix, int64_t layer, absl::string_view value,
                    absl::string_view shape);

  // A sum over the partitions of each replica (tensor parallelism).
  void PartitionAllReduce(absl::string_view name, absl::string_view shape,
                          absl::string_view operand) {
    Emit(name, shape, "all-reduce", {operand},
         absl::StrCat("channel_id=", ++channel_, ", replica_groups=", groups_,
                      ", use_global_device_ids=true, to_apply=%", Reducer("f32", "add")));
  }

  // The features' mesh axis: the partitions of each replica when there are
  // several partitions (XLA's cross-partition form: channel_id, flattened
  // ids, use_global_device_ids=true), otherwise all replicas (the
  // cross-replica form: no channel_id). AxisSize() devices per group.
  int64_t AxisSize() const { return axis_size_; }
  bool AxisByPartition() const { return o_.partitions > 1; }
  // The group attributes of one new collective (a fresh channel_id when by
  // partition), without a trailing comma.
  std::string AxisGroupAttrs() {
    if (!AxisByPartition()) return absl::StrCat("replica_groups=", axis_groups_);
    return absl::StrCat("channel_id=", ++channel_, ", replica_groups=", groups_,
                        ", use_global_device_ids=true");
  }
  int64_t NextChannel() { return ++channel_; }

  // A module marker over `operands` (name and shape each): one operand
  // gives that operand's shape, several a tuple of their shapes. Returns
  // the values inside the span: the marker itself, or one
  // get-tuple-element per operand, named `<gte_names[k]>`.
  std::vector<std::string> Marker(absl::string_view name, absl::string_view target, int64_t layer,
                                  const std::vector<std::pair<std::string, std::string>>& operands,
                                  const std::vector<std::string>& gte_names);

  // The name of the reducer computation `op` over `type` scalars, written
  // before the entry in order of first use.
  std::string Reducer(absl::string_view type, absl::string_view op);

  // Opens a computation `%name` written before the entry; instructions go
  // there until EndComputation().
  void BeginComputation(absl::string_view name) {
    absl::StrAppend(&nested_, "\n%", name, " {\n");
    out_ = &nested_;
  }
  void EndComputation() {
    nested_ += "}\n";
    out_ = &body_;
  }

  // Extra results of the feature instructions, appended to the root tuple.
  void AddOutput(std::string name, std::string shape) {
    outputs_.emplace_back(std::move(name), std::move(shape));
  }
  const std::vector<std::pair<std::string, std::string>>& outputs() const { return outputs_; }

  // The whole module: header, reducers, nested computations, entry.
  std::string Finish();

 private:
  template <typename It>
  void Line(absl::string_view name, absl::string_view shape, absl::string_view opcode, It begin,
            It end, absl::string_view attrs, bool root) {
    std::string& out = *out_;
    absl::StrAppend(&out, root ? "  ROOT %" : "  %", name, " = ", shape, " ", opcode, "(");
    for (It it = begin; it != end; ++it) absl::StrAppend(&out, it == begin ? "%" : ", %", *it);
    out += ')';
    if (!attrs.empty()) absl::StrAppend(&out, ", ", attrs);
    out += '\n';
    ++count_;
  }

  const Options& o_;
  std::string bh_, hh_, groups_, axis_groups_;
  int64_t axis_size_ = 1;
  std::string body_, nested_;
  std::string* out_ = &body_;
  std::vector<std::pair<std::string, std::string>> reducers_;
  std::vector<std::pair<std::string, std::string>> outputs_;
  int64_t channel_ = 0;
  int64_t count_ = 0;
};

// Feature instructions of forward layer i, emitted inside the layer's span
// after its activation: `act` (f32[B,H], in [-1, 1]) and `dot` (the
// layer's matmul) are the values they read. Their results join the root
// tuple through Builder::AddOutput. The prologue, emitted once after the
// entry parameters, holds what the layers share (the ids parameter, the
// reduce inits, the scale splat, the axis id).
void EmitFeaturePrologue(Builder& b);
void EmitLayerFeatures(Builder& b, int64_t layer, const std::string& act, const std::string& dot);

// Instructions the features add (InstructionCount's share).
int64_t FeatureInstructionCount(const Options& options);

}  // namespace internal
}  // namespace hlo_gen

#endif  // HOPT_TOOLS_HLO_GEN_BUILDER_H_

#include "tools/hlo_gen/generator.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace hlo_gen {
namespace {

constexpr absl::string_view kStartForward = "AwsNeuronModuleMarkerStart-Forward";
constexpr absl::string_view kEndForward = "AwsNeuronModuleMarkerEnd-Forward";
constexpr absl::string_view kStartBackward = "AwsNeuronModuleMarkerStart-Backward";
constexpr absl::string_view kEndBackward = "AwsNeuronModuleMarkerEnd-Backward";

// Instructions outside the layers: the reducers (2 x 3), the parameters
// other than the weights (2), the loss (7) and the epilogue with the root
// (6). InstructionCount() and the unit test keep the formula honest.
constexpr int64_t kFixedInstructions = 21;
// Per layer: forward 8 (+2 on layers whose Start takes the weights),
// backward 19, the weight parameter 1, and the filler of both directions.
constexpr int64_t kForwardInstructions = 8;
constexpr int64_t kBackwardInstructions = 19;
// The filler's broadcast constants: 3 constants + 3 broadcasts.
constexpr int64_t kFillerConstants = 6;

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
Rng LayerRng(uint64_t seed, int64_t layer, int direction) {
  Rng mix(seed ^ (static_cast<uint64_t>(layer) * 0xD1B54A32D192ED03ull) ^
          (static_cast<uint64_t>(direction + 1) << 56));
  return Rng(mix.Next());
}

// The module being written. Instructions go into `body_` (the entry
// computation); the reducers the instructions name are written before it
// by Finish().
class Builder {
 public:
  explicit Builder(const Options& options) : o_(options) {
    bh_ = absl::StrCat("f32[", o_.batch, ",", o_.hidden, "]");
    hh_ = absl::StrCat("f32[", o_.hidden, ",", o_.hidden, "]");
    // Tensor parallelism: each replica's partitions form one group of
    // flattened device ids (replica * P + partition).
    groups_ = "{";
    for (int64_t r = 0; r < o_.replicas; ++r) {
      absl::StrAppend(&groups_, r == 0 ? "{" : ",{");
      for (int64_t p = 0; p < o_.partitions; ++p)
        absl::StrAppend(&groups_, p == 0 ? "" : ",", r * o_.partitions + p);
      groups_ += "}";
    }
    groups_ += "}";
    body_.reserve(static_cast<size_t>(InstructionCount(o_)) * 72);
  }

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
    absl::StrAppend(&body_, "  %", name, " = ", shape, " ", opcode, "(", literal, ")\n");
    ++count_;
  }

  // A scalar f32 constant `<prefix>_c.<layer>` broadcast to `shape` as
  // `<prefix>.<layer>` (without `.<layer>` for layer -1); returns the
  // broadcast.
  std::string Splat(absl::string_view prefix, int64_t layer, absl::string_view value,
                    absl::string_view shape) {
    std::string suffix = layer < 0 ? "" : absl::StrCat(".", layer);
    std::string scalar = absl::StrCat(prefix, "_c", suffix);
    EmitLiteral(scalar, "f32[]", "constant", value);
    std::string splat = absl::StrCat(prefix, suffix);
    Emit(splat, shape, "broadcast", {scalar}, "dimensions={}");
    return splat;
  }

  // A sum over the partitions of each replica (tensor parallelism).
  void PartitionAllReduce(absl::string_view name, absl::string_view shape,
                          absl::string_view operand) {
    Emit(name, shape, "all-reduce", {operand},
         absl::StrCat("channel_id=", ++channel_, ", replica_groups=", groups_,
                      ", use_global_device_ids=true, to_apply=%", Reducer("f32", "add")));
  }

  // A module marker over `operands` (name and shape each): one operand
  // gives that operand's shape, several a tuple of their shapes. Returns
  // the values inside the span: the marker itself, or one
  // get-tuple-element per operand, named `<gte_names[k]>`.
  std::vector<std::string> Marker(absl::string_view name, absl::string_view target,
                                  int64_t layer,
                                  const std::vector<std::pair<std::string, std::string>>& operands,
                                  const std::vector<std::string>& gte_names) {
    std::string shape;
    std::vector<std::string> names;
    for (const auto& [operand, operand_shape] : operands) {
      names.push_back(operand);
      absl::StrAppend(&shape, shape.empty() ? "" : ", ", operand_shape);
    }
    if (operands.size() != 1) shape = absl::StrCat("(", shape, ")");
    std::string attrs = absl::StrCat("custom_call_target=\"", target, "\"");
    if (HasBoundaryCount(layer))
      absl::StrAppend(&attrs, ", backend_config=\"boundaryCount=", layer, "\"");
    EmitList(name, shape, "custom-call", names, attrs);
    if (operands.size() == 1) return {std::string(name)};
    std::vector<std::string> inside;
    for (size_t k = 0; k < operands.size(); ++k) {
      Emit(gte_names[k], operands[k].second, "get-tuple-element", {name},
           absl::StrCat("index=", k));
      inside.push_back(gte_names[k]);
    }
    return inside;
  }

  // The name of the reducer computation `op` over `type` scalars, written
  // before the entry. Later collectives (other types, max/min) add theirs.
  std::string Reducer(absl::string_view type, absl::string_view op) {
    std::string name = absl::StrCat(op, "_", type);
    for (const auto& [t, o] : reducers_)
      if (t == type && o == op) return name;
    reducers_.emplace_back(std::string(type), std::string(op));
    return name;
  }

  // The whole module: header, reducers, entry. The prefix is moved in
  // front of the body in place: no second buffer of the module's size.
  std::string Finish() {
    std::string reducers;
    for (const auto& [type, op] : reducers_) {
      absl::StrAppend(&reducers, "\n%", op, "_", type, " {\n  %a = ", type,
                      "[] parameter(0)\n  %b = ", type, "[] parameter(1)\n  ROOT %r = ", type,
                      "[] ", op, "(%a, %b)\n}\n");
      count_ += 3;
    }
    std::string prefix = absl::StrCat(
        "// Generated by hlo-gen: ", count_, " instructions.\n", "HloModule train_step_l",
        o_.layers, "_r", o_.replicas, "_p", o_.partitions, "_s", o_.seed,
        ", replica_count=", o_.replicas, ", num_partitions=", o_.partitions, "\n", reducers,
        "\nENTRY %main {\n");
    body_.insert(0, prefix);
    body_ += "}\n";
    return std::move(body_);
  }

 private:
  template <typename It>
  void Line(absl::string_view name, absl::string_view shape, absl::string_view opcode, It begin,
            It end, absl::string_view attrs, bool root) {
    absl::StrAppend(&body_, root ? "  ROOT %" : "  %", name, " = ", shape, " ", opcode, "(");
    for (It it = begin; it != end; ++it)
      absl::StrAppend(&body_, it == begin ? "%" : ", %", *it);
    body_ += ')';
    if (!attrs.empty()) absl::StrAppend(&body_, ", ", attrs);
    body_ += '\n';
    ++count_;
  }

  const Options& o_;
  std::string bh_, hh_, groups_;
  std::string body_;
  std::vector<std::pair<std::string, std::string>> reducers_;
  int64_t channel_ = 0;
  int64_t count_ = 0;
};

// The filler: `filler` elementwise ops chained from `value`, in groups of
// four that apply add(v, anchor), multiply(v, m), subtract(v, s) and
// maximum(v, floor) in an order the seed picks per group. Each full group
// multiplies by m <= 0.75, so the values stay bounded for any length.
// Returns the last value (`value` itself when there is no filler).
std::string Filler(Builder& b, absl::string_view dir, int64_t layer, const std::string& value,
                   const std::string& anchor, Rng& rng) {
  int64_t k_max = b.options().filler;
  if (k_max == 0) return value;
  static constexpr absl::string_view kMul[] = {"0.5", "0.25", "0.75", "0.625"};
  static constexpr absl::string_view kSub[] = {"0.125", "0.25", "0.375", "1.5"};
  static constexpr absl::string_view kFloor[] = {"-4", "-2", "-1.5", "-8"};
  std::string m = b.Splat(absl::StrCat(dir, "_m"), layer, kMul[rng.Pick(4)], b.bh());
  std::string s = b.Splat(absl::StrCat(dir, "_s"), layer, kSub[rng.Pick(4)], b.bh());
  std::string f = b.Splat(absl::StrCat(dir, "_floor"), layer, kFloor[rng.Pick(4)], b.bh());
  struct Op {
    absl::string_view opcode;
    const std::string* operand;
  };
  const Op ops[4] = {{"add", &anchor}, {"multiply", &m}, {"subtract", &s}, {"maximum", &f}};
  int order[4] = {0, 1, 2, 3};
  std::string prev = value, next;
  std::string prefix = absl::StrCat(dir, "_f.", layer, ".");
  for (int64_t k = 0; k < k_max; ++k) {
    if (k % 4 == 0) {
      for (int j = 3; j > 0; --j) std::swap(order[j], order[rng.Pick(j + 1)]);
    }
    const Op& op = ops[order[k % 4]];
    next = absl::StrCat(prefix, k);
    b.Emit(next, b.bh(), op.opcode, {prev, *op.operand});
    std::swap(prev, next);
  }
  return prev;
}

std::string ScaleValue(double scale) { return absl::StrFormat("%.9g", static_cast<float>(scale)); }

// Forward layer i, bracketed by Start-/End-Forward:
//   act_i = tanh(all-reduce(h @ w_i) / P), h_{i+1} = filler(act_i).
struct Forward {
  std::string input;  // h inside the span (what the backward layer reads)
  std::string act;    // act_i
  std::string out;    // the End marker: h_{i+1}
};

Forward EmitForwardLayer(Builder& b, int64_t i, const std::string& h_prev) {
  Rng rng = LayerRng(b.options().seed, i, 0);
  std::string weight = absl::StrCat("w.", i);
  std::vector<std::pair<std::string, std::string>> operands = {{h_prev, b.bh()}};
  if (ForwardStartTakesWeights(i)) operands.emplace_back(weight, b.hh());
  std::vector<std::string> inside =
      b.Marker(absl::StrCat("fwd_start.", i), kStartForward, i, operands,
               {absl::StrCat("fwd_h.", i), absl::StrCat("fwd_w.", i)});
  Forward f;
  f.input = inside[0];
  const std::string& w = inside.size() > 1 ? inside[1] : weight;
  std::string dot = absl::StrCat("fwd_dot.", i);
  b.Emit(dot, b.bh(), "dot", {f.input, w}, "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  std::string sum = absl::StrCat("fwd_ar.", i);
  b.PartitionAllReduce(sum, b.bh(), dot);
  double inverse_p = 1.0 / static_cast<double>(b.options().partitions);
  std::string scale = b.Splat("fwd_scale", i, ScaleValue(inverse_p), b.bh());
  std::string scaled = absl::StrCat("fwd_scaled.", i);
  b.Emit(scaled, b.bh(), "multiply", {sum, scale});
  f.act = absl::StrCat("fwd_act.", i);
  b.Emit(f.act, b.bh(), "tanh", {scaled});
  std::string last = Filler(b, "fwd", i, f.act, f.act, rng);
  f.out = b.Marker(absl::StrCat("fwd_end.", i), kEndForward, i, {{last, b.bh()}}, {})[0];
  return f;
}

// The loss between the directions: diff = h_L - t, loss = sum(diff^2),
// g = 2 * diff (the gradient the backward layers start from).
struct Loss {
  std::string loss;
  std::string g;
};

Loss EmitLoss(Builder& b, const std::string& h_last) {
  b.Emit("diff", b.bh(), "subtract", {h_last, "t"});
  b.Emit("sq", b.bh(), "multiply", {"diff", "diff"});
  b.EmitLiteral("zero", "f32[]", "constant", "0");
  b.Emit("loss", "f32[]", "reduce", {"sq", "zero"},
         absl::StrCat("dimensions={0,1}, to_apply=%", b.Reducer("f32", "add")));
  std::string two = b.Splat("two", -1, "2", b.bh());
  b.Emit("g", b.bh(), "multiply", {"diff", two});
  return {"loss", "g"};
}

// Backward layer i, bracketed by Start-/End-Backward over (g, act_i, h_i,
// w_i) and (g_next, dw_i):
//   dg = g * (1 - act_i^2), g_next = filler(all-reduce(dg @ w_i^T) / (P H)),
//   dw_i = h_i^T @ dg.
struct Backward {
  std::string g_next;
  std::string dw;
};

Backward EmitBackwardLayer(Builder& b, int64_t i, const std::string& g, const Forward& f) {
  Rng rng = LayerRng(b.options().seed, i, 1);
  std::string weight = absl::StrCat("w.", i);
  std::vector<std::string> in = b.Marker(
      absl::StrCat("bwd_start.", i), kStartBackward, i,
      {{g, b.bh()}, {f.act, b.bh()}, {f.input, b.bh()}, {weight, b.hh()}},
      {absl::StrCat("bwd_g.", i), absl::StrCat("bwd_act.", i), absl::StrCat("bwd_h.", i),
       absl::StrCat("bwd_w.", i)});
  const std::string &g_in = in[0], &act = in[1], &h = in[2], &w = in[3];
  std::string one = b.Splat("bwd_one", i, "1", b.bh());
  std::string act2 = absl::StrCat("bwd_act2.", i);
  b.Emit(act2, b.bh(), "multiply", {act, act});
  std::string dact = absl::StrCat("bwd_dact.", i);
  b.Emit(dact, b.bh(), "subtract", {one, act2});
  std::string dg = absl::StrCat("bwd_dg.", i);
  b.Emit(dg, b.bh(), "multiply", {g_in, dact});
  std::string dot = absl::StrCat("bwd_dot.", i);
  b.Emit(dot, b.bh(), "dot", {dg, w}, "lhs_contracting_dims={1}, rhs_contracting_dims={1}");
  std::string sum = absl::StrCat("bwd_ar.", i);
  b.PartitionAllReduce(sum, b.bh(), dot);
  std::string scale = b.Splat(
      "bwd_scale", i,
      ScaleValue(1.0 / static_cast<double>(b.options().partitions * b.options().hidden)), b.bh());
  std::string scaled = absl::StrCat("bwd_scaled.", i);
  b.Emit(scaled, b.bh(), "multiply", {sum, scale});
  std::string dw = absl::StrCat("bwd_dw.", i);
  b.Emit(dw, b.hh(), "dot", {h, dg}, "lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  std::string last = Filler(b, "bwd", i, scaled, act, rng);
  std::vector<std::string> out =
      b.Marker(absl::StrCat("bwd_end.", i), kEndBackward, i, {{last, b.bh()}, {dw, b.hh()}},
               {absl::StrCat("bwd_gnext.", i), absl::StrCat("bwd_dwout.", i)});
  return {out[0], out[1]};
}

// The token count, summed over the replicas (no channel_id: cross-replica),
// and the root tuple (loss, g_0, dw_0 .. dw_{L-1}, tokens).
void EmitEpilogue(Builder& b, const std::string& loss, const std::string& g0,
                  const std::vector<std::string>& dw) {
  b.Emit("replica", "u32[]", "replica-id", {});
  b.Emit("replica_s32", "s32[]", "convert", {"replica"});
  b.EmitLiteral("batch_tokens", "s32[]", "constant", absl::StrCat(b.options().batch));
  b.Emit("tokens", "s32[]", "add", {"replica_s32", "batch_tokens"});
  b.Emit("token_count", "s32[]", "all-reduce", {"tokens"},
         absl::StrCat("replica_groups={}, to_apply=%", b.Reducer("s32", "add")));
  std::vector<std::string> results = {loss, g0};
  std::string shape = absl::StrCat("(f32[], ", b.bh());
  for (const std::string& d : dw) {
    results.push_back(d);
    absl::StrAppend(&shape, ", ", b.hh());
  }
  results.push_back("token_count");
  shape += ", s32[])";
  b.EmitList("result", shape, "tuple", results, {}, /*root=*/true);
}

}  // namespace

absl::Status Validate(const Options& o) {
  auto range = [](absl::string_view flag, int64_t value, int64_t lo, int64_t hi) {
    if (value >= lo && value <= hi) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("-", flag, " must be from ", lo, " to ", hi, " (got ", value, ")"));
  };
  for (absl::Status s : {range("layers", o.layers, 1, kMaxLayers),
                         range("replicas", o.replicas, 1, kMaxDevices),
                         range("partitions", o.partitions, 1, kMaxDevices),
                         range("batch", o.batch, 1, kMaxDimension),
                         range("hidden", o.hidden, 1, kMaxDimension),
                         range("filler", o.filler, 0, kMaxFiller)})
    if (!s.ok()) return s;
  if (o.replicas * o.partitions > kMaxDevices)
    return absl::InvalidArgumentError(absl::StrCat("-replicas times -partitions must be at most ",
                                                   kMaxDevices, " (got ", o.replicas, " x ",
                                                   o.partitions, ")"));
  if (int64_t n = InstructionCount(o); n > kMaxInstructions)
    return absl::InvalidArgumentError(absl::StrCat(
        "the module would have ", n, " instructions; at most ", kMaxInstructions,
        " are supported (lower -layers or -filler)"));
  return absl::OkStatus();
}

int64_t InstructionCount(const Options& o) {
  int64_t filler = o.filler > 0 ? o.filler + kFillerConstants : 0;
  int64_t with_weights = (o.layers + 1) / 2;  // even layers' Start takes w_i: +2 each
  return kFixedInstructions +
         o.layers * (1 + kForwardInstructions + kBackwardInstructions + 2 * filler) +
         2 * with_weights;
}

std::string Generate(const Options& o) {
  Builder b(o);
  b.EmitLiteral("x", b.bh(), "parameter", "0");
  for (int64_t i = 0; i < o.layers; ++i)
    b.EmitLiteral(absl::StrCat("w.", i), b.hh(), "parameter", absl::StrCat(i + 1));
  b.EmitLiteral("t", b.bh(), "parameter", absl::StrCat(o.layers + 1));

  std::vector<Forward> forward;
  forward.reserve(static_cast<size_t>(o.layers));
  std::string h = "x";
  for (int64_t i = 0; i < o.layers; ++i) {
    forward.push_back(EmitForwardLayer(b, i, h));
    h = forward.back().out;
  }
  Loss loss = EmitLoss(b, h);
  std::string g = loss.g;
  std::vector<std::string> dw(static_cast<size_t>(o.layers));
  for (int64_t i = o.layers - 1; i >= 0; --i) {
    Backward back = EmitBackwardLayer(b, i, g, forward[static_cast<size_t>(i)]);
    g = back.g_next;
    dw[static_cast<size_t>(i)] = back.dw;
  }
  EmitEpilogue(b, loss.loss, g, dw);
  return b.Finish();
}

}  // namespace hlo_gen

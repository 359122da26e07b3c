// SPDX-License-Identifier: Apache-2.0
// hlo-gen's optional features (-features=LIST): the collectives and
// integer patterns of a real training step that the layer model alone does
// not have, each shaped so that one of the Neuron passes has something to
// rewrite. Everything here is emitted inside forward layer i's span, after
// act_i, and reads only act_i (f32[B,H], tanh: in [-1, 1]) and the layer's
// matmul; each result is appended to the root tuple so the interpreter
// (and -verify-equivalence) sees it. N is the features' mesh axis
// (Builder::AxisSize: P when P > 1, else R).
//
// Per feature, the instructions it adds (L layers):
//   collectives          2 + 4L + 3 [L >= 2] + 3 [L >= 3]   (add_bf16, add_f16)
//   fuse-reduce-scatter  9L - 4 ceil(L/4)
//   permute              2L
//   send-recv            6L
//   token-all-reduce     2 + 3L
//   int-reductions       9 + 5L   (ids parameter, two inits, two reducers)
//   while-loop           18L      (4 in the entry, 10 body, 4 condition)

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/hlo_gen/builder.h"

namespace hlo_gen {
namespace internal {
namespace {

bool Has(const Options& o, Feature f) { return (o.features & f) != 0; }

// Dtypes of the collectives feature, cycled over the layers.
constexpr absl::string_view kCollectiveTypes[] = {"f32", "bf16", "f16", "s32"};

// The rows of the int-reductions operand: 4 x 256 = 1024 elements, a
// multiple of the 128 partitions aws_neuron_decompose_scalar_reduce needs.
constexpr absl::string_view kIntShape = "s32[4,256]";

// `{{0,1},{1,2},...}` over the axis ids: the ring shift (every id a source
// and a target) or the chain without the wrap-around (id 0 is no target;
// XLA gives it zeros).
std::string Pairs(int64_t n, bool ring) {
  std::string pairs = "{";
  int64_t count = ring ? n : n - 1;
  for (int64_t k = 0; k < count; ++k)
    absl::StrAppend(&pairs, k == 0 ? "{" : ",{", k, ",", (k + 1) % n, "}");
  return pairs + "}";
}

std::string Shape(absl::string_view type, int64_t a, int64_t b) {
  return absl::StrCat(type, "[", a, ",", b, "]");
}

// Tensor-parallel all-gather of the layer's scaled activation along the
// hidden dimension and reduce-scatter back, in the layer's dtype.
void Collectives(Builder& b, int64_t i, const std::string& act) {
  const Options& o = b.options();
  absl::string_view type = kCollectiveTypes[i % 4];
  std::string x = absl::StrCat("coll_x.", i), cv = absl::StrCat("coll_cv.", i);
  std::string ag = absl::StrCat("coll_ag.", i), rs = absl::StrCat("coll_rs.", i);
  // Scaled by 16 so that the s32 layers see more than the zeros tanh gives.
  b.Emit(x, b.bh(), "multiply", {act, "coll_scale"});
  std::string local = Shape(type, o.batch, o.hidden);
  b.Emit(cv, local, "convert", {x});
  b.Emit(ag, Shape(type, o.batch, o.hidden * b.AxisSize()), "all-gather", {cv},
         absl::StrCat(b.AxisGroupAttrs(), ", dimensions={1}"));
  b.Emit(rs, local, "reduce-scatter", {ag},
         absl::StrCat(b.AxisGroupAttrs(), ", dimensions={1}, to_apply=%", b.Reducer(type, "add")));
  b.AddOutput(rs, local);
}

// Two reduce-scatters (scatter dimension 0) joined along dimension 1:
// directly (i % 4 == 0), through tuple + opt-barrier (i % 4 == 2), or as
// the mean idiom, each divided by broadcast(N) first (odd layers).
void FuseReduceScatter(Builder& b, int64_t i, const std::string& act, const std::string& dot) {
  const Options& o = b.options();
  int64_t n = b.AxisSize();
  std::string full = absl::StrCat("f32[", n, ",", o.batch, ",", o.hidden, "]");
  std::string part = absl::StrCat("f32[1,", o.batch, ",", o.hidden, "]");
  std::string rs[2];
  const std::string* sources[2] = {&act, &dot};
  for (int k = 0; k < 2; ++k) {
    std::string x = absl::StrCat("frs_x", k, ".", i);
    b.Emit(x, full, "broadcast", {*sources[k]}, "dimensions={1,2}");
    rs[k] = absl::StrCat("frs_rs", k, ".", i);
    b.Emit(
        rs[k], part, "reduce-scatter", {x},
        absl::StrCat(b.AxisGroupAttrs(), ", dimensions={0}, to_apply=%", b.Reducer("f32", "add")));
  }
  std::string parts[2] = {rs[0], rs[1]};
  if (i % 2 == 1) {
    std::string divisor = b.Splat("frs_n", i, absl::StrCat(n), part);
    for (int k = 0; k < 2; ++k) {
      parts[k] = absl::StrCat("frs_mean", k, ".", i);
      b.Emit(parts[k], part, "divide", {rs[k], divisor});
    }
  } else if (i % 4 == 2) {
    std::string pair = absl::StrCat("(", part, ", ", part, ")");
    std::string tuple = absl::StrCat("frs_t.", i), barrier = absl::StrCat("frs_ob.", i);
    b.Emit(tuple, pair, "tuple", {rs[0], rs[1]});
    b.Emit(barrier, pair, "opt-barrier", {tuple});
    for (int k = 0; k < 2; ++k) {
      parts[k] = absl::StrCat("frs_g", k, ".", i);
      b.Emit(parts[k], part, "get-tuple-element", {barrier}, absl::StrCat("index=", k));
    }
  }
  std::string cat = absl::StrCat("frs_cat.", i);
  std::string cat_shape = absl::StrCat("f32[1,", 2 * o.batch, ",", o.hidden, "]");
  b.Emit(cat, cat_shape, "concatenate", {parts[0], parts[1]}, "dimensions={1}");
  b.AddOutput(cat, cat_shape);
}

// channel_id where XLA's cross-partition form has one; the pairs are then
// partition ids, otherwise replica ids.
std::string PermuteAttrs(Builder& b, const std::string& pairs) {
  if (!b.AxisByPartition()) return absl::StrCat("source_target_pairs=", pairs);
  return absl::StrCat("channel_id=", b.NextChannel(), ", source_target_pairs=", pairs);
}

void Permute(Builder& b, int64_t i, const std::string& act, const std::string& dot) {
  int64_t n = b.AxisSize();
  std::string ring = absl::StrCat("perm_ring.", i), chain = absl::StrCat("perm_chain.", i);
  b.Emit(ring, b.bh(), "collective-permute", {act}, PermuteAttrs(b, Pairs(n, true)));
  b.Emit(chain, b.bh(), "collective-permute", {dot}, PermuteAttrs(b, Pairs(n, false)));
  b.AddOutput(ring, b.bh());
  b.AddOutput(chain, b.bh());
}

// One channel: act_i goes one step round the ring. recv-done waits for the
// send (control edge) so that every device has sent before it receives.
void SendRecv(Builder& b, int64_t i, const std::string& act) {
  int64_t channel = b.NextChannel();
  std::string attrs =
      absl::StrCat("channel_id=", channel, ", frontend_attributes={",
                   "_xla_send_recv_source_target_pairs=\"", Pairs(b.AxisSize(), true), "\"}");
  std::string token = absl::StrCat("sr_token.", i), recv = absl::StrCat("sr_recv.", i);
  std::string send = absl::StrCat("sr_send.", i), data = absl::StrCat("sr_data.", i);
  std::string context = absl::StrCat("(", b.bh(), ", u32[], token[])");
  b.Emit(token, "token[]", "after-all", {});
  b.Emit(recv, context, "recv", {token}, attrs);
  b.Emit(send, context, "send", {act, token}, attrs);
  b.Emit(absl::StrCat("sr_send_done.", i), "token[]", "send-done", {send},
         absl::StrCat("channel_id=", channel));
  std::string done = absl::StrCat("sr_recv_done.", i);
  b.Emit(done, absl::StrCat("(", b.bh(), ", token[])"), "recv-done", {recv},
         absl::StrCat("channel_id=", channel, ", control-predecessors={%", send, "}"));
  b.Emit(data, b.bh(), "get-tuple-element", {done}, "index=0");
  b.AddOutput(data, b.bh());
}

void TokenAllReduce(Builder& b, int64_t i) {
  std::string c = absl::StrCat("tok_c.", i), in = absl::StrCat("tok_in.", i);
  std::string sum = absl::StrCat("tok_ar.", i);
  b.EmitLiteral(c, "s32[]", "constant", absl::StrCat(i + 1));
  b.Emit(in, "s32[]", "add", {"tok_id", c});
  b.Emit(sum, "s32[]", "all-reduce", {in},
         absl::StrCat(b.AxisGroupAttrs(), ", to_apply=%", b.Reducer("s32", "add")));
  b.AddOutput(sum, "s32[]");
}

void IntReductions(Builder& b, int64_t i) {
  std::string c = absl::StrCat("ir_c.", i), splat = absl::StrCat("ir_b.", i);
  std::string x = absl::StrCat("ir_x.", i);
  b.EmitLiteral(c, "s32[]", "constant", absl::StrCat(i % 7 - 3));
  b.Emit(splat, kIntShape, "broadcast", {c}, "dimensions={}");
  b.Emit(x, kIntShape, "add", {"ids", splat});
  for (auto [op, init] : {std::pair<absl::string_view, absl::string_view>{"maximum", "int_lo"},
                          {"minimum", "int_hi"}}) {
    std::string name = absl::StrCat("ir_", op.substr(0, 3), ".", i);
    b.Emit(name, "s32[]", "reduce", {x, init},
           absl::StrCat("dimensions={0,1}, to_apply=%", b.Reducer("s32", op)));
    b.AddOutput(name, "s32[]");
  }
}

// (counter, act) through three iterations of: all-reduce over the axis,
// scaled by 1/N (a mean, so the values stay in [-1, 1]).
void WhileLoop(Builder& b, int64_t i, const std::string& act) {
  std::string state = absl::StrCat("(s32[], ", b.bh(), ")");
  std::string body = absl::StrCat("wl_body.", i), cond = absl::StrCat("wl_cond.", i);
  auto n = [i](absl::string_view base) { return absl::StrCat(base, ".", i); };

  b.BeginComputation(body);
  b.EmitLiteral(n("wl_p"), state, "parameter", "0");
  b.Emit(n("wl_i"), "s32[]", "get-tuple-element", {n("wl_p")}, "index=0");
  b.Emit(n("wl_v"), b.bh(), "get-tuple-element", {n("wl_p")}, "index=1");
  b.EmitLiteral(n("wl_one"), "s32[]", "constant", "1");
  b.Emit(n("wl_next"), "s32[]", "add", {n("wl_i"), n("wl_one")});
  b.Emit(n("wl_ar"), b.bh(), "all-reduce", {n("wl_v")},
         absl::StrCat(b.AxisGroupAttrs(), ", to_apply=%", b.Reducer("f32", "add")));
  std::string scale =
      b.Splat("wl_s", i, absl::StrFormat("%.9g", 1.0f / static_cast<float>(b.AxisSize())), b.bh());
  b.Emit(n("wl_y"), b.bh(), "multiply", {n("wl_ar"), scale});
  b.EmitList(n("wl_out"), state, "tuple", {n("wl_next"), n("wl_y")}, {}, /*root=*/true);
  b.EndComputation();

  b.BeginComputation(cond);
  b.EmitLiteral(n("wl_cp"), state, "parameter", "0");
  b.Emit(n("wl_ci"), "s32[]", "get-tuple-element", {n("wl_cp")}, "index=0");
  b.EmitLiteral(n("wl_trips"), "s32[]", "constant", "3");
  b.EmitList(n("wl_lt"), "pred[]", "compare", {n("wl_ci"), n("wl_trips")}, "direction=LT",
             /*root=*/true);
  b.EndComputation();

  b.EmitLiteral(n("wl_zero"), "s32[]", "constant", "0");
  b.Emit(n("wl_init"), state, "tuple", {n("wl_zero"), act});
  b.Emit(n("wl"), state, "while", {n("wl_init")},
         absl::StrCat("condition=%", cond, ", body=%", body));
  b.Emit(n("wl_res"), b.bh(), "get-tuple-element", {n("wl")}, "index=1");
  b.AddOutput(n("wl_res"), b.bh());
}

}  // namespace

void EmitFeaturePrologue(Builder& b) {
  const Options& o = b.options();
  if (Has(o, kIntReductions)) {
    b.EmitLiteral("ids", std::string(kIntShape), "parameter", absl::StrCat(o.layers + 2));
    b.EmitLiteral("int_lo", "s32[]", "constant", "-2147483648");
    b.EmitLiteral("int_hi", "s32[]", "constant", "2147483647");
  }
  if (Has(o, kCollectives)) b.Splat("coll_scale", -1, "16", b.bh());
  if (Has(o, kTokenAllReduce)) {
    b.Emit("tok_device", "u32[]", b.AxisByPartition() ? "partition-id" : "replica-id", {});
    b.Emit("tok_id", "s32[]", "convert", {"tok_device"});
  }
}

void EmitLayerFeatures(Builder& b, int64_t i, const std::string& act, const std::string& dot) {
  const Options& o = b.options();
  if (Has(o, kCollectives)) Collectives(b, i, act);
  if (Has(o, kFuseReduceScatter)) FuseReduceScatter(b, i, act, dot);
  if (Has(o, kPermute)) Permute(b, i, act, dot);
  if (Has(o, kSendRecv)) SendRecv(b, i, act);
  if (Has(o, kTokenAllReduce)) TokenAllReduce(b, i);
  if (Has(o, kIntReductions)) IntReductions(b, i);
  if (Has(o, kWhileLoop)) WhileLoop(b, i, act);
}

int64_t FeatureInstructionCount(const Options& o) {
  int64_t l = o.layers, n = 0;
  if (Has(o, kCollectives)) n += 2 + 4 * l + (l >= 2 ? 3 : 0) + (l >= 3 ? 3 : 0);
  if (Has(o, kFuseReduceScatter)) n += 9 * l - 4 * ((l + 3) / 4);
  if (Has(o, kPermute)) n += 2 * l;
  if (Has(o, kSendRecv)) n += 6 * l;
  if (Has(o, kTokenAllReduce)) n += 2 + 3 * l;
  if (Has(o, kIntReductions)) n += 9 + 5 * l;
  if (Has(o, kWhileLoop)) n += 18 * l;
  return n;
}

}  // namespace internal
}  // namespace hlo_gen

// SPDX-License-Identifier: Apache-2.0
// hlo-gen's generator: one training step of an L-layer transformer stand-in
// with tensor parallelism across partitions, as XLA HLO text. Used by the
// hlo-gen tool (tools/hlo_gen/hlo_gen.cc) and by unittests/tools/hlo_gen_test.cc; the
// user documentation is docs/hlo-gen.md.
//
// The text is written straight into one string (no IR is built), so a
// 500,000-instruction module takes a fraction of a second. The output
// depends on the options only: the same options give the same bytes.

#ifndef HOPT_TOOLS_HLO_GEN_GENERATOR_H_
#define HOPT_TOOLS_HLO_GEN_GENERATOR_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hlo_gen {

// Optional parts of the module (-features=LIST), one bit each. Without any,
// the output is the layer model alone, byte for byte as before features
// existed. generator_features.cc says what each one emits.
enum Feature : uint32_t {
  kCollectives = 1u << 0,        // all-gather + reduce-scatter, f32/bf16/f16/s32
  kFuseReduceScatter = 1u << 1,  // the two patterns fuse-reduce-scatter merges
  kPermute = 1u << 2,            // full and partial collective-permutes
  kSendRecv = 1u << 3,           // send/recv/send-done/recv-done per channel
  kTokenAllReduce = 1u << 4,     // scalar s32 add all-reduces
  kIntReductions = 1u << 5,      // s32[4,256] -> s32[] max / min reduces
  kWhileLoop = 1u << 6,          // a while loop with an all-reduce in its body
  kAllFeatures = (1u << 7) - 1,
};

// The names, in bit order: "collectives", "fuse-reduce-scatter", "permute",
// "send-recv", "token-all-reduce", "int-reductions", "while-loop".
inline constexpr absl::string_view kFeatureNames[] = {
    "collectives",      "fuse-reduce-scatter", "permute",   "send-recv",
    "token-all-reduce", "int-reductions",      "while-loop"};

// A comma-separated list of names, or "all"; empty gives 0. An unknown
// name is InvalidArgument "-features: unknown feature 'x' (known: ...)".
absl::StatusOr<uint32_t> ParseFeatures(absl::string_view list);

struct Options {
  int64_t layers = 12;
  int64_t replicas = 1;
  int64_t partitions = 1;
  uint64_t seed = 1;
  int64_t batch = 4;
  int64_t hidden = 8;
  // Elementwise filler operations per layer and direction.
  int64_t filler = 2600;
  // Feature bits (see Feature).
  uint32_t features = 0;
};

// Limits Validate() enforces.
inline constexpr int64_t kMaxLayers = 100000;
inline constexpr int64_t kMaxDevices = 65536;    // replicas * partitions
inline constexpr int64_t kMaxDimension = 65536;  // batch, hidden
inline constexpr int64_t kMaxFiller = 10000000;
inline constexpr int64_t kMaxInstructions = 20000000;
// With -features: layers * replicas * partitions.
inline constexpr int64_t kMaxFeatureDeviceLayers = 4000000;

// OK, or InvalidArgument naming the first bad option, e.g.
// "-layers must be from 1 to 100000 (got 0)".
absl::Status Validate(const Options& options);

// The number of instructions Generate() writes, all computations together:
//   21 + L * (28 + 2 * F) + 2 * ceil(L / 2),  F = K + 6 if K > 0, else 0
// (K = filler), plus each feature's share (generator_features.cc and
// docs/hlo-gen.md, "Features", give the formulas). Requires
// Validate(options).ok().
int64_t InstructionCount(const Options& options);

// The module text. Requires Validate(options).ok().
std::string Generate(const Options& options);

// The marker variation of layer i (the same in both directions):
// backend_config="boundaryCount=i" on both markers of the pair, or on
// neither (every third layer: i % 3 == 2).
inline bool HasBoundaryCount(int64_t layer) { return layer % 3 != 2; }
// Start-Forward wraps (h, w_i) and returns a tuple on even layers, h alone
// on odd ones. End-Forward always wraps one value; Start-Backward wraps
// (g, act_i, h_i, w_i) and End-Backward (g_next, dw_i), both tuples.
inline bool ForwardStartTakesWeights(int64_t layer) { return layer % 2 == 0; }

}  // namespace hlo_gen

#endif  // HOPT_TOOLS_HLO_GEN_GENERATOR_H_

// SPDX-License-Identifier: Apache-2.0
// hlo-gen: writes a deterministic XLA HLO module, one training step of an
// L-layer transformer stand-in with tensor parallelism, for tests and
// benchmarks of hopt (docs/hlo-gen.md).
//
//   hlo-gen -layers=L -replicas=R -partitions=P -seed=S [-batch=B] [-hidden=H]
//           [-filler=K] [-features=LIST] [-report] [-o FILE]
//
// The same options give the same bytes. Errors: one message on stderr,
// exit status 1, no output file (written through include/hopt/support/output_file.h:
// a temporary renamed once complete, or in place for a device or FIFO).

#include <chrono>
#include <cstdio>
#include <string>

#include "hopt/support/output_file.h"
#include "llvm/Support/CommandLine.h"
#include "tools/common/tool_info.h"
#include "tools/hlo_gen/generator.h"

namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("hlo-gen options");
cl::opt<int64_t> layers("layers", cl::desc("Transformer layers (default 12)"), cl::init(12),
                        cl::cat(category));
cl::opt<int64_t> replicas("replicas", cl::desc("replica_count (data parallelism, default 1)"),
                          cl::init(1), cl::cat(category));
cl::opt<int64_t> partitions("partitions",
                            cl::desc("num_partitions (tensor parallelism, default 1)"), cl::init(1),
                            cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Picks the filler's constants and order (default 1)"),
                       cl::init(1), cl::cat(category));
cl::opt<int64_t> batch("batch", cl::desc("Batch size B of the f32[B,H] activations (default 4)"),
                       cl::init(4), cl::cat(category));
cl::opt<int64_t> hidden("hidden", cl::desc("Hidden size H (default 8)"), cl::init(8),
                        cl::cat(category));
cl::opt<int64_t> filler("filler",
                        cl::desc("Elementwise filler ops per layer and direction (default 2600: "
                                 "-layers=96 gives 503,157 instructions)"),
                        cl::init(2600), cl::cat(category));
cl::opt<std::string> features(
    "features",
    cl::desc("Comma-separated optional parts: collectives, fuse-reduce-scatter, permute, "
             "send-recv, token-all-reduce, int-reductions, while-loop, or all (default none: "
             "the layer model alone)"),
    cl::value_desc("list"), cl::init(""), cl::cat(category));
cl::opt<std::string> preset(
    "preset",
    cl::desc("Per-device weight bytes of a Llama 2 step with tensor parallelism 8 and pipeline "
             "parallelism 4: llama2-7b-tp8-pp4, llama2-13b-tp8-pp4 or llama2-70b-tp8-pp4 (sets "
             "-layers, -hidden and -partitions=8 unless given; docs/hlo-gen.md)"),
    cl::value_desc("name"), cl::init(""), cl::cat(category));
cl::opt<bool> report("report", cl::desc("Print the instruction count, size and time to stderr"),
                     cl::cat(category));
cl::opt<std::string> output("o", cl::desc("Output file ('-' or none: standard output)"),
                            cl::value_desc("file"), cl::init("-"), cl::cat(category));

int Fail(const std::string& message) {
  std::fprintf(stderr, "hlo-gen: error: %s\n", message.c_str());
  return 1;
}

// One pipeline stage (a quarter of the layers) on one device of an
// 8-way tensor-parallel group. A layer's weights per device, attention
// (q, k, v, o; grouped k and v for 70B) plus the MLP's three matrices,
// divided by 8, are held in hlo-gen's one f32[H,H] weight: H is the root
// of that count.
struct Preset {
  const char* name;
  int64_t layers, hidden;
};
constexpr Preset kPresets[] = {
    {"llama2-7b-tp8-pp4", 8, 5030},     // 32 layers, 4096 wide, MLP 11008
    {"llama2-13b-tp8-pp4", 10, 6297},   // 40 layers, 5120 wide, MLP 13824
    {"llama2-70b-tp8-pp4", 20, 10342},  // 80 layers, 8192 wide, MLP 28672, 8 k/v heads
};

}  // namespace

int main(int argc, char** argv) {
  cl::HideUnrelatedOptions(category);
  hopt::tools::SetUpToolInfo("hlo-gen");
  cl::ParseCommandLineOptions(argc, argv,
                              "hlo-gen: writes a transformer training-step HLO module\n");
  hlo_gen::Options options;
  options.layers = layers;
  options.replicas = replicas;
  options.partitions = partitions;
  options.hidden = hidden;
  if (!preset.empty()) {
    const Preset* chosen = nullptr;
    for (const Preset& p : kPresets)
      if (preset == p.name) chosen = &p;
    if (chosen == nullptr)
      return Fail("unknown -preset '" + preset +
                  "' (llama2-7b-tp8-pp4, llama2-13b-tp8-pp4 or llama2-70b-tp8-pp4)");
    if (layers.getNumOccurrences() == 0) options.layers = chosen->layers;
    if (hidden.getNumOccurrences() == 0) options.hidden = chosen->hidden;
    if (partitions.getNumOccurrences() == 0) options.partitions = 8;
  }
  options.seed = seed;
  options.batch = batch;
  options.filler = filler;
  absl::StatusOr<uint32_t> feature_bits = hlo_gen::ParseFeatures(features);
  if (!feature_bits.ok()) return Fail(std::string(feature_bits.status().message()));
  options.features = *feature_bits;
  absl::Status valid = hlo_gen::Validate(options);
  if (!valid.ok()) return Fail(std::string(valid.message()));

  auto begin = std::chrono::steady_clock::now();
  std::string text = hlo_gen::Generate(options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();

  if (absl::Status written = hopt::WriteOutputFile(output, text); !written.ok())
    return Fail(std::string(written.message()));
  if (report)
    std::fprintf(stderr, "hlo-gen: %lld instructions, %zu bytes, generated in %.3f s\n",
                 static_cast<long long>(hlo_gen::InstructionCount(options)), text.size(), seconds);
  return 0;
}

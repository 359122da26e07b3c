// libneuron_collectives.so: registers the collective passes, their options
// and the interpreter semantics of the custom-calls they create.

#include <cstdint>
#include <memory>
#include <string>

#include "core/pass_manager/pass_registry.h"
#include "core/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "plugins/collectives/canonicalize_variadic_collectives.h"
#include "plugins/collectives/collective_permute_to_all_gather.h"
#include "plugins/collectives/collective_semantics.h"
#include "plugins/collectives/convert_collectives_to_custom_call.h"
#include "plugins/collectives/convert_custom_call_to_collectives.h"
#include "plugins/collectives/fuse_reduce_scatter.h"
#include "plugins/collectives/fuse_send_recv.h"

namespace neuron {
namespace {

llvm::cl::OptionCategory category("neuron_collectives options");

// Read when a pass is made (after the command line is parsed), so they may
// stand anywhere on the command line.
llvm::cl::opt<std::string> send_recv_target(
    "fuse-send-recv-target", llvm::cl::desc("custom_call_target of the fused send/recv"),
    llvm::cl::value_desc("name"), llvm::cl::init(std::string(kDefaultSendRecvTarget)),
    llvm::cl::cat(category));
llvm::cl::opt<std::string> platform_version(
    "neuron-platform-version",
    llvm::cl::desc("Platform version for collective-permute-to-all-gather's core count "
                   "(\"3.0\": 128 / -neuron-nc-divisor cores; otherwise 32)"),
    llvm::cl::value_desc("version"), llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<int64_t> nc_divisor("neuron-nc-divisor",
                                  llvm::cl::desc("Divisor of the 128 cores of platform 3.0"),
                                  llvm::cl::value_desc("n"), llvm::cl::init(1),
                                  llvm::cl::cat(category));
llvm::cl::opt<int64_t> override_core_count(
    "neuron-override-core-count",
    llvm::cl::desc("Core count on platform 3.0 when positive (instead of 128 / divisor)"),
    llvm::cl::value_desc("n"), llvm::cl::init(0), llvm::cl::cat(category));

void RegisterPasses(hopt::PassRegistry& registry) {
  HOPT_REGISTER_OR_STOP(registry.Register<ConvertCollectivesToCustomCall>(
      "all-reduce / reduce-scatter / all-gather -> AwsNeuron* custom-calls (entry computation)"));
  HOPT_REGISTER_OR_STOP(registry.Register<ConvertCustomCallToCollectives>(
      "AwsNeuron* collective custom-calls -> native collectives (the inverse)"));
  HOPT_REGISTER_OR_STOP(registry.Register(
      "fuse-send-recv", "send/recv pairs of a channel -> one fused custom-call",
      [] { return std::make_unique<FuseSendRecv>(send_recv_target); }));
  HOPT_REGISTER_OR_STOP(registry.Register<CanonicalizeVariadicCollectives>(
      "tuple-shaped all-reduce / all-gather / reduce-scatter -> one array collective per "
      "element type (all-reduce) or per operand"));
  HOPT_REGISTER_OR_STOP(registry.Register<FuseReduceScatter>(
      "reduce-scatters feeding one concatenate -> one wider reduce-scatter"));
  HOPT_REGISTER_OR_STOP(registry.Register(
      "collective-permute-to-all-gather",
      "collective-permute -> all-gather + id-indexed dynamic-slice", [] {
        return std::make_unique<CollectivePermuteToAllGather>(platform_version, nc_divisor,
                                                              override_core_count);
      }));
  // The interpreter must know what the custom-calls compute (for
  // -verify-equivalence and hlo-run). The send/recv target named by the
  // option is registered by the pass itself, once the option is parsed.
  RegisterNeuronCollectiveSemantics();
  RegisterSendRecvSemantics(std::string(kDefaultSendRecvTarget));
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_collectives", "0.1.0",
          &neuron::RegisterPasses};
}

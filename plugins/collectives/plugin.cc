// SPDX-License-Identifier: Apache-2.0
// libneuron_collectives.so: registers the collective passes with their
// options, and the interpreter semantics and -emit-dot class of the
// custom-calls they create. (The `neuron` pipeline, which names passes of
// all four plugins, is plugins/neuron.pipeline.)

#include <cstdint>
#include <memory>
#include <string>

#include "collectives/canonicalize_variadic_collectives.h"
#include "collectives/collective_permute_to_all_gather.h"
#include "collectives/collective_semantics.h"
#include "collectives/convert_collectives_to_custom_call.h"
#include "collectives/convert_custom_call_to_collectives.h"
#include "collectives/fuse_reduce_scatter.h"
#include "collectives/fuse_send_recv.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace neuron {
namespace {

// Targets -emit-dot draws as collectives: convert-collectives-to-custom-call's
// AwsNeuron<Kind>[op]_<dtype> and fuse-send-recv's default target.
constexpr const char* kCollectivePrefixes[] = {
    "AwsNeuronAllReduce", "AwsNeuronReduceScatter",     "AwsNeuronAllGather",
    "AwsNeuronAllToAll",  "AwsNeuronCollectivePermute", "AwsNeuronSendRecv",
};

// The passes' options; the member initializers are the defaults.
struct FuseSendRecvOptions {
  std::string target = std::string(kDefaultSendRecvTarget);
};
struct PermuteOptions {
  std::string platform_version;
  int64_t nc_divisor = 1;
  int64_t override_core_count = 0;
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<ConvertCollectivesToCustomCall>(
      "all-reduce / reduce-scatter / all-gather -> AwsNeuron* custom-calls (entry computation)");
  registrar.AddPass<ConvertCustomCallToCollectives>(
      "AwsNeuron* collective custom-calls -> native collectives (the inverse)");
  registrar.AddPass("fuse-send-recv", "send/recv pairs of a channel -> one fused custom-call",
                    {hopt::Option(&FuseSendRecvOptions::target, "target",
                                  "custom_call_target of the fused send/recv")},
                    [](const FuseSendRecvOptions& options) {
                      return std::make_unique<FuseSendRecv>(options.target);
                    });
  registrar.AddPass<CanonicalizeVariadicCollectives>(
      "tuple-shaped all-reduce / all-gather / reduce-scatter -> one array collective per "
      "element type (all-reduce) or per operand");
  registrar.AddPass<FuseReduceScatter>(
      "reduce-scatters feeding one concatenate -> one wider reduce-scatter");
  registrar.AddPass(
      "collective-permute-to-all-gather",
      "collective-permute -> all-gather + id-indexed dynamic-slice",
      {hopt::Option(&PermuteOptions::platform_version, "platform-version",
                    "platform version for the core count (\"3.0\": 128 / nc-divisor cores; "
                    "otherwise 32)"),
       hopt::Option(&PermuteOptions::nc_divisor, "nc-divisor",
                    "divisor of the 128 cores of platform 3.0"),
       hopt::Option(&PermuteOptions::override_core_count, "override-core-count",
                    "core count on platform 3.0 when positive (instead of 128 / nc-divisor)")},
      [](const PermuteOptions& options) {
        return std::make_unique<CollectivePermuteToAllGather>(
            options.platform_version, options.nc_divisor, options.override_core_count);
      });
  // The flags of the previous release, for one more release.
  registrar.AddFlagAlias("fuse-send-recv-target", "fuse-send-recv", "target");
  registrar.AddFlagAlias("neuron-platform-version", "collective-permute-to-all-gather",
                         "platform-version");
  registrar.AddFlagAlias("neuron-nc-divisor", "collective-permute-to-all-gather", "nc-divisor");
  registrar.AddFlagAlias("neuron-override-core-count", "collective-permute-to-all-gather",
                         "override-core-count");
  // The interpreter must know what the custom-calls compute (for
  // -verify-equivalence and hlo-run), whatever target fuse-send-recv is
  // told to emit.
  AddNeuronCollectiveSemantics(registrar);
  AddSendRecvSemantics(registrar);
  for (const char* prefix : kCollectivePrefixes)
    registrar.AddDotHighlightPrefix(prefix, hopt::DotHighlight::kCollective);
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_collectives", "0.1.0",
          &neuron::RegisterPlugin};
}

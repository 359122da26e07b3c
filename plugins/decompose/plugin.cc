// SPDX-License-Identifier: Apache-2.0
// libneuron_decompose.so: registers the two decompositions that route
// around the hardware's float-only collective and reduce primitives. Their
// output uses only native HLO ops, so no interpreter semantics are needed.

#include "absl/status/status.h"
#include "decompose/decompose_int_all_reduce.h"
#include "decompose/decompose_scalar_reduce.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace neuron {
namespace {

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<DecomposeIntAllReduce>(
      "effectively-scalar s32/u32 all-reduce(add) -> all-gather + unrolled integer add chain");
  registrar.AddPass<DecomposeScalarReduce>(
      "scalar non-add integer reduce of a rank-2, 128-divisible operand -> two-stage "
      "[128, N/128] reduce");
}

}  // namespace
}  // namespace neuron

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "neuron_decompose", "0.1.0",
          &neuron::RegisterPlugin};
}

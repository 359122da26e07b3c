// SPDX-License-Identifier: Apache-2.0
// hopt_sample_<SAMPLE>: one source built four times (-DSAMPLE=a ... d), each
// registering sample-<SAMPLE>-noop and sample-<SAMPLE>-count. Used by the
// load-time benchmark and by the tests that load several plugins.

#include <cstdint>

#include "absl/status/statusor.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

#ifndef SAMPLE
#error "build with -DSAMPLE=a (or b, c, d)"
#endif

#define SAMPLE_NAME HOPT_STRINGIFY(SAMPLE)
#define SAMPLE_CAT_INNER(a, b) a##b
#define SAMPLE_CAT(a, b) SAMPLE_CAT_INNER(a, b)

namespace SAMPLE_CAT(hopt_sample_, SAMPLE) {
namespace {

class NoopPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "sample-" SAMPLE_NAME "-noop"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return false; }
};

class CountPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "sample-" SAMPLE_NAME "-count"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    int64_t n = 0;
    for (hopt::HloComputation* computation : module.computations())
      n += computation->instruction_count();
    HOPT_DEBUG("sample-" SAMPLE_NAME "-count", dbgs << n << " instructions\n");
    return false;
  }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<NoopPass>("Does nothing (sample plugin " SAMPLE_NAME ")");
  registrar.AddPass<CountPass>("Counts instructions under -debug-only (sample plugin " SAMPLE_NAME
                               ")");
}

}  // namespace
}  // namespace SAMPLE_CAT(hopt_sample_,SAMPLE)

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_sample_" SAMPLE_NAME, "1.0.0",
          &SAMPLE_CAT(hopt_sample_, SAMPLE)::RegisterPlugin};
}

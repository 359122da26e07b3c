// SPDX-License-Identifier: Apache-2.0
// hopt_test_plugin_v2: a replacement for hopt_test_plugin's
// test-append-suffix (for -override-passes) plus a pass of its own.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt_test_plugin_v2 {
namespace {

class AppendSuffixPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-append-suffix"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    module.set_name(absl::StrCat(module.name(), "_v2"));
    return true;
  }
};

class V2OnlyPass : public hopt::Pass {
 public:
  absl::string_view name() const override { return "test-v2-only"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return false; }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass<AppendSuffixPass>("Appends _v2 to the module name");
  registrar.AddPass<V2OnlyPass>("Does nothing; only in hopt_test_plugin_v2");
}

}  // namespace
}  // namespace hopt_test_plugin_v2

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_plugin_v2", "2.0.0",
          &hopt_test_plugin_v2::RegisterPlugin};
}

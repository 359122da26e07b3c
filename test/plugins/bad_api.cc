// SPDX-License-Identifier: Apache-2.0
// hopt_test_bad_api: a plugin from a future plugin API (version 999). Its
// registration must never run.

#include <cstdlib>

#include "hopt/pass_manager/plugin_api.h"

namespace {
void RegisterPlugin(hopt::PluginRegistrar&) { std::abort(); }
}  // namespace

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {999u, HOPT_BUILD_TAG, "hopt_test_bad_api", "1.0.0", &RegisterPlugin};
}

// SPDX-License-Identifier: Apache-2.0
// hopt_test_bad_tag: a plugin built against another toolchain. Its
// registration must never run.

#include <cstdlib>

#include "hopt/pass_manager/plugin_api.h"

namespace {
void RegisterPlugin(hopt::PluginRegistrar&) { std::abort(); }
}  // namespace

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, "clang-0;llvm-0.0.0;absl-0;hopt-0", "hopt_test_bad_tag", "1.0.0",
          &RegisterPlugin};
}

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_PLUGIN_API_H_
#define HOPT_PASS_MANAGER_PLUGIN_API_H_

// The contract between hopt and a pass plugin. A plugin is a shared object
// that exports exactly one symbol, `hoptGetPluginInfo`, returning this
// struct. hopt checks `api_version` first, then `build_tag` (a plugin must be
// built against the same compiler, LLVM, Abseil, Protobuf and hopt as the
// host, since C++ types cross the boundary), then calls `register_plugin`
// with a registrar (include/hopt/pass_manager/registrar.h), the one way a plugin
// adds passes, pipelines, interpreter semantics, -emit-dot classes and
// deprecated flags. docs/writing-a-plugin.md.
//
//   extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
//     return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "my_plugin", "1.0",
//             [](hopt::PluginRegistrar& registrar) { ... }};
//   }
//
// Version history: 1 called `register_passes(PassRegistry&)`; 2 (this one)
// calls `register_plugin(PluginRegistrar&)`. The first field stays
// `api_version` in every version, so hopt can refuse an old plugin before
// reading anything else.

#include <cstdint>

#include "absl/base/config.h"
#include "hopt/hopt-config.h"
#include "llvm/Config/llvm-config.h"

namespace hopt {
class PluginRegistrar;
}

#define HOPT_PLUGIN_API_VERSION 2u

#define HOPT_STRINGIFY_INNER(x) #x
#define HOPT_STRINGIFY(x) HOPT_STRINGIFY_INNER(x)

#if defined(__clang__)
#define HOPT_COMPILER_TAG "clang-" HOPT_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define HOPT_COMPILER_TAG "gcc-" HOPT_STRINGIFY(__GNUC__)
#else
#define HOPT_COMPILER_TAG "unknown-compiler"
#endif

// Everything whose C++ ABI crosses the plugin boundary. Protobuf does not:
// it lives in libhopt_proto (core/proto/), which no plugin links.
#define HOPT_BUILD_TAG                                                    \
  HOPT_COMPILER_TAG ";llvm-" LLVM_VERSION_STRING ";absl-" HOPT_STRINGIFY( \
      ABSL_LTS_RELEASE_VERSION) ";hopt-" HOPT_VERSION ";abi-" HOPT_STRINGIFY(HOPT_ABI_VERSION)

#define HOPT_PLUGIN_EXPORT __attribute__((visibility("default")))

extern "C" {
struct HoptPluginInfo {
  uint32_t api_version;
  const char* build_tag;
  const char* name;
  const char* version;
  void (*register_plugin)(hopt::PluginRegistrar& registrar);
};
}

// The entry point every plugin defines and exports, declared here (as
// LLVM's PassPlugin.h declares llvmGetPassPluginInfo) so that a plugin's
// definition is checked against it: one of another signature does not
// compile. hopt itself never defines it; the loader finds it by name.
extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo();

// Its name, for dlsym, and its type.
#define HOPT_PLUGIN_ENTRY_POINT "hoptGetPluginInfo"
using HoptGetPluginInfoFn = decltype(&hoptGetPluginInfo);

#endif  // HOPT_PASS_MANAGER_PLUGIN_API_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PASS_MANAGER_TOOLING_PLUGIN_LOADER_H_
#define HOPT_CORE_PASS_MANAGER_TOOLING_PLUGIN_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {

struct LoadedPlugin {
  std::string path;  // as resolved
  std::string name;
  std::string version;
};

// Where a bare plugin file name is looked for, in order: `builtin_dirs`
// (hopt's own plugin directories, build tree and installed tree), then the
// directories of HOPT_PLUGIN_PATH. A spec with a '/' is used as given.
absl::StatusOr<std::string> ResolvePluginPath(absl::string_view spec,
                                              const std::vector<std::string>& builtin_dirs);

// dlopen(RTLD_NOW | RTLD_LOCAL), find the entry point, check the API
// version and the build tag, and run the registration. Each failure is its
// own message naming the file: not found, not a loadable shared object,
// entry point missing, API version mismatch (version 1 plugins get a
// message of their own), build tag mismatch, a pass name already
// registered by another plugin. What the plugin registers goes into
// `extensions`. Plugins stay loaded for the life of the process.
absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path, Extensions& extensions);

}  // namespace hopt

#endif  // HOPT_CORE_PASS_MANAGER_TOOLING_PLUGIN_LOADER_H_

// SPDX-License-Identifier: Apache-2.0

#include "tools/common/tool_plugins.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/tooling/plugin_loader.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace tools {
namespace {

std::string ExecutableDir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::vector<std::string>& HostPluginDirs() {
  static auto* dirs = new std::vector<std::string>();
  return *dirs;
}

}  // namespace

void SetBuiltinPluginDirs(std::vector<std::string> dirs) { HostPluginDirs() = std::move(dirs); }

std::vector<std::string> BuiltinPluginDirs() {
  if (!HostPluginDirs().empty()) return HostPluginDirs();
  std::string exe = ExecutableDir();
  absl::string_view installed = HOPT_PLUGIN_DIR_FROM_BINDIR;
  std::vector<std::string> dirs = {absl::StartsWith(installed, "/")
                                       ? std::string(installed)
                                       : absl::StrCat(exe, "/", installed)};
  // Only a binary in the build tree has this file beside it (Meson writes
  // it; `meson install` does not copy it): it names the build's plugin
  // directory. An installed hopt, or a copy, never looks into a build tree.
  std::ifstream marker(exe + "/" HOPT_BUILD_TREE_MARKER);
  std::string build_plugins;
  if (marker && std::getline(marker, build_plugins) && !build_plugins.empty())
    dirs.push_back(build_plugins);
  return dirs;
}

PluginArguments PrescanPluginArguments(int argc, char** argv) {
  PluginArguments result;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    absl::string_view bare = arg;
    if (absl::StartsWith(bare, "--"))
      bare.remove_prefix(2);
    else if (absl::StartsWith(bare, "-"))
      bare.remove_prefix(1);
    else
      continue;
    if (bare == "load" && i + 1 < argc) {
      result.loads.emplace_back(argv[++i]);
    } else if (absl::StartsWith(bare, "load=")) {
      result.loads.emplace_back(bare.substr(5));
    } else if (bare == "override-passes" || bare == "override-passes=true" ||
               bare == "override-passes=1") {
      result.override_passes = true;
    }
  }
  return result;
}

absl::Status LoadPlugins(const std::vector<std::string>& specs, Extensions& extensions) {
  std::vector<std::string> builtin_dirs = BuiltinPluginDirs();
  std::vector<std::string> loaded;
  for (const std::string& spec : specs) {
    HOPT_ASSIGN_OR_RETURN(std::string path, ResolvePluginPath(spec, builtin_dirs));
    // The same file named twice is loaded once.
    char* real = realpath(path.c_str(), nullptr);
    std::string canonical = real != nullptr ? real : path;
    std::free(real);
    if (std::find(loaded.begin(), loaded.end(), canonical) != loaded.end()) continue;
    loaded.push_back(canonical);
    HOPT_RETURN_IF_ERROR(LoadPlugin(path, extensions).status());
  }
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace hopt

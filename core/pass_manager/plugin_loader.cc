#include "core/pass_manager/plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/pass_manager/plugin_api.h"

namespace hopt {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

absl::StatusOr<std::string> ResolvePluginPath(absl::string_view spec,
                                              const std::vector<std::string>& builtin_dirs) {
  std::string given(spec);
  if (given.empty()) return absl::InvalidArgumentError("-load needs a plugin file");
  if (given.find('/') != std::string::npos) {
    if (!IsRegularFile(given))
      return absl::NotFoundError(absl::StrCat("plugin '", given, "': file not found"));
    return given;
  }
  std::vector<std::string> dirs = builtin_dirs;
  if (const char* env = std::getenv("HOPT_PLUGIN_PATH"))
    for (absl::string_view dir : absl::StrSplit(env, ':', absl::SkipEmpty()))
      dirs.emplace_back(dir);
  for (const std::string& dir : dirs) {
    std::string candidate = absl::StrCat(dir, "/", given);
    if (IsRegularFile(candidate)) return candidate;
  }
  // A bare name of a file in the working directory (dlopen itself would
  // not look there for a name without '/').
  if (IsRegularFile(given)) return "./" + given;
  return absl::NotFoundError(absl::StrCat("plugin '", given, "': file not found (searched: ",
                                          dirs.empty() ? "nothing" : absl::StrJoin(dirs, ", "),
                                          ", the working directory; set HOPT_PLUGIN_PATH)"));
}

absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path, PassRegistry& registry) {
  // RTLD_LOCAL: plugins never see each other's symbols; RTLD_NOW: an
  // unresolved symbol fails here, not in the middle of a pass.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' is not a loadable shared object: ", why ? why : "unknown error"));
  }
  dlerror();
  void* symbol = dlsym(handle, HOPT_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr)
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' does not export the entry point '", HOPT_PLUGIN_ENTRY_POINT,
        "' (is it a hopt plugin?)"));
  HoptPluginInfo info = reinterpret_cast<HoptGetPluginInfoFn>(symbol)();
  if (info.api_version != HOPT_PLUGIN_API_VERSION)
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' uses plugin API version ", info.api_version, ", this hopt uses ",
        HOPT_PLUGIN_API_VERSION, "; rebuild the plugin against this hopt"));
  const char* tag = info.build_tag ? info.build_tag : "(none)";
  if (std::strcmp(tag, HOPT_BUILD_TAG) != 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' was built for '", tag, "', this hopt is '", HOPT_BUILD_TAG,
        "'; rebuild the plugin against this hopt"));
  if (info.name == nullptr || info.version == nullptr || info.register_passes == nullptr)
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "' has an incomplete plugin description"));
  registry.BeginPlugin(info.name, info.version);
  info.register_passes(registry);
  absl::Status status = registry.EndPlugin();
  if (!status.ok())
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "': ", status.message()));
  return LoadedPlugin{path, info.name, info.version};
}

}  // namespace hopt

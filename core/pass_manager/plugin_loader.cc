// SPDX-License-Identifier: Apache-2.0

#include "core/pass_manager/tooling/plugin_loader.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/pass_manager/pipeline_file.h"
#include "core/pass_manager/tooling/crash_report.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/support/status_macros.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

namespace hopt {

absl::Status RegisterPluginInfo(const HoptPluginInfo& info, absl::string_view source,
                                Extensions& extensions) {
  if (info.api_version != HOPT_PLUGIN_API_VERSION)
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", source, "' uses plugin API version ", info.api_version, ", this hopt uses ",
        HOPT_PLUGIN_API_VERSION, "; rebuild the plugin against this hopt"));
  const char* tag = info.build_tag ? info.build_tag : "(none)";
  if (std::strcmp(tag, HOPT_BUILD_TAG) != 0)
    return absl::FailedPreconditionError(absl::StrCat("plugin '", source, "' was built for '", tag,
                                                      "', this hopt is '", HOPT_BUILD_TAG,
                                                      "'; rebuild the plugin against this hopt"));
  if (info.name == nullptr || info.version == nullptr || info.register_plugin == nullptr)
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", source, "' has an incomplete plugin description"));
  extensions.passes.BeginPlugin(info.name, info.version);
  std::string thrown;
  try {
    PluginRegistrar registrar(extensions);
    info.register_plugin(registrar);
  } catch (const std::exception& e) {
    thrown = e.what();
  } catch (...) {
    thrown = "an exception that is not a std::exception";
  }
  absl::Status status = extensions.passes.EndPlugin();
  if (!thrown.empty())
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", source, "': its registration callback threw: ", thrown));
  if (!status.ok())
    return absl::FailedPreconditionError(absl::StrCat("plugin '", source, "': ", status.message()));
  return absl::OkStatus();
}

namespace {

// LLVM aborts the process when a plugin's static initializers define a
// command-line option whose name is taken (hopt's own, libLLVM's or an
// earlier plugin's): it prints "Option 'X' registered more than once!" and
// calls report_fatal_error from inside dlopen, where nothing can be
// unwound. While a plugin is being opened, standard error goes to a memory
// file and a fatal-error handler is installed; if LLVM gives up, the
// handler reads the option's name from what LLVM printed, names the plugin
// and the option's earlier owner, and exits with status 1. Otherwise the
// captured output is passed on and each option the plugin added is
// remembered as its own.
class OptionClashGuard {
 public:
  explicit OptionClashGuard(const std::string& path) {
    std::lock_guard<std::mutex> lock(Mutex());
    RecordOwners("hopt");  // everything before the first plugin
    active_path_ = path;
    saved_stderr_ = dup(STDERR_FILENO);
    capture_ = memfd_create("hopt-plugin-stderr", MFD_CLOEXEC);
    if (saved_stderr_ >= 0 && capture_ >= 0) {
      std::fflush(stderr);
      dup2(capture_, STDERR_FILENO);
      // A static constructor that crashes must still be reported.
      SetCrashReportFd(saved_stderr_);
    }
    static bool installed = [] {
      llvm::install_fatal_error_handler(&OptionClashGuard::OnFatalError, nullptr);
      return true;
    }();
    (void)installed;
  }
  ~OptionClashGuard() {
    std::lock_guard<std::mutex> lock(Mutex());
    std::string captured = RestoreStderr();
    if (!captured.empty()) (void)!write(STDERR_FILENO, captured.data(), captured.size());
    RecordOwners(active_path_);
    active_path_.clear();
  }

 private:
  static std::mutex& Mutex() {
    static std::mutex mutex;
    return mutex;
  }
  // Which plugin (or "hopt") brought each option: the first to be seen
  // with it. Keyed by the option itself; read only to word a clash.
  static std::map<const llvm::cl::Option*, std::string>& Owners() {
    static std::map<const llvm::cl::Option*, std::string> owners;
    return owners;
  }
  static void RecordOwners(const std::string& owner) {
    // Options are only ever added while plugins load, so an unchanged
    // count means nothing new to own: a plugin that defines no option (all
    // of plugin API 2's) costs no walk over libLLVM's thousands.
    static size_t recorded = 0;
    auto& options = llvm::cl::getRegisteredOptions();
    if (options.size() == recorded) return;
    recorded = options.size();
    for (const auto& entry : options) Owners().emplace(entry.getValue(), owner);
  }
  static std::string RestoreStderr() {
    std::string captured;
    if (capture_ >= 0) {
      char buffer[4096];
      ssize_t n;
      lseek(capture_, 0, SEEK_SET);
      while ((n = read(capture_, buffer, sizeof(buffer))) > 0) captured.append(buffer, n);
    }
    if (saved_stderr_ >= 0) {
      SetCrashReportFd(-1);
      dup2(saved_stderr_, STDERR_FILENO);
      close(saved_stderr_);
      saved_stderr_ = -1;
    }
    if (capture_ >= 0) close(capture_);
    capture_ = -1;
    return captured;
  }
  static void OnFatalError(void*, const char* reason, bool) {
    if (active_path_.empty()) return;  // not ours: LLVM's usual report
    std::string captured = RestoreStderr();
    std::string message;
    static const std::string kBefore = "Option '", kAfter = "' registered more than once";
    size_t at = captured.find(kAfter);
    size_t start = at == std::string::npos ? std::string::npos : captured.rfind(kBefore, at);
    if (start != std::string::npos) {
      std::string option = captured.substr(start + kBefore.size(), at - start - kBefore.size());
      auto owner = Owners().find(llvm::cl::getRegisteredOptions().lookup(option));
      std::string by = owner == Owners().end() || owner->second == "hopt"
                           ? std::string("hopt itself")
                           : absl::StrCat("plugin '", owner->second, "'");
      message = absl::StrCat("hopt: error: plugin '", active_path_, "' defines the option '-",
                             option, "', which ", by,
                             " already defines; a plugin's options must have names of their own\n");
    } else {
      message = absl::StrCat("hopt: error: plugin '", active_path_,
                             "' failed while loading: ", reason, "\n");
    }
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(1);
  }

  static inline std::string active_path_;
  static inline int saved_stderr_ = -1;
  static inline int capture_ = -1;
};

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Why `path`, which exists, cannot be a plugin file; empty when it does
// not exist.
std::string NotAFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  if (S_ISDIR(st.st_mode)) return "is a directory, not a plugin file";
  return "is not a regular file (a device, FIFO or socket), not a plugin file";
}

}  // namespace

absl::StatusOr<std::string> ResolvePluginPath(absl::string_view spec,
                                              const std::vector<std::string>& builtin_dirs) {
  std::string given(spec);
  if (given.empty()) return absl::InvalidArgumentError("-load needs a plugin file");
  if (given.find('/') != std::string::npos) {
    if (!IsRegularFile(given)) {
      std::string why = NotAFile(given);
      if (!why.empty())
        return absl::FailedPreconditionError(absl::StrCat("plugin '", given, "' ", why));
      return absl::NotFoundError(absl::StrCat("plugin '", given, "': file not found"));
    }
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
  // Never the working directory: running hopt in a directory someone else
  // can write to must not run their code. Say so when that is where it is.
  std::string searched = dirs.empty() ? "nothing" : absl::StrJoin(dirs, ", ");
  if (IsRegularFile(given))
    return absl::NotFoundError(absl::StrCat(
        "plugin '", given,
        "': not in hopt's plugin directories or HOPT_PLUGIN_PATH (searched: ", searched,
        "); hopt does not load plugins from the working directory by a bare name: "
        "use -load=./",
        given));
  return absl::NotFoundError(absl::StrCat(
      "plugin '", given, "': file not found (searched: ", searched, "; set HOPT_PLUGIN_PATH)"));
}

absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path, Extensions& extensions) {
  PassRegistry& registry = extensions.passes;
  // dlopen runs the plugin's static constructors: its code runs from here on.
  CrashContext crash_context(absl::StrCat("loading plugin '", path, "'"));
  // RTLD_LOCAL: plugins never see each other's symbols; RTLD_NOW: an
  // unresolved symbol fails here, not in the middle of a pass. The guard
  // turns LLVM's abort on an option defined twice into a message.
  void* handle;
  {
    OptionClashGuard guard(path);
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' is not a loadable shared object: ", why ? why : "unknown error"));
  }
  dlerror();
  void* symbol = dlsym(handle, HOPT_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr)
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "' does not export the entry point '",
                     HOPT_PLUGIN_ENTRY_POINT, "' (is it a hopt plugin?)"));
  // Every version's struct starts with api_version (and a version 1
  // struct has version 2's layout): nothing else is read before it checks.
  HoptPluginInfo info = reinterpret_cast<HoptGetPluginInfoFn>(symbol)();
  if (info.api_version == 1)
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "' uses plugin API version 1; this hopt loads version ",
                     HOPT_PLUGIN_API_VERSION,
                     " plugins only: rebuild it against hopt's SDK "
                     "(docs/writing-a-plugin.md)"));
  HOPT_RETURN_IF_ERROR(RegisterPluginInfo(info, path, extensions));
  // The pipelines defined beside it that name it (pipeline_file.h).
  if (absl::Status pipelines = RegisterPipelineFilesFor(path, registry); !pipelines.ok())
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "': ", pipelines.message()));
  return LoadedPlugin{path, info.name, info.version};
}

}  // namespace hopt

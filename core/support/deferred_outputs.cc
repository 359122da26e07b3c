// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/deferred_outputs.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "hopt/support/signal_cleanup.h"
#include "hopt/support/status_macros.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace hopt {
namespace {

struct Pending {
  std::string staging, target, marker, what;
};

struct Registry {
  std::mutex mutex;
  std::vector<Pending> pending;
};

// The registry itself is never destroyed (plugins' option readers may
// outlive static destruction order); the reaper, destroyed at exit,
// removes what a run that ended without committing (an error return)
// staged.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  static struct Reaper {
    ~Reaper() { DiscardDeferredOutputs(); }
  } reaper;
  return *registry;
}

std::string Parent(const std::string& path) {
  std::string parent(llvm::sys::path::parent_path(path));
  return parent.empty() ? "." : parent;
}

bool IsEmptyDirectory(const std::string& dir) {
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return false;
  bool empty = true;
  while (dirent* entry = ::readdir(handle)) {
    if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
    empty = false;
    break;
  }
  ::closedir(handle);
  return empty;
}

void Discard(const Pending& p) {
  RemoveFlatDirectory(p.staging);
  DontRemoveDirectoryOnSignal(p.staging);
}

absl::Status CommitOne(const Pending& p) {
  HOPT_RETURN_IF_ERROR(CheckReplaceableDirectory(p.target, p.marker, p.what));
  struct stat old;
  const bool exists = ::lstat(p.target.c_str(), &old) == 0;
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(p.staging.c_str(), exists ? (old.st_mode & 07777) : (0777 & ~mask));
  if (!exists || IsEmptyDirectory(p.target)) {
    if (std::rename(p.staging.c_str(), p.target.c_str()) != 0)
      return absl::UnavailableError(absl::StrCat(p.what, ": cannot rename '", p.staging, "' to '",
                                                 p.target, "': ", std::strerror(errno)));
    return absl::OkStatus();
  }
  // The earlier output moves aside into a private directory first, so
  // that a failed swap can put it back and a successful one removes it
  // without a window where the target is missing something.
  HOPT_ASSIGN_OR_RETURN(std::string aside, MakeStagingDirectory(p.target));
  const std::string old_path = aside + "/old";
  absl::Status status;
  if (std::rename(p.target.c_str(), old_path.c_str()) != 0) {
    status = absl::UnavailableError(absl::StrCat(p.what, ": cannot move the earlier '", p.target,
                                                 "' aside: ", std::strerror(errno)));
  } else if (std::rename(p.staging.c_str(), p.target.c_str()) != 0) {
    status = absl::UnavailableError(absl::StrCat(p.what, ": cannot rename '", p.staging, "' to '",
                                                 p.target, "': ", std::strerror(errno)));
    std::rename(old_path.c_str(), p.target.c_str());
  }
  DontRemoveDirectoryOnSignal(aside);
  llvm::sys::fs::remove_directories(aside);
  return status;
}

}  // namespace

std::string NormalizePath(const std::string& path) {
  llvm::SmallString<256> normal(path);
  llvm::sys::fs::make_absolute(normal);
  llvm::sys::path::remove_dots(normal, /*remove_dot_dot=*/true);
  std::string text(normal.str());
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

absl::Status CheckReplaceableDirectory(const std::string& target, const std::string& marker,
                                       const std::string& what) {
  struct stat info;
  if (::lstat(target.c_str(), &info) != 0) return absl::OkStatus();
  if (!S_ISDIR(info.st_mode))
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": '", target, "' exists and is not a directory"));
  if (IsEmptyDirectory(target)) return absl::OkStatus();
  if (::access((target + "/" + marker).c_str(), F_OK) == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(what, ": '", target,
                                                    "' is a directory with other files (no ",
                                                    marker, "); not replacing it"));
}

absl::StatusOr<std::string> MakeStagingDirectory(const std::string& target) {
  const std::string normal = NormalizePath(target);
  const std::string parent = Parent(normal);
  if (std::error_code error = llvm::sys::fs::create_directories(parent))
    return absl::UnavailableError(
        absl::StrCat("cannot create directory '", parent, "': ", error.message()));
  std::string templ =
      absl::StrCat(parent, "/.", llvm::sys::path::filename(normal).str(), ".tmp-XXXXXX");
  if (::mkdtemp(templ.data()) == nullptr)
    return absl::UnavailableError(absl::StrCat("cannot create a temporary directory next to '",
                                               target, "': ", std::strerror(errno)));
  RemoveDirectoryOnSignal(templ);
  return templ;
}

absl::Status DeferDirectoryCommit(const std::string& staging, const std::string& target,
                                  const std::string& marker, const std::string& what) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  const std::string normal = NormalizePath(target);
  for (const Pending& p : registry.pending)
    if (p.target == normal)
      return absl::FailedPreconditionError(
          absl::StrCat(what, ": '", target,
                       "' already receives an earlier output of this run; give each "
                       "its own directory"));
  registry.pending.push_back({staging, normal, marker, what});
  return absl::OkStatus();
}

absl::Status CommitDeferredOutputs() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  absl::Status status;
  for (const Pending& p : registry.pending) {
    if (status.ok()) status = CommitOne(p);
    if (!status.ok()) Discard(p);
    DontRemoveDirectoryOnSignal(p.staging);
  }
  registry.pending.clear();
  return status;
}

void DiscardDeferredOutputs() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const Pending& p : registry.pending) Discard(p);
  registry.pending.clear();
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hopt/support/status_macros.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"

namespace hopt {
namespace {

// The names under which a process reaches descriptors it already holds.
// Opening them anew would start a second file description (at offset 0,
// truncating what the shell's `>>` appends to), and resolving them leads
// to pipe:[N], which is no path; so they are written through the
// descriptor itself.
std::optional<int> OwnDescriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (absl::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    int fd = -1;
    if (absl::StartsWith(path, prefix) &&
        absl::SimpleAtoi(absl::string_view(path).substr(prefix.size()), &fd) && fd >= 0)
      return fd;
  }
  return std::nullopt;
}

absl::Status WriteError(const std::string& path, int error) {
  if (path == "-")
    return absl::UnavailableError(
        absl::StrCat("cannot write to standard output: ", std::strerror(error)));
  return absl::UnavailableError(absl::StrCat("cannot write '", path, "': ", std::strerror(error)));
}

int WriteAll(int fd, absl::string_view data) {
  const char* p = data.data();
  size_t size = data.size();
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path_ = path;
  if (path.empty()) return absl::InvalidArgumentError("an output file needs a name");
  if (std::optional<int> fd = OwnDescriptor(path)) {
    file->fd_ = *fd;
    file->in_place_ = true;
    file->working_ = path;
    return file;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    int error = errno;
    if (error != ENOENT)
      return absl::UnavailableError(
          absl::StrCat("cannot write '", path, "': ", std::strerror(error)));
    struct stat link;
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      return absl::FailedPreconditionError(absl::StrCat(
          "'", path, "' is a symbolic link to a missing file; not writing through it"));
    HOPT_RETURN_IF_ERROR(file->OpenTemporary(path, /*keep_attributes=*/false));
    return file;
  }
  if (S_ISDIR(info.st_mode))
    return absl::FailedPreconditionError(absl::StrCat("'", path, "' is a directory"));
  if (!S_ISREG(info.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
      return absl::UnavailableError(
          absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
    // Replaced by a regular file since the stat: back to the rename path,
    // never truncated in place.
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
      ::close(fd);
    } else {
      file->fd_ = fd;
      file->owns_fd_ = true;
      file->in_place_ = true;
      file->working_ = path;
      return file;
    }
  }
  // A regular file, possibly through links: replace the file itself.
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr)
    return absl::UnavailableError(
        absl::StrCat("cannot resolve '", path, "': ", std::strerror(errno)));
  HOPT_RETURN_IF_ERROR(file->OpenTemporary(resolved, /*keep_attributes=*/true));
  return file;
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::OpenScratch(const std::string& near) {
  std::unique_ptr<OutputFile> file(new OutputFile());
  file->path_ = near;
  file->scratch_ = true;
  HOPT_RETURN_IF_ERROR(file->OpenTemporary(near, /*keep_attributes=*/false));
  return file;
}

absl::Status OutputFile::OpenTemporary(const std::string& target, bool keep_attributes) {
  target_ = target;
  llvm::SmallString<256> temporary;
  // createUniqueFile opens with O_CREAT | O_EXCL | O_CLOEXEC under random
  // hex digits and mode 0666 & ~umask.
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(target + ".tmp-%%%%%%%%", fd_, temporary))
    return absl::UnavailableError(
        absl::StrCat("cannot create a temporary file for '", path_, "': ", error.message()));
  owns_fd_ = true;
  working_ = std::string(temporary.str());
  llvm::sys::RemoveFileOnSignal(working_);
  struct stat info;
  if (keep_attributes && ::stat(target.c_str(), &info) == 0) {
    // Best effort: only root may give a file away, and a failed chown
    // must not stop the write.
    if (info.st_uid != ::geteuid() || info.st_gid != ::getegid())
      (void)!::fchown(fd_, info.st_uid, info.st_gid);
    ::fchmod(fd_, info.st_mode & 07777);
  }
  return absl::OkStatus();
}

OutputFile::~OutputFile() {
  if (!committed_) Discard();
}

void OutputFile::Discard() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!in_place_ && !working_.empty()) {
    ::unlink(working_.c_str());
    llvm::sys::DontRemoveFileOnSignal(working_);
    working_.clear();
  }
}

void OutputFile::Write(absl::string_view data) {
  if (error_ != 0 || fd_ < 0) return;
  error_ = WriteAll(fd_, data);
}

absl::Status OutputFile::WriteStatus() const {
  return error_ == 0 ? absl::OkStatus() : WriteError(path_, error_);
}

absl::Status OutputFile::Commit() {
  if (scratch_) return absl::InternalError("a scratch file is never committed");
  if (committed_ || fd_ < 0) return absl::InternalError("output committed twice");
  if (error_ != 0) {
    Discard();
    return WriteError(path_, error_);
  }
  if (in_place_) {
    committed_ = true;
    if (owns_fd_ && ::close(fd_) != 0) {
      int error = errno;
      fd_ = -1;
      return WriteError(path_, error);
    }
    fd_ = -1;
    return absl::OkStatus();
  }
  // fsync first: a crash after the rename must not leave an empty file
  // where the old one was.
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    int error = errno;
    fd_ = -1;
    Discard();
    return WriteError(path_, error);
  }
  fd_ = -1;
  if (std::rename(working_.c_str(), target_.c_str()) != 0) {
    int error = errno;
    Discard();
    return absl::UnavailableError(
        absl::StrCat("cannot rename the output into '", path_, "': ", std::strerror(error)));
  }
  llvm::sys::DontRemoveFileOnSignal(working_);
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteOutputFile(const std::string& path, absl::string_view contents) {
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file, OutputFile::Open(path));
  file->Write(contents);
  return file->Commit();
}

absl::StatusOr<int> OpenNewFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0)
    return absl::UnavailableError(
        absl::StrCat("cannot create '", path, "': ", std::strerror(errno)));
  return fd;
}

absl::Status WriteNewFile(const std::string& path, absl::string_view contents) {
  HOPT_ASSIGN_OR_RETURN(const int fd, OpenNewFile(path));
  int error = WriteAll(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0) return absl::OkStatus();
  ::unlink(path.c_str());
  return WriteError(path, error);
}

absl::Status FinishStandardOutput() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return absl::OkStatus();
  int error = errno != 0 ? errno : EIO;
  return WriteError("-", error);
}

}  // namespace hopt

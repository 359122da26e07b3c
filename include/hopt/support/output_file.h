// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_OUTPUT_FILE_H_
#define HOPT_SUPPORT_OUTPUT_FILE_H_

// Every file hopt, its tools and its plugins write goes through here, so
// that a write can neither destroy what it targets nor leave debris, in the
// manner of LLVM's ToolOutputFile:
//
//  - A regular file, or a name that does not exist yet: the bytes go to a
//    temporary created with O_EXCL under an unpredictable name in the
//    target's directory (a name planted there in advance cannot redirect
//    them), removed on SIGINT/SIGTERM/SIGHUP, renamed over the target on
//    Commit and removed on failure. An existing file keeps its permission
//    bits (and, where the process may, its owner); a new one gets
//    0666 & ~umask.
//  - A symlink is written through: the temporary goes next to the file the
//    link finally names and replaces that file, so the link stays a link.
//    A link to a missing file is refused: creating files at the end of a
//    link is how a planted link would redirect the write.
//  - Anything else (a character or block device such as /dev/null, a FIFO,
//    a socket) and the process's own descriptors ("-", /dev/stdout,
//    /dev/stderr, /dev/fd/N, /proc/self/fd/N) are opened and written in
//    place: renaming over them would replace the device, or the pipe the
//    reader is waiting on, with a regular file.
//
// Every failure names the path; tools print it and exit 1.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {

class OutputFile {
 public:
  // "-" is standard output.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(const std::string& path);
  // A temporary next to `near` that is never committed: removed when the
  // object goes, or on a signal (for an intermediate file such as the dot
  // text a picture is rendered from).
  static absl::StatusOr<std::unique_ptr<OutputFile>> OpenScratch(const std::string& near);

  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // The first failure is kept and reported by Commit; later writes do
  // nothing, so that callers can stream without checking every chunk.
  void Write(absl::string_view data);
  // The first write failure so far, if any.
  absl::Status WriteStatus() const;
  // Flushes and puts the bytes in place. Called once.
  absl::Status Commit();

  // Where the bytes go now: the temporary, or the target itself when it
  // is written in place (for a program such as Graphviz that writes into
  // the file by name).
  const std::string& working_path() const { return working_; }
  const std::string& path() const { return path_; }
  bool in_place() const { return in_place_; }

 private:
  OutputFile() = default;
  absl::Status OpenTemporary(const std::string& target, bool keep_attributes);
  void Discard();

  std::string path_;     // as given
  std::string target_;   // what a commit replaces (symlinks resolved)
  std::string working_;  // the temporary, or path_ in place
  int fd_ = -1;
  bool owns_fd_ = false;  // not for the process's own descriptors
  bool in_place_ = false;
  bool scratch_ = false;
  bool committed_ = false;
  int error_ = 0;  // errno of the first failed write
};

// Open + Write + Commit.
absl::Status WriteOutputFile(const std::string& path, absl::string_view contents);

// Creates `path`, which must not exist yet (O_EXCL, and no symlink is
// followed), for files inside a directory the process made for itself.
// Returns the descriptor, which the caller closes.
absl::StatusOr<int> OpenNewFile(const std::string& path);
// OpenNewFile + write + close; on failure the file is removed.
absl::Status WriteNewFile(const std::string& path, absl::string_view contents);

// Flushes what stdio holds for standard output and reports whether all of
// it arrived (> /dev/full, a closed pipe): a tool that exits 0 has written
// everything it printed.
absl::Status FinishStandardOutput();

}  // namespace hopt

#endif  // HOPT_SUPPORT_OUTPUT_FILE_H_

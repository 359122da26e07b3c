// SPDX-License-Identifier: Apache-2.0

#include "core/ir/tooling/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/ir/tooling/input_limits.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

std::string Quoted(const std::string& path) {
  return path == "-" ? std::string("standard input") : absl::StrCat("'", path, "'");
}

// Whether `bytes`, at `offset` in the input, can start or continue what
// `content` says: text never holds a NUL byte (looked for only in the
// first kTextProbeBytes; the parsers reject one further on anyway), and a
// protobuf message never starts with a tag of field 0.
absl::Status Probe(const std::string& path, MappedFile::Content content, absl::string_view bytes,
                   size_t offset) {
  using Content = MappedFile::Content;
  if (content == Content::kProto) {
    if (offset != 0 || bytes.empty() || static_cast<unsigned char>(bytes[0]) >= 8)
      return absl::OkStatus();
    return absl::DataLossError(
        absl::StrCat("cannot read ", Quoted(path), " as a binary HloProto: its first byte, ",
                     static_cast<int>(bytes[0]), ", starts no protobuf message"));
  }
  if (content == Content::kAny || offset >= MappedFile::kTextProbeBytes) return absl::OkStatus();
  size_t n = std::min(bytes.size(), MappedFile::kTextProbeBytes - offset);
  const void* nul = std::memchr(bytes.data(), '\0', n);
  if (nul == nullptr) return absl::OkStatus();
  size_t at = offset + static_cast<size_t>(static_cast<const char*>(nul) - bytes.data());
  return absl::DataLossError(
      absl::StrCat("cannot read ", Quoted(path),
                   content == Content::kText ? " as HLO text" : " as protobuf text",
                   ": it has a NUL byte at offset ", at,
                   " (binary data; a binary HloProto needs -input-format=pb)"));
}

}  // namespace

absl::Status MappedFile::Read(int fd, const std::string& path, Content content) {
  const uint64_t limit = MaxInputBytes();
  // One byte past the limit proves the excess.
  const size_t cap = limit != 0 && limit < std::numeric_limits<size_t>::max()
                         ? static_cast<size_t>(limit) + 1
                         : std::numeric_limits<size_t>::max();
  while (read_.size() < cap) {
    if (read_.available() == 0) {
      absl::Status grown = read_.Grow(cap);
      if (!grown.ok())
        return absl::ResourceExhaustedError(
            absl::StrCat("cannot read ", Quoted(path), ": ", grown.message()));
    }
    ssize_t n = read(fd, read_.end(), std::min<size_t>(read_.available(), size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return absl::DataLossError(absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
    if (n == 0) break;
    HOPT_RETURN_IF_ERROR(Probe(path, content, absl::string_view(read_.end(), n), read_.size()));
    read_.Commit(static_cast<size_t>(n));
  }
  if (limit != 0 && read_.size() > limit)
    return InputTooLarge(absl::StrCat(Quoted(path), " is longer than"));
  bytes_ = read_.view();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path,
                                                             Content content) {
  std::unique_ptr<MappedFile> file(new MappedFile());
  int fd = path == "-" ? STDIN_FILENO : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    absl::Status read = file->Read(fd, path, content);
    if (fd != STDIN_FILENO) close(fd);
    if (!read.ok()) return read;
    return file;
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (MaxInputBytes() != 0 && size > MaxInputBytes()) {
    if (fd != STDIN_FILENO) close(fd);
    return InputTooLarge(absl::StrCat("'", path, "' is ", size, " bytes, over"));
  }
  if (content != Content::kAny) {
    // Probed before the whole file is mapped and paged in.
    std::string head(std::min(size, kTextProbeBytes), '\0');
    ssize_t n = pread(fd, head.data(), head.size(), 0);
    absl::Status probed = Probe(path, content, absl::string_view(head.data(), n > 0 ? n : 0), 0);
    if (!probed.ok()) {
      if (fd != STDIN_FILENO) close(fd);
      return probed;
    }
  }
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (fd != STDIN_FILENO) close(fd);
  if (mapped == MAP_FAILED)
    return absl::DataLossError(absl::StrCat("cannot map '", path, "': ", std::strerror(errno)));
  file->mapped_ = mapped;
  file->mapped_size_ = size;
  file->bytes_ = absl::string_view(static_cast<const char*>(mapped), size);
  return file;
}

MappedFile::~MappedFile() {
  if (mapped_ != nullptr) munmap(mapped_, mapped_size_);
}

void MappedFile::Release(size_t begin, size_t end) {
  if (mapped_ == nullptr) return;
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t first = (begin + page - 1) / page * page;
  size_t last = std::min(end, mapped_size_) / page * page;
  if (last > first) madvise(static_cast<char*>(mapped_) + first, last - first, MADV_DONTNEED);
}

}  // namespace hopt

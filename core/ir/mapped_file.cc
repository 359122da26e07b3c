#include "core/ir/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/ir/input_limits.h"

namespace hopt {

absl::StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  std::unique_ptr<MappedFile> file(new MappedFile());
  int fd = path == "-" ? STDIN_FILENO : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    char buffer[1 << 16];
    ssize_t n;
    const uint64_t limit = MaxInputBytes();
    bool too_large = false;
    while ((n = read(fd, buffer, sizeof(buffer))) > 0) {
      file->copy_.append(buffer, static_cast<size_t>(n));
      if (limit != 0 && file->copy_.size() > limit) {
        too_large = true;
        break;
      }
    }
    int error = n < 0 ? errno : 0;
    if (fd != STDIN_FILENO) close(fd);
    if (too_large)
      return InputTooLarge(absl::StrCat(path == "-" ? "standard input" : "'" + path + "'",
                                        " is longer than"));
    if (error != 0)
      return absl::DataLossError(absl::StrCat("cannot read '", path, "': ", std::strerror(error)));
    file->bytes_ = file->copy_;
    return file;
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (MaxInputBytes() != 0 && size > MaxInputBytes()) {
    if (fd != STDIN_FILENO) close(fd);
    return InputTooLarge(absl::StrCat("'", path, "' is ", size, " bytes, over"));
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

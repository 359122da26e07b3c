#ifndef HOPT_CORE_IR_MAPPED_FILE_H_
#define HOPT_CORE_IR_MAPPED_FILE_H_

// A whole input file as bytes: mapped when it is a regular non-empty file
// (populated in one go, far cheaper than a fault per page or a copy), read
// into memory otherwise (pipes, devices, standard input as "-").

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {

class MappedFile {
 public:
  // Errors: NotFound "cannot open 'PATH': REASON", DataLoss "cannot read
  // 'PATH': ..." or "cannot map 'PATH': ...".
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  absl::string_view bytes() const { return bytes_; }
  // Hands the whole pages inside [begin, end) back to the system once a
  // reader is done with them (a no-op for a file read into memory).
  void Release(size_t begin, size_t end);

 private:
  MappedFile() = default;
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  std::string copy_;
  absl::string_view bytes_;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_MAPPED_FILE_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_TOOLING_MAPPED_FILE_H_
#define HOPT_CORE_IR_TOOLING_MAPPED_FILE_H_

// A whole input file as bytes: mapped when it is a regular non-empty file
// (populated in one go, far cheaper than a fault per page or a copy), read
// otherwise (pipes, devices, standard input as "-") into memory that grows
// without copying (growing_bytes.h), up to -max-input-size.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/growing_bytes.h"

namespace hopt {

class MappedFile {
 public:
  // What the caller will make of the bytes. Input is refused at its first
  // bytes when they cannot be that: HLO text or protobuf text with a NUL
  // byte in the first kTextProbeBytes, a binary proto whose first byte
  // names field 0 (no message starts so). /dev/zero, /dev/urandom or a
  // binary file handed over as text is stopped there rather than read up
  // to the input limit.
  enum class Content { kAny, kText, kProtoText, kProto };
  static constexpr size_t kTextProbeBytes = size_t{64} << 10;

  // Errors: NotFound "cannot open 'PATH': REASON", DataLoss "cannot read
  // 'PATH': ..." (also "cannot read 'PATH' as HLO text: ...", "as protobuf
  // text", "as a binary HloProto") or
  // "cannot map 'PATH': ...", ResourceExhausted over -max-input-size.
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path,
                                                          Content content = Content::kAny);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  absl::string_view bytes() const { return bytes_; }
  // Hands the whole pages inside [begin, end) back to the system once a
  // reader is done with them (a no-op for a file read into memory: those
  // pages could not be read again).
  void Release(size_t begin, size_t end);

 private:
  MappedFile() = default;
  absl::Status Read(int fd, const std::string& path, Content content);
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  GrowingBytes read_;
  absl::string_view bytes_;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_TOOLING_MAPPED_FILE_H_

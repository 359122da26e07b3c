// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_GROWING_BYTES_H_
#define HOPT_CORE_IR_GROWING_BYTES_H_

// Bytes whose length is known only at their end (a pipe, a device,
// standard input, inflated gzip), gathered in an anonymous mapping that
// grows with mremap. Growing moves page tables, never the bytes, and only
// the pages written are resident: memory stays at what was read. (A
// std::string that doubles holds the old and the new buffer while it
// copies, up to three times what was read, all of it touched.)

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

class GrowingBytes {
 public:
  GrowingBytes() = default;
  ~GrowingBytes();
  GrowingBytes(GrowingBytes&& other) noexcept;
  GrowingBytes& operator=(GrowingBytes&& other) noexcept;
  GrowingBytes(const GrowingBytes&) = delete;
  GrowingBytes& operator=(const GrowingBytes&) = delete;

  // Makes room for more bytes without the capacity passing `max_capacity`
  // (which must be above the current capacity). ResourceExhausted when the
  // system refuses the address space.
  absl::Status Grow(size_t max_capacity);
  // Where the next bytes go, and how many fit before the next Grow.
  char* end() { return data_ + size_; }
  size_t available() const { return capacity_ - size_; }
  size_t capacity() const { return capacity_; }
  // Counts `n` bytes written at end().
  void Commit(size_t n) { size_ += n; }

  size_t size() const { return size_; }
  absl::string_view view() const { return absl::string_view(data_, size_); }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_GROWING_BYTES_H_

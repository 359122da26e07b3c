// SPDX-License-Identifier: Apache-2.0

#include "core/ir/growing_bytes.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hopt {
namespace {

constexpr size_t kFirstCapacity = size_t{64} << 10;
// Doubling up to here, then this much at a time: the address space
// reserved ahead of the bytes stays small next to them (it counts against
// a ulimit -v even though it is never touched).
constexpr size_t kLargeStep = size_t{64} << 20;

}  // namespace

GrowingBytes::~GrowingBytes() {
  if (data_ != nullptr) munmap(data_, capacity_);
}

GrowingBytes::GrowingBytes(GrowingBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

GrowingBytes& GrowingBytes::operator=(GrowingBytes&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, capacity_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

absl::Status GrowingBytes::Grow(size_t max_capacity) {
  size_t wanted = capacity_ == 0                          ? kFirstCapacity
                  : capacity_ < kLargeStep                ? capacity_ * 2
                  : max_capacity - capacity_ > kLargeStep ? capacity_ + kLargeStep
                                                          : max_capacity;
  wanted = std::min(wanted, max_capacity);
  void* grown = data_ == nullptr ? mmap(nullptr, wanted, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                 : mremap(data_, capacity_, wanted, MREMAP_MAYMOVE);
  if (grown == MAP_FAILED)
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot reserve ", wanted, " bytes of memory: ", std::strerror(errno)));
  data_ = static_cast<char*>(grown);
  capacity_ = wanted;
  return absl::OkStatus();
}

}  // namespace hopt

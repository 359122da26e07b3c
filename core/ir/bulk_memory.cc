// SPDX-License-Identifier: Apache-2.0

#include "core/ir/bulk_memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define HOPT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOPT_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(HOPT_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace hopt {

void* AllocateBulk(size_t bytes) {
  if (bytes < kLargeBlockSize) {
    void* block = std::malloc(bytes);
    if (block == nullptr) throw std::bad_alloc();
    return block;
  }
  // Mapped, not advised as huge pages: on the virtual machines we measured,
  // a huge page takes 3.5 to 7 times longer per byte to fault in than 4 KB
  // pages (it comes from memory the host has not backed yet), and passes
  // that add millions of instructions paid it (bench/README.md).
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  return block;
}

void FreeBulk(void* block, size_t bytes) {
  if (block == nullptr) return;
  UnpoisonBulk(block, bytes);  // the range may be mapped again later
  if (bytes < kLargeBlockSize) {
    std::free(block);
    return;
  }
  munmap(block, bytes);
}

void PoisonBulk(const void* piece, size_t bytes) {
#if defined(HOPT_ADDRESS_SANITIZER)
  __asan_poison_memory_region(piece, bytes);
#else
  (void)piece;
  (void)bytes;
#endif
}

void UnpoisonBulk(const void* piece, size_t bytes) {
#if defined(HOPT_ADDRESS_SANITIZER)
  __asan_unpoison_memory_region(piece, bytes);
#else
  (void)piece;
  (void)bytes;
#endif
}

}  // namespace hopt

#include "core/ir/bulk_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace hopt {

void* AllocateBulk(size_t bytes) {
  if (bytes < kHugePageSize) {
    void* block = std::malloc(bytes);
    if (block == nullptr) throw std::bad_alloc();
    return block;
  }
  // Over-map by one huge page, then trim to an aligned range.
  size_t span = bytes + kHugePageSize;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePageSize - 1) & ~(uintptr_t{kHugePageSize} - 1);
  if (aligned > start) munmap(raw, aligned - start);
  uintptr_t end = start + span;
  if (end > aligned + bytes) munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void FreeBulk(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (bytes < kHugePageSize) {
    std::free(block);
    return;
  }
  munmap(block, bytes);
}

}  // namespace hopt

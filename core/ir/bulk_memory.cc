#include "core/ir/bulk_memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

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
  if (bytes < kLargeBlockSize) {
    std::free(block);
    return;
  }
  munmap(block, bytes);
}

}  // namespace hopt

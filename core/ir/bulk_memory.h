#ifndef HOPT_CORE_IR_BULK_MEMORY_H_
#define HOPT_CORE_IR_BULK_MEMORY_H_

#include <cstddef>
#include <memory>

namespace hopt {

// Large blocks for the module's arenas: blocks of 2 MiB or more are their
// own mappings, returned to the system when the module goes; smaller ones
// come from malloc.
void* AllocateBulk(size_t bytes);
void FreeBulk(void* block, size_t bytes);

struct BulkBlock {
  BulkBlock(void* d, size_t s) : data(d), size(s) {}
  BulkBlock(const BulkBlock&) = delete;
  BulkBlock& operator=(const BulkBlock&) = delete;
  ~BulkBlock() { FreeBulk(data, size); }
  void* data;
  size_t size;
};

// Blocks from this size up are mapped; arenas grow up to a few of these.
constexpr size_t kLargeBlockSize = size_t{2} << 20;

}  // namespace hopt

#endif  // HOPT_CORE_IR_BULK_MEMORY_H_

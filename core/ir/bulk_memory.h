#ifndef HOPT_CORE_IR_BULK_MEMORY_H_
#define HOPT_CORE_IR_BULK_MEMORY_H_

#include <cstddef>
#include <memory>

namespace hopt {

// Large blocks for the module's arenas. Blocks of 2 MiB or more are
// mapped on a huge-page boundary and advised as huge pages: a 500k-
// instruction module then takes tens of page faults instead of tens of
// thousands (page faults are expensive in virtual machines).
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

constexpr size_t kHugePageSize = size_t{2} << 20;

}  // namespace hopt

#endif  // HOPT_CORE_IR_BULK_MEMORY_H_

// SPDX-License-Identifier: Apache-2.0

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

// Under AddressSanitizer, marks a piece of a block unusable (a destroyed
// instruction waiting for reuse) or usable again: the sanitizer cannot see
// objects inside our blocks, so without this a read of a removed
// instruction passes silently. No-ops otherwise.
void PoisonBulk(const void* piece, size_t bytes);
void UnpoisonBulk(const void* piece, size_t bytes);

}  // namespace hopt

#endif  // HOPT_CORE_IR_BULK_MEMORY_H_

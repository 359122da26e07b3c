// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_MODULE_INTERNAL_H_
#define HOPT_CORE_IR_MODULE_INTERNAL_H_

// What an HloModule keeps behind its public API (include/hopt/ir/module.h): the
// arena that owns every name and attribute text, the blocks instructions
// live in, the name table, interned shapes and the indexes HloInstruction
// keeps for instructions with very many operands or users. Core's own code
// (the readers, the builder, instruction.cc) includes this header; plugins
// never do, and it is not installed (docs/design.md, "Public headers"), so
// the layout of all this can change without touching the plugin ABI.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "core/ir/bulk_memory.h"
#include "core/ir/name_table.h"
#include "core/ir/string_arena.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"

namespace hopt {

// An instruction with more operands than this (a wide tuple) has the
// module index where each operand stands, so that finding one among them,
// which every rewrite of one of its operands does, is not a scan.
inline constexpr size_t kIndexOperandsAbove = 128;

// Where each operand of an instruction stands among its operands (declared
// in instruction.h, where only its name is needed).
struct OperandPositions
    : absl::flat_hash_map<const HloInstruction*, absl::InlinedVector<int32_t, 1>> {};

// A user's position in an instruction's users.
using UserPositions = absl::flat_hash_map<const HloInstruction*, int64_t>;

struct ModuleStorage {
  // Declared first, destroyed last: names, attribute texts and instructions
  // point into it.
  StringArena arena;
  // Blocks grow from a few hundred instructions to 16 MiB.
  std::vector<std::unique_ptr<BulkBlock>> instruction_blocks;
  size_t block_used = 0;
  size_t block_capacity = 0;
  // Destroyed instructions' memory, for reuse, linked through the slots
  // themselves: a vector of them would grow by large reallocations, each of
  // which makes glibc sweep every small block freed since the last one
  // (malloc_consolidate), a quarter of a marker removal's time at 8M
  // instructions.
  struct FreeSlot {
    FreeSlot* next;
  };
  FreeSlot* free_instructions = nullptr;
  bool tearing_down = false;
  absl::flat_hash_map<std::string, std::unique_ptr<Shape>> shapes;
  // Built on first use: parsing never needs it.
  bool name_index_built = false;
  NameTable names{&arena};
  std::string name_scratch;
  // Positions of the users of an instruction with very many users
  // (maintained by HloInstruction; created on first use).
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<UserPositions>> user_indexes;
  // Where each operand stands among the operands of an instruction with
  // very many operands (a wide tuple; maintained by HloInstruction, created
  // on first use).
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<OperandPositions>> operand_indexes;
  // How many users have been removed, one scan each, from the users of an
  // instruction with many (this one included). The index above pays off
  // only when removals repeat (a fan-out being dismantled): for one removal
  // it costs a hash table the size of the user list, many times the scan.
  absl::flat_hash_map<const HloInstruction*, uint32_t> user_removals;

  UserPositions* UserIndex(const HloInstruction* i) {
    auto& index = user_indexes[i];
    if (!index) index = std::make_unique<UserPositions>();
    return index.get();
  }
  OperandPositions* OperandIndex(const HloInstruction* i) {
    auto& index = operand_indexes[i];
    if (!index) index = std::make_unique<OperandPositions>();
    return index.get();
  }
};

// The metadata text of the innermost live MetadataFrom on this thread
// (hopt/ir/builder.h), or null.
const std::string* InheritedMetadata();

// Core's access to what HloModule keeps private: its storage, interned
// shapes and instruction blocks. The public header names only this struct
// as a friend, so that no plugin reaches them and module.h names no other
// core class.
struct ModuleInternals {
  static ModuleStorage& Storage(HloModule& module) { return *module.storage_; }
  static const ModuleStorage& Storage(const HloModule& module) { return *module.storage_; }
  static const Shape* InternShape(HloModule& module, const Shape& shape) {
    return module.InternShape(shape);
  }
  // Instructions live in blocks owned by the module (one allocation per
  // few thousand instructions); removed ones are recycled.
  static HloInstruction* NewInstruction(HloModule& module, HloOpcode opcode, const Shape* shape) {
    return module.NewInstruction(opcode, shape);
  }
  static void DestroyInstruction(HloModule& module, HloInstruction* instruction) {
    module.DestroyInstruction(instruction);
  }
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_MODULE_INTERNAL_H_

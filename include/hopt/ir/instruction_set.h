// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_INSTRUCTION_SET_H_
#define HOPT_IR_INSTRUCTION_SET_H_

#include <cstddef>
#include <vector>

#include "hopt/ir/instruction.h"

namespace hopt {

// A set of instructions of one module as bits indexed by unique id. For
// sets that span a whole computation: memory is one bit per id up to the
// largest inserted, and each test touches one word, where a hash set of
// millions of pointers costs a cache miss per probe. For a handful of
// instructions in a big module, a hash set is the better choice.
class DenseInstructionSet {
 public:
  // Returns false if `instruction` was already in.
  bool insert(const HloInstruction* instruction) {
    size_t id = static_cast<size_t>(instruction->unique_id());
    if (id >= bits_.size()) bits_.resize(id + id / 2 + 64, false);
    if (bits_[id]) return false;
    bits_[id] = true;
    return true;
  }
  bool contains(const HloInstruction* instruction) const {
    size_t id = static_cast<size_t>(instruction->unique_id());
    return id < bits_.size() && bits_[id];
  }
  void reserve_ids(size_t ids) {
    if (ids > bits_.size()) bits_.resize(ids, false);
  }

 private:
  std::vector<bool> bits_;
};

}  // namespace hopt

#endif  // HOPT_IR_INSTRUCTION_SET_H_

// SPDX-License-Identifier: Apache-2.0

#include "core/ir/name_check.h"

#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace hopt {
namespace {

// LSD radix sort on 64-bit keys, 16 bits per pass.
void RadixSort(std::vector<uint64_t>& keys) {
  std::vector<uint64_t> scratch(keys.size());
  std::vector<size_t> count(1 << 16);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & 0xffff];
    size_t total = 0;
    for (size_t& c : count) {
      size_t n = c;
      c = total;
      total += n;
    }
    for (uint64_t k : keys) scratch[count[(k >> shift) & 0xffff]++] = k;
    keys.swap(scratch);
  }
}

}  // namespace

const HloInstruction* FindDuplicateName(InstructionRange instructions) {
  auto hash = [](const HloInstruction* i) { return absl::Hash<absl::string_view>()(i->name()); };
  std::vector<uint64_t> sorted;
  sorted.reserve(instructions.last - instructions.first);
  for (const HloInstruction* i : instructions) sorted.push_back(hash(i));
  if (sorted.size() < 2) return nullptr;
  if (sorted.size() < 4096)
    std::sort(sorted.begin(), sorted.end());
  else
    RadixSort(sorted);
  absl::flat_hash_map<uint64_t, std::vector<const HloInstruction*>> repeated;
  for (size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k] == sorted[k - 1]) repeated[sorted[k]];
  if (repeated.empty()) return nullptr;
  std::vector<uint64_t>().swap(sorted);
  // Equal hashes (rare): compare the names, in list order.
  for (const HloInstruction* i : instructions) {
    auto it = repeated.find(hash(i));
    if (it == repeated.end()) continue;
    for (const HloInstruction* earlier : it->second)
      if (earlier->name() == i->name()) return i;
    it->second.push_back(i);
  }
  return nullptr;
}

}  // namespace hopt

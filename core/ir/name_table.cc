// SPDX-License-Identifier: Apache-2.0

#include "core/ir/name_table.h"

namespace hopt {

namespace {
// Longer digit runs are not numbers (they could overflow int64).
constexpr size_t kMaxDigits = 17;
}  // namespace

void NameTable::Split(absl::string_view name, absl::string_view* stem, int64_t* number) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  while (start + 1 < name.size() && name[start] == '0') ++start;
  size_t digits = name.size() - start;
  if (digits == 0 || digits > kMaxDigits) {
    *stem = name;
    *number = -1;
    return;
  }
  int64_t value = 0;
  for (size_t i = start; i < name.size(); ++i) value = value * 10 + (name[i] - '0');
  *stem = name.substr(0, start);
  *number = value;
}

bool NameTable::Stem::Has(int64_t n) const {
  size_t word = static_cast<size_t>(n) / 64;
  if (word < dense.size()) return (dense[word] >> (n % 64)) & 1;
  return sparse.contains(n);
}

bool NameTable::Stem::Add(int64_t n) {
  size_t word = static_cast<size_t>(n) / 64;
  if (word >= dense.size() && n < 4096 + 8 * count) dense.resize(word + word / 2 + 1, 0);
  bool added;
  if (word < dense.size()) {
    uint64_t bit = uint64_t{1} << (n % 64);
    added = !(dense[word] & bit);
    dense[word] |= bit;
  } else {
    added = sparse.insert(n).second;
  }
  count += added;
  return added;
}

NameTable::Stem& NameTable::StemFor(absl::string_view stem) {
  for (const RecentStem& recent : recent_)
    if (recent.entry != nullptr && recent.stem == stem) return *recent.entry;
  auto it = stems_.find(stem);
  if (it == stems_.end()) {
    size_t capacity = stems_.capacity();
    it = stems_.emplace(arena_->Save(stem), Stem()).first;
    if (stems_.capacity() != capacity)
      for (RecentStem& recent : recent_) recent = RecentStem();
  }
  recent_[recent_next_] = {it->first, &it->second};
  recent_next_ = (recent_next_ + 1) % kRecentStems;
  return it->second;
}

bool NameTable::Insert(absl::string_view name) {
  absl::string_view stem;
  int64_t number;
  Split(name, &stem, &number);
  Stem& entry = StemFor(stem);
  if (number >= 0) return entry.Add(number);
  bool added = !entry.bare_used;
  entry.bare_used = true;
  return added;
}

bool NameTable::Contains(absl::string_view name) const {
  absl::string_view stem;
  int64_t number;
  Split(name, &stem, &number);
  auto it = stems_.find(stem);
  if (it == stems_.end()) return false;
  return number >= 0 ? it->second.Has(number) : it->second.bare_used;
}

int64_t NameTable::TakeNextNumber(absl::string_view stem) {
  Stem& entry = StemFor(stem);
  int64_t n = entry.counter;
  do {
    ++n;
  } while (entry.Has(n));
  entry.counter = n;
  entry.Add(n);
  return n;
}

}  // namespace hopt

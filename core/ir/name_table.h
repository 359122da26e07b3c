// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_NAME_TABLE_H_
#define HOPT_CORE_IR_NAME_TABLE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/ir/string_arena.h"

namespace hopt {

// The set of names used in a module, and the source of fresh ones.
//
// A name is kept as (stem, number): "add.17" is stem "add." with number 17,
// "v12" is stem "v" with 12, "root" is stem "root" with no number. Names in
// real dumps share a handful of stems and their numbers are nearly dense, so
// the numbers live in a bitmap per stem. A fresh name for a stem is the next
// free number, found by walking that bitmap: adding millions of names stays
// in cache instead of probing one hash entry per name in a table of millions
// (which made passes that add many instructions slower than linear).
//
// New stems are copied into the arena given at construction.
class NameTable {
 public:
  explicit NameTable(StringArena* arena) : arena_(arena) {}

  // Records `name` as used; returns false if it already was.
  bool Insert(absl::string_view name);
  bool Contains(absl::string_view name) const;
  void Reserve(size_t names) { stems_.reserve(names / 64 + 16); }

  // A number n >= 1 such that `stem` followed by n is unused, larger than
  // any this function returned for `stem` before, recorded as used.
  // `stem` must end in a non-digit (callers pass "prefix.").
  int64_t TakeNextNumber(absl::string_view stem);

 private:
  struct Stem {
    bool bare_used = false;
    int64_t counter = 0;  // the last number TakeNextNumber returned
    // Bit n of dense: number n is used. Numbers past the dense range (far
    // beyond how many this stem has) go to sparse.
    std::vector<uint64_t> dense;
    absl::flat_hash_set<int64_t> sparse;
    int64_t count = 0;

    bool Has(int64_t n) const;
    bool Add(int64_t n);
  };
  // Splits into stem and number (-1: none). Digits keep no leading zero, so
  // each name has exactly one split: "v007" is stem "v00" and 7.
  static void Split(absl::string_view name, absl::string_view* stem, int64_t* number);
  Stem& StemFor(absl::string_view stem);

  StringArena* arena_;
  absl::flat_hash_map<absl::string_view, Stem> stems_;
  // The last stems looked up: names in a module come in runs that share a
  // stem (c7_1, c7_2, ...), and a module with many stems would otherwise
  // probe a table bigger than the cache for each name. Emptied when the
  // table grows (its entries move).
  struct RecentStem {
    absl::string_view stem;
    Stem* entry = nullptr;
  };
  static constexpr int kRecentStems = 4;
  RecentStem recent_[kRecentStems];
  int recent_next_ = 0;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_NAME_TABLE_H_

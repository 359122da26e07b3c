// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_STRING_ARENA_H_
#define HOPT_CORE_IR_STRING_ARENA_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "core/ir/bulk_memory.h"

namespace hopt {

// Owns the bytes of every name and attribute text in a module. Strings never
// move, so string_views into the arena stay valid for the module's lifetime.
class StringArena {
 public:
  StringArena() = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;

  absl::string_view Save(absl::string_view text) {
    if (text.empty()) return absl::string_view();
    if (text.size() > remaining_) Grow(text.size());
    char* dst = cursor_;
    std::memcpy(dst, text.data(), text.size());
    cursor_ += text.size();
    remaining_ -= text.size();
    return absl::string_view(dst, text.size());
  }

  // Like Save, but returns the same bytes for equal texts (metadata and
  // frontend attributes repeat thousands of times in real dumps).
  absl::string_view Intern(absl::string_view text) {
    auto it = interned_.find(text);
    if (it != interned_.end()) return *it;
    absl::string_view saved = Save(text);
    interned_.insert(saved);
    return saved;
  }

  // For attribute values, which repeat (metadata, replica groups, JSON
  // configs) or are unique (channel_id=N, op names): equal texts share
  // their bytes as long as they recur before another value takes their
  // slot in a small direct-mapped cache. An exact table would grow with
  // every unique value and, once it no longer fits in cache, make passes
  // that set millions of them slower than linear. Short texts are only
  // saved: they cost less than a slot.
  absl::string_view InternValue(absl::string_view text) {
    if (text.size() <= kShortText) return Save(text);
    if (recent_values_.empty()) recent_values_.resize(kRecentValues);
    absl::string_view& slot = recent_values_[absl::HashOf(text) & (kRecentValues - 1)];
    if (slot != text) slot = Save(text);
    return slot;
  }

  // Keeps a whole text alive for the arena's lifetime (the parsed source:
  // names and attribute texts point into it).
  absl::string_view Adopt(std::string text) {
    sources_.push_back(std::make_unique<std::string>(std::move(text)));
    return *sources_.back();
  }

  size_t bytes_used() const { return used_; }

 private:
  static constexpr size_t kShortText = 16;
  static constexpr size_t kRecentValues = 4096;  // a power of two
  void Grow(size_t at_least) {
    // Blocks double from 4 KiB up to 2 MiB (kLargeBlockSize).
    next_block_ = next_block_ == 0 ? 4096 : std::min(next_block_ * 2, kLargeBlockSize);
    size_t size = at_least > next_block_ / 4 ? at_least : next_block_;
    blocks_.push_back(std::make_unique<BulkBlock>(AllocateBulk(size), size));
    cursor_ = static_cast<char*>(blocks_.back()->data);
    remaining_ = size;
    used_ += size;
  }

  size_t next_block_ = 0;
  std::vector<std::unique_ptr<BulkBlock>> blocks_;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t used_ = 0;
  absl::flat_hash_set<absl::string_view> interned_;
  std::vector<absl::string_view> recent_values_;
  std::vector<std::unique_ptr<std::string>> sources_;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_STRING_ARENA_H_

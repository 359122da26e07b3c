// SPDX-License-Identifier: Apache-2.0

#include "core/proto/dropped_fields.h"

#include "absl/strings/str_cat.h"

namespace hopt {

void DroppedFields::Add(Kind kind, absl::string_view message, int number, absl::string_view field,
                        absl::string_view note, int64_t count) {
  std::string key = absl::StrCat(static_cast<int>(kind), "|", message, "|", number, "|", note);
  auto [it, inserted] = index_.try_emplace(std::move(key), entries_.size());
  if (inserted)
    entries_.push_back(
        {kind, std::string(message), number, std::string(field), std::string(note), 0});
  entries_[it->second].count += count;
}

void DroppedFields::Merge(const DroppedFields& other) {
  for (const Entry& e : other.entries_) Add(e.kind, e.message, e.number, e.field, e.note, e.count);
}

void DroppedFields::Clear() {
  entries_.clear();
  index_.clear();
}

int64_t DroppedFields::dropped_count() const {
  int64_t n = 0;
  for (const Entry& e : entries_)
    if (e.kind != Kind::kKeptUnknown) n += e.count;
  return n;
}

std::string DroppedFields::Describe(const Entry& e) {
  std::string what = e.field.empty() ? absl::StrCat("unknown field ", e.number, " of ", e.message)
                                     : absl::StrCat(e.message, ".", e.field);
  return absl::StrCat(e.kind == Kind::kKeptUnknown ? "kept " : "dropped ", e.count, " ", what,
                      e.note.empty() ? "" : absl::StrCat(" (", e.note, ")"));
}

}  // namespace hopt

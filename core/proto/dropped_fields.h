// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_DROPPED_FIELDS_H_
#define HOPT_CORE_PROTO_DROPPED_FIELDS_H_

// What a proto reader did not carry into the module or its side table
// (side_table.h), by kind, so that the tools can say so
// (-warn-dropped-fields; docs/formats.md, "Proto schemas from older XLA"):
// - legacy fields: fields XLA has removed, which old dumps still hold
//   (core/proto/hlo.proto's "Legacy" blocks). Dropped or mapped, never
//   written back.
// - unknown fields (a newer XLA's, or another program's) inside a message
//   the writer rebuilds from the IR (a shape, a layout, metadata...):
//   nowhere to keep them, so dropped.
// - unknown fields of an instruction, computation or module message
//   themselves: kept in the side table and written back, but nothing in
//   hopt reads them. Listed too, as kept.
// - declared fields hopt does not keep (an HloSnapshot's arguments...).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace hopt {

class DroppedFields {
 public:
  enum class Kind {
    kLegacy,       // removed from XLA: dropped or mapped
    kUnknown,      // not in hopt's schema, inside a rebuilt message: dropped
    kKeptUnknown,  // not in hopt's schema: kept in the side table
    kNotKept,      // in hopt's schema, not kept (an HloSnapshot's arguments)
  };
  struct Entry {
    Kind kind;
    std::string message;  // "LayoutProto", without the package
    int number = 0;
    std::string field;  // the field's name; empty for an unknown field
    std::string note;   // "DENSE; removed from XLA in 2022"
    int64_t count = 0;
  };

  // Counts `count` more fields of one kind: entries are told apart by kind,
  // message, number and note, and keep the order they first appeared in.
  void Add(Kind kind, absl::string_view message, int number, absl::string_view field,
           absl::string_view note, int64_t count = 1);
  void Merge(const DroppedFields& other);
  void Clear();

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // How many fields were dropped (every kind but kKeptUnknown).
  int64_t dropped_count() const;

  // One line per entry, e.g.
  //   dropped 12 LayoutProto.format (DENSE; removed from XLA in 2022)
  //   dropped 1 unknown field 99 of LayoutProto (not in hopt's schema: ...)
  //   kept 3 unknown field 92 of HloInstructionProto (...)
  static std::string Describe(const Entry& entry);

 private:
  std::vector<Entry> entries_;
  absl::flat_hash_map<std::string, size_t> index_;  // key -> entries_ position
};

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_DROPPED_FIELDS_H_

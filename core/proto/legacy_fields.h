// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_LEGACY_FIELDS_H_
#define HOPT_CORE_PROTO_LEGACY_FIELDS_H_

// What the readers do with fields of other XLA schemas than hopt's
// (docs/formats.md, "Proto schemas from older XLA"):
// - legacy fields (removed from XLA; core/proto/hlo.proto's "Legacy"
//   blocks) are counted, checked (a SPARSE layout is refused: hopt has no
//   sparse-format layouts) and cleared, so that no writer emits them;
// - unknown fields inside messages the writers rebuild from the IR are
//   counted as dropped.
// Both are reported in a DroppedFields (dropped_fields.h).

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/proto/dropped_fields.h"
#include "google/protobuf/message.h"

namespace hopt {

// Which parts of a message the reader maps to the IR (and the writer
// rebuilds from it) and which it keeps or reads elsewhere.
struct ReadScope {
  // A field read on its own (the module's computations, a computation's
  // instructions): not looked into. 0: none.
  int separate_field = 0;
  // Fields rebuilt from the IR: unknown fields inside them are dropped.
  // Unknown fields inside the others travel with them (the side table
  // keeps the message whole). Ignored when `all_rebuilt`.
  std::vector<int> rebuilt_fields;
  bool all_rebuilt = false;
};

// Drops the legacy fields of `message` and of every message it holds,
// counting them into `report`, and counts the unknown fields inside the
// rebuilt parts (those of `message` itself are the caller's: it keeps them
// in the side table). Fails, naming the field's path, on a legacy value
// hopt cannot read (a SPARSE layout format).
absl::Status DropLegacyFields(google::protobuf::Message* message, const ReadScope& scope,
                              DroppedFields* report);

// Whether a serialized message of `type` may hold a legacy or an unknown
// field at any depth: a scan of the wire data, several times cheaper than
// DropLegacyFields' walk over the parsed message, which it lets the
// binary reader skip for the messages that hold neither (nearly all).
// Malformed data answers true.
bool MayHoldOtherSchemaFields(absl::string_view bytes, const google::protobuf::Descriptor* type);

// Counts the unknown fields of `message` itself as `kind`.
void CountUnknownFields(const google::protobuf::Message& message, DroppedFields::Kind kind,
                        DroppedFields* report);

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_LEGACY_FIELDS_H_

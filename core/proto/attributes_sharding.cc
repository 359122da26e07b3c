// SPDX-License-Identifier: Apache-2.0
// sharding= <-> xla::OpSharding (field 40), in HloSharding's text spelling:
//   {replicated}  {manual}  {unknown}  {maximal device=3}
//   {devices=[2,2]0,1,2,3}  {devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
//   {devices=[2,1,2]<=[4] last_tile_dims={manual, replicated}}
//   {... metadata={op_name="a"}}  {... shard_as 1}  {{replicated}, {maximal device=0}}
// Forms outside this grammar (several metadata entries, ...) fail to encode,
// and the driver keeps that instruction's sharding as text.

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/text_cursor.h"
#include "core/proto/attributes_internal.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace proto_attributes_internal {
namespace {

using Proto = xla::HloInstructionProto;
using Decoded = absl::StatusOr<std::optional<std::string>>;
constexpr int kMaxTupleDepth = 64;

bool ReadInts(TextCursor& cursor, char open, char close, std::vector<int64_t>* out) {
  if (!cursor.Consume(open)) return false;
  if (cursor.Consume(close)) return true;
  do {
    int64_t v;
    if (!cursor.ReadInt(&v)) return false;
    out->push_back(v);
  } while (cursor.Consume(','));
  return cursor.Consume(close);
}

absl::Status ParseSingle(TextCursor& cursor, absl::string_view text, xla::OpSharding* out);

// `{...}` at the cursor: one sharding or a tuple of them.
absl::Status ParseBraced(TextCursor& cursor, absl::string_view text, xla::OpSharding* out,
                         int depth) {
  if (depth > kMaxTupleDepth) return Malformed("sharding (nested too deeply)", text);
  if (!cursor.Consume('{')) return Malformed("sharding", text);
  cursor.SkipSpace();
  if (cursor.Peek() == '{' || cursor.Peek() == '}') {
    out->set_type(xla::OpSharding::TUPLE);
    if (cursor.Consume('}')) return absl::OkStatus();
    do {
      HOPT_RETURN_IF_ERROR(ParseBraced(cursor, text, out->add_tuple_shardings(), depth + 1));
    } while (cursor.Consume(','));
    if (!cursor.Consume('}')) return Malformed("sharding", text);
    return absl::OkStatus();
  }
  HOPT_RETURN_IF_ERROR(ParseSingle(cursor, text, out));
  if (!cursor.Consume('}')) return Malformed("sharding", text);
  return absl::OkStatus();
}

absl::Status ParseSingle(TextCursor& cursor, absl::string_view text, xla::OpSharding* out) {
  absl::string_view word = cursor.ReadWord();
  if (word == "replicated") {
    out->set_type(xla::OpSharding::REPLICATED);
  } else if (word == "manual") {
    out->set_type(xla::OpSharding::MANUAL);
  } else if (word == "unknown") {
    out->set_type(xla::OpSharding::UNKNOWN);
  } else if (word == "unreduced") {
    out->set_type(xla::OpSharding::UNREDUCED);
  } else if (word == "maximal") {
    int64_t device;
    if (cursor.ReadWord() != "device" || !cursor.Consume('=') || !cursor.ReadInt(&device))
      return Malformed("maximal sharding", text);
    out->set_type(xla::OpSharding::MAXIMAL);
    out->add_tile_assignment_dimensions(1);
    out->add_tile_assignment_devices(device);
  } else if (word == "devices") {
    std::vector<int64_t> dims;
    if (!cursor.Consume('=') || !ReadInts(cursor, '[', ']', &dims) || dims.empty())
      return Malformed("tiled sharding", text);
    out->set_type(xla::OpSharding::OTHER);
    for (int64_t d : dims) out->add_tile_assignment_dimensions(d);
    if (cursor.ConsumeToken("<=")) {
      std::vector<int64_t> reshape;
      if (!ReadInts(cursor, '[', ']', &reshape)) return Malformed("iota sharding", text);
      for (int64_t d : reshape) out->add_iota_reshape_dims(d);
      if (cursor.ConsumeToken("T")) {
        std::vector<int64_t> perm;
        if (!ReadInts(cursor, '(', ')', &perm)) return Malformed("iota sharding", text);
        for (int64_t p : perm) out->add_iota_transpose_perm(static_cast<int32_t>(p));
      }
    } else {
      do {
        int64_t device;
        if (!cursor.ReadInt(&device)) return Malformed("sharding devices", text);
        out->add_tile_assignment_devices(device);
      } while (cursor.Consume(','));
    }
  } else {
    return Malformed("sharding", text);
  }
  // Trailing modifiers.
  while (true) {
    cursor.SkipSpace();
    if (cursor.Peek() == '}' || cursor.AtEnd()) return absl::OkStatus();
    absl::string_view key = cursor.ReadWord();
    if (key == "last_tile_dim_replicate") {
      out->set_replicate_on_last_tile_dim(true);
    } else if (key == "last_tile_dims") {
      if (!cursor.Consume('=') || !cursor.Consume('{')) return Malformed("last_tile_dims", text);
      do {
        absl::string_view type = cursor.ReadWord();
        const auto* value =
            xla::OpSharding_Type_descriptor()->FindValueByName(absl::AsciiStrToUpper(type));
        if (value == nullptr || type != absl::AsciiStrToLower(type))
          return Malformed("last_tile_dims", text);
        out->add_last_tile_dims(static_cast<xla::OpSharding::Type>(value->number()));
      } while (cursor.Consume(','));
      if (!cursor.Consume('}')) return Malformed("last_tile_dims", text);
    } else if (key == "metadata") {
      absl::string_view value;
      if (!cursor.Consume('=') || !cursor.ReadValue(&value))
        return Malformed("sharding metadata", text);
      HOPT_ASSIGN_OR_RETURN(auto metadata, ParseOpMetadata(value));
      *out->add_metadata() = std::move(metadata);
    } else if (key == "shard_as" || key == "shard_like") {
      int64_t id;
      if (!cursor.ReadInt(&id)) return Malformed("shard group", text);
      out->set_is_shard_group(true);
      out->set_shard_group_id(id);
      out->set_shard_group_type(key == "shard_as" ? xla::OpSharding::AS : xla::OpSharding::LIKE);
    } else {
      return Malformed("sharding", text);
    }
  }
}

absl::StatusOr<std::string> ShardingText(const xla::OpSharding& s, int depth) {
  if (depth > kMaxTupleDepth) return Malformed("sharding", "nested too deeply");
  if (s.type() == xla::OpSharding::TUPLE) {
    std::string out = "{";
    for (int i = 0; i < s.tuple_shardings_size(); ++i) {
      if (i) out.append(", ");
      // XLA's printer numbers every fifth element of long lists.
      if (i && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      HOPT_ASSIGN_OR_RETURN(auto element, ShardingText(s.tuple_shardings(i), depth + 1));
      out.append(element);
    }
    out.push_back('}');
    return out;
  }
  std::string out = "{";
  switch (s.type()) {
    case xla::OpSharding::REPLICATED: out.append("replicated"); break;
    case xla::OpSharding::MANUAL: out.append("manual"); break;
    case xla::OpSharding::UNKNOWN: out.append("unknown"); break;
    case xla::OpSharding::UNREDUCED: out.append("unreduced"); break;
    case xla::OpSharding::MAXIMAL:
      if (s.tile_assignment_devices_size() != 1)
        return Malformed("maximal sharding", s.ShortDebugString());
      absl::StrAppend(&out, "maximal device=", s.tile_assignment_devices(0));
      break;
    case xla::OpSharding::OTHER: {
      absl::StrAppend(&out, "devices=[", absl::StrJoin(s.tile_assignment_dimensions(), ","), "]");
      if (!s.tile_assignment_devices().empty()) {
        out.append(absl::StrJoin(s.tile_assignment_devices(), ","));
      } else {
        absl::StrAppend(&out, "<=[", absl::StrJoin(s.iota_reshape_dims(), ","), "]");
        if (!s.iota_transpose_perm().empty())
          absl::StrAppend(&out, "T(", absl::StrJoin(s.iota_transpose_perm(), ","), ")");
      }
      if (s.replicate_on_last_tile_dim()) out.append(" last_tile_dim_replicate");
      if (!s.last_tile_dims().empty()) {
        std::vector<std::string> types;
        for (int t : s.last_tile_dims()) {
          const auto* value = xla::OpSharding_Type_descriptor()->FindValueByNumber(t);
          if (value == nullptr) return Malformed("last_tile_dims", absl::StrCat(t));
          types.push_back(absl::AsciiStrToLower(value->name()));
        }
        absl::StrAppend(&out, " last_tile_dims={", absl::StrJoin(types, ", "), "}");
      }
      break;
    }
    default: return Malformed("sharding type", absl::StrCat(s.type()));
  }
  if (s.metadata_size() > 1) return Malformed("sharding", "several metadata entries");
  if (s.metadata_size() == 1) absl::StrAppend(&out, " metadata=", OpMetadataText(s.metadata(0)));
  if (s.is_shard_group())
    absl::StrAppend(&out,
                    s.shard_group_type() == xla::OpSharding::AS ? " shard_as " : " shard_like ",
                    s.shard_group_id());
  out.push_back('}');
  return out;
}

}  // namespace

absl::Status EncodeSharding(absl::string_view text, Proto* proto) {
  TextCursor cursor(text);
  xla::OpSharding sharding;
  HOPT_RETURN_IF_ERROR(ParseBraced(cursor, text, &sharding, 0));
  cursor.SkipSpace();
  if (!cursor.AtEnd()) return Malformed("sharding", text);
  *proto->mutable_sharding() = std::move(sharding);
  return absl::OkStatus();
}

Decoded DecodeSharding(const Proto& proto, HloOpcode) {
  if (!proto.has_sharding()) return std::optional<std::string>();
  HOPT_ASSIGN_OR_RETURN(auto text, ShardingText(proto.sharding(), 0));
  return std::optional<std::string>(std::move(text));
}

}  // namespace proto_attributes_internal
}  // namespace hopt

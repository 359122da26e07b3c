// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/attributes.h"

#include <numeric>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/text_cursor.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

absl::Status Malformed(absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("malformed ", what, ": '", text, "'"));
}

// Reads `{int, int, ...}` at the cursor.
bool ReadIntBraces(TextCursor& cursor, std::vector<int64_t>* values) {
  if (!cursor.Consume('{')) return false;
  if (cursor.Consume('}')) return true;
  do {
    int64_t v;
    if (!cursor.ReadInt(&v)) return false;
    values->push_back(v);
  } while (cursor.Consume(','));
  return cursor.Consume('}');
}

bool ReadIntBrackets(TextCursor& cursor, std::vector<int64_t>* values) {
  if (!cursor.Consume('[')) return false;
  if (cursor.Consume(']')) return true;
  do {
    int64_t v;
    if (!cursor.ReadInt(&v)) return false;
    values->push_back(v);
  } while (cursor.Consume(','));
  return cursor.Consume(']');
}

bool AtEndAfterSpace(TextCursor& cursor) {
  cursor.SkipSpace();
  return cursor.AtEnd();
}

// Reads `{{a,b},{c}}` (lists of int lists).
bool ReadNestedIntLists(TextCursor& cursor, std::vector<std::vector<int64_t>>* lists) {
  if (!cursor.Consume('{')) return false;
  if (cursor.Consume('}')) return true;
  do {
    std::vector<int64_t> list;
    if (!ReadIntBraces(cursor, &list)) return false;
    lists->push_back(std::move(list));
  } while (cursor.Consume(','));
  return cursor.Consume('}');
}

}  // namespace

std::vector<std::vector<int64_t>> ReplicaGroupList::ExpandedGroups() const {
  if (!is_iota) return groups;
  int64_t total = 1;
  for (int64_t d : reshape_dims) total *= d;
  std::vector<int64_t> ids(total);
  std::iota(ids.begin(), ids.end(), 0);
  if (!transpose_perm.empty()) {
    // Element at transposed index j comes from source index with
    // dims permuted by transpose_perm.
    size_t rank = reshape_dims.size();
    std::vector<int64_t> out_dims(rank);
    for (size_t i = 0; i < rank; ++i) out_dims[i] = reshape_dims[transpose_perm[i]];
    std::vector<int64_t> src_strides(rank, 1);
    for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i)
      src_strides[i] = src_strides[i + 1] * reshape_dims[i + 1];
    std::vector<int64_t> transposed(total);
    std::vector<int64_t> index(rank, 0);
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t src = 0;
      for (size_t i = 0; i < rank; ++i) src += index[i] * src_strides[transpose_perm[i]];
      transposed[flat] = ids[src];
      for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
        if (++index[i] < out_dims[i]) break;
        index[i] = 0;
      }
    }
    ids = std::move(transposed);
  }
  std::vector<std::vector<int64_t>> result(num_groups);
  for (int64_t g = 0; g < num_groups; ++g)
    result[g].assign(ids.begin() + g * group_size, ids.begin() + (g + 1) * group_size);
  return result;
}

std::string ReplicaGroupList::ToString() const {
  if (is_iota) {
    std::string out = absl::StrCat("[", num_groups, ",", group_size, "]<=[",
                                   absl::StrJoin(reshape_dims, ","), "]");
    if (!transpose_perm.empty())
      absl::StrAppend(&out, "T(", absl::StrJoin(transpose_perm, ","), ")");
    return out;
  }
  std::string out = "{";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i) out.push_back(',');
    absl::StrAppend(&out, "{", absl::StrJoin(groups[i], ","), "}");
  }
  out.push_back('}');
  return out;
}

ReplicaGroupList ReplicaGroupList::FromGroups(std::vector<std::vector<int64_t>> groups) {
  ReplicaGroupList list;
  list.groups = std::move(groups);
  return list;
}

absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text) {
  TextCursor cursor(text);
  std::vector<int64_t> values;
  if (!ReadIntBraces(cursor, &values) || !AtEndAfterSpace(cursor))
    return Malformed("integer list", text);
  return values;
}

absl::StatusOr<int64_t> ParseInt(absl::string_view text) {
  TextCursor cursor(text);
  int64_t value;
  if (!cursor.ReadInt(&value) || !AtEndAfterSpace(cursor)) return Malformed("integer", text);
  return value;
}

absl::StatusOr<bool> ParseBool(absl::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return Malformed("boolean", text);
}

absl::StatusOr<ReplicaGroupList> ParseReplicaGroups(absl::string_view text) {
  TextCursor cursor(text);
  ReplicaGroupList list;
  cursor.SkipSpace();
  if (cursor.Peek() == '[') {
    list.is_iota = true;
    std::vector<int64_t> shape;
    if (!ReadIntBrackets(cursor, &shape) || shape.size() != 2 || !cursor.ConsumeToken("<=") ||
        !ReadIntBrackets(cursor, &list.reshape_dims))
      return Malformed("iota replica groups", text);
    list.num_groups = shape[0];
    list.group_size = shape[1];
    if (cursor.ConsumeToken("T")) {
      if (!cursor.Consume('(')) return Malformed("iota replica groups", text);
      do {
        int64_t v;
        if (!cursor.ReadInt(&v)) return Malformed("iota replica groups", text);
        list.transpose_perm.push_back(v);
      } while (cursor.Consume(','));
      if (!cursor.Consume(')')) return Malformed("iota replica groups", text);
    }
    if (!AtEndAfterSpace(cursor)) return Malformed("iota replica groups", text);
    // Bounded so that expanding the groups can never exhaust memory.
    constexpr int64_t kMaxDevices = int64_t{1} << 24;
    int64_t total = 1;
    for (int64_t d : list.reshape_dims) {
      if (d < 0 || d > kMaxDevices || total * d > kMaxDevices)
        return Malformed("iota replica groups (more than 2^24 devices)", text);
      total *= d;
    }
    if (list.num_groups < 0 || list.group_size < 0 || list.num_groups * list.group_size != total)
      return absl::InvalidArgumentError(
          absl::StrCat("iota replica groups ", text, ": ", list.num_groups, "x", list.group_size,
                       " groups do not cover the ", total, " devices"));
    if (!list.transpose_perm.empty()) {
      std::vector<bool> seen(list.reshape_dims.size(), false);
      if (list.transpose_perm.size() != list.reshape_dims.size())
        return Malformed("iota transpose permutation", text);
      for (int64_t p : list.transpose_perm) {
        if (p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[p])
          return Malformed("iota transpose permutation", text);
        seen[p] = true;
      }
    }
    return list;
  }
  if (!ReadNestedIntLists(cursor, &list.groups) || !AtEndAfterSpace(cursor))
    return Malformed("replica groups", text);
  return list;
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseSourceTargetPairs(
    absl::string_view text) {
  TextCursor cursor(text);
  std::vector<std::vector<int64_t>> lists;
  if (!ReadNestedIntLists(cursor, &lists) || !AtEndAfterSpace(cursor))
    return Malformed("source_target_pairs", text);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const auto& l : lists) {
    if (l.size() != 2) return Malformed("source_target_pairs", text);
    pairs.emplace_back(l[0], l[1]);
  }
  return pairs;
}

absl::StatusOr<std::vector<SliceDimension>> ParseSlice(absl::string_view text) {
  TextCursor cursor(text);
  std::vector<SliceDimension> slice;
  if (!cursor.Consume('{')) return Malformed("slice", text);
  if (!cursor.Consume('}')) {
    do {
      SliceDimension dim;
      if (!cursor.Consume('[') || !cursor.ReadInt(&dim.start) || !cursor.Consume(':') ||
          !cursor.ReadInt(&dim.limit))
        return Malformed("slice", text);
      if (cursor.Consume(':') && !cursor.ReadInt(&dim.stride)) return Malformed("slice", text);
      if (!cursor.Consume(']')) return Malformed("slice", text);
      slice.push_back(dim);
    } while (cursor.Consume(','));
    if (!cursor.Consume('}')) return Malformed("slice", text);
  }
  if (!AtEndAfterSpace(cursor)) return Malformed("slice", text);
  return slice;
}

absl::StatusOr<std::string> ParseQuotedString(absl::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"')
    return Malformed("string", text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i + 2 >= text.size()) return Malformed("string escape", text);
    char e = text[++i];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case '\\': out.push_back('\\'); break;
      case '"': out.push_back('"'); break;
      case '\'': out.push_back('\''); break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        int value = 0, n = 0;
        while (n < 3 && i + 1 < text.size() && text[i] >= '0' && text[i] <= '7') {
          value = value * 8 + (text[i] - '0');
          ++i;
          ++n;
        }
        --i;
        out.push_back(static_cast<char>(value));
        break;
      }
      case 'x': {
        int value = 0, n = 0;
        while (i + 2 < text.size() && n < 2 && isxdigit(static_cast<unsigned char>(text[i + 1]))) {
          char h = text[++i];
          value = value * 16 +
                  (isdigit(static_cast<unsigned char>(h)) ? h - '0' : (tolower(h) - 'a' + 10));
          ++n;
        }
        if (n == 0) return Malformed("string escape", text);
        out.push_back(static_cast<char>(value));
        break;
      }
      default: out.push_back('\\'); out.push_back(e);
    }
  }
  return out;
}

std::string QuoteString(absl::string_view raw) {
  std::string out = "\"";
  for (char c : raw) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[5];
          snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseFrontendAttributes(
    absl::string_view text) {
  TextCursor cursor(text);
  std::vector<std::pair<std::string, std::string>> attrs;
  if (!cursor.Consume('{')) return Malformed("frontend_attributes", text);
  if (cursor.Consume('}')) return attrs;
  do {
    cursor.SkipSpace();
    size_t key_start = cursor.pos();
    while (!cursor.AtEnd() && cursor.Peek() != '=' && cursor.Peek() != '}' && cursor.Peek() != ',')
      cursor.Advance();
    std::string key(text.substr(key_start, cursor.pos() - key_start));
    if (key.empty() || !cursor.Consume('=')) return Malformed("frontend_attributes", text);
    absl::string_view value;
    cursor.SkipSpace();
    if (cursor.Peek() == '"') {
      if (!cursor.ReadQuoted(&value)) return Malformed("frontend_attributes", text);
      HOPT_ASSIGN_OR_RETURN(auto unquoted, ParseQuotedString(value));
      attrs.emplace_back(std::move(key), std::move(unquoted));
    } else {
      if (!cursor.ReadValue(&value)) return Malformed("frontend_attributes", text);
      attrs.emplace_back(std::move(key), std::string(value));
    }
  } while (cursor.Consume(','));
  if (!cursor.Consume('}') || !AtEndAfterSpace(cursor))
    return Malformed("frontend_attributes", text);
  return attrs;
}

std::string FormatFrontendAttributes(
    const std::vector<std::pair<std::string, std::string>>& attrs) {
  std::string out = "{";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) out.push_back(',');
    absl::StrAppend(&out, attrs[i].first, "=", QuoteString(attrs[i].second));
  }
  out.push_back('}');
  return out;
}

absl::StatusOr<OpMetadata> ParseMetadata(absl::string_view text) {
  TextCursor cursor(text);
  OpMetadata metadata;
  if (!cursor.Consume('{')) return Malformed("metadata", text);
  while (!cursor.Consume('}')) {
    absl::string_view key = cursor.ReadWord();
    if (key.empty() || !cursor.Consume('=')) return Malformed("metadata", text);
    absl::string_view value;
    cursor.SkipSpace();
    if (cursor.Peek() == '"') {
      if (!cursor.ReadQuoted(&value)) return Malformed("metadata", text);
      HOPT_ASSIGN_OR_RETURN(auto unquoted, ParseQuotedString(value));
      if (key == "op_type")
        metadata.op_type = unquoted;
      else if (key == "op_name")
        metadata.op_name = unquoted;
      else if (key == "source_file")
        metadata.source_file = unquoted;
    } else {
      if (!cursor.ReadValue(&value)) return Malformed("metadata", text);
      if (key == "source_line" || key == "stack_frame_id") {
        auto n = ParseInt(value);
        if (!n.ok()) return Malformed(absl::StrCat("metadata ", key), text);
        (key == "source_line" ? metadata.source_line : metadata.stack_frame_id) = *n;
      }
    }
    cursor.Consume(',');
  }
  if (!AtEndAfterSpace(cursor)) return Malformed("metadata", text);
  return metadata;
}

std::string FormatMetadata(const OpMetadata& metadata) {
  std::vector<std::string> parts;
  if (!metadata.op_type.empty()) parts.push_back("op_type=" + QuoteString(metadata.op_type));
  if (!metadata.op_name.empty()) parts.push_back("op_name=" + QuoteString(metadata.op_name));
  if (!metadata.source_file.empty())
    parts.push_back("source_file=" + QuoteString(metadata.source_file));
  if (metadata.source_line != 0)
    parts.push_back(absl::StrCat("source_line=", metadata.source_line));
  if (metadata.stack_frame_id != 0)
    parts.push_back(absl::StrCat("stack_frame_id=", metadata.stack_frame_id));
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

std::string FormatIntList(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string FormatSourceTargetPairs(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::string out = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i) out.push_back(',');
    absl::StrAppend(&out, "{", pairs[i].first, ",", pairs[i].second, "}");
  }
  out.push_back('}');
  return out;
}

std::string FormatSlice(const std::vector<SliceDimension>& slice) {
  bool strided = false;
  for (const auto& d : slice) strided |= d.stride != 1;
  std::vector<std::string> parts;
  for (const auto& d : slice)
    parts.push_back(strided ? absl::StrCat("[", d.start, ":", d.limit, ":", d.stride, "]")
                            : absl::StrCat("[", d.start, ":", d.limit, "]"));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

absl::Status ValidateAttribute(absl::string_view name, absl::string_view text) {
  auto check = [&](const absl::Status& status) -> absl::Status {
    if (status.ok()) return status;
    return absl::InvalidArgumentError(absl::StrCat("attribute ", name, ": ", status.message()));
  };
  if (name == "dimensions" || name == "dynamic_slice_sizes" || name == "fft_length")
    return check(ParseIntList(text).status());
  if (name == "channel_id" || name == "index" || name == "iota_dimension" ||
      name == "feature_index" || name == "k")
    return check(ParseInt(text).status());
  if (name == "constrain_layout" || name == "use_global_device_ids" || name == "is_host_transfer" ||
      name == "indices_are_sorted" || name == "unique_indices" || name == "is_stable" ||
      name == "largest")
    return check(ParseBool(text).status());
  if (name == "replica_groups") return check(ParseReplicaGroups(text).status());
  if (name == "source_target_pairs") return check(ParseSourceTargetPairs(text).status());
  if (name == "slice") return check(ParseSlice(text).status());
  if (name == "custom_call_target") return check(ParseQuotedString(text).status());
  if (name == "metadata") return check(ParseMetadata(text).status());
  if (name == "direction") {
    if (text == "EQ" || text == "NE" || text == "LT" || text == "LE" || text == "GT" ||
        text == "GE")
      return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("attribute direction: expected EQ, NE, LT, LE, GT or GE, got '", text, "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckAttributeReadsBack(absl::string_view name, absl::string_view value) {
  auto shown = [](absl::string_view text) {
    std::string escaped = absl::CHexEscape(text.substr(0, 80));
    return text.size() > 80 ? escaped + "..." : escaped;
  };
  TextCursor name_cursor(name);
  if (name.empty() || name_cursor.ReadWord() != name)
    return absl::InvalidArgumentError(
        absl::StrCat("attribute name '", shown(name), "' cannot be written as HLO text"));
  // The text reader takes these names as computation and control edges, so a
  // proto's free-form attribute of the same name would print as a reference
  // that does not resolve.
  if (IsComputationReferenceAttribute(name) || name == "control-predecessors")
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", name, "' is reserved for references; a proto gives them as ids"));
  TextCursor cursor(value);
  absl::string_view first;
  bool read = !value.empty() && cursor.ReadValue(&first) && first.data() == value.data();
  if (read && name == "literal" && first.front() != '(') {
    absl::string_view values;  // `literal=s32[2]{0} {1, 2}`
    read = cursor.ReadValue(&values);
  }
  if (!read || cursor.pos() != value.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", name, "': the value '", shown(value), "' does not read back as HLO text"));
  absl::Status valid = ValidateAttribute(name, value);
  if (!valid.ok())
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "': ", valid.message()));
  return absl::OkStatus();
}

}  // namespace hopt

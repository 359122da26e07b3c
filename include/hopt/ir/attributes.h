// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_ATTRIBUTES_H_
#define HOPT_IR_ATTRIBUTES_H_

// Typed views of the attribute texts HLO instructions carry. Instructions
// store every attribute as canonical text (so that anything XLA writes prints
// back unchanged); the functions here parse those texts into values and format
// values back into XLA's canonical spelling.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {

// replica_groups={{0,1},{2,3}} or the iota form [2,2]<=[4] / [2,2]<=[2,2]T(1,0).
struct ReplicaGroupList {
  bool is_iota = false;
  // Explicit form.
  std::vector<std::vector<int64_t>> groups;
  // Iota form: num_groups x group_size groups, from iota(reshape_dims)
  // transposed by transpose_perm.
  int64_t num_groups = 0;
  int64_t group_size = 0;
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose_perm;

  // The groups as explicit lists (expands the iota form).
  std::vector<std::vector<int64_t>> ExpandedGroups() const;
  bool empty() const { return is_iota ? num_groups == 0 : groups.empty(); }
  std::string ToString() const;
  static ReplicaGroupList FromGroups(std::vector<std::vector<int64_t>> groups);
};

struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
};

// The common keys of `metadata={...}`. Reading it into this struct and
// writing it back keeps only these: to carry an instruction's metadata to
// its replacement as written, use CopyTextAttributeFrom(from, "metadata").
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  // The innermost frame in the module's stack-frame tables (stack_frames.h).
  int64_t stack_frame_id = 0;
};

// Parsers: the argument is exactly the attribute's value text.
absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text);
absl::StatusOr<int64_t> ParseInt(absl::string_view text);
absl::StatusOr<bool> ParseBool(absl::string_view text);
absl::StatusOr<ReplicaGroupList> ParseReplicaGroups(absl::string_view text);
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParseSourceTargetPairs(
    absl::string_view text);
absl::StatusOr<std::vector<SliceDimension>> ParseSlice(absl::string_view text);
// "..." with C escapes -> the unescaped bytes.
absl::StatusOr<std::string> ParseQuotedString(absl::string_view text);
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseFrontendAttributes(
    absl::string_view text);
absl::StatusOr<OpMetadata> ParseMetadata(absl::string_view text);

// Formatters: the canonical spelling of each value.
std::string FormatIntList(const std::vector<int64_t>& values);  // {1,2}
std::string FormatSourceTargetPairs(const std::vector<std::pair<int64_t, int64_t>>& pairs);
std::string FormatSlice(const std::vector<SliceDimension>& slice);
std::string QuoteString(absl::string_view raw);  // adds quotes and escapes
std::string FormatFrontendAttributes(const std::vector<std::pair<std::string, std::string>>& attrs);
std::string FormatMetadata(const OpMetadata& metadata);

// Checks the value text of an attribute the IR models (dimensions, channel_id,
// replica_groups, ...); texts of other attributes are accepted as they are.

absl::Status ValidateAttribute(absl::string_view name, absl::string_view text);

// Whether `name=value` printed in an instruction reads back from HLO text as
// exactly this attribute: the name is a word, the value is one value as the
// parser reads it (nothing before or after), and ValidateAttribute accepts
// it. For attributes that come from elsewhere than the text parser (protos).
absl::Status CheckAttributeReadsBack(absl::string_view name, absl::string_view value);

}  // namespace hopt

#endif  // HOPT_IR_ATTRIBUTES_H_

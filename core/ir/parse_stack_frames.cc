// SPDX-License-Identifier: Apache-2.0
// The stack-frame tables between the `HloModule` line and the first
// computation (hopt/ir/stack_frames.h):
//
//   FileNames
//   1 "model.py"
//
//   FunctionNames
//   1 "loss_fn"
//
//   FileLocations
//   1 {file_name_id=1 function_name_id=1 line=187 end_line=187 column=4 end_column=30}
//
//   StackFrames
//   1 {file_location_id=1 parent_frame_id=1}
//
// Rows are numbered from 1 in order. A table name is a section only when a
// row, another section or a computation follows it: a computation may be
// called `FileNames` too, and then `{` or `(` follows its name.

#include "absl/strings/str_cat.h"
#include "core/ir/parser_impl.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

constexpr absl::string_view kSections[] = {"FileNames", "FunctionNames", "FileLocations",
                                           "StackFrames"};

}  // namespace

bool HloParser::AtStackFrameSection(absl::string_view* section) {
  size_t start = cursor_.pos();
  absl::string_view word = cursor_.ReadWord();
  bool found = false;
  for (absl::string_view name : kSections) found = found || word == name;
  if (found) {
    cursor_.SkipSpace();
    char next = cursor_.Peek();
    found = next != '{' && next != '(' && next != '.' && next != '-';
  }
  if (found)
    *section = word;
  else
    cursor_.set_pos(start);
  return found;
}

absl::Status HloParser::ParseStackFrameRow(absl::string_view section, int64_t expected_id,
                                           StackFrameIndex* index) {
  size_t row_pos = cursor_.pos();
  int64_t id = 0;
  if (!cursor_.ReadInt(&id)) return Error(row_pos, absl::StrCat("expected a row of ", section));
  if (id != expected_id)
    return Error(row_pos, absl::StrCat(section, " rows are numbered 1, 2, ... in order: expected ",
                                       expected_id, ", found ", id));
  if (section == "FileNames" || section == "FunctionNames") {
    cursor_.SkipSpace();
    size_t value_pos = cursor_.pos();
    absl::string_view quoted;
    if (!cursor_.ReadQuoted(&quoted))
      return Error(value_pos, absl::StrCat("expected a quoted name in ", section));
    auto name = ParseQuotedString(quoted);
    if (!name.ok()) return Error(value_pos, name.status().message());
    (section == "FileNames" ? index->file_names : index->function_names)
        .push_back(*std::move(name));
    return absl::OkStatus();
  }
  if (!cursor_.Consume('{')) return ErrorHere(absl::StrCat("expected '{' in a row of ", section));
  StackFrameIndex::FileLocation location;
  StackFrameIndex::Frame frame;
  bool is_location = section == "FileLocations";
  while (!cursor_.Consume('}')) {
    cursor_.SkipSpace();
    size_t key_pos = cursor_.pos();
    absl::string_view key = cursor_.ReadWord();
    if (key.empty() || !cursor_.Consume('='))
      return Error(key_pos, absl::StrCat("expected key=value or '}' in a row of ", section));
    cursor_.SkipSpace();
    size_t value_pos = cursor_.pos();
    int64_t value = 0;
    if (!cursor_.ReadInt(&value) || value < INT32_MIN || value > INT32_MAX)
      return Error(value_pos, absl::StrCat("expected a 32-bit integer for '", key, "'"));
    int32_t v = static_cast<int32_t>(value);
    int32_t* field = nullptr;
    if (is_location) {
      if (key == "file_name_id")
        field = &location.file_name_id;
      else if (key == "function_name_id")
        field = &location.function_name_id;
      else if (key == "line")
        field = &location.line;
      else if (key == "end_line")
        field = &location.end_line;
      else if (key == "column")
        field = &location.column;
      else if (key == "end_column")
        field = &location.end_column;
    } else {
      if (key == "file_location_id") field = &frame.file_location_id;
      // The text holds the proto's value plus one (XLA prints it so).
      else if (key == "parent_frame_id")
        field = &frame.parent_frame_id, v = v - 1;
    }
    if (field == nullptr)
      return Error(key_pos, absl::StrCat("unknown key '", key, "' in a row of ", section));
    *field = v;
    cursor_.Consume(',');
  }
  if (is_location)
    index->file_locations.push_back(location);
  else
    index->frames.push_back(frame);
  return absl::OkStatus();
}

absl::Status HloParser::ParseStackFrameTables() {
  StackFrameIndex index;
  size_t next_section = 0;
  size_t tables_pos = 0;
  std::vector<size_t> row_positions[4];
  while (true) {
    if (!cursor_.SkipSpace()) return ErrorHere("unterminated /* comment");
    size_t section_pos = cursor_.pos();
    absl::string_view section;
    if (!AtStackFrameSection(&section)) break;
    if (next_section == 0) tables_pos = section_pos;
    size_t order = 0;
    while (kSections[order] != section) ++order;
    if (order < next_section)
      return Error(section_pos, absl::StrCat("'", section, "' given twice or out of order (",
                                             "FileNames, FunctionNames, FileLocations, "
                                             "StackFrames)"));
    next_section = order + 1;
    int64_t expected_id = 1;
    while (true) {
      if (!cursor_.SkipSpace()) return ErrorHere("unterminated /* comment");
      char c = cursor_.Peek();
      if (c < '0' || c > '9') break;
      row_positions[order].push_back(cursor_.pos());
      HOPT_RETURN_IF_ERROR(ParseStackFrameRow(section, expected_id++, &index));
    }
  }
  if (next_section == 0) return absl::OkStatus();
  StackFrameIndex::RowRef bad;
  if (absl::Status valid = index.Validate(&bad); !valid.ok()) {
    const std::vector<size_t>& rows = row_positions[bad.table];
    return Error(bad.row < rows.size() ? rows[bad.row] : tables_pos, valid.message());
  }
  module_->set_stack_frames(std::move(index));
  return absl::OkStatus();
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/stack_frames.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace {

// XLA writes the names with C escapes of every byte outside printable
// ASCII (octal), so a printed table reads back to the same bytes and
// prints the same again.
void AppendEscaped(absl::string_view raw, std::string* out) {
  out->push_back('"');
  for (char c : raw) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      case '\\': out->append("\\\\"); break;
      case '"': out->append("\\\""); break;
      case '\'': out->append("\\'"); break;
      default:
        if (u < 0x20 || u >= 0x7f) {
          char buf[5];
          std::snprintf(buf, sizeof(buf), "\\%03o", u);
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

bool InRange(int64_t id, size_t count) { return id >= 1 && static_cast<size_t>(id) <= count; }

}  // namespace

absl::Status StackFrameIndex::Validate(RowRef* bad) const {
  auto fail = [&](int table, size_t row, std::string message) {
    if (bad != nullptr) *bad = RowRef{table, row};
    return absl::InvalidArgumentError(std::move(message));
  };
  for (size_t k = 0; k < file_locations.size(); ++k) {
    const FileLocation& location = file_locations[k];
    if (!InRange(location.file_name_id, file_names.size()))
      return fail(
          2, k,
          absl::StrCat("FileLocations row ", k + 1, ": file_name_id=", location.file_name_id,
                       " names no row of FileNames (", file_names.size(), " rows)"));
    // XLA leaves function_name_id 0 when the tracer knew no function.
    if (location.function_name_id != 0 &&
        !InRange(location.function_name_id, function_names.size()))
      return fail(2, k,
                  absl::StrCat(
                      "FileLocations row ", k + 1, ": function_name_id=", location.function_name_id,
                      " names no row of FunctionNames (", function_names.size(), " rows)"));
  }
  for (size_t k = 0; k < frames.size(); ++k) {
    const Frame& frame = frames[k];
    if (!InRange(frame.file_location_id, file_locations.size()))
      return fail(
          3, k,
          absl::StrCat("StackFrames row ", k + 1, ": file_location_id=", frame.file_location_id,
                       " names no row of FileLocations (", file_locations.size(), " rows)"));
    if (frame.parent_frame_id != 0 && !InRange(frame.parent_frame_id, frames.size()))
      return fail(
          3, k,
          absl::StrCat("StackFrames row ", k + 1, ": parent_frame_id=", frame.parent_frame_id + 1,
                       " names no row of StackFrames (", frames.size(), " rows)"));
  }
  return absl::OkStatus();
}

std::optional<StackFrameIndex::Source> StackFrameIndex::Lookup(int64_t frame_id) const {
  if (!InRange(frame_id, frames.size())) return std::nullopt;
  const Frame& frame = frames[frame_id - 1];
  if (!InRange(frame.file_location_id, file_locations.size())) return std::nullopt;
  const FileLocation& location = file_locations[frame.file_location_id - 1];
  if (!InRange(location.file_name_id, file_names.size())) return std::nullopt;
  Source source;
  source.file = file_names[location.file_name_id - 1];
  if (InRange(location.function_name_id, function_names.size()))
    source.function = function_names[location.function_name_id - 1];
  source.line = location.line;
  source.column = location.column;
  return source;
}

void StackFrameIndex::AppendText(std::string* out) const {
  out->append("FileNames\n");
  for (size_t k = 0; k < file_names.size(); ++k) {
    absl::StrAppend(out, k + 1, " ");
    AppendEscaped(file_names[k], out);
    out->push_back('\n');
  }
  out->append("\nFunctionNames\n");
  for (size_t k = 0; k < function_names.size(); ++k) {
    absl::StrAppend(out, k + 1, " ");
    AppendEscaped(function_names[k], out);
    out->push_back('\n');
  }
  out->append("\nFileLocations\n");
  for (size_t k = 0; k < file_locations.size(); ++k) {
    const FileLocation& l = file_locations[k];
    absl::StrAppendFormat(out,
                          "%d {file_name_id=%d function_name_id=%d line=%d end_line=%d "
                          "column=%d end_column=%d}\n",
                          k + 1, l.file_name_id, l.function_name_id, l.line, l.end_line, l.column,
                          l.end_column);
  }
  out->append("\nStackFrames\n");
  for (size_t k = 0; k < frames.size(); ++k)
    absl::StrAppendFormat(out, "%d {file_location_id=%d parent_frame_id=%d}\n", k + 1,
                          frames[k].file_location_id,
                          static_cast<int64_t>(frames[k].parent_frame_id) + 1);
}

std::string SourceLineOf(const HloInstruction& instruction, bool with_function) {
  // One reading of the attribute, by the metadata parser every tool uses.
  std::optional<OpMetadata> metadata = instruction.metadata();
  if (!metadata.has_value()) return "";
  const HloComputation* computation = instruction.parent();
  const HloModule* module = computation != nullptr ? computation->parent() : nullptr;
  if (module != nullptr && metadata->stack_frame_id != 0) {
    if (auto source = module->stack_frames().Lookup(metadata->stack_frame_id)) {
      std::string out = absl::StrCat(source->file, ":", source->line);
      if (with_function && !source->function.empty())
        absl::StrAppend(&out, " (", source->function, ")");
      return out;
    }
  }
  if (metadata->source_file.empty()) return "";
  if (metadata->source_line == 0) return metadata->source_file;
  return absl::StrCat(metadata->source_file, ":", metadata->source_line);
}

}  // namespace hopt

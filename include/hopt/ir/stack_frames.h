// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_STACK_FRAMES_H_
#define HOPT_IR_STACK_FRAMES_H_

// Where the instructions of a module came from in the program that traced
// it: the tables current XLA writes between the `HloModule` line and the
// first computation (`FileNames`, `FunctionNames`, `FileLocations`,
// `StackFrames`) and in HloModuleProto.stack_frame_index. An instruction's
// `metadata={... stack_frame_id=N}` names its innermost frame; each frame
// names a file location and its caller's frame. docs/formats.md describes
// the text form.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

class HloInstruction;

// Ids are 1-based positions in their table, as XLA stores them; 0 is "none".
struct StackFrameIndex {
  struct FileLocation {
    int32_t file_name_id = 0;
    int32_t function_name_id = 0;
    int32_t line = 0;
    int32_t end_line = 0;
    int32_t column = 0;
    int32_t end_column = 0;
  };
  struct Frame {
    int32_t file_location_id = 0;
    // The caller's frame id, 0 for an outermost frame. XLA's text form
    // prints this plus one; the tables here hold the proto's value.
    int32_t parent_frame_id = 0;
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> frames;

  // XLA prints the tables only when there is a file name.
  bool empty() const { return file_names.empty(); }

  // Every id inside the tables names an existing row (file, function,
  // location, parent frame). The message names the table and row; `bad`,
  // when given, receives them too (table 0..3 in the text's order, row
  // 0-based) for a reader that knows where each row was.
  struct RowRef {
    int table = 0;
    size_t row = 0;
  };
  absl::Status Validate(RowRef* bad = nullptr) const;

  // The source position of frame `frame_id` (1-based), if the id and the
  // rows it names exist.
  struct Source {
    absl::string_view file;
    absl::string_view function;
    int32_t line = 0;
    int32_t column = 0;
  };
  std::optional<Source> Lookup(int64_t frame_id) const;

  // The text form, from "FileNames" to the last frame's line (each row
  // ends with a newline), as XLA prints it.
  void AppendText(std::string* out) const;
};

// `file:line` of the program line that made `instruction`: its metadata's
// stack frame when the module has the tables, else its metadata's
// source_file/source_line; empty when neither says. With `with_function`,
// " (function)" follows when the frame names one.
std::string SourceLineOf(const HloInstruction& instruction, bool with_function = false);

}  // namespace hopt

#endif  // HOPT_IR_STACK_FRAMES_H_

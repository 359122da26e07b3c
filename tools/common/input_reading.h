// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_INPUT_READING_H_
#define HOPT_TOOLS_COMMON_INPUT_READING_H_

// The input side hopt and hlo-run share: reading an input's modules (HLO
// text, .pb, .pbtxt; "-" for standard input), checking the mesh options,
// and reporting a failure the way every tool does.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/tooling/io.h"
#include "hopt/ir/module.h"
#include "llvm/Support/CommandLine.h"

namespace hopt {
namespace tools {

// A failure as the tools print it on stderr (include/hopt/support/diagnostic.h):
// a located error (`FILE:LINE:COL: error: ...`) as it is, any other status
// as `TOOL: error: message`. Returns `exit_status`.
int ReportFailure(absl::string_view tool, const absl::Status& status, int exit_status = 1);

// `TOOL: error: MESSAGE` on stderr, for errors that are not about a place
// in an input. Returns `exit_status`.
int FailWithMessage(absl::string_view tool, absl::string_view message, int exit_status = 1);

struct InputFile {
  std::string path;          // "-": standard input
  std::string display_name;  // what error messages call it
  HloFileFormat format = HloFileFormat::kText;
  // HLO text: lines `// -----` separate modules (hopt -split-input-file).
  bool split = false;
  // The bytes themselves, already in memory: `path` is then not read.
  const std::string* contents = nullptr;
};

// The modules of `input`, in order. `side`, when given, receives what a
// .pb/.pbtxt held that the IR does not model (core/proto/side_table.h).
// Parse errors are located at their place in the file. What a .pb/.pbtxt
// held that neither the module nor the side table keeps is said on stderr
// (ReportDroppedFields).
absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ReadInputModules(
    const InputFile& input, ProtoSideTable* side = nullptr);

// -warn-dropped-fields: one option for every tool that reads its inputs
// with ReadInputModules, listed among the options of `category` (call it
// before the command line is parsed).
llvm::cl::opt<bool>& WarnDroppedFieldsOption(llvm::cl::OptionCategory& category);
// The same set in process (hopt's RunHopt), for the reports that follow.
void SetWarnDroppedFields(bool warn);

// What a proto input left out (docs/formats.md, "Proto schemas from older
// XLA"), on stderr, as `NAME: warning: dropped 12 LayoutProto.format
// (DENSE; removed from XLA in 2022)`: with -warn-dropped-fields one line
// per kind (and a note per kind of unknown field kept), without it a
// single line when anything was dropped.
void ReportDroppedFields(absl::string_view display_name, const DroppedFields& dropped);

// A module of an HLO text and the line of the text it starts on.
struct ModuleText {
  absl::string_view text;
  int64_t first_line;
};

// The modules of `text` (views into it, so splitting copies nothing): the
// whole text unless `split`, else the parts between `// -----` lines.
std::vector<ModuleText> SplitInput(absl::string_view text, bool split);

// -replicas and -partitions: left out they mean the module's mesh (or the
// one its collectives need); given, they must be positive.
absl::Status CheckMeshOptions(const llvm::cl::opt<int64_t>& replicas,
                              const llvm::cl::opt<int64_t>& partitions);
// The same for values set in process (unset: left out).
absl::Status CheckMeshOptions(std::optional<int64_t> replicas, std::optional<int64_t> partitions);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_INPUT_READING_H_

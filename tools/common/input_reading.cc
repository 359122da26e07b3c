// SPDX-License-Identifier: Apache-2.0

#include "tools/common/input_reading.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/ir/tooling/mapped_file.h"
#include "hopt/ir/parser.h"
#include "hopt/support/diagnostic.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace tools {

int ReportFailure(absl::string_view tool, const absl::Status& status, int exit_status) {
  ReportError(tool, status);
  return exit_status;
}

int FailWithMessage(absl::string_view tool, absl::string_view message, int exit_status) {
  std::string text = absl::StrCat(tool, ": error: ", message);
  std::fprintf(stderr, "%s\n", text.c_str());
  return exit_status;
}

namespace {

llvm::cl::opt<bool>& WarnDroppedFields() {
  static auto* const option = new llvm::cl::opt<bool>(
      "warn-dropped-fields",
      llvm::cl::desc("List what a .pb/.pbtxt input held that hopt drops: fields XLA has "
                     "removed (older dumps), fields hopt's schema does not know (newer ones)"));
  return *option;
}

absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ParseTextModules(absl::string_view text,
                                                                         const InputFile& input) {
  std::vector<std::unique_ptr<HloModule>> modules;
  for (const ModuleText& part : SplitInput(text, input.split)) {
    HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ParseHloModuleAt(part.text, input.display_name, part.first_line));
    modules.push_back(std::move(module));
  }
  return modules;
}

}  // namespace

llvm::cl::opt<bool>& WarnDroppedFieldsOption(llvm::cl::OptionCategory& category) {
  WarnDroppedFields().addCategory(category);
  return WarnDroppedFields();
}

void SetWarnDroppedFields(bool warn) { WarnDroppedFields().setValue(warn); }

void ReportDroppedFields(absl::string_view display_name, const DroppedFields& dropped) {
  std::string text;
  if (WarnDroppedFields()) {
    for (const DroppedFields::Entry& entry : dropped.entries())
      absl::StrAppend(&text, display_name,
                      entry.kind == DroppedFields::Kind::kKeptUnknown ? ": note: " : ": warning: ",
                      DroppedFields::Describe(entry), "\n");
  } else if (int64_t count = dropped.dropped_count(); count > 0) {
    absl::StrAppend(&text, display_name, ": note: dropped ", count,
                    count == 1 ? " field" : " fields",
                    " of other XLA schemas than hopt's (-warn-dropped-fields lists them)\n");
  }
  std::fputs(text.c_str(), stderr);
}

absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> ReadInputModules(const InputFile& input,
                                                                         ProtoSideTable* side) {
  std::vector<std::unique_ptr<HloModule>> modules;
  if (input.contents != nullptr && input.format != HloFileFormat::kText) {
    ProtoSideTable own;
    if (side == nullptr) side = &own;
    HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          input.format == HloFileFormat::kProto
                              ? ModuleFromProtoBinary(*input.contents, input.display_name, side)
                              : ModuleFromProtoText(*input.contents, input.display_name, side));
    ReportDroppedFields(input.display_name, side->dropped_fields());
    modules.push_back(std::move(module));
    return modules;
  }
  if (input.contents != nullptr) return ParseTextModules(*input.contents, input);
  // One module from a named file is parsed straight from the mapped file,
  // which hands its pages back as the parser moves on.
  if (input.format != HloFileFormat::kText || (!input.split && input.path != "-")) {
    // Without the caller's table, one of our own learns what was dropped.
    ProtoSideTable own;
    if (side == nullptr && input.format != HloFileFormat::kText) side = &own;
    HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          ReadHloModuleFile(input.path, input.display_name, input.format, side));
    if (side != nullptr) ReportDroppedFields(input.display_name, side->dropped_fields());
    modules.push_back(std::move(module));
    return modules;
  }
  HOPT_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file,
                        MappedFile::Open(input.path, MappedFile::Content::kText));
  return ParseTextModules(file->bytes(), input);
}

std::vector<ModuleText> SplitInput(absl::string_view text, bool split) {
  if (!split) return {{text, 1}};
  std::vector<ModuleText> parts;
  size_t line_start = 0, part_start = 0;
  int64_t line = 1, part_line = 1;
  while (line_start <= text.size()) {
    size_t end = text.find('\n', line_start);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view content = text.substr(line_start, end - line_start);
    while (!content.empty() && (content.back() == ' ' || content.back() == '\r'))
      content.remove_suffix(1);
    if (content == "// -----") {
      parts.push_back({text.substr(part_start, line_start - part_start), part_line});
      part_start = std::min(end + 1, text.size());
      part_line = line + 1;
    }
    ++line;
    if (end == text.size()) break;
    line_start = end + 1;
  }
  parts.push_back({text.substr(part_start), part_line});
  return parts;
}

absl::Status CheckMeshOptions(std::optional<int64_t> replicas, std::optional<int64_t> partitions) {
  for (const auto& [name, value] : {std::pair{"replicas", replicas}, {"partitions", partitions}})
    if (value.has_value() && *value < 1)
      return absl::InvalidArgumentError(
          absl::StrCat("-", name, "=", *value, ": must be a positive integer"));
  return absl::OkStatus();
}

absl::Status CheckMeshOptions(const llvm::cl::opt<int64_t>& replicas,
                              const llvm::cl::opt<int64_t>& partitions) {
  auto given = [](const llvm::cl::opt<int64_t>& option) -> std::optional<int64_t> {
    if (option.getNumOccurrences() == 0) return std::nullopt;
    return option.getValue();
  };
  return CheckMeshOptions(given(replicas), given(partitions));
}

}  // namespace tools
}  // namespace hopt

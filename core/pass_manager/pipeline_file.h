// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PASS_MANAGER_PIPELINE_FILE_H_
#define HOPT_CORE_PASS_MANAGER_PIPELINE_FILE_H_

// Core-private: named pipelines defined on their own, in a pipeline file
// beside the plugins whose passes they name, so that no plugin has to know
// the others. A file `NAME.pipeline` holds one pipeline:
//
//   # comment
//   name: my-pipeline
//   description: one line for -list-pipelines
//   plugins: libmy_a.so libmy_b.so
//   passes: a-pass,b-pass{k=v}
//   passes: another-a-pass            (several lines are joined by ',')
//
// When a plugin is loaded, the pipeline files of its directory that list it
// under `plugins:` are registered (once per file): -passes=NAME works with
// any of them loaded, and names the others when one of its passes is
// missing. -list-pipelines gives the file as the pipeline's provider.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/pass_manager/pass_registry.h"

namespace hopt {

// What -list-pipelines prints in place of a plugin's name.
inline constexpr absl::string_view kPipelineFileProvider = "pipeline file";

// Parses the text of a pipeline file; `path` names it in errors
// ("PATH:LINE: ...").
absl::StatusOr<NamedPipeline> ParsePipelineFile(absl::string_view text, absl::string_view path);

// Registers the pipeline files in the directory of `plugin_path` that name
// its file under `plugins:`, unless already registered from the same file.
absl::Status RegisterPipelineFilesFor(const std::string& plugin_path, PassRegistry& registry);

}  // namespace hopt

#endif  // HOPT_CORE_PASS_MANAGER_PIPELINE_FILE_H_

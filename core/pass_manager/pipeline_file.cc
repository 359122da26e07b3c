// SPDX-License-Identifier: Apache-2.0

#include "core/pass_manager/pipeline_file.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

constexpr absl::string_view kSuffix = ".pipeline";

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The *.pipeline files of `dir`, sorted (an unreadable directory has none).
std::vector<std::string> PipelineFiles(const std::string& dir) {
  std::vector<std::string> files;
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) return files;
  while (dirent* entry = readdir(handle)) {
    absl::string_view name = entry->d_name;
    if (name.size() > kSuffix.size() && absl::EndsWith(name, kSuffix))
      files.push_back(absl::StrCat(dir, "/", name));
  }
  closedir(handle);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

absl::StatusOr<NamedPipeline> ParsePipelineFile(absl::string_view text, absl::string_view path) {
  NamedPipeline pipeline;
  std::vector<std::string> passes;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    auto error = [&](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": ", what));
    };
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) return error("expected 'key: value'");
    absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, colon));
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (key == "name") {
      pipeline.name = std::string(value);
    } else if (key == "description") {
      pipeline.description = std::string(value);
    } else if (key == "plugins") {
      for (absl::string_view plugin : absl::StrSplit(value, ' ', absl::SkipWhitespace()))
        pipeline.plugins.emplace_back(plugin);
    } else if (key == "passes") {
      if (value.empty()) return error("'passes:' without passes");
      passes.emplace_back(absl::StripSuffix(value, ","));
    } else {
      return error(
          absl::StrCat("unknown key '", key, "' (keys: name, description, plugins, passes)"));
    }
  }
  for (absl::string_view required : {"name", "plugins", "passes"}) {
    bool missing = (required == "name" && pipeline.name.empty()) ||
                   (required == "plugins" && pipeline.plugins.empty()) ||
                   (required == "passes" && passes.empty());
    if (missing)
      return absl::InvalidArgumentError(absl::StrCat(path, ": no '", required, ":' line"));
  }
  pipeline.text = absl::StrJoin(passes, ",");
  pipeline.plugin = std::string(kPipelineFileProvider);
  pipeline.plugin_version = std::string(path);
  return pipeline;
}

absl::Status RegisterPipelineFilesFor(const std::string& plugin_path, PassRegistry& registry) {
  const std::string plugin = BaseName(plugin_path);
  for (const std::string& file : PipelineFiles(DirName(plugin_path))) {
    std::ifstream in(file);
    if (!in) return absl::NotFoundError(absl::StrCat("pipeline file '", file, "': cannot read"));
    std::stringstream text;
    text << in.rdbuf();
    HOPT_ASSIGN_OR_RETURN(NamedPipeline pipeline, ParsePipelineFile(text.str(), file));
    if (std::find(pipeline.plugins.begin(), pipeline.plugins.end(), plugin) ==
        pipeline.plugins.end())
      continue;
    // Registered already when an earlier plugin of its list was loaded.
    const NamedPipeline* known = registry.FindPipeline(pipeline.name);
    if (known != nullptr && known->plugin == kPipelineFileProvider && known->plugin_version == file)
      continue;
    registry.BeginPlugin(kPipelineFileProvider, file);
    (void)registry.RegisterPipeline(std::move(pipeline));
    HOPT_RETURN_IF_ERROR(registry.EndPlugin());
  }
  return absl::OkStatus();
}

}  // namespace hopt

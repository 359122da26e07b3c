#include "tools/named_pipelines.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hopt {
namespace tools {

const std::vector<NamedPipeline>& NamedPipelines() {
  static const std::vector<NamedPipeline> pipelines = {
#define HOPT_NAMED_PIPELINE(name, passes, plugins, description) \
  {#name, passes, plugins, description},
#include "tools/named_pipelines.def"
  };
  return pipelines;
}

absl::StatusOr<std::string> ExpandNamedPipelines(absl::string_view text,
                                                 const PassRegistry& registry) {
  std::vector<std::string> out;
  for (absl::string_view element : absl::StrSplit(text, ',')) {
    absl::string_view name = absl::StripAsciiWhitespace(element);
    const NamedPipeline* named = nullptr;
    for (const NamedPipeline& p : NamedPipelines())
      if (name == p.name) named = &p;
    // A pass of the same name (a plugin may register one) wins.
    if (named == nullptr || registry.Find(name) != nullptr) {
      out.emplace_back(element);
      continue;
    }
    for (absl::string_view pass : absl::StrSplit(named->passes, ',')) {
      if (registry.Find(pass) == nullptr)
        return absl::NotFoundError(absl::StrCat(
            "pipeline '", named->name, "' needs pass '", pass,
            "', which no loaded plugin provides; load the pipeline's plugins: -load=",
            absl::StrJoin(absl::StrSplit(named->plugins, ','), " -load=")));
      out.emplace_back(pass);
    }
  }
  return absl::StrJoin(out, ",");
}

}  // namespace tools
}  // namespace hopt

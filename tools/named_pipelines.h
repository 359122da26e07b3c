#ifndef HOPT_TOOLS_NAMED_PIPELINES_H_
#define HOPT_TOOLS_NAMED_PIPELINES_H_

// Named pipelines (tools/named_pipelines.def): `-passes=neuron` or
// `-passes=neuron,my-pass` stands for the passes the name lists.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/pass_registry.h"

namespace hopt {
namespace tools {

struct NamedPipeline {
  const char* name;
  const char* passes;   // comma-separated
  const char* plugins;  // comma-separated plugin file names
  const char* description;
};

const std::vector<NamedPipeline>& NamedPipelines();

// `text` with every element that names a pipeline replaced by its passes.
// A named pipeline whose pass no loaded plugin provides fails, naming the
// pass and the plugins to load; other names are left for ParsePipeline.
absl::StatusOr<std::string> ExpandNamedPipelines(absl::string_view text,
                                                 const PassRegistry& registry);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_NAMED_PIPELINES_H_

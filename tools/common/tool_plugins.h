// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_TOOL_PLUGINS_H_
#define HOPT_TOOLS_COMMON_TOOL_PLUGINS_H_

// The plugin-loading front end the command-line tools share (hopt,
// hlo-run): one search order, one set of error messages.
//
// Plugins are loaded before the command line is parsed, so that the
// deprecated flags they declare (which hopt defines) and -help's list of
// their passes work wherever -load stands; that is why the -load values
// are picked out of argv by hand first.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace tools {

// The tools' own plugin directory: <libdir>/hopt/plugins, found from the
// binary's location, so that an installed tree works from any prefix or
// DESTDIR. A binary in the build tree also looks in the build's plugin
// directory, which a marker file beside it names (tools/meson.build).
std::vector<std::string> BuiltinPluginDirs();
// A host that is not one of hopt's binaries (the Python module, whose
// executable is the interpreter) names those directories itself; an empty
// list goes back to the executable's.
void SetBuiltinPluginDirs(std::vector<std::string> dirs);

struct PluginArguments {
  std::vector<std::string> loads;  // -load=X, -load X, --load=X, in order
  bool override_passes = false;    // -override-passes[=true|=1]
};
// Stops at "--", like the option parser.
PluginArguments PrescanPluginArguments(int argc, char** argv);

// Resolves each spec (hopt::ResolvePluginPath: a path, or a bare name
// looked up in BuiltinPluginDirs() and HOPT_PLUGIN_PATH, never the working
// directory) and loads it into `extensions`; the same file named twice
// (after realpath) is loaded once. The first failure is returned with the
// loader's message.
absl::Status LoadPlugins(const std::vector<std::string>& specs, Extensions& extensions);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_TOOL_PLUGINS_H_

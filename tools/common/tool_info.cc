// SPDX-License-Identifier: Apache-2.0

#include "tools/common/tool_info.h"

#include <cstdlib>
#include <string>

#include "hopt/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace hopt {
namespace tools {

void PrintToolVersion(llvm::StringRef tool, llvm::raw_ostream& out) {
  out << tool << " version " << HOPT_VERSION << "\n"
      << "plugin API " << HOPT_PLUGIN_API_VERSION << ", build tag " << HOPT_BUILD_TAG << "\n";
}

void SetUpToolInfo(llvm::StringRef tool) {
  static std::string* name = new std::string(tool.str());
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream& out) { PrintToolVersion(*name, out); });
  // libLLVM's categorized -help-hidden prints every category it registered,
  // empty ones included ("This option category has no options."): a list
  // of what the tool cannot do. One uncategorized list of the options the
  // tool shows, hidden ones too, is what was asked for.
  auto& options = llvm::cl::getRegisteredOptions();
  auto builtin = options.find("help-hidden");
  if (builtin == options.end()) return;
  llvm::cl::Option* replaced = builtin->second;
  llvm::cl::OptionCategory* category = replaced->Categories.front();
  llvm::StringRef description = replaced->HelpStr;
  replaced->removeArgument();
  static auto* help_hidden =
      new llvm::cl::opt<bool>("help-hidden", llvm::cl::desc(description), llvm::cl::ValueDisallowed,
                              llvm::cl::cat(*category), llvm::cl::callback([](const bool&) {
                                llvm::cl::PrintHelpMessage(/*Hidden=*/true, /*Categorized=*/false);
                                std::exit(0);
                              }));
  (void)help_hidden;
}

}  // namespace tools
}  // namespace hopt

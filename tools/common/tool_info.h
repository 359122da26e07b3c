// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_TOOL_INFO_H_
#define HOPT_TOOLS_COMMON_TOOL_INFO_H_

// What every hopt tool says about itself: -version names hopt's version,
// plugin API and build tag (not the libLLVM the tool links), and
// -help-hidden lists the tool's options, hidden ones included, without the
// empty option categories libLLVM registers (Polly, GlobalISel, ...).

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace hopt {
namespace tools {

// "<tool> version <hopt version>" and "plugin API N, build tag T".
void PrintToolVersion(llvm::StringRef tool, llvm::raw_ostream& out);

// Call after cl::HideUnrelatedOptions and before cl::ParseCommandLineOptions:
// installs the -version printer and replaces libLLVM's -help-hidden.
void SetUpToolInfo(llvm::StringRef tool);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_TOOL_INFO_H_

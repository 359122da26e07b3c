// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_HOPT_DRIVER_HOPT_MAIN_H_
#define HOPT_TOOLS_HOPT_DRIVER_HOPT_MAIN_H_

// hopt's driver, as a library, in two layers as MLIR's MlirOptMain:
// RunHopt runs one HoptConfig (tools/hopt_driver/hopt_config.h) in
// process, as often as the caller likes; HoptMain, the main of
// tools/hopt_driver/hopt.cc, loads the plugins -load names, parses the
// command line (tools/hopt_driver/hopt_options.h) into a HoptConfig and
// calls RunHopt. docs/hopt.md says what each option does.
//
// Errors: RunHopt returns them. HoptMain prints one line on stderr (a place
// in the input as FILE:LINE:COL: error: ..., anything else as
// `hopt: error: ...`), writes no output file, and exits 1; under
// -compare-with, 1 for a difference and 2 for a comparison that could not
// run (tools/common/provider_compare.h).

#include "absl/status/status.h"
#include "tools/hopt_driver/hopt_config.h"

namespace hopt {
namespace tools {

// Loads `extensions.load`, then reads `input`, runs the pipeline over each
// module with the checks `config` asks for, and writes the result to
// `output` only when everything succeeded. It keeps nothing between calls:
// the process-wide settings it reads (-debug-only, the input size limit)
// are set from `config` each time. Notes and -time-passes tables still go
// to stderr, as the command line's do.
absl::Status RunHopt(const HoptConfig& config, const HoptExtensions& extensions,
                     const HoptInput& input, const HoptOutput& output);

// The exit status hopt gives for RunHopt's `status` under `config`.
int HoptExitStatus(const HoptConfig& config, const absl::Status& status);

// The command line. Call once per process: the options it defines live
// until exit.
int HoptMain(int argc, char** argv);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_HOPT_DRIVER_HOPT_MAIN_H_

#ifndef HOPT_TOOLS_HOPT_MAIN_H_
#define HOPT_TOOLS_HOPT_MAIN_H_

// hopt's driver, as a library: tools/hopt_driver/hopt.cc's main is HoptMain, as
// mlir-opt's is MlirOptMain. HoptMain loads the plugins -load names, parses
// the command line (tools/hopt_driver/hopt_options.h), reads the input, runs the pass
// pipeline over each module and writes the result; docs/hopt.md says what
// each option does.
//
// Errors: one line on stderr (a place in the input as FILE:LINE:COL:
// error: ..., anything else as `hopt: error: ...`), no output file, and exit
// status 1; under -compare-with, 1 for a difference and 2 for a comparison
// that could not run (tools/common/provider_compare.h).

namespace hopt {
namespace tools {

// Call once per process: the options it defines live until exit.
int HoptMain(int argc, char** argv);

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_HOPT_MAIN_H_

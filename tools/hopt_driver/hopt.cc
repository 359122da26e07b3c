// SPDX-License-Identifier: Apache-2.0
// hopt: loads pass plugins, reads an HLO module, runs a pass pipeline over
// it and writes the result (docs/hopt.md). The driver is a library
// (tools/hopt_driver/hopt_main.h), as mlir-opt's is MlirOptMain.
//
//   hopt -load=libmy_passes.so -passes='a,b{option=value}' in.hlo -o out.hlo

#include "tools/hopt_driver/hopt_main.h"

int main(int argc, char** argv) { return hopt::tools::HoptMain(argc, argv); }

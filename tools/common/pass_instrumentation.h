// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TOOLS_COMMON_PASS_INSTRUMENTATION_H_
#define HOPT_TOOLS_COMMON_PASS_INSTRUMENTATION_H_

// hopt's performance instrumentation, installed into the pass manager as
// before/after-pass callbacks (core/pass_manager/tooling/pipeline.h,
// PassCallbacks): the pass manager runs the passes, the tool measures them.

#include "core/pass_manager/tooling/pipeline.h"
#include "llvm/Support/raw_ostream.h"

namespace hopt {
namespace tools {

// -time-passes: wall time and page faults of each pass, one row per pass
// name (repeated runs summed, rows in order of first run), printed on `out`
// as a table when a pipeline has run to its end; a pipeline that fails
// prints none. Each pipeline run starts a new table. `out` must outlive
// the runs.
PassCallbacks TimePassesCallbacks(llvm::raw_ostream& out);

// -callgrind-per-pass: under `valgrind --tool=callgrind
// --instr-atstart=no`, each pass is instrumented alone and its counts
// dumped under its name (one callgrind.out file per pass). Instruction
// counts do not move with the machine's load, so they tell how a pass's
// work scales. Outside valgrind a pipeline is refused before any pass runs.
PassCallbacks CallgrindPerPassCallbacks();

}  // namespace tools
}  // namespace hopt

#endif  // HOPT_TOOLS_COMMON_PASS_INSTRUMENTATION_H_

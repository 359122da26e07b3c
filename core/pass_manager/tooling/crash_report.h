// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PASS_MANAGER_TOOLING_CRASH_REPORT_H_
#define HOPT_CORE_PASS_MANAGER_TOOLING_CRASH_REPORT_H_

// When plugin code crashes (a segmentation fault, an abort), the user is
// told which plugin and which pass it was before the process dies, as
// LLVM's pretty stack trace tells which pass opt was running. One line on
// standard error, then the signal's default action: the exit status still
// says "killed by signal", and LLVM's own handler has already removed the
// temporaries registered with llvm::sys::RemoveFileOnSignal, so no partial
// output survives.

#include <string>

#include "absl/strings/string_view.h"

namespace hopt {

// Registers the handler (once per process); `tool` starts the line
// ("hopt: error: ..."). Without it, CrashContext does nothing.
void InstallCrashReporter(absl::string_view tool);

// Sends the crash line to `fd` instead of standard error (-1: standard
// error again): for a time when standard error is captured, as while a
// plugin is opened, so that a crash there still reaches the user.
void SetCrashReportFd(int fd);

// While one lives, a crash reports
// "TOOL: error: crashed while WHAT; no output was written", e.g. WHAT =
// "running pass 'x' (plugin p 1.0)".
// Nested contexts restore the outer one when they end.
class CrashContext {
 public:
  explicit CrashContext(absl::string_view what);
  ~CrashContext();
  CrashContext(const CrashContext&) = delete;
  CrashContext& operator=(const CrashContext&) = delete;

 private:
  std::string previous_;
};

}  // namespace hopt

#endif  // HOPT_CORE_PASS_MANAGER_TOOLING_CRASH_REPORT_H_

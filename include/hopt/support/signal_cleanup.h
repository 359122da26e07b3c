// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_SUPPORT_SIGNAL_CLEANUP_H_
#define HOPT_SUPPORT_SIGNAL_CLEANUP_H_

// What a SIGINT, SIGTERM or SIGHUP must not leave behind beyond the files
// LLVM's RemoveFileOnSignal already removes: private directories (a
// split being written, -compare-with's exchange directory) and child
// processes (-compare-with's second hopt). On such a signal the handler
// removes the registered files (llvm::sys::RunInterruptHandlers), stops
// the registered children (SIGTERM, SIGKILL after two seconds) and reaps
// them, empties and removes the registered
// directories, then dies of the same signal, so that the parent shell sees
// what it sent.
//
// Everything the handler does is async-signal-safe: the registrations are
// kept in fixed slots, and a directory is emptied with getdents64 and
// unlinkat, one level deep (the directories registered here hold files
// only).

#include <sys/types.h>

#include <string>

namespace hopt {

// False when all slots are taken (the directory then stays on a signal).
bool RemoveDirectoryOnSignal(const std::string& dir);
void DontRemoveDirectoryOnSignal(const std::string& dir);

bool KillProcessOnSignal(pid_t pid);
void DontKillProcessOnSignal(pid_t pid);

// Empties `dir` (one level) and removes it; what the handler does, for
// the same cleanup on an ordinary failure. Ignores errors.
void RemoveFlatDirectory(const std::string& dir);

}  // namespace hopt

#endif  // HOPT_SUPPORT_SIGNAL_CLEANUP_H_

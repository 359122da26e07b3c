// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/graphviz.h"

#include <optional>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "hopt/support/signal_cleanup.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"

namespace hopt {

std::string EscapeDotString(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\r') continue;
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

absl::Status RenderSvg(const std::string& dot_file, const std::string& svg_file,
                       int timeout_seconds) {
  llvm::ErrorOr<std::string> dot = llvm::sys::findProgramByName("dot");
  if (!dot) return absl::NotFoundError("Graphviz 'dot' is not installed (not found on PATH)");
  // dot's own output goes to a file, so that the caller reports one message
  // instead of dot's warnings interleaved with its own.
  llvm::SmallString<128> log;
  int log_fd = -1;
  bool have_log = !llvm::sys::fs::createTemporaryFile("hopt-dot", "log", log_fd, log);
  if (have_log) {
    llvm::sys::fs::closeFile(log_fd);
    llvm::sys::RemoveFileOnSignal(log);
  }
  // The picture arrives on dot's standard output, redirected into the
  // file the caller created (include/hopt/support/output_file.h): dot never opens
  // an output name of its own, so it cannot follow a link planted there.
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(svg_file),
                                                llvm::StringRef(log)};
  if (!have_log) redirects[2] = std::nullopt;
  std::string message;
  llvm::StringRef arguments[] = {"dot", "-Tsvg", dot_file};
  int exit_code = -1;
  bool failed = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      *dot, arguments, /*Env=*/std::nullopt, redirects, /*MemoryLimit=*/0, &message, &failed);
  if (!failed && child.Pid > 0) {
    // An interrupted hopt takes its Graphviz with it.
    KillProcessOnSignal(child.Pid);
    std::optional<unsigned> limit;
    if (timeout_seconds > 0) limit = static_cast<unsigned>(timeout_seconds);
    exit_code = llvm::sys::Wait(child, limit, &message).ReturnCode;
    DontKillProcessOnSignal(child.Pid);
  }
  std::string printed;
  if (have_log) {
    if (auto buffer = llvm::MemoryBuffer::getFile(log)) {
      llvm::StringRef text = (*buffer)->getBuffer().trim();
      printed = text.split('\n').first.trim().str();
    }
    llvm::sys::fs::remove(log);
    llvm::sys::DontRemoveFileOnSignal(log);
  }
  if (exit_code == 0) return absl::OkStatus();
  std::string why = exit_code == -2
                        ? absl::StrCat("killed or out of time after ", timeout_seconds, " s")
                        : absl::StrCat("exit ", exit_code);
  if (!message.empty()) absl::StrAppend(&why, ": ", message);
  if (!printed.empty()) absl::StrAppend(&why, ": ", printed);
  return absl::InternalError(absl::StrCat("'", *dot, " -Tsvg' failed (", why, ")"));
}

}  // namespace hopt

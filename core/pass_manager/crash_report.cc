// SPDX-License-Identifier: Apache-2.0

#include "core/pass_manager/tooling/crash_report.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "llvm/Support/Signals.h"

namespace hopt {
namespace {

// The handler may only call async-signal-safe functions, so the line is
// composed when a context starts, into a buffer the handler writes as is.
// Two buffers, switched by an atomic index: a crash while a new line is
// being composed still finds a whole one.
constexpr size_t kLineSize = 1024;
char lines[2][kLineSize];
std::atomic<int> current{-1};
std::string* tool_name = nullptr;
std::string* active = nullptr;
// Where the line goes: standard error, unless it is redirected for a while.
std::atomic<int> report_fd{-1};

void WriteCurrentLine(void*) {
  int index = current.load();
  if (index < 0) return;
  const char* line = lines[index];
  size_t left = strnlen(line, kLineSize);
  while (left > 0) {
    int fd = report_fd.load();
    ssize_t n = ::write(fd >= 0 ? fd : STDERR_FILENO, line, left);
    if (n <= 0) return;
    line += n;
    left -= static_cast<size_t>(n);
  }
}

void Publish(const std::string& what) {
  if (tool_name == nullptr) return;
  if (what.empty()) {
    current.store(-1);
    return;
  }
  int next = current.load() == 0 ? 1 : 0;
  std::string line =
      absl::StrCat(*tool_name, ": error: crashed while ", what, "; no output was written\n");
  if (line.size() >= kLineSize) {
    line.resize(kLineSize - 2);
    line += "\n";
  }
  std::memcpy(lines[next], line.c_str(), line.size() + 1);
  current.store(next);
}

}  // namespace

void InstallCrashReporter(absl::string_view tool) {
  if (tool_name != nullptr) return;
  tool_name = new std::string(tool);
  active = new std::string();
  llvm::sys::AddSignalHandler(WriteCurrentLine, nullptr);
}

void SetCrashReportFd(int fd) { report_fd.store(fd); }

CrashContext::CrashContext(absl::string_view what) {
  if (active == nullptr) return;
  previous_ = *active;
  *active = std::string(what);
  Publish(*active);
}

CrashContext::~CrashContext() {
  if (active == nullptr) return;
  *active = previous_;
  Publish(*active);
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/support/signal_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "llvm/Support/Signals.h"

namespace hopt {
namespace {

constexpr int kSlots = 16;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct DirectorySlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

DirectorySlot g_directories[kSlots];
std::atomic<pid_t> g_children[kSlots];
std::atomic<bool> g_installed{false};

// The kernel's record, which glibc does not declare.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void EmptyAndRemove(const char* dir) {
  // Several passes: removing entries while reading may make a file
  // system skip some on the first one.
  for (int pass = 0; pass < 3; ++pass) {
    int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return;
    alignas(8) char buffer[4096];
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
        offset += entry->d_reclen;
        const char* name = entry->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        ::unlinkat(fd, name, 0);
      }
    }
    ::close(fd);
    if (::rmdir(dir) == 0 || errno != ENOTEMPTY) return;
  }
}

void OnSignal(int signal_number) {
  int saved_errno = errno;
  llvm::sys::RunInterruptHandlers();
  // SIGTERM first, so that a child that is itself a hopt removes what it
  // wrote; SIGKILL for one that has not gone after two seconds.
  pid_t pids[kSlots];
  int count = 0;
  for (std::atomic<pid_t>& child : g_children) {
    pid_t pid = child.exchange(0);
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      pids[count++] = pid;
    }
  }
  for (int tick = 0; tick < 200 && count > 0; ++tick) {
    int left = 0;
    for (int k = 0; k < count; ++k)
      if (::waitpid(pids[k], nullptr, WNOHANG) == 0) pids[left++] = pids[k];
    count = left;
    if (count > 0) {
      struct timespec pause = {0, 10 * 1000 * 1000};
      ::nanosleep(&pause, nullptr);
    }
  }
  for (int k = 0; k < count; ++k) {
    ::kill(pids[k], SIGKILL);
    while (::waitpid(pids[k], nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  for (DirectorySlot& slot : g_directories)
    if (slot.state.load() == kLive) EmptyAndRemove(slot.path);
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal_number, &action, nullptr);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signal_number);
  ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(signal_number);
  errno = saved_errno;
}

void InstallHandler() {
  if (g_installed.exchange(true)) return;
  for (int signal_number : kSignals) {
    struct sigaction previous;
    if (::sigaction(signal_number, nullptr, &previous) != 0) continue;
    // An ignored signal (nohup, a background job of a script) stays
    // ignored: the caller asked for the run not to be stopped by it.
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN) continue;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = OnSignal;
    sigfillset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace

bool RemoveDirectoryOnSignal(const std::string& dir) {
  if (dir.size() >= PATH_MAX) return false;
  InstallHandler();
  for (DirectorySlot& slot : g_directories) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(slot.path, dir.c_str(), dir.size() + 1);
    slot.state.store(kLive);
    return true;
  }
  return false;
}

void DontRemoveDirectoryOnSignal(const std::string& dir) {
  for (DirectorySlot& slot : g_directories) {
    if (slot.state.load() != kLive || dir != slot.path) continue;
    slot.state.store(kFree);
    return;
  }
}

bool KillProcessOnSignal(pid_t pid) {
  InstallHandler();
  for (std::atomic<pid_t>& child : g_children) {
    pid_t expected = 0;
    if (child.compare_exchange_strong(expected, pid)) return true;
  }
  return false;
}

void DontKillProcessOnSignal(pid_t pid) {
  for (std::atomic<pid_t>& child : g_children) {
    pid_t expected = pid;
    if (child.compare_exchange_strong(expected, 0)) return;
  }
}

void RemoveFlatDirectory(const std::string& dir) { EmptyAndRemove(dir.c_str()); }

}  // namespace hopt

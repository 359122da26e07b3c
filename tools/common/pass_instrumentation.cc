// SPDX-License-Identifier: Apache-2.0

#include "tools/common/pass_instrumentation.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "llvm/Support/Format.h"
#include "valgrind/callgrind.h"

namespace hopt {
namespace tools {
namespace {

// Page faults of this process so far (minor and major).
int64_t PageFaults() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_minflt) + static_cast<int64_t>(usage.ru_majflt);
}

// Per pass name: wall seconds and page faults (a fault costs from a
// fraction of a microsecond to over ten on the virtual machines we
// measured, and a pass that touches fresh memory takes one per 4 KB page).
struct PassTimes {
  struct Row {
    std::string name;
    double seconds = 0;
    int64_t page_faults = 0;
  };
  std::vector<Row> rows;
  std::chrono::steady_clock::time_point started;
  int64_t faults_before = 0;

  void Print(llvm::raw_ostream& out) const {
    double total = 0;
    int64_t total_faults = 0;
    for (const Row& row : rows) {
      total += row.seconds;
      total_faults += row.page_faults;
    }
    out << "===" << std::string(66, '-') << "===\n"
        << "                      Pass execution timing report\n"
        << "===" << std::string(66, '-') << "===\n"
        << llvm::format("  Total: %.4f s, %lld page faults\n\n", total,
                        static_cast<long long>(total_faults))
        << "   Wall time (s)   ---%---  Page faults  Pass\n";
    for (const Row& row : rows)
      out << llvm::format("  %14.6f  %7.1f%%  %11lld  ", row.seconds,
                          total > 0 ? 100.0 * row.seconds / total : 0.0,
                          static_cast<long long>(row.page_faults))
          << row.name << "\n";
    out.flush();
  }
};

}  // namespace

PassCallbacks TimePassesCallbacks(llvm::raw_ostream& out) {
  // Shared by the copies of the callbacks (Instrumentation is copied).
  auto times = std::make_shared<PassTimes>();
  PassCallbacks callbacks;
  callbacks.before_pipeline = [times](const HloModule&) {
    times->rows.clear();
    return absl::OkStatus();
  };
  callbacks.before_pass = [times](const Pass&, const HloModule&) {
    times->started = std::chrono::steady_clock::now();
    times->faults_before = PageFaults();
  };
  callbacks.after_pass = [times](const Pass& pass, const HloModule&) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - times->started).count();
    int64_t faults = PageFaults() - times->faults_before;
    auto row = std::find_if(times->rows.begin(), times->rows.end(),
                            [&](const PassTimes::Row& entry) { return entry.name == pass.name(); });
    if (row == times->rows.end())
      row = times->rows.insert(times->rows.end(), PassTimes::Row{std::string(pass.name())});
    row->seconds += seconds;
    row->page_faults += faults;
  };
  callbacks.after_pipeline = [times, &out](const HloModule&) { times->Print(out); };
  return callbacks;
}

PassCallbacks CallgrindPerPassCallbacks() {
  PassCallbacks callbacks;
  callbacks.before_pipeline = [](const HloModule&) {
    // Outside valgrind the client requests would count nothing.
    if (RUNNING_ON_VALGRIND == 0)
      return absl::FailedPreconditionError(
          "-callgrind-per-pass counts only under valgrind --tool=callgrind --instr-atstart=no");
    return absl::OkStatus();
  };
  callbacks.before_pass = [](const Pass&, const HloModule&) {
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
  };
  callbacks.after_pass = [](const Pass& pass, const HloModule&) {
    std::string name(pass.name());
    CALLGRIND_DUMP_STATS_AT(name.c_str());
    CALLGRIND_STOP_INSTRUMENTATION;
  };
  return callbacks;
}

}  // namespace tools
}  // namespace hopt

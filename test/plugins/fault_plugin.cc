// SPDX-License-Identifier: Apache-2.0
// hopt_test_fault_*: plugins that misbehave, one way each, for the tests of
// how hopt contains plugin faults (test/plugin-faults.hlo; a pass that
// leaves the IR broken is libhopt_test_plugin.so's test-break-module). Built for tests
// only, from this one source with FAULT set to:
//   option_clash_host    defines an option hopt itself has (-verify-each)
//   option_clash_plugin  defines -test-suffix, as libhopt_test_plugin.so does
//   register_throws      its registration callback throws
//   pass_throws          test-fault-throw throws from Run()
//   pass_fails           test-fault-error returns an error status
//   pass_segfaults       test-fault-segv writes through a null pointer
//   pass_aborts          test-fault-abort calls abort()
//   register_segfaults   its registration callback writes through a null pointer
//   static_segfaults     a static constructor writes through a null pointer
//                        (while dlopen runs it)

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "llvm/Support/CommandLine.h"

#define FAULT_IS(name) (FAULT_ID == FAULT_##name)
#define FAULT_option_clash_host 1
#define FAULT_option_clash_plugin 2
#define FAULT_register_throws 3
#define FAULT_pass_throws 4
#define FAULT_pass_fails 6
#define FAULT_pass_segfaults 7
#define FAULT_pass_aborts 8
#define FAULT_register_segfaults 9
#define FAULT_option_owner 10
#define FAULT_static_segfaults 11
#define FAULT_ID_OF(x) FAULT_##x
#define FAULT_ID_EXPAND(x) FAULT_ID_OF(x)
#define FAULT_ID FAULT_ID_EXPAND(FAULT)

namespace hopt_test_fault {
namespace {

// A store the compiler cannot prove away: the crash must really happen.
void WriteThroughNull() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}

#if FAULT_IS(static_segfaults)
const bool crashed_while_loading = [] {
  WriteThroughNull();
  return true;
}();
#endif

#if FAULT_IS(option_clash_host)
llvm::cl::opt<bool> clash("verify-each", llvm::cl::desc("clashes with hopt's own option"));
#elif FAULT_IS(option_owner)
// A plugin that (against the rules) defines a global option of its own...
llvm::cl::opt<std::string> owned("test-fault-option", llvm::cl::desc("defined by option_owner"));
#elif FAULT_IS(option_clash_plugin)
// ...and another that defines the same one.
llvm::cl::opt<std::string> clash("test-fault-option", llvm::cl::desc("clashes with option_owner"));
#endif

class FaultPass : public hopt::Pass {
 public:
  absl::string_view name() const override {
#if FAULT_IS(pass_throws)
    return "test-fault-throw";
#elif FAULT_IS(pass_segfaults)
    return "test-fault-segv";
#elif FAULT_IS(pass_aborts)
    return "test-fault-abort";
#else
    return "test-fault-error";
#endif
  }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
#if FAULT_IS(pass_throws)
    throw std::runtime_error("the vendor pass ran out of luck");
#elif FAULT_IS(pass_segfaults)
    WriteThroughNull();
    return false;
#elif FAULT_IS(pass_aborts)
    std::abort();
#else
    return absl::InternalError("the vendor pass refuses");
#endif
  }
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
#if FAULT_IS(register_throws)
  throw std::runtime_error("registration table is corrupt");
#elif FAULT_IS(register_segfaults)
  WriteThroughNull();
#endif
  registrar.AddPass<FaultPass>("misbehaves on purpose (tests)");
}

}  // namespace
}  // namespace hopt_test_fault

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_fault", "1.0.0",
          &hopt_test_fault::RegisterPlugin};
}

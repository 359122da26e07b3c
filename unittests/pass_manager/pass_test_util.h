// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_PASS_MANAGER_PASS_TEST_UTIL_H_
#define HOPT_UNITTESTS_PASS_MANAGER_PASS_TEST_UTIL_H_

// Helpers of pass_manager_test (pass_manager_test.cc, plugin_loader_test.cc).

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"

#ifndef HOPT_TEST_PLUGIN_DIR
#error "the build passes -DHOPT_TEST_PLUGIN_DIR=\"<build>/test/plugins\""
#endif

namespace hopt {
namespace pass_testing {

// A test plugin of test/plugins, by file name.
inline std::string PluginPath(absl::string_view file) {
  return absl::StrCat(HOPT_TEST_PLUGIN_DIR, "/", file);
}

inline constexpr char kModule[] = R"(HloModule m

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  n = f32[2,3]{1,0} negate(a)
  ROOT r = f32[2,3]{1,0} add(n, a)
}
)";

inline int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t n = 0;
  for (HloComputation* computation : module.computations())
    for (HloInstruction* instruction : computation->instructions())
      n += instruction->opcode() == opcode;
  return n;
}

}  // namespace pass_testing
}  // namespace hopt

#endif  // HOPT_UNITTESTS_PASS_MANAGER_PASS_TEST_UTIL_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_IR_MUTATION_TEST_UTIL_H_
#define HOPT_UNITTESTS_IR_MUTATION_TEST_UTIL_H_

// Helpers of the IR mutation tests (ir_mutation_test.cc, ir_attribute_test.cc,
// ir_module_test.cc).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"

namespace hopt {
namespace mutation_testing {

inline std::vector<std::string> AttributeNames(const HloInstruction& instruction) {
  std::vector<std::string> names;
  for (const HloAttribute& attr : instruction.attributes()) names.emplace_back(attr.name);
  return names;
}

inline std::vector<std::string> ComputationNames(const std::vector<HloComputation*>& computations) {
  std::vector<std::string> names;
  for (const HloComputation* c : computations) names.emplace_back(c->name());
  return names;
}

inline void ExpectVerifies(const HloModule& module) {
  absl::Status status = VerifyModule(module);
  EXPECT_TRUE(status.ok()) << status << "\n" << PrintModule(module, PrintOptions::Short());
}

inline HloInstruction* Find(const std::unique_ptr<HloModule>& module, absl::string_view name) {
  for (HloComputation* c : module->computations())
    if (HloInstruction* i = c->GetInstructionWithName(name)) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

inline const Shape kF32(PrimitiveType::F32, {});
inline const Shape kF32x4(PrimitiveType::F32, {4});

// An all-reduce over two replicas with its reduction computation.
inline constexpr absl::string_view kAllReduce = R"(HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p0 = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(p0), replica_groups={{0,1}}, to_apply=add
}
)";

}  // namespace mutation_testing
}  // namespace hopt

#endif  // HOPT_UNITTESTS_IR_MUTATION_TEST_UTIL_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_UNITTESTS_PLUGINS_PLUGIN_TEST_UTIL_H_
#define HOPT_UNITTESTS_PLUGINS_PLUGIN_TEST_UTIL_H_

// Helpers for the per-plugin gtest binaries: run a pass on HLO text, and
// check with the interpreter that it did not change what the module computes.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/shape.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/registrar.h"
#include "unittests/test_util.h"

namespace hopt {
namespace testing_util {

struct MeshShape {
  int64_t replicas;
  int64_t partitions;
};

// The meshes every plugin test checks on (replicas x partitions).
inline const std::vector<MeshShape>& StandardMeshes() {
  static const std::vector<MeshShape> meshes = {{8, 1}, {1, 8}, {2, 4}};
  return meshes;
}

// What the plugin tests register (custom-call semantics), through a
// registrar as a plugin does; the test binary owns it, as a tool would.
inline Extensions& TestExtensions() {
  static auto* extensions = new Extensions();
  return *extensions;
}
inline PluginRegistrar& TestRegistrar() {
  static auto* registrar = new PluginRegistrar(TestExtensions());
  return *registrar;
}
inline const eval::CustomCallTable* TestCustomCalls() { return &TestExtensions().custom_calls; }

// Runs `pass` on a copy of `module`; fails the test on an error or if the
// result does not verify. Returns the rewritten module and whether the pass
// reported a change.
inline std::pair<std::unique_ptr<HloModule>, bool> RunPassOrFail(Pass& pass,
                                                                 const HloModule& module) {
  std::unique_ptr<HloModule> copy = module.Clone();
  absl::StatusOr<bool> changed = pass.Run(*copy);
  if (!changed.ok()) {
    ADD_FAILURE() << pass.name() << " failed: " << changed.status();
    return {nullptr, false};
  }
  absl::Status verified = VerifyModule(*copy);
  if (!verified.ok()) {
    ADD_FAILURE() << pass.name() << " produced an invalid module: " << verified << "\n"
                  << PrintModule(*copy);
    return {nullptr, false};
  }
  return {std::move(copy), *changed};
}

// Runs both modules on `mesh` with `seeds` random input sets and expects
// every output on every device to be bitwise equal.
inline void ExpectSameResults(const HloModule& before, const HloModule& after, MeshShape mesh,
                              int seeds = 3) {
  eval::EvalOptions options;
  options.custom_calls = TestCustomCalls();
  options.replicas = mesh.replicas;
  options.partitions = mesh.partitions;
  int64_t devices = mesh.replicas * mesh.partitions;
  for (int seed = 1; seed <= seeds; ++seed) {
    auto arguments = eval::RandomArguments(before, devices, seed);
    auto expected = eval::RunModule(before, arguments, options);
    ASSERT_TRUE(expected.ok()) << "before, mesh " << mesh.replicas << "x" << mesh.partitions << ": "
                               << expected.status();
    auto actual = eval::RunModule(after, arguments, options);
    ASSERT_TRUE(actual.ok()) << "after, mesh " << mesh.replicas << "x" << mesh.partitions << ": "
                             << actual.status() << "\n"
                             << PrintModule(after);
    for (int64_t d = 0; d < devices; ++d) {
      std::string difference;
      EXPECT_TRUE(eval::BitwiseEqual((*expected)[d], (*actual)[d], &difference))
          << "mesh " << mesh.replicas << "x" << mesh.partitions << ", device " << d << ", seed "
          << seed << ": " << difference << "\n"
          << PrintModule(after);
    }
  }
}

// Every array element type hopt knows (token and the like excluded).
inline std::vector<PrimitiveType> ArrayTypes() {
  std::vector<PrimitiveType> types;
#define PRIMITIVE_TYPE(name, spelling, bits, kind) \
  if ((kind) != 'x') types.push_back(PrimitiveType::name);
#include "hopt/ir/primitive_types.def"
#undef PRIMITIVE_TYPE
  return types;
}

// The module header line for a replicas x partitions mesh.
inline std::string MeshHeader(int64_t replicas, int64_t partitions) {
  return absl::StrCat("HloModule m, replica_count=", replicas, ", num_partitions=", partitions,
                      "\n\n");
}

// The computation `name`: (a: T[], b: T[]) -> T[] root(a, b).
inline std::string BinaryCombiner(const std::string& name, const std::string& type,
                                  const std::string& root) {
  return absl::StrCat(name, " {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                      "[] parameter(1)\n  ROOT r = ", type, "[] ", root, "(a, b)\n}\n\n");
}

// The instruction `name` of the entry computation (a test failure if none).
inline HloInstruction* Named(const HloModule& module, const std::string& name) {
  HloInstruction* found = module.entry_computation()->GetInstructionWithName(name);
  EXPECT_NE(found, nullptr) << name << " not found in\n" << PrintModule(module);
  return found;
}

// The entry computation's opcodes in post order.
inline std::vector<std::string> PostOrderOpcodes(const HloModule& module) {
  std::vector<std::string> order;
  for (HloInstruction* i : module.entry_computation()->MakeInstructionPostOrder())
    order.push_back(i->OpcodeSpelling());
  return order;
}

// A module parsed from text, and `pass` run on a copy of it.
struct Rewritten {
  std::unique_ptr<HloModule> before;
  std::unique_ptr<HloModule> after;
  bool changed = false;
};
inline Rewritten RewriteWith(Pass& pass, const std::string& text) {
  Rewritten r;
  r.before = ParseOrFail(text);
  if (r.before == nullptr) return r;
  auto [after, changed] = RunPassOrFail(pass, *r.before);
  r.after = std::move(after);
  r.changed = changed;
  return r;
}

}  // namespace testing_util
}  // namespace hopt

#endif  // HOPT_UNITTESTS_PLUGINS_PLUGIN_TEST_UTIL_H_

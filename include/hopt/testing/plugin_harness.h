// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_TESTING_PLUGIN_HARNESS_H_
#define HOPT_TESTING_PLUGIN_HARNESS_H_

// The test kit's core (libhopt_testing, pkg-config hopt-testing;
// docs/writing-a-plugin.md, "Testing your plugin"): a plugin under test,
// loaded from its .so or registered from its entry function, into a
// registry of the test's own, and its passes run in process as hopt runs
// them.
//
//   hopt::testkit::PluginHarness harness;
//   ASSERT_TRUE(harness.RegisterPlugin(&hoptGetPluginInfo).ok());
//   absl::StatusOr<std::string> out = harness.RunToText("my-pass{opt=1}", kHlo);
//
// Nothing is process-wide: two harnesses in one test see only what was
// loaded into each.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace testkit {

// How the -verify-equivalence check of VerifyEquivalence runs: as hopt's
// defaults (-verify-equivalence with no count, -equivalence-seed=1).
struct EquivalenceOptions {
  int64_t sets = 3;  // input sets, each seeded `seed + k`
  uint64_t seed = 1;
  // 0: the module's replica_count / num_partitions.
  int64_t replicas = 0;
  int64_t partitions = 0;
};

// What the equivalence check found.
struct EquivalenceVerdict {
  bool equivalent = false;
  int64_t devices = 0;  // the mesh it ran on
  // When not equivalent: where the first difference is, or why a side
  // could not run ("before: ..." / "after: ...").
  std::string difference;
};

class PluginHarness {
 public:
  PluginHarness() = default;
  PluginHarness(const PluginHarness&) = delete;
  PluginHarness& operator=(const PluginHarness&) = delete;

  // As hopt's -override-passes: a later registration of a taken pass name
  // replaces the earlier one instead of failing. Set before loading.
  void set_allow_override(bool allow) { extensions_.passes.set_allow_override(allow); }

  // Loads a plugin file in process with hopt's checks, each failure its own
  // message naming the file: not a loadable shared object, no entry point
  // (`hoptGetPluginInfo`), another plugin API version, another build tag,
  // an incomplete description, a registration that failed (a taken pass
  // name, say). The file stays loaded for the life of the process.
  absl::Status LoadPlugin(const std::string& path);
  // The same checks and registration for an entry function linked into the
  // test (a plugin's `hoptGetPluginInfo`, compiled into the test binary):
  // no .so needed.
  absl::Status RegisterPlugin(HoptGetPluginInfoFn entry);

  // Parses `hlo_text`, verifies it, runs `pipeline` (hopt's -passes text:
  // `a,b{opt=1}` or a named pipeline) with the verifier after every pass,
  // and returns the module. Errors as hopt words them: a parse error with
  // line:col, an unknown pass with suggestions, `pass 'p' (plugin NAME
  // VERSION) produced an invalid module: verifier: ...`.
  absl::StatusOr<std::unique_ptr<HloModule>> Run(absl::string_view pipeline,
                                                 absl::string_view hlo_text) const;
  // The same, returning the result printed as hopt prints it.
  absl::StatusOr<std::string> RunToText(absl::string_view pipeline,
                                        absl::string_view hlo_text) const;

  // hopt -verify-equivalence in process: runs the pipeline on `hlo_text`,
  // then the input and the result on the same seeded random inputs on every
  // device of the mesh, and compares every output bit for bit (custom-calls
  // with the semantics the loaded plugins registered). An error is a
  // failure to parse or run the pipeline; a difference is a verdict.
  absl::StatusOr<EquivalenceVerdict> VerifyEquivalence(
      absl::string_view pipeline, absl::string_view hlo_text,
      const EquivalenceOptions& options = {}) const;
  // The same check of two modules the test already has.
  EquivalenceVerdict CompareOnMesh(const HloModule& before, const HloModule& after,
                                   const EquivalenceOptions& options = {}) const;

  // What the loaded plugins registered (passes, pipelines, custom-call
  // semantics), for a test that needs more than Run.
  const Extensions& extensions() const { return extensions_; }

 private:
  // The checks hopt's loader makes on a plugin's description, then the
  // registration; `source` names the plugin in messages.
  absl::Status Register(const HoptPluginInfo& info, absl::string_view source);

  Extensions extensions_;
};

}  // namespace testkit
}  // namespace hopt

#endif  // HOPT_TESTING_PLUGIN_HARNESS_H_

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_TOOLING_REGION_CHECK_H_
#define HOPT_CORE_EVAL_TOOLING_REGION_CHECK_H_

// Checking a pass by what it changed (hopt -verify-equivalence=region,
// docs/hlo-run.md, "Checks that follow the change"). The module before and
// after the pass are matched instruction by instruction: an instruction is
// unchanged when the other module has one of the same name in the same
// computation with the same opcode, shape, operands (by name), literal and
// attributes (metadata aside). What is left on either side is the changed
// region. The values it reads from the unchanged part are its inputs; the
// values of it that unchanged instructions (or the computation's root)
// read are its outputs. Both sides of the region become a module of their
// own whose entry takes the inputs and returns the outputs, and the two run
// on the real module's mesh on the same random inputs: the cost follows
// the region, not the model.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/eval/tooling/mesh_compare.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

// The changed region of one computation, as two modules with the same
// entry signature.
struct ChangedRegion {
  std::string computation;                        // the computation's name after the pass
  int64_t changed_before = 0, changed_after = 0;  // region instructions per side
  int64_t inputs = 0, outputs = 0;
  // The instruction (after the pass) each element of the region's result
  // tuple stands for.
  std::vector<std::string> output_names;
  std::unique_ptr<HloModule> before, after;
  // Outputs shown equal without running (core/eval/forwarding.h): both
  // sides only move the same input arrays into them. They are not among
  // `outputs`, and the modules leave out what only they needed.
  int64_t forwarded = 0;
  // Set when both sides only move data into an output, but different
  // inputs: where, and from what.
  std::string forwarding_difference;
};

// One ChangedRegion per computation whose instructions differ (none when
// the pass changed nothing). A change the region cannot stand for (a
// parameter of a computation changed, a computation's signature changed)
// is an error that says so; the caller then cannot check the pass by
// region.
// `custom_calls` (may be null) says which custom-calls only move data.
absl::StatusOr<std::vector<ChangedRegion>> FindChangedRegions(
    const HloModule& before, const HloModule& after, const CustomCallTable* custom_calls = nullptr);

struct RegionCheck {
  std::vector<ChangedRegion> regions;
  int64_t changed_before = 0, changed_after = 0;  // over every region
  int64_t forwarded = 0;                          // outputs shown equal without running
  // kEqual when every region with outputs gave the same outputs; else the
  // first region that did not, with `region` naming its computation and
  // the message naming the output instruction that differs.
  MeshComparison comparison;
  std::string region;
  // Regions with outputs that ran, and why the others did not.
  int64_t checked = 0;
  std::vector<std::string> unchecked;
};

// Finds the regions and runs each, before against after, on `sets` random
// input sets from `seed` on `options`' mesh (which must be set: the region
// modules carry no mesh of their own).
absl::StatusOr<RegionCheck> CheckChangedRegions(const HloModule& before, const HloModule& after,
                                                int64_t sets, uint64_t seed,
                                                const EvalOptions& options);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_TOOLING_REGION_CHECK_H_

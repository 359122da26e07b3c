// SPDX-License-Identifier: Apache-2.0
// hopt_test_mutants: deliberately wrong versions of the eleven Neuron
// passes, for the mutation tests of -prove-equivalence (docs/testing.md,
// "Mutation testing: the prover against wrong passes"). Built for tests
// only.
//
// A mutant runs the real pass (linked from its pass library) and then
// corrupts one instruction the pass created or rewired (mutants.def names
// which and how; mutant_operators.h says what each corruption does). It is
// loaded together with the real plugins, whose custom-call semantics the
// interpreter and the prover need; it registers none of its own.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "collectives/canonicalize_variadic_collectives.h"
#include "collectives/collective_permute_to_all_gather.h"
#include "collectives/convert_collectives_to_custom_call.h"
#include "collectives/convert_custom_call_to_collectives.h"
#include "collectives/fuse_reduce_scatter.h"
#include "collectives/fuse_send_recv.h"
#include "decompose/decompose_int_all_reduce.h"
#include "decompose/decompose_scalar_reduce.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "markers/add_boundary_marker.h"
#include "markers/boundary_marker_removal.h"
#include "markers/canonicalize_boundary_marker.h"
#include "mutant_operators.h"

namespace hopt_test_mutants {
namespace {

struct MutantSpec {
  const char* name;
  const char* pass;
  Corruption corruption;
  const char* site;
  const char* input;
};

constexpr MutantSpec kMutants[] = {
#define MUTANT(NAME, PASS, CORRUPTION, SITE, INPUT) \
  {NAME, PASS, Corruption::CORRUPTION, SITE, INPUT},
#include "mutants.def"
#undef MUTANT
};

// The real pass with its default options, by registry name.
absl::StatusOr<std::unique_ptr<hopt::Pass>> RealPass(absl::string_view name) {
  if (name == "canonicalize-variadic-collectives")
    return std::make_unique<neuron::CanonicalizeVariadicCollectives>();
  if (name == "collective-permute-to-all-gather")
    return std::make_unique<neuron::CollectivePermuteToAllGather>();
  if (name == "convert-collectives-to-custom-call")
    return std::make_unique<neuron::ConvertCollectivesToCustomCall>();
  if (name == "convert-custom-call-to-collectives")
    return std::make_unique<neuron::ConvertCustomCallToCollectives>();
  if (name == "fuse-reduce-scatter") return std::make_unique<neuron::FuseReduceScatter>();
  if (name == "fuse-send-recv") return std::make_unique<neuron::FuseSendRecv>();
  if (name == "aws_neuron_decompose_int_all_reduce")
    return std::make_unique<neuron::DecomposeIntAllReduce>();
  if (name == "aws_neuron_decompose_scalar_reduce")
    return std::make_unique<neuron::DecomposeScalarReduce>();
  if (name == "neuron_add_boundary_marker") return std::make_unique<neuron::AddBoundaryMarker>();
  if (name == "canonicalize-boundary-marker")
    return std::make_unique<neuron::CanonicalizeBoundaryMarker>();
  if (name == "boundary-marker-removal") return std::make_unique<neuron::BoundaryMarkerRemoval>();
  return absl::InvalidArgumentError(absl::StrCat("mutants.def names an unknown pass '", name, "'"));
}

// Each instruction's operands, by unique id: what the pass did not touch
// has the same id and the same operands afterwards.
using OperandIds = std::unordered_map<int64_t, std::vector<int64_t>>;

std::vector<int64_t> IdsOf(const hopt::HloInstruction& instruction) {
  std::vector<int64_t> ids;
  for (const hopt::HloInstruction* operand : instruction.operands())
    ids.push_back(operand->unique_id());
  return ids;
}

OperandIds Snapshot(const hopt::HloModule& module) {
  OperandIds snapshot;
  for (hopt::HloComputation* computation : module.computations())
    for (hopt::HloInstruction* instruction : computation->instructions())
      snapshot[instruction->unique_id()] = IdsOf(*instruction);
  return snapshot;
}

// Instructions created since `before`, or whose operands changed, in
// module order.
std::vector<hopt::HloInstruction*> Touched(const hopt::HloModule& module,
                                           const OperandIds& before) {
  std::vector<hopt::HloInstruction*> touched;
  for (hopt::HloComputation* computation : module.computations())
    for (hopt::HloInstruction* instruction : computation->instructions()) {
      auto old = before.find(instruction->unique_id());
      if (old == before.end() || old->second != IdsOf(*instruction)) touched.push_back(instruction);
    }
  return touched;
}

class MutantPass : public hopt::Pass {
 public:
  explicit MutantPass(const MutantSpec& spec) : spec_(spec) {}
  absl::string_view name() const override { return spec_.name; }

  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    absl::StatusOr<std::unique_ptr<hopt::Pass>> real = RealPass(spec_.pass);
    if (!real.ok()) return real.status();
    OperandIds before = Snapshot(module);
    absl::StatusOr<bool> changed = (*real)->Run(module);
    if (!changed.ok()) return changed;
    // Without the pass's change there is nothing of its to corrupt, and a
    // mutant that passes for the real pass would be counted as caught.
    if (!*changed)
      return absl::FailedPreconditionError(
          absl::StrCat(spec_.name, ": ", spec_.pass, " does not change this module"));
    absl::StatusOr<std::string> corrupted =
        Corrupt(spec_.corruption, spec_.site, Touched(module, before));
    if (!corrupted.ok())
      return absl::Status(corrupted.status().code(),
                          absl::StrCat(spec_.name, ": ", corrupted.status().message()));
    return true;
  }

 private:
  const MutantSpec& spec_;
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  for (const MutantSpec& spec : kMutants)
    registrar.AddPass(
        spec.name,
        absl::StrCat(spec.pass, " then ", CorruptionName(spec.corruption), " at '", spec.site,
                     "' (a wrong pass, for the mutation tests; input: ", spec.input, ")"),
        [&spec]() -> std::unique_ptr<hopt::Pass> { return std::make_unique<MutantPass>(spec); });
}

}  // namespace
}  // namespace hopt_test_mutants

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_test_mutants", "1.0.0",
          &hopt_test_mutants::RegisterPlugin};
}

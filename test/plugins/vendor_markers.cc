// hopt_vendor_markers: a stand-in for a vendor's replacement of
// libneuron_markers.so, for the -compare-with tests (test/compare). It
// reuses the markers plugin's passes through their library and alters the
// results in known ways:
//   canonicalize-boundary-marker  the same program, every instruction renamed
//                                 (identical modulo names)
//   boundary-marker-removal       an extra copy of the entry's root
//                                 (structure differs, semantics equivalent)
// It has no neuron_add_boundary_marker. Like the plugin it replaces, it
// defines -boundary-markers-everywhere: the two cannot share a process.

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/pass_manager/pass.h"
#include "core/pass_manager/pass_registry.h"
#include "core/pass_manager/plugin_api.h"
#include "llvm/Support/CommandLine.h"
#include "plugins/markers/boundary_marker_removal.h"
#include "plugins/markers/canonicalize_boundary_marker.h"
#include "plugins/markers/marker_semantics.h"

namespace hopt_vendor_markers {
namespace {

llvm::cl::OptionCategory category("hopt_vendor_markers options");

llvm::cl::opt<bool> everywhere("boundary-markers-everywhere",
                               llvm::cl::desc("The vendor's spelling of the markers option"),
                               llvm::cl::init(false), llvm::cl::cat(category));

class RenamingCanonicalize : public hopt::Pass {
 public:
  absl::string_view name() const override { return "canonicalize-boundary-marker"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    neuron::CanonicalizeBoundaryMarker ours(everywhere);
    absl::StatusOr<bool> changed = ours.Run(module);
    if (!changed.ok()) return changed;
    for (hopt::HloComputation* computation : module.computations()) {
      computation->SetName(module.UniqueName(absl::StrCat("vendor_", computation->name())));
      for (hopt::HloInstruction* instruction : computation->instructions())
        instruction->SetName(module.UniqueName(absl::StrCat("v_", instruction->name())));
    }
    return true;
  }
};

class CopyingRemoval : public hopt::Pass {
 public:
  absl::string_view name() const override { return "boundary-marker-removal"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override {
    neuron::BoundaryMarkerRemoval ours(everywhere);
    absl::StatusOr<bool> changed = ours.Run(module);
    if (!changed.ok()) return changed;
    hopt::HloComputation* entry = module.entry_computation();
    hopt::HloInstruction* root = entry->root_instruction();
    hopt::HloInstruction* copy =
        entry->AddInstruction(hopt::HloOpcode::kCopy, root->shape(), {root}, "vendor_copy");
    absl::Status rooted = entry->set_root_instruction(copy);
    if (!rooted.ok()) return rooted;
    return true;
  }
};

void RegisterPasses(hopt::PassRegistry& registry) {
  HOPT_REGISTER_OR_STOP(registry.Register<RenamingCanonicalize>(
      "vendor canonicalize-boundary-marker (renames every instruction)"));
  HOPT_REGISTER_OR_STOP(registry.Register<CopyingRemoval>(
      "vendor boundary-marker-removal (copies the entry's root)"));
  neuron::RegisterMarkerSemantics();
}

}  // namespace
}  // namespace hopt_vendor_markers

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_vendor_markers", "9.0",
          &hopt_vendor_markers::RegisterPasses};
}

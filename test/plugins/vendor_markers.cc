// SPDX-License-Identifier: Apache-2.0
// hopt_vendor_markers: a stand-in for a vendor's replacement of
// libneuron_markers.so, for the -compare-with tests (test/compare). It
// reuses the markers plugin's passes through their library and alters the
// results in known ways:
//   canonicalize-boundary-marker  the same program, every instruction renamed
//                                 (identical modulo names)
//   boundary-marker-removal       an extra copy of the entry's root
//                                 (structure differs, semantics equivalent)
// It has no neuron_add_boundary_marker. Like the plugin it replaces, its
// passes take everywhere=BOOL and it declares the deprecated
// -boundary-markers-everywhere flag: a drop-in replacement, so the two may
// share a process under -override-passes.

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"
#include "markers/boundary_marker_removal.h"
#include "markers/canonicalize_boundary_marker.h"
#include "markers/marker_semantics.h"

namespace hopt_vendor_markers {
namespace {

class RenamingCanonicalize : public hopt::Pass {
 public:
  explicit RenamingCanonicalize(bool everywhere) : everywhere(everywhere) {}
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

 private:
  bool everywhere;
};

class CopyingRemoval : public hopt::Pass {
 public:
  explicit CopyingRemoval(bool everywhere) : everywhere(everywhere) {}
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

 private:
  bool everywhere;
};

struct WalkOptions {
  bool everywhere = false;
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  auto everywhere = [] {
    return hopt::Option(&WalkOptions::everywhere, "everywhere", "the vendor's everywhere");
  };
  registrar.AddPass("canonicalize-boundary-marker",
                    "vendor canonicalize-boundary-marker (renames every instruction)",
                    {everywhere()}, [](const WalkOptions& options) {
                      return std::make_unique<RenamingCanonicalize>(options.everywhere);
                    });
  registrar.AddPass("boundary-marker-removal",
                    "vendor boundary-marker-removal (copies the entry's root)", {everywhere()},
                    [](const WalkOptions& options) {
                      return std::make_unique<CopyingRemoval>(options.everywhere);
                    });
  registrar.AddFlagAlias("boundary-markers-everywhere", "canonicalize-boundary-marker",
                         "everywhere");
  registrar.AddFlagAlias("boundary-markers-everywhere", "boundary-marker-removal", "everywhere");
  neuron::AddMarkerSemantics(registrar);
}

}  // namespace
}  // namespace hopt_vendor_markers

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "hopt_vendor_markers", "9.0",
          &hopt_vendor_markers::RegisterPlugin};
}

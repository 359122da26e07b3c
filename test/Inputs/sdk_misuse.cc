// SPDX-License-Identifier: Apache-2.0
// A plugin source that compiles as written, and does not with one of the
// mistakes the SDK turns into compile errors (test/sdk-compile-errors.hlo):
// MISSPELLED_OPTION reads a typed option by a member that does not exist;
// WRONG_ENTRY_POINT defines the entry point with another signature than
// plugin_api.h declares.

#include <cstdint>
#include <memory>
#include <string>

#include "hopt/pass_manager/plugin_api.h"
#include "hopt/pass_manager/registrar.h"

namespace {

struct FuseOptions {
  int64_t min_elements = 4;
};

class Fuse : public hopt::Pass {
 public:
  explicit Fuse(int64_t min_elements) : min_elements_(min_elements) {}
  absl::string_view name() const override { return "fuse"; }
  absl::StatusOr<bool> Run(hopt::HloModule&) override { return min_elements_ < 0; }

 private:
  int64_t min_elements_;
};

void RegisterPlugin(hopt::PluginRegistrar& registrar) {
  registrar.AddPass("fuse", "fuses",
                    {hopt::Option(&FuseOptions::min_elements, "min-elements", "the fewest")},
                    [](const FuseOptions& options) {
#ifdef MISSPELLED_OPTION
                      return std::make_unique<Fuse>(options.min_elments);
#else
                      return std::make_unique<Fuse>(options.min_elements);
#endif
                    });
}

}  // namespace

#ifdef WRONG_ENTRY_POINT
extern "C" HOPT_PLUGIN_EXPORT const HoptPluginInfo* hoptGetPluginInfo() { return nullptr; }
#else
extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfo hoptGetPluginInfo() {
  return {HOPT_PLUGIN_API_VERSION, HOPT_BUILD_TAG, "misuse", "1", &RegisterPlugin};
}
#endif

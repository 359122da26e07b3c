// hopt_test_v1: a plugin as plugin API version 1 built it: the version 1
// struct (api_version, build_tag, name, version, register_passes taking a
// PassRegistry&), written out here as version 1's header declared it.
// hopt must refuse it, naming the version, without calling anything.

#include <cstdint>
#include <cstdlib>

#include "core/pass_manager/plugin_api.h"

namespace hopt {
class PassRegistry;
}

namespace {

extern "C" struct HoptPluginInfoV1 {
  uint32_t api_version;
  const char* build_tag;
  const char* name;
  const char* version;
  void (*register_passes)(hopt::PassRegistry& registry);
};

void RegisterPasses(hopt::PassRegistry&) { std::abort(); }

}  // namespace

extern "C" HOPT_PLUGIN_EXPORT HoptPluginInfoV1 hoptGetPluginInfo() {
  return {1u, HOPT_BUILD_TAG, "hopt_test_v1", "1.0.0", &RegisterPasses};
}

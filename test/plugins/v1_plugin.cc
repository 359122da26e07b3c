// SPDX-License-Identifier: Apache-2.0
// hopt_test_v1: a plugin as plugin API version 1 built it: version 1's
// struct (api_version, build_tag, name, version, register_passes taking a
// PassRegistry&) under its own name, HoptPluginInfo, written out here as
// version 1's header declared it (so even UBSan's function-type check sees
// the entry point hopt calls as version 1's plugins had it). hopt must
// refuse it, naming the version, without calling anything.

#include <cstdint>
#include <cstdlib>

namespace hopt {
class PassRegistry;
}

extern "C" {
struct HoptPluginInfo {
  uint32_t api_version;
  const char* build_tag;
  const char* name;
  const char* version;
  void (*register_passes)(hopt::PassRegistry& registry);
};
}

namespace {

void RegisterPasses(hopt::PassRegistry&) { std::abort(); }

}  // namespace

extern "C" __attribute__((visibility("default"))) HoptPluginInfo hoptGetPluginInfo() {
  // Version 1's build tag named protobuf too; it is never compared: the
  // API version is read first.
  return {1u, "gcc-12;llvm-16.0.6;absl-20220623;protobuf-3.21.12;hopt-0.1.0", "hopt_test_v1",
          "1.0.0", &RegisterPasses};
}

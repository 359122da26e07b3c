// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: parse -> run registered passes -> verify.
//
// The four Neuron plugins are loaded once, from the build tree (or from the
// colon-separated paths in HOPT_FUZZ_PLUGINS). The first input byte picks
// what runs: one registered pass, or (the last choice) every registered pass
// in turn on the same module; the rest is HLO text. A pass may refuse a
// module with an error status; what it must never do is crash, hang, trip
// a sanitizer, or leave a module the verifier rejects or the printer and
// parser disagree on.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "core/pass_manager/tooling/plugin_loader.h"
#include "fuzz/fuzz_checks.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/pass_registry.h"
#include "llvm/Support/raw_ostream.h"

namespace {

hopt::Extensions& Loaded() {
  static hopt::Extensions* extensions = new hopt::Extensions();
  return *extensions;
}
hopt::PassRegistry& Registry() { return Loaded().passes; }

std::vector<std::string>& PassNames() {
  static std::vector<std::string>* names = new std::vector<std::string>();
  return *names;
}

std::vector<std::string> PluginPaths() {
  if (const char* env = std::getenv("HOPT_FUZZ_PLUGINS"))
    return absl::StrSplit(env, ':', absl::SkipEmpty());
  std::vector<std::string> paths;
  for (const char* family : {"markers", "collectives", "decompose", "partition"})
    paths.push_back(absl::StrCat(HOPT_FUZZ_PLUGIN_DIR, "/libneuron_", family, ".so"));
  return paths;
}

// Runs one pass; returns false when the pass refused the module.
bool RunOnePass(hopt::HloModule& module, const std::string& name) {
  auto passes = hopt::ParsePipeline(name, Registry());
  if (!passes.ok()) hopt::fuzz::Fail("cannot build pass " + name, passes.status().message());
  std::string before = hopt::PrintModule(module);
  hopt::Instrumentation instrumentation;
  instrumentation.verify_each = false;  // checked here, to tell a pass bug from a refusal
  instrumentation.out = &llvm::nulls();
  auto changed = hopt::RunPipeline(module, *passes, instrumentation);
  if (!changed.ok()) return false;
  absl::Status verified = hopt::VerifyModule(module);
  if (!verified.ok())
    hopt::fuzz::Fail("pass " + name + " left a module the verifier rejects", verified.message(),
                     before);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const std::string& path : PluginPaths()) {
    auto loaded = hopt::LoadPlugin(path, Loaded());
    if (!loaded.ok()) {
      std::fprintf(stderr, "pass_pipeline_fuzzer: %s\n",
                   std::string(loaded.status().message()).c_str());
      std::exit(1);
    }
  }
  for (const hopt::PassInfo* info : Registry().List()) PassNames().push_back(info->name);
  if (PassNames().empty()) {
    std::fprintf(stderr, "pass_pipeline_fuzzer: the plugins registered no pass\n");
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<std::string>& names = PassNames();
  size_t choice = data[0] % (names.size() + 1);
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto module = hopt::ParseHloModule(std::move(text), "<fuzz>");
  if (!module.ok() || !hopt::VerifyModule(**module).ok()) return 0;
  if (choice < names.size()) {
    if (!RunOnePass(**module, names[choice])) return 0;
  } else {
    for (const std::string& name : names)
      if (!RunOnePass(**module, name)) return 0;
  }
  hopt::fuzz::CheckTextRoundTrip(**module, "after the passes");
  return 0;
}

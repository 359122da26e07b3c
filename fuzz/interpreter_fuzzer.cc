// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: modules the verifier accepts, written from the input
// by a grammar (fuzz/module_generator.h), not by mutating text. Each runs
// on the interpreter on its mesh, and through the neuron pipeline with its
// result compared against the module on the same inputs. The only allowed
// outcomes are results or error statuses: a crash, a hang, a sanitizer
// report, or a pass that changes what a module computes is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/mesh_compare.h"
#include "core/pass_manager/tooling/pipeline.h"
#include "core/pass_manager/tooling/plugin_loader.h"
#include "fuzz/fuzz_checks.h"
#include "fuzz/module_generator.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/pass_manager/registrar.h"
#include "llvm/Support/raw_ostream.h"

namespace {

hopt::Extensions& Loaded() {
  static hopt::Extensions* extensions = new hopt::Extensions();
  return *extensions;
}

// Small budgets: a generated module is small, and a run must end fast.
hopt::eval::EvalOptions Options(int64_t replicas) {
  hopt::eval::EvalOptions options;
  options.replicas = replicas;
  options.partitions = 1;
  options.max_bytes_per_device = int64_t{16} << 20;
  options.max_while_iterations = 1000;
  options.rendezvous_timeout_ms = 5000;
  options.custom_calls = &Loaded().custom_calls;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* family : {"markers", "collectives", "decompose", "partition"}) {
    std::string path = absl::StrCat(HOPT_FUZZ_PLUGIN_DIR, "/libneuron_", family, ".so");
    auto loaded = hopt::LoadPlugin(path, Loaded());
    if (!loaded.ok()) {
      std::fprintf(stderr, "interpreter_fuzzer: %s\n",
                   std::string(loaded.status().message()).c_str());
      std::exit(1);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hopt::fuzz::GeneratedModule generated = hopt::fuzz::GenerateModule(data, size);
  auto module = hopt::ParseHloModule(generated.text, "<generated>");
  if (!module.ok() || !hopt::VerifyModule(**module).ok()) return 0;
  hopt::eval::EvalOptions options = Options(generated.replicas);
  auto results = hopt::eval::RunModule(
      **module, hopt::eval::RandomArguments(**module, generated.replicas, 1), options);
  if (results.ok())
    for (const hopt::Literal& result : *results) (void)result.ToText();  // printing too

  // The neuron pipeline must keep what the module computes.
  std::unique_ptr<hopt::HloModule> after = (*module)->Clone();
  auto passes = hopt::ParsePipeline("neuron", Loaded().passes);
  if (!passes.ok()) hopt::fuzz::Fail("cannot build the neuron pipeline", passes.status().message());
  hopt::Instrumentation instrumentation;
  instrumentation.verify_each = true;
  instrumentation.out = &llvm::nulls();
  if (!hopt::RunPipeline(*after, *passes, instrumentation).ok()) return 0;
  hopt::eval::MeshComparison compared = hopt::eval::CompareOnMesh(**module, *after, 1, 1, options);
  if (compared.outcome == hopt::eval::MeshComparison::Outcome::kDiffer)
    hopt::fuzz::Fail("the neuron pipeline changed what the module computes", compared.message,
                     generated.text);
  return 0;
}

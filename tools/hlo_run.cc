// hlo-run: runs an HLO module on a simulated mesh and prints every device's
// outputs as XLA literals.
//
//   hlo-run model.hlo [-replicas=R] [-partitions=P] [-seed=S | -args=FILE]
//
// -args FILE: one line per entry parameter, `<shape> <literal>` (e.g.
// `f32[4] {1, 2, 3, 4}`), the same for every device; a line starting with
// `device D:` sets the parameters of device D alone (all of them, in order).

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/eval/evaluator.h"
#include "core/ir/parser.h"
#include "core/ir/verifier.h"
#include "core/support/startup_pages.h"
#include "llvm/Support/CommandLine.h"

namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("hlo-run options");
cl::opt<std::string> input(cl::Positional, cl::Required, cl::desc("<module .hlo>"), cl::cat(category));
cl::opt<int64_t> replicas("replicas", cl::desc("Replicas (default: the module's replica_count)"),
                          cl::init(0), cl::cat(category));
cl::opt<int64_t> partitions("partitions",
                            cl::desc("Partitions (default: the module's num_partitions)"),
                            cl::init(0), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random arguments"), cl::init(1),
                       cl::cat(category));
cl::opt<std::string> args_file("args", cl::desc("Arguments file (see the header of hlo_run.cc)"),
                               cl::value_desc("file"), cl::cat(category));

int Fail(const std::string& message) {
  std::fprintf(stderr, "hlo-run: error: %s\n", message.c_str());
  return 1;
}

// "<shape> <literal>" -> a literal.
absl::StatusOr<hopt::Literal> ParseArgument(absl::string_view line) {
  // The shape ends at the first space outside brackets.
  int depth = 0;
  size_t split = absl::string_view::npos;
  for (size_t k = 0; k < line.size(); ++k) {
    char c = line[k];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ' ' && depth == 0) {
      split = k;
      break;
    }
  }
  if (split == absl::string_view::npos)
    return absl::InvalidArgumentError(absl::StrCat("expected '<shape> <literal>', got '", line, "'"));
  auto shape = hopt::ParseShape(line.substr(0, split));
  if (!shape.ok()) return shape.status();
  return hopt::Literal::Parse(*shape, absl::StripAsciiWhitespace(line.substr(split + 1)));
}

}  // namespace

int main(int argc, char** argv) {
  hopt::ReleaseLibraryCodePages("libLLVM");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "hlo-run: runs an HLO module on a simulated mesh\n");
  auto module = hopt::ParseHloModuleFromFile(input, input);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
    return 1;
  }
  absl::Status valid = hopt::VerifyModule(**module);
  if (!valid.ok()) {
    std::fprintf(stderr, "%s: %s\n", input.c_str(), std::string(valid.message()).c_str());
    return 1;
  }
  hopt::eval::EvalOptions options;
  options.replicas = replicas;
  options.partitions = partitions;
  int64_t r = replicas > 0 ? replicas : (*module)->replica_count();
  int64_t p = partitions > 0 ? partitions : (*module)->num_partitions();
  int64_t devices = r * p;
  std::vector<std::vector<hopt::Literal>> arguments;
  if (args_file.empty()) {
    arguments = hopt::eval::RandomArguments(**module, devices, seed);
  } else {
    std::ifstream in(args_file);
    if (!in) return Fail("cannot open '" + args_file + "'");
    std::vector<hopt::Literal> common;
    std::map<int64_t, std::vector<hopt::Literal>> per_device;
    std::string line;
    int line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      absl::string_view text = absl::StripAsciiWhitespace(line);
      if (text.empty() || absl::StartsWith(text, "//")) continue;
      int64_t device = -1;
      if (absl::ConsumePrefix(&text, "device ")) {
        size_t colon = text.find(':');
        if (colon == absl::string_view::npos || !absl::SimpleAtoi(text.substr(0, colon), &device))
          return Fail(absl::StrCat(args_file, ":", line_number, ": expected 'device N: ...'"));
        text = absl::StripAsciiWhitespace(text.substr(colon + 1));
      }
      auto value = ParseArgument(text);
      if (!value.ok())
        return Fail(absl::StrCat(args_file, ":", line_number, ": ", value.status().message()));
      if (device >= 0) per_device[device].push_back(*std::move(value));
      else common.push_back(*std::move(value));
    }
    for (int64_t d = 0; d < devices; ++d)
      arguments.push_back(per_device.count(d) ? per_device[d] : common);
  }
  auto results = hopt::eval::RunModule(**module, arguments, options);
  if (!results.ok()) return Fail(std::string(results.status().message()));
  for (int64_t d = 0; d < devices; ++d) {
    const hopt::Literal& out = (*results)[d];
    std::printf("device %lld (replica %lld, partition %lld): %s %s\n", static_cast<long long>(d),
                static_cast<long long>(d / p), static_cast<long long>(d % p),
                out.shape().ToString().c_str(), out.ToText().c_str());
  }
  return 0;
}

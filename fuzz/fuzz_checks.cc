// SPDX-License-Identifier: Apache-2.0

#include "fuzz/fuzz_checks.h"

#include <cstdio>
#include <cstdlib>

#include "core/proto/tooling/io.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"

namespace hopt {
namespace fuzz {

void Fail(absl::string_view what, absl::string_view detail, absl::string_view module_text) {
  std::fprintf(stderr, "hopt fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  if (!module_text.empty())
    std::fprintf(stderr, "--- module ---\n%.*s\n", static_cast<int>(module_text.size()),
                 module_text.data());
  std::abort();
}

void CheckTextRoundTrip(const HloModule& module, absl::string_view origin) {
  std::string printed = PrintModule(module);
  auto reread = ParseHloModule(printed, "<printed>");
  if (!reread.ok())
    Fail(std::string(origin) + ": the printed module does not parse", reread.status().message(),
         printed);
  absl::Status verified = VerifyModule(**reread);
  if (!verified.ok())
    Fail(std::string(origin) + ": the printed module does not verify", verified.message(), printed);
  std::string again = PrintModule(**reread);
  if (again != printed)
    Fail(std::string(origin) + ": printing the re-read module gives other text", again, printed);
}

void CheckProtoRoundTrip(const HloModule& module, absl::string_view origin) {
  auto bytes = ModuleToProtoBinary(module);
  if (!bytes.ok())
    Fail(std::string(origin) + ": the module does not convert to a proto", bytes.status().message(),
         PrintModule(module));
  auto reread = ModuleFromProtoBinary(*bytes, "<proto>");
  if (!reread.ok())
    Fail(std::string(origin) + ": the written proto does not read back", reread.status().message(),
         PrintModule(module));
  absl::Status verified = VerifyModule(**reread);
  if (!verified.ok())
    Fail(std::string(origin) + ": the re-read proto does not verify", verified.message(),
         PrintModule(module));
  std::string before = PrintModule(module);
  std::string after = PrintModule(**reread);
  if (after != before)
    Fail(std::string(origin) + ": the proto round trip changed the module", after, before);
}

}  // namespace fuzz
}  // namespace hopt

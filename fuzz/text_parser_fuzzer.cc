// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the HLO text parser.
//
// Any byte string must give either a module or an error status, never a
// crash, hang or sanitizer report. A module that parses and verifies must
// survive print -> parse -> print unchanged.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_checks.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto module = hopt::ParseHloModule(std::move(text), "<fuzz>");
  if (!module.ok()) return 0;
  if (!hopt::VerifyModule(**module).ok()) return 0;
  hopt::fuzz::CheckTextRoundTrip(**module, "text input");
  return 0;
}

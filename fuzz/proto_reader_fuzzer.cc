// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the protobuf readers (binary HloProto / HloModuleProto /
// HloSnapshot, gzip, and the text format).
//
// The first byte chooses the reader (even: binary, odd: protobuf text), the
// rest is the file. Any input must give a module or an error status. A
// module that reads and verifies must write to a proto that reads back to
// the same module, and must print to text that reads back.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/proto/tooling/io.h"
#include "fuzz/fuzz_checks.h"
#include "hopt/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool text_format = data[0] & 1;
  absl::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  auto module = text_format ? hopt::ModuleFromProtoText(bytes, "<fuzz>")
                            : hopt::ModuleFromProtoBinary(bytes, "<fuzz>");
  if (!module.ok()) return 0;
  if (!hopt::VerifyModule(**module).ok()) return 0;
  hopt::fuzz::CheckProtoRoundTrip(**module, "proto input");
  hopt::fuzz::CheckTextRoundTrip(**module, "proto input");
  return 0;
}

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_FUZZ_FUZZ_CHECKS_H_
#define HOPT_FUZZ_FUZZ_CHECKS_H_

// What every fuzz target asserts about a module it managed to read. A
// violated property is a bug in hopt, not in the input, so it aborts: that
// is how libFuzzer learns about it and keeps the input as a crash file.

#include <string>

#include "absl/strings/string_view.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace fuzz {

// Prints the message (and the module text when given) and aborts.
[[noreturn]] void Fail(absl::string_view what, absl::string_view detail,
                       absl::string_view module_text = "");

// A module that was read and verified prints to text that reads back,
// verifies, and prints the same again (the printer and the parser agree).
void CheckTextRoundTrip(const HloModule& module, absl::string_view origin);

// The same through the binary protobuf form.
void CheckProtoRoundTrip(const HloModule& module, absl::string_view origin);

}  // namespace fuzz
}  // namespace hopt

#endif  // HOPT_FUZZ_FUZZ_CHECKS_H_

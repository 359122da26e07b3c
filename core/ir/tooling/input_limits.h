// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_TOOLING_INPUT_LIMITS_H_
#define HOPT_CORE_IR_TOOLING_INPUT_LIMITS_H_

// How large an input hopt's readers accept: a file (or standard input), and
// what a .pb.gz inflates to. A larger one is refused before it is read
// whole, so a stranger's file cannot exhaust memory by its size alone (a
// few kilobytes of gzip can inflate to terabytes). The tools set it from
// -max-input-size; 0 means no limit.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hopt {

// 2 GiB: the largest real HLO text dumps are under 1 GB (and a .pb of the
// same module is smaller still), so no real input is refused, while
// /dev/zero or a gzip bomb stops at twice that; a larger module needs
// -max-input-size=0 or a bigger value.
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{2} << 30;

// -max-input-size's help, the same in every tool, with the default.
const char* MaxInputSizeHelp();

uint64_t MaxInputBytes();
void SetMaxInputBytes(uint64_t bytes);

// ResourceExhausted "<lead> the input limit of N bytes (-max-input-size)",
// e.g. lead = "'big.hlo' is 5000000000 bytes, over".
absl::Status InputTooLarge(absl::string_view lead);

}  // namespace hopt

#endif  // HOPT_CORE_IR_TOOLING_INPUT_LIMITS_H_

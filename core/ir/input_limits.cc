// SPDX-License-Identifier: Apache-2.0

#include "core/ir/tooling/input_limits.h"

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"

namespace hopt {
namespace {

std::atomic<uint64_t>& Limit() {
  static std::atomic<uint64_t> limit{kDefaultMaxInputBytes};
  return limit;
}

}  // namespace

const char* MaxInputSizeHelp() {
  static const std::string* const help = new std::string(absl::StrCat(
      "Refuse an input file or standard input, or a .pb.gz's inflated bytes, larger than this "
      "many bytes (default ",
      kDefaultMaxInputBytes, ", ", kDefaultMaxInputBytes >> 30, " GiB; 0: no limit)"));
  return help->c_str();
}

uint64_t MaxInputBytes() { return Limit().load(std::memory_order_relaxed); }

void SetMaxInputBytes(uint64_t bytes) { Limit().store(bytes, std::memory_order_relaxed); }

absl::Status InputTooLarge(absl::string_view lead) {
  return absl::ResourceExhaustedError(
      absl::StrCat(lead, " the input limit of ", MaxInputBytes(), " bytes (-max-input-size)"));
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_DEBUG_H_
#define HOPT_PASS_MANAGER_DEBUG_H_

#include "absl/strings/string_view.h"
#include "llvm/Support/raw_ostream.h"

namespace hopt {

// `-debug-only=a,b`: debug output of the named passes (or other debug
// types) goes to stderr. Passes write with HOPT_DEBUG(type, stream << ...).
bool DebugEnabled(absl::string_view type);
// absl::string_view is its own type in Debian's Abseil; LLVM streams take
// StringRef.
inline llvm::StringRef AsRef(absl::string_view text) { return {text.data(), text.size()}; }
void SetDebugTypes(absl::string_view comma_separated);
llvm::raw_ostream& DebugStream();

}  // namespace hopt

#define HOPT_DEBUG(type, ...)                            \
  do {                                                   \
    if (::hopt::DebugEnabled(type)) {                    \
      ::llvm::raw_ostream& dbgs = ::hopt::DebugStream(); \
      dbgs << "[" << ::hopt::AsRef(type) << "] ";        \
      __VA_ARGS__;                                       \
    }                                                    \
  } while (false)

#endif  // HOPT_PASS_MANAGER_DEBUG_H_

// SPDX-License-Identifier: Apache-2.0

#include "hopt/pass_manager/debug.h"

#include <set>
#include <string>

#include "absl/strings/str_split.h"

namespace hopt {
namespace {

std::set<std::string, std::less<>>& DebugTypes() {
  static auto* types = new std::set<std::string, std::less<>>();
  return *types;
}

}  // namespace

bool DebugEnabled(absl::string_view type) {
  const auto& types = DebugTypes();
  return !types.empty() && types.find(type) != types.end();
}

void SetDebugTypes(absl::string_view comma_separated) {
  auto& types = DebugTypes();
  types.clear();
  for (absl::string_view type : absl::StrSplit(comma_separated, ',', absl::SkipEmpty()))
    types.emplace(type);
}

llvm::raw_ostream& DebugStream() { return llvm::errs(); }

}  // namespace hopt

#include "core/pass_manager/pass_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hopt {
namespace {

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

absl::Status PassRegistry::Register(absl::string_view name, absl::string_view description,
                                    PassFactory factory) {
  absl::Status status;
  if (name.empty()) {
    status = absl::InvalidArgumentError("a pass needs a name");
  } else if (!factory) {
    status = absl::InvalidArgumentError(absl::StrCat("pass '", name, "' has no factory"));
  } else {
    auto it = passes_.find(name);
    if (it != passes_.end() && !allow_override_) {
      status = absl::AlreadyExistsError(absl::StrCat(
          "pass '", name, "' is registered by both '", it->second.plugin, "' ",
          it->second.plugin_version, " and '", current_plugin_, "' ", current_version_,
          "; pass -override-passes to let the later plugin replace it"));
    } else {
      PassInfo info{std::string(name), std::string(description), current_plugin_,
                    current_version_, std::move(factory)};
      passes_[std::string(name)] = std::move(info);
    }
  }
  if (!status.ok() && plugin_status_.ok()) plugin_status_ = status;
  return status;
}

void PassRegistry::BeginPlugin(absl::string_view name, absl::string_view version) {
  current_plugin_ = std::string(name);
  current_version_ = std::string(version);
  plugin_status_ = absl::OkStatus();
}

absl::Status PassRegistry::EndPlugin() {
  current_plugin_ = "hopt";
  current_version_.clear();
  absl::Status status = plugin_status_;
  plugin_status_ = absl::OkStatus();
  return status;
}

const PassInfo* PassRegistry::Find(absl::string_view name) const {
  auto it = passes_.find(name);
  return it == passes_.end() ? nullptr : &it->second;
}

std::vector<const PassInfo*> PassRegistry::List() const {
  std::vector<const PassInfo*> list;
  for (const auto& [name, info] : passes_) list.push_back(&info);
  return list;
}

std::vector<std::string> PassRegistry::ClosestNames(absl::string_view name, size_t limit) const {
  std::vector<std::pair<size_t, std::string>> scored;
  size_t threshold = std::max<size_t>(2, name.size() / 3);
  for (const auto& [candidate, info] : passes_) {
    size_t d = EditDistance(name, candidate);
    bool substring = candidate.find(std::string(name)) != std::string::npos ||
                     std::string(name).find(candidate) != std::string::npos;
    if (d <= threshold || substring) scored.emplace_back(substring ? 0 : d, candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> names;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) names.push_back(scored[i].second);
  return names;
}

}  // namespace hopt

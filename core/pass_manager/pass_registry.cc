// SPDX-License-Identifier: Apache-2.0

#include "hopt/pass_manager/pass_registry.h"

#include <algorithm>
#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pass_manager/option_reads.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

// Makes one instance from the default values and fails when the factory
// read an option the pass does not declare (or as another type): with the
// string getters a misspelled name would otherwise read as 0 or "" at
// every run, silently. Typed options (TypedOption) cannot misspell.
absl::Status ProbeOptionReads(absl::string_view name, const std::vector<PassOptionSpec>& specs,
                              const OptionsPassFactory& factory) {
  absl::StatusOr<PassOptions> defaults = ResolvePassOptions(name, specs, {});
  if (!defaults.ok()) return defaults.status();
  OptionReadProbe probe;
  try {
    factory(*defaults);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("the factory of pass '", name, "' threw on the default options: ", e.what()));
  }
  if (probe.reads().empty()) return absl::OkStatus();
  const UndeclaredOptionRead& read = probe.reads().front();
  auto spec = std::find_if(specs.begin(), specs.end(),
                           [&](const PassOptionSpec& s) { return s.name == read.name; });
  if (spec != specs.end())
    return absl::InvalidArgumentError(absl::StrCat(
        "pass '", name, "' reads option '", read.name, "' as ", PassOptionTypeName(read.read_as),
        ", but declares it as ", PassOptionTypeName(spec->type)));
  return absl::InvalidArgumentError(absl::StrCat("pass '", name, "' reads option '", read.name,
                                                 "', which it does not declare",
                                                 UndeclaredOptionHint(read.name, specs)));
}

}  // namespace

absl::Status PassRegistry::Fail(absl::Status status) {
  if (!status.ok() && plugin_status_.ok()) plugin_status_ = status;
  return status;
}

absl::Status PassRegistry::Register(absl::string_view name, absl::string_view description,
                                    PassFactory factory) {
  // Such a factory never sees options: nothing to probe.
  if (!factory) return Add(name, description, {}, OptionsPassFactory(), false);
  return Add(
      name, description, {},
      [factory = std::move(factory)](const PassOptions&) { return factory(); }, false);
}

absl::Status PassRegistry::Register(absl::string_view name, absl::string_view description,
                                    std::vector<PassOptionSpec> options,
                                    OptionsPassFactory factory) {
  return Add(name, description, std::move(options), std::move(factory), true);
}

absl::Status PassRegistry::Add(absl::string_view name, absl::string_view description,
                               std::vector<PassOptionSpec> options, OptionsPassFactory factory,
                               bool probe_option_reads) {
  if (name.empty()) return Fail(absl::InvalidArgumentError("a pass needs a name"));
  if (!factory)
    return Fail(absl::InvalidArgumentError(absl::StrCat("pass '", name, "' has no factory")));
  for (size_t i = 0; i < options.size(); ++i) {
    const PassOptionSpec& spec = options[i];
    if (spec.name.empty() || spec.name.find_first_of(" \t{}=,'\"") != std::string::npos)
      return Fail(absl::InvalidArgumentError(
          absl::StrCat("pass '", name, "': option name '", spec.name, "' is not a plain word")));
    for (size_t j = 0; j < i; ++j)
      if (options[j].name == spec.name)
        return Fail(absl::InvalidArgumentError(
            absl::StrCat("pass '", name, "' declares option '", spec.name, "' twice")));
    if (absl::Status valid = CheckPassOptionValue(name, spec, spec.default_value); !valid.ok())
      return Fail(absl::InvalidArgumentError(absl::StrCat("the default of ", valid.message())));
  }
  if (probe_option_reads) {
    if (absl::Status reads = ProbeOptionReads(name, options, factory); !reads.ok())
      return Fail(reads);
  }
  PassInfo info{std::string(name),
                std::string(description),
                current_plugin_,
                current_version_,
                std::move(factory),
                std::move(options),
                "",
                "",
                {}};
  auto it = passes_.find(name);
  if (it != passes_.end()) {
    if (!allow_override_)
      return Fail(absl::AlreadyExistsError(
          absl::StrCat("pass '", name, "' is registered by both '", it->second.plugin, "' ",
                       it->second.plugin_version, " and '", current_plugin_, "' ", current_version_,
                       "; pass -override-passes to let the later plugin replace it")));
    info.overrides_plugin = it->second.plugin;
    info.overrides_version = it->second.plugin_version;
  }
  passes_[std::string(name)] = std::move(info);
  return absl::OkStatus();
}

absl::Status PassRegistry::RegisterPipeline(NamedPipeline pipeline) {
  if (pipeline.name.empty()) return Fail(absl::InvalidArgumentError("a pipeline needs a name"));
  pipeline.plugin = current_plugin_;
  pipeline.plugin_version = current_version_;
  auto it = pipelines_.find(pipeline.name);
  if (it != pipelines_.end() && !allow_override_)
    return Fail(absl::AlreadyExistsError(absl::StrCat(
        "pipeline '", pipeline.name, "' is registered by both '", it->second.plugin, "' ",
        it->second.plugin_version, " and '", current_plugin_, "' ", current_version_,
        "; pass -override-passes to let the later plugin replace it")));
  std::string name = pipeline.name;
  pipelines_[name] = std::move(pipeline);
  return absl::OkStatus();
}

absl::Status PassRegistry::RegisterFlagAlias(absl::string_view flag, absl::string_view pass,
                                             absl::string_view option) {
  if (flag.empty() || flag.front() == '-')
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("flag alias '", flag, "': give the flag's name without dashes")));
  for (const FlagAlias& alias : aliases_)
    if (alias.flag == flag && alias.pass == pass && alias.option == option)
      return absl::OkStatus();  // the same declaration again
  aliases_.push_back({std::string(flag), std::string(pass), std::string(option), current_plugin_});
  return absl::OkStatus();
}

absl::Status PassRegistry::SetFlagDefault(absl::string_view pass, absl::string_view option,
                                          absl::string_view value) {
  auto it = passes_.find(pass);
  if (it == passes_.end()) return absl::OkStatus();
  for (const PassOptionSpec& spec : it->second.options) {
    if (spec.name != option) continue;
    HOPT_RETURN_IF_ERROR(CheckPassOptionValue(pass, spec, value));
    it->second.flag_defaults[std::string(option)] = std::string(value);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("pass '", pass, "' (", it->second.plugin, " ",
                                                 it->second.plugin_version, ") has no option '",
                                                 option, "'"));
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

const NamedPipeline* PassRegistry::FindPipeline(absl::string_view name) const {
  auto it = pipelines_.find(name);
  return it == pipelines_.end() ? nullptr : &it->second;
}

std::vector<const NamedPipeline*> PassRegistry::Pipelines() const {
  std::vector<const NamedPipeline*> list;
  for (const auto& [name, pipeline] : pipelines_) list.push_back(&pipeline);
  return list;
}

std::vector<const PassInfo*> PassRegistry::List() const {
  std::vector<const PassInfo*> list;
  for (const auto& [name, info] : passes_) list.push_back(&info);
  return list;
}

std::string PassRegistry::SuggestionFor(absl::string_view name) const {
  std::vector<std::string> quoted;
  for (const std::string& close : ClosestNames(name))
    quoted.push_back(absl::StrCat("'", close, "'"));
  if (quoted.empty()) return "; see -list-passes";
  return absl::StrCat("; did you mean ", absl::StrJoin(quoted, " or "), "?");
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

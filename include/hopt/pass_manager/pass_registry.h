// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_PASS_REGISTRY_H_
#define HOPT_PASS_MANAGER_PASS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/pass_options.h"

namespace hopt {

using PassFactory = std::function<std::unique_ptr<Pass>()>;
// Makes a pass instance from its option values (every declared option is
// present, given or defaulted).
using OptionsPassFactory = std::function<std::unique_ptr<Pass>(const PassOptions&)>;

struct PassInfo {
  std::string name;
  std::string description;  // one line, for -list-passes
  std::string plugin;       // providing plugin ("hopt" for built-ins)
  std::string plugin_version;
  OptionsPassFactory factory;
  std::vector<PassOptionSpec> options;
  // Under -override-passes: the provider this registration replaced.
  std::string overrides_plugin;
  std::string overrides_version;
  // Values of deprecated flags (option name -> value): the default of
  // that option for every instance; pipeline text wins.
  std::map<std::string, std::string, std::less<>> flag_defaults;
};

// A pipeline name -passes accepts as one element, provided by a plugin.
struct NamedPipeline {
  std::string name;
  std::string text;  // ordinary pipeline text (options allowed)
  std::string description;
  std::vector<std::string> plugins;  // the plugin files its passes come from
  std::string plugin;                // the providing plugin
  std::string plugin_version;
};

// A deprecated command-line flag that stands for a pass option:
// `-flag=V` makes V the option's default. hopt creates the flag itself.
struct FlagAlias {
  std::string flag;  // without the dash
  std::string pass;
  std::string option;
  std::string plugin;
};

// Pass name -> how to make it and who provides it, plus the named
// pipelines and deprecated flags plugins declare. Plugins register into it
// through their PluginRegistrar (include/hopt/pass_manager/registrar.h); the loader
// tells the registry which plugin is registering.
class PassRegistry {
 public:
  // Registers a pass of the plugin currently loading. A name that is taken
  // fails, naming both providers, unless overriding is allowed: then the
  // later registration wins. A pass with options is made once from their
  // defaults: a factory that reads an option it does not declare (a
  // misspelled PassOptions::GetInt name, say) fails here, naming it.
  absl::Status Register(absl::string_view name, absl::string_view description, PassFactory factory);
  absl::Status Register(absl::string_view name, absl::string_view description,
                        std::vector<PassOptionSpec> options, OptionsPassFactory factory);
  // Convenience for a pass class with a default constructor.
  template <typename P>
  absl::Status Register(absl::string_view description) {
    P probe;
    std::string name(probe.name());
    return Register(name, description, PassFactory([] { return std::make_unique<P>(); }));
  }

  void set_allow_override(bool allow) { allow_override_ = allow; }
  // The loader brackets a plugin's registration callback with these.
  void BeginPlugin(absl::string_view name, absl::string_view version);
  // Returns the first registration error the plugin hit, if any.
  absl::Status EndPlugin();

  // A named pipeline; a second pipeline of a taken name fails like a pass.
  absl::Status RegisterPipeline(NamedPipeline pipeline);
  // A deprecated flag for `pass`'s `option`. The same flag for the same
  // pass and option from two plugins is one flag (a drop-in replacement
  // declares what the reference declares).
  absl::Status RegisterFlagAlias(absl::string_view flag, absl::string_view pass,
                                 absl::string_view option);
  // Makes `value` the default of `pass`'s `option` (checked against its
  // type). No-op when no such pass is registered.
  absl::Status SetFlagDefault(absl::string_view pass, absl::string_view option,
                              absl::string_view value);

  const PassInfo* Find(absl::string_view name) const;
  const NamedPipeline* FindPipeline(absl::string_view name) const;
  // Sorted by name.
  std::vector<const NamedPipeline*> Pipelines() const;
  const std::vector<FlagAlias>& FlagAliases() const { return aliases_; }
  // All passes, sorted by name.
  std::vector<const PassInfo*> List() const;
  // Registered names within a small edit distance of `name`, closest first.
  std::vector<std::string> ClosestNames(absl::string_view name, size_t limit = 3) const;
  // What to tell a user who named `name`, which is not registered:
  // "; did you mean 'a' or 'b'?", or "; see -list-passes" when nothing is
  // close.
  std::string SuggestionFor(absl::string_view name) const;

 private:
  absl::Status Add(absl::string_view name, absl::string_view description,
                   std::vector<PassOptionSpec> options, OptionsPassFactory factory,
                   bool probe_option_reads);
  absl::Status Fail(absl::Status status);

  std::map<std::string, PassInfo, std::less<>> passes_;
  std::map<std::string, NamedPipeline, std::less<>> pipelines_;
  std::vector<FlagAlias> aliases_;
  bool allow_override_ = false;
  std::string current_plugin_ = "hopt";
  std::string current_version_;
  absl::Status plugin_status_;
};

}  // namespace hopt

#endif  // HOPT_PASS_MANAGER_PASS_REGISTRY_H_

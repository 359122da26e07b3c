// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PASS_MANAGER_REGISTRAR_H_
#define HOPT_PASS_MANAGER_REGISTRAR_H_

// The one way a plugin adds things to hopt (plugin API version 2,
// docs/writing-a-plugin.md). The plugin's registration callback receives a
// PluginRegistrar and adds through it:
//   - passes, with their typed options (include/hopt/pass_manager/pass_options.h);
//   - named pipelines (-passes=NAME), with the plugins they need;
//   - interpreter semantics of the custom-calls it creates, by target name
//     or by a matcher of the call (for targets a pass option names), or
//     as the operands they forward;
//   - -emit-dot highlight classes of its custom-calls;
//   - deprecated command-line flags that stand for a pass option.
// Everything lands in the tool's Extensions: nothing is process-wide, and
// nothing may be registered later (a pass's Run has no registrar).
//
// The Add* methods return nothing: the registry keeps the first error of
// the plugin (a taken name, a malformed option...) and the loader reports
// it, naming the plugin, once the callback returns. A plugin just calls
// them one after the other.

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/pass_manager/pass.h"
#include "hopt/pass_manager/pass_options.h"
#include "hopt/pass_manager/pass_registry.h"
#include "hopt/pass_manager/plugin_api.h"
#include "hopt/support/graph_dot.h"

namespace hopt {

// Everything the loaded plugins registered; the tool creates one and owns
// it for the life of the process.
struct Extensions {
  PassRegistry passes;  // passes, named pipelines, deprecated flags
  eval::CustomCallTable custom_calls;
  DotHighlightTable dot_highlights;
};

class PluginRegistrar {
 public:
  // `extensions.passes` must be inside BeginPlugin (the loader does it).
  explicit PluginRegistrar(Extensions& extensions) : extensions_(extensions) {}

  // --- Passes. A name taken by another plugin fails (naming both) unless
  // the tool runs with -override-passes.
  void AddPass(absl::string_view name, absl::string_view description,
               std::vector<PassOptionSpec> options, OptionsPassFactory factory) {
    Keep(extensions_.passes.Register(name, description, std::move(options), std::move(factory)));
  }
  void AddPass(absl::string_view name, absl::string_view description, PassFactory factory) {
    Keep(extensions_.passes.Register(name, description, std::move(factory)));
  }
  // A pass with typed options (pass_options.h, TypedOption): `factory`
  // takes a `const Options&` and returns the pass.
  template <typename Options, typename Factory>
  void AddPass(absl::string_view name, absl::string_view description,
               std::initializer_list<TypedOption<Options>> options, Factory factory) {
    std::vector<PassOptionSpec> specs;
    std::vector<std::function<void(const PassOptions&, Options&)>> readers;
    for (const TypedOption<Options>& option : options) {
      specs.push_back(option.spec);
      readers.push_back(option.read);
    }
    AddPass(name, description, std::move(specs),
            [readers = std::move(readers),
             factory = std::move(factory)](const PassOptions& values) -> std::unique_ptr<Pass> {
              Options typed{};
              for (const auto& read : readers) read(values, typed);
              return factory(static_cast<const Options&>(typed));
            });
  }
  // A pass class with a default constructor and no options.
  template <typename P>
  void AddPass(absl::string_view description) {
    Keep(extensions_.passes.Register<P>(description));
  }

  // --- Named pipelines: `-passes=NAME` stands for `text` (which may carry
  // options). `plugins` are the plugin files its passes come from, named
  // in the error when one of them is not loaded.
  void AddPipeline(absl::string_view name, absl::string_view text, absl::string_view description,
                   std::vector<std::string> plugins) {
    Keep(extensions_.passes.RegisterPipeline({std::string(name), std::string(text),
                                              std::string(description), std::move(plugins), "",
                                              ""}));
  }

  // --- Interpreter semantics of custom-calls (-verify-equivalence,
  // -compare-with, hlo-run). A later registration of a target replaces an
  // earlier one.
  void AddCustomCallSemantics(absl::string_view target, eval::CustomCallSemantics semantics) {
    extensions_.custom_calls.Register(target, std::move(semantics));
  }
  // A target that only moves data: its semantics are the forwarding (see
  // eval::CustomCallForwarding), which a region check can also read.
  void AddForwardingCustomCall(absl::string_view target, eval::CustomCallForwarding forwarding) {
    extensions_.custom_calls.RegisterForwarding(target, std::move(forwarding));
  }
  void AddCollectiveCustomCall(absl::string_view target,
                               eval::CollectiveCustomCallDescriber describe) {
    extensions_.custom_calls.RegisterCollective(target, std::move(describe));
  }
  // For calls whose target is not known at registration (a pass option
  // names it): `matches` recognises the call by its form.
  void AddCollectiveCustomCallMatcher(eval::CustomCallMatcher matches,
                                      eval::CollectiveCustomCallDescriber describe) {
    extensions_.custom_calls.RegisterCollectiveMatcher(std::move(matches), std::move(describe));
  }
  void AddCustomCallMatcher(eval::CustomCallMatcher matches, eval::CustomCallSemantics semantics) {
    extensions_.custom_calls.RegisterMatcher(std::move(matches), std::move(semantics));
  }

  // --- How -emit-dot draws a custom-call target (or every target with
  // `prefix`): kCollective or kMarker.
  void AddDotHighlight(absl::string_view target, DotHighlight highlight) {
    extensions_.dot_highlights.AddTarget(target, highlight);
  }
  void AddDotHighlightPrefix(absl::string_view prefix, DotHighlight highlight) {
    extensions_.dot_highlights.AddPrefix(prefix, highlight);
  }

  // --- A deprecated flag (`-flag=V`, name without dashes) that sets the
  // default of `pass`'s `option` for one release. hopt defines the flag
  // after loading the plugins and warns when it is used; the pipeline
  // text wins over it.
  void AddFlagAlias(absl::string_view flag, absl::string_view pass, absl::string_view option) {
    Keep(extensions_.passes.RegisterFlagAlias(flag, pass, option));
  }

 private:
  // The registry has kept the error already (PassRegistry::EndPlugin).
  static void Keep(const absl::Status&) {}

  Extensions& extensions_;
};

// Checks a plugin's description (plugin API version, build tag, name,
// version, callback) and runs its registration into `extensions`, as hopt
// does for a plugin it loads; every error names `source` (the plugin's
// file, or whatever a test calls it). The test kit and hopt's loader share
// it, so a plugin registers the same way in both.
absl::Status RegisterPluginInfo(const HoptPluginInfo& info, absl::string_view source,
                                Extensions& extensions);

}  // namespace hopt

#endif  // HOPT_PASS_MANAGER_REGISTRAR_H_

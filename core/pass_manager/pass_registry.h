#ifndef HOPT_CORE_PASS_MANAGER_PASS_REGISTRY_H_
#define HOPT_CORE_PASS_MANAGER_PASS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/pass.h"

namespace hopt {

using PassFactory = std::function<std::unique_ptr<Pass>()>;

struct PassInfo {
  std::string name;
  std::string description;  // one line, for -list-passes
  std::string plugin;       // providing plugin ("hopt" for built-ins)
  std::string plugin_version;
  PassFactory factory;
};

// Pass name -> how to make it and who provides it. Plugins register into it
// from their registration callback; the loader tells the registry which
// plugin is registering.
class PassRegistry {
 public:
  // Registers a pass of the plugin currently loading. A name that is taken
  // fails, naming both providers, unless overriding is allowed: then the
  // later registration wins.
  absl::Status Register(absl::string_view name, absl::string_view description,
                        PassFactory factory);
  // Convenience for a pass class with a default constructor.
  template <typename P>
  absl::Status Register(absl::string_view description) {
    P probe;
    std::string name(probe.name());
    return Register(name, description, [] { return std::make_unique<P>(); });
  }

  void set_allow_override(bool allow) { allow_override_ = allow; }
  // The loader brackets a plugin's registration callback with these.
  void BeginPlugin(absl::string_view name, absl::string_view version);
  // Returns the first registration error the plugin hit, if any.
  absl::Status EndPlugin();

  const PassInfo* Find(absl::string_view name) const;
  // All passes, sorted by name.
  std::vector<const PassInfo*> List() const;
  // Registered names within a small edit distance of `name`, closest first.
  std::vector<std::string> ClosestNames(absl::string_view name, size_t limit = 3) const;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
  bool allow_override_ = false;
  std::string current_plugin_ = "hopt";
  std::string current_version_;
  absl::Status plugin_status_;
};

}  // namespace hopt

// For a plugin's registration callback, which returns nothing: stops at the
// first registration that fails. The registry keeps that error and the
// loader reports it, naming the plugin.
#define HOPT_REGISTER_OR_STOP(expr)       \
  do {                                    \
    ::absl::Status hopt_status_ = (expr); \
    if (!hopt_status_.ok()) return;       \
  } while (false)

#endif  // HOPT_CORE_PASS_MANAGER_PASS_REGISTRY_H_

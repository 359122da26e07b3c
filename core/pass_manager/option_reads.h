// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PASS_MANAGER_OPTION_READS_H_
#define HOPT_CORE_PASS_MANAGER_OPTION_READS_H_

// Core-private: how registration catches a pass factory that reads an
// option by a name it did not declare (`GetInt("min-elments")` beside a
// declared "min-elements"), which the string getters of PassOptions would
// otherwise answer with 0. PassRegistry::Register runs the factory once on
// the default values inside an OptionReadProbe; the getters report each
// read of a name the values do not hold, or hold as another type.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "hopt/pass_manager/pass_options.h"

namespace hopt {

struct UndeclaredOptionRead {
  std::string name;
  PassOptionType read_as;  // kString also for GetString
};

// Collects the current thread's undeclared reads while it lives.
class OptionReadProbe {
 public:
  OptionReadProbe();
  ~OptionReadProbe();
  OptionReadProbe(const OptionReadProbe&) = delete;
  OptionReadProbe& operator=(const OptionReadProbe&) = delete;

  const std::vector<UndeclaredOptionRead>& reads() const { return reads_; }
  void Add(UndeclaredOptionRead read) { reads_.push_back(std::move(read)); }

 private:
  std::vector<UndeclaredOptionRead> reads_;
  OptionReadProbe* outer_;
};

// For the getters: records a read when a probe is active.
void NoteUndeclaredOptionRead(absl::string_view name, PassOptionType read_as);

// "; did you mean 'x'? (options: a, b)", " (options: a, b)", or
// " (the pass has no options)": what to add to a message about `name`,
// which `specs` does not declare.
std::string UndeclaredOptionHint(absl::string_view name, const std::vector<PassOptionSpec>& specs);

}  // namespace hopt

#endif  // HOPT_CORE_PASS_MANAGER_OPTION_READS_H_

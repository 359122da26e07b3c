// SPDX-License-Identifier: Apache-2.0

#include "tools/hopt_driver/hopt_options.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hopt/pass_manager/pass_options.h"
#include "hopt/pass_manager/registrar.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Pass.h"

namespace hopt {
namespace tools {

cl::OptionCategory& HoptCategory() {
  static cl::OptionCategory category("hopt options");
  return category;
}

namespace {

void AdoptLlvmOption(const char* name, const char* description) {
  auto& registered = cl::getRegisteredOptions();
  auto it = registered.find(name);
  if (it == registered.end()) return;
  it->second->setDescription(description);
  it->second->addCategory(HoptCategory());
  it->second->setHiddenFlag(cl::NotHidden);
}

}  // namespace

void AdoptLlvmOptions() {
  AdoptLlvmOption("time-passes", "Report the wall time of each pass");
  AdoptLlvmOption("print-before", "Print the module before these passes (comma-separated)");
  AdoptLlvmOption("print-after", "Print the module after these passes (comma-separated)");
  AdoptLlvmOption("print-after-all", "Print the module after every pass");
  AdoptLlvmOption("print-before-all", "Print the module before every pass");
  AdoptLlvmOption("print-changed",
                  "Print the module after each pass that changed it (the =mode values are "
                  "LLVM's; hopt prints the whole module for each of them)");
}

bool LlvmOptionGiven(const char* name) {
  auto& registered = cl::getRegisteredOptions();
  auto it = registered.find(name);
  return it != registered.end() && it->second->getNumOccurrences() > 0;
}

std::string FormatPassList(const PassRegistry& registry) {
  std::string text;
  size_t width = 0;
  for (const PassInfo* info : registry.List()) width = std::max(width, info->name.size());
  for (const PassInfo* info : registry.List()) {
    std::string provider = absl::StrCat(info->plugin, " ", info->plugin_version);
    if (!info->overrides_plugin.empty())
      absl::StrAppend(&provider, ", overrides ", info->overrides_plugin, " ",
                      info->overrides_version);
    absl::StrAppend(&text, "  ", info->name, std::string(width - info->name.size(), ' '), "  (",
                    provider, ")  ", info->description, "\n");
    for (const PassOptionSpec& option : info->options)
      absl::StrAppend(&text, "      ", option.name, "=<", PassOptionTypeName(option.type),
                      ">  (default: ", option.default_value.empty() ? "''" : option.default_value,
                      ")  ", option.description, "\n");
  }
  return text;
}

std::string FormatPipelineList(const PassRegistry& registry) {
  std::string text;
  for (const NamedPipeline* p : registry.Pipelines())
    absl::StrAppend(&text, "  ", p->name, "  (", p->plugin, " ", p->plugin_version, ")  ",
                    p->description, " (plugins: ", absl::StrJoin(p->plugins, ","),
                    ")\n    = ", p->text, "\n");
  return text;
}

HoptConfig ConfigFromOptions(const HoptOptions& options) {
  HoptConfig config;
  config.passes = options.passes;
  config.list_passes = options.list_passes;
  config.list_pipelines = options.list_pipelines;
  config.split_input_file = options.split_input_file;
  config.verify = options.verify;
  config.verify_each = options.verify_each;
  config.debug_only = options.debug_only;
  config.print_operand_shapes = options.print_operand_shapes;
  config.print_style = options.print_style;
  config.input_format = options.input_format;
  config.output_format = options.output_format;
  config.warn_dropped_fields = options.warn_dropped_fields;
  config.max_input_size = options.max_input_size;
  config.time_read = options.time_read;
  config.time_passes = llvm::TimePassesIsEnabled;
  config.print_before = llvm::printBeforePasses();
  config.print_after = llvm::printAfterPasses();
  config.print_before_all = llvm::shouldPrintBeforeAll();
  config.print_after_all = llvm::shouldPrintAfterAll();
  config.print_changed =
      LlvmOptionGiven("print-changed") && llvm::PrintChanged != llvm::ChangePrinter::None;
  config.callgrind_per_pass = options.callgrind_per_pass;
  if (options.verify_equivalence.getNumOccurrences() > 0)
    config.verify_equivalence = options.verify_equivalence.getValue();
  config.verify_equivalence_with = options.verify_equivalence_with;
  config.prove_equivalence = options.prove_equivalence;
  config.prove_equivalence_with = options.prove_equivalence_with;
  config.prove_timeout = options.prove_timeout;
  config.prove_memory = options.prove_memory;
  config.counterexample_file = options.counterexample_file;
  config.equivalence_seed = options.equivalence_seed;
  if (options.replicas.getNumOccurrences() > 0) config.replicas = options.replicas;
  if (options.partitions.getNumOccurrences() > 0) config.partitions = options.partitions;
  config.opaque_custom_calls = options.opaque_custom_calls;
  config.compare_with = options.compare_with;
  config.compare_keep = options.compare_keep;
  config.compare_sets = options.compare_sets;
  config.compare_strict = options.compare_strict;
  config.compare_child_dir = options.compare_child_dir;
  config.emit_dot = options.emit_dot;
  config.emit_dot_computation = options.emit_dot_computation;
  config.emit_dot_max_nodes = options.emit_dot_max_nodes;
  config.emit_dot_svg = options.emit_dot_svg;
  return config;
}

absl::StatusOr<std::vector<AliasFlag>> DefineAliasFlags(const PassRegistry& registry) {
  std::vector<AliasFlag> flags;
  for (const FlagAlias& alias : registry.FlagAliases()) {
    auto it = std::find_if(flags.begin(), flags.end(),
                           [&](const AliasFlag& f) { return f.name == alias.flag; });
    if (it == flags.end()) it = flags.insert(flags.end(), AliasFlag{alias.flag, {}, nullptr});
    it->targets.push_back(&alias);
  }
  auto& registered = cl::getRegisteredOptions();
  for (AliasFlag& flag : flags) {
    if (registered.find(flag.name) != registered.end())
      return absl::InvalidArgumentError(absl::StrCat("plugin '", flag.targets[0]->plugin,
                                                     "' declares the deprecated flag '-", flag.name,
                                                     "', which hopt already defines"));
    bool all_bool = true;
    std::vector<std::string> spellings;
    for (const FlagAlias* alias : flag.targets) {
      const PassInfo* info = registry.Find(alias->pass);
      const PassOptionSpec* spec = nullptr;
      if (info != nullptr)
        for (const PassOptionSpec& s : info->options)
          if (s.name == alias->option) spec = &s;
      // A replacement (-override-passes) may lack the option: the flag
      // still parses, and fails only when given (ApplyAliasFlags).
      all_bool &= spec != nullptr && spec->type == PassOptionType::kBool;
      spellings.push_back(absl::StrCat(alias->pass, "{", alias->option, "=...}"));
    }
    // Live until exit, like every cl::opt (which keeps only references),
    // held by a process-wide list so that they stay reachable.
    static auto* held = new std::vector<std::unique_ptr<std::string>>();
    auto* name = held->emplace_back(std::make_unique<std::string>(flag.name)).get();
    auto* description =
        held->emplace_back(std::make_unique<std::string>(absl::StrCat(
                               "Deprecated: use -passes='", absl::StrJoin(spellings, ","), "'")))
            .get();
    static auto* options = new std::vector<std::unique_ptr<cl::opt<std::string>>>();
    flag.option =
        options
            ->emplace_back(std::make_unique<cl::opt<std::string>>(
                llvm::StringRef(*name), cl::desc(llvm::StringRef(*description)),
                all_bool ? cl::ValueOptional : cl::ValueRequired, cl::cat(HoptCategory())))
            .get();
  }
  return flags;
}

absl::Status ApplyAliasFlags(const std::vector<AliasFlag>& flags, PassRegistry& registry) {
  for (const AliasFlag& flag : flags) {
    if (flag.option->getNumOccurrences() == 0) continue;
    std::vector<std::string> spellings;
    for (const FlagAlias* alias : flag.targets) {
      std::string value = flag.option->getValue();
      const PassInfo* info = registry.Find(alias->pass);
      if (info == nullptr) continue;
      for (const PassOptionSpec& spec : info->options)
        if (spec.name == alias->option && spec.type == PassOptionType::kBool && value.empty())
          value = "true";
      if (absl::Status set = registry.SetFlagDefault(alias->pass, alias->option, value); !set.ok())
        return absl::InvalidArgumentError(absl::StrCat("-", flag.name, ": ", set.message()));
      bool plain = !value.empty() && value.find_first_of(" \t,{}'\"") == std::string::npos;
      spellings.push_back(absl::StrCat(alias->pass, "{", alias->option, "=",
                                       plain ? value : absl::StrCat("'", value, "'"), "}"));
    }
    std::fprintf(stderr, "hopt: warning: -%s is deprecated; use -passes='%s'\n", flag.name.c_str(),
                 absl::StrJoin(spellings, ",").c_str());
  }
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace hopt

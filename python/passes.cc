// SPDX-License-Identifier: Apache-2.0
// Plugins, pipelines, equivalence and drawings from Python: each goes
// through hopt's driver in process (RunHopt, tools/hopt_driver/hopt_main.h)
// or the plugin front end hopt uses (tools/common/tool_plugins.h), so that
// Python gets the command line's behaviour and messages.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/pass_manager/tooling/plugin_loader.h"
#include "hopt/pass_manager/pass_registry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "python/bindings.h"
#include "tools/common/tool_plugins.h"
#include "tools/hopt_driver/hopt_main.h"

namespace hopt {
namespace python {

Extensions& LoadedExtensions() {
  static auto* extensions = new Extensions();
  return *extensions;
}

std::vector<std::string>& LoadedPlugins() {
  static auto* plugins = new std::vector<std::string>();
  return *plugins;
}

std::mutex& DriverMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

namespace {

// One RunHopt over a module Python holds, with the loaded plugins; the
// result modules, or the failure as the driver gave it.
struct DriverRun {
  absl::Status status;
  std::vector<std::unique_ptr<HloModule>> modules;
  std::vector<tools::PassTiming> timings;
  int exit_status = 0;
};

DriverRun RunDriver(const tools::HoptConfig& config, const ModuleHolder& input,
                    const std::string& input_name) {
  DriverRun run;
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(DriverMutex());
  tools::HoptExtensions extensions;
  extensions.registry = &LoadedExtensions();
  extensions.loaded = LoadedPlugins();
  tools::HoptOutput output = tools::HoptOutput::Modules(&run.modules);
  output.pass_timings = &run.timings;
  run.status = tools::RunHopt(config, extensions,
                              tools::HoptInput::Module(*input.module, input_name), output);
  run.exit_status = tools::HoptExitStatus(config, run.status);
  return run;
}

// The file a spec names after realpath, as LoadPlugins tells files apart;
// the spec itself when it names none (LoadPlugins then says why).
std::string PluginFile(const std::string& spec) {
  absl::StatusOr<std::string> path = ResolvePluginPath(spec, tools::BuiltinPluginDirs());
  if (!path.ok()) return spec;
  char* real = realpath(path->c_str(), nullptr);
  std::string canonical = real != nullptr ? real : *path;
  std::free(real);
  return canonical;
}

// A plugin already loaded (by any name of its file) is not loaded again:
// its passes are registered already.
void LoadPlugin(const std::string& spec) {
  static auto* files = new std::set<std::string>();
  absl::Status status;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(DriverMutex());
    std::string file = PluginFile(spec);
    if (files->count(file) == 0) {
      status = tools::LoadPlugins({spec}, LoadedExtensions());
      if (status.ok()) {
        files->insert(file);
        LoadedPlugins().push_back(spec);
      }
    }
  }
  if (!status.ok()) Throw(status, ErrorKind::kPlugin);
}

py::list ListPasses() {
  py::list passes;
  std::lock_guard<std::mutex> lock(DriverMutex());
  for (const PassInfo* info : LoadedExtensions().passes.List()) {
    py::list options;
    for (const PassOptionSpec& option : info->options) {
      py::dict entry;
      entry["name"] = option.name;
      entry["type"] = std::string(PassOptionTypeName(option.type));
      entry["default"] = option.default_value;
      entry["description"] = option.description;
      options.append(entry);
    }
    py::dict entry;
    entry["name"] = info->name;
    entry["description"] = info->description;
    entry["plugin"] = info->plugin;
    entry["plugin_version"] = info->plugin_version;
    entry["options"] = options;
    passes.append(entry);
  }
  return passes;
}

py::list ListPipelines() {
  py::list pipelines;
  std::lock_guard<std::mutex> lock(DriverMutex());
  for (const NamedPipeline* pipeline : LoadedExtensions().passes.Pipelines()) {
    py::dict entry;
    entry["name"] = pipeline->name;
    entry["passes"] = pipeline->text;
    entry["description"] = pipeline->description;
    entry["plugin"] = pipeline->plugin;
    pipelines.append(entry);
  }
  return pipelines;
}

ModuleRef Adopt(DriverRun& run, const ModuleHolder& from) {
  auto holder = std::make_shared<ModuleHolder>();
  holder->module = std::move(run.modules.front());
  holder->side = from.side;  // shared, not copied
  return holder;
}

std::tuple<ModuleRef, std::vector<std::pair<std::string, double>>> RunPasses(
    const ModuleRef& module, const std::string& pipeline, bool verify_each, bool verify) {
  tools::HoptConfig config;
  config.passes = pipeline;
  config.verify_each = verify_each;
  config.verify = verify;
  DriverRun run = RunDriver(config, *module, "<module>");
  if (!run.status.ok()) ThrowLocatedOr(run.status, ErrorKind::kPass);
  std::vector<std::pair<std::string, double>> timings;
  for (const tools::PassTiming& timing : run.timings)
    timings.emplace_back(timing.pass, timing.seconds);
  return {Adopt(run, *module), std::move(timings)};
}

// The driver's verdict: its exit status (0 the same, 1 a difference, 2 a
// check that could not run) and its message.
std::pair<int, std::string> VerifyEquivalence(const ModuleRef& before, const ModuleRef& after,
                                              int64_t sets, uint64_t seed, const std::string& mode,
                                              std::optional<int64_t> replicas,
                                              std::optional<int64_t> partitions) {
  tools::HoptConfig config;
  config.verify_equivalence_with = "<before>";
  config.verify_equivalence_with_module = before->module.get();
  // As `-verify-equivalence=MODE,N -verify-equivalence-with=F`: the driver
  // takes the sets and the mode from -verify-equivalence, which also checks
  // the (empty) pipeline, so it is given only when they are not the defaults.
  if (mode != "auto" || sets != 3) config.verify_equivalence = absl::StrCat(mode, ",", sets);
  config.equivalence_seed = seed;
  config.replicas = replicas;
  config.partitions = partitions;
  DriverRun run = RunDriver(config, *after, "<after>");
  return {run.exit_status, std::string(run.status.message())};
}

// hopt -emit-dot into a scratch directory, read back.
std::string Draw(const ModuleRef& module, const std::string& computation, int64_t max_nodes,
                 bool svg) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("hopt-python-dot", dir))
    throw py::value_error("cannot make a scratch directory for the drawing");
  std::string file = absl::StrCat(dir.str().str(), svg ? "/graph.svg" : "/graph.dot");
  tools::HoptConfig config;
  config.verify = false;
  config.emit_dot = file;
  config.emit_dot_computation = computation;
  config.emit_dot_max_nodes = max_nodes;
  DriverRun run = RunDriver(config, *module, "<module>");
  std::string contents;
  if (run.status.ok()) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (buffer) contents = (*buffer)->getBuffer().str();
  }
  llvm::sys::fs::remove(file);
  llvm::sys::fs::remove(dir);
  if (!run.status.ok()) Throw(run.status, ErrorKind::kGeneric);
  return contents;
}

}  // namespace

void DefinePasses(py::module_& m) {
  m.def("load_plugin", &LoadPlugin, py::arg("plugin"),
        "Loads a plugin: a path, or a file name looked up as hopt's -load does.");
  m.def("_set_plugin_dirs", &tools::SetBuiltinPluginDirs);
  m.def("loaded_plugins", [] {
    std::lock_guard<std::mutex> lock(DriverMutex());
    return LoadedPlugins();
  });
  m.def("list_passes", &ListPasses, "The loaded plugins' passes, with their options.");
  m.def("list_pipelines", &ListPipelines, "The named pipelines of the loaded plugins.");
  m.def("_run_passes", &RunPasses, py::arg("module"), py::arg("pipeline"),
        py::arg("verify_each") = true, py::arg("verify") = true);
  m.def("_verify_equivalence", &VerifyEquivalence, py::arg("before"), py::arg("after"),
        py::arg("sets"), py::arg("seed"), py::arg("mode"), py::arg("replicas"),
        py::arg("partitions"));
  py::object module_class = m.attr("Module");
  module_class.attr("to_dot") = py::cpp_function(
      [](const ModuleRef& module, const std::string& computation, int64_t max_nodes) {
        return Draw(module, computation, max_nodes, false);
      },
      py::is_method(module_class), py::arg("computation") = "", py::arg("max_nodes") = 200);
  module_class.attr("_repr_svg_") =
      py::cpp_function([](const ModuleRef& module) { return Draw(module, "", 200, true); },
                       py::is_method(module_class));
}

}  // namespace python
}  // namespace hopt

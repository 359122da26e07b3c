// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PYTHON_BINDINGS_H_
#define HOPT_PYTHON_BINDINGS_H_

// What the files of the Python module `hopt` share (docs/python.md): the
// module object Python holds, the mapping of a status to an exception, and
// the registry the loaded plugins fill. Each python/*.cc adds its part of
// the module in a Define* function that module.cc calls.

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "core/proto/tooling/io.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/registrar.h"

namespace hopt {
namespace python {

namespace py = pybind11;

// A parsed module and what its proto held that the IR does not model, so
// that to_proto() writes back what load() read. Views (computations,
// instructions) hold a reference to it, so the module lives as long as any
// of them does.
struct ModuleHolder {
  std::unique_ptr<HloModule> module;
  // Shared with the modules passes make from this one, as hopt writes its
  // output with its input's side table.
  std::shared_ptr<ProtoSideTable> side;
};
using ModuleRef = std::shared_ptr<ModuleHolder>;

// The plugins load_plugin() loaded, for the life of the process (their code
// stays mapped, as in hopt).
Extensions& LoadedExtensions();
// The plugin specs loaded so far, in order.
std::vector<std::string>& LoadedPlugins();
// RunHopt and plugin loading set process-wide state (-debug-only, the
// input size limit): one call at a time, taken with the GIL released.
std::mutex& DriverMutex();

// Which Python exception a failed status becomes; the message is the
// status's message, as the driver prints it.
enum class ErrorKind { kGeneric, kParse, kPass, kPlugin };
[[noreturn]] void Throw(const absl::Status& status, ErrorKind kind);
// kParse when the status names a place in an input, else `otherwise`.
[[noreturn]] void ThrowLocatedOr(const absl::Status& status, ErrorKind otherwise);

void DefineErrors(py::module_& m);
void DefineModule(py::module_& m);
void DefinePasses(py::module_& m);
void DefineRun(py::module_& m);

}  // namespace python
}  // namespace hopt

#endif  // HOPT_PYTHON_BINDINGS_H_

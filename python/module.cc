// SPDX-License-Identifier: Apache-2.0
// The Python module `hopt` (docs/python.md): parsing, printing, and
// read-only views of a module's computations and instructions. The
// exceptions are defined here; passes.cc and run.cc add the rest.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/pass_manager/tooling/crash_report.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/printer.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/diagnostic.h"
#include "python/bindings.h"
#include "tools/common/input_reading.h"

namespace hopt {
namespace python {
namespace {

py::object error_type, parse_error_type, pass_error_type, plugin_error_type;

// A computation or an instruction of a module Python holds.
struct ComputationView {
  ModuleRef owner;
  const HloComputation* computation;
};
struct InstructionView {
  ModuleRef owner;
  const HloInstruction* instruction;
};

// A computation's instructions in order, made into views one at a time as
// Python asks for them.
struct InstructionIterator {
  ModuleRef owner;
  std::vector<const HloInstruction*> instructions;
  size_t next = 0;
};

std::vector<const HloInstruction*> InstructionsOf(const HloComputation& computation) {
  std::vector<const HloInstruction*> all;
  all.reserve(static_cast<size_t>(computation.instruction_count()));
  for (const HloInstruction* instruction : computation.instructions()) all.push_back(instruction);
  return all;
}

py::list Views(const ModuleRef& owner, const std::vector<HloInstruction*>& instructions) {
  py::list views;
  for (const HloInstruction* instruction : instructions)
    views.append(InstructionView{owner, instruction});
  return views;
}

// "FILE:LINE:COL: error: ..." -> its parts (LINE, COL 0 when absent).
void SetPlace(py::object& exception, absl::string_view message) {
  size_t end = message.find(": error: ");
  absl::string_view place = end == absl::string_view::npos ? "" : message.substr(0, end);
  int64_t numbers[2] = {0, 0};
  int found = 0;
  // Up to two trailing ":N" fields; the file name may hold colons itself.
  while (found < 2) {
    size_t colon = place.rfind(':');
    int64_t value;
    if (colon == absl::string_view::npos || !absl::SimpleAtoi(place.substr(colon + 1), &value))
      break;
    numbers[found++] = value;
    place = place.substr(0, colon);
  }
  exception.attr("file") = py::str(std::string(place));
  exception.attr("line") = found == 0 ? 0 : (found == 1 ? numbers[0] : numbers[1]);
  exception.attr("column") = found == 2 ? numbers[0] : 0;
}

// hopt's -print-style and -print-operand-shapes.
PrintOptions StyleOptions(const std::string& style, bool operand_shapes = false) {
  if (style == "short") return PrintOptions::Short();
  if (style != "long") throw py::value_error("style must be 'long' or 'short'");
  return PrintOptions::Long(operand_shapes);
}

// The module's text as a Python str. The printer's pieces are kept as they
// come and copied once, into the str: a growing std::string would copy the
// text again at every doubling, and a large module's text is tens of MB.
py::str ModuleText(const ModuleHolder& holder, const PrintOptions& options) {
  std::vector<std::string> chunks;
  size_t size = 0;
  bool ascii = true;
  {
    py::gil_scoped_release release;
    PrintModule(*holder.module, options, [&](absl::string_view chunk) {
      size += chunk.size();
      for (char c : chunk) ascii &= static_cast<unsigned char>(c) < 0x80;
      chunks.emplace_back(chunk);
    });
  }
  if (!ascii) {  // a name or string attribute outside ASCII: decoded as UTF-8
    std::string text;
    text.reserve(size);
    for (const std::string& chunk : chunks) text += chunk;
    PyObject* str = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(size), "strict");
    if (str == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(str);
  }
  PyObject* str = PyUnicode_New(static_cast<Py_ssize_t>(size), 127);
  if (str == nullptr) throw py::error_already_set();
  char* out = static_cast<char*>(PyUnicode_DATA(str));
  for (const std::string& chunk : chunks) {
    std::memcpy(out, chunk.data(), chunk.size());
    out += chunk.size();
  }
  return py::reinterpret_steal<py::str>(str);
}

std::optional<HloFileFormat> FormatNamed(const std::string& format) {
  if (format == "auto") return std::nullopt;
  std::optional<HloFileFormat> named = ParseHloFileFormat(format);
  if (!named) throw py::value_error("format must be 'auto', 'text', 'pb' or 'pbtxt'");
  return named;
}

// What `bytes` hold when the caller did not say: gzip or a binary proto
// unless they read as HLO text or protobuf text.
HloFileFormat GuessFormat(absl::string_view bytes) {
  if (absl::StartsWith(bytes, "\x1f\x8b")) return HloFileFormat::kProto;
  size_t start = bytes.find_first_not_of(" \t\r\n");
  absl::string_view head = start == absl::string_view::npos ? "" : bytes.substr(start);
  if (absl::StartsWith(head, "HloModule") || absl::StartsWith(head, "//"))
    return HloFileFormat::kText;
  for (absl::string_view field : {"hlo_module", "name:", "hlo {", "module {", "computations"})
    if (absl::StartsWith(head, field)) return HloFileFormat::kProtoText;
  return HloFileFormat::kProto;
}

// Reads one module as hopt reads its input (tools/common/input_reading.h),
// verified as hopt verifies it unless `verify` is false.
ModuleRef Read(const std::string* contents, const std::string& path, HloFileFormat format,
               bool verify) {
  auto holder = std::make_shared<ModuleHolder>();
  holder->side = std::make_shared<ProtoSideTable>();
  absl::Status status;
  {
    py::gil_scoped_release release;
    absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
        tools::ReadInputModules({path, path, format, false, contents}, holder->side.get());
    if (modules.ok()) {
      holder->module = std::move(modules->front());
      if (verify) status = VerifyInput(*holder->module, path);
    } else {
      status = modules.status();
    }
  }
  if (!status.ok()) ThrowLocatedOr(status, ErrorKind::kGeneric);
  return holder;
}

ModuleRef Parse(py::object source, const std::string& format, const std::string& name,
                bool verify) {
  std::string contents;
  std::optional<HloFileFormat> chosen = FormatNamed(format);
  if (py::isinstance<py::str>(source)) {
    contents = source.cast<std::string>();
    if (!chosen) chosen = HloFileFormat::kText;
  } else if (py::isinstance<py::bytes>(source) || py::isinstance<py::bytearray>(source) ||
             py::isinstance<py::memoryview>(source)) {
    py::buffer_info buffer = py::buffer(source).request();
    contents.assign(static_cast<const char*>(buffer.ptr), static_cast<size_t>(buffer.size));
    if (!chosen) chosen = GuessFormat(contents);
  } else {
    throw py::type_error("parse() takes HLO text (str) or bytes");
  }
  return Read(&contents, name, *chosen, verify);
}

py::dict Attributes(const HloInstruction& instruction) {
  py::dict attributes;
  for (const HloAttribute& attribute : instruction.attributes()) {
    py::str name(std::string(attribute.name));
    switch (attribute.kind) {
      case HloAttribute::Kind::kText: attributes[name] = std::string(attribute.value); break;
      case HloAttribute::Kind::kComputation:
        attributes[name] = std::string(attribute.computations[0]->name());
        break;
      case HloAttribute::Kind::kComputationList: {
        py::list names;
        for (const HloComputation* computation : attribute.computations)
          names.append(std::string(computation->name()));
        attributes[name] = names;
        break;
      }
      case HloAttribute::Kind::kInstructionList: {
        py::list names;
        for (const HloInstruction* other : attribute.instructions)
          names.append(std::string(other->name()));
        attributes[name] = names;
        break;
      }
    }
  }
  return attributes;
}

void DefineViews(py::module_& m) {
  py::class_<InstructionView>(m, "Instruction")
      .def_property_readonly(
          "name", [](const InstructionView& v) { return std::string(v.instruction->name()); })
      .def_property_readonly(
          "opcode", [](const InstructionView& v) { return v.instruction->OpcodeSpelling(); })
      .def_property_readonly(
          "shape", [](const InstructionView& v) { return v.instruction->shape().ToString(); })
      .def_property_readonly("operands",
                             [](const InstructionView& v) {
                               std::vector<HloInstruction*> operands(
                                   v.instruction->operands().begin(),
                                   v.instruction->operands().end());
                               return Views(v.owner, operands);
                             })
      .def_property_readonly("users",
                             [](const InstructionView& v) {
                               std::vector<HloInstruction*> users(v.instruction->users().begin(),
                                                                  v.instruction->users().end());
                               return Views(v.owner, users);
                             })
      .def_property_readonly("attributes",
                             [](const InstructionView& v) { return Attributes(*v.instruction); })
      .def_property_readonly(
          "called_computations",
          [](const InstructionView& v) {
            py::list views;
            for (const HloComputation* called : v.instruction->called_computations())
              views.append(ComputationView{v.owner, called});
            return views;
          })
      .def_property_readonly("is_root",
                             [](const InstructionView& v) { return v.instruction->IsRoot(); })
      .def(
          "to_text",
          [](const InstructionView& v, const std::string& style) {
            return PrintInstruction(*v.instruction, StyleOptions(style));
          },
          py::arg("style") = "long")
      .def("__str__", [](const InstructionView& v) { return PrintInstruction(*v.instruction); })
      .def("__repr__",
           [](const InstructionView& v) {
             return absl::StrCat("<hopt.Instruction %", v.instruction->name(), " = ",
                                 v.instruction->shape().ToString(), " ",
                                 v.instruction->OpcodeSpelling(), ">");
           })
      .def("__eq__", [](const InstructionView& a,
                        const InstructionView& b) { return a.instruction == b.instruction; })
      .def("__hash__",
           [](const InstructionView& v) { return std::hash<const void*>()(v.instruction); });

  py::class_<InstructionIterator>(m, "_InstructionIterator")
      .def("__iter__", [](InstructionIterator& it) -> InstructionIterator& { return it; })
      .def("__next__", [](InstructionIterator& it) {
        if (it.next >= it.instructions.size()) throw py::stop_iteration();
        return InstructionView{it.owner, it.instructions[it.next++]};
      });

  py::class_<ComputationView>(m, "Computation")
      .def_property_readonly(
          "name", [](const ComputationView& v) { return std::string(v.computation->name()); })
      .def_property_readonly(
          "is_entry", [](const ComputationView& v) { return v.computation->IsEntryComputation(); })
      .def_property_readonly("root",
                             [](const ComputationView& v) {
                               return InstructionView{v.owner, v.computation->root_instruction()};
                             })
      .def_property_readonly("parameters",
                             [](const ComputationView& v) {
                               return Views(v.owner, v.computation->parameter_instructions());
                             })
      .def_property_readonly("instructions",
                             [](const ComputationView& v) {
                               return InstructionIterator{v.owner, InstructionsOf(*v.computation)};
                             })
      .def("__iter__",
           [](const ComputationView& v) {
             return InstructionIterator{v.owner, InstructionsOf(*v.computation)};
           })
      .def("__len__", [](const ComputationView& v) { return v.computation->instruction_count(); })
      .def("instruction",
           [](const ComputationView& v, const std::string& name) {
             const HloInstruction* found = v.computation->GetInstructionWithName(name);
             if (found == nullptr)
               throw py::key_error(absl::StrCat("no instruction '", name, "' in computation '",
                                                v.computation->name(), "'"));
             return InstructionView{v.owner, found};
           })
      .def(
          "to_text",
          [](const ComputationView& v, const std::string& style) {
            return PrintComputation(*v.computation, StyleOptions(style));
          },
          py::arg("style") = "long")
      .def("__repr__", [](const ComputationView& v) {
        return absl::StrCat("<hopt.Computation ", v.computation->name(), ", ",
                            v.computation->instruction_count(), " instructions>");
      });
}

}  // namespace

[[noreturn]] void Throw(const absl::Status& status, ErrorKind kind) {
  py::object type = kind == ErrorKind::kParse    ? parse_error_type
                    : kind == ErrorKind::kPass   ? pass_error_type
                    : kind == ErrorKind::kPlugin ? plugin_error_type
                                                 : error_type;
  std::string message(status.message());
  py::object exception = type(message);
  if (kind == ErrorKind::kParse) SetPlace(exception, message);
  PyErr_SetObject(type.ptr(), exception.ptr());
  throw py::error_already_set();
}

[[noreturn]] void ThrowLocatedOr(const absl::Status& status, ErrorKind otherwise) {
  Throw(status, IsLocated(status) ? ErrorKind::kParse : otherwise);
}

void DefineErrors(py::module_& m) {
  error_type = py::reinterpret_borrow<py::object>(
      PyErr_NewExceptionWithDoc("hopt.Error", "A failure of hopt; the message is the driver's.",
                                PyExc_RuntimeError, nullptr));
  auto subclass = [&](const char* name, const char* doc) {
    return py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
        absl::StrCat("hopt.", name).c_str(), doc, error_type.ptr(), nullptr));
  };
  parse_error_type = subclass(
      "ParseError", "An input that does not read; file, line and column say where (0: unknown).");
  pass_error_type = subclass("PassError", "A pipeline that could not be made or run.");
  plugin_error_type = subclass("PluginError", "A plugin that could not be found or loaded.");
  m.attr("Error") = error_type;
  m.attr("ParseError") = parse_error_type;
  m.attr("PassError") = pass_error_type;
  m.attr("PluginError") = plugin_error_type;
}

void DefineModule(py::module_& m) {
  DefineViews(m);
  py::class_<ModuleHolder, ModuleRef>(m, "Module")
      .def_property_readonly("name",
                             [](const ModuleHolder& h) { return std::string(h.module->name()); })
      .def_property_readonly("replica_count",
                             [](const ModuleHolder& h) { return h.module->replica_count(); })
      .def_property_readonly("num_partitions",
                             [](const ModuleHolder& h) { return h.module->num_partitions(); })
      .def_property_readonly("entry",
                             [](const ModuleRef& h) {
                               return ComputationView{h, h->module->entry_computation()};
                             })
      .def_property_readonly("computations",
                             [](const ModuleRef& h) {
                               py::list views;
                               for (const HloComputation* c : h->module->computations())
                                 views.append(ComputationView{h, c});
                               return views;
                             })
      .def("computation",
           [](const ModuleRef& h, const std::string& name) {
             const HloComputation* found = h->module->GetComputationWithName(name);
             if (found == nullptr) throw py::key_error(absl::StrCat("no computation '", name, "'"));
             return ComputationView{h, found};
           })
      .def(
          "to_text",
          [](const ModuleHolder& h, const std::string& style, bool operand_shapes) {
            return ModuleText(h, StyleOptions(style, operand_shapes));
          },
          py::arg("style") = "long", py::arg("operand_shapes") = false)
      .def("__str__",
           [](const ModuleHolder& h) { return ModuleText(h, PrintOptions::Long(false)); })
      .def("__repr__",
           [](const ModuleHolder& h) {
             int64_t count = 0;
             for (const HloComputation* c : h.module->computations())
               count += c->instruction_count();
             return absl::StrCat("<hopt.Module ", h.module->name(), ", ",
                                 h.module->computation_count(), " computations, ", count,
                                 " instructions>");
           })
      .def(
          "to_proto",
          [](const ModuleHolder& h, bool gzip) {
            absl::StatusOr<std::string> bytes;
            {
              py::gil_scoped_release release;
              bytes = ModuleToProtoBinary(*h.module, gzip, h.side.get());
            }
            if (!bytes.ok()) Throw(bytes.status(), ErrorKind::kGeneric);
            return py::bytes(*bytes);
          },
          py::arg("gzip") = false)
      .def("to_proto_text", [](const ModuleHolder& h) {
        absl::StatusOr<std::string> text;
        {
          py::gil_scoped_release release;
          text = ModuleToProtoText(*h.module, h.side.get());
        }
        if (!text.ok()) Throw(text.status(), ErrorKind::kGeneric);
        return *text;
      });

  m.def("parse", &Parse, py::arg("source"), py::arg("format") = "auto",
        py::arg("name") = "<string>", py::arg("verify") = true,
        "A module from HLO text (str) or bytes (text, .pb, .pb.gz or .pbtxt contents).");
  m.def(
      "load",
      [](const std::string& path, const std::string& format, bool verify) {
        std::optional<HloFileFormat> chosen = FormatNamed(format);
        return Read(nullptr, path, chosen ? *chosen : HloFileFormatFromPath(path), verify);
      },
      py::arg("path"), py::arg("format") = "auto", py::arg("verify") = true,
      "A module from a file; the format from its name (.hlo, .pb, .pb.gz, .pbtxt).");
}

}  // namespace python
}  // namespace hopt

PYBIND11_MODULE(_hopt, m) {
  m.doc() = "hopt's core from Python: parse, print, run passes, interpret (docs/python.md)";
  // A crash in plugin code prints which plugin and pass before the process
  // dies, as in hopt (docs/python.md, "When a plugin crashes").
  hopt::InstallCrashReporter("hopt (python)");
  hopt::python::DefineErrors(m);
  hopt::python::DefineModule(m);
  hopt::python::DefinePasses(m);
  hopt::python::DefineRun(m);
}

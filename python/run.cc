// SPDX-License-Identifier: Apache-2.0
// hopt.run: a module on the interpreter (include/hopt/eval/evaluator.h),
// numpy arrays in and out, on the mesh hlo-run would choose.
//
// The interpreter stores every element widened (floats as doubles, integers
// as int64: include/hopt/ir/literal.h), so values are converted on the way
// in and out; no array is shared with it. Types numpy lacks travel as their
// bits: bf16 as uint16, the f8 types, f4e2m1fn and f8e8m0fnu as uint8 (the
// encoding in the low bits), s1/s2/s4 as int8 and u1/u2/u4 as uint8 values.
// An ml_dtypes array (bfloat16, float8_*) is taken by its dtype's name.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/tooling/mesh_inference.h"
#include "core/ir/float_bits.h"
#include "hopt/eval/evaluator.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/verifier.h"
#include "python/bindings.h"

namespace hopt {
namespace python {
namespace {

// How an element type travels in numpy: the dtype, and whether the values
// are the type's bit patterns rather than numbers.
struct NumpyType {
  const char* dtype;
  bool bits = false;
};

NumpyType NumpyTypeOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRED: return {"bool"};
    case PrimitiveType::S1:
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8: return {"int8"};
    case PrimitiveType::S16: return {"int16"};
    case PrimitiveType::S32: return {"int32"};
    case PrimitiveType::S64: return {"int64"};
    case PrimitiveType::U1:
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8: return {"uint8"};
    case PrimitiveType::U16: return {"uint16"};
    case PrimitiveType::U32: return {"uint32"};
    case PrimitiveType::U64: return {"uint64"};
    case PrimitiveType::F16: return {"float16"};
    case PrimitiveType::F32: return {"float32"};
    case PrimitiveType::F64: return {"float64"};
    case PrimitiveType::BF16: return {"uint16", true};
    case PrimitiveType::C64: return {"complex64"};
    case PrimitiveType::C128: return {"complex128"};
    default: break;
  }
  if (IsFloatingPointType(type)) return {"uint8", true};  // f8 and f4 types
  return {nullptr};
}

// ml_dtypes' names for the types numpy lacks.
const char* MlDtypesName(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::BF16: return "bfloat16";
    case PrimitiveType::F8E5M2: return "float8_e5m2";
    case PrimitiveType::F8E4M3: return "float8_e4m3";
    case PrimitiveType::F8E4M3FN: return "float8_e4m3fn";
    case PrimitiveType::F8E4M3B11FNUZ: return "float8_e4m3b11fnuz";
    case PrimitiveType::F8E5M2FNUZ: return "float8_e5m2fnuz";
    case PrimitiveType::F8E4M3FNUZ: return "float8_e4m3fnuz";
    case PrimitiveType::F8E3M4: return "float8_e3m4";
    case PrimitiveType::F4E2M1FN: return "float4_e2m1fn";
    case PrimitiveType::F8E8M0FNU: return "float8_e8m0fnu";
    default: return nullptr;
  }
}

template <typename T>
void ReadInts(const py::array& array, Literal& literal) {
  const T* data = static_cast<const T*>(array.data());
  int64_t* out = literal.mutable_int_data();
  for (int64_t i = 0; i < literal.element_count(); ++i) out[i] = static_cast<int64_t>(data[i]);
}

template <typename T>
void ReadReals(const py::array& array, Literal& literal) {
  const T* data = static_cast<const T*>(array.data());
  double* out = literal.mutable_real_data();
  for (int64_t i = 0; i < literal.element_count(); ++i) out[i] = static_cast<double>(data[i]);
}

// numpy's half, which C++17 has no type for.
double HalfToDouble(uint16_t bits) { return DecodeFloatBits(bits, PrimitiveType::F16); }

Literal ToLiteral(py::handle value, const Shape& shape, size_t index) {
  std::string where = absl::StrCat("argument ", index, " (", shape.ToString(), ")");
  PrimitiveType type = shape.element_type();
  NumpyType numpy = NumpyTypeOf(type);
  if (shape.IsTuple() || numpy.dtype == nullptr)
    throw py::type_error(absl::StrCat(where, ": only arrays of numbers can be passed"));
  py::module_ np = py::module_::import("numpy");
  py::object dtype = np.attr("dtype")(numpy.dtype);
  py::array array;
  if (py::isinstance<py::array>(value)) {
    array = py::reinterpret_borrow<py::array>(value);
    std::string name = py::str(array.dtype().attr("name"));
    const char* ml_name = MlDtypesName(type);
    if (ml_name != nullptr && name == ml_name)
      array = array.attr("view")(dtype);  // ml_dtypes: its bits are ours
    else if (!array.dtype().equal(dtype))
      throw py::type_error(absl::StrCat(where, ": expected a ", numpy.dtype, " array",
                                        numpy.bits ? " of the type's bits" : "", ", got ", name));
  } else {
    array = np.attr("asarray")(value, dtype);  // a Python number or list
  }
  array = np.attr("ascontiguousarray")(array);
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  std::vector<int64_t> given(array.shape(), array.shape() + array.ndim());
  if (dims != given) {
    std::string text;
    for (int64_t d : given) absl::StrAppend(&text, text.empty() ? "" : ",", d);
    throw py::value_error(absl::StrCat(where, ": the array's shape is (", text, ")"));
  }
  Literal literal(shape);
  if (IsComplexType(type)) {
    for (int64_t i = 0; i < literal.element_count(); ++i)
      literal.SetFromComplex(
          i, type == PrimitiveType::C64
                 ? std::complex<double>(static_cast<const std::complex<float>*>(array.data())[i])
                 : static_cast<const std::complex<double>*>(array.data())[i]);
  } else if (numpy.bits) {
    const void* data = array.data();
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      uint64_t bits = type == PrimitiveType::BF16 ? static_cast<const uint16_t*>(data)[i]
                                                  : static_cast<const uint8_t*>(data)[i];
      literal.SetFromDouble(i, DecodeFloatBits(bits, type));
    }
  } else if (type == PrimitiveType::F16) {
    const uint16_t* data = static_cast<const uint16_t*>(array.data());
    double* out = literal.mutable_real_data();
    for (int64_t i = 0; i < literal.element_count(); ++i) out[i] = HalfToDouble(data[i]);
  } else if (type == PrimitiveType::F32) {
    ReadReals<float>(array, literal);
  } else if (type == PrimitiveType::F64) {
    ReadReals<double>(array, literal);
  } else {
    std::string kind = numpy.dtype;
    if (kind == "bool") ReadInts<bool>(array, literal);
    if (kind == "int8") ReadInts<int8_t>(array, literal);
    if (kind == "int16") ReadInts<int16_t>(array, literal);
    if (kind == "int32") ReadInts<int32_t>(array, literal);
    if (kind == "int64") ReadInts<int64_t>(array, literal);
    if (kind == "uint8") ReadInts<uint8_t>(array, literal);
    if (kind == "uint16") ReadInts<uint16_t>(array, literal);
    if (kind == "uint32") ReadInts<uint32_t>(array, literal);
    if (kind == "uint64") ReadInts<uint64_t>(array, literal);
    // A value outside the type (s4 in an int8, say) is wrapped as the type does.
    for (int64_t i = 0; i < literal.element_count(); ++i)
      literal.SetFromInt64(i, WrapToIntegralType(literal.GetAsInt64(i), type));
  }
  return literal;
}

template <typename T>
void WriteValues(const Literal& literal, py::array& array) {
  T* out = static_cast<T*>(array.mutable_data());
  PrimitiveType type = literal.shape().element_type();
  NumpyType numpy = NumpyTypeOf(type);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      out[i] = static_cast<T>(literal.GetAsComplex(i));
    else if (numpy.bits || type == PrimitiveType::F16)
      out[i] = static_cast<T>(EncodeFloatBits(literal.GetAsDouble(i), type));
    else if (IsFloatingPointType(type))
      out[i] = static_cast<T>(literal.GetAsDouble(i));
    else
      out[i] = static_cast<T>(literal.GetAsInt64(i));
  }
}

py::object ToNumpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    py::tuple elements(literal.tuple_elements().size());
    for (size_t i = 0; i < literal.tuple_elements().size(); ++i)
      elements[i] = ToNumpy(literal.tuple_elements()[i]);
    return elements;
  }
  NumpyType numpy = NumpyTypeOf(shape.element_type());
  if (numpy.dtype == nullptr) return py::none();  // a token or opaque value
  py::dtype dtype = py::dtype(std::string(numpy.dtype));
  std::vector<py::ssize_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  // float16 is written through its bits.
  py::array array(shape.element_type() == PrimitiveType::F16 ? py::dtype("uint16") : dtype, dims);
  std::string kind = py::str(array.dtype().attr("name"));
  if (kind == "bool") WriteValues<bool>(literal, array);
  if (kind == "int8") WriteValues<int8_t>(literal, array);
  if (kind == "int16") WriteValues<int16_t>(literal, array);
  if (kind == "int32") WriteValues<int32_t>(literal, array);
  if (kind == "int64") WriteValues<int64_t>(literal, array);
  if (kind == "uint8") WriteValues<uint8_t>(literal, array);
  if (kind == "uint16") WriteValues<uint16_t>(literal, array);
  if (kind == "uint32") WriteValues<uint32_t>(literal, array);
  if (kind == "uint64") WriteValues<uint64_t>(literal, array);
  if (kind == "float32") WriteValues<float>(literal, array);
  if (kind == "float64") WriteValues<double>(literal, array);
  if (kind == "complex64") WriteValues<std::complex<float>>(literal, array);
  if (kind == "complex128") WriteValues<std::complex<double>>(literal, array);
  if (shape.element_type() == PrimitiveType::F16) return array.attr("view")(dtype);
  return std::move(array);
}

// One list of results per device, in device order (replica * partitions +
// partition), as hlo-run prints them.
py::list Run(const ModuleRef& module, py::object args, std::optional<int64_t> replicas,
             std::optional<int64_t> partitions, uint64_t seed, const std::string& opaque) {
  const HloModule& hlo = *module->module;
  eval::EvalOptions options;
  options.custom_calls = &LoadedExtensions().custom_calls;
  if (opaque == "refuse")
    options.opaque_custom_calls = eval::EvalOptions::OpaqueCustomCalls::kRefuse;
  else if (opaque != "hash")
    throw py::value_error("opaque_custom_calls must be 'hash' or 'refuse'");
  for (std::optional<int64_t> count : {replicas, partitions})
    if (count && *count < 1) throw py::value_error("replicas and partitions must be positive");
  eval::MeshChoice mesh =
      eval::ChooseMesh(hlo, replicas.value_or(0), partitions.value_or(0), options.custom_calls);
  if (!mesh.note.empty()) std::fprintf(stderr, "hopt: %s\n", mesh.note.c_str());
  options.replicas = mesh.mesh.replicas;
  options.partitions = mesh.mesh.partitions;
  absl::StatusOr<int64_t> devices = eval::MeshDevices(options.replicas, options.partitions);
  if (!devices.ok()) Throw(devices.status(), ErrorKind::kGeneric);
  std::vector<Shape> shapes;
  for (const HloInstruction* parameter : hlo.entry_computation()->parameter_instructions())
    shapes.push_back(parameter->shape());

  std::vector<Literal> common;
  std::vector<std::vector<Literal>> random;
  std::vector<std::vector<const Literal*>> views(static_cast<size_t>(*devices));
  if (args.is_none()) {
    absl::Status fits = eval::CheckArgumentsFit(shapes);
    if (!fits.ok()) Throw(fits, ErrorKind::kGeneric);
    random = eval::RandomArgumentsForShapes(shapes, *devices, seed);
    for (size_t d = 0; d < views.size(); ++d)
      for (const Literal& value : random[d]) views[d].push_back(&value);
  } else {
    py::sequence given = args;
    if (given.size() != shapes.size())
      throw py::value_error(
          absl::StrCat("the module takes ", shapes.size(), " arguments, got ", given.size()));
    for (size_t i = 0; i < shapes.size(); ++i) common.push_back(ToLiteral(given[i], shapes[i], i));
    for (auto& device : views)
      for (const Literal& value : common) device.push_back(&value);
  }
  absl::StatusOr<std::vector<Literal>> results;
  {
    py::gil_scoped_release release;
    absl::Status status = VerifyInput(hlo, "<module>");
    if (status.ok() && options.opaque_custom_calls == eval::EvalOptions::OpaqueCustomCalls::kRefuse)
      status = eval::RefuseOpaqueCustomCalls(hlo, options.custom_calls);
    results = status.ok() ? eval::RunModuleOn(hlo, views, options) : status;
  }
  if (!results.ok()) Throw(results.status(), ErrorKind::kGeneric);
  py::list out;
  for (const Literal& result : *results) out.append(ToNumpy(result));
  return out;
}

}  // namespace

void DefineRun(py::module_& m) {
  m.def("_run", &Run, py::arg("module"), py::arg("args"), py::arg("replicas"),
        py::arg("partitions"), py::arg("seed"), py::arg("opaque_custom_calls"));
}

}  // namespace python
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/eval/evaluator.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/eval/dense_kernels.h"
#include "core/eval/device_evaluator.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

int64_t ArgumentBytes(absl::Span<const Literal* const> args) {
  int64_t total = 0;
  for (const Literal* arg : args) total += ValueBytes(*arg);
  return total;
}

// How many computations deep the entry nests (1: it calls none); without
// recursion, as chains of calls can be hundreds of thousands long.
int64_t NestingDepth(const HloComputation* entry) {
  absl::flat_hash_map<const HloComputation*, int64_t> depth;
  std::vector<std::pair<const HloComputation*, bool>> stack = {{entry, false}};
  while (!stack.empty()) {
    auto [computation, callees_done] = stack.back();
    stack.pop_back();
    if (callees_done) {
      int64_t deepest = 0;
      for (const HloInstruction* i : computation->instructions())
        for (const HloComputation* callee : i->called_computations())
          if (auto it = depth.find(callee); it != depth.end())
            deepest = std::max(deepest, it->second);
      depth[computation] = deepest + 1;
      continue;
    }
    if (depth.contains(computation)) continue;
    depth[computation] = 1;  // a cycle (the verifier refuses one) ends here
    stack.push_back({computation, true});
    for (const HloInstruction* i : computation->instructions())
      for (const HloComputation* callee : i->called_computations())
        if (!depth.contains(callee)) stack.push_back({callee, false});
  }
  return depth[entry];
}

size_t DeviceStackBytes(const HloModule& module) {
  size_t levels = static_cast<size_t>(NestingDepth(module.entry_computation()));
  if (levels > (kDeviceStackBytes - kDeviceStackBaseBytes) / kDeviceStackPerLevelBytes)
    return kDeviceStackBytes;
  return kDeviceStackBaseBytes + levels * kDeviceStackPerLevelBytes;
}

// The mesh's device threads: started with a given stack, or an error when
// the system refuses one (the address space or the thread limit ends),
// never an abort.
class DeviceThreads {
 public:
  ~DeviceThreads() { JoinAll(); }
  absl::Status Start(size_t stack_bytes, std::function<void()> body) {
    auto task = std::make_unique<std::function<void()>>(std::move(body));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int error = pthread_attr_setstacksize(&attr, stack_bytes);
    pthread_t thread;
    if (error == 0) error = pthread_create(&thread, &attr, &Run, task.get());
    pthread_attr_destroy(&attr);
    if (error != 0) return absl::ResourceExhaustedError(std::strerror(error));
    task.release();  // Run owns it now
    threads_.push_back(thread);
    return absl::OkStatus();
  }
  void JoinAll() {
    for (pthread_t thread : threads_) pthread_join(thread, nullptr);
    threads_.clear();
  }

 private:
  static void* Run(void* arg) {
    std::unique_ptr<std::function<void()>> task(static_cast<std::function<void()>*>(arg));
    (*task)();
    return nullptr;
  }
  std::vector<pthread_t> threads_;
};

bool HoldsBuffer(const Shape& shape) {
  if (shape.IsBuffer()) return true;
  if (!shape.IsTuple()) return false;
  for (const Shape& element : shape.tuple_shapes())
    if (HoldsBuffer(element)) return true;
  return false;
}

// A buffer (`b(f32[4])`) is memory a program writes in place; a literal
// has no room for one, so such modules are refused before they run
// instead of producing values with nothing in them.
absl::Status CheckNoBufferValues(const HloModule& module) {
  for (const HloComputation* computation : module.computations())
    for (const HloInstruction* i : computation->instructions())
      if (HoldsBuffer(i->shape()))
        return UnsupportedInstruction(
            *i, absl::StrCat("its shape ", i->shape().ToString(false),
                             " holds a buffer; the interpreter has no buffer values"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> MeshDevices(int64_t replicas, int64_t partitions) {
  int64_t devices = 0;
  if (replicas < 1 || partitions < 1 || __builtin_mul_overflow(replicas, partitions, &devices) ||
      devices > kMaxMeshDevices)
    return absl::InvalidArgumentError(absl::StrCat("interpreter: a mesh of ", replicas, "x",
                                                   partitions, " devices is not supported (1 to ",
                                                   kMaxMeshDevices, " devices)"));
  return devices;
}

absl::StatusOr<std::vector<Literal>> RunModule(const HloModule& module,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options) {
  return RunModule(module, arguments, options, nullptr);
}

absl::StatusOr<std::vector<Literal>> RunModule(const HloModule& module,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options, RunLog* log) {
  std::vector<std::vector<const Literal*>> borrowed(arguments.size());
  for (size_t d = 0; d < arguments.size(); ++d)
    for (const Literal& argument : arguments[d]) borrowed[d].push_back(&argument);
  return RunModuleOn(module, borrowed, options, log);
}

absl::StatusOr<std::vector<Literal>> RunModuleOn(
    const HloModule& module, const std::vector<std::vector<const Literal*>>& arguments,
    const EvalOptions& options, RunLog* log) {
  Mesh mesh{options.replicas > 0 ? options.replicas : module.replica_count(),
            options.partitions > 0 ? options.partitions : module.num_partitions()};
  HOPT_ASSIGN_OR_RETURN(const int64_t devices, MeshDevices(mesh.replicas, mesh.partitions));
  if (static_cast<int64_t>(arguments.size()) != devices)
    return absl::InvalidArgumentError(absl::StrCat("interpreter: arguments for ", arguments.size(),
                                                   " devices, the mesh has ", devices));
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("interpreter: the module has no entry");
  HOPT_RETURN_IF_ERROR(CheckNoBufferValues(module));
  for (int64_t d = 0; d < devices; ++d) {
    if (static_cast<int64_t>(arguments[d].size()) != entry->num_parameters())
      return absl::InvalidArgumentError(absl::StrCat("interpreter: the entry computation takes ",
                                                     entry->num_parameters(), " arguments, got ",
                                                     arguments[d].size(), " on device ", d));
    for (int64_t k = 0; k < entry->num_parameters(); ++k)
      if (arguments[d][k] == nullptr ||
          !arguments[d][k]->shape().Compatible(entry->parameter_instruction(k)->shape()))
        return absl::InvalidArgumentError(absl::StrCat(
            "interpreter: device ", d, " argument ", k, " has shape ",
            arguments[d][k] == nullptr ? "(none)" : arguments[d][k]->shape().ToString(),
            ", parameter ", entry->parameter_instruction(k)->name(), " is ",
            entry->parameter_instruction(k)->shape().ToString()));
  }
  const Plans plans = MakePlans(module);
  Rendezvous rendezvous(options.rendezvous_timeout_ms);
  std::vector<std::vector<OpaqueCall>> opaque_calls(devices);
  std::vector<absl::StatusOr<Literal>> results(devices, absl::UnknownError("not run"));
  // The devices share the CPUs with the dense kernels' threads.
  RunningDevices running(devices);
  const size_t stack_bytes = DeviceStackBytes(module);
  absl::Status started = absl::OkStatus();
  {
    DeviceThreads threads;
    for (int64_t d = 0; d < devices && started.ok(); ++d) {
      absl::Status start = threads.Start(stack_bytes, [&, d] {
        DeviceEvaluator evaluator(module, plans, mesh, d, rendezvous, options, &opaque_calls[d]);
        const std::vector<const Literal*>& args = arguments[d];
        absl::Status fits = evaluator.ChargeArguments(ArgumentBytes(args));
        results[d] = fits.ok() ? evaluator.Evaluate(*entry, args) : absl::StatusOr<Literal>(fits);
        if (!results[d].ok()) rendezvous.Abort(std::string(results[d].status().message()));
      });
      if (start.ok()) continue;
      started = absl::ResourceExhaustedError(absl::StrCat(
          "interpreter: cannot start the thread of device ", d, " of ", devices, " (",
          start.message(), "): each device runs on a thread of its own with ", stack_bytes >> 20,
          " MiB of stack; run fewer devices or allow more address space "
          "and threads"));
      // The devices already running must not wait for it at a collective.
      rendezvous.Abort(std::string(started.message()));
    }
  }
  if (!started.ok()) return started;
  std::vector<Literal> outputs;
  // Report the first real failure (not the aborts it caused elsewhere).
  for (int64_t d = 0; d < devices; ++d)
    if (!results[d].ok() && !absl::IsAborted(results[d].status()))
      return absl::Status(
          results[d].status().code(),
          absl::StrCat("device ", d, " (replica ", d / mesh.partitions, ", partition ",
                       d % mesh.partitions, "): ", results[d].status().message()));
  for (int64_t d = 0; d < devices; ++d) {
    if (!results[d].ok()) return results[d].status();
    outputs.push_back(*std::move(results[d]));
  }
  if (log != nullptr) log->opaque_calls = std::move(opaque_calls);
  return outputs;
}

std::vector<std::vector<Literal>> RandomArguments(const HloModule& module, int64_t devices,
                                                  uint64_t seed) {
  std::vector<Shape> shapes;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions())
    shapes.push_back(p->shape());
  return RandomArgumentsForShapes(shapes, devices, seed);
}

absl::Status CheckArgumentsFit(const std::vector<Shape>& shapes, const EvalOptions& options) {
  int64_t total = 0, largest = 0;
  size_t largest_at = 0;
  for (size_t k = 0; k < shapes.size(); ++k) {
    // As the interpreter stores them (8 bytes an element), which is what
    // the run's budget then charges.
    int64_t bytes = Literal::AllocatedBytesFor(shapes[k]);
    total = bytes > std::numeric_limits<int64_t>::max() - total
                ? std::numeric_limits<int64_t>::max()
                : total + bytes;
    if (bytes > largest) largest = bytes, largest_at = k;
  }
  if (total <= options.max_bytes_per_device) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "interpreter: the arguments need ", total, " bytes per device, over the limit of ",
      options.max_bytes_per_device, " (parameter ", largest_at, ", ", shapes[largest_at].ToString(),
      ", alone needs ", largest, ")"));
}

absl::Status CheckArgumentsFit(const HloModule& module, const EvalOptions& options) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("interpreter: the module has no entry");
  std::vector<Shape> shapes;
  for (const HloInstruction* p : entry->parameter_instructions()) shapes.push_back(p->shape());
  return CheckArgumentsFit(shapes, options);
}

std::vector<std::vector<Literal>> RandomArgumentsForShapes(const std::vector<Shape>& shapes,
                                                           int64_t devices, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::function<Literal(const Shape&)> make = [&](const Shape& shape) -> Literal {
    Literal value(shape);
    if (shape.IsTuple()) {
      for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k)
        value.mutable_tuple_elements()[k] = make(shape.tuple_shapes(k));
      return value;
    }
    if (!shape.IsArray()) return value;
    PrimitiveType t = shape.element_type();
    for (int64_t k = 0; k < value.element_count(); ++k) {
      if (IsFloatingPointType(t) || IsComplexType(t)) {
        // Multiples of 1/8 in [-2, 2): exact in every float type.
        value.SetFromDouble(k, static_cast<double>(static_cast<int64_t>(rng() % 32) - 16) / 8.0);
      } else if (t == PrimitiveType::PRED) {
        value.SetFromInt64(k, static_cast<int64_t>(rng() % 2));
      } else if (IsUnsignedIntegralType(t)) {
        value.SetFromInt64(k, static_cast<int64_t>(rng() % 16));
      } else {
        value.SetFromInt64(k, static_cast<int64_t>(rng() % 16) - 8);
      }
    }
    return value;
  };
  std::vector<std::vector<Literal>> arguments(devices);
  for (int64_t d = 0; d < devices; ++d)
    for (const Shape& shape : shapes) arguments[d].push_back(make(shape));
  return arguments;
}

bool BitwiseEqual(const Literal& a, const Literal& b, std::string* difference) {
  if (!a.shape().Compatible(b.shape())) {
    *difference =
        absl::StrCat("shapes differ: ", a.shape().ToString(), " vs ", b.shape().ToString());
    return false;
  }
  if (a.shape().IsTuple()) {
    for (size_t k = 0; k < a.tuple_elements().size(); ++k) {
      std::string inner;
      if (!BitwiseEqual(a.tuple_elements()[k], b.tuple_elements()[k], &inner)) {
        *difference = absl::StrCat("tuple element ", k, ", ", inner);
        return false;
      }
    }
    return true;
  }
  for (int64_t k = 0; k < a.element_count(); ++k) {
    std::complex<double> x = a.GetAsComplex(k), y = b.GetAsComplex(k);
    bool same;
    if (IsIntegralType(a.shape().element_type()) ||
        a.shape().element_type() == PrimitiveType::PRED) {
      same = a.GetAsInt64(k) == b.GetAsInt64(k);
    } else {
      double xr = x.real(), yr = y.real(), xi = x.imag(), yi = y.imag();
      uint64_t bx, by, ix, iy;
      std::memcpy(&bx, &xr, 8);
      std::memcpy(&by, &yr, 8);
      std::memcpy(&ix, &xi, 8);
      std::memcpy(&iy, &yi, 8);
      same = bx == by && ix == iy;
    }
    if (!same) {
      *difference = absl::StrCat("element ", k, ": ", ElementAt(a, k).ToText(), " vs ",
                                 ElementAt(b, k).ToText());
      return false;
    }
  }
  return true;
}

}  // namespace eval
}  // namespace hopt

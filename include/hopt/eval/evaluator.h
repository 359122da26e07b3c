// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_EVAL_EVALUATOR_H_
#define HOPT_EVAL_EVALUATOR_H_

// Runs an HLO module on a simulated mesh of R replicas x P partitions. Each
// device runs on its own thread; collectives meet at a rendezvous, so all
// devices advance in lockstep wherever the program communicates.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

struct EvalOptions {
  int64_t replicas = 0;    // 0: the module's replica_count
  int64_t partitions = 0;  // 0: the module's num_partitions
  // Refuse programs whose values on one device take more than this many
  // bytes at once. Charged as Literal::AllocatedBytes (8 bytes an element,
  // 16 complex, whatever the type): the device's entry arguments for the
  // whole run, every live instruction value of every computation being
  // evaluated (a parameter reads its argument in place and is not charged
  // again), a while loop's state, and a collective's sent and received
  // copies. An instruction whose result
  // would not fit is refused before it is made. Scratch space inside one
  // operation is not charged. Each device has its own budget: a mesh of N
  // devices may use N times this.
  int64_t max_bytes_per_device = int64_t{1} << 30;
  // Refuse a run whose while loops, all of them together on one device,
  // run more bodies than this: one budget for the whole evaluation, so a
  // loop nested in a loop spends it on every inner iteration and a
  // 10^6 x 10^6 nest stops after 2^20 bodies instead of running 10^12.
  int64_t max_while_iterations = int64_t{1} << 20;
  // Refuse computations nested deeper than this (call inside call inside
  // ...): each level is a native stack frame of the interpreter.
  int64_t max_call_depth = 256;
  // A device that waits this long at a collective reports a deadlock.
  int64_t rendezvous_timeout_ms = 20000;
  // A custom-call whose target has no registered semantics: kHash runs it
  // as an opaque function of its target, backend_config and operand values
  // (include/hopt/eval/opaque_calls.h) and logs it; kRefuse makes the run an error
  // naming the call (RefuseOpaqueCustomCalls checks a module beforehand,
  // at the call's place in the input).
  enum class OpaqueCustomCalls { kHash, kRefuse };
  OpaqueCustomCalls opaque_custom_calls = OpaqueCustomCalls::kHash;
  // What custom-calls compute, as the loaded plugins registered it (the
  // tool owns the table). Null: every custom-call is opaque.
  const CustomCallTable* custom_calls = nullptr;
};

// What a run did besides its results, for comparing two runs.
struct RunLog {
  // Per device, the opaque custom-calls it ran, in the order it ran them.
  std::vector<std::vector<OpaqueCall>> opaque_calls;
};

// The most devices a mesh may have: each runs on a thread of its own and
// gets its own copy of every argument (RunModule; RunModuleOn lets devices
// share one).
inline constexpr int64_t kMaxMeshDevices = 4096;

// replicas x partitions, or InvalidArgument when either is below 1 or the
// product (computed without overflow) is above kMaxMeshDevices. Every
// caller checks it before making anything per device: a header's
// replica_count=2147483648 must not become 2^31 argument vectors.
absl::StatusOr<int64_t> MeshDevices(int64_t replicas, int64_t partitions);

// (DeviceId, CustomCallSemantics, CollectiveCustomCallDescriber and the
// table of them: include/hopt/eval/custom_call_table.h.)

// Runs the entry computation on every device. `arguments[d]` are device d's
// parameters (d = replica * partitions + partition). Returns each device's
// result in the same order.
absl::StatusOr<std::vector<Literal>> RunModule(const HloModule& module,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options = {});
// The same, and what the run did into `log` (when not null).
absl::StatusOr<std::vector<Literal>> RunModule(const HloModule& module,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options, RunLog* log);

// The same with arguments the caller keeps: `arguments[d][k]` is read in
// place, never copied, so devices that read the same value may point at
// one literal. Each device's budget is still charged for all of its
// arguments.
absl::StatusOr<std::vector<Literal>> RunModuleOn(
    const HloModule& module, const std::vector<std::vector<const Literal*>>& arguments,
    const EvalOptions& options = {}, RunLog* log = nullptr);

// OK when arguments of these shapes fit `options.max_bytes_per_device`;
// otherwise ResourceExhausted naming the largest parameter. Check before
// making arguments: RandomArguments allocates them whatever their size.
absl::Status CheckArgumentsFit(const std::vector<Shape>& shapes, const EvalOptions& options = {});
absl::Status CheckArgumentsFit(const HloModule& module, const EvalOptions& options = {});

// Seeded random arguments for every device: floats in [-2, 2), integers in
// [-8, 8) (or [0, 16) unsigned), pred fair coins.
std::vector<std::vector<Literal>> RandomArguments(const HloModule& module, int64_t devices,
                                                  uint64_t seed);
// The same for a list of parameter shapes: RandomArguments(module, ...) is
// RandomArgumentsForShapes(<the entry's parameter shapes>, ...), so inputs
// made from a split manifest's entry parameters equal the original's.
std::vector<std::vector<Literal>> RandomArgumentsForShapes(const std::vector<Shape>& shapes,
                                                           int64_t devices, uint64_t seed);

// Bitwise equality of two literals (NaN payloads included); on a difference
// describes the first one ("element 3: 1.5 vs 2").
bool BitwiseEqual(const Literal& a, const Literal& b, std::string* difference);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_EVAL_EVALUATOR_H_

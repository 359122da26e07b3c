// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_MESH_ENCODER_H_
#define HOPT_CORE_PROVE_MESH_ENCODER_H_

// A module as formulas on every device of a mesh at once (docs/proofs.md):
// the instructions are taken in order, each for every device, so a
// collective reads all of its group's operand formulas as the interpreter's
// rendezvous reads their values. What no formula stands for (a while loop,
// an op without an encoding) is an Unimplemented error naming the
// instruction: the proof's answer is then "unknown", with that reason.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/prove/symbolic_value.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace prove {

class MeshEncoder {
 public:
  MeshEncoder(Encoder& encoder, eval::Mesh mesh, const eval::CustomCallTable* custom_calls)
      : encoder_(encoder), mesh_(mesh), custom_calls_(custom_calls) {}

  int64_t devices() const { return mesh_.replicas * mesh_.partitions; }
  // Whether a custom-call without registered semantics was encoded as an
  // uninterpreted function (opaque_call_formula.h): a proof then holds for
  // every meaning of the call, and the result line says so.
  bool used_opaque_calls() const { return used_opaque_calls_; }

  // The entry's result on every device; `arguments[d][k]` is parameter k
  // of device d.
  absl::StatusOr<std::vector<SymValue>> Run(const HloModule& module,
                                            const std::vector<std::vector<SymValue>>& arguments);

  // The computation a call, fusion or async-start runs (encoded on every
  // device at once, collectives included); null when there is none.
  static const HloComputation* MeshWideCallee(const HloInstruction& i);

  // Most scalar elements a value may have: larger ones are refused
  // ("unknown") rather than encoded slowly.
  static constexpr int64_t kMaxElements = 1 << 16;
  // Most element formulas for a whole region over every device (about a
  // kilobyte of Z3's memory each): past it the answer is "unknown" in
  // seconds instead of a proof that takes gigabytes.
  static constexpr int64_t kMaxRegionElements = int64_t{1} << 20;

 private:
  using DeviceValues = std::vector<SymValue>;  // one per device

  absl::StatusOr<DeviceValues> RunComputation(const HloComputation& computation,
                                              const std::vector<DeviceValues>& arguments);
  // One device, no collectives (called computations: reductions, calls).
  absl::StatusOr<SymValue> RunLocal(const HloComputation& computation,
                                    const std::vector<SymValue>& arguments, int64_t device);
  absl::StatusOr<SymValue> Local(const HloInstruction& i, const std::vector<const SymValue*>& ops,
                                 int64_t device);
  absl::StatusOr<DeviceValues> Collective(const HloInstruction& i,
                                          const eval::CollectiveDescription& c,
                                          const std::vector<std::vector<const SymValue*>>& ops);
  // What `group[position]` receives from an all-to-all: operand
  // `position` of every member (tuple form), or chunk `position` of every
  // member's operand along the dimension, in the group's order (array form).
  absl::StatusOr<SymValue> AllToAll(const HloInstruction& i, const eval::CollectiveDescription& c,
                                    const std::vector<int64_t>& group, int64_t position,
                                    const std::vector<std::vector<const SymValue*>>& ops);
  // An async or collective start's value as the interpreter makes it
  // (core/eval/wrapped_ops.cc): (operands, result, zero contexts...).
  absl::StatusOr<SymValue> StartValue(const HloInstruction& i,
                                      const std::vector<const SymValue*>& operands,
                                      SymValue result);
  // The -done and -update halves of the async pairs, and copy-start/-done:
  // they unpack or pass on what the start made (one device); nullopt for
  // other instructions.
  absl::StatusOr<std::optional<SymValue>> AsyncPart(const HloInstruction& i,
                                                    const std::vector<const SymValue*>& ops);
  // Native send, recv, send-done and recv-done, as the interpreter pairs
  // them: by channel, ids of partitions (of replicas on a one-partition
  // mesh), pairs from _xla_send_recv_source_target_pairs.
  absl::StatusOr<DeviceValues> SendRecv(const HloInstruction& i,
                                        const std::vector<std::vector<const SymValue*>>& ops);
  absl::StatusOr<SymValue> Zeros(const Shape& shape);
  absl::StatusOr<z3::expr> Reduce2(const HloComputation* reduction, std::optional<HloOpcode> opcode,
                                   PrimitiveType type, const z3::expr& a, const z3::expr& b,
                                   int64_t device);

  Encoder& encoder_;
  eval::Mesh mesh_;
  const eval::CustomCallTable* custom_calls_;
  struct Mailbox {
    std::vector<SymValue> sent;  // by device
    std::vector<std::pair<int64_t, int64_t>> pairs;
    bool has_pairs = false;
  };
  std::map<int64_t, Mailbox> mailboxes_;  // by channel
  int64_t elements_ = 0;                  // element formulas made so far
  bool used_opaque_calls_ = false;
};

// Free variables for `shape` named `prefix`.N (tuples element by element).
absl::StatusOr<SymValue> FreshValue(Encoder& encoder, const Shape& shape,
                                    const std::string& prefix);

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_MESH_ENCODER_H_

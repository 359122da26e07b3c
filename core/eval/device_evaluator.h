// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_DEVICE_EVALUATOR_H_
#define HOPT_CORE_EVAL_DEVICE_EVALUATOR_H_

// One device's evaluation of a module, internal to the interpreter (not
// installed). RunModule (evaluator.cc) starts a DeviceEvaluator per device
// of the mesh, each on a thread of its own; they meet at collectives through
// one shared Rendezvous. The collective, send/recv and custom-call members
// are in device_communication.cc, the rest in device_evaluator.cc.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/eval/ops.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/custom_call_table.h"
#include "hopt/eval/evaluator.h"
#include "hopt/eval/opaque_calls.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace eval {

// Each device runs on a thread of its own, with a stack sized for the
// module's deepest nest of computations: kDeviceStackBaseBytes, and
// kDeviceStackPerLevelBytes more per level, at most kDeviceStackBytes.
// Untouched pages cost no memory, but every byte is address space, which
// a large mesh under a limit can run out of.
constexpr size_t kDeviceStackBytes = size_t{64} << 20;
constexpr size_t kDeviceStackBaseBytes = size_t{4} << 20;
constexpr size_t kDeviceStackPerLevelBytes = size_t{512} << 10;

inline int64_t ValueBytes(const Literal& value) { return value.AllocatedBytes(); }

// UNIMPLEMENTED, naming the instruction and its opcode.
absl::Status UnsupportedInstruction(const HloInstruction& i, absl::string_view why);
// `status` with its message prefixed as UnsupportedInstruction's are (in
// place of an operation's own "gather: "), so that a malformed instruction
// names itself; the code is kept.
absl::Status NameInstruction(const HloInstruction& i, const absl::Status& status);

// The part of a collective's shape that holds its results: the whole
// shape, but for an all-gather-start or collective-permute-start that
// echoes its operands ((operand, result[, contexts...])), the second element.
const Shape& CollectiveResultShape(const HloInstruction& i);
bool EchoesOperands(const HloInstruction& i);

// Meeting point of the devices' threads at a collective.
class Rendezvous {
 public:
  explicit Rendezvous(int64_t timeout_ms) : timeout_ms_(timeout_ms) {}

  // Files `value` as `me`'s part of the exchange `key` and waits until each
  // of `participants` has filed its part (or the timeout, or an abort);
  // returns the parts in `participants`' order.
  absl::StatusOr<std::vector<Literal>> Exchange(const std::string& key, int64_t me,
                                                const std::vector<int64_t>& participants,
                                                Literal value);

  bool aborted() {
    std::lock_guard<std::mutex> lock(mu_);
    return !aborted_.empty();
  }

  void Abort(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_.empty()) aborted_ = why;
    cv_.notify_all();
  }

 private:
  struct Slot {
    std::map<int64_t, Literal> values;
    int64_t taken = 0;
  };
  int64_t timeout_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Slot> slots_;
  std::string aborted_;
};

// Per computation, computed once before the device threads start (the IR's
// post-order walk is not safe to run from several threads). Values are kept
// by position in `order`, so evaluation needs no map from instructions.
constexpr uint32_t kNoPosition = ~uint32_t{0};

struct ComputationPlan {
  std::vector<const HloInstruction*> order;
  // For each position, the positions of its operands (kNoPosition for an
  // operand outside the computation, which only an unverified module has).
  std::vector<std::vector<uint32_t>> operand_positions;
  // For each position, the positions no later instruction reads.
  std::vector<std::vector<uint32_t>> dead_after;
  uint32_t root_position = kNoPosition;
};

// Constants up to this size are parsed once, before the run, and copied
// where they are evaluated (a while body's constants run once per
// iteration). Larger ones are parsed where they are evaluated, so the plan
// never holds a second copy of a big array outside the memory budget.
constexpr int64_t kPlannedConstantBytes = 64 << 10;

struct Plans {
  absl::flat_hash_map<const HloComputation*, ComputationPlan> computations;
  absl::flat_hash_map<const HloInstruction*, absl::StatusOr<Literal>> constants;
};

Plans MakePlans(const HloModule& module);

class DeviceEvaluator {
 public:
  DeviceEvaluator(const HloModule& module, const Plans& plans, const Mesh& mesh, int64_t device,
                  Rendezvous& rendezvous, const EvalOptions& options,
                  std::vector<OpaqueCall>* opaque_log);

  // `args` are borrowed, not copied: a parameter instruction makes the one
  // copy, which the budget counts.
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal* const> args);

  // What the entry's arguments take on this device (the caller's copies,
  // which live through the whole run).
  absl::Status ChargeArguments(int64_t bytes);

 private:
  DeviceId id() const { return {device_ / mesh_.partitions, device_ % mesh_.partitions}; }

  absl::Status OverBudget(absl::string_view what) const;

  // A value held outside a computation's values (a loop's state, what a
  // collective exchanges), charged to the device while it lives.
  class HeldBytes {
   public:
    explicit HeldBytes(DeviceEvaluator& device) : device_(device) {}
    ~HeldBytes() { device_.live_bytes_ -= bytes_; }
    HeldBytes(const HeldBytes&) = delete;
    HeldBytes& operator=(const HeldBytes&) = delete;
    absl::Status Set(int64_t bytes, absl::string_view what) {
      device_.live_bytes_ += bytes - bytes_;
      bytes_ = bytes;
      if (device_.live_bytes_ > device_.options_.max_bytes_per_device)
        return device_.OverBudget(
            absl::StrCat(what, " brings the live values to ", device_.live_bytes_, " bytes"));
      return absl::OkStatus();
    }

   private:
    DeviceEvaluator& device_;
    int64_t bytes_ = 0;
  };

  absl::StatusOr<std::vector<Literal>> CallScalars(const HloComputation& computation,
                                                   const std::vector<Literal>& args);

  // For a reduction computation that is exactly op(p0, p1) on scalars of
  // `input`'s type: the element combiner that computes it directly.
  static std::optional<ElementCombiner> PlainBinaryCombiner(const HloComputation& computation,
                                                            const Literal& input);

  // Combines two arrays elementwise with a reduction computation (fast path
  // for a plain binary op of the two parameters).
  absl::StatusOr<Literal> Combine(const HloComputation& computation, const Literal& a,
                                  const Literal& b);

  // ---- Collectives, send/recv and custom-calls (device_communication.cc)

  // all-reduce-start, all-gather-start, collective-permute-start: the
  // collective runs at the start; the value is its result, or (operands,
  // result, zero contexts) when the start's shape echoes its operands.
  absl::StatusOr<Literal> CollectiveStart(const HloInstruction& i,
                                          const std::vector<const Literal*>& ops);
  // The matching -done: the result part of what its start made.
  absl::StatusOr<Literal> CollectiveDone(const HloInstruction& i, const Literal& started);

  // Each id in range; no source or target twice unless `repeats_allowed`.
  static absl::Status CheckSourceTargetPairs(const HloInstruction& i,
                                             const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                             int64_t ids, bool repeats_allowed = false);

  std::string RendezvousKey(const HloInstruction& i, const std::vector<int64_t>& participants);

  absl::StatusOr<Literal> Collective(const HloInstruction& i,
                                     const std::vector<const Literal*>& operands);

  // What the participants of a collective exchanged, as this device sees it.
  struct CollectiveExchange {
    const HloInstruction& i;  // names the errors
    const CollectiveDescription& c;
    const std::vector<int64_t>& participants;
    int64_t position;  // this device's place among the participants
    // Per participant, in group order: its operands as one tuple.
    std::vector<Literal> bundles;

    int64_t size() const { return static_cast<int64_t>(participants.size()); }
    const Literal& piece(int64_t device_position, size_t operand) const {
      return bundles[device_position].tuple_elements()[operand];
    }
  };

  // Runs `c` for instruction `i` (a native collective or a custom-call that
  // stands for one); `i` names the rendezvous and the errors. The group is
  // resolved, the operands exchanged, then each kind makes its result from
  // what arrived.
  absl::StatusOr<Literal> Collective(const HloInstruction& i, const CollectiveDescription& c,
                                     const std::vector<const Literal*>& operands);

  // Everything is exchanged as one tuple of the operands; returns every
  // participant's tuple in group order, charged to `sent` and `received`.
  absl::StatusOr<std::vector<Literal>> ExchangeOperands(const HloInstruction& i,
                                                        const std::vector<int64_t>& participants,
                                                        const std::vector<const Literal*>& operands,
                                                        HeldBytes& sent, HeldBytes& received);

  // One result per operand: the single result itself, unless `i` makes a
  // tuple.
  static Literal WrapCollectiveResults(const HloInstruction& i, std::vector<Literal> results);

  // Operand k reduced over the group, in group order.
  absl::StatusOr<Literal> ReduceAcross(const CollectiveExchange& x, size_t k);

  // Part `index` of `n` equal parts of `value` along `dimension`.
  static absl::StatusOr<Literal> ChunkAlong(const Literal& value, int64_t dimension, int64_t index,
                                            int64_t chunk);

  absl::StatusOr<Literal> AllReduceResult(const CollectiveExchange& x,
                                          const std::vector<const Literal*>& operands);

  static absl::StatusOr<Literal> AllGatherResult(const CollectiveExchange& x,
                                                 const std::vector<const Literal*>& operands);

  absl::StatusOr<Literal> ReduceScatterResult(const CollectiveExchange& x,
                                              const std::vector<const Literal*>& operands);

  static absl::StatusOr<Literal> AllToAllResult(const CollectiveExchange& x,
                                                const std::vector<const Literal*>& operands);

  // ragged_all_to_all.h: this device's result from every member's six operands.
  static absl::StatusOr<Literal> RaggedAllToAllResult(const CollectiveExchange& x);

  absl::StatusOr<Literal> CollectivePermuteResult(const CollectiveExchange& x,
                                                  const std::vector<const Literal*>& operands);

  using SourceTargetPairs = std::vector<std::pair<int64_t, int64_t>>;

  // The `_xla_send_recv_source_target_pairs` an instruction carries.
  static absl::StatusOr<std::optional<SourceTargetPairs>> PairsAttribute(const HloInstruction& i);

  // send/recv pairs meet by channel. Ids in `_xla_send_recv_source_target_pairs`
  // are partition ids on a mesh with partitions, replica ids otherwise. Every
  // device runs the send (SPMD), which is where the data is exchanged; the
  // recv-done then picks what its source sent. Which pairs: the recv's, else
  // the recv-done's, else the send's (fuse-send-recv gives its call the
  // same ones); a send-done's are not read.
  absl::StatusOr<Literal> SendRecv(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // What a send or recv produces: (data, context, token) when `i`'s shape
  // has three elements.
  static Literal SendRecvContext(const HloInstruction& i, const Literal& data);

  // Ids of send/recv pairs: partition ids on a mesh with partitions,
  // replica ids otherwise.
  bool SendRecvByPartition() const { return mesh_.partitions > 1; }

  // Exchanges the data among the devices of the id space and files what
  // each sender sent in this device's mailbox for the channel.
  absl::StatusOr<Literal> Send(const HloInstruction& i, int64_t channel,
                               const std::vector<const Literal*>& ops);

  // (data, token): what this device's source sent on the channel, zeros
  // when it is no target.
  absl::StatusOr<Literal> RecvDone(const HloInstruction& i, int64_t channel);

  // docs/hlo-run.md, "Opaque custom-calls".
  absl::StatusOr<Literal> Opaque(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // ---- Evaluation by opcode family (device_evaluator.cc, except
  // EvaluateCommunication and CustomCall)

  // Each opcode family below evaluates the opcodes it knows and returns
  // nullopt for the others; the families are disjoint.
  using FamilyResult = std::optional<absl::StatusOr<Literal>>;

  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& i,
                                              const std::vector<const Literal*>& ops,
                                              absl::Span<const Literal* const> args);

  // Parameters, constants, identities, tokens, ids and tuples.
  FamilyResult EvaluateValueOp(const HloInstruction& i, const std::vector<const Literal*>& ops,
                               absl::Span<const Literal* const> args);

  absl::StatusOr<Literal> EvaluateConstant(const HloInstruction& i) const;

  // The elementwise operations that read attributes or more than two
  // operands (plain unary and binary ones are EvaluateInstruction's).
  static FamilyResult EvaluateElementwiseWithAttributes(const HloInstruction& i,
                                                        const std::vector<const Literal*>& ops);

  // Shape changes and data movement.
  static FamilyResult EvaluateDataMovement(const HloInstruction& i,
                                           const std::vector<const Literal*>& ops);

  static absl::StatusOr<Literal> EvaluatePad(const HloInstruction& i,
                                             const std::vector<const Literal*>& ops);

  // Dot, convolution and reduce.
  FamilyResult EvaluateDenseOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& i,
                                         const std::vector<const Literal*>& ops);

  // Call, while and conditional: nested computations.
  FamilyResult EvaluateControlFlow(const HloInstruction& i, const std::vector<const Literal*>& ops);

  absl::StatusOr<Literal> RunWhile(const HloInstruction& i, const std::vector<const Literal*>& ops);

  absl::StatusOr<Literal> RunConditional(const HloInstruction& i,
                                         const std::vector<const Literal*>& ops);

  // Collectives, send/recv and custom-calls (which may stand for a
  // collective).
  FamilyResult EvaluateCommunication(const HloInstruction& i,
                                     const std::vector<const Literal*>& ops);

  // A registered collective or semantics, else an opaque call (unless
  // refused).
  absl::StatusOr<Literal> CustomCall(const HloInstruction& i,
                                     const std::vector<const Literal*>& ops);

  // ---- Families in files of their own, named after them

  // Gather and scatter (gather_scatter.cc).
  FamilyResult EvaluateGatherScatter(const HloInstruction& i,
                                     const std::vector<const Literal*>& ops);

  // Reduce-window, select-and-scatter and map (window_ops.cc).
  FamilyResult EvaluateWindowOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // Sort, topk, ragged-dot and scaled-dot (sort_ops.cc).
  FamilyResult EvaluateSortOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // Fft, cholesky, triangular-solve and the batch-norm ops (linalg_ops.cc).
  FamilyResult EvaluateLinalgOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // Rng, rng-bit-generator and rng-get-and-update-state (random_ops.cc).
  FamilyResult EvaluateRandomOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  // Bitcast, reduce-precision, stochastic-convert and the dynamic-shape ops (conversion_ops.cc).
  FamilyResult EvaluateConversionOp(const HloInstruction& i,
                                    const std::vector<const Literal*>& ops);

  // Fusion, the async pairs and copy-start/copy-done (wrapped_ops.cc).
  FamilyResult EvaluateWrappedOp(const HloInstruction& i, const std::vector<const Literal*>& ops);

  const HloModule& module_;
  const Plans& plans_;
  Mesh mesh_;
  int64_t device_;
  Rendezvous& rendezvous_;
  const EvalOptions& options_;
  std::vector<OpaqueCall>* opaque_log_;  // may be null
  absl::flat_hash_map<const HloInstruction*, int64_t> executions_;
  unsigned __int128 rng_state_ = 0x7012395;  // rng-get-and-update-state's, as XLA's CPU starts it
  int64_t live_bytes_ = 0;
  // Bodies of while loops run so far, nested ones included.
  int64_t while_steps_ = 0;
  int64_t depth_ = 0;  // computations being evaluated, for max_call_depth
  // Below this address the thread's stack has less than kStackReserveBytes.
  const char* stack_floor_;
  // What the last send of each channel delivered, by sender id, and the
  // source-target pairs that send carried (if any).
  struct Delivery {
    std::map<int64_t, Literal> by_sender;
    std::optional<std::vector<std::pair<int64_t, int64_t>>> send_pairs;
  };
  absl::flat_hash_map<int64_t, Delivery> mailbox_;
};

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_DEVICE_EVALUATOR_H_

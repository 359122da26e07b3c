#include "hopt/eval/evaluator.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <pthread.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/support/status_macros.h"
#include "core/eval/dense_kernels.h"
#include "core/eval/ops.h"
#include "llvm/Support/thread.h"

namespace hopt {
namespace eval {
namespace {

absl::Status Unsupported(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("interpreter: ", i.name(), " (", i.OpcodeSpelling(), "): ", why));
}

int64_t ValueBytes(const Literal& value) { return value.AllocatedBytes(); }

int64_t ArgumentBytes(absl::Span<const Literal* const> args) {
  int64_t total = 0;
  for (const Literal* arg : args) total += ValueBytes(*arg);
  return total;
}

// Meeting point of the devices' threads at a collective.
class Rendezvous {
 public:
  explicit Rendezvous(int64_t timeout_ms) : timeout_ms_(timeout_ms) {}

  absl::StatusOr<std::vector<Literal>> Exchange(const std::string& key, int64_t me,
                                                const std::vector<int64_t>& participants,
                                                Literal value) {
    std::unique_lock<std::mutex> lock(mu_);
    Slot& slot = slots_[key];
    slot.values.emplace(me, std::move(value));
    cv_.notify_all();
    bool complete = cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms_), [&] {
      return !aborted_.empty() || slot.values.size() == participants.size();
    });
    if (!aborted_.empty()) return absl::AbortedError(aborted_);
    if (!complete) {
      std::vector<int64_t> missing;
      for (int64_t p : participants)
        if (!slot.values.count(p)) missing.push_back(p);
      std::string why = absl::StrCat("collective ", key, ": device(s) ", absl::StrJoin(missing, ","),
                                     " never arrived (the devices disagree on the collectives "
                                     "they run)");
      aborted_ = why;
      cv_.notify_all();
      return absl::DeadlineExceededError(why);
    }
    std::vector<Literal> all;
    for (int64_t p : participants) all.push_back(slot.values.at(p));
    if (++slot.taken == static_cast<int64_t>(participants.size())) slots_.erase(key);
    return all;
  }

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
// post-order walk is not safe to run from several threads): the order, and
// for each position the values no later instruction uses.
struct ComputationPlan {
  std::vector<const HloInstruction*> order;
  std::vector<std::vector<const HloInstruction*>> dead_after;
};
using Plans = absl::flat_hash_map<const HloComputation*, ComputationPlan>;

Plans MakePlans(const HloModule& module) {
  Plans plans;
  for (const HloComputation* computation : module.computations()) {
    ComputationPlan& plan = plans[computation];
    for (const HloInstruction* i : computation->MakeInstructionPostOrder()) plan.order.push_back(i);
    absl::flat_hash_map<const HloInstruction*, size_t> last_use;
    for (size_t k = 0; k < plan.order.size(); ++k)
      for (const HloInstruction* operand : plan.order[k]->operands()) last_use[operand] = k;
    plan.dead_after.resize(plan.order.size());
    for (const auto& [value, k] : last_use)
      if (value != computation->root_instruction()) plan.dead_after[k].push_back(value);
  }
  return plans;
}

std::vector<int64_t> IntList(const HloInstruction& i, absl::string_view name) {
  auto text = i.GetAttributeText(name);
  if (!text) return {};
  return ParseIntList(*text).value_or(std::vector<int64_t>{});
}

int64_t ScalarAsInt(const Literal& value) { return value.GetAsInt64(0); }

// Each device runs on a thread with this much stack; untouched pages cost
// no memory.
constexpr unsigned kDeviceStackBytes = 64u << 20;
// What one more level of nested evaluation may need, at most.
constexpr size_t kStackReserveBytes = 1u << 20;

// The lowest frame address the calling thread may reach while keeping
// kStackReserveBytes of its stack free (nullptr when unknown).
const char* StackFloor() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return nullptr;
  void* low = nullptr;
  size_t size = 0;
  int got = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  if (got != 0 || size <= kStackReserveBytes) return nullptr;
  return static_cast<const char*>(low) + kStackReserveBytes;
}

class DeviceEvaluator {
 public:
  DeviceEvaluator(const HloModule& module, const Plans& plans, const Mesh& mesh, int64_t device,
                  Rendezvous& rendezvous, const EvalOptions& options,
                  std::vector<OpaqueCall>* opaque_log)
      : module_(module),
        plans_(plans),
        mesh_(mesh),
        device_(device),
        rendezvous_(rendezvous),
        options_(options),
        opaque_log_(opaque_log),
        stack_floor_(StackFloor()) {}

  // `args` are borrowed, not copied: a parameter instruction makes the one
  // copy, which the budget counts.
  absl::StatusOr<Literal> Evaluate(const HloComputation& computation,
                                   absl::Span<const Literal* const> args) {
    if (static_cast<int64_t>(args.size()) != computation.num_parameters())
      return absl::InvalidArgumentError(absl::StrCat("computation ", computation.name(), " takes ",
                                                     computation.num_parameters(),
                                                     " arguments, got ", args.size()));
    if (depth_ >= options_.max_call_depth)
      return absl::ResourceExhaustedError(absl::StrCat(
          "interpreter: computations nest more than ", options_.max_call_depth,
          " deep (at computation ", computation.name(), ")"));
    // The safety net for whatever the depth limit does not foresee (a
    // caller's small stack, an unusually large frame).
    if (static_cast<const char*>(__builtin_frame_address(0)) < stack_floor_)
      return absl::ResourceExhaustedError(absl::StrCat(
          "interpreter: computations nest too deeply for the stack (", depth_,
          " deep, at computation ", computation.name(), ")"));
    struct Nest {
      int64_t& depth;
      explicit Nest(int64_t& d) : depth(d) { ++depth; }
      ~Nest() { --depth; }
    } nest(depth_);
    absl::flat_hash_map<const HloInstruction*, Literal> values;
    // The budget covers every live value on the device, callers' included.
    int64_t& live_bytes = live_bytes_;
    struct Release {
      absl::flat_hash_map<const HloInstruction*, Literal>& values;
      int64_t& live;
      ~Release() {
        for (const auto& [instruction, value] : values) live -= ValueBytes(value);
      }
    } release{values, live_bytes};
    auto plan_it = plans_.find(&computation);
    if (plan_it == plans_.end())
      return absl::InternalError(absl::StrCat("no plan for computation ", computation.name()));
    const ComputationPlan& plan = plan_it->second;
    for (size_t k = 0; k < plan.order.size(); ++k) {
      const HloInstruction* instruction = plan.order[k];
      // Refused before it is made, so the peak stays near the budget; the
      // charge after it is what was really allocated.
      int64_t expected = Literal::AllocatedBytesFor(instruction->shape());
      if (expected > options_.max_bytes_per_device - live_bytes)
        return OverBudget(absl::StrCat("computing ", instruction->name(), " (",
                                       instruction->shape().ToString(false), ", ", expected,
                                       " bytes) in computation ", computation.name(),
                                       " with ", live_bytes, " bytes live"));
      std::vector<const Literal*> operands;
      for (const HloInstruction* operand : instruction->operands()) {
        auto it = values.find(operand);
        if (it == values.end())
          return absl::InternalError(absl::StrCat("operand ", operand->name(), " has no value"));
        operands.push_back(&it->second);
      }
      HOPT_ASSIGN_OR_RETURN(Literal value, EvaluateInstruction(*instruction, operands, args));
      live_bytes += ValueBytes(value);
      values.emplace(instruction, std::move(value));
      if (live_bytes > options_.max_bytes_per_device)
        return OverBudget(absl::StrCat("live values of computation ", computation.name(),
                                       " reach ", live_bytes, " bytes at ", instruction->name()));
      // Values no later instruction reads are dropped at once.
      for (const HloInstruction* dead : plan.dead_after[k]) {
        auto it = values.find(dead);
        if (it == values.end()) continue;
        live_bytes -= ValueBytes(it->second);
        values.erase(it);
      }
    }
    // Moved out, not copied: the caller charges it as its own value.
    auto root = values.find(computation.root_instruction());
    if (root == values.end()) return absl::InternalError("the root has no value");
    live_bytes -= ValueBytes(root->second);
    Literal result = std::move(root->second);
    values.erase(root);
    return result;
  }

  // What the entry's arguments take on this device (the caller's copies,
  // which live through the whole run).
  absl::Status ChargeArguments(int64_t bytes) {
    live_bytes_ += bytes;
    if (live_bytes_ > options_.max_bytes_per_device)
      return OverBudget(absl::StrCat("the arguments take ", bytes, " bytes"));
    return absl::OkStatus();
  }

 private:
  DeviceId id() const { return {device_ / mesh_.partitions, device_ % mesh_.partitions}; }

  absl::Status OverBudget(absl::string_view what) const {
    return absl::ResourceExhaustedError(absl::StrCat(
        "interpreter: ", what, ", over the budget of ", options_.max_bytes_per_device,
        " bytes per device"));
  }

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
                                                   const std::vector<Literal>& args) {
    std::vector<const Literal*> borrowed;
    for (const Literal& arg : args) borrowed.push_back(&arg);
    HOPT_ASSIGN_OR_RETURN(Literal result, Evaluate(computation, borrowed));
    if (result.shape().IsTuple()) return std::move(result.mutable_tuple_elements());
    return std::vector<Literal>{std::move(result)};
  }

  // For a reduction computation that is exactly op(p0, p1) on scalars of
  // `input`'s type: the element combiner that computes it directly.
  static std::optional<ElementCombiner> PlainBinaryCombiner(const HloComputation& computation,
                                                            const Literal& input) {
    const HloInstruction* root = computation.root_instruction();
    PrimitiveType type = input.shape().element_type();
    if (computation.num_parameters() != 2 || !IsElementwiseBinary(root->opcode()) ||
        root->operand_count() != 2 || root->operand(0) != computation.parameter_instruction(0) ||
        root->operand(1) != computation.parameter_instruction(1) ||
        !root->shape().IsScalar() || root->shape().element_type() != type)
      return std::nullopt;
    for (const HloInstruction* parameter : computation.parameter_instructions())
      if (!parameter->shape().IsScalar() || parameter->shape().element_type() != type)
        return std::nullopt;
    auto combiner = MakeElementCombiner(root->opcode(), type);
    if (!combiner.ok()) return std::nullopt;
    return *std::move(combiner);
  }

  // Combines two arrays elementwise with a reduction computation (fast path
  // for a plain binary op of the two parameters).
  absl::StatusOr<Literal> Combine(const HloComputation& computation, const Literal& a,
                                  const Literal& b) {
    const HloInstruction* root = computation.root_instruction();
    if (IsElementwiseBinary(root->opcode()) && root->operand_count() == 2 &&
        root->operand(0)->opcode() == HloOpcode::kParameter &&
        root->operand(1)->opcode() == HloOpcode::kParameter &&
        root->operand(0) != root->operand(1))
      return root->operand(0)->parameter_number() == 0 ? Binary(root->opcode(), a, b)
                                                        : Binary(root->opcode(), b, a);
    Literal out(a.shape());
    for (int64_t k = 0; k < a.element_count(); ++k) {
      HOPT_ASSIGN_OR_RETURN(std::vector<Literal> r,
                            CallScalars(computation, {ElementAt(a, k), ElementAt(b, k)}));
      if (r.size() != 1) return absl::InvalidArgumentError("reduction must return one value");
      out.CopyElementFrom(r[0], 0, k);
    }
    return out;
  }

  // Each id in range; no source or target twice unless `repeats_allowed`.
  static absl::Status CheckSourceTargetPairs(
      const HloInstruction& i, const std::vector<std::pair<int64_t, int64_t>>& pairs, int64_t ids,
      bool repeats_allowed = false) {
    std::vector<bool> source(ids, false), target(ids, false);
    for (const auto& [s, t] : pairs) {
      if (s < 0 || s >= ids || t < 0 || t >= ids)
        return absl::InvalidArgumentError(absl::StrCat(i.name(), ": source_target_pairs name id ",
                                                       (s < 0 || s >= ids) ? s : t,
                                                       ", out of range for ", ids, " ids"));
      if (!repeats_allowed && (source[s] || target[t]))
        return absl::InvalidArgumentError(absl::StrCat(
            i.name(), ": source_target_pairs use ", source[s] ? "source " : "target ",
            source[s] ? s : t, " twice"));
      source[s] = target[t] = true;
    }
    return absl::OkStatus();
  }

  std::string RendezvousKey(const HloInstruction& i, const std::vector<int64_t>& participants) {
    int64_t count = executions_[&i]++;
    return absl::StrCat(i.parent()->name(), "/", i.name(), "#", count, "@",
                        absl::StrJoin(participants, ","));
  }

  absl::StatusOr<Literal> Collective(const HloInstruction& i,
                                     const std::vector<const Literal*>& operands) {
    HOPT_ASSIGN_OR_RETURN(CollectiveDescription description, DescribeCollective(i));
    return Collective(i, description, operands);
  }

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
                                     const std::vector<const Literal*>& operands) {
    HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> participants,
                          ParticipatingDevices(c, i.name(), mesh_, device_));
    int64_t position = std::find(participants.begin(), participants.end(), device_) -
                       participants.begin();
    // This device's copies, then every participant's: all live until the
    // result is made.
    HeldBytes sent(*this), received(*this);
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> bundles,
                          ExchangeOperands(i, participants, operands, sent, received));
    const CollectiveExchange x{i, c, participants, position, std::move(bundles)};
    switch (c.kind) {
      case HloOpcode::kAllReduce:
        return AllReduceResult(x, operands);
      case HloOpcode::kAllGather:
        return AllGatherResult(x, operands);
      case HloOpcode::kReduceScatter:
        return ReduceScatterResult(x, operands);
      case HloOpcode::kAllToAll:
        return AllToAllResult(x, operands);
      case HloOpcode::kCollectivePermute:
        return CollectivePermuteResult(x, operands);
      default:
        return Unsupported(i, "not a collective");
    }
  }

  // Everything is exchanged as one tuple of the operands; returns every
  // participant's tuple in group order, charged to `sent` and `received`.
  absl::StatusOr<std::vector<Literal>> ExchangeOperands(const HloInstruction& i,
                                                        const std::vector<int64_t>& participants,
                                                        const std::vector<const Literal*>& operands,
                                                        HeldBytes& sent, HeldBytes& received) {
    std::string key = RendezvousKey(i, participants);
    std::vector<Shape> shapes;
    for (const Literal* operand : operands) shapes.push_back(operand->shape());
    Literal bundle(Shape::MakeTuple(shapes));
    for (size_t k = 0; k < operands.size(); ++k) bundle.mutable_tuple_elements()[k] = *operands[k];
    HOPT_RETURN_IF_ERROR(sent.Set(ValueBytes(bundle), absl::StrCat(i.name(), "'s operands sent")));
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> all,
                          rendezvous_.Exchange(key, device_, participants, std::move(bundle)));
    int64_t received_bytes = 0;
    for (const Literal& piece : all) received_bytes += ValueBytes(piece);
    HOPT_RETURN_IF_ERROR(
        received.Set(received_bytes, absl::StrCat(i.name(), "'s values received")));
    return all;
  }

  // One result per operand: the single result itself, unless `i` makes a
  // tuple.
  static Literal WrapCollectiveResults(const HloInstruction& i, std::vector<Literal> results) {
    if (results.size() == 1 && !i.shape().IsTuple()) return std::move(results[0]);
    std::vector<Shape> result_shapes;
    for (const Literal& r : results) result_shapes.push_back(r.shape());
    Literal tuple(Shape::MakeTuple(result_shapes));
    for (size_t k = 0; k < results.size(); ++k)
      tuple.mutable_tuple_elements()[k] = std::move(results[k]);
    return tuple;
  }

  // Operand k reduced over the group, in group order.
  absl::StatusOr<Literal> ReduceAcross(const CollectiveExchange& x, size_t k) {
    Literal acc = x.piece(0, k);
    for (int64_t d = 1; d < x.size(); ++d) {
      if (x.c.reduction_opcode) {
        HOPT_ASSIGN_OR_RETURN(acc, Binary(*x.c.reduction_opcode, acc, x.piece(d, k)));
        continue;
      }
      if (x.c.reduction == nullptr) return Unsupported(x.i, "needs a reduction computation");
      HOPT_ASSIGN_OR_RETURN(acc, Combine(*x.c.reduction, acc, x.piece(d, k)));
    }
    return acc;
  }

  // Part `index` of `n` equal parts of `value` along `dimension`.
  static absl::StatusOr<Literal> ChunkAlong(const Literal& value, int64_t dimension,
                                            int64_t index, int64_t chunk) {
    const Shape& shape = value.shape();
    std::vector<int64_t> starts(shape.rank(), 0),
        limits(shape.dimensions().begin(), shape.dimensions().end()), strides(shape.rank(), 1);
    starts[dimension] = index * chunk;
    limits[dimension] = (index + 1) * chunk;
    return Slice(value, starts, limits, strides);
  }

  absl::StatusOr<Literal> AllReduceResult(const CollectiveExchange& x,
                                          const std::vector<const Literal*>& operands) {
    std::vector<Literal> results;
    for (size_t k = 0; k < operands.size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(Literal reduced, ReduceAcross(x, k));
      results.push_back(std::move(reduced));
    }
    return WrapCollectiveResults(x.i, std::move(results));
  }

  static absl::StatusOr<Literal> AllGatherResult(const CollectiveExchange& x,
                                                 const std::vector<const Literal*>& operands) {
    if (x.c.dimension < 0) return Unsupported(x.i, "needs dimensions={d}");
    std::vector<Literal> results;
    for (size_t k = 0; k < operands.size(); ++k) {
      // A scalar (torch-xla's ordering operand) takes the first member's
      // value: element 0 of gathering it as a [1] vector
      // (docs/formats.md, "Extension: scalar operands ...").
      if (operands[k]->shape().rank() == 0) {
        results.push_back(x.piece(0, k));
        continue;
      }
      std::vector<const Literal*> parts;
      for (int64_t d = 0; d < x.size(); ++d) parts.push_back(&x.piece(d, k));
      HOPT_ASSIGN_OR_RETURN(Literal gathered, Concatenate(parts, x.c.dimension));
      results.push_back(std::move(gathered));
    }
    return WrapCollectiveResults(x.i, std::move(results));
  }

  absl::StatusOr<Literal> ReduceScatterResult(const CollectiveExchange& x,
                                              const std::vector<const Literal*>& operands) {
    const int64_t dim = x.c.dimension;
    if (dim < 0) return Unsupported(x.i, "needs dimensions={d}");
    for (const Literal* operand : operands)
      if (operand->shape().rank() != 0 && dim >= operand->shape().rank())
        return absl::InvalidArgumentError(absl::StrCat(
            x.i.name(), ": dimension ", dim, " is out of range for ", operand->shape().ToString()));
    std::vector<Literal> results;
    for (size_t k = 0; k < operands.size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(Literal acc, ReduceAcross(x, k));
      // A scalar is reduced over the group, as an all-reduce would.
      if (acc.shape().rank() == 0) {
        results.push_back(std::move(acc));
        continue;
      }
      int64_t chunk = acc.shape().dimensions(dim) / x.size();
      HOPT_ASSIGN_OR_RETURN(Literal scattered, ChunkAlong(acc, dim, x.position, chunk));
      results.push_back(std::move(scattered));
    }
    return WrapCollectiveResults(x.i, std::move(results));
  }

  static absl::StatusOr<Literal> AllToAllResult(const CollectiveExchange& x,
                                                const std::vector<const Literal*>& operands) {
    const int64_t n = x.size();
    if (x.c.dimension < 0) {
      // Tuple form: operand k goes to participant k.
      if (static_cast<int64_t>(operands.size()) != n)
        return Unsupported(x.i, "tuple all-to-all needs one operand per participant");
      std::vector<Literal> results;
      for (int64_t d = 0; d < n; ++d) results.push_back(x.piece(d, x.position));
      return WrapCollectiveResults(x.i, std::move(results));
    }
    // Array form: split along d into n chunks; chunk j goes to j.
    const Literal& mine = *operands[0];
    const int64_t d = x.c.dimension;
    if (d >= mine.shape().rank())
      return absl::InvalidArgumentError(absl::StrCat(
          x.i.name(), ": dimension ", d, " is out of range for ", mine.shape().ToString()));
    if (mine.shape().dimensions(d) % n != 0)
      return absl::InvalidArgumentError(absl::StrCat(
          x.i.name(), ": dimension ", d, " of ", mine.shape().ToString(),
          " does not split into ", n, " equal parts"));
    int64_t chunk = mine.shape().dimensions(d) / n;
    std::vector<Literal> chunks;
    for (int64_t src = 0; src < n; ++src) {
      HOPT_ASSIGN_OR_RETURN(Literal part, ChunkAlong(x.piece(src, 0), d, x.position, chunk));
      chunks.push_back(std::move(part));
    }
    std::vector<const Literal*> parts;
    for (const Literal& c : chunks) parts.push_back(&c);
    return Concatenate(parts, d);
  }

  absl::StatusOr<Literal> CollectivePermuteResult(const CollectiveExchange& x,
                                                  const std::vector<const Literal*>& operands) {
    const CollectiveDescription& c = x.c;
    const int64_t n = x.size();
    // Ids in the space of the group mode (replica or partition ids).
    int64_t my_id = CollectivePermuteId(c.mode, mesh_, device_);
    HOPT_RETURN_IF_ERROR(
        CheckSourceTargetPairs(x.i, c.source_target_pairs, n, c.point_to_point));
    // Zeros for a device that is no target.
    if (operands.size() != 1) return Unsupported(x.i, "needs one operand");
    Literal result(operands[0]->shape());
    for (const auto& [source, target] : c.source_target_pairs) {
      if (target != my_id) continue;
      for (int64_t d = 0; d < n; ++d)
        if (CollectivePermuteId(c.mode, mesh_, x.participants[d]) == source)
          result = x.piece(d, 0);
    }
    if (!c.point_to_point) return result;
    Literal with_token(Shape::MakeTuple({result.shape(), Shape::MakeToken()}));
    with_token.mutable_tuple_elements()[0] = std::move(result);
    with_token.mutable_tuple_elements()[1] = Literal(Shape::MakeToken());
    return with_token;
  }

  using SourceTargetPairs = std::vector<std::pair<int64_t, int64_t>>;

  // The `_xla_send_recv_source_target_pairs` an instruction carries.
  static absl::StatusOr<std::optional<SourceTargetPairs>> PairsAttribute(const HloInstruction& i) {
    for (const auto& [key, value] : i.frontend_attributes()) {
      if (key != "_xla_send_recv_source_target_pairs") continue;
      auto pairs = ParseSourceTargetPairs(value);
      if (!pairs.ok())
        return Unsupported(i, absl::StrCat("malformed _xla_send_recv_source_target_pairs: ",
                                           pairs.status().message()));
      return std::optional(*std::move(pairs));
    }
    return std::nullopt;
  }

  // send/recv pairs meet by channel. Ids in `_xla_send_recv_source_target_pairs`
  // are partition ids on a mesh with partitions, replica ids otherwise. Every
  // device runs the send (SPMD), which is where the data is exchanged; the
  // recv-done then picks what its source sent. Which pairs: the recv's, else
  // the recv-done's, else the send's (fuse-send-recv gives its call the
  // same ones); a send-done's are not read.
  absl::StatusOr<Literal> SendRecv(const HloInstruction& i, const std::vector<const Literal*>& ops) {
    auto channel = i.channel_id();
    if (!channel) return Unsupported(i, "send/recv needs a channel_id");
    switch (i.opcode()) {
      case HloOpcode::kSend:
        return Send(i, *channel, ops);
      case HloOpcode::kRecv:
        return SendRecvContext(i, Literal(i.shape().IsTuple() && i.shape().tuple_shapes_size() == 3
                                              ? i.shape().tuple_shapes(0)
                                              : Shape()));
      case HloOpcode::kSendDone:
        return Literal(Shape::MakeToken());
      case HloOpcode::kRecvDone:
        return RecvDone(i, *channel);
      default:
        return Unsupported(i, "not a send or recv");
    }
  }

  // What a send or recv produces: (data, context, token) when `i`'s shape
  // has three elements.
  static Literal SendRecvContext(const HloInstruction& i, const Literal& data) {
    Literal tuple(i.shape());
    if (tuple.tuple_elements().size() == 3) {
      tuple.mutable_tuple_elements()[0] = data;
      tuple.mutable_tuple_elements()[2] = Literal(Shape::MakeToken());
    }
    return tuple;
  }

  // Ids of send/recv pairs: partition ids on a mesh with partitions,
  // replica ids otherwise.
  bool SendRecvByPartition() const { return mesh_.partitions > 1; }

  // Exchanges the data among the devices of the id space and files what
  // each sender sent in this device's mailbox for the channel.
  absl::StatusOr<Literal> Send(const HloInstruction& i, int64_t channel,
                               const std::vector<const Literal*>& ops) {
    if (ops.empty()) return Unsupported(i, "send needs data");
    const bool by_partition = SendRecvByPartition();
    int64_t replica = device_ / mesh_.partitions, partition = device_ % mesh_.partitions;
    std::vector<int64_t> participants;
    if (by_partition)
      for (int64_t p = 0; p < mesh_.partitions; ++p)
        participants.push_back(replica * mesh_.partitions + p);
    else
      for (int64_t r = 0; r < mesh_.replicas; ++r)
        participants.push_back(r * mesh_.partitions + partition);
    std::string key = absl::StrCat("send-recv channel ", channel, "#", executions_[&i]++, "@",
                                   absl::StrJoin(participants, ","));
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> all,
                          rendezvous_.Exchange(key, device_, participants, *ops[0]));
    HOPT_ASSIGN_OR_RETURN(std::optional<SourceTargetPairs> send_pairs, PairsAttribute(i));
    Delivery& box = mailbox_[channel];
    box.by_sender.clear();
    box.send_pairs = std::move(send_pairs);
    for (size_t k = 0; k < participants.size(); ++k)
      box.by_sender[by_partition ? participants[k] % mesh_.partitions
                                 : participants[k] / mesh_.partitions] = all[k];
    return SendRecvContext(i, *ops[0]);
  }

  // (data, token): what this device's source sent on the channel, zeros
  // when it is no target.
  absl::StatusOr<Literal> RecvDone(const HloInstruction& i, int64_t channel) {
    if (!i.shape().IsTuple() || i.shape().tuple_shapes_size() != 2)
      return Unsupported(i, "recv-done must produce (data, token)");
    int64_t my_id =
        SendRecvByPartition() ? device_ % mesh_.partitions : device_ / mesh_.partitions;
    auto box = mailbox_.find(channel);
    std::optional<SourceTargetPairs> pairs;
    for (const HloInstruction* carrier : {i.operand(0), &i}) {
      HOPT_ASSIGN_OR_RETURN(std::optional<SourceTargetPairs> carried, PairsAttribute(*carrier));
      if (!pairs) pairs = std::move(carried);
    }
    if (!pairs && box != mailbox_.end()) pairs = box->second.send_pairs;
    Literal data(i.shape().tuple_shapes(0));
    for (const auto& [source, target] : pairs.value_or(SourceTargetPairs{})) {
      if (target != my_id) continue;
      if (box == mailbox_.end())
        return Unsupported(i, absl::StrCat("recv-done of channel ", channel,
                                           " runs before its send on this device"));
      auto from = box->second.by_sender.find(source);
      if (from != box->second.by_sender.end()) data = from->second;
    }
    Literal result(i.shape());
    result.mutable_tuple_elements()[0] = data;
    result.mutable_tuple_elements()[1] = Literal(Shape::MakeToken());
    return result;
  }

  // docs/hlo-run.md, "Opaque custom-calls".
  absl::StatusOr<Literal> Opaque(const HloInstruction& i, const std::vector<const Literal*>& ops) {
    OpaqueCallDigest digest = DigestOpaqueCall(i, ops);
    if (opaque_log_ != nullptr)
      opaque_log_->push_back({i.custom_call_target(), digest, std::string(i.name())});
    return OpaqueCallResult(i.shape(), digest);
  }

  // Each opcode family below evaluates the opcodes it knows and returns
  // nullopt for the others; the families are disjoint.
  using FamilyResult = std::optional<absl::StatusOr<Literal>>;

  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& i,
                                              const std::vector<const Literal*>& ops,
                                              absl::Span<const Literal* const> args) {
    FamilyResult result = EvaluateValueOp(i, ops, args);
    if (!result) result = EvaluateElementwiseWithAttributes(i, ops);
    if (!result) result = EvaluateDataMovement(i, ops);
    if (!result) result = EvaluateDenseOp(i, ops);
    if (!result) result = EvaluateControlFlow(i, ops);
    if (!result) result = EvaluateCommunication(i, ops);
    if (result) return *std::move(result);
    HloOpcode op = i.opcode();
    if (IsElementwiseUnary(op) || op == HloOpcode::kIsFinite || op == HloOpcode::kReal ||
        op == HloOpcode::kImag)
      return Unary(op, *ops[0]);
    if (IsElementwiseBinary(op) || op == HloOpcode::kComplex) return Binary(op, *ops[0], *ops[1]);
    return Unsupported(i, "this opcode is not supported by the interpreter");
  }

  // Parameters, constants, identities, tokens, ids and tuples.
  FamilyResult EvaluateValueOp(const HloInstruction& i, const std::vector<const Literal*>& ops,
                               absl::Span<const Literal* const> args) {
    switch (i.opcode()) {
      case HloOpcode::kParameter:
        return *args[i.parameter_number()];
      case HloOpcode::kConstant:
        return EvaluateConstant(i);
      case HloOpcode::kCopy:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
        return *ops[0];
      case HloOpcode::kAfterAll:
        return Literal(Shape::MakeToken());
      case HloOpcode::kReplicaId:
      case HloOpcode::kPartitionId: {
        Literal id(Shape(PrimitiveType::U32, {}));
        id.SetFromInt64(0, i.opcode() == HloOpcode::kReplicaId ? this->id().replica
                                                               : this->id().partition);
        return id;
      }
      case HloOpcode::kTuple: {
        Literal tuple(i.shape());
        for (size_t k = 0; k < ops.size(); ++k) tuple.mutable_tuple_elements()[k] = *ops[k];
        return tuple;
      }
      case HloOpcode::kGetTupleElement: {
        int64_t index = i.tuple_index();
        if (!ops[0]->shape().IsTuple() || index < 0 ||
            index >= static_cast<int64_t>(ops[0]->tuple_elements().size()))
          return Unsupported(i, "tuple index out of range");
        return ops[0]->tuple_elements()[index];
      }
      default:
        return std::nullopt;
    }
  }

  static absl::StatusOr<Literal> EvaluateConstant(const HloInstruction& i) {
    HOPT_ASSIGN_OR_RETURN(Literal value, i.literal());
    if (value.is_elided()) return Unsupported(i, "the constant's values were elided ({...})");
    return value;
  }

  // The elementwise operations that read attributes or more than two
  // operands (plain unary and binary ones are EvaluateInstruction's).
  static FamilyResult EvaluateElementwiseWithAttributes(const HloInstruction& i,
                                                        const std::vector<const Literal*>& ops) {
    switch (i.opcode()) {
      case HloOpcode::kCompare: {
        auto type = i.GetAttributeText("type");
        return Compare(i.comparison_direction(), *ops[0], *ops[1], type && *type == "TOTALORDER");
      }
      case HloOpcode::kSelect:
        return Select(*ops[0], *ops[1], *ops[2]);
      case HloOpcode::kClamp:
        return Clamp(*ops[0], *ops[1], *ops[2]);
      case HloOpcode::kConvert:
        return Convert(*ops[0], i.shape().element_type());
      case HloOpcode::kBitcastConvert:
        return BitcastConvert(*ops[0], i.shape());
      default:
        return std::nullopt;
    }
  }

  // Shape changes and data movement.
  static FamilyResult EvaluateDataMovement(const HloInstruction& i,
                                           const std::vector<const Literal*>& ops) {
    switch (i.opcode()) {
      case HloOpcode::kBroadcast:
        return Broadcast(*ops[0], i.shape(), i.dimensions());
      case HloOpcode::kReshape:
        return Reshape(*ops[0], i.shape());
      case HloOpcode::kTranspose:
        return Transpose(*ops[0], i.dimensions());
      case HloOpcode::kSlice: {
        std::vector<int64_t> starts, limits, strides;
        for (const SliceDimension& d : i.slice()) {
          starts.push_back(d.start);
          limits.push_back(d.limit);
          strides.push_back(d.stride);
        }
        return Slice(*ops[0], starts, limits, strides);
      }
      case HloOpcode::kDynamicSlice: {
        std::vector<int64_t> starts;
        for (size_t k = 1; k < ops.size(); ++k) starts.push_back(ScalarAsInt(*ops[k]));
        return DynamicSlice(*ops[0], starts, i.dynamic_slice_sizes());
      }
      case HloOpcode::kDynamicUpdateSlice: {
        std::vector<int64_t> starts;
        for (size_t k = 2; k < ops.size(); ++k) starts.push_back(ScalarAsInt(*ops[k]));
        return DynamicUpdateSlice(*ops[0], *ops[1], starts);
      }
      case HloOpcode::kConcatenate: {
        std::vector<int64_t> dims = i.dimensions();
        if (dims.size() != 1) return Unsupported(i, "needs dimensions={d}");
        return Concatenate(ops, dims[0]);
      }
      case HloOpcode::kPad:
        return EvaluatePad(i, ops);
      case HloOpcode::kIota:
        return Iota(i.shape(), i.IntAttribute("iota_dimension").value_or(0));
      case HloOpcode::kReverse:
        return Reverse(*ops[0], i.dimensions());
      default:
        return std::nullopt;
    }
  }

  static absl::StatusOr<Literal> EvaluatePad(const HloInstruction& i,
                                             const std::vector<const Literal*>& ops) {
    std::vector<PadDimension> padding;
    auto text = i.GetAttributeText("padding").value_or("");
    for (absl::string_view dim : absl::StrSplit(text, 'x', absl::SkipEmpty())) {
      std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
      PadDimension p;
      if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &p.low) ||
          !absl::SimpleAtoi(parts[1], &p.high) ||
          (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &p.interior)))
        return Unsupported(i, absl::StrCat("malformed padding=", text));
      padding.push_back(p);
    }
    return Pad(*ops[0], *ops[1], padding);
  }

  // Dot, convolution and reduce.
  FamilyResult EvaluateDenseOp(const HloInstruction& i, const std::vector<const Literal*>& ops) {
    switch (i.opcode()) {
      case HloOpcode::kDot:
        if (ops.size() != 2) return Unsupported(i, "sparse dots are not supported");
        return Dot(*ops[0], *ops[1], IntList(i, "lhs_contracting_dims"),
                   IntList(i, "rhs_contracting_dims"), IntList(i, "lhs_batch_dims"),
                   IntList(i, "rhs_batch_dims"), i.shape().element_type());
      case HloOpcode::kConvolution:
        if (ops.size() != 2) return Unsupported(i, "takes 2 operands");
        return Convolution(*ops[0], *ops[1], i.GetAttributeText("window").value_or("{}"),
                           i.GetAttributeText("dim_labels").value_or(""),
                           i.IntAttribute("feature_group_count").value_or(1),
                           i.IntAttribute("batch_group_count").value_or(1),
                           i.shape().element_type());
      case HloOpcode::kReduce:
        return EvaluateReduce(i, ops);
      default:
        return std::nullopt;
    }
  }

  absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& i,
                                         const std::vector<const Literal*>& ops) {
    size_t n = ops.size() / 2;
    std::vector<const Literal*> inputs(ops.begin(), ops.begin() + n);
    std::vector<const Literal*> inits(ops.begin() + n, ops.end());
    const HloComputation* to_apply = i.to_apply();
    if (to_apply == nullptr) return Unsupported(i, "needs to_apply");
    std::optional<ElementCombiner> element_combiner;
    if (n == 1) element_combiner = PlainBinaryCombiner(*to_apply, *inputs[0]);
    HOPT_ASSIGN_OR_RETURN(
        std::vector<Literal> results,
        Reduce(
            inputs, inits, i.dimensions(),
            [&](const std::vector<Literal>& scalars) { return CallScalars(*to_apply, scalars); },
            element_combiner ? &*element_combiner : nullptr));
    if (results.size() == 1) return std::move(results[0]);
    Literal tuple(i.shape());
    for (size_t k = 0; k < results.size(); ++k)
      tuple.mutable_tuple_elements()[k] = std::move(results[k]);
    return tuple;
  }

  // Call, while and conditional: nested computations.
  FamilyResult EvaluateControlFlow(const HloInstruction& i,
                                   const std::vector<const Literal*>& ops) {
    switch (i.opcode()) {
      case HloOpcode::kCall:
        return Evaluate(*i.to_apply(), ops);
      case HloOpcode::kWhile:
        return RunWhile(i, ops);
      case HloOpcode::kConditional:
        return RunConditional(i, ops);
      default:
        return std::nullopt;
    }
  }

  absl::StatusOr<Literal> RunWhile(const HloInstruction& i,
                                   const std::vector<const Literal*>& ops) {
    const HloAttribute* cond = i.FindAttribute("condition");
    const HloAttribute* body = i.FindAttribute("body");
    if (cond == nullptr || body == nullptr || cond->computations.empty() ||
        body->computations.empty())
      return Unsupported(i, "needs condition and body");
    Literal state = *ops[0];
    HeldBytes held(*this);
    const std::string state_name = absl::StrCat("while loop ", i.name(), "'s state");
    HOPT_RETURN_IF_ERROR(held.Set(ValueBytes(state), state_name));
    while (true) {
      HOPT_ASSIGN_OR_RETURN(Literal go, Evaluate(*cond->computations[0], {&state}));
      if (go.GetAsInt64(0) == 0) return state;
      if (rendezvous_.aborted()) return absl::AbortedError("another device failed");
      // One budget for every loop of the run: an inner loop's iterations
      // count on each pass of the outer one, so nesting cannot multiply the
      // work past it.
      if (while_steps_ >= options_.max_while_iterations)
        return absl::ResourceExhaustedError(absl::StrCat(
            "interpreter: while loops ran more than ", options_.max_while_iterations,
            " iterations in all (one budget for the whole run, nested loops included), "
            "at while loop ", i.name()));
      ++while_steps_;
      HOPT_ASSIGN_OR_RETURN(state, Evaluate(*body->computations[0], {&state}));
      HOPT_RETURN_IF_ERROR(held.Set(ValueBytes(state), state_name));
    }
  }

  absl::StatusOr<Literal> RunConditional(const HloInstruction& i,
                                         const std::vector<const Literal*>& ops) {
    std::vector<HloComputation*> branches;
    if (const HloAttribute* list = i.FindAttribute("branch_computations")) {
      branches = list->computations;
    } else {
      const HloAttribute* t = i.FindAttribute("true_computation");
      const HloAttribute* f = i.FindAttribute("false_computation");
      if (t == nullptr || f == nullptr) return Unsupported(i, "needs branch computations");
      branches = {t->computations[0], f->computations[0]};
    }
    int64_t branch;
    if (ops[0]->shape().element_type() == PrimitiveType::PRED) {
      branch = ops[0]->GetAsInt64(0) != 0 ? 0 : 1;
    } else {
      branch = ops[0]->GetAsInt64(0);
      // XLA: an index out of range runs the last branch.
      if (branch < 0 || branch >= static_cast<int64_t>(branches.size()))
        branch = static_cast<int64_t>(branches.size()) - 1;
    }
    if (static_cast<size_t>(branch) + 1 >= ops.size())
      return Unsupported(i, "needs one operand per branch");
    return Evaluate(*branches[branch], {ops[branch + 1]});
  }

  // Collectives, send/recv and custom-calls (which may stand for a
  // collective).
  FamilyResult EvaluateCommunication(const HloInstruction& i,
                                     const std::vector<const Literal*>& ops) {
    switch (i.opcode()) {
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllGather:
      case HloOpcode::kReduceScatter:
      case HloOpcode::kAllToAll:
      case HloOpcode::kCollectivePermute:
        return Collective(i, ops);
      case HloOpcode::kSend:
      case HloOpcode::kRecv:
      case HloOpcode::kSendDone:
      case HloOpcode::kRecvDone:
        return SendRecv(i, ops);
      case HloOpcode::kCustomCall:
        return CustomCall(i, ops);
      default:
        return std::nullopt;
    }
  }

  // A registered collective or semantics, else an opaque call (unless
  // refused).
  absl::StatusOr<Literal> CustomCall(const HloInstruction& i,
                                     const std::vector<const Literal*>& ops) {
    std::string target = i.custom_call_target();
    CustomCallTable::Found found;
    if (options_.custom_calls != nullptr) found = options_.custom_calls->Find(i);
    if (found.collective != nullptr) {
      auto description = (*found.collective)(i, mesh_);
      if (!description.ok())
        return Unsupported(i, absl::StrCat("custom-call target '", target,
                                           "': ", description.status().message()));
      return Collective(i, *description, ops);
    }
    if (found.semantics != nullptr) return (*found.semantics)(i, ops, id());
    if (options_.opaque_custom_calls == EvalOptions::OpaqueCustomCalls::kRefuse)
      return Unsupported(i, absl::StrCat("no semantics registered for custom-call target '",
                                         target, "' (the plugin that creates it registers them)"));
    return Opaque(i, ops);
  }

  const HloModule& module_;
  const Plans& plans_;
  Mesh mesh_;
  int64_t device_;
  Rendezvous& rendezvous_;
  const EvalOptions& options_;
  std::vector<OpaqueCall>* opaque_log_;  // may be null
  absl::flat_hash_map<const HloInstruction*, int64_t> executions_;
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

}  // namespace

absl::StatusOr<int64_t> MeshDevices(int64_t replicas, int64_t partitions) {
  int64_t devices = 0;
  if (replicas < 1 || partitions < 1 || __builtin_mul_overflow(replicas, partitions, &devices) ||
      devices > kMaxMeshDevices)
    return absl::InvalidArgumentError(absl::StrCat(
        "interpreter: a mesh of ", replicas, "x", partitions,
        " devices is not supported (1 to ", kMaxMeshDevices, " devices)"));
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
  Mesh mesh{options.replicas > 0 ? options.replicas : module.replica_count(),
            options.partitions > 0 ? options.partitions : module.num_partitions()};
  HOPT_ASSIGN_OR_RETURN(const int64_t devices, MeshDevices(mesh.replicas, mesh.partitions));
  if (static_cast<int64_t>(arguments.size()) != devices)
    return absl::InvalidArgumentError(absl::StrCat("interpreter: arguments for ", arguments.size(),
                                                   " devices, the mesh has ", devices));
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("interpreter: the module has no entry");
  for (int64_t d = 0; d < devices; ++d) {
    if (static_cast<int64_t>(arguments[d].size()) != entry->num_parameters())
      return absl::InvalidArgumentError(absl::StrCat(
          "interpreter: the entry computation takes ", entry->num_parameters(),
          " arguments, got ", arguments[d].size(), " on device ", d));
    for (int64_t k = 0; k < entry->num_parameters(); ++k)
      if (!arguments[d][k].shape().Compatible(entry->parameter_instruction(k)->shape()))
        return absl::InvalidArgumentError(absl::StrCat(
            "interpreter: device ", d, " argument ", k, " has shape ",
            arguments[d][k].shape().ToString(), ", parameter ",
            entry->parameter_instruction(k)->name(), " is ",
            entry->parameter_instruction(k)->shape().ToString()));
  }
  const Plans plans = MakePlans(module);
  Rendezvous rendezvous(options.rendezvous_timeout_ms);
  std::vector<std::vector<OpaqueCall>> opaque_calls(devices);
  std::vector<absl::StatusOr<Literal>> results(devices, absl::UnknownError("not run"));
  // The devices share the CPUs with the dense kernels' threads.
  RunningDevices running(devices);
  std::vector<llvm::thread> threads;
  threads.reserve(devices);
  for (int64_t d = 0; d < devices; ++d) {
    // A stack of its own size: nested computations recurse (max_call_depth
    // levels must fit even in a sanitizer build, whose frames are larger).
    threads.emplace_back(std::optional<unsigned>(kDeviceStackBytes), [&, d] {
      DeviceEvaluator evaluator(module, plans, mesh, d, rendezvous, options, &opaque_calls[d]);
      std::vector<const Literal*> args;
      for (const Literal& arg : arguments[d]) args.push_back(&arg);
      absl::Status fits = evaluator.ChargeArguments(ArgumentBytes(args));
      results[d] = fits.ok() ? evaluator.Evaluate(*entry, args) : absl::StatusOr<Literal>(fits);
      if (!results[d].ok()) rendezvous.Abort(std::string(results[d].status().message()));
    });
  }
  for (llvm::thread& t : threads) t.join();
  std::vector<Literal> outputs;
  // Report the first real failure (not the aborts it caused elsewhere).
  for (int64_t d = 0; d < devices; ++d)
    if (!results[d].ok() && !absl::IsAborted(results[d].status()))
      return absl::Status(results[d].status().code(),
                          absl::StrCat("device ", d, " (replica ", d / mesh.partitions,
                                       ", partition ", d % mesh.partitions, "): ",
                                       results[d].status().message()));
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
      options.max_bytes_per_device, " (parameter ", largest_at, ", ",
      shapes[largest_at].ToString(), ", alone needs ", largest, ")"));
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
    *difference = absl::StrCat("shapes differ: ", a.shape().ToString(), " vs ", b.shape().ToString());
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
    if (IsIntegralType(a.shape().element_type()) || a.shape().element_type() == PrimitiveType::PRED) {
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

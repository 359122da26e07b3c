// SPDX-License-Identifier: Apache-2.0
// DeviceEvaluator's collectives, send/recv and custom-calls: the members
// that exchange values with other devices through the Rendezvous.

#include <algorithm>
#include <chrono>

#include "absl/strings/str_join.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ragged_all_to_all.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {

absl::StatusOr<std::vector<Literal>> Rendezvous::Exchange(const std::string& key, int64_t me,
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

absl::Status DeviceEvaluator::CheckSourceTargetPairs(
    const HloInstruction& i, const std::vector<std::pair<int64_t, int64_t>>& pairs, int64_t ids,
    bool repeats_allowed) {
  std::vector<bool> source(ids, false), target(ids, false);
  for (const auto& [s, t] : pairs) {
    if (s < 0 || s >= ids || t < 0 || t >= ids)
      return absl::InvalidArgumentError(absl::StrCat(i.name(), ": source_target_pairs name id ",
                                                     (s < 0 || s >= ids) ? s : t,
                                                     ", out of range for ", ids, " ids"));
    if (!repeats_allowed && (source[s] || target[t]))
      return absl::InvalidArgumentError(absl::StrCat(i.name(), ": source_target_pairs use ",
                                                     source[s] ? "source " : "target ",
                                                     source[s] ? s : t, " twice"));
    source[s] = target[t] = true;
  }
  return absl::OkStatus();
}

std::string DeviceEvaluator::RendezvousKey(const HloInstruction& i,
                                           const std::vector<int64_t>& participants) {
  int64_t count = executions_[&i]++;
  return absl::StrCat(i.parent()->name(), "/", i.name(), "#", count, "@",
                      absl::StrJoin(participants, ","));
}

absl::StatusOr<Literal> DeviceEvaluator::Collective(const HloInstruction& i,
                                                    const std::vector<const Literal*>& operands) {
  HOPT_ASSIGN_OR_RETURN(CollectiveDescription description, DescribeCollective(i));
  return Collective(i, description, operands);
}

absl::StatusOr<Literal> DeviceEvaluator::Collective(const HloInstruction& i,
                                                    const CollectiveDescription& c,
                                                    const std::vector<const Literal*>& operands) {
  HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> participants,
                        ParticipatingDevices(c, i.name(), mesh_, device_));
  int64_t position =
      std::find(participants.begin(), participants.end(), device_) - participants.begin();
  // This device's copies, then every participant's: all live until the
  // result is made.
  HeldBytes sent(*this), received(*this);
  HOPT_ASSIGN_OR_RETURN(std::vector<Literal> bundles,
                        ExchangeOperands(i, participants, operands, sent, received));
  const CollectiveExchange x{i, c, participants, position, std::move(bundles)};
  switch (c.kind) {
    case HloOpcode::kAllReduce: return AllReduceResult(x, operands);
    case HloOpcode::kAllGather: return AllGatherResult(x, operands);
    case HloOpcode::kReduceScatter: return ReduceScatterResult(x, operands);
    case HloOpcode::kAllToAll: return AllToAllResult(x, operands);
    case HloOpcode::kRaggedAllToAll: return RaggedAllToAllResult(x);
    case HloOpcode::kCollectivePermute: return CollectivePermuteResult(x, operands);
    case HloOpcode::kCollectiveBroadcast: {
      // Every member gets what the first member of its group holds.
      std::vector<Literal> results;
      for (size_t k = 0; k < operands.size(); ++k) results.push_back(x.piece(0, k));
      return WrapCollectiveResults(x.i, std::move(results));
    }
    default: return UnsupportedInstruction(i, "not a collective");
  }
}

absl::StatusOr<std::vector<Literal>> DeviceEvaluator::ExchangeOperands(
    const HloInstruction& i, const std::vector<int64_t>& participants,
    const std::vector<const Literal*>& operands, HeldBytes& sent, HeldBytes& received) {
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
  HOPT_RETURN_IF_ERROR(received.Set(received_bytes, absl::StrCat(i.name(), "'s values received")));
  return all;
}

Literal DeviceEvaluator::WrapCollectiveResults(const HloInstruction& i,
                                               std::vector<Literal> results) {
  if (results.size() == 1 && !CollectiveResultShape(i).IsTuple()) return std::move(results[0]);
  std::vector<Shape> result_shapes;
  for (const Literal& r : results) result_shapes.push_back(r.shape());
  Literal tuple(Shape::MakeTuple(result_shapes));
  for (size_t k = 0; k < results.size(); ++k)
    tuple.mutable_tuple_elements()[k] = std::move(results[k]);
  return tuple;
}

absl::StatusOr<Literal> DeviceEvaluator::ReduceAcross(const CollectiveExchange& x, size_t k) {
  Literal acc = x.piece(0, k);
  for (int64_t d = 1; d < x.size(); ++d) {
    if (x.c.reduction_opcode) {
      HOPT_ASSIGN_OR_RETURN(acc, Binary(*x.c.reduction_opcode, acc, x.piece(d, k)));
      continue;
    }
    if (x.c.reduction == nullptr)
      return UnsupportedInstruction(x.i, "needs a reduction computation");
    HOPT_ASSIGN_OR_RETURN(acc, Combine(*x.c.reduction, acc, x.piece(d, k)));
  }
  return acc;
}

absl::StatusOr<Literal> DeviceEvaluator::ChunkAlong(const Literal& value, int64_t dimension,
                                                    int64_t index, int64_t chunk) {
  const Shape& shape = value.shape();
  std::vector<int64_t> starts(shape.rank(), 0),
      limits(shape.dimensions().begin(), shape.dimensions().end()), strides(shape.rank(), 1);
  starts[dimension] = index * chunk;
  limits[dimension] = (index + 1) * chunk;
  return Slice(value, starts, limits, strides);
}

absl::StatusOr<Literal> DeviceEvaluator::AllReduceResult(
    const CollectiveExchange& x, const std::vector<const Literal*>& operands) {
  std::vector<Literal> results;
  for (size_t k = 0; k < operands.size(); ++k) {
    HOPT_ASSIGN_OR_RETURN(Literal reduced, ReduceAcross(x, k));
    results.push_back(std::move(reduced));
  }
  return WrapCollectiveResults(x.i, std::move(results));
}

absl::StatusOr<Literal> DeviceEvaluator::AllGatherResult(
    const CollectiveExchange& x, const std::vector<const Literal*>& operands) {
  if (x.c.dimension < 0) return UnsupportedInstruction(x.i, "needs dimensions={d}");
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

absl::StatusOr<Literal> DeviceEvaluator::ReduceScatterResult(
    const CollectiveExchange& x, const std::vector<const Literal*>& operands) {
  const int64_t dim = x.c.dimension;
  if (dim < 0) return UnsupportedInstruction(x.i, "needs dimensions={d}");
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

absl::StatusOr<Literal> DeviceEvaluator::AllToAllResult(
    const CollectiveExchange& x, const std::vector<const Literal*>& operands) {
  const int64_t n = x.size();
  if (x.c.dimension < 0) {
    // Tuple form: operand k goes to participant k.
    if (static_cast<int64_t>(operands.size()) != n)
      return UnsupportedInstruction(x.i, "tuple all-to-all needs one operand per participant");
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
    return absl::InvalidArgumentError(absl::StrCat(x.i.name(), ": dimension ", d, " of ",
                                                   mine.shape().ToString(), " does not split into ",
                                                   n, " equal parts"));
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

absl::StatusOr<Literal> DeviceEvaluator::RaggedAllToAllResult(const CollectiveExchange& x) {
  if (x.bundles.empty() || x.bundles[0].tuple_elements().size() != 6)
    return UnsupportedInstruction(x.i,
                                  "needs six operands (input, output, input_offsets, "
                                  "send_sizes, output_offsets, recv_sizes)");
  std::vector<RaggedAllToAllOperands> group;
  for (int64_t d = 0; d < x.size(); ++d)
    group.push_back({&x.piece(d, 0), &x.piece(d, 1), &x.piece(d, 2), &x.piece(d, 3), &x.piece(d, 4),
                     &x.piece(d, 5)});
  return RaggedAllToAll(absl::StrCat("interpreter: ", x.i.name(), " (ragged-all-to-all)"), group,
                        x.participants, x.position);
}

absl::StatusOr<Literal> DeviceEvaluator::CollectivePermuteResult(
    const CollectiveExchange& x, const std::vector<const Literal*>& operands) {
  const CollectiveDescription& c = x.c;
  const int64_t n = x.size();
  // Ids in the space of the group mode (replica or partition ids).
  int64_t my_id = CollectivePermuteId(c.mode, mesh_, device_);
  HOPT_RETURN_IF_ERROR(CheckSourceTargetPairs(x.i, c.source_target_pairs, n, c.point_to_point));
  // Zeros for a device that is no target.
  if (operands.size() != 1) return UnsupportedInstruction(x.i, "needs one operand");
  Literal result(operands[0]->shape());
  for (const auto& [source, target] : c.source_target_pairs) {
    if (target != my_id) continue;
    for (int64_t d = 0; d < n; ++d)
      if (CollectivePermuteId(c.mode, mesh_, x.participants[d]) == source) result = x.piece(d, 0);
  }
  if (!c.point_to_point) return result;
  Literal with_token(Shape::MakeTuple({result.shape(), Shape::MakeToken()}));
  with_token.mutable_tuple_elements()[0] = std::move(result);
  with_token.mutable_tuple_elements()[1] = Literal(Shape::MakeToken());
  return with_token;
}

absl::StatusOr<std::optional<DeviceEvaluator::SourceTargetPairs>> DeviceEvaluator::PairsAttribute(
    const HloInstruction& i) {
  for (const auto& [key, value] : i.frontend_attributes()) {
    if (key != "_xla_send_recv_source_target_pairs") continue;
    auto pairs = ParseSourceTargetPairs(value);
    if (!pairs.ok())
      return UnsupportedInstruction(
          i,
          absl::StrCat("malformed _xla_send_recv_source_target_pairs: ", pairs.status().message()));
    return std::optional(*std::move(pairs));
  }
  return std::nullopt;
}

absl::StatusOr<Literal> DeviceEvaluator::SendRecv(const HloInstruction& i,
                                                  const std::vector<const Literal*>& ops) {
  auto channel = i.channel_id();
  if (!channel) return UnsupportedInstruction(i, "send/recv needs a channel_id");
  switch (i.opcode()) {
    case HloOpcode::kSend: return Send(i, *channel, ops);
    case HloOpcode::kRecv:
      return SendRecvContext(i, Literal(i.shape().IsTuple() && i.shape().tuple_shapes_size() == 3
                                            ? i.shape().tuple_shapes(0)
                                            : Shape()));
    case HloOpcode::kSendDone: return Literal(Shape::MakeToken());
    case HloOpcode::kRecvDone: return RecvDone(i, *channel);
    default: return UnsupportedInstruction(i, "not a send or recv");
  }
}

Literal DeviceEvaluator::SendRecvContext(const HloInstruction& i, const Literal& data) {
  Literal tuple(i.shape());
  if (tuple.tuple_elements().size() == 3) {
    tuple.mutable_tuple_elements()[0] = data;
    tuple.mutable_tuple_elements()[2] = Literal(Shape::MakeToken());
  }
  return tuple;
}

absl::StatusOr<Literal> DeviceEvaluator::Send(const HloInstruction& i, int64_t channel,
                                              const std::vector<const Literal*>& ops) {
  if (ops.empty()) return UnsupportedInstruction(i, "send needs data");
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

absl::StatusOr<Literal> DeviceEvaluator::RecvDone(const HloInstruction& i, int64_t channel) {
  if (!i.shape().IsTuple() || i.shape().tuple_shapes_size() != 2)
    return UnsupportedInstruction(i, "recv-done must produce (data, token)");
  int64_t my_id = SendRecvByPartition() ? device_ % mesh_.partitions : device_ / mesh_.partitions;
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
      return UnsupportedInstruction(i, absl::StrCat("recv-done of channel ", channel,
                                                    " runs before its send on this device"));
    auto from = box->second.by_sender.find(source);
    if (from != box->second.by_sender.end()) data = from->second;
  }
  Literal result(i.shape());
  result.mutable_tuple_elements()[0] = data;
  result.mutable_tuple_elements()[1] = Literal(Shape::MakeToken());
  return result;
}

absl::StatusOr<Literal> DeviceEvaluator::Opaque(const HloInstruction& i,
                                                const std::vector<const Literal*>& ops) {
  OpaqueCallDigest digest = DigestOpaqueCall(i, ops);
  if (opaque_log_ != nullptr)
    opaque_log_->push_back({i.custom_call_target(), digest, std::string(i.name())});
  return OpaqueCallResult(i.shape(), digest);
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateCommunication(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  if (IsSynchronousCollective(i.opcode())) return Collective(i, ops);
  switch (i.opcode()) {
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart: return CollectiveStart(i, ops);
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: return CollectiveDone(i, *ops[0]);
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone: return SendRecv(i, ops);
    case HloOpcode::kCustomCall: return CustomCall(i, ops);
    default: return std::nullopt;
  }
}

absl::StatusOr<Literal> DeviceEvaluator::CustomCall(const HloInstruction& i,
                                                    const std::vector<const Literal*>& ops) {
  std::string target = i.custom_call_target();
  CustomCallTable::Found found;
  if (options_.custom_calls != nullptr) found = options_.custom_calls->Find(i);
  if (found.collective != nullptr) {
    auto description = (*found.collective)(i, mesh_);
    if (!description.ok())
      return UnsupportedInstruction(
          i, absl::StrCat("custom-call target '", target, "': ", description.status().message()));
    return Collective(i, *description, ops);
  }
  if (found.semantics != nullptr) return (*found.semantics)(i, ops, id());
  if (options_.opaque_custom_calls == EvalOptions::OpaqueCustomCalls::kRefuse)
    return UnsupportedInstruction(
        i, absl::StrCat("no semantics registered for custom-call target '", target,
                        "' (the plugin that creates it registers them)"));
  return Opaque(i, ops);
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// MeshEncoder's collectives and native send/recv: the instructions whose
// formulas on one device read other devices' operands, in the groups and
// pairs the interpreter uses (core/eval/device_communication.cc); and the
// async pairs around them, which compute at their start what the
// synchronous op does, as the interpreter's do (core/eval/wrapped_ops.cc).

#include <algorithm>

#include "core/eval/device_evaluator.h"
#include "core/prove/element_index.h"
#include "core/prove/mesh_encoder.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"

namespace hopt {
namespace prove {
namespace {

absl::StatusOr<std::optional<std::vector<std::pair<int64_t, int64_t>>>> SendRecvPairs(
    const HloInstruction& i) {
  for (const auto& [key, value] : i.frontend_attributes()) {
    if (key != "_xla_send_recv_source_target_pairs") continue;
    auto pairs = ParseSourceTargetPairs(value);
    if (!pairs.ok()) return Unsupported(i, "malformed _xla_send_recv_source_target_pairs");
    return std::optional(*std::move(pairs));
  }
  return std::nullopt;
}

// A collective's results as the interpreter wraps them: one array alone,
// otherwise a tuple.
SymValue WrapParts(const HloInstruction& i, std::vector<SymValue> parts) {
  if (parts.size() == 1 && !eval::CollectiveResultShape(i).IsTuple()) return std::move(parts[0]);
  std::vector<Shape> shapes;
  for (const SymValue& part : parts) shapes.push_back(part.shape);
  SymValue tuple = ArrayOf(Shape::MakeTuple(std::move(shapes)));
  tuple.tuple = std::move(parts);
  return tuple;
}

}  // namespace

absl::StatusOr<MeshEncoder::DeviceValues> MeshEncoder::SendRecv(
    const HloInstruction& i, const std::vector<std::vector<const SymValue*>>& ops) {
  std::optional<int64_t> channel = i.channel_id();
  if (!channel) return Unsupported(i, "send/recv needs a channel_id");
  const bool by_partition = mesh_.partitions > 1;
  DeviceValues result(devices());
  // The (data, context, token) of send and recv: data, a zero context.
  auto context = [&](const SymValue& data) -> absl::StatusOr<SymValue> {
    HOPT_ASSIGN_OR_RETURN(SymValue v, Zeros(i.shape()));
    if (v.tuple.size() == 3) v.tuple[0] = data;
    return v;
  };
  switch (i.opcode()) {
    case HloOpcode::kSend: {
      Mailbox& box = mailboxes_[*channel];
      box.sent.assign(devices(), SymValue());
      HOPT_ASSIGN_OR_RETURN(auto pairs, SendRecvPairs(i));
      box.has_pairs = pairs.has_value();
      box.pairs = pairs.value_or(std::vector<std::pair<int64_t, int64_t>>{});
      for (int64_t d = 0; d < devices(); ++d) {
        if (ops[d].empty()) return Unsupported(i, "send needs data");
        box.sent[d] = *ops[d][0];
        HOPT_ASSIGN_OR_RETURN(result[d], context(*ops[d][0]));
      }
      return result;
    }
    case HloOpcode::kRecv: {
      for (int64_t d = 0; d < devices(); ++d) {
        SymValue none;
        if (i.shape().IsTuple() && i.shape().tuple_shapes_size() == 3) {
          HOPT_ASSIGN_OR_RETURN(none, Zeros(i.shape().tuple_shapes(0)));
        }
        HOPT_ASSIGN_OR_RETURN(result[d], context(none));
      }
      return result;
    }
    case HloOpcode::kSendDone:
      for (int64_t d = 0; d < devices(); ++d) result[d] = ArrayOf(Shape::MakeToken());
      return result;
    default: break;
  }
  // recv-done: what this device's source sent on the channel.
  if (!i.shape().IsTuple() || i.shape().tuple_shapes_size() != 2)
    return Unsupported(i, "recv-done must produce (data, token)");
  auto box = mailboxes_.find(*channel);
  std::optional<std::vector<std::pair<int64_t, int64_t>>> pairs;
  for (const HloInstruction* carrier : {i.operand(0), &i}) {
    HOPT_ASSIGN_OR_RETURN(auto carried, SendRecvPairs(*carrier));
    if (!pairs) pairs = std::move(carried);
  }
  if (!pairs && box != mailboxes_.end() && box->second.has_pairs) pairs = box->second.pairs;
  for (int64_t d = 0; d < devices(); ++d) {
    int64_t replica = d / mesh_.partitions, partition = d % mesh_.partitions;
    int64_t my_id = by_partition ? partition : replica;
    HOPT_ASSIGN_OR_RETURN(SymValue data, Zeros(i.shape().tuple_shapes(0)));
    for (const auto& [source, target] :
         pairs.value_or(std::vector<std::pair<int64_t, int64_t>>{})) {
      if (target != my_id) continue;
      if (box == mailboxes_.end())
        return Unsupported(
            i, absl::StrCat("recv-done of channel ", *channel, " comes before its send"));
      int64_t from = by_partition ? replica * mesh_.partitions + source
                                  : source * mesh_.partitions + partition;
      if (source >= 0 && from < devices() &&
          (by_partition ? source < mesh_.partitions : source < mesh_.replicas))
        data = box->second.sent[from];
    }
    SymValue out = ArrayOf(i.shape());
    out.tuple.push_back(std::move(data));
    out.tuple.push_back(ArrayOf(Shape::MakeToken()));
    result[d] = std::move(out);
  }
  return result;
}

absl::StatusOr<MeshEncoder::DeviceValues> MeshEncoder::Collective(
    const HloInstruction& i, const eval::CollectiveDescription& c,
    const std::vector<std::vector<const SymValue*>>& ops) {
  DeviceValues result(devices());
  for (int64_t d = 0; d < devices(); ++d) {
    HOPT_ASSIGN_OR_RETURN(std::vector<int64_t> group,
                          eval::ParticipatingDevices(c, i.name(), mesh_, d));
    int64_t position = std::find(group.begin(), group.end(), d) - group.begin();
    if (c.kind == HloOpcode::kAllToAll) {
      HOPT_ASSIGN_OR_RETURN(result[d], AllToAll(i, c, group, position, ops));
      continue;
    }
    std::vector<SymValue> parts;  // one per operand
    for (size_t k = 0; k < ops[d].size(); ++k) {
      const SymValue& mine = *ops[d][k];
      if (!mine.shape.IsArray()) return Unsupported(i, "a collective of a non-array operand");
      const Shape& shape = mine.shape;
      PrimitiveType type = shape.element_type();
      switch (c.kind) {
        case HloOpcode::kAllReduce:
        case HloOpcode::kReduceScatter: {
          SymValue acc = *ops[group[0]][k];
          for (size_t m = 1; m < group.size(); ++m)
            for (size_t e = 0; e < acc.elements.size(); ++e) {
              HOPT_ASSIGN_OR_RETURN(acc.elements[e],
                                    Reduce2(c.reduction, c.reduction_opcode, type, acc.elements[e],
                                            ops[group[m]][k]->elements[e], d));
            }
          if (c.kind == HloOpcode::kAllReduce || shape.rank() == 0) {
            parts.push_back(std::move(acc));
            break;
          }
          int64_t dim = c.dimension;
          if (dim < 0 || dim >= shape.rank()) return Unsupported(i, "dimension out of range");
          std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
          int64_t chunk = dims[dim] / static_cast<int64_t>(group.size());
          dims[dim] = chunk;
          SymValue out = ArrayOf(Shape(type, dims));
          std::vector<int64_t> strides = Strides(shape);
          HOPT_RETURN_IF_ERROR(ForEachIndex(out.shape, [&](std::vector<int64_t> index, int64_t) {
            index[dim] += position * chunk;
            out.elements.push_back(acc.elements[Linear(index, strides)]);
            return absl::OkStatus();
          }));
          parts.push_back(std::move(out));
          break;
        }
        case HloOpcode::kAllGather: {
          if (shape.rank() == 0) {
            parts.push_back(*ops[group[0]][k]);
            break;
          }
          int64_t dim = c.dimension;
          if (dim < 0 || dim >= shape.rank()) return Unsupported(i, "dimension out of range");
          std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
          int64_t piece = dims[dim];
          dims[dim] = piece * static_cast<int64_t>(group.size());
          SymValue out = ArrayOf(Shape(type, dims));
          std::vector<int64_t> strides = Strides(shape);
          HOPT_RETURN_IF_ERROR(ForEachIndex(out.shape, [&](std::vector<int64_t> index, int64_t) {
            int64_t member = index[dim] / piece;
            index[dim] %= piece;
            out.elements.push_back(ops[group[member]][k]->elements[Linear(index, strides)]);
            return absl::OkStatus();
          }));
          parts.push_back(std::move(out));
          break;
        }
        case HloOpcode::kCollectiveBroadcast: parts.push_back(*ops[group[0]][k]); break;
        case HloOpcode::kCollectivePermute: {
          SymValue out = ArrayOf(shape);
          HOPT_ASSIGN_OR_RETURN(z3::expr zero, encoder_.Zero(type));
          out.elements.assign(mine.elements.size(), zero);
          int64_t my_id = eval::CollectivePermuteId(c.mode, mesh_, d);
          for (const auto& [source, target] : c.source_target_pairs) {
            if (target != my_id) continue;
            for (int64_t member : group)
              if (eval::CollectivePermuteId(c.mode, mesh_, member) == source)
                out.elements = ops[member][k]->elements;
          }
          parts.push_back(std::move(out));
          break;
        }
        default: return Unsupported(i, "no formula for this collective yet");
      }
    }
    if (c.kind == HloOpcode::kCollectivePermute && c.point_to_point) {
      SymValue with_token = ArrayOf(i.shape());
      with_token.tuple.push_back(std::move(parts[0]));
      with_token.tuple.push_back(ArrayOf(Shape::MakeToken()));
      result[d] = std::move(with_token);
    } else {
      result[d] = WrapParts(i, std::move(parts));
    }
  }
  return result;
}

absl::StatusOr<SymValue> MeshEncoder::AllToAll(
    const HloInstruction& i, const eval::CollectiveDescription& c,
    const std::vector<int64_t>& group, int64_t position,
    const std::vector<std::vector<const SymValue*>>& ops) {
  const int64_t n = static_cast<int64_t>(group.size());
  const std::vector<const SymValue*>& mine = ops[group[position]];
  if (c.dimension < 0) {
    if (static_cast<int64_t>(mine.size()) != n)
      return Unsupported(i, absl::StrCat("a tuple all-to-all needs one operand per member of its "
                                         "group (",
                                         n, "), has ", mine.size()));
    std::vector<SymValue> parts;
    for (int64_t sender : group) parts.push_back(*ops[sender][position]);
    return WrapParts(i, std::move(parts));
  }
  if (mine.size() != 1) return Unsupported(i, "an array all-to-all of more than one operand");
  const Shape& shape = mine[0]->shape;
  const int64_t dim = c.dimension;
  if (!shape.IsArray() || dim >= shape.rank())
    return Unsupported(i, absl::StrCat("dimension ", dim, " is out of range"));
  if (shape.dimensions(dim) % n != 0)
    return Unsupported(i,
                       absl::StrCat("dimension ", dim, " does not split into ", n, " equal parts"));
  const int64_t chunk = shape.dimensions(dim) / n;
  const std::vector<int64_t> strides = Strides(shape);
  SymValue out = ArrayOf(shape);
  HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](std::vector<int64_t> index, int64_t) {
    int64_t sender = index[dim] / chunk;
    index[dim] = position * chunk + index[dim] % chunk;
    out.elements.push_back(ops[group[sender]][0]->elements[Linear(index, strides)]);
    return absl::OkStatus();
  }));
  return out;
}

const HloComputation* MeshEncoder::MeshWideCallee(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kCall: return i.to_apply();
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart: {
      // An async shorthand of a collective (reduce-scatter-start) has no
      // calls=: the collective itself is encoded.
      const HloAttribute* calls = i.FindAttribute("calls");
      if (calls != nullptr && calls->computations.size() == 1) return calls->computations[0];
      return nullptr;
    }
    default: return nullptr;
  }
}

absl::StatusOr<SymValue> MeshEncoder::StartValue(const HloInstruction& i,
                                                 const std::vector<const SymValue*>& operands,
                                                 SymValue result) {
  const Shape& shape = i.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() < 2)
    return Unsupported(
        i, absl::StrCat("expects a shape (operands, result, ...), got ", shape.ToString(false)));
  if (!shape.tuple_shapes(1).Compatible(result.shape))
    return Unsupported(
        i, absl::StrCat("its shape holds ", shape.tuple_shapes(1).ToString(false),
                        " where the work it starts gives ", result.shape.ToString(false)));
  HOPT_ASSIGN_OR_RETURN(SymValue value, Zeros(shape));
  SymValue& echoed = value.tuple[0];
  if (!echoed.shape.IsTuple() && operands.size() == 1) {
    echoed = *operands[0];
  } else {
    for (size_t k = 0; k < operands.size() && k < echoed.tuple.size(); ++k)
      echoed.tuple[k] = *operands[k];
  }
  value.tuple[1] = std::move(result);
  return value;
}

absl::StatusOr<std::optional<SymValue>> MeshEncoder::AsyncPart(
    const HloInstruction& i, const std::vector<const SymValue*>& ops) {
  auto element = [&](size_t k) -> absl::StatusOr<std::optional<SymValue>> {
    if (ops.empty() || ops[0]->tuple.size() <= k)
      return Unsupported(
          i, absl::StrCat("expects a tuple of at least ", k + 1, " elements as its operand"));
    return std::optional<SymValue>(ops[0]->tuple[k]);
  };
  switch (i.opcode()) {
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      if (eval::EchoesOperands(*i.operand(0))) return element(1);
      return std::optional<SymValue>(*ops.at(0));
    case HloOpcode::kAsyncUpdate: return std::optional<SymValue>(*ops.at(0));
    case HloOpcode::kAsyncDone: return element(1);
    case HloOpcode::kCopyStart: {
      // (destination, source, context): both buffers hold the operand.
      if (!i.shape().IsTuple() || i.shape().tuple_shapes_size() < 2)
        return Unsupported(i, "expects a shape (destination, source, context)");
      HOPT_ASSIGN_OR_RETURN(SymValue value, Zeros(i.shape()));
      value.tuple[0] = value.tuple[1] = *ops.at(0);
      return std::optional<SymValue>(std::move(value));
    }
    case HloOpcode::kCopyDone: return element(0);
    default: return std::nullopt;
  }
}

}  // namespace prove
}  // namespace hopt

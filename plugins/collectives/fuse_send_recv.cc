// SPDX-License-Identifier: Apache-2.0
// fuse-send-recv: so that the Neuron runtime sees each channel as one call,
// each channel's send / send-done / recv / recv-done in the entry
// computation becomes
//   %recv-done = (T, token[]) custom-call(T %data), custom_call_target=<target>,
//        frontend_attributes={...}, backend_config="channel_id=N"
// named after the recv-done it replaces. Keyed on the -done ops, paired by
// channel_id; a send or recv without one fails the pass with "Send and Recv
// must have channel_id". The source-target pairs come from where the
// interpreter reads them for the native ops (the recv, else the recv-done,
// else the send), so the fused call receives what they did. Host transfers,
// pipelined transfers and channels whose fusion would close a cycle stay
// (docs/plugins/collectives.md lists what stays and why).

#include "collectives/fuse_send_recv.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/builder.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction_set.h"
#include "hopt/ir/module.h"
#include "hopt/pass_manager/debug.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace {

using hopt::HloInstruction;
using hopt::HloOpcode;

constexpr absl::string_view kPairsKey = "_xla_send_recv_source_target_pairs";

struct Half {
  HloInstruction* start = nullptr;  // send or recv
  HloInstruction* done = nullptr;   // send-done or recv-done
  int count = 0;                    // several on one channel: ambiguous
};

struct Channel {
  Half send;
  Half recv;
};

bool IsHostTransfer(const HloInstruction& instruction) {
  auto text = instruction.GetAttributeText("is_host_transfer");
  return text && *text == "true";
}

std::string Fusable(const Channel& channel) {
  const Half& send = channel.send;
  const Half& recv = channel.recv;
  if (send.count == 0 || recv.count == 0) return "unpaired";
  if (send.count > 1 || recv.count > 1) return "several sends or recvs on the channel";
  if (IsHostTransfer(*send.start) || IsHostTransfer(*recv.start)) return "host transfer";
  if (send.start->user_count() != 1 || recv.start->user_count() != 1)
    return "the send or recv has users besides its -done";
  if (send.start->operand_count() < 1) return "the send has no data";
  const hopt::Shape& done_shape = recv.done->shape();
  if (!done_shape.IsTuple() || done_shape.tuple_shapes_size() != 2 ||
      !done_shape.tuple_shapes(0).Compatible(send.start->operand(0)->shape()))
    return "the send's data and the recv's differ in shape";
  return "";
}

// The send's frontend attributes, then the recv's, a later value of a key
// replacing an earlier one. The source-target pairs follow the interpreter's
// model of a channel (core/eval/evaluator.cc, SendRecv): the recv's, else
// the recv-done's, else the send's; never the send-done's.
std::vector<std::pair<std::string, std::string>> MergedFrontendAttributes(const Channel& channel) {
  std::vector<std::pair<std::string, std::string>> merged;
  auto add = [&](const HloInstruction* from) {
    for (auto& [key, value] : from->frontend_attributes()) {
      if (from == channel.send.done && key == kPairsKey) continue;
      bool replaced = false;
      for (auto& [existing_key, existing_value] : merged)
        if (existing_key == key) {
          existing_value = value;
          replaced = true;
        }
      if (!replaced) merged.emplace_back(key, value);
    }
  };
  add(channel.send.start);
  add(channel.send.done);
  add(channel.recv.done);
  add(channel.recv.start);
  return merged;
}

// Creates the fused call and rewires the users; the caller relays control
// edges and removes the old instructions for all channels at once (one walk
// of the computation, not one per channel).
absl::Status Fuse(hopt::HloComputation* computation, int64_t channel_id, const Channel& channel,
                  absl::string_view target,
                  std::vector<std::pair<HloInstruction*, HloInstruction*>>& replacements) {
  HloInstruction* data = channel.send.start->mutable_operand(0);
  // The call stands where the recv-done stood, under its name: it is the
  // value the recv-done's users read.
  HloInstruction* fused = computation->AddInstructionInPlaceOf(
      channel.recv.done, HloOpcode::kCustomCall, channel.recv.done->shape(), {data});
  fused->set_custom_call_target(target);
  fused->set_backend_config(absl::StrCat("channel_id=", channel_id));
  auto attributes = MergedFrontendAttributes(channel);
  if (!attributes.empty()) fused->set_frontend_attributes(attributes);
  fused->CopyTextAttributeFrom(*channel.recv.done, "metadata");
  for (HloInstruction* old :
       {channel.send.start, channel.send.done, channel.recv.start, channel.recv.done})
    replacements.emplace_back(old, fused);

  HOPT_RETURN_IF_ERROR(channel.recv.done->ReplaceAllUsesWith(fused));
  if (channel.send.done->user_count() > 0 || channel.send.done->IsRoot()) {
    HOPT_ASSIGN_OR_RETURN(auto token, hopt::MakeGetTupleElement(fused, 1));
    HOPT_RETURN_IF_ERROR(channel.send.done->ReplaceAllUsesWith(token));
  }
  HOPT_DEBUG("fuse-send-recv",
             dbgs << "channel " << channel_id << " -> " << hopt::AsRef(fused->name()) << "\n");
  return absl::OkStatus();
}

// Which nodes of a directed graph (successors of v: column[row[v] ..
// row[v + 1])) lie on a cycle: Tarjan's strongly connected components,
// iteratively, with no allocation per node. A component is cyclic when the
// stack holds more than its root above the root's entry (the graphs here
// have no self-edges).
std::vector<bool> NodesOnCycles(const std::vector<int32_t>& row,
                                const std::vector<int32_t>& column) {
  const int32_t n = static_cast<int32_t>(row.size()) - 1;
  std::vector<int32_t> index(n, -1), low(n, 0), stack;
  std::vector<bool> on_stack(n, false), cyclic(n, false);
  std::vector<std::pair<int32_t, int32_t>> frames;  // (node, next successor)
  int32_t next_index = 0;
  for (int32_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    frames.assign(1, {root, row[root]});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!frames.empty()) {
      auto& [v, k] = frames.back();
      if (k < row[v + 1]) {
        int32_t w = column[k++];
        if (index[w] < 0) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = true;
          frames.emplace_back(w, row[w]);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        bool several = stack.back() != v;
        int32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          if (several) cyclic[w] = true;
        } while (w != v);
      }
      int32_t finished = v;
      frames.pop_back();
      if (!frames.empty())
        low[frames.back().first] = std::min(low[frames.back().first], low[finished]);
    }
  }
  return cyclic;
}

// The channels whose fusion would close a cycle: with every fusable channel
// contracted to one node, the strongly connected components of the entry's
// graph (operands and control edges). A channel on a cycle there stays
// unfused; leaving channels unfused only removes edges, so the channels that
// remain cannot close a cycle among themselves.
//
// Only a small part of the graph can hold such a cycle. In a topological
// order of the acyclic computation every path climbs; only a contracted
// channel lets a path come back down, within its window (its first to its
// last instruction in the order). A cycle therefore lies within one run of
// overlapping windows: a window-free gap inside it would have to be crossed
// upwards and back downwards. The components are computed on the
// instructions inside the windows only, in the topological order that
// follows the list, where a channel's four instructions usually stand a few
// apart: the cost follows the channels' spans, not the module.
absl::flat_hash_set<const Channel*> ChannelsOnCycles(const hopt::HloComputation& computation,
                                                     const std::vector<const Channel*>& fusable) {
  absl::flat_hash_set<const Channel*> on_cycles;
  if (fusable.empty()) return on_cycles;
  auto members = [](const Channel& channel) {
    return std::array<const HloInstruction*, 4>{channel.send.start, channel.send.done,
                                                channel.recv.start, channel.recv.done};
  };
  absl::flat_hash_map<const HloInstruction*, int32_t> position;
  for (const Channel* channel : fusable)
    for (const HloInstruction* member : members(*channel)) position[member] = -1;
  std::vector<HloInstruction*> order = computation.MakeListTopologicalOrder();
  for (size_t at = 0; at < order.size(); ++at) {
    auto it = position.find(order[at]);
    if (it != position.end()) it->second = static_cast<int32_t>(at);
  }
  std::vector<std::pair<int32_t, int32_t>> windows;
  windows.reserve(fusable.size());
  for (const Channel* channel : fusable) {
    int32_t lo = std::numeric_limits<int32_t>::max(), hi = -1;
    for (const HloInstruction* member : members(*channel)) {
      int32_t at = position.at(member);
      lo = std::min(lo, at);
      hi = std::max(hi, at);
    }
    windows.emplace_back(lo, hi);
  }
  std::sort(windows.begin(), windows.end());
  // Node ids: the instructions of the merged windows, in order; the four
  // instructions of a channel then share its recv-done's.
  std::vector<const HloInstruction*> nodes;
  absl::flat_hash_map<const HloInstruction*, int32_t> node_of;
  for (size_t w = 0; w < windows.size();) {
    auto [lo, hi] = windows[w];
    for (++w; w < windows.size() && windows[w].first <= hi; ++w)
      hi = std::max(hi, windows[w].second);
    for (int32_t at = lo; at <= hi; ++at) {
      node_of[order[at]] = static_cast<int32_t>(nodes.size());
      nodes.push_back(order[at]);
    }
  }
  for (const Channel* channel : fusable) {
    int32_t shared = node_of.at(channel->recv.done);
    for (const HloInstruction* member : members(*channel)) node_of[member] = shared;
  }
  const int32_t n = static_cast<int32_t>(nodes.size());
  // Edges dependency -> dependent inside the windows, in compressed rows.
  std::vector<int32_t> row(n + 1, 0), column;
  auto for_each_edge = [&](auto&& visit) {
    for (const HloInstruction* user : nodes) {
      int32_t to = node_of.at(user);
      auto edge_from = [&](const HloInstruction* dependency) {
        auto it = node_of.find(dependency);
        if (it != node_of.end() && it->second != to) visit(it->second, to);
      };
      for (const HloInstruction* operand : user->operands()) edge_from(operand);
      if (!user->has_control_predecessors()) continue;
      for (const HloInstruction* predecessor : user->control_predecessors()) edge_from(predecessor);
    }
  };
  for_each_edge([&](int32_t from, int32_t) { ++row[from + 1]; });
  for (int32_t v = 0; v < n; ++v) row[v + 1] += row[v];
  column.resize(row[n]);
  std::vector<int32_t> fill(row.begin(), row.end() - 1);
  for_each_edge([&](int32_t from, int32_t to) { column[fill[from]++] = to; });
  std::vector<bool> cyclic = NodesOnCycles(row, column);
  for (const Channel* channel : fusable)
    if (cyclic[node_of.at(channel->recv.done)]) on_cycles.insert(channel);
  return on_cycles;
}

absl::Status MissingChannel() {
  return absl::FailedPreconditionError("Send and Recv must have channel_id");
}

}  // namespace

absl::StatusOr<bool> FuseSendRecv::Run(hopt::HloModule& module) {
  hopt::HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return false;
  // Channels in the order their first -done appears (a stable rewrite order).
  std::vector<std::pair<int64_t, Channel>> channels;
  absl::flat_hash_map<int64_t, size_t> channel_index;
  std::vector<HloInstruction*> dones =
      entry->InstructionsWithOpcodeInPostOrder({HloOpcode::kSendDone, HloOpcode::kRecvDone});
  if (dones.empty()) return false;
  channels.reserve(dones.size() / 2 + 1);
  channel_index.reserve(dones.size() / 2 + 1);
  for (HloInstruction* instruction : dones) {
    HloOpcode opcode = instruction->opcode();
    HloInstruction* start = instruction->mutable_operand(0);
    bool is_send = opcode == HloOpcode::kSendDone;
    if (start->opcode() != (is_send ? HloOpcode::kSend : HloOpcode::kRecv)) {
      // Pipelined: the -done reads its send or recv out of a loop's state
      // (a get-tuple-element of a while), so there is no pair to fuse here.
      HOPT_DEBUG("fuse-send-recv", dbgs << "'" << hopt::AsRef(instruction->name())
                                        << "' left alone: its operand is "
                                        << hopt::AsRef(hopt::HloOpcodeString(start->opcode()))
                                        << ", not a " << (is_send ? "send" : "recv") << "\n");
      continue;
    }
    std::optional<int64_t> id = start->channel_id();
    if (!id) return MissingChannel();
    auto [slot, added] = channel_index.try_emplace(*id, channels.size());
    if (added) channels.emplace_back(*id, Channel());
    Channel& channel = channels[slot->second].second;
    Half& half = is_send ? channel.send : channel.recv;
    half.start = start;
    half.done = instruction;
    ++half.count;
  }
  std::vector<const Channel*> fusable;
  fusable.reserve(channels.size());
  for (const auto& [id, channel] : channels) {
    std::string why_not = Fusable(channel);
    if (why_not.empty()) {
      fusable.push_back(&channel);
    } else {
      HOPT_DEBUG("fuse-send-recv", dbgs << "channel " << id << " left alone: " << why_not << "\n");
    }
  }
  absl::flat_hash_set<const Channel*> on_cycles = ChannelsOnCycles(*entry, fusable);
  std::vector<std::pair<HloInstruction*, HloInstruction*>> replacements;
  replacements.reserve(4 * fusable.size());
  std::vector<const Channel*> done;
  for (const Channel* fused : fusable) {
    const Channel& channel = *fused;
    int64_t id = *channel.send.start->channel_id();
    if (on_cycles.contains(fused)) {
      HOPT_DEBUG("fuse-send-recv",
                 dbgs << "channel " << id << " left alone: fusing it would close a cycle\n");
      continue;
    }
    HOPT_RETURN_IF_ERROR(Fuse(entry, id, channel, target_, replacements));
    done.push_back(fused);
  }
  if (done.empty()) return false;
  entry->RelayControlDependencies(replacements);
  // Users first: the -done ops, their send / recv, then tokens only they used.
  std::vector<HloInstruction*> dead;
  dead.reserve(4 * done.size());
  for (const Channel* channel : done) dead.push_back(channel->send.done);
  for (const Channel* channel : done) dead.push_back(channel->recv.done);
  hopt::DenseInstructionSet seen_tokens;
  std::vector<HloInstruction*> tokens;
  for (const Channel* channel : done)
    for (HloInstruction* start : {channel->send.start, channel->recv.start}) {
      dead.push_back(start);
      for (HloInstruction* operand : start->operands())
        if (operand->opcode() == HloOpcode::kAfterAll && seen_tokens.insert(operand))
          tokens.push_back(operand);
    }
  HOPT_RETURN_IF_ERROR(entry->RemoveInstructions(dead));
  std::vector<HloInstruction*> unused_tokens;
  for (HloInstruction* token : tokens)
    if (token->user_count() == 0 && !token->IsRoot() && !token->has_control_edges())
      unused_tokens.push_back(token);
  HOPT_RETURN_IF_ERROR(entry->RemoveInstructions(unused_tokens));
  return true;
}

}  // namespace neuron

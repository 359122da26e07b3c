// SPDX-License-Identifier: Apache-2.0
// fuse-send-recv: pairing by channel on the -done ops, the fused call, the
// channel_id error, what is left alone, and equivalence on several meshes.

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collectives/collective_semantics.h"
#include "collectives/fuse_send_recv.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::HloOpcode;
using ::hopt::testing_util::ExpectSameResults;
using ::hopt::testing_util::MeshShape;
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::RunPassOrFail;
using ::hopt::testing_util::StandardMeshes;
using ::testing::HasSubstr;

// What the plugin registers for the interpreter: the fused calls are
// recognised by their form, whatever their target.
class SendRecvSemantics : public ::testing::Environment {
 public:
  void SetUp() override { AddSendRecvSemantics(hopt::testing_util::TestRegistrar()); }
};
const ::testing::Environment* const kSendRecvSemantics =
    ::testing::AddGlobalTestEnvironment(new SendRecvSemantics);

int Count(const HloModule& module, HloOpcode opcode) {
  int n = 0;
  for (const HloInstruction* i : module.entry_computation()->instructions())
    n += i->opcode() == opcode;
  return n;
}

std::vector<const HloInstruction*> CustomCalls(const HloModule& module) {
  std::vector<const HloInstruction*> calls;
  for (const HloInstruction* i : module.entry_computation()->MakeInstructionPostOrder())
    if (i->opcode() == HloOpcode::kCustomCall) calls.push_back(i);
  return calls;
}

// A channel: send `data` to the pairs' targets, receive into `name`. The
// recv-done waits for the send, as in real programs (every device runs both
// halves; a recv-done first would deadlock a cycle).
std::string Transfer(const std::string& name, int channel, const std::string& data,
                     const std::string& shape, const std::string& pairs,
                     const std::string& extra = "") {
  std::string attrs = absl::StrCat("channel_id=", channel,
                                   ", frontend_attributes={_xla_send_recv_source_target_pairs=\"",
                                   pairs, "\"}", extra);
  return absl::StrCat("  tok_", name, " = token[] after-all()\n", "  recv_", name, " = (", shape,
                      ", u32[], token[]) recv(tok_", name, "), ", attrs, "\n", "  send_", name,
                      " = (", shape, ", u32[], token[]) send(", data, ", tok_", name, "), ", attrs,
                      "\n", "  recvd_", name, " = (", shape, ", token[]) recv-done(recv_", name,
                      "), channel_id=", channel, ", control-predecessors={send_", name, "}\n",
                      "  sendd_", name, " = token[] send-done(send_", name,
                      "), channel_id=", channel, "\n", "  ", name, " = ", shape,
                      " get-tuple-element(recvd_", name, "), index=0\n");
}

// Ids along the mesh axis the transfers use: partitions if any, else replicas.
int64_t Ids(MeshShape mesh) { return mesh.partitions > 1 ? mesh.partitions : mesh.replicas; }

std::string Pairs(int64_t n, int64_t shift, bool partial) {
  std::vector<std::string> pairs;
  for (int64_t s = 0; s < n; ++s) {
    if (partial && s % 2 == 1) continue;
    pairs.push_back(absl::StrCat("{", s, ",", (s + shift) % n, "}"));
  }
  return absl::StrCat("{", absl::StrJoin(pairs, ","), "}");
}

TEST(FuseSendRecvTest, FusesEachChannelIntoOneCall) {
  auto module = ParseOrFail(
      absl::StrCat("HloModule m, num_partitions=4\n\nENTRY main {\n  p = f32[4,2] parameter(0)\n",
                   Transfer("a", 1, "p", "f32[4,2]", "{{0,1},{1,2},{2,3},{3,0}}"),
                   "  ROOT r = (f32[4,2], token[]) tuple(a, sendd_a)\n}\n"));
  ASSERT_NE(module, nullptr);
  FuseSendRecv pass;
  auto [fused, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(changed);
  for (HloOpcode gone : {HloOpcode::kSend, HloOpcode::kSendDone, HloOpcode::kRecv,
                         HloOpcode::kRecvDone, HloOpcode::kAfterAll})
    EXPECT_EQ(Count(*fused, gone), 0) << hopt::HloOpcodeString(gone);
  auto calls = CustomCalls(*fused);
  ASSERT_EQ(calls.size(), 1u);
  const HloInstruction* call = calls[0];
  EXPECT_EQ(call->custom_call_target(), "AwsNeuronSendRecv");
  EXPECT_EQ(call->backend_config(), "channel_id=1");
  EXPECT_EQ(call->shape().ToString(), "(f32[4,2]{1,0}, token[])");
  ASSERT_EQ(call->operand_count(), 1);
  EXPECT_EQ(call->operand(0)->name(), "p");
  EXPECT_FALSE(call->HasAttribute("api_version"));  // ORIGINAL, XLA's default
  EXPECT_THAT(call->frontend_attributes(),
              ::testing::ElementsAre(::testing::Pair("_xla_send_recv_source_target_pairs",
                                                     "{{0,1},{1,2},{2,3},{3,0}}")));
  // The send-done's token is now the call's.
  const HloInstruction* root = fused->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(root->operand(1)->operand(0), call);
  EXPECT_EQ(root->operand(1)->tuple_index(), 1);
  ExpectSameResults(*module, *fused, {1, 4});
}

TEST(FuseSendRecvTest, TargetNameIsAnOption) {
  auto module = ParseOrFail(absl::StrCat(
      "HloModule m, replica_count=2\n\nENTRY main {\n  p = s32[3] parameter(0)\n",
      Transfer("a", 5, "p", "s32[3]", "{{0,1},{1,0}}"), "  ROOT r = s32[3] add(a, p)\n}\n"));
  ASSERT_NE(module, nullptr);
  FuseSendRecv pass("VendorSendRecv");
  auto [fused, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(fused, nullptr);
  auto calls = CustomCalls(*fused);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->custom_call_target(), "VendorSendRecv");
  EXPECT_EQ(calls[0]->backend_config(), "channel_id=5");
  ExpectSameResults(*module, *fused, {2, 1});
}

TEST(FuseSendRecvTest, MissingChannelIdFailsThePass) {
  for (const char* half : {"send", "recv"}) {
    std::string text = absl::StrCat(
        "HloModule m, num_partitions=2\n\nENTRY main {\n  p = f32[2] parameter(0)\n",
        Transfer("a", 1, "p", "f32[2]", "{{0,1}}"), "  ROOT r = f32[2] add(a, p)\n}\n");
    // Drop the channel of one half (its line starts with "  <half>_a =").
    std::string marker = absl::StrCat("  ", half, "_a = ");
    size_t line = text.find(marker);
    ASSERT_NE(line, std::string::npos);
    size_t channel = text.find("channel_id=1, ", line);
    text.erase(channel, std::string("channel_id=1, ").size());
    auto module = ParseOrFail(text);
    ASSERT_NE(module, nullptr);
    FuseSendRecv pass;
    absl::StatusOr<bool> result = pass.Run(*module);
    ASSERT_FALSE(result.ok()) << half;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(result.status().message(), "Send and Recv must have channel_id");
  }
}

TEST(FuseSendRecvTest, LeavesUnpairedHostAndCyclicTransfersAlone) {
  auto module = ParseOrFail(R"(HloModule m, num_partitions=2

ENTRY main {
  p = f32[2] parameter(0)
  t = token[] after-all()
  lonely = (f32[2], u32[], token[]) send(p, t), channel_id=1
  lonely-done = token[] send-done(lonely), channel_id=1
  hr = (f32[2], u32[], token[]) recv(t), channel_id=2, is_host_transfer=true
  hs = (f32[2], u32[], token[]) send(p, t), channel_id=2, is_host_transfer=true
  hr-done = (f32[2], token[]) recv-done(hr), channel_id=2, is_host_transfer=true
  hs-done = token[] send-done(hs), channel_id=2, is_host_transfer=true
  cr = (f32[2], u32[], token[]) recv(t), channel_id=3
  cr-done = (f32[2], token[]) recv-done(cr), channel_id=3
  got = f32[2] get-tuple-element(cr-done), index=0
  twice = f32[2] add(got, got)
  cs = (f32[2], u32[], token[]) send(twice, t), channel_id=3
  cs-done = token[] send-done(cs), channel_id=3
  ROOT r = (token[], (f32[2], token[]), token[], token[]) tuple(lonely-done, hr-done, hs-done, cs-done)
}
)");
  ASSERT_NE(module, nullptr);
  FuseSendRecv pass;
  auto [after, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(after, nullptr);
  EXPECT_FALSE(changed);
  EXPECT_EQ(hopt::PrintModule(*after), hopt::PrintModule(*module));
}

// Pipelined transfers: the -done ops read their send and recv out of a
// loop's state. Each has a channel; the pass leaves them as they are
// instead of failing the module for a missing channel_id.
TEST(FuseSendRecvTest, LeavesPipelinedTransfersAlone) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2

cond {
  state = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  state = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  s = (f32[2], u32[], token[]) get-tuple-element(state), index=1
  r = (f32[2], u32[], token[]) get-tuple-element(state), index=2
  ROOT out = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) tuple(next, s, r)
}

ENTRY main {
  p = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(p, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  r = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  zero = s32[] constant(0)
  init = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) tuple(zero, s, r)
  w = (s32[], (f32[2], u32[], token[]), (f32[2], u32[], token[])) while(init), condition=cond, body=body
  sctx = (f32[2], u32[], token[]) get-tuple-element(w), index=1
  rctx = (f32[2], u32[], token[]) get-tuple-element(w), index=2
  sd = token[] send-done(sctx), channel_id=1
  rd = (f32[2], token[]) recv-done(rctx), channel_id=1
  ROOT data = f32[2] get-tuple-element(rd), index=0, control-predecessors={sd}
}
)");
  ASSERT_NE(module, nullptr);
  FuseSendRecv pass;
  auto [after, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(after, nullptr);
  EXPECT_FALSE(changed);
  EXPECT_EQ(hopt::PrintModule(*after), hopt::PrintModule(*module));
}

TEST(FuseSendRecvTest, LeavesChannelsAloneWhoseFusionWouldCloseACycle) {
  // Each channel sends what the other received: separately fusable, but
  // fusing both would make each call an operand of the other. A third,
  // independent channel is still fused.
  auto module = ParseOrFail(R"(HloModule m, num_partitions=2

ENTRY main {
  p = f32[2] parameter(0)
  t = token[] after-all()
  ra = (f32[2], u32[], token[]) recv(t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  rb = (f32[2], u32[], token[]) recv(t), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  ra-done = (f32[2], token[]) recv-done(ra), channel_id=1
  rb-done = (f32[2], token[]) recv-done(rb), channel_id=2
  ga = f32[2] get-tuple-element(ra-done), index=0
  gb = f32[2] get-tuple-element(rb-done), index=0
  sa = (f32[2], u32[], token[]) send(gb, t), channel_id=1
  sb = (f32[2], u32[], token[]) send(ga, t), channel_id=2
  sa-done = token[] send-done(sa), channel_id=1
  sb-done = token[] send-done(sb), channel_id=2
  rc = (f32[2], u32[], token[]) recv(t), channel_id=3
  sc = (f32[2], u32[], token[]) send(p, t), channel_id=3
  rc-done = (f32[2], token[]) recv-done(rc), channel_id=3
  sc-done = token[] send-done(sc), channel_id=3
  ROOT r = (token[], token[], (f32[2], token[]), token[]) tuple(sa-done, sb-done, rc-done, sc-done)
}
)");
  ASSERT_NE(module, nullptr);
  FuseSendRecv pass;
  auto [after, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(after, nullptr);
  EXPECT_TRUE(changed);
  auto calls = CustomCalls(*after);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->backend_config(), "channel_id=3");
  EXPECT_EQ(Count(*after, HloOpcode::kRecvDone), 2);
}

// A random program of interleaved transfers: a channel's recv may come
// long before its send, and a send may carry what other channels (or its
// own) received, so that fusing them closes cycles of every length. The
// statements are written in a random order too (the reader takes uses
// before definitions), which the pass must not depend on.
struct RandomTransfers {
  std::string text;
  int channels = 0;
  // The statements: name = operands, channel (-1: none), kind.
  struct Node {
    std::string name;
    std::vector<int> operands;
    int channel = -1;
    std::string line;
  };
  std::vector<Node> nodes;
};

RandomTransfers MakeRandomTransfers(std::mt19937& random, bool shuffle) {
  RandomTransfers r;
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
  std::vector<int> pool;  // nodes holding f32[2] values
  std::vector<int> open;  // channels received, not yet sent
  std::vector<int> keep;  // what the root keeps alive
  auto add = [&](std::string name, std::vector<int> operands, int channel, std::string line) {
    r.nodes.push_back({std::move(name), std::move(operands), channel, std::move(line)});
    return static_cast<int>(r.nodes.size()) - 1;
  };
  pool.push_back(add("p", {}, -1, "  p = f32[2] parameter(0)"));
  int token = add("t", {}, -1, "  t = token[] after-all()");
  int steps = 6 + pick(14);
  for (int step = 0; step < steps || !open.empty(); ++step) {
    int choice = step >= steps ? 1 : pick(3);
    if (choice == 0) {  // a new channel: its recv half
      int c = ++r.channels;
      std::string id = absl::StrCat(c);
      std::string attrs = absl::StrCat(", channel_id=", c);
      int recv = add("r" + id, {token}, c,
                     absl::StrCat("  r", id, " = (f32[2], u32[], token[]) recv(t)", attrs));
      int done = add("rd" + id, {recv}, c,
                     absl::StrCat("  rd", id, " = (f32[2], token[]) recv-done(r", id, ")", attrs));
      pool.push_back(
          add("g" + id, {done}, -1,
              absl::StrCat("  g", id, " = f32[2] get-tuple-element(rd", id, "), index=0")));
      open.push_back(c);
    } else if (choice == 1 && !open.empty()) {  // close a channel: its send half
      int k = pick(static_cast<int>(open.size()));
      int c = open[k];
      open.erase(open.begin() + k);
      std::string id = absl::StrCat(c);
      std::string attrs = absl::StrCat(", channel_id=", c);
      int data = pool[pick(static_cast<int>(pool.size()))];
      int send = add("s" + id, {data, token}, c,
                     absl::StrCat("  s", id, " = (f32[2], u32[], token[]) send(",
                                  r.nodes[data].name, ", t)", attrs));
      keep.push_back(add("sd" + id, {send}, c,
                         absl::StrCat("  sd", id, " = token[] send-done(s", id, ")", attrs)));
    } else {  // arithmetic on what is there
      int a = pool[pick(static_cast<int>(pool.size()))];
      int b = pool[pick(static_cast<int>(pool.size()))];
      std::string name = absl::StrCat("x", step);
      pool.push_back(add(
          name, {a, b}, -1,
          absl::StrCat("  ", name, " = f32[2] add(", r.nodes[a].name, ", ", r.nodes[b].name, ")")));
    }
  }
  std::vector<std::string> lines;
  for (const auto& node : r.nodes) lines.push_back(node.line);
  if (shuffle) std::shuffle(lines.begin(), lines.end(), random);
  std::vector<std::string> shapes, names;
  for (int k : pool) shapes.push_back("f32[2]"), names.push_back(r.nodes[k].name);
  for (int k : keep) shapes.push_back("token[]"), names.push_back(r.nodes[k].name);
  r.text =
      absl::StrCat("HloModule m, num_partitions=2\n\nENTRY main {\n", absl::StrJoin(lines, "\n"),
                   "\n  ROOT root = (", absl::StrJoin(shapes, ", "), ") tuple(",
                   absl::StrJoin(names, ", "), ")\n}\n");
  return r;
}

// The channels whose contraction closes a cycle, by brute force: channel c
// is on a cycle when its node reaches itself in the contracted graph.
std::set<int> ChannelsOnCyclesBySearch(const RandomTransfers& r) {
  auto node_of = [&](int k) {
    return r.nodes[k].channel >= 0 ? -r.nodes[k].channel - 1 : k;  // channels: negative
  };
  std::map<int, std::set<int>> successors;
  for (int k = 0; k < static_cast<int>(r.nodes.size()); ++k)
    for (int operand : r.nodes[k].operands)
      if (node_of(operand) != node_of(k)) successors[node_of(operand)].insert(node_of(k));
  std::set<int> on_cycles;
  for (int c = 1; c <= r.channels; ++c) {
    std::set<int> seen;
    std::vector<int> work(successors[-c - 1].begin(), successors[-c - 1].end());
    while (!work.empty()) {
      int v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      for (int w : successors[v]) work.push_back(w);
    }
    if (seen.count(-c - 1)) on_cycles.insert(c);
  }
  return on_cycles;
}

TEST(FuseSendRecvTest, FusesExactlyTheChannelsOffCyclesInRandomPrograms) {
  std::mt19937 random(20261202);
  int with_cycles = 0, shuffled = 0;
  for (int trial = 0; trial < 300; ++trial) {
    bool shuffle = trial % 2 == 1;
    RandomTransfers r = MakeRandomTransfers(random, shuffle);
    SCOPED_TRACE(r.text);
    std::set<int> expected_left = ChannelsOnCyclesBySearch(r);
    with_cycles += !expected_left.empty();
    shuffled += shuffle;
    auto module = ParseOrFail(r.text);
    ASSERT_NE(module, nullptr);
    FuseSendRecv pass;
    auto [after, changed] = RunPassOrFail(pass, *module);
    ASSERT_NE(after, nullptr);
    std::set<int> fused;
    for (const HloInstruction* call : CustomCalls(*after)) {
      int channel = 0;
      ASSERT_TRUE(absl::SimpleAtoi(call->backend_config().substr(11), &channel))
          << call->backend_config();
      fused.insert(channel);
    }
    for (int c = 1; c <= r.channels; ++c)
      EXPECT_EQ(fused.count(c) == 0, expected_left.count(c) == 1) << "channel " << c;
    EXPECT_EQ(changed, static_cast<int>(expected_left.size()) < r.channels);
    if (trial % 10 == 0) ExpectSameResults(*module, *after, {1, 2});
  }
  // The generator must exercise both outcomes.
  EXPECT_GT(with_cycles, 50);
  EXPECT_LT(with_cycles, 250);
  EXPECT_EQ(shuffled, 150);
}

TEST(FuseSendRecvTest, SeveralChannelsOnEveryMesh) {
  // Full cycles, a partial shift and a swap, in f32, bf16 and s32.
  for (MeshShape mesh : StandardMeshes()) {
    SCOPED_TRACE(absl::StrCat(mesh.replicas, "x", mesh.partitions));
    int64_t n = Ids(mesh);
    std::string text = absl::StrCat("HloModule m, replica_count=", mesh.replicas,
                                    ", num_partitions=", mesh.partitions,
                                    "\n\nENTRY main {\n  x = f32[4,3] parameter(0)\n"
                                    "  y = bf16[8] parameter(1)\n  z = s32[2] parameter(2)\n");
    absl::StrAppend(&text, Transfer("a", 1, "x", "f32[4,3]", Pairs(n, 1, false)));
    absl::StrAppend(&text, Transfer("b", 2, "y", "bf16[8]", Pairs(n, n - 1, true)));
    absl::StrAppend(&text, Transfer("c", 3, "z", "s32[2]", Pairs(n, n / 2, false)));
    absl::StrAppend(&text, Transfer("d", 4, "a", "f32[4,3]", Pairs(n, 1, false)));
    absl::StrAppend(&text,
                    "  ROOT r = (f32[4,3], bf16[8], s32[2], f32[4,3], token[]) tuple(a, b, c, d, "
                    "sendd_d)\n}\n");
    auto module = ParseOrFail(text);
    ASSERT_NE(module, nullptr);
    FuseSendRecv pass;
    auto [fused, changed] = RunPassOrFail(pass, *module);
    ASSERT_NE(fused, nullptr);
    EXPECT_TRUE(changed);
    EXPECT_EQ(CustomCalls(*fused).size(), 4u);
    EXPECT_EQ(Count(*fused, HloOpcode::kRecvDone), 0);
    ExpectSameResults(*module, *fused, mesh);
  }
}

}  // namespace
}  // namespace neuron

// fuse-send-recv: pairing by channel on the -done ops, the fused call, the
// channel_id error, what is left alone, and equivalence on several meshes.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/computation.h"
#include "core/ir/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/collectives/fuse_send_recv.h"
#include "unittests/plugin_test_util.h"

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
  return absl::StrCat(
      "  tok_", name, " = token[] after-all()\n",
      "  recv_", name, " = (", shape, ", u32[], token[]) recv(tok_", name, "), ", attrs, "\n",
      "  send_", name, " = (", shape, ", u32[], token[]) send(", data, ", tok_", name, "), ", attrs, "\n",
      "  recvd_", name, " = (", shape, ", token[]) recv-done(recv_", name, "), channel_id=", channel,
      ", control-predecessors={send_", name, "}\n",
      "  sendd_", name, " = token[] send-done(send_", name, "), channel_id=", channel, "\n",
      "  ", name, " = ", shape, " get-tuple-element(recvd_", name, "), index=0\n");
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
  auto module = ParseOrFail(absl::StrCat(
      "HloModule m, num_partitions=4\n\nENTRY main {\n  p = f32[4,2] parameter(0)\n",
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
                    "  ROOT r = (f32[4,3], bf16[8], s32[2], f32[4,3], token[]) tuple(a, b, c, d, sendd_d)\n}\n");
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

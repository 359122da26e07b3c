// SPDX-License-Identifier: Apache-2.0
// send/recv in the interpreter: paired by channel, pairs from
// _xla_send_recv_source_target_pairs, zeros where no one sends.

#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/parser.h"

namespace hopt {
namespace {

constexpr char kRing[] = R"(HloModule sr, replica_count=4

ENTRY main {
  p = f32[2]{0} parameter(0)
  t = token[] after-all()
  s = (f32[2]{0}, u32[], token[]) send(p, t), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"}
  r = (f32[2]{0}, u32[], token[]) recv(t), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"}
  sd = token[] send-done(s), channel_id=7
  rd = (f32[2]{0}, token[]) recv-done(r), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"}
  ROOT out = f32[2]{0} get-tuple-element(rd), index=0, control-predecessors={sd}
}
)";

std::vector<std::vector<Literal>> Inputs(int64_t devices) {
  std::vector<std::vector<Literal>> args(devices);
  for (int64_t d = 0; d < devices; ++d) {
    Literal v(Shape(PrimitiveType::F32, {2}));
    v.SetFromDouble(0, 10.0 * d + 1);
    v.SetFromDouble(1, 10.0 * d + 2);
    args[d].push_back(v);
  }
  return args;
}

TEST(SendRecvTest, ChainDeliversToTargetsAndZerosElsewhere) {
  auto module = ParseHloModule(kRing, "sr.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  auto out = eval::RunModule(**module, Inputs(4));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].ToText(), "{0, 0}");  // nobody sends to replica 0
  EXPECT_EQ((*out)[1].ToText(), "{1, 2}");
  EXPECT_EQ((*out)[2].ToText(), "{11, 12}");
  EXPECT_EQ((*out)[3].ToText(), "{21, 22}");
}

TEST(SendRecvTest, PartitionIdsOnAMeshWithPartitions) {
  auto module = ParseHloModule(kRing, "sr.hlo");
  ASSERT_TRUE(module.ok());
  eval::EvalOptions options;
  options.replicas = 2;
  options.partitions = 4;
  auto out = eval::RunModule(**module, Inputs(8), options);
  ASSERT_TRUE(out.ok()) << out.status();
  // Device 5 is replica 1, partition 1: partition 0 of replica 1 (device 4)
  // sends to it.
  EXPECT_EQ((*out)[5].ToText(), "{41, 42}");
  EXPECT_EQ((*out)[4].ToText(), "{0, 0}");
  EXPECT_EQ((*out)[1].ToText(), "{1, 2}");
}

TEST(SendRecvTest, RecvDoneBeforeItsSendIsAClearError) {
  // The root is listed before the send's done and nothing orders the send
  // first, so the recv side runs first.
  constexpr char kRecvFirst[] = R"(HloModule sr, replica_count=2

ENTRY main {
  p = f32[2]{0} parameter(0)
  t = token[] after-all()
  r = (f32[2]{0}, u32[], token[]) recv(t), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  rd = (f32[2]{0}, token[]) recv-done(r), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  ROOT out = f32[2]{0} get-tuple-element(rd), index=0
  s = (f32[2]{0}, u32[], token[]) send(p, t), channel_id=7, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  sd = token[] send-done(s), channel_id=7
}
)";
  auto module = ParseHloModule(kRecvFirst, "sr.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  eval::EvalOptions options;
  options.rendezvous_timeout_ms = 2000;
  auto out = eval::RunModule(**module, Inputs(2), options);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("recv-done of channel 7 runs before its send"),
            std::string::npos)
      << out.status();
}

// The pairs of a channel: the recv's, else the recv-done's, else the
// send's; a send-done's are not read. Malformed pairs are an error.
TEST(SendRecvTest, PairsComeFromRecvThenRecvDoneThenSend) {
  auto run = [](const std::string& send, const std::string& recv, const std::string& recv_done,
                const std::string& send_done) {
    auto attr = [](const std::string& pairs) {
      return pairs.empty()
                 ? std::string()
                 : ", frontend_attributes={_xla_send_recv_source_target_pairs=\"" + pairs + "\"}";
    };
    std::string text = R"(HloModule sr, replica_count=4

ENTRY main {
  p = f32[2]{0} parameter(0)
  t = token[] after-all()
  s = (f32[2]{0}, u32[], token[]) send(p, t), channel_id=7)" +
                       attr(send) + R"(
  r = (f32[2]{0}, u32[], token[]) recv(t), channel_id=7)" +
                       attr(recv) + R"(
  sd = token[] send-done(s), channel_id=7)" +
                       attr(send_done) + R"(
  rd = (f32[2]{0}, token[]) recv-done(r), channel_id=7)" +
                       attr(recv_done) + R"(
  ROOT out = f32[2]{0} get-tuple-element(rd), index=0, control-predecessors={sd}
}
)";
    auto module = ParseHloModule(text, "sr.hlo");
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return std::string("unparsed");
    auto out = eval::RunModule(**module, Inputs(4));
    if (!out.ok()) return std::string(out.status().message());
    return (*out)[1].ToText();
  };
  EXPECT_EQ(run("{{0,1}}", "", "", ""), "{1, 2}");
  EXPECT_EQ(run("{{0,1}}", "", "{{2,1}}", ""), "{21, 22}");
  EXPECT_EQ(run("{{0,1}}", "{{3,1}}", "{{2,1}}", ""), "{31, 32}");
  EXPECT_EQ(run("", "", "", "{{0,1}}"), "{0, 0}");
  EXPECT_NE(run("{{0,1}", "", "", "").find("malformed _xla_send_recv_source_target_pairs"),
            std::string::npos);
}

}  // namespace
}  // namespace hopt

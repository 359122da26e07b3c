// SPDX-License-Identifier: Apache-2.0
// Tests for fusion, the async pairs, copy-start/copy-done and the
// asynchronous collectives (core/eval/wrapped_ops.cc): each must give what
// its synchronous form gives, on every device of a mesh. Also
// collective-broadcast, the collective that came with them.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Runs `text` on `devices` replicas with device d's f32[n] argument
// DeviceIota(d, n), expecting an error.
absl::Status RunExpectingError(const std::string& text, int64_t devices, int64_t n) {
  std::unique_ptr<HloModule> module = testing_util::ParseOrFail(text);
  if (module == nullptr) return absl::InternalError("did not parse");
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, IotaArguments(devices, n), MeshOptions(devices, 1));
  EXPECT_FALSE(outputs.ok());
  return outputs.ok() ? absl::OkStatus() : outputs.status();
}

TEST(FusionTest, RunsItsFusedComputationOnItsOperands) {
  // 2x + y on x = {0,1,2}, y = x.
  const std::string text = R"(HloModule m
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  two = f32[] constant(2)
  t = f32[3] broadcast(two), dimensions={}
  m = f32[3] multiply(a, t)
  ROOT s = f32[3] add(m, b)
}
ENTRY e {
  x = f32[3] parameter(0)
  ROOT f = f32[3] fusion(x, x), kind=kLoop, calls=fused
})";
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(1, 3), 1, 1);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_THAT(ValuesOf(outputs[0]), ElementsAre(0, 3, 6));
}

TEST(FusionTest, ANestedFusionWithATupleRootGivesTheTuple) {
  const std::string text = R"(HloModule m
inner {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
outer {
  a = f32[2] parameter(0)
  f = f32[2] fusion(a), kind=kLoop, calls=inner
  ROOT t = (f32[2], f32[2]) tuple(f, a)
}
ENTRY e {
  x = f32[2] parameter(0)
  f = (f32[2], f32[2]) fusion(x), kind=kOutput, calls=outer
  ROOT g = f32[2] get-tuple-element(f), index=0
})";
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(2, 2), 2, 1);
  ExpectPerDevice(outputs, {{0, -1}, {-100, -101}});
}

TEST(AsyncTest, AWrappedAllReduceGivesTheSumAtItsDone) {
  // Devices hold {100d, 100d + 1}: the sum over 4 is {600, 604}.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
wrapped {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}
ENTRY e {
  x = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(x), calls=wrapped
  u = ((f32[2]), f32[2], s32[]) async-update(s)
  ROOT d = f32[2] async-done(u)
})");
  ExpectPerDevice(RunOrFail(text, IotaArguments(4, 2), 4, 1),
                  {{600, 604}, {600, 604}, {600, 604}, {600, 604}});
}

TEST(AsyncTest, TheShorthandOfACollectiveRunsTheCollective) {
  // reduce-scatter-start with no calls=: its to_apply is the reduction, not
  // a computation to run. x_d = {100d, 100d + 1, 100d + 2, 100d + 3}.
  const std::string text = absl::StrCat("HloModule m, replica_count=2\n", kAddF32, R"(
ENTRY e {
  x = f32[4] parameter(0)
  rs = ((f32[4]), f32[2], s32[]) reduce-scatter-start(x), replica_groups={}, dimensions={0}, to_apply=add
  ROOT d = f32[2] reduce-scatter-done(rs)
})");
  ExpectPerDevice(RunOrFail(text, IotaArguments(2, 4), 2, 1), {{100, 102}, {104, 106}});
}

TEST(AsyncTest, TheStartHoldsItsOperandsAndResult) {
  const std::string text = R"(HloModule m
wrapped {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY e {
  x = f32[2] parameter(0)
  ROOT s = ((f32[2]), f32[2], s32[]) async-start(x), calls=wrapped
})";
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(1, 2), 1, 1);
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].tuple_elements().size(), 3u);
  EXPECT_THAT(ValuesOf(outputs[0].tuple_elements()[0].tuple_elements()[0]), ElementsAre(0, 1));
  EXPECT_THAT(ValuesOf(outputs[0].tuple_elements()[1]), ElementsAre(0, -1));
  EXPECT_THAT(ValuesOf(outputs[0].tuple_elements()[2]), ElementsAre(0));
}

TEST(AsyncTest, AStartWhoseResultShapeDisagreesIsRefused) {
  const std::string text = R"(HloModule m
wrapped {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY e {
  x = f32[2] parameter(0)
  s = ((f32[2]), f32[3], s32[]) async-start(x), calls=wrapped
  ROOT d = f32[3] async-done(s)
})";
  absl::Status status = RunExpectingError(text, 1, 2);
  EXPECT_THAT(status.message(), HasSubstr("the computation it starts gives f32[2]"));
}

TEST(AsyncCollectiveTest, StartsAndDonesMatchTheSynchronousOps) {
  // 4 replicas, x_d = {100d, 100d + 1}.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
ENTRY e {
  x = f32[2] parameter(0)
  ars = f32[2] all-reduce-start(x), replica_groups={{0,1},{2,3}}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ags = (f32[2], f32[4]) all-gather-start(x), replica_groups={{0,1},{2,3}}, dimensions={0}
  agd = f32[4] all-gather-done(ags)
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,3},{3,0}}
  cpd = f32[2] collective-permute-done(cps)
  ROOT t = (f32[2], f32[4], f32[2]) tuple(ard, agd, cpd)
})");
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(4, 2), 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  EXPECT_THAT(ValuesOf(outputs[0].tuple_elements()[0]), ElementsAre(100, 102));
  EXPECT_THAT(ValuesOf(outputs[3].tuple_elements()[0]), ElementsAre(500, 502));
  EXPECT_THAT(ValuesOf(outputs[2].tuple_elements()[1]), ElementsAre(200, 201, 300, 301));
  EXPECT_THAT(ValuesOf(outputs[0].tuple_elements()[2]), ElementsAre(300, 301));
  EXPECT_THAT(ValuesOf(outputs[3].tuple_elements()[2]), ElementsAre(0, 1));
  // Not a target: zeros, as for collective-permute.
  EXPECT_THAT(ValuesOf(outputs[1].tuple_elements()[2]), ElementsAre(0, 0));
}

TEST(AsyncCollectiveTest, AMultiOperandAllGatherStartEchoesItsOperands) {
  const std::string text = R"(HloModule m, replica_count=2
ENTRY e {
  x = f32[2] parameter(0)
  n = f32[2] negate(x)
  ags = ((f32[2], f32[2]), (f32[4], f32[4])) all-gather-start(x, n), replica_groups={}, dimensions={0}
  ROOT agd = (f32[4], f32[4]) all-gather-done(ags)
})";
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(2, 2), 2, 1);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_THAT(ValuesOf(outputs[1].tuple_elements()[0]), ElementsAre(0, 1, 100, 101));
  EXPECT_THAT(ValuesOf(outputs[1].tuple_elements()[1]), ElementsAre(0, -1, -100, -101));
}

TEST(CollectiveBroadcastTest, EachGroupGetsItsFirstMembersValue) {
  // Groups {1,0} and {3,2}: the first member is the source.
  const std::string text = R"(HloModule m, replica_count=4
ENTRY e {
  x = f32[2] parameter(0)
  ROOT b = f32[2] collective-broadcast(x), replica_groups={{1,0},{3,2}}
})";
  ExpectPerDevice(RunOrFail(text, IotaArguments(4, 2), 4, 1),
                  {{100, 101}, {100, 101}, {300, 301}, {300, 301}});
}

TEST(CopyStartTest, CopyDoneGivesTheOperand) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  s = (f32[3], f32[3], u32[]) copy-start(x)
  ROOT d = f32[3] copy-done(s)
})";
  std::vector<Literal> outputs = RunOrFail(text, IotaArguments(1, 3), 1, 1);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_THAT(ValuesOf(outputs[0]), ElementsAre(0, 1, 2));
}

TEST(HostIoTest, InfeedIsRefusedByName) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  ROOT g = f32[2] get-tuple-element(in), index=0
})";
  absl::Status status = RunExpectingError(text, 1, 2);
  EXPECT_THAT(status.message(), HasSubstr("in (infeed): it exchanges data with the host"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

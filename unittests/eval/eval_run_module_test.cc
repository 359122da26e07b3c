// SPDX-License-Identifier: Apache-2.0
// Tests for running whole modules on the multi-device interpreter
// (include/hopt/eval/evaluator.h): control flow around collectives,
// deadlocks, malformed groups and arguments, custom-calls, many devices at
// once, BitwiseEqual and RandomArguments.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/collective_groups.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/shape.h"
#include "hopt/ir/verifier.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_util::ParseOrFail;

// ---------------------------------------------------------------------------
// Control flow around collectives

TEST(ControlFlowTest, WhileLoopWithAnAllReduceInTheBody) {
  // x <- all-reduce(x) - x three times on 4 replicas, x_d = {d, d*d}:
  //   start  {0,0} {1,1} {2,4} {3,9}        sum {6,14}
  //   1      {6,14} {5,13} {4,10} {3,5}     sum {18,42}
  //   2      {12,28} {13,29} {14,32} {15,37} sum {54,126}
  //   3      {42,98} {41,97} {40,94} {39,89}
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  sum = f32[2] all-reduce(x), to_apply=add
  others = f32[2] subtract(sum, x)
  ROOT t = (s32[], f32[2]) tuple(next, others)
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(w), index=1
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) arguments.push_back({F32({1.0 * d, 1.0 * d * d})});
  ExpectPerDevice(RunOrFail(module, arguments, 4, 1), {{42, 98}, {41, 97}, {40, 94}, {39, 89}});
}

TEST(ControlFlowTest, WhileLoopWithAnAllReduceInTheCondition) {
  // Double v while the sum over the replicas is below 100: v_d = d + 1,
  // sums 10, 20, 40, 80, 160 -> 4 iterations, v_d = 16 (d + 1).
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (s32[], f32[]) parameter(0)
  v = f32[] get-tuple-element(s), index=1
  total = f32[] all-reduce(v), to_apply=add
  limit = f32[] constant(100)
  ROOT lt = pred[] compare(total, limit), direction=LT
}

body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  twice = f32[] add(v, v)
  ROOT t = (s32[], f32[]) tuple(next, twice)
}

ENTRY main {
  v = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, v)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
}
)");
  std::vector<std::vector<Literal>> arguments;
  for (int64_t d = 0; d < 4; ++d) {
    Literal v(Shape(PrimitiveType::F32, {}));
    v.SetFromDouble(0, d + 1.0);
    arguments.push_back({v});
  }
  std::vector<Literal> outputs = RunOrFail(module, arguments, 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_EQ(outputs[d].tuple_elements()[0].GetAsInt64(0), 4) << "device " << d;
    EXPECT_EQ(outputs[d].tuple_elements()[1].GetAsDouble(0), 16.0 * (d + 1)) << "device " << d;
  }
}

TEST(ControlFlowTest, CallRunsTheCollectiveOfTheCalleeEachTime) {
  // f(x) = 2 * all-reduce(x), called twice from the entry (one callee, two
  // call sites): x_d = {100d, 100d+1} -> {1200, 1208} -> {9600, 9664}.
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
f {
  x = f32[2] parameter(0)
  sum = f32[2] all-reduce(x), to_apply=add
  ROOT twice = f32[2] add(sum, sum)
}

ENTRY main {
  x = f32[2] parameter(0)
  c1 = f32[2] call(x), to_apply=f
  c2 = f32[2] call(c1), to_apply=f
  ROOT t = (f32[2], f32[2]) tuple(c1, c2)
}
)");
  std::vector<Literal> outputs = RunOrFail(module, IotaArguments(4, 2), 4, 1);
  ASSERT_EQ(outputs.size(), 4u);
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_EQ(outputs[d].tuple_elements().size(), 2u);
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[0]), ElementsAre(1200, 1208));
    EXPECT_THAT(ValuesOf(outputs[d].tuple_elements()[1]), ElementsAre(9600, 9664));
  }
}

TEST(ControlFlowTest, ConditionalIndexedByPartitionId) {
  // branch 0: x + 1, branch 1: 2x, branch 2: -x; partition 3 is out of range
  // and runs the last branch, as in XLA.
  const std::string module = R"(HloModule m, num_partitions=4
b0 {
  x = f32[2] parameter(0)
  one = f32[] constant(1)
  ones = f32[2] broadcast(one), dimensions={}
  ROOT y = f32[2] add(x, ones)
}

b1 {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
}

b2 {
  x = f32[2] parameter(0)
  ROOT y = f32[2] negate(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  p = u32[] partition-id()
  index = s32[] convert(p)
  ROOT c = f32[2] conditional(index, x, x, x), branch_computations={b0, b1, b2}
}
)";
  ExpectPerDevice(RunOrFail(module, IotaArguments(4, 2), 1, 4),
                  {{1, 2}, {200, 202}, {-200, -201}, {-300, -301}});
}

TEST(ControlFlowTest, ConditionalWithACollectiveTakenByEveryDevice) {
  // A flag that is the same on every device picks the branch; the true
  // branch sums over all four devices (flattened ids).
  const std::string module =
      absl::StrCat("HloModule m, replica_count=2, num_partitions=2\n", kAddF32, R"(
yes {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
}

no {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  flag = pred[] parameter(1)
  ROOT c = f32[2] conditional(flag, x, x), true_computation=yes, false_computation=no
}
)");
  for (bool flag : {false, true}) {
    SCOPED_TRACE(flag ? "true" : "false");
    std::vector<std::vector<Literal>> arguments = IotaArguments(4, 2);
    for (auto& a : arguments) {
      Literal value(Shape(PrimitiveType::PRED, {}));
      value.SetFromInt64(0, flag ? 1 : 0);
      a.push_back(value);
    }
    ExpectPerDevice(RunOrFail(module, arguments, 2, 2),
                    flag ? std::vector<Values>(4, Values{600, 604})
                         : std::vector<Values>{{0, -1}, {-100, -101}, {-200, -201}, {-300, -301}});
  }
}

TEST(ControlFlowTest, BranchesWithTheirOwnCollectivesForDisjointGroups) {
  // Replicas 0 and 1 take the true branch (a sum over {0,1}); 2 and 3 the
  // false branch (a maximum over {2,3}). Each collective only involves the
  // devices that reach it, so nothing waits.
  const std::string module = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

low {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
}

high {
  x = f32[2] parameter(0)
  ROOT m = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=max
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  two = u32[] constant(2)
  is_low = pred[] compare(r, two), direction=LT
  ROOT c = f32[2] conditional(is_low, x, x), true_computation=low, false_computation=high
}
)");
  ExpectPerDevice(RunOrFail(module, IotaArguments(4, 2), 4, 1),
                  {{100, 102}, {100, 102}, {300, 301}, {300, 301}});
}

// ---------------------------------------------------------------------------
// Errors: deadlocks, failures while others wait, bad arguments

constexpr char kCollectiveOnReplicaZeroOnly[] = R"(HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

reduce {
  x = f32[2] parameter(0)
  ROOT s = f32[2] all-reduce(x), to_apply=add
}

skip {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(r, zero), direction=EQ
  ROOT c = f32[2] conditional(first, x, x), true_computation=reduce, false_computation=skip
}
)";

TEST(DeadlockTest, CollectiveReachedByOnlySomeDevicesIsAnError) {
  auto module = ParseOrFail(kCollectiveOnReplicaZeroOnly);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kDeadlineExceeded) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("device(s) 1,2,3 never arrived"));
  EXPECT_LT(seconds, 10.0);
}

TEST(DeadlockTest, DifferentTripCountsAroundACollectiveIsAnError) {
  // Replica r runs r + 1 all-reduces: the second one never completes.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
cond {
  s = (u32[], f32[2]) parameter(0)
  i = u32[] get-tuple-element(s), index=0
  r = u32[] replica-id()
  ROOT le = pred[] compare(i, r), direction=LE
}

body {
  s = (u32[], f32[2]) parameter(0)
  i = u32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = u32[] constant(1)
  next = u32[] add(i, one)
  sum = f32[2] all-reduce(x), to_apply=add
  ROOT t = (u32[], f32[2]) tuple(next, sum)
}

ENTRY main {
  x = f32[2] parameter(0)
  zero = u32[] constant(0)
  init = (u32[], f32[2]) tuple(zero, x)
  ROOT w = (u32[], f32[2]) while(init), condition=cond, body=body
}
)");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kDeadlineExceeded) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("never arrived"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("device(s) 0 never arrived"));
  EXPECT_LT(seconds, 10.0);
}

TEST(DeadlockTest, AFailingDeviceReleasesTheOthersAtOnce) {
  // Replica 0 fails (an unregistered custom-call) before the all-reduce the
  // others wait at: the run reports that failure, without waiting for the
  // rendezvous timeout.
  const std::string text = absl::StrCat("HloModule m, replica_count=4\n", kAddF32, R"(
broken {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.never_registered"
}

fine {
  x = f32[2] parameter(0)
  ROOT y = f32[2] copy(x)
}

ENTRY main {
  x = f32[2] parameter(0)
  r = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(r, zero), direction=EQ
  c = f32[2] conditional(first, x, x), true_computation=broken, false_computation=fine
  ROOT sum = f32[2] all-reduce(c), to_apply=add
}
)");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 60000;
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("hopt_test.never_registered"));
  EXPECT_LT(seconds, 10.0);
}

TEST(RunModuleTest, ReplicaGroupsThatMissADeviceAreAnError) {
  auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{0,1},{2}}, to_apply=add"));
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 60000;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 3 (replica 3, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("in none of the replica groups"));
}

TEST(RunModuleTest, OverlappingReplicaGroupsAreAnErrorNotADeadlock) {
  // Replica 1 is in two groups. Device 1 takes the first, devices 2 and 3
  // the second and wait for device 1 forever: the groups are invalid, which
  // deserves an InvalidArgument naming them rather than a deadlock report
  // after the rendezvous timeout.
  auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "all-reduce",
                                          "replica_groups={{0,1},{1,2,3}}, to_apply=add"));
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(4, 1);
  options.rendezvous_timeout_ms = 500;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(4, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
}

TEST(RunModuleTest, InvalidSourceTargetPairsAreAnError) {
  // 4 replicas: id 7 does not exist; a target listed twice has two sources.
  // Quietly giving zeros (or the last source's value) hides a broken module.
  for (const char* pairs : {"{{0,7},{1,2}}", "{{0,2},{1,2}}"}) {
    SCOPED_TRACE(pairs);
    auto module = ParseOrFail(OneCollective(4, 1, "f32[2]", "f32[2]", "collective-permute",
                                            absl::StrCat("source_target_pairs=", pairs)));
    ASSERT_NE(module, nullptr);
    absl::StatusOr<std::vector<Literal>> outputs =
        RunModule(*module, IotaArguments(4, 2), MeshOptions(4, 1));
    if (outputs.ok()) {
      ADD_FAILURE() << "accepted; device 2 got " << (*outputs)[2].ToText();
      continue;
    }
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
  }
}

// Runs `text` on 2 replicas in this (child) process and exits with 0 when
// RunModule returns an error, 1 when it succeeds (a crash is neither).
void ExitZeroIfRunModuleFails(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) std::_Exit(2);
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(**module, IotaArguments(2, 2), MeshOptions(2, 1));
  if (!outputs.ok()) std::fprintf(stderr, "%s\n", std::string(outputs.status().message()).c_str());
  std::_Exit(outputs.ok() ? 1 : 0);
}

TEST(RunModuleTest, OutOfRangeCollectiveDimensionIsAnErrorNotACrash) {
  // dimensions={1} on an f32[2] operand: the verifier lets it through (no
  // replica groups, so no shape check), and the interpreter must return an
  // error rather than index past the shape's dimensions.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const struct {
    const char* op;
    const char* result;
    const char* extra;
  } cases[] = {
      {"all-gather", "f32[4]", "dimensions={1}"},
      {"reduce-scatter", "f32[1]", "dimensions={1}, to_apply=add"},
      {"all-to-all", "f32[2]", "dimensions={1}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    std::string text = OneCollective(2, 1, "f32[2]", c.result, c.op, c.extra);
    EXPECT_EXIT(ExitZeroIfRunModuleFails(text), testing::ExitedWithCode(0), "");
  }
}

TEST(RunModuleTest, MeshFromTheModuleOrTheOptions) {
  const std::string text = OneCollective(2, 1, "f32[2]", "f32[2]", "all-reduce", "to_apply=add");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  // Default options: the header's 2 replicas.
  absl::StatusOr<std::vector<Literal>> two = RunModule(*module, IotaArguments(2, 2));
  ASSERT_TRUE(two.ok()) << two.status();
  ExpectPerDevice(*two, {{100, 102}, {100, 102}});
  // Overridden: 3 replicas.
  absl::StatusOr<std::vector<Literal>> three =
      RunModule(*module, IotaArguments(3, 2), MeshOptions(3, 1));
  ASSERT_TRUE(three.ok()) << three.status();
  ExpectPerDevice(*three, std::vector<Values>(3, Values{300, 303}));
  // Arguments for the wrong number of devices.
  absl::StatusOr<std::vector<Literal>> wrong = RunModule(*module, IotaArguments(3, 2));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("arguments for 3 devices, the mesh has 2"));
}

TEST(RunModuleTest, WrongNumberOfParametersIsAnError) {
  auto module = ParseOrFail(OneCollective(2, 1, "f32[2]", "f32[2]", "all-reduce", "to_apply=add"));
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments(2);  // no parameters at all
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, MeshOptions(2, 1));
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("takes 1 arguments, got 0"));
}

TEST(RunModuleTest, ArgumentOfTheWrongShapeIsAnError) {
  // The entry takes f32[4]; device 1 is given f32[2]. Running on anyway
  // would return a value of the wrong shape (or fail somewhere deep inside);
  // the interpreter must refuse the argument.
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::vector<Literal>> arguments;
  arguments.push_back({F32({1, 2, 3, 4})});
  arguments.push_back({F32({1, 2})});
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, MeshOptions(2, 1));
  EXPECT_FALSE(outputs.ok()) << "device 1's output: "
                             << (outputs.ok() ? (*outputs)[1].shape().ToString() : "");
  if (!outputs.ok()) {
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

// ---------------------------------------------------------------------------
// custom-call

TEST(CustomCallTest, RegisteredSemanticsSeeTheirDevice) {
  // Output = operand * (10 * replica + partition + 1).
  TestCustomCalls().Register(
      "hopt_test.scale_by_device",
      [](const HloInstruction& call, absl::Span<const Literal* const> operands,
         DeviceId device) -> absl::StatusOr<Literal> {
        if (operands.size() != 1) return absl::InvalidArgumentError("one operand");
        Literal out(call.shape());
        double factor = 10.0 * device.replica + device.partition + 1;
        for (int64_t k = 0; k < out.element_count(); ++k)
          out.SetFromDouble(k, operands[0]->GetAsDouble(k) * factor);
        return out;
      });
  const std::string module = R"(HloModule m, replica_count=2, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.scale_by_device"
}
)";
  std::vector<std::vector<Literal>> arguments;
  for (int d = 0; d < 4; ++d) arguments.push_back({F32({1, -2})});
  // Factors: d0 (0,0) 1, d1 (0,1) 2, d2 (1,0) 11, d3 (1,1) 12.
  ExpectPerDevice(RunOrFail(module, arguments, 2, 2), {{1, -2}, {2, -4}, {11, -22}, {12, -24}});
}

TEST(CustomCallTest, SemanticsErrorsAreReported) {
  TestCustomCalls().Register("hopt_test.always_fails",
                             [](const HloInstruction&, absl::Span<const Literal* const>,
                                DeviceId device) -> absl::StatusOr<Literal> {
                               return absl::FailedPreconditionError(
                                   absl::StrCat("always_fails on partition ", device.partition));
                             });
  auto module = ParseOrFail(R"(HloModule m, num_partitions=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.always_fails"
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, IotaArguments(2, 2), MeshOptions(1, 2));
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 0 (replica 0, partition 0)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("always_fails on partition 0"));
}

TEST(CustomCallTest, UnregisteredTargetIsAClearErrorWhenRefused) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] custom-call(x), custom_call_target="hopt_test.unregistered"
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.opaque_custom_calls = EvalOptions::OpaqueCustomCalls::kRefuse;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, IotaArguments(2, 2), options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("no semantics registered for custom-call target 'hopt_test.unregistered'"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("y (custom-call)"));
}

// ---------------------------------------------------------------------------
// Many devices, many instructions: every device walks the same computations
// at the same time.

std::string LongChain(int64_t replicas, int instructions) {
  std::string text = absl::StrCat("HloModule chain, replica_count=", replicas,
                                  "\nENTRY main {\n  v0 = f32[16] parameter(0)\n"
                                  "  one = f32[] constant(1)\n"
                                  "  ones = f32[16] broadcast(one), dimensions={}\n");
  for (int k = 1; k <= instructions; ++k)
    absl::StrAppend(&text, "  ", k == instructions ? "ROOT " : "", "v", k, " = f32[16] add(v",
                    k - 1, ", ones)\n");
  return text + "}\n";
}

// Runs in a child process (a crash there fails the test instead of ending
// the whole binary): 8 devices x 1000 instructions, 40 runs; every run must
// succeed with x_d + 1000 on every device.
void RunLongChainOnEightDevices() {
  auto module = ParseHloModule(LongChain(8, 1000));
  if (!module.ok()) std::_Exit(2);
  auto arguments = IotaArguments(8, 16);
  for (int run = 0; run < 40; ++run) {
    absl::StatusOr<std::vector<Literal>> outputs =
        RunModule(**module, arguments, MeshOptions(8, 1));
    if (!outputs.ok()) {
      std::fprintf(stderr, "run %d: %s\n", run, std::string(outputs.status().message()).c_str());
      std::_Exit(3);
    }
    for (int64_t d = 0; d < 8; ++d)
      for (int64_t k = 0; k < 16; ++k)
        if ((*outputs)[d].GetAsDouble(k) != k + 100.0 * d + 1000) std::_Exit(4);
  }
  std::_Exit(0);
}

TEST(ConcurrencyTest, EightDevicesRunALongChainRepeatedly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunLongChainOnEightDevices(), testing::ExitedWithCode(0), "");
}

// What the devices' threads share: the post order of one computation,
// computed by every device at the same time, must come out complete.
TEST(ConcurrencyTest, PostOrderOfASharedComputationIsCompleteInEveryThread) {
  auto module = ParseOrFail(LongChain(8, 2000));
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  const size_t expected = static_cast<size_t>(entry->instruction_count());
  std::vector<size_t> smallest(8, expected);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 50; ++run)
        smallest[t] = std::min(smallest[t], entry->MakeInstructionPostOrder().size());
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(smallest[t], expected) << "thread " << t << " saw an incomplete post order";
}

// ---------------------------------------------------------------------------
// BitwiseEqual

double DoubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

double FloatNanWithPayload(uint32_t payload) {
  uint32_t bits = 0x7fc00000u | payload;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return static_cast<double>(value);
}

TEST(BitwiseEqualTest, IdenticalLiteralsAreEqual) {
  std::string difference = "untouched";
  EXPECT_TRUE(BitwiseEqual(F32({1, -2, 0.5}), F32({1, -2, 0.5}), &difference));
  Literal nan1(Shape(PrimitiveType::F64, {1})), nan2(Shape(PrimitiveType::F64, {1}));
  nan1.SetFromDouble(0, DoubleFromBits(0x7ff8000000000005ull));
  nan2.SetFromDouble(0, DoubleFromBits(0x7ff8000000000005ull));
  EXPECT_TRUE(BitwiseEqual(nan1, nan2, &difference));
}

TEST(BitwiseEqualTest, NegativeZeroDiffersFromZero) {
  for (PrimitiveType type :
       {PrimitiveType::F32, PrimitiveType::F64, PrimitiveType::BF16, PrimitiveType::F16}) {
    Literal a = MakeArray(type, {3}, {1, 0.0, 2});
    Literal b = MakeArray(type, {3}, {1, -0.0, 2});
    std::string difference;
    EXPECT_FALSE(BitwiseEqual(a, b, &difference)) << PrimitiveTypeString(type);
    EXPECT_EQ(difference, "element 1: 0 vs -0") << PrimitiveTypeString(type);
  }
}

TEST(BitwiseEqualTest, NanPayloadsDiffer) {
  Literal a(Shape(PrimitiveType::F64, {2})), b(Shape(PrimitiveType::F64, {2}));
  a.SetFromDouble(1, DoubleFromBits(0x7ff8000000000001ull));
  b.SetFromDouble(1, DoubleFromBits(0x7ff8000000000002ull));
  std::string difference;
  EXPECT_FALSE(BitwiseEqual(a, b, &difference));
  EXPECT_THAT(difference, HasSubstr("element 1: "));
  // f32 NaNs with different payloads.
  Literal c(Shape(PrimitiveType::F32, {1})), e(Shape(PrimitiveType::F32, {1}));
  c.SetFromDouble(0, FloatNanWithPayload(1));
  e.SetFromDouble(0, FloatNanWithPayload(2));
  EXPECT_FALSE(BitwiseEqual(c, e, &difference));
  EXPECT_THAT(difference, HasSubstr("element 0: "));
  // The sign of a NaN counts too.
  Literal f(Shape(PrimitiveType::F32, {1})), g(Shape(PrimitiveType::F32, {1}));
  f.SetFromDouble(0, std::numeric_limits<double>::quiet_NaN());
  g.SetFromDouble(0, -std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(BitwiseEqual(f, g, &difference));
}

TEST(BitwiseEqualTest, NanPayloadSurvivesACollective) {
  // An all-gather moves values bit for bit: the payloads of device 0's NaNs
  // reach device 1 unchanged.
  std::vector<std::vector<Literal>> arguments(2);
  Literal x0(Shape(PrimitiveType::F64, {1})), x1(Shape(PrimitiveType::F64, {1}));
  x0.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abcull));
  x1.SetFromDouble(0, -0.0);
  arguments[0].push_back(x0);
  arguments[1].push_back(x1);
  std::vector<Literal> outputs = RunOrFail(
      OneCollective(2, 1, "f64[1]", "f64[2]", "all-gather", "dimensions={0}"), arguments, 2, 1);
  ASSERT_EQ(outputs.size(), 2u);
  Literal expected(Shape(PrimitiveType::F64, {2}));
  expected.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abcull));
  expected.SetFromDouble(1, -0.0);
  std::string difference;
  EXPECT_TRUE(BitwiseEqual(outputs[1], expected, &difference)) << difference;
  Literal other_payload(Shape(PrimitiveType::F64, {2}));
  other_payload.SetFromDouble(0, DoubleFromBits(0x7ff8000000000abdull));
  other_payload.SetFromDouble(1, -0.0);
  EXPECT_FALSE(BitwiseEqual(outputs[1], other_payload, &difference));
}

TEST(BitwiseEqualTest, DescribesIntegerTupleAndShapeDifferences) {
  std::string difference;
  EXPECT_FALSE(BitwiseEqual(S32({1, 3, 5}), S32({1, 4, 5}), &difference));
  EXPECT_EQ(difference, "element 1: 3 vs 4");

  Literal t1(Shape::MakeTuple({Shape(PrimitiveType::S32, {1}), Shape(PrimitiveType::F32, {2})}));
  Literal t2 = t1;
  t1.mutable_tuple_elements()[1] = F32({1, 2});
  t2.mutable_tuple_elements()[1] = F32({1, 2.5});
  EXPECT_FALSE(BitwiseEqual(t1, t2, &difference));
  EXPECT_EQ(difference, "tuple element 1, element 1: 2 vs 2.5");

  EXPECT_FALSE(BitwiseEqual(F32({1, 2}), F32({1, 2, 3}), &difference));
  EXPECT_THAT(difference, HasSubstr("shapes differ"));
  EXPECT_FALSE(BitwiseEqual(F32({1, 2}), S32({1, 2}), &difference));
  EXPECT_THAT(difference, HasSubstr("shapes differ"));

  // u64 values above 2^63 compare as bit patterns.
  Literal u1(Shape(PrimitiveType::U64, {1})), u2(Shape(PrimitiveType::U64, {1}));
  u1.SetFromInt64(0, static_cast<int64_t>(0x8000000000000001ull));
  u2.SetFromInt64(0, static_cast<int64_t>(0x8000000000000002ull));
  EXPECT_FALSE(BitwiseEqual(u1, u2, &difference));
}

// ---------------------------------------------------------------------------
// RandomArguments

TEST(RandomArgumentsTest, SeededPerDeviceAndInRange) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
ENTRY main {
  x = f32[64] parameter(0)
  i = s32[64] parameter(1)
  u = u8[64] parameter(2)
  p = pred[64] parameter(3)
  t = (f32[64], s32[64]) tuple(x, i)
  ROOT r = (f32[64], s32[64]) copy(t)
}
)");
  ASSERT_NE(module, nullptr);
  auto a = RandomArguments(*module, 4, 7);
  auto b = RandomArguments(*module, 4, 7);
  auto c = RandomArguments(*module, 4, 8);
  ASSERT_EQ(a.size(), 4u);
  std::string difference;
  for (int d = 0; d < 4; ++d) {
    ASSERT_EQ(a[d].size(), 4u);
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(BitwiseEqual(a[d][k], b[d][k], &difference)) << "same seed: " << difference;
    EXPECT_EQ(a[d][0].shape().ToString(false), "f32[64]");
    for (int64_t e = 0; e < 64; ++e) {
      double x = a[d][0].GetAsDouble(e);
      EXPECT_GE(x, -2.0);
      EXPECT_LT(x, 2.0);
      EXPECT_EQ(x * 8, std::floor(x * 8)) << "multiples of 1/8";
      EXPECT_GE(a[d][1].GetAsInt64(e), -8);
      EXPECT_LT(a[d][1].GetAsInt64(e), 8);
      EXPECT_GE(a[d][2].GetAsInt64(e), 0);
      EXPECT_LT(a[d][2].GetAsInt64(e), 16);
      EXPECT_TRUE(a[d][3].GetAsInt64(e) == 0 || a[d][3].GetAsInt64(e) == 1);
    }
  }
  // Devices get different inputs; another seed gives other inputs.
  EXPECT_FALSE(BitwiseEqual(a[0][0], a[1][0], &difference));
  EXPECT_FALSE(BitwiseEqual(a[0][0], c[0][0], &difference));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

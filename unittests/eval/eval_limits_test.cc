// SPDX-License-Identifier: Apache-2.0
// The interpreter's limits (include/hopt/eval/evaluator.h): the mesh is checked
// before anything is made per device, every while loop of a run shares one
// step budget, the memory budget charges what is really allocated, calls
// nest only so deep, and constants keep their values wherever they run.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/tooling/mesh_compare.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/collective_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using ::hopt::testing_util::ParseOrFail;
using ::testing::HasSubstr;

EvalOptions OneDevice() {
  EvalOptions options;
  options.replicas = 1;
  options.partitions = 1;
  return options;
}

std::vector<std::vector<Literal>> Arguments(const Shape& shape, int64_t devices = 1) {
  std::vector<std::vector<Literal>> arguments(devices);
  for (auto& a : arguments) a.push_back(Literal(shape));
  return arguments;
}

TEST(MeshLimitsTest, MeshDevicesChecksWithoutOverflow) {
  EXPECT_EQ(*MeshDevices(1, 1), 1);
  EXPECT_EQ(*MeshDevices(64, 64), kMaxMeshDevices);
  for (auto [r, p] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1},
           {1, 0},
           {-1, 1},
           {1, -4},
           {4097, 1},
           {65, 64},
           {int64_t{1} << 31, 1},
           {int64_t{1} << 32, int64_t{1} << 32},  // wraps to 0 in 64 bits
           {std::numeric_limits<int64_t>::max(), 2}}) {
    absl::StatusOr<int64_t> devices = MeshDevices(r, p);
    EXPECT_TRUE(absl::IsInvalidArgument(devices.status())) << r << "x" << p;
    EXPECT_THAT(devices.status().message(), HasSubstr("devices is not supported"));
  }
}

TEST(MeshLimitsTest, HugeHeaderMeshIsRefusedBeforeArgumentsAreMade) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2147483648
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  // Used to make 2^31 argument vectors (std::bad_alloc).
  MeshComparison compared = CompareOnMesh(*module, *module, 1, 1);
  EXPECT_EQ(compared.outcome, MeshComparison::Outcome::kFirstFailed);
  EXPECT_THAT(compared.message, HasSubstr("a mesh of 2147483648x1 devices is not supported"));
  EvalOptions options;
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, Arguments(Shape(PrimitiveType::F32, {4})), options);
  EXPECT_TRUE(absl::IsInvalidArgument(outputs.status()));
}

// A loop of `inner` iterations nested in a loop of `outer`.
std::string Nest(int64_t outer, int64_t inner) {
  return absl::StrCat(R"(HloModule nest
inner_cond {
  j = s32[] parameter(0)
  n = s32[] constant()",
                      inner, R"()
  ROOT lt = pred[] compare(j, n), direction=LT
}

inner_body {
  j = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(j, one)
}

outer_cond {
  i = s32[] parameter(0)
  n = s32[] constant()",
                      outer, R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}

outer_body {
  i = s32[] parameter(0)
  zero = s32[] constant(0)
  inner = s32[] while(zero), condition=inner_cond, body=inner_body
  one = s32[] constant(1)
  ROOT next = s32[] add(i, one)
}

ENTRY main {
  zero = s32[] constant(0)
  ROOT w = s32[] while(zero), condition=outer_cond, body=outer_body
}
)");
}

TEST(StepBudgetTest, NestedLoopsShareOneBudget) {
  // 10 outer x 10 inner = 110 bodies; each loop alone stays within 20.
  auto module = ParseOrFail(Nest(10, 10));
  ASSERT_NE(module, nullptr);
  EvalOptions options = OneDevice();
  options.max_while_iterations = 20;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, {{}}, options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(outputs.status())) << outputs.status();
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("while loops ran more than 20 iterations in all"));
  // 10 outer and 10 x 10 inner bodies fit a budget of exactly 110.
  options.max_while_iterations = 110;
  outputs = RunModule(*module, {{}}, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].GetAsInt64(0), 10);
  options.max_while_iterations = 109;
  EXPECT_FALSE(RunModule(*module, {{}}, options).ok());
}

TEST(StepBudgetTest, TheDefaultBudgetStopsAMillionByAMillionNest) {
  auto module = ParseOrFail(Nest(1000000, 1000000));
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, {{}}, OneDevice());
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("while loops ran more than 1048576 iterations in all"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("at while loop inner"));
}

TEST(MemoryBudgetTest, AllocatedBytesCountTheStorage) {
  // Every element is stored widened: 8 bytes, 16 for complex.
  EXPECT_EQ(Literal(Shape(PrimitiveType::F32, {100})).AllocatedBytes(), 800);
  EXPECT_EQ(Literal(Shape(PrimitiveType::S8, {100})).AllocatedBytes(), 800);
  EXPECT_EQ(Literal(Shape(PrimitiveType::C64, {100})).AllocatedBytes(), 1600);
  EXPECT_EQ(Literal::AllocatedBytesFor(Shape(PrimitiveType::F32, {100})), 800);
  EXPECT_EQ(Literal::AllocatedBytesFor(Shape(PrimitiveType::C128, {100})), 1600);
  Shape tuple = Shape::MakeTuple({Shape(PrimitiveType::F32, {10}), Shape(PrimitiveType::S32, {})});
  EXPECT_GE(Literal(tuple).AllocatedBytes(), 88);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Literal::AllocatedBytesFor(Shape(PrimitiveType::F32, {kMax / 4})), kMax);
}

TEST(MemoryBudgetTest, TheArgumentsAreChargedAndParametersReadInPlace) {
  // The caller's f32[100] (800 bytes) lives through the run; the parameter
  // instruction reads it where it is (it used to copy it, 800 more).
  auto module = ParseOrFail(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[100] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(p, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = OneDevice();
  // 800 for the arguments, 8 for zero: r's 8 more do not fit in 815.
  options.max_bytes_per_device = 815;
  auto arguments = Arguments(Shape(PrimitiveType::F32, {100}));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(outputs.status()));
  EXPECT_THAT(outputs.status().message(), HasSubstr("computing r (f32[], 8 bytes)"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("over the budget of 815 bytes per device"));
  options.max_bytes_per_device = 816;
  EXPECT_TRUE(RunModule(*module, arguments, options).ok());
  // Arguments alone over the budget are refused before anything runs.
  options.max_bytes_per_device = 700;
  outputs = RunModule(*module, arguments, options);
  EXPECT_THAT(outputs.status().message(), HasSubstr("the arguments take 800 bytes"));
}

TEST(MemoryBudgetTest, DevicesMayShareOneArgumentReadInPlace) {
  // RunModuleOn reads each device's arguments where the caller keeps them:
  // four replicas point at one literal, each computes its own result, and
  // the literal is left as it was.
  auto module = ParseOrFail(R"(HloModule m, replica_count=4
ENTRY e {
  p = f32[3] parameter(0)
  id = u32[] replica-id()
  f = f32[] convert(id)
  b = f32[3] broadcast(f), dimensions={}
  ROOT s = f32[3] add(p, b)
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<Literal> shared = Literal::Parse(Shape(PrimitiveType::F32, {3}), "{1, 2, 3}");
  ASSERT_TRUE(shared.ok());
  std::vector<std::vector<const Literal*>> arguments(4, {&*shared});
  absl::StatusOr<std::vector<Literal>> outputs = RunModuleOn(*module, arguments);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 4u);
  EXPECT_EQ((*outputs)[0].ToText(), "{1, 2, 3}");
  EXPECT_EQ((*outputs)[3].ToText(), "{4, 5, 6}");
  EXPECT_EQ(shared->ToText(), "{1, 2, 3}");
  // A missing argument is an error, not a crash.
  arguments[2][0] = nullptr;
  outputs = RunModuleOn(*module, arguments);
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("device 2 argument 0 has shape (none)"));
}

TEST(MemoryBudgetTest, ComplexValuesAreChargedTheirSixteenBytes) {
  auto module = ParseOrFail(R"(HloModule m
ENTRY e {
  p = c64[100] parameter(0)
  ROOT n = c64[100] negate(p)
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = OneDevice();
  // 1600 for the arguments (p reads them in place), 1600 for n.
  options.max_bytes_per_device = 3199;
  auto arguments = Arguments(Shape(PrimitiveType::C64, {100}));
  EXPECT_FALSE(RunModule(*module, arguments, options).ok());
  options.max_bytes_per_device = 3200;
  EXPECT_TRUE(RunModule(*module, arguments, options).ok());
}

TEST(MemoryBudgetTest, AWhileLoopsStateIsCharged) {
  // The entry holds the arguments (800), which p reads in place; the loop
  // copies them into its state (800), which the condition reads in place
  // (it used to copy it, 800 more): the condition's constant (8) makes
  // 1608 bytes.
  auto module = ParseOrFail(R"(HloModule m
cond {
  s = f32[100] parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  s = f32[100] parameter(0)
  ROOT n = f32[100] negate(s)
}

ENTRY e {
  p = f32[100] parameter(0)
  ROOT w = f32[100] while(p), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = OneDevice();
  auto arguments = Arguments(Shape(PrimitiveType::F32, {100}));
  options.max_bytes_per_device = 1607;
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("computing t (pred[], 8 bytes) in computation cond with 1600 bytes live"));
  options.max_bytes_per_device = 1608;
  EXPECT_TRUE(RunModule(*module, arguments, options).ok());
}

// Small constants are parsed once before the run and copied where they are
// evaluated; large ones are parsed where they are evaluated. Both give the
// constant's values, on every iteration and every device.
TEST(ConstantPlanTest, SmallAndLargeConstantsInALoopBodyKeepTheirValues) {
  // 20,000 s32 values hold 160,000 bytes as the interpreter stores them:
  // over the size that is planned.
  constexpr int kLarge = 20000;
  std::vector<std::string> values;
  for (int k = 0; k < kLarge; ++k) values.push_back(absl::StrCat(k % 7));
  const std::string text = absl::StrCat(R"(HloModule m, replica_count=2

cond {
  s = (s32[], s32[20000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], s32[20000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = s32[20000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  big = s32[20000] constant({)",
                                        absl::StrJoin(values, ","), R"(})
  sum = s32[20000] add(a, big)
  ROOT t = (s32[], s32[20000]) tuple(next, sum)
}

ENTRY e {
  zero = s32[] constant(0)
  init = s32[20000] broadcast(zero), dimensions={}
  s = (s32[], s32[20000]) tuple(zero, init)
  ROOT w = (s32[], s32[20000]) while(s), condition=cond, body=body
}
)");
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options;
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, std::vector<std::vector<Literal>>(2), options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), 2u);
  for (const Literal& out : *outputs) {
    ASSERT_EQ(out.tuple_elements().size(), 2u);
    EXPECT_EQ(out.tuple_elements()[0].GetAsInt64(0), 10);
    const Literal& sum = out.tuple_elements()[1];
    for (int k : {0, 1, 6, 7, 12345, kLarge - 1}) EXPECT_EQ(sum.GetAsInt64(k), 10 * (k % 7)) << k;
  }
}

TEST(ConstantPlanTest, AnElidedConstantIsRefusedWhenItRuns) {
  auto module = ParseOrFail(R"(HloModule m

ENTRY e {
  c = s32[4] constant({...})
  ROOT n = s32[4] negate(c)
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::vector<Literal>> outputs =
      RunModule(*module, std::vector<std::vector<Literal>>(1), OneDevice());
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("the constant's values were elided"));
}

TEST(MemoryBudgetTest, CheckArgumentsFitCountsTheInterpretersStorage) {
  EvalOptions options;
  options.max_bytes_per_device = 1000;
  // 100 f32 elements are 400 bytes as f32, 800 as the interpreter holds them.
  EXPECT_TRUE(CheckArgumentsFit({Shape(PrimitiveType::F32, {100})}, options).ok());
  absl::Status status = CheckArgumentsFit({Shape(PrimitiveType::F32, {200})}, options);
  EXPECT_TRUE(absl::IsResourceExhausted(status));
  EXPECT_THAT(status.message(), HasSubstr("need 1600 bytes per device"));
}

// ---------------------------------------------------------------------------
// Budgets

TEST(BudgetTest, MemoryBudgetIsAClearError) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
ENTRY main {
  x = f32[1024] parameter(0)
  y = f32[1024] negate(x)
  ROOT z = f32[1024] add(x, y)
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.max_bytes_per_device = 1000;
  std::vector<std::vector<Literal>> arguments(2);
  for (auto& a : arguments) a.push_back(Literal(Shape(PrimitiveType::F32, {1024})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(), HasSubstr("budget of 1000 bytes per device"));
  // The same module within the default budget runs.
  EXPECT_TRUE(RunModule(*module, arguments, MeshOptions(2, 1)).ok());
}

TEST(BudgetTest, MemoryBudgetCountsLiveValues) {
  // A chain of 64 negates of f32[1024]: at most two values (an operand and
  // its user) are live at a time, 8 KiB as f32 (16 KiB as the interpreter's
  // doubles); the values of all 65 instructions together take over 260 KiB.
  // The header promises a bound on live values, so 64 KiB must be enough.
  std::string text = "HloModule chain\nENTRY main {\n  v0 = f32[1024] parameter(0)\n";
  for (int k = 1; k <= 64; ++k)
    absl::StrAppend(&text, "  ", k == 64 ? "ROOT " : "", "v", k, " = f32[1024] negate(v", k - 1,
                    ")\n");
  text += "}\n";
  auto module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_bytes_per_device = 64 * 1024;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::F32, {1024})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
}

TEST(BudgetTest, MemoryBudgetCountsTheCallersLiveValuesToo) {
  // f32[100] values take 800 bytes each as the interpreter counts them. The
  // entry keeps x (800) while the callee holds its parameter and one more
  // value (1600): 2400 bytes live on the device at once, over a budget of
  // 2000, although neither computation alone exceeds it.
  auto module = ParseOrFail(R"(HloModule m
f {
  p = f32[100] parameter(0)
  n = f32[100] negate(p)
  ROOT m = f32[100] negate(n)
}

ENTRY main {
  x = f32[100] parameter(0)
  ROOT c = f32[100] call(x), to_apply=f
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_bytes_per_device = 2000;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::F32, {100})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_FALSE(outputs.ok()) << "2400 live bytes passed a budget of 2000";
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  // With room for it, the same module runs.
  options.max_bytes_per_device = 4000;
  EXPECT_TRUE(RunModule(*module, arguments, options).ok());
}

TEST(BudgetTest, WhileStepBudgetIsAClearError) {
  auto module = ParseOrFail(R"(HloModule m, replica_count=2
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(2, 1);
  options.max_while_iterations = 10;
  std::vector<std::vector<Literal>> arguments(2);
  for (auto& a : arguments) a.push_back(Literal(Shape(PrimitiveType::S32, {})));
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(), HasSubstr("while loops ran more than 10 iterations"));
  EXPECT_THAT(outputs.status().message(), HasSubstr("at while loop w"));
  EXPECT_LT(seconds, 10.0);
}

TEST(BudgetTest, WhileStepBudgetAllowsExactlyTheLimit) {
  // Counts to 10 with a budget of 10 iterations.
  auto module = ParseOrFail(R"(HloModule m
cond {
  s = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(s, ten), direction=LT
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}

ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EvalOptions options = MeshOptions(1, 1);
  options.max_while_iterations = 10;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::S32, {})));
  absl::StatusOr<std::vector<Literal>> outputs = RunModule(*module, arguments, options);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].GetAsInt64(0), 10);
  options.max_while_iterations = 9;
  EXPECT_FALSE(RunModule(*module, arguments, options).ok());
}

// Each nested computation is a native frame of the interpreter: nesting
// past max_call_depth is refused instead of running out of stack.
std::string NestedCalls(int depth) {
  std::string text =
      "HloModule nested\n\nc0 {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n"
      "  ROOT r = s32[] add(p, one)\n}\n\n";
  for (int i = 1; i < depth; ++i)
    absl::StrAppend(&text, "c", i,
                    " {\n  p = s32[] parameter(0)\n  ROOT r = s32[] call(p), to_apply=c", i - 1,
                    "\n}\n\n");
  absl::StrAppend(&text,
                  "ENTRY e {\n  p = s32[] parameter(0)\n  ROOT r = s32[] call(p), to_apply=c",
                  depth - 1, "\n}\n");
  return text;
}

// Runs NestedCalls(depth) on one device with the given depth budget.
absl::StatusOr<std::vector<Literal>> RunNestedCalls(int depth, int64_t max_call_depth) {
  auto module = ParseOrFail(NestedCalls(depth));
  if (module == nullptr) return absl::InternalError("NestedCalls did not parse");
  EvalOptions options = MeshOptions(1, 1);
  options.max_call_depth = max_call_depth;
  std::vector<std::vector<Literal>> arguments(1);
  arguments[0].push_back(Literal(Shape(PrimitiveType::S32, {})));
  return RunModule(*module, arguments, options);
}

TEST(BudgetTest, CallDepthBudgetAllowsExactlyTheLimit) {
  // The entry plus 9 nested computations: 10 levels.
  absl::StatusOr<std::vector<Literal>> outputs = RunNestedCalls(9, 10);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ((*outputs)[0].GetAsInt64(0), 1);
  outputs = RunNestedCalls(9, 9);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("interpreter: computations nest more than 9 deep (at computation c0)"));
}

TEST(BudgetTest, DeepCallChainsAreRefusedNotOverflowed) {
  // 20,000 levels overflowed the 8 MB stack before the budget existed.
  absl::StatusOr<std::vector<Literal>> outputs =
      RunNestedCalls(20000, EvalOptions().max_call_depth);
  ASSERT_FALSE(outputs.ok());
  EXPECT_THAT(outputs.status().message(), HasSubstr("computations nest more than 256 deep"));
}

TEST(BudgetTest, StackGuardCatchesWhatTheDepthLimitLetsThrough) {
  // With the depth limit out of the way, the stack guard stops the
  // recursion before the device thread's stack runs out.
  absl::StatusOr<std::vector<Literal>> outputs = RunNestedCalls(200000, 1000000);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(outputs.status().message(),
              HasSubstr("interpreter: computations nest too deeply for the stack ("));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

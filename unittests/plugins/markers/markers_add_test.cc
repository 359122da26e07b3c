// SPDX-License-Identifier: Apache-2.0
// neuron_add_boundary_marker: End(Start(root)) in every while body, nested
// ones included, one boundaryCount per loop; idempotence; equivalence.

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/printer.h"
#include "markers/add_boundary_marker.h"
#include "markers/marker_semantics.h"
#include "markers/marker_utils.h"
#include "unittests/plugins/plugin_test_util.h"

namespace neuron {
namespace {

using ::hopt::HloComputation;
using ::hopt::HloInstruction;
using ::hopt::HloModule;
using ::hopt::HloOpcode;
using ::hopt::testing_util::ExpectSameResults;
using ::hopt::testing_util::MeshShape;
using ::hopt::testing_util::ParseOrFail;
using ::hopt::testing_util::RunPassOrFail;
using ::hopt::testing_util::StandardMeshes;

// Two loops in the entry, the first with a loop nested in its body. The
// inner body's root has a second (dead) user, which must read Start.
constexpr char kNested[] = R"(HloModule nested

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

inner_cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

inner_body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  r = f32[4] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[4]) tuple(next, r)
  spare = s32[] get-tuple-element(t), index=0
}

outer_cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}

outer_body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, v)
  w = (s32[], f32[4]) while(init), condition=inner_cond, body=inner_body
  u = f32[4] get-tuple-element(w), index=1
  ROOT t = (s32[], f32[4]) tuple(next, u)
}

count_cond {
  c = s32[] parameter(0)
  k = s32[] constant(5)
  ROOT lt = pred[] compare(c, k), direction=LT
}

count_body {
  c = s32[] parameter(0)
  id = u32[] replica-id()
  idc = s32[] convert(id)
  one = s32[] constant(1)
  step = s32[] add(idc, one)
  ROOT s = s32[] add(c, step)
}

ENTRY main {
  x = f32[4] parameter(0)
  c0 = s32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=outer_cond, body=outer_body
  wc = s32[] while(c0), condition=count_cond, body=count_body
  v = f32[4] get-tuple-element(w), index=1
  ROOT out = (f32[4], s32[]) tuple(v, wc)
}
)";

struct Pair {
  const HloInstruction* start = nullptr;
  const HloInstruction* end = nullptr;
};

// The body's root must be End(Start(x)); returns both.
Pair MarkedRoot(const HloComputation& body) {
  Pair pair;
  const HloInstruction* root = body.root_instruction();
  if (!markers::IsLoopMarker(*root) || !markers::IsMarkerEnd(*root) || root->operand_count() != 1)
    return pair;
  const HloInstruction* start = root->operand(0);
  if (!markers::IsLoopMarker(*start) || !markers::IsMarkerStart(*start)) return pair;
  pair.start = start;
  pair.end = root;
  return pair;
}

TEST(AddBoundaryMarkerTest, MarksEveryWhileBodyIncludingNestedOnes) {
  auto module = ParseOrFail(kNested);
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker pass;
  auto [marked, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(marked, nullptr);
  EXPECT_TRUE(changed);
  // Module order: inner_body's while sits in outer_body, which comes first
  // among the computations holding a while; then the entry's two loops.
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"inner_body", 0}, {"outer_body", 1}, {"count_body", 2}};
  for (const auto& [name, count] : expected) {
    SCOPED_TRACE(name);
    const HloComputation* body = marked->GetComputationWithName(name);
    ASSERT_NE(body, nullptr);
    const HloComputation* before = module->GetComputationWithName(name);
    Pair pair = MarkedRoot(*body);
    ASSERT_NE(pair.start, nullptr) << hopt::PrintModule(*marked);
    EXPECT_EQ(pair.start->custom_call_target(), "NeuronBoundaryMarker-Start");
    EXPECT_EQ(pair.end->custom_call_target(), "NeuronBoundaryMarker-End");
    for (const HloInstruction* marker : {pair.start, pair.end}) {
      EXPECT_EQ(marker->backend_config(), markers::FormatBoundaryCount(count));
      EXPECT_EQ(markers::BoundaryCountOf(*marker), count);
      EXPECT_EQ(marker->api_version(), "API_VERSION_STATUS_RETURNING");
      EXPECT_EQ(marker->shape(), before->root_instruction()->shape());
    }
    // Start wraps the old root.
    EXPECT_EQ(pair.start->operand(0)->name(), before->root_instruction()->name());
    EXPECT_EQ(pair.start->user_count(), body->GetInstructionWithName("spare") ? 2 : 1);
    // Nothing else in the body changed.
    EXPECT_EQ(body->instruction_count(), before->instruction_count() + 2);
  }
  // The old root's other user reads Start.
  const HloInstruction* spare =
      marked->GetComputationWithName("inner_body")->GetInstructionWithName("spare");
  EXPECT_TRUE(markers::IsMarkerStart(*spare->operand(0)));
  // Conditions and the entry are untouched.
  for (const char* name : {"inner_cond", "outer_cond", "count_cond", "main", "add"})
    EXPECT_EQ(marked->GetComputationWithName(name)->instruction_count(),
              module->GetComputationWithName(name)->instruction_count())
        << name;
}

TEST(AddBoundaryMarkerTest, SameResultsOnEveryMesh) {
  AddMarkerSemantics(hopt::testing_util::TestRegistrar());
  auto module = ParseOrFail(kNested);
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker pass;
  auto [marked, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(marked, nullptr);
  for (MeshShape mesh : StandardMeshes()) ExpectSameResults(*module, *marked, mesh);
}

TEST(AddBoundaryMarkerTest, IsIdempotent) {
  auto module = ParseOrFail(kNested);
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker pass;
  auto [once, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(once, nullptr);
  auto [twice, changed_again] = RunPassOrFail(pass, *once);
  ASSERT_NE(twice, nullptr);
  EXPECT_FALSE(changed_again);
  EXPECT_EQ(hopt::PrintModule(*twice), hopt::PrintModule(*once));
}

// One while body after a marker whose boundaryCount is `existing`.
std::string OneLoopAfterCount(absl::string_view existing) {
  return absl::StrCat(R"(HloModule m

cond {
  c = s32[] parameter(0)
  k = s32[] constant(3)
  ROOT lt = pred[] compare(c, k), direction=LT
}

body {
  c = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT s = s32[] add(c, one)
}

ENTRY main {
  c0 = s32[] parameter(0)
  m = s32[] custom-call(c0), custom_call_target="AwsNeuronModuleMarkerStart-Forward", backend_config="boundaryCount=)",
                      existing, R"("
  ROOT w = s32[] while(m), condition=cond, body=body
}
)");
}

// The boundaryCount the pass gives the new pair in the while body, after a
// marker that holds `existing`; nothing (and a test failure) if it made none.
std::optional<int64_t> NewCountAfter(absl::string_view existing) {
  auto module = ParseOrFail(OneLoopAfterCount(existing));
  if (module == nullptr) return std::nullopt;
  AddBoundaryMarker pass;
  auto [marked, changed] = RunPassOrFail(pass, *module);
  if (marked == nullptr) return std::nullopt;
  Pair pair = MarkedRoot(*marked->GetComputationWithName("body"));
  if (pair.end == nullptr) {
    ADD_FAILURE() << "no marker pair in the while body";
    return std::nullopt;
  }
  return markers::BoundaryCountOf(*pair.end);
}

TEST(AddBoundaryMarkerTest, CountsContinueAboveExistingOnes) {
  EXPECT_EQ(NewCountAfter("41"), std::optional<int64_t>(42));
}

TEST(AddBoundaryMarkerTest, RefusesACountItCannotIncrement) {
  for (absl::string_view existing : {"9223372036854775807", "9223372036854775808"}) {
    auto module = ParseOrFail(OneLoopAfterCount(existing));
    ASSERT_NE(module, nullptr);
    const std::string before = hopt::PrintModule(*module);
    AddBoundaryMarker pass;
    absl::StatusOr<bool> changed = pass.Run(*module);
    ASSERT_FALSE(changed.ok()) << existing;
    EXPECT_TRUE(absl::IsOutOfRange(changed.status())) << changed.status();
    EXPECT_THAT(std::string(changed.status().message()),
                ::testing::HasSubstr("while body body needs a new boundaryCount, but marker m"));
    // Refused before anything changed.
    EXPECT_EQ(hopt::PrintModule(*module), before);
  }
}

TEST(AddBoundaryMarkerTest, TheLastCountIsStillUsable) {
  EXPECT_EQ(NewCountAfter("9223372036854775806"),
            std::optional<int64_t>(std::numeric_limits<int64_t>::max()));
}

TEST(AddBoundaryMarkerTest, SharedBodyIsMarkedOnce) {
  auto module = ParseOrFail(R"(HloModule m

cond {
  c = s32[] parameter(0)
  k = s32[] constant(3)
  ROOT lt = pred[] compare(c, k), direction=LT
}

body {
  c = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT s = s32[] add(c, one)
}

ENTRY main {
  c0 = s32[] parameter(0)
  w1 = s32[] while(c0), condition=cond, body=body
  ROOT w2 = s32[] while(w1), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker pass;
  auto [marked, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(marked, nullptr);
  const HloComputation* body = marked->GetComputationWithName("body");
  Pair pair = MarkedRoot(*body);
  ASSERT_NE(pair.end, nullptr);
  EXPECT_EQ(pair.start->operand(0)->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(markers::BoundaryCountOf(*pair.end), 0);
}

TEST(AddBoundaryMarkerTest, NoWhileNoChange) {
  auto module = ParseOrFail("HloModule m\n\nENTRY main {\n  ROOT p = f32[2] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  AddBoundaryMarker pass;
  auto [same, changed] = RunPassOrFail(pass, *module);
  ASSERT_NE(same, nullptr);
  EXPECT_FALSE(changed);
}

}  // namespace
}  // namespace neuron

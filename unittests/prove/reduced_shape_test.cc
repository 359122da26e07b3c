// SPDX-License-Identifier: Apache-2.0
// Proofs of regions too large to encode element by element, on their
// uniform dimensions cut to one index (core/prove/reduced_shape.h): which
// dimensions may be cut, proofs that hold at full size, and counterexamples
// that the interpreter confirms at full size.

#include "core/prove/reduced_shape.h"

#include <memory>
#include <string>

#include "core/prove/prover.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unittests/prove/prove_test_util.h"

namespace hopt {
namespace prove {
namespace {

using ::testing::HasSubstr;
using Verdict = ProofResult::Verdict;

std::string AllReduce(const std::string& groups) {
  return "HloModule m, replica_count=8\n\nsum {\n  a = s32[] parameter(0)\n"
         "  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n"
         "ENTRY e {\n  x = s32[512,512] parameter(0)\n"
         "  r = s32[512,512] all-reduce(x), replica_groups=" +
         groups +
         ", to_apply=sum\n  c = s32[] constant(3)\n  b = s32[512,512] broadcast(c), dimensions={}\n"
         "  ROOT m = s32[512,512] multiply(r, b)\n}\n";
}

// 262,144 elements on each of 8 devices: past the element-by-element
// encoding, proved with both dimensions cut to one index.
TEST(ReducedShapeTest, AWholeArrayAllReduceIsProvedOnOneElement) {
  ProofResult r = ProveTexts(AllReduce("{}"), AllReduce("{{0,1,2,3,4,5,6,7}}"), 8);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_THAT(r.encoding, HasSubstr("reduced shape, 2 uniform dimension class(es) cut to 1: "
                                    "s32[512,512] -> s32[1,1]"));
}

// Wrong groups: the reduced counterexample, repeated to full size, makes
// the full modules differ in the interpreter.
TEST(ReducedShapeTest, WrongGroupsGiveAFullSizeCounterexample) {
  ProofResult r = ProveTexts(AllReduce("{}"), AllReduce("{{0,1,2,3},{4,5,6,7}}"), 8);
  ASSERT_EQ(r.verdict, Verdict::kCounterexample) << r.reason;
  ASSERT_EQ(r.arguments.size(), 8u);
  EXPECT_EQ(r.arguments[0][0].shape().ToString(false), "s32[512,512]");
  EXPECT_THAT(r.difference, HasSubstr("output {}, element [0,0]"));
}

std::string Sliced(const std::string& body) {
  return "HloModule m\n\nENTRY e {\n  x = s32[2048,512] parameter(0)\n" + body + "\n}\n";
}

// A slice pins the dimension it cuts; the other is still cut to one index.
TEST(ReducedShapeTest, ASliceKeepsItsDimensionAndCutsTheOther) {
  ProofResult r = ProveTexts(Sliced("  ROOT s = s32[1024,512] slice(x), slice={[0:1024], [0:512]}"),
                             Sliced("  w = s32[1500,512] slice(x), slice={[0:1500], [0:512]}\n"
                                    "  ROOT s = s32[1024,512] slice(w), slice={[0:1024], [0:512]}"),
                             1);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_THAT(r.encoding, HasSubstr("s32[2048,512] -> s32[2048,1]"));
  ProofResult shifted =
      ProveTexts(Sliced("  ROOT s = s32[1024,512] slice(x), slice={[0:1024], [0:512]}"),
                 Sliced("  ROOT s = s32[1024,512] slice(x), slice={[1:1025], [0:512]}"), 1);
  ASSERT_EQ(shifted.verdict, Verdict::kCounterexample) << shifted.reason;
  EXPECT_EQ(shifted.arguments[0][0].shape().ToString(false), "s32[2048,512]");
}

// An iota varies along its dimension: that one is kept, the other is cut.
// A transpose carries dimensions to their new places.
TEST(ReducedShapeTest, IotaPinsItsDimensionTransposeCarries) {
  const std::string head =
      "HloModule m\n\nENTRY e {\n  x = s32[512,256] parameter(0)\n"
      "  i = s32[512,256] iota(), iota_dimension=0\n";
  ProofResult r = ProveTexts(head +
                                 "  a = s32[512,256] add(x, i)\n  ROOT t = s32[256,512] "
                                 "transpose(a), dimensions={1,0}\n}\n",
                             head +
                                 "  a = s32[512,256] add(i, x)\n  ROOT t = s32[256,512] "
                                 "transpose(a), dimensions={1,0}\n}\n",
                             1);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_THAT(r.encoding, HasSubstr("s32[512,256] -> s32[512,1]"));
}

// A reduction over every dimension leaves nothing uniform: "unknown", with
// the reason, never a guess.
TEST(ReducedShapeTest, NothingUniformStaysUnknown) {
  const std::string head =
      "HloModule m\n\nsum {\n  a = s32[] parameter(0)\n"
      "  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n"
      "ENTRY e {\n  x = s32[1024,1024] parameter(0)\n  z = s32[] constant(0)\n";
  ProofResult r =
      ProveTexts(head + "  ROOT r = s32[] reduce(x, z), dimensions={0,1}, to_apply=sum\n}\n",
                 head +
                     "  p = s32[1024] reduce(x, z), dimensions={1}, to_apply=sum\n"
                     "  ROOT r = s32[] reduce(p, z), dimensions={0}, to_apply=sum\n}\n",
                 1);
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_THAT(r.reason, HasSubstr("no dimension of the region is uniform"));
}

TEST(ReducedShapeTest, ExpandingRepeatsAlongCutDimensions) {
  Literal small(Shape(PrimitiveType::S32, {1, 2}));
  small.SetFromInt64(0, 7);
  small.SetFromInt64(1, 9);
  auto full = ExpandAlongCutDimensions(small, Shape(PrimitiveType::S32, {3, 2}));
  ASSERT_TRUE(full.ok()) << full.status();
  for (int64_t row = 0; row < 3; ++row) {
    EXPECT_EQ(full->GetAsInt64(2 * row), 7);
    EXPECT_EQ(full->GetAsInt64(2 * row + 1), 9);
  }
}

}  // namespace
}  // namespace prove
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0
// Tests for the collective formulas of libhopt_prove (core/prove/
// mesh_collectives.cc): all-to-all, the async pairs, custom-calls that
// stand for a collective, and opaque custom-calls. Each rewrite is proved
// on meshes of several shapes, and a wrong one gets a counterexample the
// interpreter confirms.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/prove/prover.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/custom_call_table.h"
#include "unittests/prove/prove_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace prove {
namespace {

using ::testing::HasSubstr;
using Verdict = ProofResult::Verdict;

struct MeshShape {
  int64_t replicas;
  int64_t partitions;
};

ProofResult ProveOn(const std::string& before_text, const std::string& after_text, MeshShape mesh,
                    const eval::CustomCallTable* custom_calls = nullptr) {
  return ProveTexts(before_text, after_text, mesh.replicas, mesh.partitions, {}, custom_calls);
}

std::string Module(const std::string& computations, const std::string& entry) {
  return "HloModule m\n\n" + computations + "ENTRY e {\n" + entry + "\n}\n";
}

const char kAdd[] =
    "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n";
const char kMultiply[] =
    "mul {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
    "  ROOT s = s32[] multiply(a, b)\n}\n\n";

// How an all-to-all's group is formed on a mesh: across replicas (no
// channel), or across partitions (a channel) on a one-replica mesh; the
// all-gather over the same devices, and the id of a device in the group.
struct GroupSpelling {
  int64_t size;
  std::string all_to_all_attributes;
  std::string all_gather_attributes;
  std::string id;
};

GroupSpelling SpellingFor(MeshShape mesh) {
  if (mesh.replicas > 1) return {mesh.replicas, "", "", "replica-id()"};
  std::vector<int64_t> ids;
  for (int64_t p = 0; p < mesh.partitions; ++p) ids.push_back(p);
  return {mesh.partitions, ", channel_id=1",
          absl::StrCat(", channel_id=2, replica_groups={{", absl::StrJoin(ids, ","),
                       "}}, use_global_device_ids=true"),
          "partition-id()"};
}

class AllToAllOnMeshes : public ::testing::TestWithParam<MeshShape> {};

// An array all-to-all along dimension 0 sends row j to member j: member p
// gets row p of every member, in the group's order. The same rows come out
// of an all-gather, a reshape and a dynamic-slice at the device's id.
TEST_P(AllToAllOnMeshes, ArrayFormIsAnAllGatherAndASliceAtTheId) {
  MeshShape mesh = GetParam();
  GroupSpelling g = SpellingFor(mesh);
  const int64_t n = g.size;
  const std::string x = absl::StrCat("s32[", n, ",2]");
  const std::string native =
      Module("", absl::StrCat("  x = ", x, " parameter(0)\n  ROOT r = ", x,
                              " all-to-all(x), dimensions={0}", g.all_to_all_attributes));
  const std::string gathered = Module(
      "", absl::StrCat("  x = ", x, " parameter(0)\n  g = s32[", n * n, ",2] all-gather(x), ",
                       "dimensions={0}", g.all_gather_attributes, "\n  t = s32[", n, ",", n,
                       ",2] reshape(g)\n  id = u32[] ", g.id, "\n  zero = u32[] constant(0)\n",
                       "  s = s32[", n, ",1,2] dynamic-slice(t, zero, id, zero), ",
                       "dynamic_slice_sizes={", n, ",1,2}\n  ROOT r = ", x, " reshape(s)"));
  ProofResult r = ProveOn(native, gathered, mesh);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  // The group in the reverse order: each member gets the rows of a
  // different position, from the senders in the reverse order.
  std::vector<int64_t> reversed;
  for (int64_t k = n - 1; k >= 0; --k) reversed.push_back(k);
  const std::string wrong =
      Module("", absl::StrCat("  x = ", x, " parameter(0)\n  ROOT r = ", x,
                              " all-to-all(x), dimensions={0}, replica_groups={{",
                              absl::StrJoin(reversed, ","), "}}", g.all_to_all_attributes));
  ProofResult w = ProveOn(native, wrong, mesh);
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
  EXPECT_THAT(w.difference, HasSubstr("output {}, element ["));
}

INSTANTIATE_TEST_SUITE_P(Meshes, AllToAllOnMeshes,
                         ::testing::Values(MeshShape{4, 1}, MeshShape{2, 2}, MeshShape{1, 4}),
                         [](const ::testing::TestParamInfo<MeshShape>& info) {
                           return absl::StrCat(info.param.replicas, "x", info.param.partitions);
                         });

// The tuple form on two replicas: member p gets operand p of every member.
// Device 0 holds (a of replica 0, a of replica 1), device 1 the b's: two
// all-gathers and a choice by replica id compute the same.
TEST(ProveCollectivesTest, TupleAllToAllIsTwoAllGathersAndAChoice) {
  const std::string params = "  a = s32[2] parameter(0)\n  b = s32[2] parameter(1)\n";
  const std::string native =
      Module("", params + "  ROOT r = (s32[2], s32[2]) all-to-all(a, b), replica_groups={{0,1}}");
  auto gathered = [&](const std::string& first, const std::string& second) {
    return Module("", params +
                          "  ga = s32[4] all-gather(a), dimensions={0}\n"
                          "  gb = s32[4] all-gather(b), dimensions={0}\n  id = u32[] replica-id()\n"
                          "  zero = u32[] constant(0)\n"
                          "  is0 = pred[] compare(id, zero), direction=EQ\n"
                          "  c = pred[4] broadcast(is0), dimensions={}\n"
                          "  s = s32[4] select(c, " +
                          first + ", " + second +
                          ")\n"
                          "  r0 = s32[2] slice(s), slice={[0:2]}\n"
                          "  r1 = s32[2] slice(s), slice={[2:4]}\n"
                          "  ROOT r = (s32[2], s32[2]) tuple(r0, r1)");
  };
  ProofResult r = ProveOn(native, gathered("ga", "gb"), {2, 1});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult w = ProveOn(native, gathered("gb", "ga"), {2, 1});
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
}

// A custom-call a plugin describes as an all-to-all is that all-to-all.
TEST(ProveCollectivesTest, ACustomCallDescribedAsAllToAllIsOne) {
  eval::CustomCallTable table;
  table.RegisterCollective(
      "vendor_all_to_all",
      [](const HloInstruction&, const eval::Mesh&) -> absl::StatusOr<eval::CollectiveDescription> {
        eval::CollectiveDescription d;
        d.kind = HloOpcode::kAllToAll;
        d.dimension = 1;
        return d;
      });
  const std::string x = "  x = s32[2,4] parameter(0)\n";
  const std::string call = Module("", x + "  ROOT r = s32[2,4] custom-call(x), "
                                          "custom_call_target=\"vendor_all_to_all\"");
  ProofResult r = ProveOn(call, Module("", x + "  ROOT r = s32[2,4] all-to-all(x), dimensions={1}"),
                          {4, 1}, &table);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult w = ProveOn(call,
                          Module("", x + "  ROOT r = s32[2,4] all-to-all(x), dimensions={1}, "
                                         "replica_groups={{0,1},{2,3}}"),
                          {4, 1}, &table);
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
}

class AsyncPairsOnMeshes : public ::testing::TestWithParam<MeshShape> {};

// Each async pair computes at its start what the synchronous op computes;
// the done unpacks it. Proved against the synchronous ops on every mesh;
// an all-reduce-start with the wrong reduction is caught.
TEST_P(AsyncPairsOnMeshes, AsyncPairsAreTheirSynchronousOps) {
  MeshShape mesh = GetParam();
  const int64_t n = mesh.replicas;  // cross-replica groups: one per partition
  const std::string pairs = n == 1 ? "{0,0}" : "{0,1},{1,0}";
  const std::string gathered = absl::StrCat("s32[", 2 * n, "]");
  const std::string wrapped =
      "wrapped {\n  p = s32[2] parameter(0)\n"
      "  ROOT ar = s32[2] all-reduce(p), replica_groups={}, to_apply=add\n}\n\n";
  auto async = [&](const std::string& reduction) {
    return Module(
        std::string(kAdd) + kMultiply + wrapped,
        absl::StrCat("  x = s32[2] parameter(0)\n"
                     "  ars = s32[2] all-reduce-start(x), replica_groups={}, to_apply=",
                     reduction,
                     "\n"
                     "  ard = s32[2] all-reduce-done(ars)\n"
                     "  ags = (s32[2], ",
                     gathered,
                     ") all-gather-start(x), replica_groups={}, "
                     "dimensions={0}\n  agd = ",
                     gathered,
                     " all-gather-done(ags)\n"
                     "  cps = (s32[2], s32[2], u32[], u32[]) collective-permute-start(x), "
                     "source_target_pairs={",
                     pairs,
                     "}\n"
                     "  cpd = s32[2] collective-permute-done(cps)\n"
                     "  as = ((s32[2]), s32[2], s32[]) async-start(x), calls=wrapped\n"
                     "  au = ((s32[2]), s32[2], s32[]) async-update(as)\n"
                     "  ad = s32[2] async-done(au)\n"
                     "  cs = (s32[2], s32[2], u32[]) copy-start(x)\n  cd = s32[2] copy-done(cs)\n"
                     "  ROOT t = (s32[2], ",
                     gathered,
                     ", s32[2], s32[2], s32[2]) "
                     "tuple(ard, agd, cpd, ad, cd)"));
  };
  const std::string sync =
      Module(std::string(kAdd) + kMultiply,
             absl::StrCat("  x = s32[2] parameter(0)\n"
                          "  ar = s32[2] all-reduce(x), replica_groups={}, to_apply=add\n"
                          "  ag = ",
                          gathered,
                          " all-gather(x), replica_groups={}, dimensions={0}\n"
                          "  cp = s32[2] collective-permute(x), source_target_pairs={",
                          pairs,
                          "}\n"
                          "  ROOT t = (s32[2], ",
                          gathered,
                          ", s32[2], s32[2], s32[2]) "
                          "tuple(ar, ag, cp, ar, x)"));
  ProofResult r = ProveOn(async("add"), sync, mesh);
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  if (n > 1) {
    ProofResult w = ProveOn(async("mul"), sync, mesh);
    ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
    EXPECT_THAT(w.difference, HasSubstr("output {0}"));
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, AsyncPairsOnMeshes,
                         ::testing::Values(MeshShape{4, 1}, MeshShape{2, 2}, MeshShape{1, 4}),
                         [](const ::testing::TestParamInfo<MeshShape>& info) {
                           return absl::StrCat(info.param.replicas, "x", info.param.partitions);
                         });

// A call's computation runs on every device at once, so a collective in it
// has a formula; moving the all-reduce out of the call is proved.
TEST(ProveCollectivesTest, ACollectiveInsideACallIsEncoded) {
  const std::string inner =
      "inner {\n  p = s32[2] parameter(0)\n"
      "  ROOT ar = s32[2] all-reduce(p), replica_groups={}, to_apply=add\n"
      "}\n\n";
  ProofResult r =
      ProveOn(Module(std::string(kAdd) + inner,
                     "  x = s32[2] parameter(0)\n  ROOT c = s32[2] call(x), to_apply=inner"),
              Module(std::string(kAdd),
                     "  x = s32[2] parameter(0)\n"
                     "  ROOT ar = s32[2] all-reduce(x), replica_groups={}, to_apply=add"),
              {2, 2});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
}

std::string OpaqueCall(const std::string& shape, const std::string& operand,
                       const std::string& extra = ", backend_config=\"cfg\"") {
  return "  c = " + shape + " custom-call(" + operand + "), custom_call_target=\"vendor_kernel\"" +
         extra;
}

class OpaqueCallsOnMeshes : public ::testing::TestWithParam<MeshShape> {};

// A custom-call without semantics is a function nobody knows; a rewrite
// that keeps it on equal operands (-(-x) is x for every s32) is proved,
// whatever the function.
TEST_P(OpaqueCallsOnMeshes, TheSameCallOnEqualOperandsIsProved) {
  const std::string x = "  x = s32[4] parameter(0)\n";
  const std::string after =
      Module("", x + OpaqueCall("s32[4]", "x") + "\n  ROOT r = s32[4] add(c, c)");
  ProofResult r = ProveOn(Module("", x + "  n = s32[4] negate(x)\n  m = s32[4] negate(n)\n" +
                                         OpaqueCall("s32[4]", "m") +
                                         "\n  two = s32[4] constant({2, 2, 2, 2})\n"
                                         "  ROOT r = s32[4] multiply(c, two)"),
                          after, GetParam());
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  // Another operand: the interpreter's opaque results differ, and confirm it.
  ProofResult w = ProveOn(Module("", x + "  n = s32[4] negate(x)\n" + OpaqueCall("s32[4]", "n") +
                                         "\n  ROOT r = s32[4] add(c, c)"),
                          after, GetParam());
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
}

INSTANTIATE_TEST_SUITE_P(Meshes, OpaqueCallsOnMeshes,
                         ::testing::Values(MeshShape{1, 1}, MeshShape{2, 2}, MeshShape{1, 4}),
                         [](const ::testing::TestParamInfo<MeshShape>& info) {
                           return absl::StrCat(info.param.replicas, "x", info.param.partitions);
                         });

// Floats in, a tuple out: each leaf of the result is its own function of
// the call, so taking the leaves apart and back together is proved, and
// reading leaf 0 for leaf 1 is not.
TEST(ProveCollectivesTest, AnOpaqueCallsTupleLeavesAreDistinct) {
  const std::string x = "  x = f32[2] parameter(0)\n" + OpaqueCall("(f32[2], f32[2])", "x") +
                        "\n"
                        "  a = f32[2] get-tuple-element(c), index=0\n"
                        "  b = f32[2] get-tuple-element(c), index=1\n";
  const std::string same = Module("", x + "  ROOT r = (f32[2], f32[2]) tuple(a, b)");
  ProofResult r = ProveOn(same, Module("", x + "  ROOT r = (f32[2], f32[2]) copy(c)"), {1, 1});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult w = ProveOn(same, Module("", x + "  ROOT r = (f32[2], f32[2]) tuple(a, a)"), {1, 1});
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
  EXPECT_THAT(w.difference, HasSubstr("output {1}"));
}

// The config is part of the call: another backend_config is another
// function, and the interpreter's digest shows the difference.
TEST(ProveCollectivesTest, AnotherBackendConfigIsAnotherFunction) {
  const std::string x = "  x = s32[3] parameter(0)\n";
  ProofResult w = ProveOn(Module("", x + OpaqueCall("s32[3]", "x") + "\n  ROOT r = s32[3] copy(c)"),
                          Module("", x + OpaqueCall("s32[3]", "x", ", backend_config=\"other\"") +
                                         "\n  ROOT r = s32[3] copy(c)"),
                          {2, 1});
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
}

// The interpreter's digest leaves api_version out, the formula does not:
// calls differing only there are not proved equal, and the interpreter
// does not show them different, so the answer is unknown.
TEST(ProveCollectivesTest, AnotherApiVersionIsUnknown) {
  const std::string x = "  x = s32[3] parameter(0)\n";
  ProofResult r = ProveOn(Module("", x + OpaqueCall("s32[3]", "x") + "\n  ROOT r = s32[3] copy(c)"),
                          Module("", x +
                                         OpaqueCall("s32[3]", "x",
                                                    ", backend_config=\"cfg\", "
                                                    "api_version=API_VERSION_TYPED_FFI") +
                                         "\n  ROOT r = s32[3] copy(c)"),
                          {1, 1});
  EXPECT_EQ(r.verdict, Verdict::kUnknown) << r.reason;
  EXPECT_THAT(r.reason, HasSubstr("the interpreter shows them equal"));
}

// A call with side effects does something no output shows: unknown.
TEST(ProveCollectivesTest, AnOpaqueCallWithSideEffectsIsUnknown) {
  const std::string text =
      Module("", "  x = s32[3] parameter(0)\n" +
                     OpaqueCall("s32[3]", "x", ", custom_call_has_side_effect=true") +
                     "\n  ROOT r = s32[3] copy(c)");
  ProofResult r = ProveOn(text, text, {1, 1});
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_THAT(r.reason, HasSubstr("c (custom-call): custom-call target 'vendor_kernel' has no "
                                  "registered semantics and has side effects"));
}

// popcnt is exact on bit-vectors: the SWAR bit count gives it for every
// u32.
TEST(ProveCollectivesTest, PopcntIsTheSwarBitCountForEveryU32) {
  auto constant = [](const std::string& name, const std::string& value) {
    return "  " + name + " = u32[2] constant({" + value + ", " + value + "})\n";
  };
  const std::string x = "  x = u32[2] parameter(0)\n";
  const std::string swar =
      x + constant("one", "1") + constant("two", "2") + constant("four", "4") +
      constant("b24", "24") + constant("m1", "1431655765") + constant("m2", "858993459") +
      constant("m4", "252645135") + constant("h", "16843009") +
      "  s1 = u32[2] shift-right-logical(x, one)\n  a1 = u32[2] and(s1, m1)\n"
      "  v1 = u32[2] subtract(x, a1)\n  l2 = u32[2] and(v1, m2)\n"
      "  s2 = u32[2] shift-right-logical(v1, two)\n  r2 = u32[2] and(s2, m2)\n"
      "  v2 = u32[2] add(l2, r2)\n  s4 = u32[2] shift-right-logical(v2, four)\n"
      "  t4 = u32[2] add(v2, s4)\n  v4 = u32[2] and(t4, m4)\n"
      "  p = u32[2] multiply(v4, h)\n  ROOT r = u32[2] shift-right-logical(p, b24)";
  ProofResult r = ProveOn(Module("", x + "  ROOT r = u32[2] popcnt(x)"), Module("", swar), {1, 1});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  EXPECT_EQ(r.encoding, "bit-vector");
}

// count-leading-zeros is the number of zeros left after smearing the
// highest set bit down; one smearing step short is wrong for x >= 2^16.
TEST(ProveCollectivesTest, ClzIsThePopcntOfTheSmearedComplement) {
  auto smeared = [](std::vector<int> shifts) {
    std::string text = "  x = u32[] parameter(0)\n";
    std::string last = "x";
    for (int s : shifts) {
      std::string n = std::to_string(s);
      text += "  c" + n + " = u32[] constant(" + n + ")\n  s" + n +
              " = u32[] shift-right-logical(" + last + ", c" + n + ")\n  y" + n + " = u32[] or(" +
              last + ", s" + n + ")\n";
      last = "y" + n;
    }
    return Module("", text + "  z = u32[] not(" + last + ")\n  ROOT r = u32[] popcnt(z)");
  };
  const std::string clz =
      Module("", "  x = u32[] parameter(0)\n  ROOT r = u32[] count-leading-zeros(x)");
  ProofResult r = ProveOn(clz, smeared({1, 2, 4, 8, 16}), {1, 1});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult w = ProveOn(clz, smeared({1, 2, 4, 8}), {1, 1});
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
  EXPECT_GE(static_cast<uint64_t>(w.arguments[0][0].GetAsInt64(0)), uint64_t{1} << 16);
}

// A variadic reduce folds its inputs together, accumulators first: a sum
// and a maximum in one reduce are the two reduces apart; a combiner that
// adds the other input is caught.
TEST(ProveCollectivesTest, AVariadicReduceIsItsReducesApart) {
  auto pair = [](const std::string& summed) {
    return "pair {\n  a0 = s32[] parameter(0)\n  a1 = s32[] parameter(1)\n"
           "  x0 = s32[] parameter(2)\n  x1 = s32[] parameter(3)\n"
           "  s = s32[] add(a0, " +
           summed +
           ")\n  m = s32[] maximum(a1, x1)\n"
           "  ROOT t = (s32[], s32[]) tuple(s, m)\n}\n\n";
  };
  const std::string max =
      "max {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT m = s32[] maximum(a, b)\n}\n\n";
  const std::string inputs =
      "  x = s32[3,4] parameter(0)\n  y = s32[3,4] parameter(1)\n"
      "  zero = s32[] constant(0)\n  low = s32[] constant(-2147483648)\n";
  auto variadic = [&](const std::string& summed) {
    return Module(pair(summed), inputs +
                                    "  ROOT r = (s32[3], s32[3]) reduce(x, y, zero, low), "
                                    "dimensions={1}, to_apply=pair");
  };
  const std::string apart = Module(
      std::string(kAdd) + max, inputs +
                                   "  s = s32[3] reduce(x, zero), dimensions={1}, to_apply=add\n"
                                   "  m = s32[3] reduce(y, low), dimensions={1}, to_apply=max\n"
                                   "  ROOT r = (s32[3], s32[3]) tuple(s, m)");
  ProofResult r = ProveOn(variadic("x0"), apart, {2, 1});
  EXPECT_EQ(r.verdict, Verdict::kProved) << r.reason;
  ProofResult w = ProveOn(variadic("x1"), apart, {2, 1});
  ASSERT_EQ(w.verdict, Verdict::kCounterexample) << w.reason;
  EXPECT_THAT(w.difference, HasSubstr("output {0}"));
}

}  // namespace
}  // namespace prove
}  // namespace hopt

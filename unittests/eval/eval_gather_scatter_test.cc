// SPDX-License-Identifier: Apache-2.0
// Tests for the interpreter's gather and scatter (core/eval/gather_scatter.h):
// the functions on literals, with values worked out by hand, and whole
// modules for the update computations, variadic scatter and the errors of
// malformed instructions.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/eval/gather_scatter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "hopt/support/status_macros.h"
#include "unittests/eval/array_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using array_testing::Counting;
using array_testing::DimsOf;
using array_testing::Ints;
using array_testing::Make;
using array_testing::RunOnOneDevice;
using array_testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType F32 = PrimitiveType::F32;
constexpr PrimitiveType S32 = PrimitiveType::S32;

// 1..9 as s32[3,3].
Literal Nine() { return Make(S32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }

GatherDimensionNumbers RowGather() {
  GatherDimensionNumbers dims;
  dims.offset_dims = {1};
  dims.collapsed_slice_dims = {0};
  dims.start_index_map = {0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {1, 3};
  return dims;
}

// ---------------------------------------------------------------------------
// Gather

TEST(GatherTest, RowsOfAMatrix) {
  auto result = Gather(Nine(), Make(S32, {2}, {0, 2}), RowGather());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 3));
  EXPECT_THAT(Ints(*result), ElementsAre(1, 2, 3, 7, 8, 9));
}

TEST(GatherTest, ColumnsOfAMatrix) {
  GatherDimensionNumbers dims;
  dims.offset_dims = {0};
  dims.collapsed_slice_dims = {1};
  dims.start_index_map = {1};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {3, 1};
  auto result = Gather(Nine(), Make(S32, {2}, {0, 2}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(3, 2));
  EXPECT_THAT(Ints(*result), ElementsAre(1, 3, 4, 6, 7, 9));
}

TEST(GatherTest, StartsAreClampedSoTheSliceFits) {
  // Slices of 2 from {0..4}: starts -2 -> 0, 3 -> 3, 100 -> 3, 4 -> 3.
  GatherDimensionNumbers dims;
  dims.offset_dims = {1};
  dims.start_index_map = {0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {2};
  auto result = Gather(Counting(F32, {5}), Make(S32, {4}, {-2, 3, 100, 4}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(0, 1, 3, 4, 3, 4, 3, 4));
}

TEST(GatherTest, ImplicitIndexVectorDimension) {
  // index_vector_dim == rank of the indices: each index is a 1-vector.
  GatherDimensionNumbers dims = RowGather();
  dims.offset_dims = {2};
  dims.index_vector_dim = 2;
  auto result = Gather(Nine(), Make(S32, {2, 2}, {0, 2, 1, 0}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(DimsOf(*result), ElementsAre(2, 2, 3));
  EXPECT_THAT(Ints(*result), ElementsAre(1, 2, 3, 7, 8, 9, 4, 5, 6, 1, 2, 3));
}

TEST(GatherTest, IndexVectorAlongTheFirstDimension) {
  // index_vector_dim=0: the columns {1,0} and {2,1} are the index vectors.
  GatherDimensionNumbers dims;
  dims.collapsed_slice_dims = {0, 1};
  dims.start_index_map = {0, 1};
  dims.index_vector_dim = 0;
  dims.slice_sizes = {1, 1};
  auto result = Gather(Nine(), Make(S32, {2, 2}, {1, 2, 0, 1}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(4, 8));
}

TEST(GatherTest, StartIndexMapPermutesTheIndexVector) {
  // start_index_map={1,0}: index {0,2} starts at row 2, column 0.
  GatherDimensionNumbers dims;
  dims.collapsed_slice_dims = {0, 1};
  dims.start_index_map = {1, 0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {1, 1};
  auto result = Gather(Nine(), Make(S32, {1, 2}, {0, 2}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(7));
}

TEST(GatherTest, BatchingDimensionsPairOperandAndIndices) {
  // Row b of the operand is indexed by indices[b]: {{1,2,3},{4,5,6}} at
  // columns 2 and 0.
  GatherDimensionNumbers dims;
  dims.collapsed_slice_dims = {1};
  dims.start_index_map = {1};
  dims.operand_batching_dims = {0};
  dims.start_indices_batching_dims = {0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {1, 1};
  auto result = Gather(Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6}), Make(S32, {2, 1}, {2, 0}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(3, 4));
}

TEST(GatherTest, UnsignedIndicesReadAsXlaReadsThem) {
  // u8 255 clamps to the end; a u64 above INT64_MAX reads as negative, so 0.
  GatherDimensionNumbers dims;
  dims.collapsed_slice_dims = {0};
  dims.start_index_map = {0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {1};
  Literal operand = Make(F32, {4}, {10, 11, 12, 13});
  auto small = Gather(operand, Make(PrimitiveType::U8, {2}, {255, 1}), dims);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_THAT(Values(*small), ElementsAre(13, 11));
  Literal big(Shape(PrimitiveType::U64, {2}));
  big.SetFromInt64(0, std::numeric_limits<int64_t>::min() + 5);  // 2^63 + 5
  big.SetFromInt64(1, 2);
  auto wide = Gather(operand, big, dims);
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Values(*wide), ElementsAre(10, 12));
}

TEST(GatherTest, CopiesValuesBitForBit) {
  GatherDimensionNumbers dims;
  dims.collapsed_slice_dims = {0};
  dims.start_index_map = {0};
  dims.index_vector_dim = 1;
  dims.slice_sizes = {1};
  Literal operand = Make(F32, {2}, {std::nan(""), -0.0});
  auto result = Gather(operand, Make(S32, {2}, {1, 0}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(std::signbit(result->GetAsDouble(0)));
  EXPECT_TRUE(std::isnan(result->GetAsDouble(1)));
  Literal complex(Shape(PrimitiveType::C64, {2}));
  complex.SetFromComplex(0, {1, 2});
  complex.SetFromComplex(1, {3, -4});
  auto from_complex = Gather(complex, Make(S32, {1}, {1}), dims);
  ASSERT_TRUE(from_complex.ok()) << from_complex.status();
  EXPECT_EQ(from_complex->GetAsComplex(0), std::complex<double>(3, -4));
}

TEST(GatherTest, EmptyIndicesOrSlicesGiveEmptyResults) {
  auto no_indices = Gather(Nine(), Make(S32, {0}, {}), RowGather());
  ASSERT_TRUE(no_indices.ok()) << no_indices.status();
  EXPECT_THAT(DimsOf(*no_indices), ElementsAre(0, 3));
  GatherDimensionNumbers dims = RowGather();
  dims.slice_sizes = {1, 0};
  auto no_slice = Gather(Nine(), Make(S32, {2}, {0, 1}), dims);
  ASSERT_TRUE(no_slice.ok()) << no_slice.status();
  EXPECT_THAT(DimsOf(*no_slice), ElementsAre(2, 0));
  // An empty index vector gathers from the start of the operand.
  GatherDimensionNumbers whole;
  whole.offset_dims = {1, 2};
  whole.index_vector_dim = 1;
  whole.slice_sizes = {2, 2};
  auto from_start = Gather(Nine(), Make(S32, {1, 0}, {}), whole);
  ASSERT_TRUE(from_start.ok()) << from_start.status();
  EXPECT_THAT(Ints(*from_start), ElementsAre(1, 2, 4, 5));
}

TEST(GatherTest, MalformedDimensionNumbersAreRefused) {
  GatherDimensionNumbers dims = RowGather();
  dims.slice_sizes = {1, 4};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims), "slice size 4 of dimension 1");
  dims = RowGather();
  dims.slice_sizes = {2, 3};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims),
                 "collapsed dimension 0 has slice size 2");
  dims = RowGather();
  dims.offset_dims = {};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims), "offset_dims={} has 0 entries");
  dims = RowGather();
  dims.index_vector_dim = 2;
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims), "index_vector_dim=2 is out of [0, 1]");
  dims = RowGather();
  dims.start_index_map = {0, 1};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims),
                 "has 2 entries for an index vector of 1");
  dims = RowGather();
  dims.collapsed_slice_dims = {0, 0};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims), "repeats 0");
  EXPECT_INVALID(Gather(Nine(), Make(F32, {1}, {0}), RowGather()), "must be an integer array");
  dims = RowGather();
  dims.operand_batching_dims = {1};
  dims.slice_sizes = {1, 1};
  EXPECT_INVALID(Gather(Nine(), Make(S32, {1}, {0}), dims), "differ in length");
}

// ---------------------------------------------------------------------------
// Scatter, as a function

ScatterDimensionNumbers RowScatter() {
  ScatterDimensionNumbers dims;
  dims.update_window_dims = {1};
  dims.inserted_window_dims = {0};
  dims.scatter_dims_to_operand_dims = {0};
  dims.index_vector_dim = 1;
  return dims;
}

// The update computation as a function of scalars: current + update.
absl::StatusOr<std::vector<Literal>> AddScalars(const std::vector<Literal>& args) {
  Literal sum(args[0].shape());
  sum.SetFromDouble(0, args[0].GetAsDouble(0) + args[1].GetAsDouble(0));
  return std::vector<Literal>{std::move(sum)};
}

// ... and the update alone.
absl::StatusOr<std::vector<Literal>> Overwrite(const std::vector<Literal>& args) {
  return std::vector<Literal>{args[1]};
}

absl::StatusOr<Literal> ScatterOne(const Literal& operand, const Literal& indices,
                                   const Literal& updates, const ScatterDimensionNumbers& dims,
                                   const ScalarCombiner& combine = AddScalars) {
  HOPT_ASSIGN_OR_RETURN(std::vector<Literal> results,
                        Scatter({&operand}, indices, {&updates}, dims, combine));
  return std::move(results[0]);
}

TEST(ScatterTest, AddsRowsIntoAMatrix) {
  auto result = ScatterOne(Nine(), Make(S32, {2}, {0, 2}),
                           Make(S32, {2, 3}, {10, 20, 30, 70, 80, 90}), RowScatter());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(11, 22, 33, 4, 5, 6, 77, 88, 99));
}

TEST(ScatterTest, RepeatedIndicesCombineInOrder) {
  ScatterDimensionNumbers dims;
  dims.inserted_window_dims = {0};
  dims.scatter_dims_to_operand_dims = {0};
  dims.index_vector_dim = 1;
  auto sum =
      ScatterOne(Make(F32, {3}, {0, 0, 0}), Make(S32, {2}, {1, 1}), Make(F32, {2}, {1, 2}), dims);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(Values(*sum), ElementsAre(0, 3, 0));
  // Overwriting: the last update in order wins.
  auto last = ScatterOne(Make(F32, {3}, {0, 0, 0}), Make(S32, {3}, {2, 2, 2}),
                         Make(F32, {3}, {5, 6, 7}), dims, Overwrite);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_THAT(Values(*last), ElementsAre(0, 0, 7));
}

TEST(ScatterTest, WindowsGoInScatterOrderNotUpdateRowMajorOrder) {
  // updates[w][s], window dimension first. Operand element 1 gets updates[1][0]
  // (window 0 at start 0) and updates[0][1] (window 1 at start 1): XLA's
  // order runs window 0 and then window 1, so updates[0][1] = 20 is last,
  // where row-major order over the updates would leave updates[1][0] = 30.
  ScatterDimensionNumbers dims;
  dims.update_window_dims = {0};
  dims.scatter_dims_to_operand_dims = {0};
  dims.index_vector_dim = 1;
  auto result = ScatterOne(Make(F32, {3}, {0, 0, 0}), Make(S32, {2}, {0, 1}),
                           Make(F32, {2, 2}, {10, 20, 30, 40}), dims, Overwrite);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Values(*result), ElementsAre(10, 20, 40));
}

TEST(ScatterTest, AWindowNotWhollyInBoundsIsSkipped) {
  // Windows of 2 into s32[5] at -1 (skipped), 3, 4 (half out: skipped) and 2.
  ScatterDimensionNumbers dims;
  dims.update_window_dims = {1};
  dims.scatter_dims_to_operand_dims = {0};
  dims.index_vector_dim = 1;
  auto result = ScatterOne(Make(S32, {5}, {0, 0, 0, 0, 0}), Make(S32, {4}, {-1, 3, 4, 2}),
                           Make(S32, {4, 2}, {1, 1, 2, 2, 3, 3, 4, 4}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 0, 4, 6, 2));
}

TEST(ScatterTest, BatchingDimensionsPairOperandAndIndices) {
  // Row b of the operand takes updates[b] at column indices[b].
  ScatterDimensionNumbers dims;
  dims.inserted_window_dims = {1};
  dims.input_batching_dims = {0};
  dims.scatter_indices_batching_dims = {0};
  dims.scatter_dims_to_operand_dims = {1};
  dims.index_vector_dim = 1;
  auto result = ScatterOne(Make(S32, {2, 3}, {0, 0, 0, 0, 0, 0}), Make(S32, {2, 1}, {2, 0}),
                           Make(S32, {2}, {5, 7}), dims);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(0, 0, 5, 7, 0, 0));
}

TEST(ScatterTest, ElementCombinerGivesTheSameResult) {
  auto add = MakeElementCombiner(HloOpcode::kAdd, S32);
  ASSERT_TRUE(add.ok()) << add.status();
  Literal operand = Nine(), indices = Make(S32, {3}, {2, 0, 2});
  Literal updates = Make(S32, {3, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3});
  auto fast = Scatter({&operand}, indices, {&updates}, RowScatter(), AddScalars, &*add);
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_THAT(Ints((*fast)[0]), ElementsAre(3, 4, 5, 4, 5, 6, 11, 12, 13));
}

TEST(ScatterTest, NoUpdatesLeaveTheOperand) {
  auto result = ScatterOne(Nine(), Make(S32, {0}, {}), Make(S32, {0, 3}, {}), RowScatter());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
}

TEST(GatherScatterTest, ScalarOperandsWithEmptyIndexVectors) {
  // Rank-0 operand, indices s32[0] with index_vector_dim=0: one window, the
  // whole scalar.
  Literal operand = Make(S32, {}, {5}), indices = Make(S32, {0}, {});
  ScatterDimensionNumbers scatter_dims;
  auto scattered = ScatterOne(operand, indices, Make(S32, {}, {3}), scatter_dims);
  ASSERT_TRUE(scattered.ok()) << scattered.status();
  EXPECT_THAT(Ints(*scattered), ElementsAre(8));
  GatherDimensionNumbers gather_dims;
  auto gathered = Gather(operand, indices, gather_dims);
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  EXPECT_THAT(DimsOf(*gathered), ElementsAre());
  EXPECT_THAT(Ints(*gathered), ElementsAre(5));
}

TEST(ScatterTest, MalformedScattersAreRefused) {
  Literal indices = Make(S32, {1}, {0});
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(S32, {1, 4}, {1, 2, 3, 4}), RowScatter()),
                 "window dimension 1 of the updates (4) is larger than dimension 1");
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(S32, {2, 3}, {1, 2, 3, 4, 5, 6}), RowScatter()),
                 "scatter dimension 0 of the updates (2) and dimension 0 of the indices (1)");
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(F32, {1, 3}, {1, 2, 3}), RowScatter()),
                 "differs in element type");
  ScatterDimensionNumbers dims = RowScatter();
  dims.inserted_window_dims = {};
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(S32, {1, 3}, {1, 2, 3}), dims),
                 "have 1 entries in all for an operand of rank 2");
  dims = RowScatter();
  dims.update_window_dims = {2};
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(S32, {1, 3}, {1, 2, 3}), dims),
                 "update_window_dims={2} has 2, out of [0, 2)");
  // An update computation that returns the wrong number of values.
  auto none = [](const std::vector<Literal>&) -> absl::StatusOr<std::vector<Literal>> {
    return std::vector<Literal>{};
  };
  EXPECT_INVALID(ScatterOne(Nine(), indices, Make(S32, {1, 3}, {1, 2, 3}), RowScatter(), none),
                 "returned 0 value(s) for 1 operand(s)");
}

// ---------------------------------------------------------------------------
// Whole modules: attributes, update computations and variadic scatter

// A module scattering f32 {3,1,2} into {10,20,30,40} at {1,1,3} with the
// update computation `update` (over p0: current, p1: update).
std::string ScatterModule(const std::string& update_body) {
  return absl::StrCat(R"(HloModule m
update {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
)",
                      update_body, R"(
}
ENTRY e {
  operand = f32[4] constant({10, 20, 30, 40})
  indices = s32[3] constant({1, 1, 3})
  updates = f32[3] constant({3, 1, 2})
  ROOT s = f32[4] scatter(operand, indices, updates), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
    indices_are_sorted=true, unique_indices=false, to_apply=update
})");
}

TEST(ScatterModuleTest, UpdateComputationsOfEveryForm) {
  struct Form {
    std::string body;
    std::vector<double> expected;
  } forms[] = {
      {"  ROOT r = f32[] add(p0, p1)", {10, 24, 30, 42}},        // plain op: fast path
      {"  ROOT r = f32[] subtract(p0, p1)", {10, 16, 30, 38}},   // order of operands kept
      {"  ROOT r = f32[] subtract(p1, p0)", {10, 18, 30, -38}},  // a computation call
      {"  t = f32[] multiply(p0, p1)\n  ROOT r = f32[] add(t, p1)", {10, 64, 30, 82}},
      {"  ROOT r = f32[] maximum(p0, p1)", {10, 20, 30, 40}},
  };
  for (const Form& form : forms) {
    auto result = RunOnOneDevice(ScatterModule(form.body));
    ASSERT_TRUE(result.ok()) << result.status() << "\n" << form.body;
    EXPECT_THAT(Values(*result), ::testing::ElementsAreArray(form.expected)) << form.body;
  }
  // Overwrite and keep pick a parameter.
  std::string overwrite = ScatterModule("");
  overwrite.replace(overwrite.find("  p1 = f32[]"), 2, "  ROOT ");
  auto written = RunOnOneDevice(overwrite);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_THAT(Values(*written), ElementsAre(10, 1, 30, 2));
  std::string keep = ScatterModule("");
  keep.replace(keep.find("  p0 = f32[]"), 2, "  ROOT ");
  auto kept = RunOnOneDevice(keep);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_THAT(Values(*kept), ElementsAre(10, 20, 30, 40));
}

TEST(ScatterModuleTest, NanPropagatesThroughMaximum) {
  std::string text = ScatterModule("  ROOT r = f32[] maximum(p0, p1)");
  text.replace(text.find("{3, 1, 2}"), 9, "{nan, 1, 2}");
  auto result = RunOnOneDevice(text);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(std::isnan(result->GetAsDouble(1)));
  EXPECT_EQ(result->GetAsDouble(3), 40);
}

TEST(ScatterModuleTest, VariadicScatterCombinesOperandsTogether) {
  // An arg-max: keep the larger value and its index; ties keep the current.
  auto result = RunOnOneDevice(R"(HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  values = f32[2] constant({0, 0})
  where = s32[2] constant({-1, -1})
  indices = s32[4] constant({0, 1, 0, 0})
  new_values = f32[4] constant({5, -1, 7, 7})
  new_where = s32[4] constant({10, 11, 12, 13})
  ROOT s = (f32[2], s32[2]) scatter(values, where, indices, new_values, new_where),
    update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
    index_vector_dim=1, to_apply=argmax
})");
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->tuple_elements().size(), 2u);
  EXPECT_THAT(Values(result->tuple_elements()[0]), ElementsAre(7, 0));
  EXPECT_THAT(Ints(result->tuple_elements()[1]), ElementsAre(12, -1));
}

TEST(GatherModuleTest, AttributesAsXlaPrintsThem) {
  auto result = RunOnOneDevice(R"(HloModule m
ENTRY e {
  operand = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  indices = s64[2,1] constant({{2}, {0}})
  ROOT g = s32[2,1] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={},
    start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},
    index_vector_dim=1, slice_sizes={1,1}, indices_are_sorted=true
})");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Ints(*result), ElementsAre(3, 4));
}

TEST(GatherScatterModuleTest, MalformedInstructionsAreRefused) {
  auto missing = RunOnOneDevice(R"(HloModule m
ENTRY e {
  operand = s32[3] constant({1, 2, 3})
  indices = s32[1] constant({0})
  ROOT g = s32[1] gather(operand, indices), offset_dims={}, collapsed_slice_dims={0},
    start_index_map={0}, slice_sizes={1}
})");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("interpreter: g (gather): needs index_vector_dim="));
  auto wrong_shape = RunOnOneDevice(R"(HloModule m
ENTRY e {
  operand = s32[3] constant({1, 2, 3})
  indices = s32[1] constant({0})
  ROOT g = s32[2] gather(operand, indices), offset_dims={}, collapsed_slice_dims={0},
    start_index_map={0}, index_vector_dim=1, slice_sizes={1}
})");
  EXPECT_THAT(std::string(wrong_shape.status().message()),
              HasSubstr("its shape s32[2] is not the gather's s32[1]"));
  std::string wrong_parameters = ScatterModule("  ROOT r = f32[] add(p0, p1)");
  wrong_parameters.replace(wrong_parameters.find("p1 = f32[]"), 10, "p1 = s32[]");
  wrong_parameters.replace(wrong_parameters.find("add(p0, p1)"), 11, "add(p0, p0)");
  auto bad_computation = RunOnOneDevice(wrong_parameters);
  EXPECT_EQ(bad_computation.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(bad_computation.status().message()),
              HasSubstr("has parameter 1 of s32[], not a scalar of f32"));
  auto bad_dims = RunOnOneDevice(R"(HloModule m
ENTRY e {
  operand = s32[3] constant({1, 2, 3})
  indices = s32[1] constant({0})
  ROOT g = s32[1] gather(operand, indices), offset_dims={}, collapsed_slice_dims={0},
    start_index_map={3}, index_vector_dim=1, slice_sizes={1}
})");
  EXPECT_EQ(bad_dims.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_dims.status().message()),
              HasSubstr("interpreter: g (gather): start_index_map={3} has 3, out of [0, 1)"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

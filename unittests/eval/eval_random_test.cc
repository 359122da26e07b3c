// SPDX-License-Identifier: Apache-2.0
// Tests of the interpreter's random-number operations (core/eval/random_ops.cc):
// the ciphers against Random123's published known answers, rng-bit-generator's
// layout of blocks and its new state as XLA's expander defines them, the
// deterministic rng and rng-get-and-update-state.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/eval/random_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hopt/eval/evaluator.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/module.h"
#include "hopt/ir/shape.h"
#include "unittests/eval/array_test_util.h"
#include "unittests/test_util.h"

namespace hopt {
namespace eval {
namespace {

using array_testing::Ints;
using array_testing::RunParameterless;
using array_testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr PrimitiveType U64 = PrimitiveType::U64;

using Words2 = std::array<uint32_t, 2>;
using Words4 = std::array<uint32_t, 4>;

Literal State(std::vector<uint64_t> words) {
  Literal state(Shape(U64, {static_cast<int64_t>(words.size())}));
  for (size_t k = 0; k < words.size(); ++k)
    state.SetFromInt64(static_cast<int64_t>(k), static_cast<int64_t>(words[k]));
  return state;
}

std::vector<uint64_t> Words(const Literal& literal) {
  std::vector<uint64_t> words;
  for (int64_t k = 0; k < literal.element_count(); ++k)
    words.push_back(static_cast<uint64_t>(literal.GetAsInt64(k)));
  return words;
}

Shape ResultShape(int64_t state_words, PrimitiveType type, std::vector<int64_t> dims) {
  return Shape::MakeTuple({Shape(U64, {state_words}), Shape(type, dims)});
}

// ---------------------------------------------------------------------------
// The ciphers: Random123's tests/kat_vectors.

TEST(RandomCipherTest, Threefry2x32MatchesRandom123KnownAnswers) {
  EXPECT_EQ(Threefry2x32({0, 0}, {0, 0}), (Words2{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(Threefry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Words2{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(Threefry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
            (Words2{0xc4923a9c, 0x483df7a0}));
}

TEST(RandomCipherTest, Philox4x32MatchesRandom123KnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (Words4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Words4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Words4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// ---------------------------------------------------------------------------
// rng-bit-generator, Threefry

TEST(RngBitGeneratorTest, ThreefryU32MatchesAnXlaCpuRun) {
  // XLA's CPU backend (through PJRT, in the anvil R package's documentation)
  // gives, for state {0, 0} and u32[3,2]: 1.7973e9 2.5791e9 / 1.3515e9
  // 3.2358e9 / 1.6886e9 4.2293e9 and the state {0, 3}. Dimension 1 is the
  // first even one, so row r is the block of counter r; counter 0 with key
  // 0 is Random123's all-zero known answer.
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({0, 0}),
                                ResultShape(2, PrimitiveType::U32, {3, 2}));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(0, 3));
  EXPECT_THAT(Words(result->tuple_elements()[1]),
              ElementsAre(0x6b200159, 0x99ba4efe, 1351547692, 3235790642, 1688610540, 4229293427));
  Words2 block1 = Threefry2x32({1, 0}, {0, 0});
  EXPECT_EQ(block1, (Words2{1351547692, 3235790642}));
}

TEST(RngBitGeneratorTest, ThreefrySplitsTheFirstEvenDimension) {
  // u32[2,3]: dimension 0 is even, so the half shape is [1,3]: element (i, j)
  // is word i of the block of counter 10 + j.
  const RngKey key = {0x01234567, 0x89abcdef};
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({0x89abcdef01234567, 10}),
                                ResultShape(2, PrimitiveType::U32, {2, 3}));
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<uint64_t> expected(6);
  for (uint32_t j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i) expected[i * 3 + j] = Threefry2x32({10 + j, 0}, key)[i];
  EXPECT_EQ(Words(result->tuple_elements()[1]), expected);
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(0x89abcdef01234567, 13));
}

TEST(RngBitGeneratorTest, ThreefryWithoutAnEvenDimensionSplitsTheLargest) {
  // u32[3,5]: no even dimension; the largest is 1 (5, rounded up to 6):
  // element (i, j) is word j % 2 of block i * 3 + j / 2; 9 blocks.
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({7, 0}),
                                ResultShape(2, PrimitiveType::U32, {3, 5}));
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<uint64_t> expected;
  for (uint32_t i = 0; i < 3; ++i)
    for (uint32_t j = 0; j < 5; ++j)
      expected.push_back(Threefry2x32({i * 3 + j / 2, 0}, {7, 0})[j % 2]);
  EXPECT_EQ(Words(result->tuple_elements()[1]), expected);
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(7, 9));
}

TEST(RngBitGeneratorTest, ThreefryScalarAndEmpty) {
  // A scalar takes word 0 of one block (XLA's expander test: state + 1).
  auto scalar = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({9, 10}),
                                ResultShape(2, PrimitiveType::U32, {}));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_THAT(Words(scalar->tuple_elements()[1]), ElementsAre(Threefry2x32({10, 0}, {9, 0})[0]));
  EXPECT_THAT(Words(scalar->tuple_elements()[0]), ElementsAre(9, 11));
  // No elements, no blocks: the state stays.
  auto empty = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({9, 10}),
                               ResultShape(2, PrimitiveType::U32, {0, 3}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->tuple_elements()[1].element_count(), 0);
  EXPECT_THAT(Words(empty->tuple_elements()[0]), ElementsAre(9, 10));
}

TEST(RngBitGeneratorTest, ThreefryU64JoinsBothWordsOfABlockPerElement) {
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({3, 0xffffffffffffffff}),
                                ResultShape(2, U64, {3}));
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<uint64_t> expected;
  for (uint64_t k = 0; k < 3; ++k) {
    uint64_t counter = 0xffffffffffffffff + k;  // wraps: a 64-bit counter
    Words2 x = Threefry2x32({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32)},
                            {3, 0});
    expected.push_back(x[0] | (uint64_t{x[1]} << 32));
  }
  EXPECT_EQ(Words(result->tuple_elements()[1]), expected);
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(3, 2));
}

TEST(RngBitGeneratorTest, NarrowTypesTakeTheLowBitsOfThe32BitWords) {
  auto wide = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({5, 6}),
                              ResultShape(2, PrimitiveType::U32, {4}));
  auto narrow = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({5, 6}),
                                ResultShape(2, PrimitiveType::U8, {4}));
  auto signed16 = RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({5, 6}),
                                  ResultShape(2, PrimitiveType::S16, {4}));
  ASSERT_TRUE(wide.ok() && narrow.ok() && signed16.ok());
  std::vector<uint64_t> w = Words(wide->tuple_elements()[1]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(narrow->tuple_elements()[1].GetAsInt64(k), static_cast<int64_t>(w[k] & 0xff));
    EXPECT_EQ(signed16->tuple_elements()[1].GetAsInt64(k),
              static_cast<int16_t>(static_cast<uint16_t>(w[k])));
  }
  EXPECT_EQ(Words(narrow->tuple_elements()[0]), Words(wide->tuple_elements()[0]));
}

TEST(RngBitGeneratorTest, FloatBitsAreTheUnsignedBitsReinterpreted) {
  auto bits = RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({5, 6}),
                              ResultShape(2, PrimitiveType::U32, {4}));
  auto floats = RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({5, 6}),
                                ResultShape(2, PrimitiveType::F32, {4}));
  ASSERT_TRUE(bits.ok() && floats.ok());
  for (int k = 0; k < 4; ++k) {
    uint32_t word = static_cast<uint32_t>(bits->tuple_elements()[1].GetAsInt64(k));
    float expected;
    std::memcpy(&expected, &word, sizeof word);
    double got = floats->tuple_elements()[1].GetAsDouble(k);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(got));
    else
      EXPECT_EQ(got, static_cast<double>(expected));
  }
}

// ---------------------------------------------------------------------------
// rng-bit-generator, Philox

TEST(RngBitGeneratorTest, PhiloxU32TakesTheFourWordsOfEachBlockInTurn) {
  // u64[3] state: key, then the 128-bit counter low and high.
  const uint64_t key = 0x299f31d0a4093822;
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({key, 100, 7}),
                                ResultShape(3, PrimitiveType::U32, {2, 3}));
  ASSERT_TRUE(result.ok()) << result.status();
  Words4 b0 = Philox4x32({100, 0, 7, 0}, {0xa4093822, 0x299f31d0});
  Words4 b1 = Philox4x32({101, 0, 7, 0}, {0xa4093822, 0x299f31d0});
  EXPECT_THAT(Words(result->tuple_elements()[1]),
              ElementsAre(b0[0], b0[1], b0[2], b0[3], b1[0], b1[1]));
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(key, 102, 7));
}

TEST(RngBitGeneratorTest, PhiloxCounterCarriesIntoTheHighWord) {
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({0, 0xffffffffffffffff, 7}),
                                ResultShape(3, PrimitiveType::U32, {5}));
  ASSERT_TRUE(result.ok()) << result.status();
  Words4 b1 = Philox4x32({0, 0, 8, 0}, {0, 0});  // counter 0xffff...ff + 1
  EXPECT_EQ(static_cast<uint32_t>(result->tuple_elements()[1].GetAsInt64(4)), b1[0]);
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(0, 1, 8));
}

TEST(RngBitGeneratorTest, PhiloxWithTwoWordsCountsFromWord1LowAndWord0High) {
  // u64[2]: the state is reversed into the counter (word 1 low, word 0
  // high); the new state keeps the key and the counter's low word.
  const uint64_t key = 0x0000000500000004;
  auto result = RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({key, 0xfffffffffffffffe}),
                                ResultShape(2, U64, {3}));
  ASSERT_TRUE(result.ok()) << result.status();
  // 64-bit elements: words 0|1 then 2|3 of each block.
  Words4 b0 = Philox4x32({0xfffffffe, 0xffffffff, 4, 5}, {4, 5});
  Words4 b1 = Philox4x32({0xffffffff, 0xffffffff, 4, 5}, {4, 5});
  EXPECT_THAT(Words(result->tuple_elements()[1]),
              ElementsAre(b0[0] | (uint64_t{b0[1]} << 32), b0[2] | (uint64_t{b0[3]} << 32),
                          b1[0] | (uint64_t{b1[1]} << 32)));
  EXPECT_THAT(Words(result->tuple_elements()[0]), ElementsAre(key, 0));
}

TEST(RngBitGeneratorTest, DefaultIsPhilox) {
  EXPECT_EQ(ParseBitGeneratorAlgorithm("rng_default"), BitGeneratorAlgorithm::kPhilox);
  EXPECT_EQ(ParseBitGeneratorAlgorithm("rng_philox"), BitGeneratorAlgorithm::kPhilox);
  EXPECT_EQ(ParseBitGeneratorAlgorithm("rng_three_fry"), BitGeneratorAlgorithm::kThreeFry);
  EXPECT_EQ(ParseBitGeneratorAlgorithm("rng_mersenne"), std::nullopt);
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  s = u64[2] constant({1, 2})
  d = (u64[2], u32[7]) rng-bit-generator(s), algorithm=rng_default
  p = (u64[2], u32[7]) rng-bit-generator(s), algorithm=rng_philox
  ROOT t = ((u64[2], u32[7]), (u64[2], u32[7])) tuple(d, p)
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const auto& pair = (*outputs)[0].tuple_elements();
  EXPECT_EQ(pair[0], pair[1]);
  EXPECT_THAT(Words(pair[0].tuple_elements()[0]), ElementsAre(1, 4));
}

TEST(RngBitGeneratorTest, RefusesMalformedStatesAndTypes) {
  EXPECT_INVALID(RngBitGenerator(BitGeneratorAlgorithm::kThreeFry, State({1, 2, 3}),
                                 ResultShape(3, PrimitiveType::U32, {4})),
                 "Threefry takes a u64[2] state");
  EXPECT_INVALID(RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({1, 2, 3, 4}),
                                 ResultShape(4, PrimitiveType::U32, {4})),
                 "Philox takes a u64[2] or u64[3] state");
  EXPECT_INVALID(RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({1, 2}),
                                 ResultShape(2, PrimitiveType::PRED, {4})),
                 "integer or floating-point");
  EXPECT_INVALID(RngBitGenerator(BitGeneratorAlgorithm::kPhilox, State({1, 2}),
                                 ResultShape(3, PrimitiveType::U32, {4})),
                 "the result must be (u64[2], bits)");
  Literal s32_state(Shape(PrimitiveType::S32, {2}));
  EXPECT_INVALID(RngBitGenerator(BitGeneratorAlgorithm::kPhilox, s32_state,
                                 ResultShape(2, PrimitiveType::U32, {4})),
                 "the state must be u64[2] or u64[3]");
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  s = u64[2] constant({1, 2})
  ROOT d = (u64[2], u32[7]) rng-bit-generator(s), algorithm=rng_mystery
})");
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(outputs.status().message()), HasSubstr("unknown algorithm=rng_mystery"));
}

// ---------------------------------------------------------------------------
// rng

constexpr char kUniformF32[] = R"(HloModule m
ENTRY e {
  a = f32[] constant(1)
  b = f32[] constant(2)
  r = f32[4000] rng(a, b), distribution=rng_uniform
  r2 = f32[4000] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[4000], f32[4000]) tuple(r, r2)
})";

TEST(RngTest, UniformFloatsAreInRangeAndDeterministic) {
  auto first = RunParameterless(kUniformF32, 2);
  auto second = RunParameterless(kUniformF32, 2);
  ASSERT_TRUE(first.ok() && second.ok()) << first.status() << second.status();
  // The same run again: the same numbers on every device.
  EXPECT_EQ((*first)[0], (*second)[0]);
  EXPECT_EQ((*first)[1], (*second)[1]);
  const Literal& r = (*first)[0].tuple_elements()[0];
  // Another instruction, another device: other numbers.
  EXPECT_FALSE(r == (*first)[0].tuple_elements()[1]);
  EXPECT_FALSE(r == (*first)[1].tuple_elements()[0]);
  double sum = 0;
  for (double v : Values(r)) {
    EXPECT_GE(v, 1.0);
    EXPECT_LT(v, 2.0);
    sum += v;
  }
  // 4000 draws of variance 1/12: the mean is within 0.02 of 1.5 (4.4 sigma).
  EXPECT_NEAR(sum / 4000, 1.5, 0.02);
}

TEST(RngTest, UniformIntegersCoverTheHalfOpenRange) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  a = s32[] constant(-3)
  b = s32[] constant(4)
  r = s32[700] rng(a, b), distribution=rng_uniform
  lo = u64[] constant(18446744073709551610)
  hi = u64[] constant(18446744073709551615)
  u = u64[200] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[700], u64[200]) tuple(r, u)
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  std::map<int64_t, int> counts;
  for (int64_t v : Ints((*outputs)[0].tuple_elements()[0])) ++counts[v];
  ASSERT_EQ(counts.size(), 7u);
  EXPECT_EQ(counts.begin()->first, -3);
  EXPECT_EQ(counts.rbegin()->first, 3);
  for (const auto& [value, count] : counts) EXPECT_GT(count, 50) << value;  // 100 expected
  std::set<uint64_t> big;
  for (uint64_t v : Words((*outputs)[0].tuple_elements()[1])) {
    EXPECT_GE(v, 18446744073709551610ull);
    EXPECT_LT(v, 18446744073709551615ull);
    big.insert(v);
  }
  EXPECT_EQ(big.size(), 5u);
}

TEST(RngTest, NormalHasTheMeanAndStandardDeviation) {
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  mean = f64[] constant(5)
  sd = f64[] constant(2)
  ROOT r = f64[20000] rng(mean, sd), distribution=rng_normal
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  double sum = 0, squares = 0;
  std::vector<double> values = Values((*outputs)[0]);
  for (double v : values) sum += v;
  double mean = sum / values.size();
  for (double v : values) squares += (v - mean) * (v - mean);
  // Standard errors: 0.014 for the mean, 0.01 for the deviation.
  EXPECT_NEAR(mean, 5.0, 0.07);
  EXPECT_NEAR(std::sqrt(squares / values.size()), 2.0, 0.05);
}

TEST(RngTest, RoundingToTheUpperBoundIsDrawnAgain) {
  // [1, 1 + 2^-7) in bf16 holds only 1: every draw that rounds up to the
  // bound is drawn again.
  Literal a = array_testing::Scalar(PrimitiveType::BF16, 1.0);
  Literal b = array_testing::Scalar(PrimitiveType::BF16, 1.0078125);
  auto r = Rng(RngDistribution::kUniform, a, b, Shape(PrimitiveType::BF16, {64}), 42);
  ASSERT_TRUE(r.ok()) << r.status();
  for (double v : Values(*r)) EXPECT_EQ(v, 1.0);
}

TEST(RngTest, EachIterationOfALoopDrawsAgain) {
  auto outputs = RunParameterless(R"(HloModule m
cond {
  s = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}
body {
  s = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  prev = f32[2] get-tuple-element(s), index=2
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[2] rng(a, b), distribution=rng_uniform
  ROOT t = (s32[], f32[2], f32[2]) tuple(next, prev, r)
}
ENTRY e {
  zero = s32[] constant(0)
  z = f32[2] constant({0, 0})
  init = (s32[], f32[2], f32[2]) tuple(zero, z, z)
  ROOT w = (s32[], f32[2], f32[2]) while(init), condition=cond, body=body
})");
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const auto& state = (*outputs)[0].tuple_elements();
  EXPECT_FALSE(state[1] == state[2]);  // iteration 0's and iteration 1's draws
}

TEST(RngTest, SeedDependsOnEachInput) {
  uint64_t base = RngSeed("r", 0, 0, 0);
  EXPECT_EQ(base, RngSeed("r", 0, 0, 0));
  EXPECT_NE(base, RngSeed("r2", 0, 0, 0));
  EXPECT_NE(base, RngSeed("r", 1, 0, 0));
  EXPECT_NE(base, RngSeed("r", 0, 1, 0));
  EXPECT_NE(base, RngSeed("r", 0, 0, 1));
  EXPECT_NE(RngSeed("r", 1, 0, 0), RngSeed("r", 0, 1, 0));
}

TEST(RngTest, RefusesEmptyRangesAndWrongTypes) {
  using array_testing::Scalar;
  const Shape f32x4(PrimitiveType::F32, {4});
  EXPECT_INVALID(Rng(RngDistribution::kUniform, Scalar(PrimitiveType::F32, 2),
                     Scalar(PrimitiveType::F32, 2), f32x4, 1),
                 "finite bounds a < b");
  EXPECT_INVALID(Rng(RngDistribution::kUniform, Scalar(PrimitiveType::F32, 0),
                     Scalar(PrimitiveType::F32, INFINITY), f32x4, 1),
                 "finite bounds a < b");
  EXPECT_INVALID(Rng(RngDistribution::kUniform, Scalar(PrimitiveType::S32, 5),
                     Scalar(PrimitiveType::S32, -5), Shape(PrimitiveType::S32, {4}), 1),
                 "needs a < b");
  EXPECT_INVALID(Rng(RngDistribution::kNormal, Scalar(PrimitiveType::S32, 0),
                     Scalar(PrimitiveType::S32, 1), Shape(PrimitiveType::S32, {4}), 1),
                 "rng_normal needs a floating-point type");
  EXPECT_INVALID(Rng(RngDistribution::kUniform, Scalar(PrimitiveType::F64, 0),
                     Scalar(PrimitiveType::F64, 1), f32x4, 1),
                 "scalars of the result's type f32");
  EXPECT_INVALID(Rng(RngDistribution::kUniform, Scalar(PrimitiveType::C64, 0),
                     Scalar(PrimitiveType::C64, 1), Shape(PrimitiveType::C64, {4}), 1),
                 "integer or floating-point");
}

// ---------------------------------------------------------------------------
// rng-get-and-update-state

TEST(RngGetAndUpdateStateTest, EachDeviceCountsFromXlaCpusInitialState) {
  // Three calls of delta 2^63 - 1: the third returns 0x7012395 + 2^64 - 2,
  // which carries into the high word.
  auto outputs = RunParameterless(R"(HloModule m
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=9223372036854775807
  b = u64[2] rng-get-and-update-state(), delta=9223372036854775807, control-predecessors={a}
  c = u64[2] rng-get-and-update-state(), delta=1, control-predecessors={b}
  ROOT t = (u64[2], u64[2], u64[2]) tuple(a, b, c)
})",
                                  2);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  for (const Literal& device : *outputs) {
    const auto& t = device.tuple_elements();
    EXPECT_THAT(Words(t[0]), ElementsAre(0x7012395, 0));
    EXPECT_THAT(Words(t[1]), ElementsAre(0x7012395ULL + 0x7fffffffffffffffULL, 0));
    EXPECT_THAT(Words(t[2]), ElementsAre(0x7012393, 1));
  }
  EXPECT_THAT(Words(RngStateValue((static_cast<unsigned __int128>(5) << 64) | 6)),
              ElementsAre(6, 5));
}

TEST(RngGetAndUpdateStateTest, RefusesAnotherShapeOrAMissingDelta) {
  auto wrong_shape = RunParameterless(R"(HloModule m
ENTRY e {
  ROOT a = u64[3] rng-get-and-update-state(), delta=1
})");
  EXPECT_EQ(wrong_shape.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(wrong_shape.status().message()), HasSubstr("must be u64[2]"));
}

}  // namespace
}  // namespace eval
}  // namespace hopt

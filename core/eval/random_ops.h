// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_RANDOM_OPS_H_
#define HOPT_CORE_EVAL_RANDOM_OPS_H_

// The random-number operations of the interpreter as functions on literals
// (internal, not installed): rng-bit-generator bit for bit as XLA's CPU
// backend expands it, a deterministic rng, and the value
// rng-get-and-update-state returns. docs/interpreter-semantics.md, "Random numbers".

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

using RngKey = std::array<uint32_t, 2>;

// Threefry-2x32 with 20 rounds (Salmon et al., SC 2011; Random123's
// threefry2x32_20), the rounds XLA's prng library runs.
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, RngKey key);

// Philox-4x32 with 10 rounds (Random123's philox4x32_10).
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, RngKey key);

enum class BitGeneratorAlgorithm { kThreeFry, kPhilox };

// `algorithm=` of rng-bit-generator: rng_three_fry, rng_philox, or
// rng_default, which is Philox as on XLA's CPU backend. nullopt otherwise.
std::optional<BitGeneratorAlgorithm> ParseBitGeneratorAlgorithm(absl::string_view text);

// rng-bit-generator: the tuple (new state, bits) for a result of
// `result_shape` = (state shape, bits shape). The state is u64[2] for
// Threefry, u64[2] or u64[3] for Philox; the bits are any integer or
// floating-point type but pred, filled with the bits the unsigned type of
// that width gets.
absl::StatusOr<Literal> RngBitGenerator(BitGeneratorAlgorithm algorithm, const Literal& state,
                                        const Shape& result_shape);

enum class RngDistribution { kUniform, kNormal };

// `distribution=` of rng: rng_uniform or rng_normal.
std::optional<RngDistribution> ParseRngDistribution(absl::string_view text);

// rng of `shape` from the scalars `a` and `b` (the result's element type):
// uniform in [a, b) (integers and floats), or normal with mean a and
// standard deviation b (floats). The values are a function of `seed` only.
absl::StatusOr<Literal> Rng(RngDistribution distribution, const Literal& a, const Literal& b,
                            const Shape& shape, uint64_t seed);

// The seed of one execution of an rng instruction: a hash of the
// instruction's name, the device's replica and partition ids and how many
// times the device ran the instruction before.
uint64_t RngSeed(absl::string_view instruction_name, int64_t replica, int64_t partition,
                 int64_t execution);

// rng-get-and-update-state's result for the 128-bit state `state`: u64[2]
// {low word, high word}.
Literal RngStateValue(unsigned __int128 state);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_RANDOM_OPS_H_

// SPDX-License-Identifier: Apache-2.0

#include "core/eval/random_ops.h"

// The interpreter's rng, rng-bit-generator and rng-get-and-update-state
// (docs/interpreter-semantics.md, "Random numbers").
//
// rng-bit-generator follows XLA's RngBitGeneratorExpander and prng library
// (facts only): the state's word 0 is the key; Threefry counts from word 1
// as a 64-bit counter, Philox from a 128-bit counter (words 1 and 2 of a
// u64[3] state; word 1 low and word 0 high of a u64[2] one). Each counter
// value is one block of the cipher, whose words fill the output as
// described at ThreefryWords and PhiloxWords; the new state is the counter
// after the last block used.

#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ops.h"
#include "core/ir/float_bits.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

using u128 = unsigned __int128;

uint32_t RotateLeft(uint32_t v, int distance) { return (v << distance) | (v >> (32 - distance)); }

uint32_t Low32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t High32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t Join32(uint32_t low, uint32_t high) { return low | (static_cast<uint64_t>(high) << 32); }

RngKey KeyOf(uint64_t word) { return {Low32(word), High32(word)}; }

uint64_t Word(const Literal& literal, int64_t i) {
  return static_cast<uint64_t>(literal.GetAsInt64(i));
}

// Element `i` of `out` gets the low PrimitiveTypeBitWidth bits of `bits`,
// reinterpreted as its element type.
void StoreBits(Literal& out, int64_t i, uint64_t bits) {
  PrimitiveType type = out.shape().element_type();
  if (IsFloatingPointType(type))
    out.SetFromDouble(i, DecodeFloatBits(bits, type));
  else
    out.SetFromInt64(i, static_cast<int64_t>(bits));  // wraps to the type's width
}

// XLA's 32-bit Threefry output: the shape is split in two along one
// dimension (the first of even size, else the first of the largest size,
// rounded up to even); block b of the half shape (row-major) gives the
// words for index 2j and 2j+1 of that dimension. A scalar takes word 0 of
// block 0. Returns the blocks used; calls word(element, block, which).
template <typename WordFn>
int64_t ThreefryWords(const Shape& shape, WordFn word) {
  const DimensionVector& dims = shape.dimensions();
  if (dims.empty()) {
    word(0, 0, 0);
    return 1;
  }
  size_t split = dims.size();
  for (size_t d = 0; d < dims.size() && split == dims.size(); ++d)
    if (dims[d] % 2 == 0) split = d;
  if (split == dims.size()) {
    split = 0;
    for (size_t d = 1; d < dims.size(); ++d)
      if (dims[d] > dims[split]) split = d;
  }
  const int64_t inner = ProductOf(dims, split + 1, dims.size());
  const int64_t size = dims[split], half = (size + 1) / 2;
  const int64_t n = shape.ElementCount();
  for (int64_t k = 0; k < n; ++k) {
    int64_t outer = k / (size * inner), j = (k / inner) % size, rest = k % inner;
    word(k, (outer * half + j / 2) * inner + rest, static_cast<int>(j % 2));
  }
  return ProductOf(dims, 0, split) * half * inner;
}

absl::StatusOr<int> CheckStateSize(BitGeneratorAlgorithm algorithm, const Literal& state,
                                   const Shape& result_shape) {
  constexpr absl::string_view op = "rng-bit-generator";
  const Shape& s = state.shape();
  if (!s.IsArray() || s.element_type() != PrimitiveType::U64 || s.rank() != 1)
    return OperationError(op,
                          absl::StrCat("the state must be u64[2] or u64[3], got ", s.ToString()));
  if (state.is_elided())
    return OperationError(op,
                          absl::StrCat("the state ", s.ToString(), " has elided (unknown) values"));
  const int64_t words = s.dimensions(0);
  bool threefry = algorithm == BitGeneratorAlgorithm::kThreeFry;
  if (threefry ? words != 2 : (words != 2 && words != 3))
    return OperationError(op, absl::StrCat(threefry ? "Threefry takes a u64[2] state"
                                                    : "Philox takes a u64[2] or u64[3] state",
                                           ", got ", s.ToString()));
  if (!result_shape.IsTuple() || result_shape.tuple_shapes_size() != 2 ||
      !result_shape.tuple_shapes(0).IsArray() ||
      result_shape.tuple_shapes(0).element_type() != PrimitiveType::U64 ||
      result_shape.tuple_shapes(0).dimensions() != s.dimensions())
    return OperationError(op, absl::StrCat("the result must be (", s.ToString(false),
                                           ", bits), got ", result_shape.ToString()));
  const Shape& bits = result_shape.tuple_shapes(1);
  PrimitiveType type = bits.element_type();
  if (!bits.IsArray() || type == PrimitiveType::PRED || IsComplexType(type))
    return OperationError(
        op,
        absl::StrCat("the bits must be an integer or floating-point array, got ", bits.ToString()));
  for (int64_t d : bits.dimensions())
    if (d < 0)
      return OperationError(op, absl::StrCat("the bits ", bits.ToString(), " are unbounded"));
  return static_cast<int>(words);
}

// XLA's Philox output: 32-bit and narrower elements take the words of
// block k/4 in turn (word k%4); 64-bit ones take words 0|1 or 2|3 of
// block k/2. Returns the blocks used.
template <typename WordFn>
int64_t PhiloxWords(int64_t n, int width, WordFn word) {
  const int per_block = width == 64 ? 2 : 4;
  for (int64_t k = 0; k < n; ++k) word(k, k / per_block, static_cast<int>(k % per_block));
  return (n + per_block - 1) / per_block;
}

// A stream of 64-bit words: Philox4x32 keyed by `seed`, counters 0, 1, 2...
class WordStream {
 public:
  explicit WordStream(uint64_t seed) : key_(KeyOf(seed)) {}
  uint64_t Next() {
    if (next_ == 2) {
      block_ = Philox4x32({Low32(counter_), High32(counter_), 0, 0}, key_);
      ++counter_;
      next_ = 0;
    }
    int at = 2 * next_++;
    return Join32(block_[at], block_[at + 1]);
  }
  // In [0, 1), 53 random bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1p-53; }

 private:
  RngKey key_;
  uint64_t counter_ = 0;
  std::array<uint32_t, 4> block_{};
  int next_ = 2;
};

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform integers in [a, b) (as unsigned values when the type is
// unsigned or pred), without modulo bias: words below 2^64 mod range are
// drawn again.
void UniformIntegers(const Literal& a, const Literal& b, WordStream& stream, Literal& out) {
  const uint64_t low = Word(a, 0);
  const uint64_t range = Word(b, 0) - low;
  const uint64_t reject_below = (0 - range) % range;
  for (int64_t k = 0; k < out.element_count(); ++k) {
    uint64_t x = stream.Next();
    while (x < reject_below) x = stream.Next();
    out.SetFromInt64(k, static_cast<int64_t>(low + x % range));
  }
}

// Uniform floats in [a, b): a + (b - a) * u rounded to the type, drawn
// again when rounding reaches b.
void UniformFloats(double a, double b, WordStream& stream, Literal& out) {
  PrimitiveType type = out.shape().element_type();
  const bool span_finite = std::isfinite(b - a);
  for (int64_t k = 0; k < out.element_count(); ++k) {
    double value = a;
    // With a < b in the type, a value rounding to b is at most as likely
    // as one rounding to a, so 64 draws all failing cannot happen by chance.
    for (int attempt = 0; attempt < 64; ++attempt) {
      double u = stream.Unit();
      double v = RoundToFloatType(span_finite ? a + (b - a) * u : a * (1 - u) + b * u, type);
      if (v >= a && v < b) {
        value = v;
        break;
      }
    }
    out.SetFromDouble(k, value);
  }
}

constexpr double kTwoPi = 6.283185307179586;

// Normal values: Box-Muller on two uniform draws per element.
void NormalFloats(double mean, double stddev, WordStream& stream, Literal& out) {
  for (int64_t k = 0; k < out.element_count(); ++k) {
    double u1 = 1.0 - stream.Unit();  // (0, 1]: log stays finite
    double u2 = stream.Unit();
    double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
    out.SetFromDouble(k, mean + stddev * z);
  }
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, RngKey key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0], x1 = counter[1] + ks[1];
  for (uint32_t group = 1; group <= 5; ++group) {
    const int* rotations = (group % 2 == 1) ? kRotations : kRotations + 4;
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = RotateLeft(x1, rotations[r]) ^ x0;
    }
    x0 += ks[group % 3];
    x1 += ks[(group + 1) % 3] + group;
  }
  return {x0, x1};
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, RngKey key) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(x[0]) * 0xD2511F53u;
    uint64_t p1 = static_cast<uint64_t>(x[2]) * 0xCD9E8D57u;
    x = {High32(p1) ^ x[1] ^ key[0], Low32(p1), High32(p0) ^ x[3] ^ key[1], Low32(p0)};
    key = {key[0] + 0x9E3779B9u, key[1] + 0xBB67AE85u};
  }
  return x;
}

std::optional<BitGeneratorAlgorithm> ParseBitGeneratorAlgorithm(absl::string_view text) {
  if (text == "rng_three_fry") return BitGeneratorAlgorithm::kThreeFry;
  if (text == "rng_philox" || text == "rng_default") return BitGeneratorAlgorithm::kPhilox;
  return std::nullopt;
}

absl::StatusOr<Literal> RngBitGenerator(BitGeneratorAlgorithm algorithm, const Literal& state,
                                        const Shape& result_shape) {
  HOPT_ASSIGN_OR_RETURN(int words, CheckStateSize(algorithm, state, result_shape));
  Literal result(result_shape);
  Literal& new_state = result.mutable_tuple_elements()[0];
  Literal& bits = result.mutable_tuple_elements()[1];
  const int width = PrimitiveTypeBitWidth(bits.shape().element_type());
  const uint64_t key_word = Word(state, 0);
  const RngKey key = KeyOf(key_word);
  new_state.SetFromInt64(0, static_cast<int64_t>(key_word));

  if (algorithm == BitGeneratorAlgorithm::kThreeFry) {
    const uint64_t counter = Word(state, 1);
    auto block = [&](int64_t b) {
      uint64_t c = counter + static_cast<uint64_t>(b);
      return Threefry2x32({Low32(c), High32(c)}, key);
    };
    int64_t blocks;
    if (width == 64) {
      // One block per element, its two words joined.
      blocks = bits.element_count();
      for (int64_t k = 0; k < blocks; ++k) {
        auto x = block(k);
        StoreBits(bits, k, Join32(x[0], x[1]));
      }
    } else {
      blocks = ThreefryWords(bits.shape(), [&](int64_t k, int64_t b, int which) {
        StoreBits(bits, k, block(b)[which]);
      });
    }
    new_state.SetFromInt64(1, static_cast<int64_t>(counter + static_cast<uint64_t>(blocks)));
    return result;
  }

  const u128 counter = words == 3 ? Word(state, 1) | (static_cast<u128>(Word(state, 2)) << 64)
                                  : Word(state, 1) | (static_cast<u128>(key_word) << 64);
  auto block = [&](int64_t b) {
    u128 c = counter + static_cast<u128>(b);
    uint64_t low = static_cast<uint64_t>(c), high = static_cast<uint64_t>(c >> 64);
    return Philox4x32({Low32(low), High32(low), Low32(high), High32(high)}, key);
  };
  // Consecutive elements share a block: compute each block once.
  int64_t cached = -1;
  std::array<uint32_t, 4> x{};
  int64_t blocks = PhiloxWords(bits.element_count(), width, [&](int64_t k, int64_t b, int which) {
    if (b != cached) x = block(cached = b);
    StoreBits(bits, k, width == 64 ? Join32(x[2 * which], x[2 * which + 1]) : x[which]);
  });
  u128 next = counter + static_cast<u128>(blocks);
  new_state.SetFromInt64(1, static_cast<int64_t>(static_cast<uint64_t>(next)));
  if (words == 3)
    new_state.SetFromInt64(2, static_cast<int64_t>(static_cast<uint64_t>(next >> 64)));
  return result;
}

std::optional<RngDistribution> ParseRngDistribution(absl::string_view text) {
  if (text == "rng_uniform") return RngDistribution::kUniform;
  if (text == "rng_normal") return RngDistribution::kNormal;
  return std::nullopt;
}

absl::StatusOr<Literal> Rng(RngDistribution distribution, const Literal& a, const Literal& b,
                            const Shape& shape, uint64_t seed) {
  constexpr absl::string_view op = "rng";
  const PrimitiveType type = shape.element_type();
  if (!shape.IsArray() || IsComplexType(type))
    return OperationError(
        op, absl::StrCat("the result must be an integer or floating-point array, got ",
                         shape.ToString()));
  for (int64_t d : shape.dimensions())
    if (d < 0)
      return OperationError(op, absl::StrCat("the result ", shape.ToString(), " is unbounded"));
  for (const Literal* operand : {&a, &b}) {
    const Shape& s = operand->shape();
    if (!s.IsScalar() || s.element_type() != type || operand->is_elided())
      return OperationError(op,
                            absl::StrCat("the operands must be known scalars of the result's type ",
                                         PrimitiveTypeString(type), ", got ", s.ToString()));
  }
  Literal out(shape);
  WordStream stream(seed);
  if (distribution == RngDistribution::kNormal) {
    if (!IsFloatingPointType(type))
      return OperationError(op, absl::StrCat("rng_normal needs a floating-point type, got ",
                                             PrimitiveTypeString(type)));
    NormalFloats(a.GetAsDouble(0), b.GetAsDouble(0), stream, out);
    return out;
  }
  if (IsFloatingPointType(type)) {
    double low = a.GetAsDouble(0), high = b.GetAsDouble(0);
    if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
      return OperationError(op, absl::StrCat("rng_uniform needs finite bounds a < b, got [",
                                             a.ToText(), ", ", b.ToText(), ")"));
    UniformFloats(low, high, stream, out);
    return out;
  }
  const bool is_signed = IsSignedIntegralType(type);
  const bool ordered = is_signed ? a.GetAsInt64(0) < b.GetAsInt64(0) : Word(a, 0) < Word(b, 0);
  if (!ordered)
    return OperationError(
        op, absl::StrCat("rng_uniform needs a < b, got [", a.ToText(), ", ", b.ToText(), ")"));
  UniformIntegers(a, b, stream, out);
  return out;
}

uint64_t RngSeed(absl::string_view instruction_name, int64_t replica, int64_t partition,
                 int64_t execution) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : instruction_name) h = (h ^ c) * 0x100000001B3ull;
  for (int64_t v : {replica, partition, execution}) h = SplitMix64(h ^ static_cast<uint64_t>(v));
  return h;
}

Literal RngStateValue(u128 state) {
  Literal value(Shape(PrimitiveType::U64, {2}));
  value.SetFromInt64(0, static_cast<int64_t>(static_cast<uint64_t>(state)));
  value.SetFromInt64(1, static_cast<int64_t>(static_cast<uint64_t>(state >> 64)));
  return value;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateRandomOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  switch (i.opcode()) {
    case HloOpcode::kRngBitGenerator: {
      auto text = i.GetAttributeText("algorithm");
      auto algorithm = ParseBitGeneratorAlgorithm(text.value_or("rng_default"));
      if (!algorithm)
        return UnsupportedInstruction(i,
                                      absl::StrCat("unknown algorithm=", *text,
                                                   " (rng_default, rng_three_fry or rng_philox)"));
      if (ops.size() != 1) return UnsupportedInstruction(i, "takes one operand, the state");
      return RngBitGenerator(*algorithm, *ops[0], i.shape());
    }
    case HloOpcode::kRng: {
      auto text = i.GetAttributeText("distribution");
      auto distribution = text ? ParseRngDistribution(*text) : std::nullopt;
      if (!distribution)
        return UnsupportedInstruction(i, "needs distribution=rng_uniform or rng_normal");
      if (ops.size() != 2) return UnsupportedInstruction(i, "takes two scalar operands");
      uint64_t seed = RngSeed(i.name(), id().replica, id().partition, executions_[&i]++);
      return Rng(*distribution, *ops[0], *ops[1], i.shape(), seed);
    }
    case HloOpcode::kRngGetAndUpdateState: {
      auto delta = i.IntAttribute("delta");
      if (!delta) return UnsupportedInstruction(i, "needs delta=N");
      const Shape& shape = i.shape();
      if (!shape.IsArray() || shape.element_type() != PrimitiveType::U64 ||
          shape.dimensions() != DimensionVector{2})
        return UnsupportedInstruction(
            i, absl::StrCat("the result must be u64[2], got ", shape.ToString()));
      Literal old_state(shape);
      Literal words = RngStateValue(rng_state_);
      for (int64_t k = 0; k < 2; ++k) old_state.CopyElementFrom(words, k, k);
      rng_state_ += static_cast<uint64_t>(*delta);
      return old_state;
    }
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_FUZZ_MODULE_GENERATOR_H_
#define HOPT_FUZZ_MODULE_GENERATOR_H_

// Writes an HLO module from fuzzer bytes by a small grammar, not by
// mutating text: parameters and iotas of odd shapes (rank 0 to 3, zero-
// sized dimensions, f32 bf16 f16 s32 s8 u8 pred; now and then an opaque
// or a token one, copied, or a buffer), then instructions whose
// operands are earlier values of fitting shapes: elementwise, compare,
// select, convert, broadcast, reshape, transpose, slice, reverse, pad,
// concatenate, reduce, dot, sort, dynamic-slice, tuple and
// get-tuple-element, tokens, collectives on the mesh, while loops and
// conditionals. Almost every module it writes verifies; those that do not
// are skipped by the caller.

#include <cstddef>
#include <cstdint>
#include <string>

namespace hopt {
namespace fuzz {

struct GeneratedModule {
  std::string text;
  int64_t replicas = 1;
};

GeneratedModule GenerateModule(const uint8_t* data, size_t size);

}  // namespace fuzz
}  // namespace hopt

#endif  // HOPT_FUZZ_MODULE_GENERATOR_H_

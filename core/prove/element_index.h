// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROVE_ELEMENT_INDEX_H_
#define HOPT_CORE_PROVE_ELEMENT_INDEX_H_

// Row-major element indexing shared by the encoder's files
// (mesh_encoder.cc, mesh_collectives.cc): a SymValue holds its elements in
// row-major order, so every formula that moves data maps an index of the
// result to a linear position in an operand.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/prove/symbolic_value.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace prove {

// "name (opcode): why", the reason a proof is "unknown".
inline absl::Status Unsupported(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(i.name(), " (", i.OpcodeSpelling(), "): ", why));
}

inline std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  return strides;
}

// Calls `f(index, linear)` for every element of `shape` in row-major order.
template <typename F>
absl::Status ForEachIndex(const Shape& shape, F f) {
  int64_t count = shape.ElementCount();
  std::vector<int64_t> index(shape.rank(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    HOPT_RETURN_IF_ERROR(f(index, linear));
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

inline int64_t Linear(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t at = 0;
  for (size_t d = 0; d < index.size(); ++d) at += index[d] * strides[d];
  return at;
}

// A value of `shape` with no elements yet.
inline SymValue ArrayOf(const Shape& shape) {
  SymValue v;
  v.shape = shape;
  return v;
}

}  // namespace prove
}  // namespace hopt

#endif  // HOPT_CORE_PROVE_ELEMENT_INDEX_H_

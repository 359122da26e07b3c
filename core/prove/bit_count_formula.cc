// SPDX-License-Identifier: Apache-2.0

#include "core/prove/bit_count_formula.h"

#include "absl/strings/str_cat.h"

namespace hopt {
namespace prove {

absl::StatusOr<z3::expr> BitCountFormula(Encoder& encoder, HloOpcode opcode, PrimitiveType type,
                                         const z3::expr& x) {
  if ((opcode != HloOpcode::kPopulationCount && opcode != HloOpcode::kClz) ||
      !Encoder::IsInteger(type))
    return absl::UnimplementedError(
        absl::StrCat(HloOpcodeString(opcode), " of ", PrimitiveTypeString(type)));
  z3::context& context = encoder.context();
  const unsigned width = static_cast<unsigned>(Encoder::Width(type));
  auto bit = [&](unsigned b) { return x.extract(b, b) == context.bv_val(1, 1); };
  if (opcode == HloOpcode::kPopulationCount) {
    z3::expr count = context.bv_val(0, width);
    for (unsigned b = 0; b < width; ++b)
      count = count + z3::ite(bit(b), context.bv_val(1, width), context.bv_val(0, width));
    return count;
  }
  // From the lowest bit up, so the highest set bit decides last.
  z3::expr zeros = context.bv_val(width, width);
  for (unsigned b = 0; b < width; ++b)
    zeros = z3::ite(bit(b), context.bv_val(width - 1 - b, width), zeros);
  return zeros;
}

}  // namespace prove
}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_OPCODE_H_
#define HOPT_IR_OPCODE_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace hopt {

enum class HloOpcode : uint8_t {
#define HLO_OPCODE(name, spelling, arity) name,
#include "hopt/ir/opcodes.def"
#undef HLO_OPCODE
};

inline constexpr int kHloOpcodeCount = 0
#define HLO_OPCODE(name, spelling, arity) +1
#include "hopt/ir/opcodes.def"
#undef HLO_OPCODE
    ;

absl::string_view HloOpcodeString(HloOpcode opcode);
std::optional<HloOpcode> StringToHloOpcode(absl::string_view spelling);
// Number of operands the opcode takes, or nullopt when it is variadic.
std::optional<int> HloOpcodeArity(HloOpcode opcode);

bool IsElementwiseUnary(HloOpcode opcode);
bool IsElementwiseBinary(HloOpcode opcode);
bool IsCollective(HloOpcode opcode);

}  // namespace hopt

#endif  // HOPT_IR_OPCODE_H_

// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/opcode.h"

#include "absl/container/flat_hash_map.h"

namespace hopt {
namespace {

struct OpcodeInfo {
  absl::string_view spelling;
  int arity;
};

constexpr OpcodeInfo kOpcodeInfo[] = {
#define HLO_OPCODE(name, spelling, arity) {spelling, arity},
#include "hopt/ir/opcodes.def"
#undef HLO_OPCODE
};

}  // namespace

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].spelling;
}

std::optional<HloOpcode> StringToHloOpcode(absl::string_view spelling) {
  static const auto* const kBySpelling = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i)
      map->emplace(kOpcodeInfo[i].spelling, static_cast<HloOpcode>(i));
    return map;
  }();
  auto it = kBySpelling->find(spelling);
  if (it == kBySpelling->end()) return std::nullopt;
  return it->second;
}

std::optional<int> HloOpcodeArity(HloOpcode opcode) {
  int arity = kOpcodeInfo[static_cast<int>(opcode)].arity;
  if (arity < 0) return std::nullopt;
  return arity;
}

bool IsElementwiseUnary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClz:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kCopy:
    case HloOpcode::kReducePrecision: return true;
    default: return false;
  }
}

bool IsElementwiseBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAtan2:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMulhi:
    case HloOpcode::kMultiply:
    case HloOpcode::kOr:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor: return true;
    default: return false;
  }
}

bool IsCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter: return true;
    default: return false;
  }
}

}  // namespace hopt

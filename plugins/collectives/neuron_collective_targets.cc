// SPDX-License-Identifier: Apache-2.0

#include "collectives/neuron_collective_targets.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "hopt/ir/computation.h"
#include "hopt/support/json.h"

namespace neuron {
namespace {

using hopt::HloOpcode;
using hopt::PrimitiveType;

struct Kind {
  HloOpcode opcode;
  absl::string_view base;
  bool has_reduce_op;
};
constexpr Kind kKinds[] = {
    {HloOpcode::kAllReduce, "AwsNeuronAllReduce", true},
    {HloOpcode::kReduceScatter, "AwsNeuronReduceScatter", true},
    {HloOpcode::kAllGather, "AwsNeuronAllGather", false},
};

struct ReduceOp {
  HloOpcode root;
  absl::string_view infix;
};
constexpr ReduceOp kReduceOps[] = {
    {HloOpcode::kAdd, "Add"},
    {HloOpcode::kMaximum, "Max"},
    {HloOpcode::kMinimum, "Min"},
};
constexpr absl::string_view kUnknownOp = "UNKNOWNOP";

struct DType {
  PrimitiveType type;
  absl::string_view suffix;
};
constexpr DType kDTypes[] = {
    {PrimitiveType::F32, "f32"}, {PrimitiveType::BF16, "bf16"}, {PrimitiveType::F16, "f16"},
    {PrimitiveType::U32, "u32"}, {PrimitiveType::S64, "s64"},   {PrimitiveType::S32, "s32"},
};
constexpr absl::string_view kUnknownDType = "UNKNOWNDTYPE";

const Kind* FindKind(HloOpcode opcode) {
  for (const Kind& kind : kKinds)
    if (kind.opcode == opcode) return &kind;
  return nullptr;
}

absl::string_view ReduceOpInfix(const hopt::HloInstruction& collective) {
  const hopt::HloComputation* reduction = collective.to_apply();
  if (reduction == nullptr || reduction->root_instruction() == nullptr) return kUnknownOp;
  for (const ReduceOp& op : kReduceOps)
    if (reduction->root_instruction()->opcode() == op.root) return op.infix;
  return kUnknownOp;
}

absl::string_view DTypeSuffix(const hopt::Shape& shape) {
  if (shape.IsArray())
    for (const DType& dtype : kDTypes)
      if (dtype.type == shape.element_type()) return dtype.suffix;
  return kUnknownDType;
}

absl::Status KeyError(absl::string_view key, absl::string_view must) {
  return absl::InvalidArgumentError(absl::StrCat("backend_config: \"", key, "\" must be ", must));
}

}  // namespace

std::string CollectiveTargetName(const hopt::HloInstruction& collective) {
  const Kind* kind = FindKind(collective.opcode());
  if (kind == nullptr) return "";
  std::string name(kind->base);
  if (kind->has_reduce_op) absl::StrAppend(&name, ReduceOpInfix(collective));
  absl::StrAppend(&name, "_", DTypeSuffix(collective.shape()));
  return name;
}

std::optional<CollectiveTarget> ParseCollectiveTargetName(absl::string_view target) {
  for (const Kind& kind : kKinds) {
    if (!absl::StartsWith(target, kind.base)) continue;
    absl::string_view rest = target.substr(kind.base.size());
    CollectiveTarget parsed{kind.opcode, "", ""};
    if (kind.has_reduce_op) {
      bool found = false;
      for (absl::string_view infix :
           {kReduceOps[0].infix, kReduceOps[1].infix, kReduceOps[2].infix, kUnknownOp}) {
        if (absl::StartsWith(rest, infix)) {
          parsed.reduce_op = std::string(infix);
          rest.remove_prefix(infix.size());
          found = true;
          break;
        }
      }
      if (!found) return std::nullopt;
    }
    if (!absl::ConsumePrefix(&rest, "_")) return std::nullopt;
    for (const DType& dtype : kDTypes)
      if (rest == dtype.suffix) parsed.dtype = std::string(rest);
    if (rest == kUnknownDType) parsed.dtype = std::string(rest);
    if (parsed.dtype.empty()) return std::nullopt;
    return parsed;
  }
  return std::nullopt;
}

const std::vector<std::string>& AllCollectiveTargetNames() {
  static const std::vector<std::string>* names = [] {
    auto* all = new std::vector<std::string>();
    std::vector<absl::string_view> suffixes;
    for (const DType& dtype : kDTypes) suffixes.push_back(dtype.suffix);
    suffixes.push_back(kUnknownDType);
    for (const Kind& kind : kKinds) {
      std::vector<absl::string_view> infixes = {""};
      if (kind.has_reduce_op)
        infixes = {kReduceOps[0].infix, kReduceOps[1].infix, kReduceOps[2].infix, kUnknownOp};
      for (absl::string_view infix : infixes)
        for (absl::string_view suffix : suffixes)
          all->push_back(absl::StrCat(kind.base, infix, "_", suffix));
    }
    return all;
  }();
  return *names;
}

CollectiveConfig CollectiveConfigOf(const hopt::HloInstruction& collective) {
  CollectiveConfig config;
  if (auto groups = collective.replica_groups()) {
    config.replica_groups = groups->ExpandedGroups();
    if (groups->is_iota) config.iota_replica_groups = groups->ToString();
  }
  config.channel_id = collective.channel_id();
  if (collective.opcode() != HloOpcode::kAllReduce) {
    std::vector<int64_t> dims = collective.dimensions();
    if (dims.size() == 1) config.dimension = dims[0];
  }
  config.use_global_device_ids = collective.use_global_device_ids();
  config.constrain_layout = collective.constrain_layout();
  // As written (quoted or a bare {...}), so the inverse restores the text.
  if (auto text = collective.GetAttributeText("backend_config"))
    config.original_backend_config = std::string(*text);
  return config;
}

std::string FormatCollectiveConfig(const CollectiveConfig& config) {
  using hopt::json::Value;
  Value object = Value::Object();
  Value groups = Value::Array();
  for (const std::vector<int64_t>& group : config.replica_groups) {
    Value ids = Value::Array();
    for (int64_t id : group) ids.Append(Value::Int(id));
    groups.Append(std::move(ids));
  }
  object.Set("replica_groups", std::move(groups));
  if (config.channel_id) object.Set("channel_id", Value::Int(*config.channel_id));
  if (config.dimension) object.Set("dimension", Value::Int(*config.dimension));
  object.Set("use_global_device_ids", Value::Bool(config.use_global_device_ids));
  object.Set("constrain_layout", Value::Bool(config.constrain_layout));
  if (config.iota_replica_groups)
    object.Set("iota_replica_groups", Value::String(*config.iota_replica_groups));
  if (config.original_backend_config)
    object.Set("original_backend_config", Value::String(*config.original_backend_config));
  return hopt::json::Write(object);
}

absl::StatusOr<CollectiveConfig> ParseCollectiveConfig(absl::string_view text) {
  using hopt::json::Value;
  auto parsed = hopt::json::Parse(text);
  if (!parsed.ok())
    return absl::InvalidArgumentError(absl::StrCat("backend_config: ", parsed.status().message()));
  if (parsed->kind() != Value::Kind::kObject)
    return absl::InvalidArgumentError("backend_config: must be a JSON object");
  CollectiveConfig config;
  const Value* groups = parsed->Find("replica_groups");
  if (groups == nullptr) return KeyError("replica_groups", "present");
  if (groups->kind() != Value::Kind::kArray)
    return KeyError("replica_groups", "an array of arrays");
  for (const Value& group : groups->items()) {
    if (group.kind() != Value::Kind::kArray)
      return KeyError("replica_groups", "an array of arrays");
    std::vector<int64_t> ids;
    for (const Value& id : group.items()) {
      if (id.kind() != Value::Kind::kInt || id.as_int() < 0)
        return KeyError("replica_groups", "arrays of non-negative integers");
      ids.push_back(id.as_int());
    }
    config.replica_groups.push_back(std::move(ids));
  }
  for (const auto& [key, value] : parsed->members()) {
    if (key == "replica_groups") continue;
    if (key == "channel_id" || key == "dimension") {
      if (value.kind() != Value::Kind::kInt || value.as_int() < 0)
        return KeyError(key, "a non-negative integer");
      (key == "channel_id" ? config.channel_id : config.dimension) = value.as_int();
    } else if (key == "use_global_device_ids" || key == "constrain_layout") {
      if (value.kind() != Value::Kind::kBool) return KeyError(key, "true or false");
      (key == "constrain_layout" ? config.constrain_layout : config.use_global_device_ids) =
          value.as_bool();
    } else if (key == "iota_replica_groups" || key == "original_backend_config") {
      if (value.kind() != Value::Kind::kString) return KeyError(key, "a string");
      (key == "iota_replica_groups" ? config.iota_replica_groups : config.original_backend_config) =
          value.as_string();
    } else {
      return absl::InvalidArgumentError(absl::StrCat("backend_config: unknown key \"", key, "\""));
    }
  }
  if (config.iota_replica_groups) {
    auto iota = hopt::ParseReplicaGroups(*config.iota_replica_groups);
    if (!iota.ok() || !iota->is_iota || iota->ExpandedGroups() != config.replica_groups)
      return KeyError("iota_replica_groups", "an iota form of \"replica_groups\"");
  }
  return config;
}

namespace {

// The channel id a custom-call's backend_config names, in either form the
// plugin writes; nullopt for anything else.
std::optional<int64_t> ConfigChannelId(absl::string_view config) {
  int64_t id = 0;
  if (absl::ConsumePrefix(&config, "channel_id=")) {
    if (absl::SimpleAtoi(config, &id) && id >= 0) return id;
    return std::nullopt;
  }
  if (!absl::StartsWith(config, "{")) return std::nullopt;
  auto parsed = hopt::json::Parse(config);
  if (!parsed.ok() || parsed->kind() != hopt::json::Value::Kind::kObject) return std::nullopt;
  const hopt::json::Value* channel = parsed->Find("channel_id");
  if (channel == nullptr || channel->kind() != hopt::json::Value::Kind::kInt) return std::nullopt;
  return channel->as_int();
}

}  // namespace

int64_t NextFreeChannelId(const hopt::HloModule& module) {
  int64_t next = module.NextChannelId();
  for (const hopt::HloComputation* computation : module.computations())
    for (const hopt::HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != hopt::HloOpcode::kCustomCall) continue;
      std::optional<int64_t> id = ConfigChannelId(instruction->backend_config());
      if (id && *id < std::numeric_limits<int64_t>::max()) next = std::max(next, *id + 1);
    }
  return next;
}

}  // namespace neuron

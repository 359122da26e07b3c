// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_NEURON_COLLECTIVE_TARGETS_H_
#define HOPT_PLUGINS_COLLECTIVES_NEURON_COLLECTIVE_TARGETS_H_

// The contract between the collective custom-calls and whoever consumes
// them: the target names and the backend_config they carry. Shared by the
// forward pass, its inverse and the interpreter semantics.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace neuron {

// AwsNeuron<AllReduce|ReduceScatter|AllGather>[Add|Max|Min|UNKNOWNOP]_<dtype>,
// dtype one of f32 bf16 f16 u32 s64 s32 UNKNOWNDTYPE (a tuple result, or
// any other element type). The reduce-op infix comes from the root opcode of
// the reduction computation; all-gather has none. Empty for other opcodes.
std::string CollectiveTargetName(const hopt::HloInstruction& collective);

struct CollectiveTarget {
  hopt::HloOpcode opcode;  // kAllReduce, kReduceScatter or kAllGather
  std::string reduce_op;   // "", "Add", "Max", "Min" or "UNKNOWNOP"
  std::string dtype;       // "f32", ..., "UNKNOWNDTYPE"
};
// Splits a target name of the contract; nullopt for any other string.
std::optional<CollectiveTarget> ParseCollectiveTargetName(absl::string_view target);
// Every name of the contract (3 kinds x reduce ops x 7 dtypes = 63).
const std::vector<std::string>& AllCollectiveTargetNames();

// The collective's attributes, as the custom-call's backend_config carries
// them:
//   {"replica_groups":[[0,1],[2,3]],"channel_id":1,"dimension":0,
//    "use_global_device_ids":false,"constrain_layout":false}
// channel_id is omitted when absent and dimension for all-reduce. Keys the
// contract does not name, so that the inverse restores the original text:
// "iota_replica_groups" (the iota form, e.g. "[2,4]<=[8]"),
// "original_backend_config" (the collective's own backend_config, as
// written: quoted or bare).
struct CollectiveConfig {
  std::vector<std::vector<int64_t>> replica_groups;
  std::optional<std::string> iota_replica_groups;
  std::optional<int64_t> channel_id;
  std::optional<int64_t> dimension;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
  std::optional<std::string> original_backend_config;
};

CollectiveConfig CollectiveConfigOf(const hopt::HloInstruction& collective);
std::string FormatCollectiveConfig(const CollectiveConfig& config);
// Errors say which key is wrong ("backend_config: \"dimension\" must be an
// integer").
absl::StatusOr<CollectiveConfig> ParseCollectiveConfig(absl::string_view json);

// A channel id no instruction of `module` uses, neither as its own
// channel_id nor inside a custom-call's backend_config (a converted
// collective's {"channel_id":N}, a fused send/recv's "channel_id=N"): ids
// moved into configs stay taken, so a later pass cannot reuse them.
int64_t NextFreeChannelId(const hopt::HloModule& module);

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_NEURON_COLLECTIVE_TARGETS_H_

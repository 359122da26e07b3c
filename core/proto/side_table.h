// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_SIDE_TABLE_H_
#define HOPT_CORE_PROTO_SIDE_TABLE_H_

// What a .pb/.pbtxt held that the IR does not model (fields hlo.proto does
// not declare, declared ones hopt does not map, an HloProto's buffer
// assignment...), kept beside the module rather than in it, so that
// HloModule, and every plugin that sees one, knows nothing of protobuf.
// The readers in io.h and convert.h fill a table the caller owns; the
// writers put its content back, so a .pb -> hopt -> .pb trip loses nothing.
// docs/formats.md, "Where proto support lives", states the rules below for
// users.
//
// Keys, and what a pass that rewrites the module does to them:
// - an instruction's fields follow its unique_id. Ids are never reused in a
//   module: an instruction a pass removes takes its fields with it, and one
//   a pass creates has none, even if it takes the removed one's name. An
//   instruction changed in place (operands, attributes, name) keeps them.
// - a computation's fields follow its name: a renamed computation drops
//   them. A pass that removes a computation and gives a new one its exact
//   name would pass them on (the module's own name uniquer never reuses a
//   name).
// - the module's and the wrapper's fields apply to the module as a whole.
//
// A table belongs to the module it was read with: HloModule::Clone gives
// the copy new ids, so writing a clone with the original's (non-empty)
// table is refused rather than attaching fields to the wrong instructions.

#include <cstdint>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/proto/dropped_fields.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/module.h"

namespace hopt {

class ProtoSideTable {
 public:
  ProtoSideTable() = default;
  ProtoSideTable(ProtoSideTable&&) = default;
  ProtoSideTable& operator=(ProtoSideTable&&) = default;

  // What the reader left out even of the table: legacy fields of older XLA
  // schemas, unknown fields it had nowhere to keep (dropped_fields.h); and
  // the unknown fields it kept, which hopt does not read. Not part of what
  // is written back, nor of empty().
  const DroppedFields& dropped_fields() const { return dropped_; }
  DroppedFields* mutable_dropped_fields() { return &dropped_; }

  // Nothing was left out (or nothing has been read into the table).
  bool empty() const {
    return wrapper_.empty() && module_fields_.empty() && computations_.empty() &&
           instructions_.empty();
  }
  // The module the table was read with; null before a read succeeds.
  const HloModule* module() const { return module_; }
  // OK when the table may be written with `module`: it is empty or it was
  // read with it.
  absl::Status CheckBelongsTo(const HloModule& module) const;

  // --- for the readers and writers (core/proto/) ---------------------------
  // Empties the table and unties it from its module.
  void Clear();
  void set_module(const HloModule* module) { module_ = module; }

  // Each piece is the serialized unmodelled fields of one message, merged
  // into the message the writer builds before it sets the modelled ones.
  // An HloProto's fields besides hlo_module.
  void set_wrapper(std::string bytes) { wrapper_ = std::move(bytes); }
  const std::string& wrapper() const { return wrapper_; }
  // The HloModuleProto's.
  void set_module_fields(std::string bytes) { module_fields_ = std::move(bytes); }
  const std::string& module_fields() const { return module_fields_; }
  void SetComputationFields(absl::string_view name, std::string bytes) {
    computations_[name] = std::move(bytes);
  }
  // Null when there are none.
  const std::string* ComputationFields(const HloComputation& computation) const {
    if (computations_.empty()) return nullptr;
    auto it = computations_.find(computation.name());
    return it == computations_.end() ? nullptr : &it->second;
  }
  void SetInstructionFields(const HloInstruction& instruction, std::string bytes) {
    instructions_[instruction.unique_id()] = std::move(bytes);
  }
  const std::string* InstructionFields(const HloInstruction& instruction) const {
    if (instructions_.empty()) return nullptr;
    auto it = instructions_.find(instruction.unique_id());
    return it == instructions_.end() ? nullptr : &it->second;
  }

 private:
  const HloModule* module_ = nullptr;
  DroppedFields dropped_;
  std::string wrapper_;
  std::string module_fields_;
  absl::flat_hash_map<std::string, std::string> computations_;
  absl::flat_hash_map<int64_t, std::string> instructions_;
};

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_SIDE_TABLE_H_

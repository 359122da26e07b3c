// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_IR_MODULE_H_
#define HOPT_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/shape.h"
#include "hopt/ir/stack_frames.h"

namespace hopt {

class HloParser;
// The module's arena, instruction blocks, name table and instruction
// indexes: core's implementation, defined in core/ir/module_internal.h
// (not installed). Plugins see only this name.
struct ModuleStorage;

// `entry_computation_layout={(p0, p1)->result}`.
struct ProgramLayout {
  std::vector<Shape> parameters;
  Shape result;
};

class HloModule {
 public:
  explicit HloModule(absl::string_view name);
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;
  ~HloModule();

  absl::string_view name() const { return name_; }
  void set_name(absl::string_view name);

  // --- where the input wrote it -------------------------------------------
  // The file the parser read (as its messages name it), and the 1-based
  // line and column of each instruction statement in it, so that a later
  // complaint about an instruction (the verifier's) can point there. Kept
  // by instruction id: one small array, not a field in every instruction
  // (most modules never need it). {0, 0} for instructions made since, or
  // read from a proto; column 0 when it is past 255 (statements start near
  // the left margin; five bytes an instruction instead of eight matter at
  // millions of instructions).
  struct SourceLocation {
    uint32_t line = 0;
    uint32_t column = 0;
  };
  absl::string_view source_name() const { return source_name_; }
  void set_source_name(absl::string_view name);
  SourceLocation LocationOf(const HloInstruction& instruction) const;
  void SetLocation(const HloInstruction& instruction, SourceLocation location);
  // Room for the locations of `more` instructions yet to be made, so that a
  // reader that knows how many are coming never grows the arrays by doubling.
  void ReserveLocations(size_t more);

  // --- where the traced program made it (stack_frames.h) -----------------
  // Empty tables when the input had none. Shared, not copied, by Clone and
  // by the modules made from this one (stages, regions): the tables of a
  // large dump hold thousands of rows.
  const StackFrameIndex& stack_frames() const;
  void set_stack_frames(StackFrameIndex index);
  void ShareStackFramesFrom(const HloModule& other) { stack_frames_ = other.stack_frames_; }

  // --- computations -------------------------------------------------------
  // Creates a computation with a unique name derived from `name`.
  HloComputation* AddComputation(absl::string_view name, bool is_entry = false);
  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* entry) { entry_ = entry; }
  // In the order they were added.
  std::vector<HloComputation*> computations() const;
  int64_t computation_count() const { return static_cast<int64_t>(computations_.size()); }
  HloComputation* GetComputationWithName(absl::string_view name) const;
  // Callees before callers (XLA's printing order).
  std::vector<HloComputation*> MakeComputationPostOrder() const;
  // A cycle of calls, if there is one: a computation on it and the caller
  // through which it calls itself (both null when calls form a DAG, as
  // XLA requires; every reader refuses a cycle). Iterative: a call chain
  // of any depth is walked without recursion.
  std::pair<const HloComputation*, const HloComputation*> FindCallCycle() const;
  // Deletes a computation nothing references any more.
  absl::Status RemoveComputation(HloComputation* computation);
  // Deletes every computation the entry does not reach.
  int64_t RemoveUnreachableComputations();

  // --- configuration (the header) -----------------------------------------
  int64_t replica_count() const { return replica_count_; }
  void set_replica_count(int64_t n) { replica_count_ = n; }
  int64_t num_partitions() const { return num_partitions_; }
  void set_num_partitions(int64_t n) { num_partitions_ = n; }
  bool is_scheduled() const { return is_scheduled_; }
  void set_is_scheduled(bool scheduled) { is_scheduled_ = scheduled; }
  // The layout given in the header, if any. Printing uses it while it still
  // matches the entry computation, else the entry's own shapes.
  const std::optional<ProgramLayout>& entry_computation_layout() const { return entry_layout_; }
  void set_entry_computation_layout(std::optional<ProgramLayout> layout) {
    entry_layout_ = std::move(layout);
  }
  ProgramLayout ComputeEntryLayout() const;
  // Other header attributes (input_output_alias, frontend_attributes, ...),
  // kept as written.
  const std::vector<std::pair<absl::string_view, absl::string_view>>& header_attributes() const {
    return header_attributes_;
  }
  void SetHeaderAttribute(absl::string_view name, absl::string_view value);
  std::optional<absl::string_view> GetHeaderAttribute(absl::string_view name) const;

  // --- names and ids ---------------------------------------------------------
  // A module-unique instruction/computation name starting with `prefix`.
  absl::string_view UniqueName(absl::string_view prefix);
  // Registers a name taken as is (the parser's explicit names).
  void ReserveName(absl::string_view name);
  int64_t NewUniqueId() { return next_unique_id_++; }
  // One more than the largest channel_id in the module.
  int64_t NextChannelId() const;

  std::unique_ptr<HloModule> Clone() const;

 private:
  friend class HloParser;
  friend class ModuleReaderAccess;  // module_reader_access.h
  friend struct ModuleInternals;    // core/ir/module_internal.h
  // The storage (core/ir/module_internal.h; opaque here), shapes interned
  // in it, and the instruction blocks: core reaches them through
  // ModuleInternals.
  const Shape* InternShape(const Shape& shape);
  HloInstruction* NewInstruction(HloOpcode opcode, const Shape* shape);
  void DestroyInstruction(HloInstruction* instruction);
  void EnsureNameIndex();
  // For readers that build a module from nothing: the name index starts
  // complete (empty) and every name is added as it is created, while it is
  // still in cache, instead of by a walk over the whole module later.
  void IndexNamesFromTheStart();

  // First, so that it goes last: everything below points into it.
  std::unique_ptr<ModuleStorage> storage_;
  absl::string_view name_;
  absl::string_view source_name_;
  std::vector<uint32_t> location_lines_;
  std::vector<uint8_t> location_columns_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  int64_t replica_count_ = 1;
  int64_t num_partitions_ = 1;
  bool is_scheduled_ = false;
  std::optional<ProgramLayout> entry_layout_;
  std::vector<std::pair<absl::string_view, absl::string_view>> header_attributes_;
  std::shared_ptr<const StackFrameIndex> stack_frames_;
  int64_t next_unique_id_ = 0;
};

}  // namespace hopt

#endif  // HOPT_IR_MODULE_H_

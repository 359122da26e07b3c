// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_IR_PARSER_IMPL_H_
#define HOPT_CORE_IR_PARSER_IMPL_H_

// The HLO text parser's internals, shared by parser.cc (modules,
// computations, instructions, attributes) and parse_shapes.cc (shapes,
// layouts, the module header). Not part of the public API: see parser.h.

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/ir/text_cursor.h"
#include "hopt/ir/module.h"

namespace hopt {
namespace parser_internal {

inline constexpr int kMaxNesting = 200;

// An operand as written: resolved now, or a name defined later in the
// computation.
// Finds instructions by name without storing the name twice.
// A computation's instructions by name. Each entry keeps its name's hash:
// growing the table, and probing past entries of other names, never read an
// instruction (in a computation of millions, every such read is a cache
// miss, and a table that grows from empty reads each entry about twice).
class InstructionsByName {
 public:
  void Reserve(size_t n) { set_.reserve(n); }
  // Returns false when an instruction of the same name is in already.
  bool Insert(HloInstruction* instruction) {
    return set_.insert({Hash(instruction->name()), instruction}).second;
  }
  HloInstruction* Find(absl::string_view name) const {
    auto it = set_.find(Key{name, Hash(name)});
    return it == set_.end() ? nullptr : it->instruction;
  }
  bool empty() const { return set_.empty(); }
  void clear() { set_.clear(); }

 private:
  struct Entry {
    size_t hash;
    HloInstruction* instruction;
  };
  struct Key {
    absl::string_view name;
    size_t hash;
  };
  static size_t Hash(absl::string_view name) { return absl::Hash<absl::string_view>()(name); }
  struct EntryHash {
    using is_transparent = void;
    size_t operator()(const Entry& entry) const { return entry.hash; }
    size_t operator()(const Key& key) const { return key.hash; }
  };
  struct EntryEq {
    using is_transparent = void;
    bool operator()(const Entry& a, const Entry& b) const {
      return a.hash == b.hash && a.instruction->name() == b.instruction->name();
    }
    bool operator()(const Entry& a, const Key& b) const {
      return a.hash == b.hash && a.instruction->name() == b.name;
    }
    bool operator()(const Key& a, const Entry& b) const { return (*this)(b, a); }
  };
  absl::flat_hash_set<Entry, EntryHash, EntryEq> set_;
};

// Number of lines from `pos` to the first line that starts with '}' (the
// end of a computation as printed): a capacity hint.
inline size_t CountBodyLines(absl::string_view text, size_t pos) {
  size_t lines = 0;
  while (pos < text.size()) {
    const void* found = memchr(text.data() + pos, '\n', text.size() - pos);
    if (found == nullptr) break;
    pos = static_cast<const char*>(found) - text.data() + 1;
    ++lines;
    if (pos < text.size() && text[pos] == '}') break;
  }
  return lines;
}

struct OperandRef {
  HloInstruction* instruction = nullptr;
  absl::string_view name;
  size_t pos = 0;
};

}  // namespace parser_internal

class HloParser {
  using OperandRef = parser_internal::OperandRef;
  using InstructionsByName = parser_internal::InstructionsByName;

 public:
  HloParser(absl::string_view text, absl::string_view filename, HloModule* module)
      : cursor_(text), filename_(filename), module_(module) {}
  // Called with [begin, end) ranges of text the parser is done with, so a
  // memory-mapped source can drop those pages (they are read again from the
  // file if an error message needs them).
  void set_release(std::function<void(size_t, size_t)> release) { release_ = std::move(release); }
  // The line of the whole file that the text starts on.
  void set_first_line(int64_t line) { first_line_ = line; }

  absl::Status Run();
  absl::Status ParseSingleShape(Shape* shape);

 private:
  absl::Status Error(size_t pos, absl::string_view message) const;
  absl::Status ErrorHere(absl::string_view message) {
    cursor_.SkipSpace();
    return Error(cursor_.pos(), message);
  }
  absl::Status Expect(char c, absl::string_view context);

  absl::Status ParseShape(Shape* shape, int depth = 0);
  absl::Status ParseArrayShape(Shape* shape);
  absl::Status ParseInternedShape(const Shape** shape);
  bool AtShapeStart();

  absl::Status ParseHeader();
  // parse_stack_frames.cc: the tables after the header, if any.
  absl::Status ParseStackFrameTables();
  bool AtStackFrameSection(absl::string_view* section);
  absl::Status ParseStackFrameRow(absl::string_view section, int64_t expected_id,
                                  StackFrameIndex* index);
  absl::Status ParseProgramLayout(ProgramLayout* layout);
  absl::Status ParseComputation();
  absl::Status ParseInstructionStatement(HloComputation* computation, HloInstruction** root,
                                         size_t* root_pos);
  // Parses `[shape] opcode(operands), attrs` after `name =` (or for an
  // anonymous nested operand, with an empty name).
  absl::Status ParseInstructionRhs(HloComputation* computation, absl::string_view name,
                                   size_t name_pos, bool nested, int depth,
                                   HloInstruction** result);
  absl::Status ParseOperand(HloComputation* computation, int depth, OperandRef* ref);
  absl::Status ParseAttributes(HloInstruction* instruction, bool nested);
  absl::Status ParseNameList(std::vector<std::pair<absl::string_view, size_t>>* names);
  // A broadcast of a scalar without `dimensions` gets `dimensions={}`, as XLA
  // prints it, whether its operand came before or after it.
  void AddScalarBroadcastDimensions(HloInstruction* broadcast, const HloInstruction* operand);
  absl::Status FinishComputation(HloComputation* computation, HloInstruction* root,
                                 size_t body_pos);
  absl::Status ResolveComputationReferences();
  // Where `computation` stands in the module's list.
  size_t ComputationIndex(const HloComputation* computation) const;
  // `to_apply={ p = f32[] parameter(0) ... }`: a computation written in place.
  bool AtInlineComputation();
  absl::Status ParseInlineComputation(std::string name, HloComputation** result);
  absl::Status ParseComputationBody(HloComputation* computation, size_t body_pos);
  absl::string_view AnonymousName(absl::string_view opcode);
  // Operands mostly name an instruction defined a line or two before, or
  // one used just before: a few recent instructions are checked before the
  // hash set (whose probes miss the cache on large computations).
  // The name set is filled lazily, when the recent instructions do not
  // answer: a long chain then never pays for hashing every name.
  HloInstruction* FindInstruction(absl::string_view name) {
    for (int k = 0; k < kRecent; ++k) {
      HloInstruction* recent = recent_[k];
      if (recent == nullptr || recent->name() != name) continue;
      // The oldest is replaced by the next instruction made. Read again
      // that late (a parameter that every line of a chain reads), it moves
      // to the used ones; otherwise its next use would index every name.
      if (k == recent_next_) RememberUse(recent);
      return recent;
    }
    for (HloInstruction* used : recently_used_)
      if (used != nullptr && used->name() == name) return used;
    IndexNames();
    HloInstruction* found = instructions_by_name_.Find(name);
    if (found != nullptr) RememberUse(found);
    return found;
  }
  void RememberUse(HloInstruction* instruction) {
    recently_used_[used_next_] = instruction;
    used_next_ = (used_next_ + 1) % kRecent;
  }
  void IndexNames() {
    const auto& all = current_->instructions_;
    if (indexed_ == all.size()) return;
    // Sized once for the whole body: the names of a big computation are
    // then hashed once and never moved.
    if (instructions_by_name_.empty())
      instructions_by_name_.Reserve(std::max(all.size(), expected_));
    for (; indexed_ < all.size(); ++indexed_) {
      HloInstruction* instruction = all[indexed_];
      if (instruction != nullptr && !instructions_by_name_.Insert(instruction) &&
          duplicate_ == nullptr)
        duplicate_ = instruction;
    }
  }
  // Reports a name defined twice in the current computation, if any.
  absl::Status CheckUniqueNames();
  HloComputation* current_ = nullptr;
  size_t indexed_ = 0;
  HloInstruction* duplicate_ = nullptr;
  // Where each instruction's name was written, by position in the
  // computation (for messages about duplicates).
  std::vector<size_t> name_positions_;
  void Remember(HloInstruction* instruction) {
    recent_[recent_next_] = instruction;
    recent_next_ = (recent_next_ + 1) % kRecent;
  }
  static constexpr int kRecent = 4;
  // Instructions just created, and instructions just looked up by name
  // (a parameter used by every line of a chain).
  HloInstruction* recent_[kRecent] = {};
  int recent_next_ = 0;
  HloInstruction* recently_used_[kRecent] = {};
  int used_next_ = 0;

  TextCursor cursor_;
  absl::string_view filename_;
  int64_t first_line_ = 1;
  HloModule* module_;

  // Line and column of `pos`, counting newlines onward from the last
  // position asked for: statements are located in text order, so the text
  // is counted once (an error's own line and column are computed afresh).
  HloModule::SourceLocation LocationAt(size_t pos) {
    absl::string_view text = cursor_.text();
    if (pos < counted_to_) {  // not in text order: count afresh
      counted_to_ = 0;
      line_ = 1;
      line_start_ = 0;
    }
    while (counted_to_ < pos) {
      const void* found = memchr(text.data() + counted_to_, '\n', pos - counted_to_);
      if (found == nullptr) break;
      ++line_;
      line_start_ = static_cast<size_t>(static_cast<const char*>(found) - text.data()) + 1;
      counted_to_ = line_start_;
    }
    counted_to_ = pos;
    return {static_cast<uint32_t>(line_ + first_line_ - 1),
            static_cast<uint32_t>(pos - line_start_ + 1)};
  }
  size_t counted_to_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;

  // Per computation.
  InstructionsByName instructions_by_name_;
  // Lines in the body being read (a capacity hint).
  size_t expected_ = 0;
  std::function<void(size_t, size_t)> release_;
  size_t released_up_to_ = 0;
  struct PendingOperand {
    HloInstruction* user;
    int64_t index;
    absl::string_view name;
    size_t pos;
  };
  std::vector<PendingOperand> pending_operands_;
  struct PendingReference {
    HloInstruction* instruction;
    size_t attribute_index;
    std::vector<std::pair<absl::string_view, size_t>> names;
  };
  std::vector<PendingReference> pending_controls_;
  // Whole module.
  std::vector<PendingReference> pending_computations_;
  absl::flat_hash_map<absl::string_view, HloComputation*> computations_by_name_;
  // Where each computation of the module was written, by its index.
  std::vector<size_t> computation_positions_;
  absl::flat_hash_map<absl::string_view, const Shape*> shape_cache_;
  absl::flat_hash_map<std::string, int64_t> anonymous_counts_;
  std::vector<std::string> anonymous_names_;
  HloComputation* entry_ = nullptr;
  size_t entry_pos_ = 0;
  const Shape* placeholder_shape_ = nullptr;
  absl::string_view last_shape_text_;
  const Shape* last_shape_ = nullptr;
};

}  // namespace hopt

#endif  // HOPT_CORE_IR_PARSER_IMPL_H_

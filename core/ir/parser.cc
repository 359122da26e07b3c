// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/parser.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/ir/instruction_internal.h"
#include "core/ir/module_internal.h"
#include "core/ir/name_check.h"
#include "core/ir/parser_impl.h"
#include "core/ir/shape_inference.h"
#include "core/ir/text_cursor.h"
#include "core/ir/tooling/mapped_file.h"
#include "hopt/ir/literal.h"
#include "hopt/support/diagnostic.h"
#include "hopt/support/status_macros.h"

namespace hopt {

using parser_internal::CountBodyLines;
using parser_internal::kMaxNesting;

absl::Status HloParser::Error(size_t pos, absl::string_view message) const {
  int64_t line, column;
  cursor_.LineAndColumn(pos, &line, &column);
  line += first_line_ - 1;
  absl::string_view text = cursor_.LineAt(pos);
  std::string caret(column > 0 ? column - 1 : 0, ' ');
  for (size_t i = 0; i < caret.size() && i < text.size(); ++i)
    if (text[i] == '\t') caret[i] = '\t';
  return LocatedError(absl::StatusCode::kInvalidArgument, filename_, line, column,
                      absl::StrCat(message, "\n", text, "\n", caret, "^"));
}

absl::Status HloParser::Expect(char c, absl::string_view context) {
  if (cursor_.Consume(c)) return absl::OkStatus();
  return ErrorHere(absl::StrCat("expected '", std::string(1, c), "' ", context));
}

absl::string_view HloParser::AnonymousName(absl::string_view opcode) {
  std::string base = absl::StrCat(opcode, ".anon");
  int64_t& count = anonymous_counts_[base];
  std::string name;
  do {
    name = count == 0 ? base : absl::StrCat(base, ".", count);
    ++count;
  } while ((IndexNames(), instructions_by_name_.Find(name) != nullptr));
  return ModuleInternals::Storage(*module_).arena.Save(name);
}

absl::Status HloParser::ParseNameList(std::vector<std::pair<absl::string_view, size_t>>* names) {
  cursor_.SkipSpace();
  if (!cursor_.Consume('{')) {
    size_t pos = cursor_.pos();
    absl::string_view name = cursor_.ReadName();
    if (name.empty()) return ErrorHere("expected a name");
    names->emplace_back(name, pos);
    return absl::OkStatus();
  }
  if (cursor_.Consume('}')) return absl::OkStatus();
  do {
    cursor_.SkipSpace();
    size_t pos = cursor_.pos();
    absl::string_view name = cursor_.ReadName();
    if (name.empty()) return ErrorHere("expected a name in the list");
    names->emplace_back(name, pos);
  } while (cursor_.Consume(','));
  if (!cursor_.Consume('}')) return ErrorHere("expected ',' or '}' in the name list");
  return absl::OkStatus();
}

absl::Status HloParser::ParseAttributes(HloInstruction* instruction, bool nested) {
  while (true) {
    size_t before = cursor_.pos();
    if (!cursor_.Consume(',')) return absl::OkStatus();
    size_t name_pos = cursor_.pos();
    cursor_.SkipSpace();
    name_pos = cursor_.pos();
    absl::string_view name = cursor_.ReadWord();
    if (name.empty() || !cursor_.Consume('=')) {
      if (nested) {  // the ',' separates the enclosing operands
        cursor_.set_pos(before);
        return absl::OkStatus();
      }
      return Error(name_pos, "expected an attribute 'name=value'");
    }
    if (instruction->HasAttribute(name))
      return Error(name_pos, absl::StrCat("attribute '", name, "' is given twice"));
    HloAttribute attr;
    attr.name = ModuleInternals::Storage(*module_).arena.Intern(name);
    if (IsComputationReferenceAttribute(name) && AtInlineComputation()) {
      HloComputation* inline_computation = nullptr;
      HOPT_RETURN_IF_ERROR(ParseInlineComputation(absl::StrCat(instruction->name(), ".", name),
                                                  &inline_computation));
      attr.kind = HloAttribute::Kind::kComputation;
      attr.computations = {inline_computation};
      instruction->AddAttribute(std::move(attr));
      continue;
    }
    if (IsComputationReferenceAttribute(name) || name == "control-predecessors") {
      cursor_.SkipSpace();
      bool is_list = cursor_.Peek() == '{';
      PendingReference pending{instruction, instruction->attributes().size(), {}};
      HOPT_RETURN_IF_ERROR(ParseNameList(&pending.names));
      if (name == "control-predecessors") {
        attr.kind = HloAttribute::Kind::kInstructionList;
        pending_controls_.push_back(std::move(pending));
      } else {
        attr.kind =
            is_list ? HloAttribute::Kind::kComputationList : HloAttribute::Kind::kComputation;
        // Callees usually come first; resolve them now so that shapes can
        // be inferred from them, and leave the rest for the end.
        bool all_known = true;
        for (const auto& entry : pending.names)
          all_known &= computations_by_name_.contains(entry.first) &&
                       computations_by_name_[entry.first] != instruction->parent();
        if (all_known) {
          for (const auto& entry : pending.names)
            attr.computations.push_back(computations_by_name_[entry.first]);
        } else {
          pending_computations_.push_back(std::move(pending));
        }
      }
      instruction->AddAttribute(std::move(attr));
      continue;
    }
    cursor_.SkipSpace();
    size_t value_pos = cursor_.pos();
    absl::string_view value;
    if (!cursor_.ReadValue(&value))
      return Error(value_pos, absl::StrCat("malformed value for attribute '", name, "'"));
    if (name == "literal" && value.front() != '(') {
      // `literal=s32[2]{0} {1, 2}`: a shape, a space, then the values.
      absl::string_view values;
      if (!cursor_.ReadValue(&values))
        return ErrorHere("expected the literal's values after its shape");
      value = cursor_.text().substr(value_pos, cursor_.pos() - value_pos);
    }
    absl::Status valid = ValidateAttribute(name, value);
    if (!valid.ok()) return Error(value_pos, valid.message());
    attr.value = ModuleInternals::Storage(*module_).arena.Save(value);
    instruction->AddAttribute(std::move(attr));
  }
}

absl::Status HloParser::ParseOperand(HloComputation* computation, int depth, OperandRef* ref) {
  cursor_.SkipSpace();
  size_t shape_start = cursor_.pos();
  if (AtShapeStart()) {
    const Shape* ignored;
    HOPT_RETURN_IF_ERROR(ParseInternedShape(&ignored));
  }
  cursor_.SkipSpace();
  size_t pos = cursor_.pos();
  absl::string_view name = cursor_.ReadName();
  if (name.empty()) return ErrorHere("expected an operand name");
  size_t after_name = cursor_.pos();
  bool call_follows = cursor_.Consume('(');
  cursor_.set_pos(after_name);
  if (call_follows && cursor_.text()[pos] != '%') {
    // An anonymous nested instruction: `add(f32[] parameter(0), ...)`.
    cursor_.set_pos(shape_start);
    return ParseInstructionRhs(computation, absl::string_view(), pos, /*nested=*/true, depth + 1,
                               &ref->instruction);
  }
  ref->name = name;
  ref->pos = pos;
  ref->instruction = FindInstruction(name);
  return absl::OkStatus();
}

absl::Status HloParser::ParseInstructionRhs(HloComputation* computation, absl::string_view name,
                                            size_t name_pos, bool nested, int depth,
                                            HloInstruction** result) {
  if (depth > kMaxNesting) return ErrorHere("instructions nest too deeply");
  const Shape* shape = nullptr;
  if (AtShapeStart()) {
    HOPT_RETURN_IF_ERROR(ParseInternedShape(&shape));
  }
  cursor_.SkipSpace();
  size_t opcode_pos = cursor_.pos();
  absl::string_view spelling = cursor_.ReadWord();
  if (spelling.empty()) return ErrorHere("expected an opcode");
  std::optional<HloOpcode> opcode = StringToHloOpcode(spelling);
  std::optional<HloOpcode> wrapped;
  if (!opcode) {
    for (auto [suffix, async_opcode] :
         {std::pair<absl::string_view, HloOpcode>{"-start", HloOpcode::kAsyncStart},
          {"-update", HloOpcode::kAsyncUpdate},
          {"-done", HloOpcode::kAsyncDone}}) {
      if (!absl::EndsWith(spelling, suffix)) continue;
      wrapped = StringToHloOpcode(spelling.substr(0, spelling.size() - suffix.size()));
      if (wrapped) opcode = async_opcode;
      break;
    }
  }
  if (!opcode) return Error(opcode_pos, absl::StrCat("unknown opcode '", spelling, "'"));
  // As XLA's reader: only some opcodes may leave their shape to inference.
  if (shape == nullptr && !ShapeMayBeOmitted(*opcode))
    return Error(opcode_pos, absl::StrCat("the shape of '", spelling,
                                          "' must be written (XLA infers shapes only for "
                                          "some opcodes)"));
  if (!cursor_.Consume('('))
    return ErrorHere(absl::StrCat("expected '(' after the opcode '", spelling, "'"));

  int64_t parameter_number = -1;
  absl::string_view literal;
  absl::InlinedVector<OperandRef, 4> operands;
  if (*opcode == HloOpcode::kParameter) {
    // The printer writes parameters bare in the computation's signature.
    if (!name.empty() && !IsNameStart(name[0]))
      return Error(name_pos, absl::StrCat("parameter name '", name,
                                          "' must start with a letter or '_' (it is written "
                                          "bare in the computation's signature)"));
    if (!cursor_.ReadInt(&parameter_number) || parameter_number < 0)
      return ErrorHere("expected a parameter number");
    if (!cursor_.Consume(')')) return ErrorHere("expected ')' after the parameter number");
  } else if (*opcode == HloOpcode::kConstant) {
    cursor_.set_pos(cursor_.pos() - 1);
    absl::string_view group;
    size_t open = cursor_.pos();
    if (!cursor_.ReadGroup(&group)) return Error(open, "unbalanced brackets in the constant");
    literal = group.substr(1, group.size() - 2);
    while (!literal.empty() && (literal.front() == ' ' || literal.front() == '\n'))
      literal.remove_prefix(1);
    while (!literal.empty() && (literal.back() == ' ' || literal.back() == '\n'))
      literal.remove_suffix(1);
    if (literal.empty()) return Error(open, "expected a literal in the constant");
  } else if (!cursor_.Consume(')')) {
    do {
      OperandRef ref;
      HOPT_RETURN_IF_ERROR(ParseOperand(computation, depth, &ref));
      operands.push_back(ref);
    } while (cursor_.Consume(','));
    if (!cursor_.Consume(')')) return ErrorHere("expected ',' or ')' after an operand");
  }

  if (shape == nullptr) {
    for (const OperandRef& ref : operands)
      if (ref.instruction == nullptr)
        return Error(opcode_pos,
                     absl::StrCat("the shape of '", spelling, "' cannot be inferred: operand '",
                                  ref.name, "' is defined later; write the shape"));
    // Inferred below, once the attributes (get-tuple-element's index) are
    // read; a placeholder until then.
    if (placeholder_shape_ == nullptr)
      placeholder_shape_ = ModuleInternals::InternShape(*module_, Shape());
    shape = placeholder_shape_;
  }

  absl::string_view final_name =
      name.empty() ? AnonymousName(spelling) : ModuleInternals::Storage(*module_).arena.Save(name);
  HloInstruction* instruction = computation->CreateInstruction(*opcode, shape, final_name);
  if (wrapped) instruction->set_async_wrapped_opcode(wrapped);
  if (*opcode == HloOpcode::kParameter)
    InstructionInternals::SetParameterNumber(*instruction, parameter_number);
  if (*opcode == HloOpcode::kConstant) InstructionInternals::StoreLiteral(*instruction, literal);
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i].instruction != nullptr) {
      instruction->AppendOperand(operands[i].instruction);
    } else {
      InstructionInternals::operands(*instruction).push_back(nullptr);
      pending_operands_.push_back(
          PendingOperand{instruction, static_cast<int64_t>(i), operands[i].name, operands[i].pos});
    }
  }
  HOPT_RETURN_IF_ERROR(ParseAttributes(instruction, nested));
  // As XLA's reader: these shapes come from the operands, not the text
  // (before a later instruction infers its shape from them).
  if (std::optional<Shape> built = ShapeXlaReaderBuilds(*instruction))
    InstructionInternals::shape(*instruction) = ModuleInternals::InternShape(*module_, *built);

  if (InstructionInternals::shape(*instruction) == placeholder_shape_) {
    auto inferred = InferShapeFromOperands(*instruction);
    if (!inferred.ok())
      return Error(opcode_pos, absl::StrCat("the shape of '", spelling, "' cannot be inferred (",
                                            inferred.status().message(), "); write the shape"));
    // Each tuple written around another adds a level: bounded as a
    // written shape is, so that the module can be printed and read back.
    if (inferred->IsTuple() && inferred->TupleNesting() > kMaxTupleNesting)
      return Error(opcode_pos,
                   absl::StrCat("the inferred shape of '", spelling, "' nests tuples more than ",
                                kMaxTupleNesting, " deep"));
    InstructionInternals::shape(*instruction) = ModuleInternals::InternShape(*module_, *inferred);
  }
  if (*opcode == HloOpcode::kConstant) {
    absl::Status valid = Literal::Validate(instruction->shape(), literal);
    if (!valid.ok())
      return Error(static_cast<size_t>(literal.data() - cursor_.text().data()), valid.message());
  }
  // XLA always prints a broadcast's dimensions; a scalar needs none. (An
  // operand not defined yet is handled when it is, in FinishComputation.)
  if (*opcode == HloOpcode::kBroadcast && operands.size() == 1 &&
      operands[0].instruction != nullptr)
    AddScalarBroadcastDimensions(instruction, operands[0].instruction);
  Remember(instruction);
  if (name_positions_.size() <= static_cast<size_t>(InstructionInternals::position(*instruction)))
    name_positions_.resize(InstructionInternals::position(*instruction) + 1, 0);
  name_positions_[InstructionInternals::position(*instruction)] = name_pos;
  *result = instruction;
  return absl::OkStatus();
}

absl::Status HloParser::ParseInstructionStatement(HloComputation* computation,
                                                  HloInstruction** root, size_t* root_pos) {
  cursor_.SkipSpace();
  size_t start = cursor_.pos();
  bool is_root = false;
  absl::string_view first = cursor_.ReadName();
  if (first == "ROOT" && cursor_.text()[start] != '%') {
    cursor_.SkipSpace();
    if (cursor_.Peek() != '=') {
      is_root = true;
      start = cursor_.pos();
      first = cursor_.ReadName();
    }
  }
  if (first.empty()) return Error(start, "expected an instruction name or '}'");
  if (!cursor_.Consume('='))
    return ErrorHere(absl::StrCat("expected '=' after the instruction name '", first, "'"));
  // Located before the right-hand side: an inline computation in it is
  // located further on, and counting must only move forward.
  HloModule::SourceLocation location = LocationAt(start);
  HloInstruction* instruction = nullptr;
  HOPT_RETURN_IF_ERROR(
      ParseInstructionRhs(computation, first, start, /*nested=*/false, 0, &instruction));
  module_->SetLocation(*instruction, location);
  if (is_root) {
    if (*root != nullptr)
      return Error(start, absl::StrCat("computation has more than one ROOT: '", (*root)->name(),
                                       "' and '", first, "'"));
    *root = instruction;
    *root_pos = start;
  }
  return absl::OkStatus();
}

void HloParser::AddScalarBroadcastDimensions(HloInstruction* broadcast,
                                             const HloInstruction* operand) {
  if (operand->shape().rank() != 0 || broadcast->HasAttribute("dimensions")) return;
  HloAttribute dims;
  dims.name = ModuleInternals::Storage(*module_).arena.Intern("dimensions");
  dims.value = ModuleInternals::Storage(*module_).arena.Intern("{}");
  broadcast->AddAttribute(std::move(dims));
}

absl::Status HloParser::FinishComputation(HloComputation* computation, HloInstruction* root,
                                          size_t body_pos) {
  HOPT_RETURN_IF_ERROR(CheckUniqueNames());
  if (!pending_operands_.empty() || !pending_controls_.empty()) IndexNames();
  for (const PendingOperand& pending : pending_operands_) {
    HloInstruction* found = instructions_by_name_.Find(pending.name);
    if (found == nullptr)
      return Error(pending.pos, absl::StrCat("use of undefined instruction '", pending.name, "'"));
    InstructionInternals::SetOperandSlot(*pending.user, pending.index, found);
    InstructionInternals::AddUser(*found, pending.user, pending.index);
    if (pending.user->opcode() == HloOpcode::kBroadcast && pending.user->operand_count() == 1)
      AddScalarBroadcastDimensions(pending.user, found);
  }
  pending_operands_.clear();
  for (const PendingReference& pending : pending_controls_) {
    HloAttribute& attr =
        (*InstructionInternals::attributes(*pending.instruction))[pending.attribute_index];
    for (const auto& [name, pos] : pending.names) {
      HloInstruction* found = instructions_by_name_.Find(name);
      if (found == nullptr)
        return Error(pos, absl::StrCat("control predecessor '", name,
                                       "' is not an instruction of this computation"));
      attr.instructions.push_back(found);
      InstructionInternals::flags(*found) |= InstructionInternals::kControlSuccessors;
    }
  }
  pending_controls_.clear();
  // The same for operands defined after their user.
  for (HloInstruction* instruction : computation->instructions())
    if (std::optional<Shape> built = ShapeXlaReaderBuilds(*instruction))
      InstructionInternals::shape(*instruction) = ModuleInternals::InternShape(*module_, *built);
  if (computation->instruction_count() == 0)
    return Error(body_pos,
                 absl::StrCat("computation '", computation->name(), "' has no instructions"));
  computation->SetRootUnchecked(root != nullptr ? root : computation->last_instruction());
  std::vector<HloInstruction*> parameters;
  for (HloInstruction* instruction : computation->instructions()) {
    if (instruction->opcode() != HloOpcode::kParameter) continue;
    int64_t n = instruction->parameter_number();
    if (n >= static_cast<int64_t>(computation->instruction_count()))
      return Error(body_pos, absl::StrCat("parameter '", instruction->name(), "' has number ", n,
                                          " but the computation has fewer parameters"));
    if (static_cast<int64_t>(parameters.size()) <= n) parameters.resize(n + 1, nullptr);
    if (parameters[n] != nullptr)
      return Error(body_pos, absl::StrCat("parameters '", parameters[n]->name(), "' and '",
                                          instruction->name(), "' both have number ", n));
    parameters[n] = instruction;
  }
  for (size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i] == nullptr)
      return Error(body_pos,
                   absl::StrCat("computation '", computation->name(), "' has no parameter number ",
                                i, " (parameter numbers must be consecutive from 0)"));
  computation->parameters_ = std::move(parameters);
  instructions_by_name_.clear();
  anonymous_counts_.clear();
  std::fill(std::begin(recent_), std::end(recent_), nullptr);
  std::fill(std::begin(recently_used_), std::end(recently_used_), nullptr);
  indexed_ = 0;
  duplicate_ = nullptr;
  name_positions_.clear();
  return absl::OkStatus();
}

absl::Status HloParser::ParseComputation() {
  cursor_.SkipSpace();
  size_t start = cursor_.pos();
  bool is_entry = false;
  absl::string_view name = cursor_.ReadName();
  if (name == "ENTRY" && cursor_.text()[start] != '%') {
    is_entry = true;
    start = cursor_.pos();
    cursor_.SkipSpace();
    start = cursor_.pos();
    name = cursor_.ReadName();
  }
  if (name.empty()) return Error(start, "expected a computation name");
  if (computations_by_name_.contains(name))
    return Error(start, absl::StrCat("computation '", name, "' is defined twice"));
  // Optional signature `(p: shape, ...) -> shape`; informative only.
  if (cursor_.Consume('(')) {
    if (!cursor_.Consume(')')) {
      do {
        absl::string_view param = cursor_.ReadName();
        if (param.empty() || !cursor_.Consume(':'))
          return ErrorHere("expected 'name: shape' in the computation signature");
        Shape ignored;
        HOPT_RETURN_IF_ERROR(ParseShape(&ignored));
      } while (cursor_.Consume(','));
      if (!cursor_.Consume(')')) return ErrorHere("expected ',' or ')' in the signature");
    }
    if (!cursor_.ConsumeToken("->")) return ErrorHere("expected '->' in the signature");
    Shape ignored;
    HOPT_RETURN_IF_ERROR(ParseShape(&ignored));
  }
  cursor_.SkipSpace();
  size_t body_pos = cursor_.pos();
  if (!cursor_.Consume('{'))
    return ErrorHere(absl::StrCat("expected '{' to start computation '", name, "'"));
  module_->computations_.emplace_back(
      new HloComputation(module_, ModuleInternals::Storage(*module_).arena.Save(name)));
  computation_positions_.push_back(start);
  HloComputation* computation = module_->computations_.back().get();
  computations_by_name_.emplace(name, computation);
  if (is_entry) {
    if (entry_ != nullptr) return Error(start, "more than one ENTRY computation");
    entry_ = computation;
    entry_pos_ = start;
  }
  HOPT_RETURN_IF_ERROR(ParseComputationBody(computation, body_pos));
  size_t before = cursor_.pos();
  if (cursor_.Consume(',')) {
    absl::string_view attr = cursor_.ReadWord();
    if (attr != "execution_thread" || !cursor_.Consume('='))
      return ErrorHere("expected 'execution_thread=' after the computation");
    absl::string_view quoted;
    if (!cursor_.ReadQuoted(&quoted)) return ErrorHere("expected a quoted thread name");
    auto thread = ParseQuotedString(quoted);
    if (!thread.ok()) return ErrorHere("malformed thread name");
    computation->set_execution_thread(*thread);
  } else {
    cursor_.set_pos(before);
  }
  return absl::OkStatus();
}

absl::Status HloParser::CheckUniqueNames() {
  auto duplicate_error = [&](const HloInstruction* i) {
    return Error(
        name_positions_[InstructionInternals::position(*i)],
        absl::StrCat("instruction '", i->name(), "' is already defined in this computation"));
  };
  if (duplicate_ != nullptr) return duplicate_error(duplicate_);
  // Names not indexed yet: against the index, then among themselves.
  const auto& all = current_->instructions_;
  InstructionRange tail{all.data() + indexed_, all.data() + all.size()};
  if (!instructions_by_name_.empty())
    for (const HloInstruction* i : tail)
      if (instructions_by_name_.Find(i->name()) != nullptr) return duplicate_error(i);
  if (const HloInstruction* again = FindDuplicateName(tail)) return duplicate_error(again);
  return absl::OkStatus();
}

absl::Status HloParser::ParseComputationBody(HloComputation* computation, size_t body_pos) {
  HloInstruction* root = nullptr;
  size_t root_pos = 0;
  size_t expected = CountBodyLines(cursor_.text(), cursor_.pos());
  expected_ = expected;
  computation->ReserveInstructions(expected);
  module_->ReserveLocations(expected);
  name_positions_.reserve(expected);
  current_ = computation;
  constexpr size_t kReleaseStep = 4 << 20;
  while (true) {
    if (release_ && cursor_.pos() > released_up_to_ + kReleaseStep) {
      LocationAt(cursor_.pos());  // count these lines while they are still mapped
      release_(released_up_to_, cursor_.pos());
      released_up_to_ = cursor_.pos();
    }
    if (!cursor_.SkipSpace()) return ErrorHere("unterminated /* comment");
    if (cursor_.AtEnd())
      return Error(body_pos, absl::StrCat("computation '", computation->name(),
                                          "' is missing its closing '}'"));
    if (cursor_.Peek() == '}') {
      cursor_.Advance();
      break;
    }
    HOPT_RETURN_IF_ERROR(ParseInstructionStatement(computation, &root, &root_pos));
  }
  return FinishComputation(computation, root, body_pos);
}

bool HloParser::AtInlineComputation() {
  size_t start = cursor_.pos();
  bool inline_body = false;
  if (cursor_.Consume('{')) {
    absl::string_view first = cursor_.ReadName();
    if (first == "ROOT") first = cursor_.ReadName();
    inline_body = !first.empty() && cursor_.Consume('=');
  }
  cursor_.set_pos(start);
  return inline_body;
}

absl::Status HloParser::ParseInlineComputation(std::string name, HloComputation** result) {
  std::string unique = name;
  for (int n = 1; computations_by_name_.contains(unique); ++n) unique = absl::StrCat(name, ".", n);
  absl::string_view saved = ModuleInternals::Storage(*module_).arena.Save(unique);
  cursor_.SkipSpace();
  size_t body_pos = cursor_.pos();
  cursor_.Consume('{');
  module_->computations_.emplace_back(new HloComputation(module_, saved));
  computation_positions_.push_back(body_pos);
  HloComputation* computation = module_->computations_.back().get();
  computations_by_name_.emplace(saved, computation);
  // The enclosing computation's parse state waits while this one is read.
  auto names = std::move(instructions_by_name_);
  auto operands = std::move(pending_operands_);
  auto controls = std::move(pending_controls_);
  auto anonymous = std::move(anonymous_counts_);
  auto positions = std::move(name_positions_);
  HloComputation* outer = current_;
  size_t outer_indexed = indexed_;
  size_t outer_expected = expected_;
  HloInstruction* outer_duplicate = duplicate_;
  indexed_ = 0;
  duplicate_ = nullptr;
  name_positions_.clear();
  std::fill(std::begin(recent_), std::end(recent_), nullptr);
  std::fill(std::begin(recently_used_), std::end(recently_used_), nullptr);
  instructions_by_name_.clear();
  pending_operands_.clear();
  pending_controls_.clear();
  anonymous_counts_.clear();
  absl::Status status = ParseComputationBody(computation, body_pos);
  instructions_by_name_ = std::move(names);
  pending_operands_ = std::move(operands);
  pending_controls_ = std::move(controls);
  anonymous_counts_ = std::move(anonymous);
  name_positions_ = std::move(positions);
  current_ = outer;
  indexed_ = outer_indexed;
  expected_ = outer_expected;
  duplicate_ = outer_duplicate;
  std::fill(std::begin(recent_), std::end(recent_), nullptr);
  std::fill(std::begin(recently_used_), std::end(recently_used_), nullptr);
  *result = computation;
  return status;
}

absl::Status HloParser::ResolveComputationReferences() {
  for (const PendingReference& pending : pending_computations_) {
    HloAttribute& attr =
        (*InstructionInternals::attributes(*pending.instruction))[pending.attribute_index];
    for (const auto& [name, pos] : pending.names) {
      auto it = computations_by_name_.find(name);
      if (it == computations_by_name_.end())
        return Error(pos, absl::StrCat("unknown computation '", name, "'"));
      if (it->second == pending.instruction->parent())
        return Error(pos, absl::StrCat("computation '", name, "' calls itself"));
      attr.computations.push_back(it->second);
    }
  }
  return absl::OkStatus();
}

size_t HloParser::ComputationIndex(const HloComputation* computation) const {
  const auto& all = module_->computations_;
  size_t k = 0;
  while (k < all.size() && all[k].get() != computation) ++k;
  return k;
}

absl::Status HloParser::Run() {
  module_->IndexNamesFromTheStart();
  module_->set_source_name(filename_);
  if (!cursor_.SkipSpace()) return ErrorHere("unterminated /* comment");
  size_t start = cursor_.pos();
  if (cursor_.ReadWord() == "HloModule") {
    HOPT_RETURN_IF_ERROR(ParseHeader());
    HOPT_RETURN_IF_ERROR(ParseStackFrameTables());
  } else {
    cursor_.set_pos(start);
  }
  while (true) {
    if (!cursor_.SkipSpace()) return ErrorHere("unterminated /* comment");
    if (cursor_.AtEnd()) break;
    if (cursor_.text().substr(cursor_.pos(), 9) == "HloModule")
      return ErrorHere("a second 'HloModule' in one input (split modules with '// -----')");
    HOPT_RETURN_IF_ERROR(ParseComputation());
  }
  if (module_->computations_.empty()) return Error(cursor_.pos(), "no computation in the input");
  HOPT_RETURN_IF_ERROR(ResolveComputationReferences());
  // As the proto reader does: a cycle of calls has no order to run or
  // print in, and whatever walks the calls would not end.
  if (auto [callee, caller] = module_->FindCallCycle(); callee != nullptr)
    return Error(computation_positions_[ComputationIndex(caller)],
                 absl::StrCat("computation '", callee->name(), "' calls itself (through '",
                              caller->name(), "')"));
  module_->set_entry_computation(entry_ != nullptr ? entry_ : module_->computations_.back().get());
  if (const auto& layout = module_->entry_computation_layout()) {
    HloComputation* entry = module_->entry_computation();
    if (static_cast<int64_t>(layout->parameters.size()) != entry->num_parameters())
      return Error(
          start, absl::StrCat("entry_computation_layout has ", layout->parameters.size(),
                              " parameters, the entry computation has ", entry->num_parameters()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string text,
                                                          absl::string_view filename) {
  return ParseHloModuleAt(text, filename, 1);
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleAt(absl::string_view text,
                                                            absl::string_view filename,
                                                            int64_t first_line) {
  auto module = std::make_unique<HloModule>("module");
  HloParser parser(text, filename, module.get());
  parser.set_first_line(first_line);
  HOPT_RETURN_IF_ERROR(parser.Run());
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFromFile(const std::string& path,
                                                                  absl::string_view display_name) {
  HOPT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, MappedFile::Content::kText));
  auto module = std::make_unique<HloModule>("module");
  HloParser parser(file->bytes(), display_name, module.get());
  // Pages are handed back as the parser moves on, so the text and the
  // finished IR are never resident together.
  parser.set_release([&](size_t begin, size_t end) { file->Release(begin, end); });
  HOPT_RETURN_IF_ERROR(parser.Run());
  return module;
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  HloModule scratch("shape");
  HloParser parser(text, "<shape>", &scratch);
  Shape shape;
  HOPT_RETURN_IF_ERROR(parser.ParseSingleShape(&shape));
  return shape;
}

}  // namespace hopt

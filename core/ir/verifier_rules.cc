// SPDX-License-Identifier: Apache-2.0

#include "core/ir/verifier_rules.h"

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/ir/computation.h"

namespace hopt {
namespace {

constexpr const char* kControlFlow = "control-flow";
constexpr const char* kAttributes = "attributes";
constexpr const char* kAsyncPairs = "async-pairs";
constexpr const char* kAsyncShapes = "async-shapes";
constexpr const char* kShape = "shape";

// `a`, `a or b`, `a, b or c`.
std::string Alternatives(std::initializer_list<HloOpcode> opcodes) {
  std::string text;
  size_t k = 0;
  for (HloOpcode op : opcodes) {
    if (k > 0) absl::StrAppend(&text, k + 1 == opcodes.size() ? " or " : ", ");
    absl::StrAppend(&text, HloOpcodeString(op));
    ++k;
  }
  return text;
}

std::optional<RuleViolation> ControlFlow(std::string detail) {
  return RuleViolation{kControlFlow, std::move(detail)};
}

// The computations an attribute names, or none when it is missing.
std::vector<const HloComputation*> Called(const HloInstruction& i, absl::string_view name) {
  const HloAttribute* attr = i.FindAttribute(name);
  if (attr == nullptr) return {};
  return std::vector<const HloComputation*>(attr->computations.begin(), attr->computations.end());
}

// Each called computation of a conditional or a while loop receives one
// value: a branch its operand, a condition or body the loop state.
std::optional<RuleViolation> TakesOneParameter(const HloComputation& c, absl::string_view role) {
  if (c.num_parameters() == 1) return std::nullopt;
  return ControlFlow(absl::StrCat("the ", role, " '", c.name(), "' takes ", c.num_parameters(),
                                  " parameters; it must take one"));
}

// A value handed to a called computation (or returned by it) must have
// the shape the other side expects; layouts and dynamic dimensions aside,
// as XLA's verifier compares them.
bool CompatibleIgnoringDynamic(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t k = 0; k < a.tuple_shapes_size(); ++k)
      if (!CompatibleIgnoringDynamic(a.tuple_shapes(k), b.tuple_shapes(k))) return false;
    return true;
  }
  return a.dimensions() == b.dimensions();
}

std::optional<RuleViolation> SameShape(const Shape& given, const Shape& expected,
                                       const std::string& what) {
  // A dimension's bound counts, not whether it is dynamic (`f32[<=4]` and
  // `f32[4]` are the same here, as in XLA's ShapeUtil::Compatible).
  if (CompatibleIgnoringDynamic(given, expected)) return std::nullopt;
  return ControlFlow(absl::StrCat(what, " is ", given.ToString(false), ", but ",
                                  expected.ToString(false), " is expected"));
}

std::optional<RuleViolation> CheckConditional(const HloInstruction& i) {
  std::vector<const HloComputation*> branches = Called(i, "branch_computations");
  if (!i.HasAttribute("branch_computations")) {
    for (const char* name : {"true_computation", "false_computation"})
      for (const HloComputation* c : Called(i, name)) branches.push_back(c);
    if (branches.size() != 2)
      return ControlFlow(
          "a conditional needs branch_computations={...} or both true_computation= and "
          "false_computation=");
  }
  if (branches.empty())
    return ControlFlow("a conditional needs at least one branch (branch_computations={} is empty)");
  if (i.operand_count() == 0) return ControlFlow("a conditional needs a branch index operand");
  const Shape& index = i.operand(0)->shape();
  const bool by_pred = index.element_type() == PrimitiveType::PRED;
  if (!index.IsScalar() || (!by_pred && index.element_type() != PrimitiveType::S32))
    return ControlFlow(absl::StrCat("the branch index is ", index.ToString(false),
                                    "; it must be pred[] or s32[]"));
  if (by_pred && branches.size() != 2)
    return ControlFlow(absl::StrCat(
        "a conditional on a pred[] index has two branches, this one has ", branches.size()));
  if (static_cast<size_t>(i.operand_count()) != branches.size() + 1)
    return ControlFlow(absl::StrCat(
        "a conditional with ", branches.size(), " branches takes ", branches.size() + 1,
        " operands (the index, then one per branch), it has ", i.operand_count()));
  for (size_t k = 0; k < branches.size(); ++k) {
    const HloComputation& branch = *branches[k];
    if (auto violation = TakesOneParameter(branch, "branch")) return violation;
    const Shape& operand = i.operand(static_cast<int64_t>(k) + 1)->shape();
    if (auto violation =
            SameShape(operand, branch.parameter_instruction(0)->shape(),
                      absl::StrCat("operand ", k + 1, ", for branch '", branch.name(), "',")))
      return violation;
    if (branch.root_instruction() == nullptr) continue;
    if (auto violation = SameShape(branch.root_instruction()->shape(), i.shape(),
                                   absl::StrCat("the result of branch '", branch.name(), "'")))
      return violation;
  }
  return std::nullopt;
}

std::optional<RuleViolation> CheckWhile(const HloInstruction& i) {
  std::vector<const HloComputation*> condition = Called(i, "condition");
  std::vector<const HloComputation*> body = Called(i, "body");
  if (condition.size() != 1 || body.size() != 1)
    return ControlFlow("a while loop needs condition= and body=");
  if (auto violation = TakesOneParameter(*condition[0], "condition")) return violation;
  if (auto violation = TakesOneParameter(*body[0], "body")) return violation;
  // One state shape throughout: the operand, both parameters, the body's
  // result and the loop's.
  if (i.operand_count() != 1) return ControlFlow("a while loop takes one operand, its state");
  const Shape& state = i.operand(0)->shape();
  if (auto violation =
          SameShape(condition[0]->parameter_instruction(0)->shape(), state,
                    absl::StrCat("the parameter of condition '", condition[0]->name(), "'")))
    return violation;
  if (auto violation = SameShape(body[0]->parameter_instruction(0)->shape(), state,
                                 absl::StrCat("the parameter of body '", body[0]->name(), "'")))
    return violation;
  if (body[0]->root_instruction() != nullptr)
    if (auto violation = SameShape(body[0]->root_instruction()->shape(), state,
                                   absl::StrCat("the result of body '", body[0]->name(), "'")))
      return violation;
  if (auto violation = SameShape(i.shape(), state, "the loop's shape")) return violation;
  const HloInstruction* root = condition[0]->root_instruction();
  if (root == nullptr) return std::nullopt;  // the condition's own check reports it
  const Shape& decision = root->shape();
  if (decision.IsScalar() && decision.element_type() == PrimitiveType::PRED) return std::nullopt;
  return ControlFlow(absl::StrCat("the condition '", condition[0]->name(), "' returns ",
                                  decision.ToString(false), "; a loop condition returns pred[]"));
}

std::optional<RuleViolation> CheckCompare(const HloInstruction& i) {
  absl::string_view direction = i.comparison_direction();
  for (absl::string_view known : {"EQ", "NE", "LT", "LE", "GT", "GE"})
    if (direction == known) return std::nullopt;
  std::string problem = i.HasAttribute("direction")
                            ? absl::StrCat("direction=", direction, " is not a direction")
                            : std::string("compare needs direction=");
  return RuleViolation{kAttributes, absl::StrCat(problem, " (EQ, NE, LT, LE, GT or GE)")};
}

// XLA's pairing of asynchronous steps: a start (or update) has one user,
// the next step; an update or done takes the previous step as its one
// operand.
std::optional<RuleViolation> SingleUser(const HloInstruction& i,
                                        std::initializer_list<HloOpcode> expected) {
  if (i.user_count() != 1)
    return RuleViolation{kAsyncPairs, absl::StrCat("the ", HloOpcodeString(i.opcode()),
                                                   " needs one user, it has ", i.user_count())};
  HloOpcode user = i.users().front()->opcode();
  for (HloOpcode ok : expected)
    if (user == ok) return std::nullopt;
  return RuleViolation{kAsyncPairs,
                       absl::StrCat("the user of a ", HloOpcodeString(i.opcode()), " must be ",
                                    Alternatives(expected), ", not ", HloOpcodeString(user))};
}

std::optional<RuleViolation> SingleOperand(const HloInstruction& i,
                                           std::initializer_list<HloOpcode> expected) {
  if (i.operand_count() != 1)
    return RuleViolation{
        kAsyncPairs, absl::StrCat("a ", HloOpcodeString(i.opcode()), " takes one operand, it has ",
                                  i.operand_count())};
  HloOpcode operand = i.operand(0)->opcode();
  for (HloOpcode ok : expected)
    if (operand == ok) return std::nullopt;
  return RuleViolation{kAsyncPairs,
                       absl::StrCat("the operand of a ", HloOpcodeString(i.opcode()), " must be ",
                                    Alternatives(expected), ", not ", HloOpcodeString(operand))};
}

std::optional<RuleViolation> CheckAsyncPairs(const HloInstruction& i) {
  using Op = HloOpcode;
  switch (i.opcode()) {
    case Op::kAsyncStart: return SingleUser(i, {Op::kAsyncUpdate, Op::kAsyncDone});
    case Op::kAsyncUpdate:
      if (auto violation = SingleOperand(i, {Op::kAsyncStart, Op::kAsyncUpdate})) return violation;
      return SingleUser(i, {Op::kAsyncUpdate, Op::kAsyncDone});
    case Op::kAsyncDone: return SingleOperand(i, {Op::kAsyncStart, Op::kAsyncUpdate});
    case Op::kAllReduceStart: return SingleUser(i, {Op::kAllReduceDone});
    case Op::kAllReduceDone: return SingleOperand(i, {Op::kAllReduceStart});
    case Op::kCopyStart: return SingleUser(i, {Op::kCopyDone});
    case Op::kCopyDone: return SingleOperand(i, {Op::kCopyStart});
    case Op::kCollectivePermuteStart: return SingleUser(i, {Op::kCollectivePermuteDone});
    case Op::kCollectivePermuteDone: return SingleOperand(i, {Op::kCollectivePermuteStart});
    case Op::kSend:
    case Op::kRecv:
      // The root of a computation an async-start wraps has no user (XLA
      // exempts exactly those; hopt exempts the root of any computation
      // but the entry).
      if (i.parent() != nullptr && i.parent()->root_instruction() == &i &&
          !i.parent()->IsEntryComputation())
        return std::nullopt;
      return SingleUser(i, {i.opcode() == Op::kSend ? Op::kSendDone : Op::kRecvDone, Op::kTuple});
    case Op::kSendDone: return SingleOperand(i, {Op::kSend, Op::kGetTupleElement});
    case Op::kRecvDone: return SingleOperand(i, {Op::kRecv, Op::kGetTupleElement});
    default: return std::nullopt;
  }
}

std::optional<RuleViolation> AsyncShape(const Shape& given, const Shape& expected,
                                        const std::string& what) {
  if (CompatibleIgnoringDynamic(given, expected)) return std::nullopt;
  return RuleViolation{kAsyncShapes, absl::StrCat(what, " is ", given.ToString(false), ", but ",
                                                  expected.ToString(false), " is expected")};
}

// XLA's shapes of an asynchronous step: a tuple whose element {0} holds
// the wrapped computation's parameters (the start's operands) and element
// {1} its result (the done's shape); an update passes the tuple on
// unchanged. Runs after CheckAsyncPairs, so each update or done has its
// one operand.
std::optional<RuleViolation> CheckAsyncShapes(const HloInstruction& i) {
  HloOpcode op = i.opcode();
  if (op != HloOpcode::kAsyncStart && op != HloOpcode::kAsyncUpdate && op != HloOpcode::kAsyncDone)
    return std::nullopt;
  const Shape& async_shape = op == HloOpcode::kAsyncDone ? i.operand(0)->shape() : i.shape();
  std::string name(HloOpcodeString(op));
  if (!async_shape.IsTuple() || async_shape.tuple_shapes_size() < 2)
    return RuleViolation{kAsyncShapes,
                         absl::StrCat("the ", name, "'s async shape ", async_shape.ToString(false),
                                      " must be a tuple of at least two elements")};
  const Shape& arguments = async_shape.tuple_shapes(0);
  std::vector<const HloComputation*> wrapped = Called(i, "calls");
  if (wrapped.size() == 1 && wrapped[0]->root_instruction() != nullptr) {
    std::vector<Shape> parameters;
    for (int64_t k = 0; k < wrapped[0]->num_parameters(); ++k)
      parameters.push_back(wrapped[0]->parameter_instruction(k)->shape());
    if (auto violation =
            AsyncShape(arguments, Shape::MakeTuple(std::move(parameters)),
                       absl::StrCat("element {0} of the ", name, "'s shape (the arguments of '",
                                    wrapped[0]->name(), "')")))
      return violation;
    if (auto violation =
            AsyncShape(async_shape.tuple_shapes(1), wrapped[0]->root_instruction()->shape(),
                       absl::StrCat("element {1} of the ", name, "'s shape (the result of '",
                                    wrapped[0]->name(), "')")))
      return violation;
  }
  switch (op) {
    case HloOpcode::kAsyncStart:
      if (!arguments.IsTuple() || arguments.tuple_shapes_size() != i.operand_count())
        return RuleViolation{
            kAsyncShapes,
            absl::StrCat("element {0} of the async-start's shape, ", arguments.ToString(false),
                         ", must hold its ", i.operand_count(), " operand(s)")};
      for (int64_t k = 0; k < i.operand_count(); ++k)
        if (auto violation = AsyncShape(i.operand(k)->shape(), arguments.tuple_shapes(k),
                                        absl::StrCat("operand ", k, " of the async-start")))
          return violation;
      return std::nullopt;
    case HloOpcode::kAsyncUpdate:
      return AsyncShape(i.shape(), i.operand(0)->shape(), "the async-update's shape");
    default: return AsyncShape(i.shape(), async_shape.tuple_shapes(1), "the async-done's shape");
  }
}

std::optional<RuleViolation> TransferShape(const HloInstruction& i, const Shape& expected) {
  if (CompatibleIgnoringDynamic(i.shape(), expected)) return std::nullopt;
  return RuleViolation{kShape, absl::StrCat("the shape is ", i.shape().ToString(false), ", but ",
                                            expected.ToString(false), " is expected")};
}

// The shape of a one-step transfer's state, taken from its operand:
// element `k` of a tuple, or nothing when the operand is not one (the
// pairing rule has named the operand's opcode already).
const Shape* Element(const HloInstruction& i, int64_t k) {
  if (i.operand_count() != 1) return nullptr;
  const Shape& state = i.operand(0)->shape();
  if (!state.IsTuple() || state.tuple_shapes_size() <= k) return nullptr;
  return &state.tuple_shapes(k);
}

// XLA's fixed shapes of copy-start/-done and collective-permute-start/
// -done: a start holds (destination, source, context); the done gives the
// destination. (XLA's reader builds send, recv and their -done with shapes
// of its own, whatever the text declares, so their declared shapes are
// not checked.)
std::optional<RuleViolation> CheckTransferShapes(const HloInstruction& i) {
  const Shape u32 = Shape::MakeScalar(PrimitiveType::U32);
  switch (i.opcode()) {
    case HloOpcode::kCopyStart:
      if (i.operand_count() != 1) return std::nullopt;
      return TransferShape(i,
                           Shape::MakeTuple({i.operand(0)->shape(), i.operand(0)->shape(), u32}));
    case HloOpcode::kCopyDone:
    case HloOpcode::kCollectivePermuteDone: {
      const Shape* destination = Element(i, i.opcode() == HloOpcode::kCopyDone ? 0 : 1);
      return destination == nullptr ? std::nullopt : TransferShape(i, *destination);
    }
    case HloOpcode::kCollectivePermuteStart: {
      // One operand, not in place: (operand, operand, contexts...). Beyond
      // XLA: older dumps give the start the operand's own shape
      // (docs/formats.md, "Verifier and XLA's verifier").
      if (i.operand_count() != 1) return std::nullopt;
      const Shape& operand = i.operand(0)->shape();
      if (!i.shape().IsTuple() && CompatibleIgnoringDynamic(i.shape(), operand))
        return std::nullopt;
      std::vector<Shape> elements = {operand, operand};
      if (i.shape().IsTuple())
        for (int64_t k = 2; k < i.shape().tuple_shapes_size(); ++k)
          elements.push_back(i.shape().tuple_shapes(k));
      return TransferShape(i, Shape::MakeTuple(std::move(elements)));
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<RuleViolation> CheckOpcodeRules(const HloInstruction& i) {
  if (auto violation = CheckAsyncPairs(i)) return violation;
  if (auto violation = CheckAsyncShapes(i)) return violation;
  if (auto violation = CheckTransferShapes(i)) return violation;
  switch (i.opcode()) {
    case HloOpcode::kConditional: return CheckConditional(i);
    case HloOpcode::kWhile: return CheckWhile(i);
    case HloOpcode::kCompare: return CheckCompare(i);
    default: return std::nullopt;
  }
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "hopt/ir/verifier.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/ir/instruction_internal.h"
#include "core/ir/name_check.h"
#include "core/ir/shape_inference.h"
#include "core/ir/text_cursor.h"
#include "core/ir/verifier_rules.h"
#include "hopt/ir/collective_modes.h"
#include "hopt/ir/stack_frames.h"
#include "hopt/support/diagnostic.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

// How strictly an instruction's element types must match the inferred
// ones. XLA's verifier, run as its test bases and pass pipelines run it
// (mixed precision allowed), lets an instruction that computes a value
// change its floating-point precision, but not one that only moves values
// (tuple, get-tuple-element, dynamic-update-slice, ...).
enum class ElementTypes { kExact, kIgnoringFpPrecision, kAny };

bool Compatible(const Shape& a, const Shape& b, ElementTypes types) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_shapes_size() != b.tuple_shapes_size())
      return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i)
      if (!Compatible(a.tuple_shapes(i), b.tuple_shapes(i), types)) return false;
    return true;
  }
  bool same_type = a.element_type() == b.element_type() || types == ElementTypes::kAny ||
                   (types == ElementTypes::kIgnoringFpPrecision &&
                    IsFloatingPointType(a.element_type()) && IsFloatingPointType(b.element_type()));
  // Whether a dimension is dynamic does not count, as in XLA.
  return same_type && a.dimensions() == b.dimensions();
}

ElementTypes ElementTypesFor(HloOpcode op, bool allow_mixed_precision) {
  switch (op) {
    // A dot, convolution or reduction may produce another element type than
    // its inputs (preferred_element_type, a reduction computation).
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kReduce:
    case HloOpcode::kAllReduce: return ElementTypes::kAny;
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kDynamicUpdateSlice: return ElementTypes::kExact;
    default:
      return allow_mixed_precision ? ElementTypes::kIgnoringFpPrecision : ElementTypes::kExact;
  }
}

// XLA's check with mixed precision off: the floating-point parts of an
// instruction's operands share one type, except where the opcode moves,
// groups or converts values on purpose.
std::optional<std::string> MixedPrecisionProblem(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kConstant:
    case HloOpcode::kConvolution:
    case HloOpcode::kDot:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCustomCall:
    case HloOpcode::kDomain:
    case HloOpcode::kFusion:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kParameter:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kSort:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile: return std::nullopt;
    default: break;
  }
  std::optional<PrimitiveType> seen;
  std::optional<std::string> problem;
  std::function<void(const Shape&)> visit = [&](const Shape& shape) {
    if (problem) return;
    if (shape.IsTuple() || shape.IsBuffer()) {
      for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k) visit(shape.tuple_shapes(k));
      return;
    }
    if (!IsFloatingPointType(shape.element_type())) return;
    if (!seen)
      seen = shape.element_type();
    else if (*seen != shape.element_type())
      problem = absl::StrCat("operands of ", PrimitiveTypeString(*seen), " and ",
                             PrimitiveTypeString(shape.element_type()),
                             ": floating-point types of different precisions, and mixed "
                             "precision is off");
  };
  for (const HloInstruction* operand : i.operands()) visit(operand->shape());
  return problem;
}

// XLA's iota rule: a non-scalar array of integers, floats or complex
// numbers, with iota_dimension one of its dimensions.
std::optional<std::string> IotaProblem(const HloInstruction& i) {
  const Shape& shape = i.shape();
  if (!shape.IsArray() || shape.rank() == 0)
    return absl::StrCat("iota produces a non-scalar array, not ", shape.ToString(false));
  PrimitiveType type = shape.element_type();
  if (!IsIntegralType(type) && !IsFloatingPointType(type) && !IsComplexType(type))
    return absl::StrCat("iota produces integers, floats or complex numbers, not ",
                        PrimitiveTypeString(type));
  std::optional<int64_t> dim = i.IntAttribute("iota_dimension");
  if (!dim || *dim < 0 || *dim >= shape.rank())
    return absl::StrCat("iota_dimension must be one of the dimensions of ", shape.ToString(false));
  return std::nullopt;
}

// XLA's rule for the result type of a dot or convolution (its
// preferred_element_type): any type, but not narrower than integer (or
// complex) operands.
std::optional<std::string> PreferredTypeProblem(const HloInstruction& i) {
  if (i.operand_count() < 2 || !i.shape().IsArray()) return std::nullopt;
  PrimitiveType lhs = i.operand(0)->shape().element_type();
  PrimitiveType rhs = i.operand(1)->shape().element_type();
  if (IsFloatingPointType(lhs) || IsFloatingPointType(rhs)) return std::nullopt;
  int widest = std::max(PrimitiveTypeBitWidth(lhs), PrimitiveTypeBitWidth(rhs));
  PrimitiveType result = i.shape().element_type();
  if (PrimitiveTypeBitWidth(result) >= widest) return std::nullopt;
  return absl::StrCat(
      "a ", PrimitiveTypeString(result), " result is narrower than the ",
      PrimitiveTypeString(PrimitiveTypeBitWidth(lhs) >= PrimitiveTypeBitWidth(rhs) ? lhs : rhs),
      " operands");
}

// XLA's rng rule: two scalar bounds of one element type, which the result
// shares (up to floating-point precision), of a kind the distribution
// draws: floats for rng_normal; floats, integers or pred for rng_uniform.
std::optional<std::string> RngProblem(const HloInstruction& i, bool allow_mixed_precision) {
  if (i.operand_count() != 2)
    return absl::StrCat("rng takes 2 operands, it has ", i.operand_count());
  const Shape& low = i.operand(0)->shape();
  const Shape& high = i.operand(1)->shape();
  if (!low.IsScalar() || !high.IsScalar())
    return absl::StrCat("rng's operands must be scalars, got ", low.ToString(false), " and ",
                        high.ToString(false));
  PrimitiveType type = low.element_type();
  if (high.element_type() != type ||
      !Compatible(
          Shape(type, i.shape().IsArray() ? i.shape().dimensions() : DimensionVector{}), i.shape(),
          allow_mixed_precision ? ElementTypes::kIgnoringFpPrecision : ElementTypes::kExact))
    return absl::StrCat("rng's operands ", low.ToString(false), " and ", high.ToString(false),
                        " and its result ", i.shape().ToString(false),
                        " need compatible element types");
  absl::string_view distribution = i.GetAttributeText("distribution").value_or("");
  bool uniform = distribution == "rng_uniform";
  if (!uniform && distribution != "rng_normal")
    return absl::StrCat("rng needs distribution=rng_uniform or rng_normal");
  if (!IsFloatingPointType(type) &&
      !(uniform && (IsIntegralType(type) || type == PrimitiveType::PRED)))
    return absl::StrCat(distribution, " does not draw ", PrimitiveTypeString(type),
                        uniform ? " (floats, integers or pred)" : " (floats only)");
  return std::nullopt;
}

// XLA's all-gather / reduce-scatter rule: the shard count comes from the
// shapes (how often the operand's gathered dimension fits into the
// result's, or the other way round) and must be the group size wherever
// that is above 1; a module that leaves replica_count and num_partitions
// at 1 is checked on its shapes alone.
absl::StatusOr<int64_t> ShardCount(const HloInstruction& i, int64_t dimension, int64_t group_size) {
  bool gather = i.opcode() == HloOpcode::kAllGather;
  for (int64_t k = 0; k < i.operand_count(); ++k) {
    const Shape& in = i.operand(k)->shape();
    const Shape* out = &i.shape();
    if (i.operand_count() > 1 || out->IsTuple()) {
      if (!out->IsTuple() || out->tuple_shapes_size() <= k) break;
      out = &out->tuple_shapes(k);
    }
    // A scalar element (a torch-xla ordering token) has no dimension to
    // count shards on.
    if (!in.IsArray() || !out->IsArray() || in.rank() <= dimension || out->rank() <= dimension ||
        dimension < 0)
      continue;
    int64_t whole = gather ? out->dimensions(dimension) : in.dimensions(dimension);
    int64_t shard = gather ? in.dimensions(dimension) : out->dimensions(dimension);
    // Zero-sized on both sides: any group size fits.
    if (shard <= 0 && whole == 0) return group_size;
    if (shard <= 0)
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", dimension, " of the ", gather ? "operand " : "result ",
                       (gather ? in : *out).ToString(false), " is empty: no shard count follows"));
    int64_t count = whole / shard + (whole % shard != 0);
    if (group_size != 1 && count != group_size)
      return absl::InvalidArgumentError(
          absl::StrCat("the shapes give ", count, " shards along dimension ", dimension,
                       ", but each group has ", group_size, " participants"));
    return count;
  }
  return group_size;
}

// What the parser reads back as one name wherever the printer puts one.
// A parameter is also printed bare in its computation's signature, so it
// must start as a bare name does; other names are printed after a '%'.
bool ReadsBackAsName(absl::string_view name, bool printed_bare) {
  if (printed_bare) return IsWritableName(name);
  if (name.empty()) return false;
  for (char c : name)
    if (!IsNameChar(c)) return false;
  return true;
}

}  // namespace

class Verifier {
 public:
  Verifier(const HloModule& module, VerifyOptions options) : module_(module), options_(options) {}
  absl::Status Run();

 private:
  absl::Status Fail(const HloComputation& c, const HloInstruction* i, absl::string_view rule,
                    absl::string_view detail) const {
    std::string where = absl::StrCat("computation '", c.name(), "'");
    if (i != nullptr) absl::StrAppend(&where, ", instruction '", i->name(), "'");
    std::string message = absl::StrCat("verifier: [", rule, "] ", where, ": ", detail);
    if (i != nullptr) {
      std::string source = SourceLineOf(*i, /*with_function=*/true);
      if (!source.empty()) absl::StrAppend(&message, "; from ", source);
    }
    if (options_.locate && i != nullptr) {
      HloModule::SourceLocation at = module_.LocationOf(*i);
      if (at.line > 0)
        return LocatedError(absl::StatusCode::kInvalidArgument, module_.source_name(), at.line,
                            at.column, message);
    }
    return absl::InvalidArgumentError(message);
  }
  absl::Status VerifyNames(const HloComputation& c, const HloInstruction* i);
  absl::Status VerifyComputation(const HloComputation& c);
  absl::Status VerifyStructure(const HloComputation& c, const HloInstruction& i);
  absl::Status VerifyUniqueNames(const HloComputation& c);
  absl::Status VerifyAcyclic(const HloComputation& c);
  absl::Status VerifyShape(const HloComputation& c, const HloInstruction& i);
  // The operands of `user`, as a set when it has many (a wide tuple is
  // asked once per operand: scanning it each time would be quadratic).
  bool HasOperand(const HloInstruction& user, const HloInstruction* operand);
  int64_t DistinctOperandCount(const HloInstruction& i);

  const HloModule& module_;
  VerifyOptions options_;
  absl::flat_hash_set<const HloComputation*> computations_;
  static constexpr int64_t kWide = 32;
  absl::flat_hash_map<const HloInstruction*, absl::flat_hash_set<const HloInstruction*>>
      wide_operands_;
};

bool Verifier::HasOperand(const HloInstruction& user, const HloInstruction* operand) {
  const auto& operands = user.operands();
  if (user.operand_count() <= kWide)
    return std::find(operands.begin(), operands.end(), operand) != operands.end();
  auto [it, added] = wide_operands_.try_emplace(&user);
  if (added) it->second.insert(operands.begin(), operands.end());
  return it->second.contains(operand);
}

int64_t Verifier::DistinctOperandCount(const HloInstruction& i) {
  if (i.operand_count() > kWide) {
    HasOperand(i, nullptr);  // builds the set
    return static_cast<int64_t>(wide_operands_.at(&i).size());
  }
  int64_t distinct = 0;
  for (int64_t k = 0; k < i.operand_count(); ++k) {
    bool first = true;
    for (int64_t j = 0; j < k; ++j) first &= i.operand(j) != i.operand(k);
    distinct += first;
  }
  return distinct;
}

absl::Status Verifier::Run() {
  if (module_.entry_computation() == nullptr)
    return absl::InvalidArgumentError("verifier: [entry] the module has no entry computation");
  if (!ReadsBackAsName(module_.name(), /*printed_bare=*/true))
    return absl::InvalidArgumentError(absl::StrCat(
        "verifier: [names] the module's name '", module_.name(),
        "' cannot be written as HLO text (it starts with a letter or '_' and goes on with "
        "letters, digits, '_', '.' and '-')"));
  absl::flat_hash_set<absl::string_view> names;
  for (const HloComputation* c : module_.computations()) {
    computations_.insert(c);
    HOPT_RETURN_IF_ERROR(VerifyNames(*c, nullptr));
    if (!names.insert(c->name()).second)
      return Fail(*c, nullptr, "unique-names", "another computation has the same name");
  }
  if (!computations_.contains(module_.entry_computation()))
    return absl::InvalidArgumentError(
        "verifier: [entry] the entry computation is not part of the module");
  for (const HloComputation* c : module_.computations()) {
    HOPT_RETURN_IF_ERROR(VerifyComputation(*c));
  }
  return absl::OkStatus();
}

absl::Status Verifier::VerifyComputation(const HloComputation& c) {
  if (c.root_instruction() == nullptr)
    return Fail(c, nullptr, "root", "the computation has no root instruction");
  if (c.root_instruction()->parent() != &c)
    return Fail(c, c.root_instruction(), "root", "the root belongs to another computation");
  int64_t user_entries = 0, operand_edges = 0;
  for (int64_t n = 0; n < c.num_parameters(); ++n) {
    const HloInstruction* p = c.parameter_instruction(n);
    if (p == nullptr || p->parent() != &c || p->opcode() != HloOpcode::kParameter ||
        p->parameter_number() != n)
      return Fail(c, p, "parameters", absl::StrCat("parameter ", n, " is missing or misnumbered"));
  }
  HOPT_RETURN_IF_ERROR(VerifyUniqueNames(c));
  for (const HloInstruction* i : c.instructions()) {
    if (i->opcode() == HloOpcode::kParameter &&
        (i->parameter_number() >= c.num_parameters() ||
         c.parameter_instruction(i->parameter_number()) != i))
      return Fail(c, i, "parameters", "this parameter is not registered with its computation");
    HOPT_RETURN_IF_ERROR(VerifyStructure(c, *i));
    user_entries += i->user_count();
    operand_edges += DistinctOperandCount(*i);
    for (const HloInstruction* operand : i->operands())
      if (operand->parent() != &c)
        return Fail(c, i, "use-def",
                    absl::StrCat("operand '", operand->name(), "' is not in this computation"));
    HOPT_RETURN_IF_ERROR(VerifyShape(c, *i));
    if (std::optional<RuleViolation> violation = CheckOpcodeRules(*i))
      return Fail(c, i, violation->rule, violation->detail);
  }
  if (user_entries != operand_edges) {
    // Find the culprit for the message (rare path, quadratic is fine).
    for (const HloInstruction* i : c.instructions())
      for (const HloInstruction* operand : i->operands())
        if (!operand->HasUser(i))
          return Fail(c, i, "user-list",
                      absl::StrCat("operand '", operand->name(), "' does not list it as a user"));
    return Fail(c, nullptr, "user-list", "user lists and operand lists disagree");
  }
  return VerifyAcyclic(c);
}

// Operands and control predecessors must form a DAG: a cycle has no order
// to print or run in (pass_pipeline_fuzzer found modules that had one).
absl::Status Verifier::VerifyAcyclic(const HloComputation& c) {
  auto [at, dependency] = c.FindDependencyCycle();
  if (at == nullptr) return absl::OkStatus();
  return Fail(c, at, "acyclic",
              absl::StrCat("it depends on '", dependency->name(),
                           "', which depends on it (a cycle through operands or "
                           "control-predecessors)"));
}

absl::Status Verifier::VerifyUniqueNames(const HloComputation& c) {
  if (const HloInstruction* again = FindDuplicateName(c.instructions()))
    return Fail(c, again, "unique-names", "another instruction in the computation has this name");
  return absl::OkStatus();
}

// A pass may rename anything; hopt must still be able to print the module
// and read it back.
absl::Status Verifier::VerifyNames(const HloComputation& c, const HloInstruction* i) {
  if (i == nullptr) {
    if (ReadsBackAsName(c.name(), /*printed_bare=*/false)) return absl::OkStatus();
    return Fail(c, nullptr, "names",
                "the computation's name cannot be written as HLO text (names are letters, "
                "digits, '_', '.' and '-')");
  }
  if (ReadsBackAsName(i->name(), i->opcode() == HloOpcode::kParameter)) return absl::OkStatus();
  return Fail(c, i, "names",
              i->opcode() == HloOpcode::kParameter
                  ? "the name cannot be written as HLO text (a parameter's name starts with a "
                    "letter or '_' and goes on with letters, digits, '_', '.' and '-')"
                  : "the name cannot be written as HLO text (names are letters, digits, '_', "
                    "'.' and '-')");
}

absl::Status Verifier::VerifyStructure(const HloComputation& c, const HloInstruction& i) {
  if (i.parent() != &c) return Fail(c, &i, "use-def", "its parent is another computation");
  HOPT_RETURN_IF_ERROR(VerifyNames(c, &i));
  for (const HloInstruction* operand : i.operands()) {
    if (operand == nullptr) return Fail(c, &i, "use-def", "an operand is missing");
  }
  // Each user listed uses this instruction, and is listed once. Together
  // with the edge count in VerifyComputation this proves the user lists
  // and operand lists describe the same edges, in linear time.
  const auto& users = i.users();
  if (users.size() > 1) {
    // The walk mark spots a user listed twice in linear time.
    for (const HloInstruction* user : users) InstructionInternals::mark(*user) = 0;
    bool twice = false;
    for (const HloInstruction* user : users) {
      twice |= InstructionInternals::mark(*user) != 0;
      InstructionInternals::mark(*user) = 1;
    }
    for (const HloInstruction* user : users) InstructionInternals::mark(*user) = 0;
    if (twice) return Fail(c, &i, "user-list", "a user is listed twice");
  }
  for (const HloInstruction* user : i.users()) {
    if (!HasOperand(*user, &i))
      return Fail(c, &i, "user-list",
                  absl::StrCat("user '", user->name(), "' does not have it as an operand"));
  }
  if (auto arity = HloOpcodeArity(i.opcode());
      arity && !i.async_wrapped_opcode() && i.operand_count() != *arity)
    return Fail(c, &i, "operand-count",
                absl::StrCat(HloOpcodeString(i.opcode()), " takes ", *arity, " operand(s), it has ",
                             i.operand_count()));
  for (const HloAttribute& attr : i.attributes()) {
    for (const HloComputation* callee : attr.computations)
      if (!computations_.contains(callee))
        return Fail(
            c, &i, "called-computations",
            absl::StrCat("attribute ", attr.name, " names a computation outside the module"));
    for (const HloInstruction* pred : attr.instructions)
      if (pred->parent() != &c)
        return Fail(
            c, &i, "control-predecessors",
            absl::StrCat("control predecessor '", pred->name(), "' is not in this computation"));
  }
  return absl::OkStatus();
}

absl::Status Verifier::VerifyShape(const HloComputation& c, const HloInstruction& i) {
  HloOpcode op = i.opcode();
  // Shapes are interned per module: an elementwise operation whose operands
  // all have exactly its shape is right without inferring anything.
  if ((IsElementwiseBinary(op) || IsElementwiseUnary(op)) && i.operand_count() > 0) {
    bool same = true;
    for (const HloInstruction* operand : i.operands()) same &= &operand->shape() == &i.shape();
    if (same && i.shape().IsArray()) return absl::OkStatus();
  }
  if (!options_.allow_mixed_precision)
    if (std::optional<std::string> problem = MixedPrecisionProblem(i))
      return Fail(c, &i, "shape", *problem);
  // The readers refuse such shapes; a pass can still build one, and every
  // size computed from it would wrap.
  if (absl::Status fits = CheckArraySizeFits(i.shape()); !fits.ok())
    return Fail(c, &i, "shape", fits.message());
  // Send, recv and their dones have the shape their operands make (XLA's
  // verifier checks it; the text reader builds it so): a proto can say
  // otherwise.
  if (std::optional<Shape> built = ShapeXlaReaderBuilds(i); built && !built->Compatible(i.shape()))
    return Fail(c, &i, "shape",
                absl::StrCat("the shape is ", i.shape().ToString(false), ", but its operands make ",
                             built->ToString(false)));
  std::vector<const Shape*> shapes;
  for (const HloInstruction* operand : i.operands()) shapes.push_back(&operand->shape());
  absl::StatusOr<Shape> expected = absl::UnimplementedError("");
  bool check = true;
  switch (op) {
    case HloOpcode::kReshape:
      if (shapes.size() == 1) expected = InferReshapeShape(*shapes[0], i.shape());
      break;
    case HloOpcode::kBroadcast:
      if (shapes.size() == 1) expected = InferBroadcastShape(*shapes[0], i.shape(), i.dimensions());
      // The inference lets the precision change; without mixed precision
      // the operand's type is the result's.
      if (expected.ok() && !options_.allow_mixed_precision)
        expected->set_element_type(shapes[0]->element_type());
      break;
    case HloOpcode::kIota:
      if (std::optional<std::string> problem = IotaProblem(i))
        return Fail(c, &i, "shape", *problem);
      check = false;
      break;
    case HloOpcode::kRng:
      if (std::optional<std::string> problem = RngProblem(i, options_.allow_mixed_precision))
        return Fail(c, &i, "shape", *problem);
      check = false;
      break;
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: expected = Shape(PrimitiveType::U32, {}); break;
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter: {
      std::vector<int64_t> dims = i.dimensions();
      if (dims.size() != 1)
        return Fail(c, &i, "shape", "needs exactly one dimension in dimensions={d}");
      absl::StatusOr<int64_t> size = ShardCount(
          i, dims[0], ParticipantCount(i, module_.replica_count(), module_.num_partitions()));
      if (!size.ok()) return Fail(c, &i, "shape", size.status().message());
      expected = op == HloOpcode::kAllGather ? InferAllGatherShape(shapes, dims[0], *size)
                                             : InferReduceScatterShape(shapes, dims[0], *size);
      // Beyond XLA, with the scalar operands below: one operand may give a
      // one-element tuple, as the variadic form of a single operand
      // (docs/formats.md, "Verifier and XLA's verifier").
      if (expected.ok() && !expected->IsTuple() && i.shape().IsTuple() &&
          i.shape().tuple_shapes_size() == 1)
        expected = Shape::MakeTuple({*std::move(expected)});
      break;
    }
    case HloOpcode::kCopy:
      if (shapes.size() == 1) expected = *shapes[0];
      break;
    case HloOpcode::kConstant:
    case HloOpcode::kParameter:
    case HloOpcode::kCustomCall: check = false; break;
    default:
      if (IsElementwiseUnary(op) || IsElementwiseBinary(op) || op == HloOpcode::kCompare ||
          op == HloOpcode::kSelect || op == HloOpcode::kClamp || op == HloOpcode::kTuple ||
          op == HloOpcode::kGetTupleElement || op == HloOpcode::kSlice ||
          op == HloOpcode::kDynamicSlice || op == HloOpcode::kDynamicUpdateSlice ||
          op == HloOpcode::kConcatenate || op == HloOpcode::kReduce ||
          op == HloOpcode::kAllReduce || op == HloOpcode::kTranspose || op == HloOpcode::kDot ||
          op == HloOpcode::kPad || op == HloOpcode::kConvolution)
        expected = InferShapeFromOperands(i);
      else
        check = false;
  }
  if (!check) return absl::OkStatus();
  if (!expected.ok()) {
    if (absl::IsUnimplemented(expected.status())) return absl::OkStatus();
    return Fail(c, &i, "shape", expected.status().message());
  }
  if (!Compatible(*expected, i.shape(), ElementTypesFor(op, options_.allow_mixed_precision)))
    return Fail(c, &i, "shape",
                absl::StrCat("the shape is ", i.shape().ToString(false), ", but the operands give ",
                             expected->ToString(false)));
  if (op == HloOpcode::kDot || op == HloOpcode::kConvolution)
    if (std::optional<std::string> problem = PreferredTypeProblem(i))
      return Fail(c, &i, "shape", *problem);
  return absl::OkStatus();
}

absl::Status VerifyModule(const HloModule& module, VerifyOptions options) {
  return Verifier(module, options).Run();
}

absl::Status VerifyInput(const HloModule& module, absl::string_view file) {
  VerifyOptions options;
  options.locate = true;
  absl::Status valid = VerifyModule(module, options);
  if (valid.ok() || IsLocated(valid)) return valid;
  return LocatedError(valid.code(), file, 0, 0, valid.message());
}

}  // namespace hopt

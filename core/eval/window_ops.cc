// SPDX-License-Identifier: Apache-2.0
// The interpreter's reduce-window, select-and-scatter and map
// (docs/hlo-run.md, "What the interpreter runs"): the array functions of
// window_ops.h, then DeviceEvaluator::EvaluateWindowOp, which runs the
// instruction's computations through CallScalars.

#include "core/eval/window_ops.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/window.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

constexpr absl::string_view kReduceWindow = "reduce-window";
constexpr absl::string_view kSelectAndScatter = "select-and-scatter";
constexpr absl::string_view kMap = "map";
constexpr int64_t kMaxResultElements = int64_t{1} << 28;

absl::Status CheckArray(absl::string_view op, const Literal* literal, absl::string_view what) {
  if (literal == nullptr) return OperationError(op, absl::StrCat(what, " is missing"));
  const Shape& shape = literal->shape();
  if (!shape.IsArray())
    return OperationError(op, absl::StrCat(what, " must be an array, got ", shape.ToString()));
  if (literal->is_elided())
    return OperationError(
        op, absl::StrCat(what, " ", shape.ToString(), " has elided (unknown) values"));
  for (int64_t d : shape.dimensions())
    if (d < 0)
      return OperationError(
          op, absl::StrCat(what, " ", shape.ToString(), " has a negative or unbounded dimension"));
  return absl::OkStatus();
}

absl::Status CheckScalar(absl::string_view op, const Literal* literal, absl::string_view what) {
  HOPT_RETURN_IF_ERROR(CheckArray(op, literal, what));
  if (!literal->shape().IsScalar())
    return OperationError(
        op, absl::StrCat(what, " must be a scalar, got ", literal->shape().ToString()));
  return absl::OkStatus();
}

absl::Status CheckResultSize(absl::string_view op, const Shape& shape) {
  int64_t elements = 1;
  bool too_large = false;
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return absl::OkStatus();
    too_large |= __builtin_mul_overflow(elements, d, &elements) || elements > kMaxResultElements;
  }
  if (too_large)
    return OperationError(op, absl::StrCat("the result ", shape.ToString(), " has more than 2^28 (",
                                           kMaxResultElements, ") elements; refusing to build it"));
  return absl::OkStatus();
}

// What a computation returned must be `count` scalars of `types`.
absl::Status CheckComputed(absl::string_view op, absl::string_view what,
                           const std::vector<Literal>& computed,
                           absl::Span<const PrimitiveType> types) {
  if (computed.size() != types.size())
    return OperationError(op, absl::StrCat("the ", what, " returned ", computed.size(),
                                           " values, expected ", types.size()));
  for (size_t k = 0; k < types.size(); ++k) {
    const Shape& got = computed[k].shape();
    if (!got.IsScalar() || got.element_type() != types[k] || computed[k].element_count() != 1)
      return OperationError(
          op, absl::StrCat("the ", what, "'s result ", k, " is ", got.ToString(), ", expected a ",
                           PrimitiveTypeString(types[k]), " scalar"));
  }
  return absl::OkStatus();
}

// A window slid over one input: the output dimensions and, per output
// position, the input elements its window reads.
class WindowWalk {
 public:
  static absl::StatusOr<WindowWalk> Make(absl::string_view op, const Shape& input,
                                         absl::string_view text) {
    WindowWalk walk;
    HOPT_ASSIGN_OR_RETURN(Window window, ParseWindow(text, input.rank(), op));
    for (int64_t d = 0; d < input.rank(); ++d) {
      HOPT_ASSIGN_OR_RETURN(int64_t size, WindowOutputSize(window, d, input.dimensions(d), op));
      walk.output_dims_.push_back(size);
    }
    HOPT_RETURN_IF_ERROR(CheckResultSize(op, Shape(input.element_type(), walk.output_dims_)));
    walk.input_strides_ = RowMajorStrides(input);
    for (int64_t d = 0; d < input.rank(); ++d)
      walk.taps_.push_back(WindowTapsAlong(window, d, input.dimensions(d), walk.output_dims_[d]));
    return walk;
  }

  const std::vector<int64_t>& output_dims() const { return output_dims_; }

  // Calls visit(linear input index) for each input element the window of
  // output position `out` reads, in window (row-major) order; stops at the
  // first error.
  template <typename Visit>
  absl::Status ForEach(const std::vector<int64_t>& out, Visit visit) const {
    const int64_t rank = static_cast<int64_t>(out.size());
    std::vector<const WindowTaps*> taps(rank);
    std::vector<int64_t> counts(rank);
    for (int64_t d = 0; d < rank; ++d) {
      taps[d] = &taps_[d][out[d]];
      counts[d] = taps[d]->count;
      if (counts[d] == 0) return absl::OkStatus();
    }
    std::vector<int64_t> j(rank, 0);
    do {
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d)
        at += (taps[d]->first + j[d] * taps[d]->step) * input_strides_[d];
      HOPT_RETURN_IF_ERROR(visit(at));
    } while (NextIndex(j, counts));
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> output_dims_, input_strides_;
  std::vector<std::vector<WindowTaps>> taps_;  // [dimension][output position]
};

// The result's shape must be the one the instruction declares (element
// types and dimensions; layouts do not matter to values).
bool SameArrayShape(const Shape& a, const Shape& b) {
  return a.element_type() == b.element_type() && a.dimensions() == b.dimensions();
}

absl::Status CheckDeclared(const HloInstruction& i, const Literal& result) {
  const Shape& declared = i.shape();
  bool same = result.shape().IsTuple() ? declared.IsTuple() && declared.tuple_shapes().size() ==
                                                                   result.tuple_elements().size()
                                       : SameArrayShape(result.shape(), declared);
  for (size_t k = 0; same && result.shape().IsTuple() && k < result.tuple_elements().size(); ++k)
    same = SameArrayShape(result.tuple_elements()[k].shape(), declared.tuple_shapes()[k]);
  if (same) return absl::OkStatus();
  std::string got = result.shape().IsTuple() ? "" : result.shape().ToString(false);
  if (result.shape().IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& e : result.tuple_elements()) parts.push_back(e.shape().ToString(false));
    got = absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return UnsupportedInstruction(
      i, absl::StrCat("computes ", got, " but is declared ", declared.ToString(false)));
}

// A computation that is one elementwise instruction on its parameters
// (op(p_i), op(p_i, p_j), compare(p_i, p_j)): what evaluating it computes,
// without a computation run per element, on scalars and arrays alike.
class SingleInstruction {
 public:
  static std::optional<SingleInstruction> Of(const HloComputation& c, size_t arity) {
    const HloInstruction* root = c.root_instruction();
    if (root == nullptr || c.num_parameters() != static_cast<int64_t>(arity) ||
        !root->shape().IsScalar())
      return std::nullopt;
    const HloOpcode op = root->opcode();
    const size_t operands = IsUnary(op) ? 1 : IsBinary(op) ? 2 : 0;
    if (operands == 0 || static_cast<size_t>(root->operand_count()) != operands)
      return std::nullopt;
    SingleInstruction single;
    single.root_ = root;
    for (const HloInstruction* operand : root->operands()) {
      int64_t number = operand->parameter_number();
      if (number < 0 || number >= static_cast<int64_t>(arity) ||
          c.parameter_instruction(number) != operand)
        return std::nullopt;
      single.parameters_.push_back(number);
    }
    return single;
  }

  // As the interpreter evaluates the instruction (device_evaluator.cc).
  absl::StatusOr<Literal> Apply(absl::Span<const Literal* const> args) const {
    const HloOpcode op = root_->opcode();
    const Literal& a = *args[parameters_[0]];
    if (op == HloOpcode::kCompare) {
      auto type = root_->GetAttributeText("type");
      return Compare(root_->comparison_direction(), a, *args[parameters_[1]],
                     type && *type == "TOTALORDER");
    }
    if (IsUnary(op)) return Unary(op, a);
    return Binary(op, a, *args[parameters_[1]]);
  }

  ScalarCombiner AsCombiner() const {
    return [*this](const std::vector<Literal>& scalars) -> absl::StatusOr<std::vector<Literal>> {
      std::vector<const Literal*> args;
      for (const Literal& s : scalars) args.push_back(&s);
      HOPT_ASSIGN_OR_RETURN(Literal r, Apply(args));
      std::vector<Literal> out;
      out.push_back(std::move(r));
      return out;
    };
  }

 private:
  static bool IsUnary(HloOpcode op) {
    return IsElementwiseUnary(op) || op == HloOpcode::kIsFinite || op == HloOpcode::kReal ||
           op == HloOpcode::kImag;
  }
  static bool IsBinary(HloOpcode op) {
    return IsElementwiseBinary(op) || op == HloOpcode::kComplex || op == HloOpcode::kCompare;
  }

  const HloInstruction* root_ = nullptr;
  std::vector<int64_t> parameters_;
};

}  // namespace

absl::StatusOr<std::vector<Literal>> ReduceWindow(absl::Span<const Literal* const> inputs,
                                                  absl::Span<const Literal* const> inits,
                                                  absl::string_view window,
                                                  const ScalarCombiner& combine,
                                                  const ElementCombiner* element_combiner) {
  constexpr absl::string_view op = kReduceWindow;
  const size_t n = inputs.size();
  if (n == 0) return OperationError(op, "needs at least one input");
  if (inits.size() != n)
    return OperationError(op,
                          absl::StrCat("has ", n, " inputs but ", inits.size(), " init values"));
  if (!combine && element_combiner == nullptr) return OperationError(op, "has no combiner");
  for (size_t k = 0; k < n; ++k) {
    HOPT_RETURN_IF_ERROR(CheckArray(op, inputs[k], absl::StrCat("input ", k)));
    HOPT_RETURN_IF_ERROR(CheckScalar(op, inits[k], absl::StrCat("init value ", k)));
    if (inputs[k]->shape().dimensions() != inputs[0]->shape().dimensions())
      return OperationError(
          op, absl::StrCat("input ", k, " ", inputs[k]->shape().ToString(false), " and input 0 ",
                           inputs[0]->shape().ToString(false), " differ in dimensions"));
  }
  HOPT_ASSIGN_OR_RETURN(WindowWalk walk, WindowWalk::Make(op, inputs[0]->shape(), window));
  std::vector<Literal> results;
  std::vector<PrimitiveType> accumulator_types;
  for (size_t k = 0; k < n; ++k) {
    accumulator_types.push_back(inits[k]->shape().element_type());
    Shape shape(accumulator_types.back(), walk.output_dims());
    HOPT_RETURN_IF_ERROR(CheckResultSize(op, shape));
    results.emplace_back(shape);
  }
  const bool fast = element_combiner != nullptr && n == 1 &&
                    accumulator_types[0] == inputs[0]->shape().element_type();
  if (!fast && !combine)
    return OperationError(op, "the element combiner needs one input of the init's type");
  // The N accumulators, then the N current elements.
  std::vector<Literal> args;
  for (size_t k = 0; k < n; ++k) args.emplace_back(Shape(accumulator_types[k], {}));
  for (size_t k = 0; k < n; ++k) args.emplace_back(Shape(inputs[k]->shape().element_type(), {}));
  auto fold = [&](int64_t at) -> absl::Status {
    for (size_t k = 0; k < n; ++k) args[n + k].CopyElementFrom(*inputs[k], at, 0);
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> combined, combine(args));
    HOPT_RETURN_IF_ERROR(CheckComputed(op, "combiner", combined, accumulator_types));
    for (size_t k = 0; k < n; ++k) args[k].CopyElementFrom(combined[k], 0, 0);
    return absl::OkStatus();
  };
  const int64_t count = results[0].element_count();
  std::vector<int64_t> out(walk.output_dims().size(), 0);
  for (int64_t o = 0; o < count; ++o, NextIndex(out, walk.output_dims())) {
    if (fast) {
      Literal& acc = results[0];
      acc.CopyElementFrom(*inits[0], 0, o);
      HOPT_RETURN_IF_ERROR(walk.ForEach(out, [&](int64_t at) {
        (*element_combiner)(acc, o, *inputs[0], at);
        return absl::OkStatus();
      }));
      continue;
    }
    for (size_t k = 0; k < n; ++k) args[k].CopyElementFrom(*inits[k], 0, 0);
    HOPT_RETURN_IF_ERROR(walk.ForEach(out, fold));
    for (size_t k = 0; k < n; ++k) results[k].CopyElementFrom(args[k], 0, o);
  }
  return results;
}

absl::StatusOr<Literal> SelectAndScatter(const Literal& operand, const Literal& source,
                                         const Literal& init, absl::string_view window,
                                         const ScalarCombiner& select,
                                         const ScalarCombiner& scatter) {
  constexpr absl::string_view op = kSelectAndScatter;
  HOPT_RETURN_IF_ERROR(CheckArray(op, &operand, "the operand"));
  HOPT_RETURN_IF_ERROR(CheckArray(op, &source, "the source"));
  HOPT_RETURN_IF_ERROR(CheckScalar(op, &init, "the init value"));
  if (!select || !scatter) return OperationError(op, "needs select and scatter computations");
  const PrimitiveType type = operand.shape().element_type();
  if (source.shape().element_type() != type || init.shape().element_type() != type)
    return OperationError(
        op, absl::StrCat("the operand ", operand.shape().ToString(false), ", source ",
                         source.shape().ToString(false), " and init value ",
                         init.shape().ToString(false), " must have one element type"));
  HOPT_ASSIGN_OR_RETURN(WindowWalk walk, WindowWalk::Make(op, operand.shape(), window));
  const Shape result_shape(type, operand.shape().dimensions());
  const auto& source_dims = source.shape().dimensions();
  if (!std::equal(source_dims.begin(), source_dims.end(), walk.output_dims().begin(),
                  walk.output_dims().end()))
    return OperationError(op, absl::StrCat("the source ", source.shape().ToString(false),
                                           " does not match the window's output over the operand ",
                                           Shape(type, walk.output_dims()).ToString(false)));
  HOPT_RETURN_IF_ERROR(CheckResultSize(op, result_shape));
  Literal result(result_shape);
  for (int64_t k = 0; k < result.element_count(); ++k) result.CopyElementFrom(init, 0, k);
  std::vector<Literal> pair;
  pair.emplace_back(Shape(type, {}));
  pair.emplace_back(Shape(type, {}));
  const PrimitiveType kPred[] = {PrimitiveType::PRED};
  const PrimitiveType kType[] = {type};
  std::vector<int64_t> out(walk.output_dims().size(), 0);
  for (int64_t s = 0; s < source.element_count(); ++s, NextIndex(out, walk.output_dims())) {
    int64_t picked = -1;
    HOPT_RETURN_IF_ERROR(walk.ForEach(out, [&](int64_t at) -> absl::Status {
      // XLA also asks select about the first element against itself, which
      // cannot change the pick.
      if (picked < 0) {
        picked = at;
        return absl::OkStatus();
      }
      pair[0].CopyElementFrom(operand, picked, 0);
      pair[1].CopyElementFrom(operand, at, 0);
      HOPT_ASSIGN_OR_RETURN(std::vector<Literal> keep, select(pair));
      HOPT_RETURN_IF_ERROR(CheckComputed(op, "select", keep, kPred));
      if (keep[0].GetAsInt64(0) == 0) picked = at;
      return absl::OkStatus();
    }));
    if (picked < 0) continue;
    pair[0].CopyElementFrom(source, s, 0);
    pair[1].CopyElementFrom(result, picked, 0);
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> scattered, scatter(pair));
    HOPT_RETURN_IF_ERROR(CheckComputed(op, "scatter", scattered, kType));
    result.CopyElementFrom(scattered[0], 0, picked);
  }
  return result;
}

absl::StatusOr<Literal> Map(absl::Span<const Literal* const> operands,
                            absl::Span<const int64_t> dimensions, PrimitiveType result_type,
                            const ScalarCombiner& apply, const ArrayFunction* whole) {
  constexpr absl::string_view op = kMap;
  if (operands.empty()) return OperationError(op, "needs at least one operand");
  if (!apply) return OperationError(op, "has no computation");
  for (size_t k = 0; k < operands.size(); ++k) {
    HOPT_RETURN_IF_ERROR(CheckArray(op, operands[k], absl::StrCat("operand ", k)));
    if (operands[k]->shape().dimensions() != operands[0]->shape().dimensions())
      return OperationError(
          op,
          absl::StrCat("operand ", k, " ", operands[k]->shape().ToString(false), " and operand 0 ",
                       operands[0]->shape().ToString(false), " differ in dimensions"));
  }
  const Shape& first = operands[0]->shape();
  bool in_order = static_cast<int64_t>(dimensions.size()) == first.rank();
  for (size_t d = 0; in_order && d < dimensions.size(); ++d)
    in_order = dimensions[d] == static_cast<int64_t>(d);
  if (!in_order)
    return OperationError(
        op, absl::StrCat("dimensions={", absl::StrJoin(dimensions, ","),
                         "} must list every dimension of ", first.ToString(false), " in order"));
  if (!IsArrayType(result_type))
    return OperationError(op, absl::StrCat("the result type ", PrimitiveTypeString(result_type),
                                           " is not an array element type"));
  Shape shape(result_type, first.dimensions());
  HOPT_RETURN_IF_ERROR(CheckResultSize(op, shape));
  if (whole != nullptr) {
    // Otherwise the element-by-element run below says what went wrong.
    absl::StatusOr<Literal> at_once = (*whole)(operands);
    if (at_once.ok() && SameArrayShape(at_once->shape(), shape)) return at_once;
  }
  Literal result(shape);
  std::vector<Literal> args;
  for (const Literal* operand : operands)
    args.emplace_back(Shape(operand->shape().element_type(), {}));
  const PrimitiveType types[] = {result_type};
  for (int64_t j = 0; j < result.element_count(); ++j) {
    for (size_t k = 0; k < operands.size(); ++k) args[k].CopyElementFrom(*operands[k], j, 0);
    HOPT_ASSIGN_OR_RETURN(std::vector<Literal> mapped, apply(args));
    HOPT_RETURN_IF_ERROR(CheckComputed(op, "computation", mapped, types));
    result.CopyElementFrom(mapped[0], 0, j);
  }
  return result;
}

DeviceEvaluator::FamilyResult DeviceEvaluator::EvaluateWindowOp(
    const HloInstruction& i, const std::vector<const Literal*>& ops) {
  // A single-instruction computation runs directly, anything else through
  // CallScalars.
  auto call = [this](const HloComputation& computation, size_t arity) -> ScalarCombiner {
    if (auto single = SingleInstruction::Of(computation, arity)) return single->AsCombiner();
    return [this, &computation](const std::vector<Literal>& scalars) {
      return CallScalars(computation, scalars);
    };
  };
  auto checked = [&i](absl::StatusOr<Literal> result) -> absl::StatusOr<Literal> {
    if (result.ok()) {
      HOPT_RETURN_IF_ERROR(CheckDeclared(i, *result));
    }
    return result;
  };
  const absl::string_view window = i.GetAttributeText("window").value_or("{}");
  switch (i.opcode()) {
    case HloOpcode::kReduceWindow: {
      const HloComputation* to_apply = i.to_apply();
      if (to_apply == nullptr) return UnsupportedInstruction(i, "needs to_apply");
      if (ops.empty() || ops.size() % 2 != 0)
        return UnsupportedInstruction(i, "takes N inputs and N init values");
      const size_t n = ops.size() / 2;
      absl::Span<const Literal* const> all(ops);
      std::optional<ElementCombiner> fast;
      if (n == 1) fast = PlainBinaryCombiner(*to_apply, *ops[0]);
      auto results = ReduceWindow(all.subspan(0, n), all.subspan(n), window, call(*to_apply, 2 * n),
                                  fast ? &*fast : nullptr);
      if (!results.ok()) return absl::StatusOr<Literal>(results.status());
      if (n == 1) return checked(std::move((*results)[0]));
      std::vector<Shape> shapes;
      for (const Literal& r : *results) shapes.push_back(r.shape());
      Literal tuple(Shape::MakeTuple(std::move(shapes)));
      for (size_t k = 0; k < n; ++k) tuple.mutable_tuple_elements()[k] = std::move((*results)[k]);
      return checked(std::move(tuple));
    }
    case HloOpcode::kSelectAndScatter: {
      const HloAttribute* select = i.FindAttribute("select");
      const HloAttribute* scatter = i.FindAttribute("scatter");
      if (select == nullptr || scatter == nullptr || select->computations.size() != 1 ||
          scatter->computations.size() != 1)
        return UnsupportedInstruction(i, "needs select and scatter computations");
      if (ops.size() != 3)
        return UnsupportedInstruction(i, "takes an operand, a source and an init value");
      return checked(SelectAndScatter(*ops[0], *ops[1], *ops[2], window,
                                      call(*select->computations[0], 2),
                                      call(*scatter->computations[0], 2)));
    }
    case HloOpcode::kMap: {
      const HloComputation* to_apply = i.to_apply();
      if (to_apply == nullptr) return UnsupportedInstruction(i, "needs to_apply");
      if (!i.shape().IsArray()) return UnsupportedInstruction(i, "must produce an array");
      std::vector<int64_t> dimensions = i.dimensions();
      // Without the attribute XLA maps over every dimension.
      if (!i.HasAttribute("dimensions") && !ops.empty() && ops[0]->shape().IsArray())
        for (int64_t d = 0; d < ops[0]->shape().rank(); ++d) dimensions.push_back(d);
      std::optional<ArrayFunction> whole;
      if (auto single = SingleInstruction::Of(*to_apply, ops.size()))
        whole = [single](absl::Span<const Literal* const> arrays) { return single->Apply(arrays); };
      return checked(Map(ops, dimensions, i.shape().element_type(), call(*to_apply, ops.size()),
                         whole ? &*whole : nullptr));
    }
    default: return std::nullopt;
  }
}

}  // namespace eval
}  // namespace hopt

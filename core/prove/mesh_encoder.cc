// SPDX-License-Identifier: Apache-2.0

#include "core/prove/mesh_encoder.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/eval/device_evaluator.h"
#include "core/eval/ops.h"
#include "core/prove/bit_count_formula.h"
#include "core/prove/element_index.h"
#include "core/prove/opaque_call_formula.h"
#include "hopt/ir/attributes.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/ir/literal.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace prove {
namespace {

// Element by element: `c ? a : b`.
SymValue Choose(const z3::expr& c, const SymValue& a, const SymValue& b) {
  SymValue out = a;
  for (size_t k = 0; k < out.tuple.size() && k < b.tuple.size(); ++k)
    out.tuple[k] = Choose(c, a.tuple[k], b.tuple[k]);
  for (size_t e = 0; e < out.elements.size() && e < b.elements.size(); ++e)
    out.elements[e] = z3::ite(c, a.elements[e], b.elements[e]);
  return out;
}

// The most iterations a while loop is unrolled: a loop whose condition is
// a constant at each step (a counted loop) up to this count.
constexpr int kMaxUnrolled = 256;

absl::Status CheckSize(const HloInstruction& i, const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) HOPT_RETURN_IF_ERROR(CheckSize(i, s));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  std::optional<int64_t> n = shape.ElementCountIfFits();
  if (!n || *n > MeshEncoder::kMaxElements)
    return Unsupported(
        i, absl::StrCat(shape.ToString(false), " has more than ", MeshEncoder::kMaxElements,
                        " elements, more than a formula per element is built for"));
  return absl::OkStatus();
}

// The collectives DescribeCollective reads from the instruction itself,
// their async starts (which compute what the collective does) included.
bool IsCollective(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart: return true;
    case HloOpcode::kAsyncStart:
      return MeshEncoder::MeshWideCallee(i) == nullptr && i.async_wrapped_opcode() &&
             eval::IsSynchronousCollective(*i.async_wrapped_opcode());
    default: return false;
  }
}

}  // namespace

absl::StatusOr<SymValue> FreshValue(Encoder& encoder, const Shape& shape,
                                    const std::string& prefix) {
  SymValue v;
  v.shape = shape;
  if (shape.IsTuple()) {
    for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(SymValue element, FreshValue(encoder, shape.tuple_shapes(k),
                                                         absl::StrCat(prefix, ".", k)));
      v.tuple.push_back(std::move(element));
    }
    return v;
  }
  if (shape.IsToken()) return v;
  if (!shape.IsArray())
    return absl::UnimplementedError(absl::StrCat("no variables of shape ", shape.ToString()));
  int64_t n = shape.ElementCount();
  if (n > MeshEncoder::kMaxElements)
    return absl::UnimplementedError(absl::StrCat("an input of ", n, " elements (", prefix,
                                                 ") is more than a formula per element is "
                                                 "built for"));
  for (int64_t e = 0; e < n; ++e) {
    HOPT_ASSIGN_OR_RETURN(
        z3::expr x, encoder.Variable(shape.element_type(), absl::StrCat(prefix, "[", e, "]")));
    v.elements.push_back(x);
  }
  return v;
}

absl::StatusOr<std::vector<SymValue>> MeshEncoder::Run(
    const HloModule& module, const std::vector<std::vector<SymValue>>& arguments) {
  const HloComputation* entry = module.entry_computation();
  std::vector<DeviceValues> by_parameter(entry->num_parameters(), DeviceValues(devices()));
  for (int64_t d = 0; d < devices(); ++d)
    for (int64_t k = 0; k < entry->num_parameters(); ++k) by_parameter[k][d] = arguments[d][k];
  return RunComputation(*entry, by_parameter);
}

absl::StatusOr<MeshEncoder::DeviceValues> MeshEncoder::RunComputation(
    const HloComputation& computation, const std::vector<DeviceValues>& arguments) {
  absl::flat_hash_map<const HloInstruction*, DeviceValues> values;
  for (const HloInstruction* i : computation.MakeInstructionPostOrder()) {
    HOPT_RETURN_IF_ERROR(CheckSize(*i, i->shape()));
    if (i->shape().IsArray()) {
      elements_ += i->shape().ElementCount() * devices();
      if (elements_ > kMaxRegionElements)
        return Unsupported(*i, absl::StrCat("the region needs more than ", kMaxRegionElements,
                                            " element formulas over its ", devices(),
                                            " devices (a reduced-shape proof of a "
                                            "shape-uniform rewrite is not implemented yet)"));
    }
    DeviceValues result(devices());
    if (i->opcode() == HloOpcode::kParameter) {
      result = arguments[i->parameter_number()];
      values.emplace(i, std::move(result));
      continue;
    }
    std::vector<std::vector<const SymValue*>> ops(devices());
    for (int64_t d = 0; d < devices(); ++d)
      for (const HloInstruction* operand : i->operands()) ops[d].push_back(&values.at(operand)[d]);
    std::optional<eval::CollectiveDescription> collective;
    if (i->opcode() == HloOpcode::kCustomCall) {
      HOPT_ASSIGN_OR_RETURN(collective,
                            eval::DescribeCollectiveCustomCall(*i, mesh_, custom_calls_));
    } else if (IsCollective(*i)) {
      HOPT_ASSIGN_OR_RETURN(collective, eval::DescribeCollective(*i));
    }
    const HloComputation* callee = MeshWideCallee(*i);
    if (collective.has_value()) {
      if (i->opcode() == HloOpcode::kCollectivePermuteStart && i->operand_count() > 1)
        return Unsupported(*i, "the in-place form (output buffer and offsets as operands)");
      HOPT_ASSIGN_OR_RETURN(result, Collective(*i, *collective, ops));
      if (i->opcode() == HloOpcode::kAsyncStart || eval::EchoesOperands(*i))
        for (int64_t d = 0; d < devices(); ++d) {
          HOPT_ASSIGN_OR_RETURN(result[d], StartValue(*i, ops[d], std::move(result[d])));
        }
    } else if (callee != nullptr) {
      std::vector<DeviceValues> arguments(i->operand_count(), DeviceValues(devices()));
      for (int64_t d = 0; d < devices(); ++d)
        for (int64_t k = 0; k < i->operand_count(); ++k) arguments[k][d] = *ops[d][k];
      HOPT_ASSIGN_OR_RETURN(result, RunComputation(*callee, arguments));
      if (i->opcode() == HloOpcode::kAsyncStart)
        for (int64_t d = 0; d < devices(); ++d) {
          HOPT_ASSIGN_OR_RETURN(result[d], StartValue(*i, ops[d], std::move(result[d])));
        }
    } else if (i->opcode() == HloOpcode::kSend || i->opcode() == HloOpcode::kRecv ||
               i->opcode() == HloOpcode::kSendDone || i->opcode() == HloOpcode::kRecvDone) {
      HOPT_ASSIGN_OR_RETURN(result, SendRecv(*i, ops));
    } else {
      for (int64_t d = 0; d < devices(); ++d) {
        HOPT_ASSIGN_OR_RETURN(result[d], Local(*i, ops[d], d));
      }
    }
    values.emplace(i, std::move(result));
  }
  return values.at(computation.root_instruction());
}

absl::StatusOr<SymValue> MeshEncoder::RunLocal(const HloComputation& computation,
                                               const std::vector<SymValue>& arguments,
                                               int64_t device) {
  absl::flat_hash_map<const HloInstruction*, SymValue> values;
  for (const HloInstruction* i : computation.MakeInstructionPostOrder()) {
    if (i->opcode() == HloOpcode::kParameter) {
      values.emplace(i, arguments[i->parameter_number()]);
      continue;
    }
    std::vector<const SymValue*> ops;
    for (const HloInstruction* operand : i->operands()) ops.push_back(&values.at(operand));
    HOPT_ASSIGN_OR_RETURN(SymValue v, Local(*i, ops, device));
    values.emplace(i, std::move(v));
  }
  return values.at(computation.root_instruction());
}

absl::StatusOr<z3::expr> MeshEncoder::Reduce2(const HloComputation* reduction,
                                              std::optional<HloOpcode> opcode, PrimitiveType type,
                                              const z3::expr& a, const z3::expr& b,
                                              int64_t device) {
  if (opcode.has_value()) return encoder_.Binary(*opcode, type, a, b);
  if (reduction == nullptr) return absl::UnimplementedError("a reduction without a computation");
  // A reducer that is one elementwise operation on its two parameters is
  // that operation at the reduced values' type, as the interpreter runs it
  // (an f32 add reducing bf16 values adds in bf16).
  const HloInstruction* root = reduction->root_instruction();
  if (IsElementwiseBinary(root->opcode()) && root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter && root->operand(0) != root->operand(1))
    return root->operand(0)->parameter_number() == 0 ? encoder_.Binary(root->opcode(), type, a, b)
                                                     : encoder_.Binary(root->opcode(), type, b, a);
  SymValue x = ArrayOf(Shape::MakeScalar(type)), y = ArrayOf(Shape::MakeScalar(type));
  x.elements.push_back(a);
  y.elements.push_back(b);
  HOPT_ASSIGN_OR_RETURN(SymValue r, RunLocal(*reduction, {x, y}, device));
  if (r.elements.size() != 1)
    return absl::UnimplementedError(
        absl::StrCat("reduction '", reduction->name(), "' does not return one scalar"));
  return r.elements[0];
}

absl::StatusOr<SymValue> MeshEncoder::Zeros(const Shape& shape) {
  SymValue v = ArrayOf(shape);
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      HOPT_ASSIGN_OR_RETURN(SymValue z, Zeros(element));
      v.tuple.push_back(std::move(z));
    }
    return v;
  }
  if (!shape.IsArray()) return v;
  HOPT_ASSIGN_OR_RETURN(z3::expr zero, encoder_.Zero(shape.element_type()));
  v.elements.assign(shape.ElementCount(), zero);
  return v;
}

absl::StatusOr<SymValue> MeshEncoder::Local(const HloInstruction& i,
                                            const std::vector<const SymValue*>& ops,
                                            int64_t device) {
  const Shape& shape = i.shape();
  SymValue out = ArrayOf(shape);
  auto elementwise = [&](auto f) -> absl::StatusOr<SymValue> {
    int64_t n = shape.ElementCount();
    for (int64_t e = 0; e < n; ++e) {
      HOPT_ASSIGN_OR_RETURN(z3::expr x, f(e));
      out.elements.push_back(x);
    }
    return out;
  };
  // A scalar operand of an elementwise op broadcasts (XLA's implicit form).
  auto at = [](const SymValue* v, int64_t e) -> const z3::expr& {
    return v->elements.size() == 1 ? v->elements[0] : v->elements[e];
  };
  HOPT_ASSIGN_OR_RETURN(std::optional<SymValue> async_part, AsyncPart(i, ops));
  if (async_part.has_value()) return *std::move(async_part);
  switch (i.opcode()) {
    case HloOpcode::kConstant: {
      HOPT_ASSIGN_OR_RETURN(Literal literal, i.literal());
      if (!shape.IsArray()) return Unsupported(i, "a tuple constant");
      PrimitiveType type = shape.element_type();
      return elementwise([&](int64_t e) {
        return Encoder::IsFloat(type) ? encoder_.FloatConstant(type, literal.GetAsDouble(e))
                                      : encoder_.IntegerConstant(type, literal.GetAsInt64(e));
      });
    }
    case HloOpcode::kIota: {
      auto dim = i.IntAttribute("iota_dimension");
      if (!dim) return Unsupported(i, "no iota_dimension");
      PrimitiveType type = shape.element_type();
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](const std::vector<int64_t>& index, int64_t) {
        HOPT_ASSIGN_OR_RETURN(z3::expr x, Encoder::IsFloat(type)
                                              ? encoder_.FloatConstant(type, index[*dim])
                                              : encoder_.IntegerConstant(type, index[*dim]));
        out.elements.push_back(x);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      int64_t id = i.opcode() == HloOpcode::kReplicaId ? device / mesh_.partitions
                                                       : device % mesh_.partitions;
      HOPT_ASSIGN_OR_RETURN(z3::expr x, encoder_.IntegerConstant(shape.element_type(), id));
      out.elements.push_back(x);
      return out;
    }
    case HloOpcode::kAfterAll: return out;
    case HloOpcode::kTuple:
      for (const SymValue* v : ops) out.tuple.push_back(*v);
      return out;
    case HloOpcode::kGetTupleElement: return ops[0]->tuple.at(i.tuple_index());
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency: {
      SymValue v = *ops[0];
      v.shape = shape;
      return v;
    }
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      if (i.opcode() == HloOpcode::kBitcast &&
          (shape.element_type() != ops[0]->shape.element_type() || !shape.HasDefaultLayout() ||
           !ops[0]->shape.HasDefaultLayout()))
        return Unsupported(i, "a bitcast that reinterprets a layout or type");
      out.elements = ops[0]->elements;
      return out;
    }
    case HloOpcode::kBroadcast: {
      std::vector<int64_t> dims = i.dimensions();
      std::vector<int64_t> strides = Strides(ops[0]->shape);
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](const std::vector<int64_t>& index, int64_t) {
        int64_t from = 0;
        for (size_t k = 0; k < dims.size(); ++k) from += index[dims[k]] * strides[k];
        out.elements.push_back(ops[0]->elements[from]);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kTranspose: {
      std::vector<int64_t> perm = i.dimensions();
      std::vector<int64_t> strides = Strides(ops[0]->shape);
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](const std::vector<int64_t>& index, int64_t) {
        int64_t from = 0;
        for (size_t k = 0; k < perm.size(); ++k) from += index[k] * strides[perm[k]];
        out.elements.push_back(ops[0]->elements[from]);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kReverse: {
      std::vector<int64_t> dims = i.dimensions();
      std::vector<int64_t> strides = Strides(shape);
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](std::vector<int64_t> index, int64_t) {
        for (int64_t d : dims) index[d] = shape.dimensions(d) - 1 - index[d];
        out.elements.push_back(ops[0]->elements[Linear(index, strides)]);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kSlice: {
      std::vector<SliceDimension> slice = i.slice();
      std::vector<int64_t> strides = Strides(ops[0]->shape);
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](const std::vector<int64_t>& index, int64_t) {
        int64_t from = 0;
        for (size_t d = 0; d < index.size(); ++d)
          from += (slice[d].start + index[d] * slice[d].stride) * strides[d];
        out.elements.push_back(ops[0]->elements[from]);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kConcatenate: {
      int64_t dim = i.dimensions().at(0);
      HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](std::vector<int64_t> index, int64_t) {
        size_t k = 0;
        while (index[dim] >= ops[k]->shape.dimensions(dim))
          index[dim] -= ops[k++]->shape.dimensions(dim);
        out.elements.push_back(ops[k]->elements[Linear(index, Strides(ops[k]->shape))]);
        return absl::OkStatus();
      }));
      return out;
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      bool update = i.opcode() == HloOpcode::kDynamicUpdateSlice;
      const SymValue& operand = *ops[0];
      const Shape& in = operand.shape;
      const Shape& window = update ? ops[1]->shape : shape;
      size_t first_index = update ? 2 : 1;
      // Each start clamped into [0, dim - size], as XLA does; a start is a
      // formula, so each element is a choice among the starts it may take.
      std::vector<z3::expr> starts;
      z3::context& ctx = encoder_.context();
      for (int64_t d = 0; d < in.rank(); ++d) {
        const SymValue* index = ops[first_index + d];
        z3::expr s = encoder_.AsIndex(index->shape.element_type(), index->elements.at(0));
        int64_t limit = in.dimensions(d) - window.dimensions(d);
        z3::expr zero = ctx.bv_val(0, 64), high = ctx.bv_val(limit, 64);
        starts.push_back(z3::ite(s < zero, zero, z3::ite(s > high, high, s)).simplify());
      }
      std::vector<int64_t> in_strides = Strides(in), window_strides = Strides(window);
      // Elements of the result by the starts' values: enumerated, one
      // choice per combination (a start that is a constant has one).
      std::vector<std::vector<int64_t>> choices(in.rank());
      for (int64_t d = 0; d < in.rank(); ++d) {
        if (starts[d].is_numeral()) {
          choices[d].push_back(static_cast<int64_t>(starts[d].get_numeral_uint64()));
        } else {
          for (int64_t s = 0; s <= in.dimensions(d) - window.dimensions(d); ++s)
            choices[d].push_back(s);
        }
      }
      int64_t combinations = 1;
      for (const auto& c : choices) combinations *= static_cast<int64_t>(c.size());
      if (combinations * shape.ElementCount() > kMaxElements * 4)
        return Unsupported(i, "too many possible starts to enumerate");
      int64_t n = shape.ElementCount();
      out.elements.clear();
      for (int64_t e = 0; e < n; ++e) out.elements.push_back(ctx.bool_val(false));  // placeholder
      std::vector<int64_t> pick(in.rank(), 0);
      bool first = true;
      for (int64_t c = 0; c < combinations; ++c) {
        int64_t rest = c;
        z3::expr condition = ctx.bool_val(true);
        std::vector<int64_t> start(in.rank());
        for (int64_t d = in.rank() - 1; d >= 0; --d) {
          int64_t size = static_cast<int64_t>(choices[d].size());
          start[d] = choices[d][rest % size];
          rest /= size;
          if (size > 1) condition = condition && (starts[d] == ctx.bv_val(start[d], 64));
        }
        HOPT_RETURN_IF_ERROR(ForEachIndex(shape, [&](const std::vector<int64_t>& index,
                                                     int64_t linear) {
          z3::expr value = operand.elements[0];
          if (!update) {
            std::vector<int64_t> from(index);
            for (int64_t d = 0; d < in.rank(); ++d) from[d] += start[d];
            value = operand.elements[Linear(from, in_strides)];
          } else {
            bool inside = true;
            std::vector<int64_t> from(index);
            for (int64_t d = 0; d < in.rank(); ++d) {
              from[d] -= start[d];
              inside = inside && from[d] >= 0 && from[d] < window.dimensions(d);
            }
            value =
                inside ? ops[1]->elements[Linear(from, window_strides)] : operand.elements[linear];
          }
          out.elements[linear] = first ? value : z3::ite(condition, value, out.elements[linear]);
          return absl::OkStatus();
        }));
        first = false;
      }
      return out;
    }
    case HloOpcode::kSelect:
      return elementwise([&](int64_t e) -> absl::StatusOr<z3::expr> {
        return z3::ite(at(ops[0], e), at(ops[1], e), at(ops[2], e));
      });
    case HloOpcode::kClamp: {
      PrimitiveType type = shape.element_type();
      return elementwise([&](int64_t e) -> absl::StatusOr<z3::expr> {
        HOPT_ASSIGN_OR_RETURN(
            z3::expr low, encoder_.Binary(HloOpcode::kMaximum, type, at(ops[1], e), at(ops[0], e)));
        return encoder_.Binary(HloOpcode::kMinimum, type, low, at(ops[2], e));
      });
    }
    case HloOpcode::kCompare: {
      PrimitiveType type = ops[0]->shape.element_type();
      // A total-order comparison of floats is another function than the
      // IEEE one of the same direction.
      std::string direction(i.comparison_direction());
      std::optional<absl::string_view> order = i.GetAttributeText("type");
      if (order && *order == "TOTALORDER" && Encoder::IsFloat(type))
        direction = absl::StrCat(direction, ".TOTALORDER");
      return elementwise([&](int64_t e) {
        return encoder_.Compare(direction, type, at(ops[0], e), at(ops[1], e));
      });
    }
    case HloOpcode::kConvert: {
      PrimitiveType from = ops[0]->shape.element_type(), to = shape.element_type();
      return elementwise([&](int64_t e) { return encoder_.Convert(from, to, at(ops[0], e)); });
    }
    case HloOpcode::kReduce: {
      const size_t n = ops.size() / 2;
      if (n == 0 || ops.size() != 2 * n || i.to_apply() == nullptr)
        return Unsupported(i, "needs inputs, as many inits and to_apply");
      const Shape& in = ops[0]->shape;
      std::vector<bool> is_reduced(in.rank(), false);
      for (int64_t d : i.dimensions()) is_reduced.at(d) = true;
      std::vector<int64_t> kept;
      for (int64_t d = 0; d < in.rank(); ++d)
        if (!is_reduced[d]) kept.push_back(d);
      std::vector<int64_t> kept_dims;
      for (int64_t d : kept) kept_dims.push_back(in.dimensions(d));
      const Shape kept_shape(in.element_type(), kept_dims);
      const std::vector<int64_t> out_strides = Strides(kept_shape);
      // One accumulator per input, starting from its init.
      std::vector<SymValue> accumulators;
      for (size_t k = 0; k < n; ++k) {
        SymValue acc = ArrayOf(Shape(ops[n + k]->shape.element_type(), kept_dims));
        acc.elements.assign(kept_shape.ElementCount(), ops[n + k]->elements.at(0));
        accumulators.push_back(std::move(acc));
      }
      auto scalar = [](const SymValue& from, int64_t e) {
        SymValue v = ArrayOf(Shape::MakeScalar(from.shape.element_type()));
        v.elements.push_back(from.elements[e]);
        return v;
      };
      // Row-major over the input: each output element folds its inputs in
      // that order, the interpreter's (and the combiner gets the
      // accumulators first, then the inputs).
      HOPT_RETURN_IF_ERROR(ForEachIndex(in, [&](const std::vector<int64_t>& index, int64_t linear) {
        int64_t to = 0;
        for (size_t k = 0; k < kept.size(); ++k) to += index[kept[k]] * out_strides[k];
        if (n == 1) {
          SymValue& acc = accumulators[0];
          HOPT_ASSIGN_OR_RETURN(acc.elements[to],
                                Reduce2(i.to_apply(), std::nullopt, acc.shape.element_type(),
                                        acc.elements[to], ops[0]->elements[linear], device));
          return absl::OkStatus();
        }
        std::vector<SymValue> args;
        for (const SymValue& acc : accumulators) args.push_back(scalar(acc, to));
        for (size_t k = 0; k < n; ++k) args.push_back(scalar(*ops[k], linear));
        HOPT_ASSIGN_OR_RETURN(SymValue combined, RunLocal(*i.to_apply(), args, device));
        if (combined.tuple.size() != n)
          return Unsupported(i, absl::StrCat("the combiner returns ", combined.tuple.size(),
                                             " values for ", n, " inputs"));
        for (size_t k = 0; k < n; ++k) {
          if (combined.tuple[k].elements.size() != 1)
            return Unsupported(i, "the combiner returns other than scalars");
          accumulators[k].elements[to] = combined.tuple[k].elements[0];
        }
        return absl::OkStatus();
      }));
      if (n == 1) {
        out.elements = std::move(accumulators[0].elements);
        return out;
      }
      out.tuple = std::move(accumulators);
      return out;
    }
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz: {
      PrimitiveType type = shape.element_type();
      return elementwise([&](int64_t e) -> absl::StatusOr<z3::expr> {
        absl::StatusOr<z3::expr> x = BitCountFormula(encoder_, i.opcode(), type, at(ops[0], e));
        if (!x.ok()) return Unsupported(i, x.status().message());
        return x;
      });
    }
    case HloOpcode::kConditional: {
      std::vector<HloComputation*> branches = eval::ConditionalBranches(i);
      if (branches.empty() || ops.size() != branches.size() + 1)
        return Unsupported(i, "needs one operand per branch");
      const SymValue& index = *ops[0];
      bool by_pred = index.shape.element_type() == PrimitiveType::PRED;
      int64_t n = static_cast<int64_t>(branches.size());
      // XLA: a pred picks branch 0 when true; an index out of range picks
      // the last branch.
      auto taken = [&](int64_t b) -> z3::expr {
        const z3::expr& x = index.elements.at(0);
        if (by_pred) return b == 0 ? x : !x;
        z3::expr k = encoder_.AsIndex(index.shape.element_type(), x);
        return k == encoder_.context().bv_val(b, 64);
      };
      HOPT_ASSIGN_OR_RETURN(SymValue result, RunLocal(*branches[n - 1], {*ops[n]}, device));
      for (int64_t b = n - 2; b >= 0; --b) {
        z3::expr c = taken(b).simplify();
        if (c.is_false()) continue;
        HOPT_ASSIGN_OR_RETURN(SymValue r, RunLocal(*branches[b], {*ops[b + 1]}, device));
        result = c.is_true() ? r : Choose(c, r, result);
      }
      result.shape = shape;
      return result;
    }
    case HloOpcode::kWhile: {
      const HloAttribute* cond = i.FindAttribute("condition");
      const HloAttribute* body = i.FindAttribute("body");
      if (cond == nullptr || body == nullptr || cond->computations.empty() ||
          body->computations.empty())
        return Unsupported(i, "needs condition and body");
      SymValue state = *ops[0];
      for (int step = 0; step <= kMaxUnrolled; ++step) {
        HOPT_ASSIGN_OR_RETURN(SymValue go, RunLocal(*cond->computations[0], {state}, device));
        z3::expr c = go.elements.at(0).simplify();
        if (c.is_false()) return state;
        if (!c.is_true())
          return Unsupported(i, absl::StrCat("whether iteration ", step + 1,
                                             " runs depends on the inputs (only counted loops "
                                             "are unrolled)"));
        HOPT_ASSIGN_OR_RETURN(state, RunLocal(*body->computations[0], {state}, device));
      }
      return Unsupported(
          i, absl::StrCat("runs more than ", kMaxUnrolled, " iterations, more than are unrolled"));
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      std::vector<SymValue> args;
      for (const SymValue* v : ops) args.push_back(*v);
      const HloComputation* called = MeshWideCallee(i);
      if (called == nullptr) return Unsupported(i, "needs the computation it calls");
      return RunLocal(*called, args, device);
    }
    case HloOpcode::kCustomCall: {
      if (custom_calls_ != nullptr) {
        if (const eval::CustomCallForwarding* forwarding = custom_calls_->FindForwarding(i)) {
          HOPT_ASSIGN_OR_RETURN(std::vector<eval::ForwardedValue> parts, (*forwarding)(i));
          // Only the forms the markers use: the whole result from one
          // operand, or each tuple element from an operand.
          if (parts.size() == 1 && parts[0].result_index.empty() &&
              parts[0].operand_index.empty()) {
            SymValue v = *ops.at(parts[0].operand);
            v.shape = shape;
            return v;
          }
          out.tuple.resize(shape.tuple_shapes_size());
          for (const eval::ForwardedValue& part : parts) {
            if (part.result_index.size() != 1)
              return Unsupported(i, "a forwarding into a nested tuple element");
            const SymValue* from = ops.at(part.operand);
            for (int64_t k : part.operand_index) from = &from->tuple.at(k);
            out.tuple.at(part.result_index[0]) = *from;
          }
          return out;
        }
      }
      if (custom_calls_ != nullptr && custom_calls_->Handles(i))
        return Unsupported(i, absl::StrCat("custom-call target '", i.custom_call_target(),
                                           "' has semantics registered that no formula stands "
                                           "for (only forwarding and collectives have one)"));
      // No semantics: the interpreter runs it as an opaque function, and
      // so it is an uninterpreted one here.
      used_opaque_calls_ = true;
      return OpaqueCallFormula(encoder_, i, ops);
    }
    default: break;
  }
  // Elementwise unary and binary operations (none calls a computation:
  // sort, map... have no formula yet).
  if (!i.called_computations().empty()) return Unsupported(i, "no formula for this operation yet");
  if (shape.IsArray() && shape.ElementCount() == 0) return out;
  if (shape.IsArray() && (i.operand_count() == 1 || i.operand_count() == 2)) {
    PrimitiveType type = ops[0]->shape.element_type();
    if (i.operand_count() == 1) {
      auto probe = encoder_.Unary(i.opcode(), type, at(ops[0], 0));
      if (!probe.ok()) return Unsupported(i, probe.status().message());
      return elementwise(
          [&](int64_t e) { return encoder_.Unary(i.opcode(), type, at(ops[0], e)); });
    }
    if (ops[1]->shape.IsArray() && ops[0]->shape.element_type() == shape.element_type()) {
      auto probe = encoder_.Binary(i.opcode(), type, at(ops[0], 0), at(ops[1], 0));
      if (!probe.ok()) return Unsupported(i, probe.status().message());
      return elementwise([&](int64_t e) {
        return encoder_.Binary(i.opcode(), type, at(ops[0], e), at(ops[1], e));
      });
    }
  }
  return Unsupported(i, "no formula for this operation yet");
}

}  // namespace prove
}  // namespace hopt

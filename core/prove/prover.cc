// SPDX-License-Identifier: Apache-2.0

#include "core/prove/prover.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/prove/mesh_encoder.h"
#include "core/prove/reduced_shape.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/instruction.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace prove {
namespace {

using Verdict = ProofResult::Verdict;

std::string IndexText(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    index[d] = linear % shape.dimensions(d);
    linear /= shape.dimensions(d);
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

// One element that may differ: its formula and where it is.
struct Difference {
  z3::expr differs;
  int64_t device;
  std::string where;
};

void CollectDifferences(const SymValue& a, const SymValue& b, int64_t device,
                        const std::string& path, std::vector<Difference>* out) {
  if (a.shape.IsTuple()) {
    for (size_t k = 0; k < a.tuple.size() && k < b.tuple.size(); ++k)
      CollectDifferences(a.tuple[k], b.tuple[k], device,
                         absl::StrCat(path, path.empty() ? "" : ",", k), out);
    return;
  }
  for (size_t e = 0; e < a.elements.size() && e < b.elements.size(); ++e)
    out->push_back({a.elements[e] != b.elements[e], device,
                    absl::StrCat("output {", path, "}, element ",
                                 IndexText(a.shape, static_cast<int64_t>(e)))});
}

bool SameBits(const Literal& a, const Literal& b, int64_t e) {
  if (IsFloatingPointType(a.shape().element_type())) {
    double x = a.GetAsDouble(e), y = b.GetAsDouble(e);
    if (std::isnan(x) && std::isnan(y)) return true;
    return std::memcmp(&x, &y, sizeof(x)) == 0;
  }
  if (IsComplexType(a.shape().element_type())) return a.GetAsComplex(e) == b.GetAsComplex(e);
  return a.GetAsInt64(e) == b.GetAsInt64(e);
}

// The first element where two results differ, as "output {k}, element
// [i]: before X, after Y"; empty when they are equal.
std::string FirstDifference(const Literal& a, const Literal& b, const std::string& path) {
  if (a.shape().IsTuple()) {
    for (size_t k = 0; k < a.tuple_elements().size(); ++k) {
      std::string d = FirstDifference(a.tuple_elements()[k], b.tuple_elements()[k],
                                      absl::StrCat(path, path.empty() ? "" : ",", k));
      if (!d.empty()) return d;
    }
    return "";
  }
  if (!a.shape().IsArray()) return "";
  for (int64_t e = 0; e < a.element_count(); ++e) {
    if (SameBits(a, b, e)) continue;
    std::string av, bv;
    Literal one_a(Shape::MakeScalar(a.shape().element_type())), one_b = one_a;
    one_a.CopyElementFrom(a, e, 0);
    one_b.CopyElementFrom(b, e, 0);
    return absl::StrCat("output {", path, "}, element ", IndexText(a.shape(), e), ": before ",
                        one_a.ToText(), ", after ", one_b.ToText());
  }
  return "";
}

// An IEEE value from its bits (exponent and significand widths as Z3
// counts them, the hidden bit included), exactly, as a double.
double DecodeIeee(uint64_t bits, int exponent_bits, int significand_bits) {
  int fraction_bits = significand_bits - 1;
  bool negative = (bits >> (exponent_bits + fraction_bits)) & 1;
  int64_t exponent = static_cast<int64_t>((bits >> fraction_bits) & ((1u << exponent_bits) - 1));
  uint64_t fraction = bits & ((uint64_t{1} << fraction_bits) - 1);
  int64_t bias = (int64_t{1} << (exponent_bits - 1)) - 1;
  double value;
  if (exponent == (int64_t{1} << exponent_bits) - 1)
    value = fraction != 0 ? std::nan("") : HUGE_VAL;
  else if (exponent == 0)
    value = std::ldexp(static_cast<double>(fraction), static_cast<int>(1 - bias - fraction_bits));
  else
    value = std::ldexp(static_cast<double>(fraction | (uint64_t{1} << fraction_bits)),
                       static_cast<int>(exponent - bias - fraction_bits));
  return negative ? -value : value;
}

// A model value of a variable as the literal element it stands for.
absl::Status SetFromModel(const z3::model& model, const z3::expr& variable, PrimitiveType type,
                          std::map<std::string, double>* abstract, Literal* literal, int64_t e) {
  z3::expr v = model.eval(variable, true);
  if (type == PrimitiveType::PRED) {
    literal->SetFromInt64(e, v.is_true() ? 1 : 0);
  } else if (Encoder::IsInteger(type)) {
    uint64_t bits = v.get_numeral_uint64();
    int width = Encoder::Width(type);
    if (IsSignedIntegralType(type) && width < 64 && (bits >> (width - 1)) & 1)
      bits |= ~uint64_t{0} << width;  // sign-extend
    literal->SetFromInt64(e, static_cast<int64_t>(bits));
  } else if (v.is_fpa()) {
    z3::expr bits =
        model.eval(z3::expr(model.ctx(), Z3_mk_fpa_to_ieee_bv(model.ctx(), variable)), true);
    literal->SetFromDouble(e, DecodeIeee(bits.get_numeral_uint64(), IeeeExponentBits(type),
                                         IeeeSignificandBits(type)));
  } else {
    // Floats are abstract in the formulas: each distinct abstract value
    // becomes a distinct small number (exact in every float type).
    std::string key = v.to_string();
    auto it = abstract->find(key);
    if (it == abstract->end())
      it = abstract->emplace(key, static_cast<double>(abstract->size() + 1)).first;
    literal->SetFromDouble(e, it->second);
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromModel(const z3::model& model, const SymValue& value,
                                         std::map<std::string, double>* abstract) {
  if (value.shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const SymValue& element : value.tuple) {
      HOPT_ASSIGN_OR_RETURN(Literal l, LiteralFromModel(model, element, abstract));
      elements.push_back(std::move(l));
    }
    return Literal::Tuple(value.shape, std::move(elements));
  }
  Literal literal(value.shape);
  if (!value.shape.IsArray()) return literal;
  for (size_t e = 0; e < value.elements.size(); ++e)
    HOPT_RETURN_IF_ERROR(SetFromModel(model, value.elements[e], value.shape.element_type(),
                                      abstract, &literal, static_cast<int64_t>(e)));
  return literal;
}

absl::Status CheckSignatures(const HloModule& before, const HloModule& after) {
  const HloComputation* a = before.entry_computation();
  const HloComputation* b = after.entry_computation();
  if (a->num_parameters() != b->num_parameters())
    return absl::InvalidArgumentError(absl::StrCat("the entries take ", a->num_parameters(),
                                                   " and ", b->num_parameters(), " parameters"));
  for (int64_t k = 0; k < a->num_parameters(); ++k)
    if (!a->parameter_instruction(k)->shape().Compatible(b->parameter_instruction(k)->shape()))
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter ", k, " is ", a->parameter_instruction(k)->shape().ToString(), " in one and ",
          b->parameter_instruction(k)->shape().ToString(), " in the other"));
  if (!a->root_instruction()->shape().Compatible(b->root_instruction()->shape()))
    return absl::InvalidArgumentError(
        absl::StrCat("the results are ", a->root_instruction()->shape().ToString(), " and ",
                     b->root_instruction()->shape().ToString()));
  return absl::OkStatus();
}

// The interpreter has the last word: only a difference it shows when it
// runs both modules on `result->arguments` is a counterexample.
// Returns true when the interpreter shows the outputs equal: the solver's
// model relied on an abstraction.
bool Replay(const HloModule& before, const HloModule& after, const eval::EvalOptions& options,
            const std::string& claimed, ProofResult* result) {
  auto ran_before = eval::RunModule(before, result->arguments, options);
  auto ran_after = eval::RunModule(after, result->arguments, options);
  if (!ran_before.ok() || !ran_after.ok()) {
    result->verdict = Verdict::kUnknown;
    result->reason =
        absl::StrCat("the solver's counterexample (", claimed, ") could not be replayed: ",
                     (ran_before.ok() ? ran_after.status() : ran_before.status()).message());
    return false;
  }
  for (size_t d = 0; d < ran_before->size(); ++d) {
    std::string difference = FirstDifference((*ran_before)[d], (*ran_after)[d], "");
    if (difference.empty()) continue;
    result->verdict = Verdict::kCounterexample;
    result->difference = absl::StrCat("device ", d, " (replica ", d / options.partitions,
                                      ", partition ", d % options.partitions, "), ", difference);
    return false;
  }
  result->verdict = Verdict::kUnknown;
  result->reason = absl::StrCat(
      "the solver found inputs where ", claimed,
      " may differ under its abstraction of float operations or of custom-calls without "
      "semantics, but the interpreter shows them equal");
  return true;
}

// One query. With `ieee`, floats are IEEE values; `*abstract_model` tells
// whether a model the interpreter does not confirm came from uninterpreted
// float operations (an IEEE query may then decide).
absl::StatusOr<ProofResult> Prove(const HloModule& before, const HloModule& after,
                                  const eval::EvalOptions& options,
                                  const ProofOptions& proof_options, bool ieee,
                                  bool* abstract_model) {
  ProofResult result;
  // Read when a context is made.
  z3::set_param("memory_max_size", static_cast<int>(proof_options.memory_mb));
  z3::context context;
  Encoder encoder(context);
  encoder.set_ieee_floats(ieee);
  eval::Mesh mesh{options.replicas, options.partitions};
  MeshEncoder mesh_encoder(encoder, mesh, options.custom_calls);
  const HloComputation* entry = before.entry_computation();
  // The inputs alone may be past what is encoded element by element: say
  // so before making a variable.
  int64_t input_elements = 0;
  for (const HloInstruction* p : entry->parameter_instructions())
    if (p->shape().IsArray())
      input_elements += p->shape().ElementCountIfFits().value_or(MeshEncoder::kMaxRegionElements);
  if (input_elements * mesh_encoder.devices() > MeshEncoder::kMaxRegionElements) {
    result.reason =
        absl::StrCat("the region's inputs have ", input_elements, " elements on each of ",
                     mesh_encoder.devices(), " devices, more than the ",
                     MeshEncoder::kMaxRegionElements, " element formulas encoded per region");
    return result;
  }
  std::vector<std::vector<SymValue>> arguments(mesh_encoder.devices());
  for (int64_t d = 0; d < mesh_encoder.devices(); ++d)
    for (int64_t k = 0; k < entry->num_parameters(); ++k) {
      const HloInstruction* p = entry->parameter_instruction(k);
      auto value = FreshValue(encoder, p->shape(), absl::StrCat("d", d, ".", p->name()));
      if (!value.ok()) {
        result.reason = std::string(value.status().message());
        return result;
      }
      arguments[d].push_back(*std::move(value));
    }
  auto encode = [&](const HloModule& module,
                    const char* side) -> absl::StatusOr<std::vector<SymValue>> {
    auto values = mesh_encoder.Run(module, arguments);
    if (!values.ok())
      return absl::UnimplementedError(absl::StrCat(side, ": ", values.status().message()));
    return values;
  };
  auto before_values = encode(before, "before");
  auto after_values = before_values.ok() ? encode(after, "after") : before_values;
  if (!before_values.ok() || !after_values.ok()) {
    result.reason =
        std::string((before_values.ok() ? after_values : before_values).status().message());
    return result;
  }
  std::vector<Difference> differences;
  for (int64_t d = 0; d < mesh_encoder.devices(); ++d)
    CollectDifferences((*before_values)[d], (*after_values)[d], d, "", &differences);
  if (ieee)
    result.encoding = encoder.used_functions()
                          ? "bit-vector, IEEE floats, uninterpreted transcendental operations"
                          : "bit-vector, IEEE floats";
  else
    result.encoding =
        encoder.used_functions() ? "bit-vector, uninterpreted float operations" : "bit-vector";
  if (mesh_encoder.used_opaque_calls())
    absl::StrAppend(&result.encoding, ", uninterpreted custom-calls");
  z3::solver solver(context);
  z3::params params(context);
  params.set("timeout", static_cast<unsigned>(proof_options.timeout_ms));
  solver.set(params);
  z3::expr_vector any(context);
  for (const Difference& d : differences) any.push_back(d.differs);
  z3::expr query = z3::mk_or(any).simplify();
  solver.add(query);
  z3::expr_vector roots(context);
  roots.push_back(query);
  encoder.Define(solver, roots);
  z3::check_result answer = solver.check();
  result.solver_mb = static_cast<double>(Z3_get_estimated_alloc_size()) / (1 << 20);
  switch (answer) {
    case z3::unsat: result.verdict = Verdict::kProved; return result;
    case z3::unknown:
      result.reason = absl::StrCat("the solver gave no answer (", solver.reason_unknown(), ")");
      return result;
    case z3::sat: break;
  }
  z3::model model = solver.get_model();
  std::map<std::string, double> abstract;
  result.arguments.resize(arguments.size());
  for (size_t d = 0; d < arguments.size(); ++d)
    for (const SymValue& value : arguments[d]) {
      HOPT_ASSIGN_OR_RETURN(Literal l, LiteralFromModel(model, value, &abstract));
      result.arguments[d].push_back(std::move(l));
    }
  std::string claimed;
  for (const Difference& d : differences)
    if (model.eval(d.differs, true).is_true()) {
      claimed = absl::StrCat("device ", d.device, ", ", d.where);
      break;
    }
  *abstract_model = Replay(before, after, options, claimed, &result) && encoder.used_functions();
  return result;
}

// Element formulas the two modules need over the mesh, as the encoder
// counts them, and whether one value alone is past the encoder's limit.
bool TooLargeToEncode(const HloModule& before, const HloModule& after, int64_t devices) {
  int64_t formulas = 0;
  for (const HloModule* module : {&before, &after})
    for (const HloInstruction* i : module->entry_computation()->instructions()) {
      if (!i->shape().IsArray()) continue;
      std::optional<int64_t> n = i->shape().ElementCountIfFits();
      if (!n || *n > MeshEncoder::kMaxElements) return true;
      formulas += *n * devices;
    }
  return formulas > MeshEncoder::kMaxRegionElements;
}

// Most element formulas an IEEE query is tried on: each float operation
// becomes a circuit of thousands of clauses.
constexpr int64_t kMaxIeeeFormulas = 4096;

int64_t ElementFormulas(const HloModule& module, int64_t devices) {
  int64_t n = 0;
  for (const HloInstruction* i : module.entry_computation()->instructions())
    if (i->shape().IsArray()) n += i->shape().ElementCountIfFits().value_or(kMaxIeeeFormulas);
  return n * devices;
}

// Uninterpreted float operations first: cheap, and a proof there holds for
// IEEE arithmetic too. When the only models are abstract ones and the
// region is small, floats as IEEE values decide.
absl::StatusOr<ProofResult> ProveGuarded(const HloModule& before, const HloModule& after,
                                         const eval::EvalOptions& options,
                                         const ProofOptions& proof_options,
                                         bool* too_large_for_ieee = nullptr) {
  try {
    bool abstract_model = false;
    HOPT_ASSIGN_OR_RETURN(ProofResult result, Prove(before, after, options, proof_options,
                                                    /*ieee=*/false, &abstract_model));
    if (!abstract_model) return result;
    int64_t devices = options.replicas * options.partitions;
    if (ElementFormulas(before, devices) + ElementFormulas(after, devices) > kMaxIeeeFormulas) {
      absl::StrAppend(&result.reason, "; the region is too large for IEEE float formulas (over ",
                      kMaxIeeeFormulas, " element formulas)");
      if (too_large_for_ieee != nullptr) *too_large_for_ieee = true;
      return result;
    }
    HOPT_ASSIGN_OR_RETURN(ProofResult exact, Prove(before, after, options, proof_options,
                                                   /*ieee=*/true, &abstract_model));
    if (exact.verdict != Verdict::kUnknown) return exact;
    absl::StrAppend(&result.reason, "; with IEEE floats: ", exact.reason);
    return result;
  } catch (const z3::exception& e) {
    ProofResult unknown;
    unknown.reason = absl::StrCat("Z3: ", e.msg());
    return unknown;
  }
}

// A region too large to encode element by element, proved with its uniform
// dimensions cut to one index (core/prove/reduced_shape.h). A proof there
// is a proof at full size; a counterexample there is repeated along the cut
// dimensions and must show the difference at full size too.
absl::StatusOr<std::optional<ProofResult>> ProveReduced(const HloModule& before,
                                                        const HloModule& after,
                                                        const eval::EvalOptions& options,
                                                        const ProofOptions& proof_options) {
  eval::Mesh mesh{options.replicas, options.partitions};
  HOPT_ASSIGN_OR_RETURN(std::optional<ShapeReduction> reduction,
                        ReduceUniformDimensions(before, after, mesh, options.custom_calls));
  if (!reduction) return std::nullopt;
  if (TooLargeToEncode(*reduction->before, *reduction->after, mesh.replicas * mesh.partitions))
    return std::nullopt;
  HOPT_ASSIGN_OR_RETURN(ProofResult result, ProveGuarded(*reduction->before, *reduction->after,
                                                         options, proof_options));
  result.encoding = absl::StrCat(result.encoding, "; reduced shape, ", reduction->description);
  if (result.verdict != Verdict::kCounterexample) return std::optional(std::move(result));
  const HloComputation* entry = before.entry_computation();
  for (std::vector<Literal>& device : result.arguments)
    for (size_t k = 0; k < device.size(); ++k) {
      HOPT_ASSIGN_OR_RETURN(
          device[k], ExpandAlongCutDimensions(device[k], entry->parameter_instruction(k)->shape()));
    }
  std::string claimed = absl::StrCat("at the reduced shape, ", result.difference);
  Replay(before, after, options, claimed, &result);
  return std::optional(std::move(result));
}

// Where the solver gave no answer, a few input sets through the
// interpreter: seeded random ones (-verify-equivalence's), then every
// element at one edge of its type (the lowest value, the highest, 0, -1).
// A difference they show is a counterexample as real as the solver's (the
// interpreter has the last word either way): a wrong rewrite is never
// "unknown" where random inputs or an overflow at the type's edge show it.
constexpr uint64_t kProbeSeeds = 3;

enum class Edge { kLowest, kHighest, kZero, kMinusOne };
constexpr Edge kEdges[] = {Edge::kLowest, Edge::kHighest, Edge::kZero, Edge::kMinusOne};

absl::string_view EdgeName(Edge edge) {
  switch (edge) {
    case Edge::kLowest: return "every element its type's lowest value";
    case Edge::kHighest: return "every element its type's highest value";
    case Edge::kZero: return "every element 0";
    default: return "every element -1 (all ones unsigned)";
  }
}

Literal EdgeLiteral(const Shape& shape, Edge edge) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes())
      elements.push_back(EdgeLiteral(element, edge));
    return *Literal::Tuple(shape, std::move(elements));  // the shapes are the tuple's own
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  const PrimitiveType type = shape.element_type();
  const int width = PrimitiveTypeBitWidth(type);
  for (int64_t e = 0; e < shape.ElementCount(); ++e) {
    if (Encoder::IsFloat(type)) {
      double v = edge == Edge::kLowest    ? -std::numeric_limits<double>::infinity()
                 : edge == Edge::kHighest ? std::numeric_limits<double>::infinity()
                 : edge == Edge::kZero    ? 0.0
                                          : -1.0;
      literal.SetFromDouble(e, v);
    } else if (type == PrimitiveType::PRED) {
      literal.SetFromInt64(e, edge == Edge::kHighest || edge == Edge::kMinusOne ? 1 : 0);
    } else if (Encoder::IsInteger(type) && width <= 64) {
      const bool is_signed = IsSignedIntegralType(type);
      int64_t lowest = is_signed ? (width == 64 ? std::numeric_limits<int64_t>::min()
                                                : -(int64_t{1} << (width - 1)))
                                 : 0;
      int64_t highest = is_signed ? (width == 64 ? std::numeric_limits<int64_t>::max()
                                                 : (int64_t{1} << (width - 1)) - 1)
                                  : (width == 64 ? -1 : (int64_t{1} << width) - 1);
      int64_t minus_one = is_signed || width == 64 ? -1 : (int64_t{1} << width) - 1;
      literal.SetFromInt64(e, edge == Edge::kLowest    ? lowest
                              : edge == Edge::kHighest ? highest
                              : edge == Edge::kZero    ? 0
                                                       : minus_one);
    }
  }
  return literal;
}

void ProbeWithInputs(const HloModule& before, const HloModule& after,
                     const eval::EvalOptions& options, ProofResult* result) {
  if (!eval::CheckArgumentsFit(before, options).ok()) return;
  const int64_t devices = options.replicas * options.partitions;
  auto found = [&](ProofResult& probe, const std::string& how) {
    result->verdict = Verdict::kCounterexample;
    result->arguments = std::move(probe.arguments);
    result->difference = absl::StrCat(probe.difference, "; found on ", how,
                                      " where the solver gave no answer: ", result->reason);
  };
  for (uint64_t seed = 1; seed <= kProbeSeeds; ++seed) {
    ProofResult probe;
    probe.arguments = eval::RandomArguments(before, devices, seed);
    Replay(before, after, options, "", &probe);
    if (probe.verdict == Verdict::kCounterexample)
      return found(probe, absl::StrCat("random inputs (seed ", seed, ")"));
  }
  const HloComputation* entry = before.entry_computation();
  for (Edge edge : kEdges) {
    ProofResult probe;
    probe.arguments.resize(devices);
    for (int64_t d = 0; d < devices; ++d)
      for (const HloInstruction* p : entry->parameter_instructions())
        probe.arguments[d].push_back(EdgeLiteral(p->shape(), edge));
    Replay(before, after, options, "", &probe);
    if (probe.verdict == Verdict::kCounterexample)
      return found(probe, absl::StrCat("inputs with ", EdgeName(edge)));
  }
}

}  // namespace

absl::StatusOr<ProofResult> ProveEquivalent(const HloModule& before, const HloModule& after,
                                            const eval::EvalOptions& options,
                                            const ProofOptions& proof_options) {
  HOPT_RETURN_IF_ERROR(CheckSignatures(before, after));
  if (options.replicas < 1 || options.partitions < 1)
    return absl::InvalidArgumentError("the proof needs the mesh (replicas and partitions)");
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ProofResult> result = absl::UnknownError("not tried");
  const bool too_large = TooLargeToEncode(before, after, options.replicas * options.partitions);
  if (too_large) {
    HOPT_ASSIGN_OR_RETURN(std::optional<ProofResult> reduced,
                          ProveReduced(before, after, options, proof_options));
    if (reduced) result = *std::move(reduced);
  }
  if (!result.ok()) {
    bool too_large_for_ieee = false;
    result = ProveGuarded(before, after, options, proof_options, &too_large_for_ieee);
    if (result.ok() && result->verdict == Verdict::kUnknown && too_large)
      absl::StrAppend(&result->reason,
                      " (no dimension of the region is uniform: each is indexed, reduced or "
                      "reshaped by some instruction, so no reduced shape stands for it)");
    // Too large for IEEE floats, perhaps not once cut to its uniform
    // dimensions.
    if (result.ok() && too_large_for_ieee) {
      HOPT_ASSIGN_OR_RETURN(std::optional<ProofResult> reduced,
                            ProveReduced(before, after, options, proof_options));
      if (reduced && reduced->verdict != Verdict::kUnknown) result = *std::move(reduced);
    }
  }
  if (result.ok() && result->verdict == Verdict::kUnknown)
    ProbeWithInputs(before, after, options, &*result);
  if (result.ok())
    result->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string ArgumentsFileText(const HloModule& module,
                              const std::vector<std::vector<Literal>>& arguments) {
  std::string out = absl::StrCat("// A counterexample: each device's arguments of '", module.name(),
                                 "' (hlo-run -args).\n");
  for (size_t d = 0; d < arguments.size(); ++d)
    for (const Literal& value : arguments[d])
      absl::StrAppend(&out, "device ", d, ": ", value.shape().ToString(), " ", value.ToText(),
                      "\n");
  return out;
}

}  // namespace prove
}  // namespace hopt

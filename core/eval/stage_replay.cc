// SPDX-License-Identifier: Apache-2.0

#include "core/eval/tooling/stage_replay.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hopt/ir/parser.h"
#include "hopt/ir/verifier.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

using split::Manifest;
using split::ValueSource;

std::string DeviceName(int64_t device, int64_t partitions) {
  return absl::StrCat("device ", device, " (replica ", device / partitions, ", partition ",
                      device % partitions, ")");
}

absl::Status StageError(int64_t stage, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("stage ", stage, ": ", message));
}

// The stage module must be the one the manifest describes: a module from
// another split (or an edited one) would otherwise be fed values it was not
// written for, and fail far from the cause or, worse, not at all.
absl::Status CheckStageModule(const HloModule& module, const Manifest& manifest,
                              const split::Stage& stage, const std::string& path) {
  if (module.replica_count() != manifest.replica_count ||
      module.num_partitions() != manifest.num_partitions)
    return StageError(stage.index,
                      absl::StrCat(path, ": replica_count=", module.replica_count(),
                                   ", num_partitions=", module.num_partitions(),
                                   ", the manifest says replica_count=", manifest.replica_count,
                                   ", num_partitions=", manifest.num_partitions));
  const HloComputation* entry = module.entry_computation();
  if (entry->num_parameters() != static_cast<int64_t>(stage.parameters.size()))
    return StageError(stage.index,
                      absl::StrCat(path, ": the entry computation takes ", entry->num_parameters(),
                                   " parameter(s), the manifest lists ", stage.parameters.size()));
  for (const split::StageParameter& parameter : stage.parameters) {
    const HloInstruction* instruction = entry->parameter_instruction(parameter.number);
    HOPT_ASSIGN_OR_RETURN(Shape expected, ParseShape(parameter.shape));
    if (!split::SameShape(instruction->shape(), expected))
      return StageError(
          stage.index,
          absl::StrCat(path, ": parameter ", parameter.number, " ('", instruction->name(), "') is ",
                       instruction->shape().ToString(), ", the manifest says ", parameter.shape));
  }
  const HloInstruction* root = entry->root_instruction();
  if (root->opcode() != HloOpcode::kTuple)
    return StageError(stage.index,
                      absl::StrCat(path, ": the entry computation's root '", root->name(),
                                   "' is not a tuple (a stage returns the tuple of its outputs)"));
  if (root->operand_count() != static_cast<int64_t>(stage.outputs.size()))
    return StageError(
        stage.index,
        absl::StrCat(path, ": the root tuple has ", root->operand_count(),
                     " element(s), the manifest lists ", stage.outputs.size(), " output(s)"));
  for (const split::StageOutput& output : stage.outputs) {
    const Shape& actual = root->operand(output.index)->shape();
    HOPT_ASSIGN_OR_RETURN(Shape expected, ParseShape(output.shape));
    if (!split::SameShape(actual, expected))
      return StageError(
          stage.index,
          absl::StrCat(path, ": output ", output.index, " ('", root->operand(output.index)->name(),
                       "') is ", actual.ToString(), ", the manifest says ", output.shape));
  }
  return absl::OkStatus();
}

absl::Status CheckArguments(const Manifest& manifest,
                            const std::vector<std::vector<Literal>>& arguments, int64_t devices) {
  if (static_cast<int64_t>(arguments.size()) != devices)
    return absl::InvalidArgumentError(absl::StrCat("stages: arguments for ", arguments.size(),
                                                   " devices, the mesh has ", devices));
  for (int64_t d = 0; d < devices; ++d) {
    if (arguments[d].size() != manifest.entry_parameters.size())
      return absl::InvalidArgumentError(absl::StrCat(
          "stages: the original entry computation takes ", manifest.entry_parameters.size(),
          " arguments, got ", arguments[d].size(), " on device ", d));
    for (const split::EntryParameter& parameter : manifest.entry_parameters) {
      HOPT_ASSIGN_OR_RETURN(Shape expected, ParseShape(parameter.shape));
      const Shape& actual = arguments[d][parameter.number].shape();
      if (!actual.Compatible(expected))
        return absl::InvalidArgumentError(absl::StrCat(
            "stages: device ", d, " argument ", parameter.number, " has shape ", actual.ToString(),
            ", parameter ", parameter.name, " is ", parameter.shape));
    }
  }
  return absl::OkStatus();
}

// The last stage that reads each output (indexed [stage][output]), so that
// values are dropped as soon as nothing needs them: -1 when none does, the
// largest int64 for the result's values, kept to the end. Computed from the
// sources rather than the writer's `consumers` lists, which are
// informational.
std::vector<std::vector<int64_t>> LastStageReaders(const Manifest& manifest) {
  constexpr int64_t kKeep = std::numeric_limits<int64_t>::max();
  std::vector<std::vector<int64_t>> last_reader(manifest.stages.size());
  for (const split::Stage& stage : manifest.stages)
    last_reader[stage.index].assign(stage.outputs.size(), -1);
  for (const split::Stage& stage : manifest.stages)
    for (const split::StageParameter& parameter : stage.parameters)
      if (parameter.source.kind == ValueSource::Kind::kStageOutput) {
        int64_t& last = last_reader[parameter.source.stage][parameter.source.output];
        last = std::max(last, stage.index);
      }
  for (const ValueSource& source : manifest.result)
    if (source.kind == ValueSource::Kind::kStageOutput)
      last_reader[source.stage][source.output] = kKeep;
  return last_reader;
}

// values[stage][device][output] after stage `done` ran: drops what no
// later stage reads, the outputs `done` was the last to read and its own
// outputs that nobody reads.
void DropUnreadValues(const std::vector<std::vector<int64_t>>& last_reader, int64_t done,
                      std::vector<std::vector<std::vector<Literal>>>* values) {
  for (int64_t t = 0; t <= done; ++t)
    for (size_t o = 0; o < last_reader[t].size(); ++o) {
      int64_t last = last_reader[t][o];
      if (last == done || (t == done && last < 0))
        for (std::vector<Literal>& device_values : (*values)[t]) device_values[o] = Literal();
    }
}

// The stage's module, parsed, verified and checked against the manifest.
absl::StatusOr<std::unique_ptr<HloModule>> LoadStageModule(const Manifest& manifest,
                                                           const split::Stage& stage,
                                                           const std::string& path) {
  auto parsed = ParseHloModuleFromFile(path, path);
  if (!parsed.ok()) return StageError(stage.index, parsed.status().message());
  std::unique_ptr<HloModule> module = *std::move(parsed);
  absl::Status valid = VerifyModule(*module);
  if (!valid.ok()) return StageError(stage.index, absl::StrCat(path, ": ", valid.message()));
  HOPT_RETURN_IF_ERROR(CheckStageModule(*module, manifest, stage, path));
  return module;
}

}  // namespace

std::string StageFilePath(absl::string_view manifest_dir, absl::string_view file) {
  if (manifest_dir.empty()) return std::string(file);
  if (manifest_dir.back() == '/') return absl::StrCat(manifest_dir, file);
  return absl::StrCat(manifest_dir, "/", file);
}

absl::StatusOr<std::vector<Literal>> RunStages(const Manifest& manifest,
                                               absl::string_view manifest_dir,
                                               const std::vector<std::vector<Literal>>& arguments,
                                               const EvalOptions& options) {
  // The schema's promises (sources name earlier stages, files stay in the
  // directory...) are what keep the indexing below in bounds; a manifest
  // built in memory has not been through the reader.
  HOPT_RETURN_IF_ERROR(split::ValidateManifest(manifest));
  int64_t replicas = options.replicas > 0 ? options.replicas : manifest.replica_count;
  int64_t partitions = options.partitions > 0 ? options.partitions : manifest.num_partitions;
  HOPT_ASSIGN_OR_RETURN(const int64_t devices, MeshDevices(replicas, partitions));
  HOPT_RETURN_IF_ERROR(CheckArguments(manifest, arguments, devices));

  const int64_t stage_count = static_cast<int64_t>(manifest.stages.size());
  const std::vector<std::vector<int64_t>> last_reader = LastStageReaders(manifest);

  // values[stage][device][output]
  std::vector<std::vector<std::vector<Literal>>> values(stage_count);
  auto value_of = [&](const ValueSource& source, int64_t device) -> const Literal& {
    if (source.kind == ValueSource::Kind::kEntryParameter)
      return arguments[device][source.entry_parameter];
    return values[source.stage][device][source.output];
  };

  for (const split::Stage& stage : manifest.stages) {
    std::string path = StageFilePath(manifest_dir, stage.file);
    HOPT_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                          LoadStageModule(manifest, stage, path));

    std::vector<std::vector<Literal>> stage_arguments(devices);
    for (int64_t d = 0; d < devices; ++d)
      for (const split::StageParameter& parameter : stage.parameters)
        stage_arguments[d].push_back(value_of(parameter.source, d));
    auto results = RunModule(*module, stage_arguments, options);
    if (!results.ok())
      return StageError(stage.index, absl::StrCat(path, ": ", results.status().message()));
    module.reset();
    stage_arguments.clear();

    values[stage.index].resize(devices);
    for (int64_t d = 0; d < devices; ++d)
      values[stage.index][d] = std::move((*results)[d].mutable_tuple_elements());
    DropUnreadValues(last_reader, stage.index, &values);
  }

  std::vector<Literal> outputs;
  outputs.reserve(devices);
  for (int64_t d = 0; d < devices; ++d) {
    if (!manifest.result_is_tuple) {
      outputs.push_back(value_of(manifest.result[0], d));
      continue;
    }
    std::vector<Shape> shapes;
    std::vector<Literal> elements;
    for (const ValueSource& source : manifest.result) {
      elements.push_back(value_of(source, d));
      shapes.push_back(elements.back().shape());
    }
    Literal tuple(Shape::MakeTuple(std::move(shapes)));
    tuple.mutable_tuple_elements() = std::move(elements);
    outputs.push_back(std::move(tuple));
  }
  return outputs;
}

absl::Status CheckManifestMatchesModule(const HloModule& original, const Manifest& manifest) {
  const HloComputation* entry = original.entry_computation();
  std::string module = absl::StrCat("module '", original.name(), "'");
  if (entry->num_parameters() != static_cast<int64_t>(manifest.entry_parameters.size()))
    return absl::InvalidArgumentError(
        absl::StrCat("the manifest lists ", manifest.entry_parameters.size(),
                     " entry parameter(s), ", module, " takes ", entry->num_parameters()));
  for (const split::EntryParameter& parameter : manifest.entry_parameters) {
    HOPT_ASSIGN_OR_RETURN(Shape shape, ParseShape(parameter.shape));
    const Shape& actual = entry->parameter_instruction(parameter.number)->shape();
    if (!split::SameShape(shape, actual))
      return absl::InvalidArgumentError(
          absl::StrCat("the manifest's entry parameter ", parameter.number, " is ", parameter.shape,
                       ", in ", module, " it is ", actual.ToString()));
  }
  HOPT_ASSIGN_OR_RETURN(Shape result, ParseShape(manifest.result_shape));
  const Shape& actual = entry->root_instruction()->shape();
  if (!split::SameShape(result, actual))
    return absl::InvalidArgumentError(absl::StrCat("the manifest's result is ",
                                                   manifest.result_shape, ", ", module, " returns ",
                                                   actual.ToString()));
  if (original.replica_count() != manifest.replica_count ||
      original.num_partitions() != manifest.num_partitions)
    return absl::InvalidArgumentError(absl::StrCat(
        "the manifest says replica_count=", manifest.replica_count, ", num_partitions=",
        manifest.num_partitions, ", ", module, " has replica_count=", original.replica_count(),
        ", num_partitions=", original.num_partitions()));
  return absl::OkStatus();
}

absl::Status CheckStagesReproduce(const HloModule& original, const Manifest& manifest,
                                  absl::string_view manifest_dir,
                                  const std::vector<std::vector<Literal>>& arguments,
                                  const EvalOptions& options, std::string* report) {
  HOPT_RETURN_IF_ERROR(CheckManifestMatchesModule(original, manifest));
  auto expected = RunModule(original, arguments, options);
  if (!expected.ok())
    return absl::Status(
        expected.status().code(),
        absl::StrCat("cannot run module '", original.name(), "': ", expected.status().message()));
  HOPT_ASSIGN_OR_RETURN(std::vector<Literal> actual,
                        RunStages(manifest, manifest_dir, arguments, options));
  int64_t partitions = options.partitions > 0 ? options.partitions : original.num_partitions();
  int64_t devices = static_cast<int64_t>(expected->size());
  // Compared element by element so that a difference names the stage
  // output it came from.
  auto origin = [&](const ValueSource& source) {
    std::string where = split::DescribeSource(source);
    if (source.kind == ValueSource::Kind::kStageOutput)
      return absl::StrCat("'", manifest.stages[source.stage].outputs[source.output].name, "', ",
                          where);
    return absl::StrCat("'", manifest.entry_parameters[source.entry_parameter].name, "', ", where);
  };
  for (int64_t d = 0; d < devices; ++d) {
    const Literal& want = (*expected)[d];
    const Literal& got = actual[d];
    std::string difference;
    if (!manifest.result_is_tuple) {
      if (!BitwiseEqual(want, got, &difference))
        return absl::FailedPreconditionError(
            absl::StrCat(DeviceName(d, partitions), ": the result (", origin(manifest.result[0]),
                         "): ", difference, " (original vs stages)"));
      continue;
    }
    for (size_t k = 0; k < manifest.result.size(); ++k) {
      if (!BitwiseEqual(want.tuple_elements()[k], got.tuple_elements()[k], &difference))
        return absl::FailedPreconditionError(
            absl::StrCat(DeviceName(d, partitions), ": result tuple element ", k, " (",
                         origin(manifest.result[k]), "): ", difference, " (original vs stages)"));
    }
  }
  *report = absl::StrCat(manifest.stages.size(), " stage(s) reproduce the outputs of '",
                         original.name(), "' on ", devices, " device(s)");
  return absl::OkStatus();
}

}  // namespace eval
}  // namespace hopt

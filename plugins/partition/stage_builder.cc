// SPDX-License-Identifier: Apache-2.0

#include "partition/stage_builder.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hopt/ir/computation.h"
#include "hopt/ir/extract.h"
#include "hopt/support/status_macros.h"

namespace neuron {
namespace partition {

using hopt::HloComputation;
using hopt::HloInstruction;
using hopt::HloModule;
using hopt::HloOpcode;
using hopt::split::ValueSource;

// What one stage reads, copies and hands on, gathered before it is built.
struct StagePlan {
  std::string name;
  int32_t position = 0;
  std::vector<const HloInstruction*> body;  // list order
  std::vector<const HloInstruction*> parameters;
  std::vector<ValueSource> sources;
  absl::flat_hash_map<const HloInstruction*, int64_t> parameter_index;
  std::vector<const HloInstruction*> rematerialized;  // operands first
  absl::flat_hash_set<const HloInstruction*> rematerialized_set;
  std::vector<const HloInstruction*> outputs;
  std::vector<std::vector<int64_t>> consumers;
  absl::flat_hash_map<const HloInstruction*, int64_t> output_index;
};

namespace {

bool IsTransfer(HloOpcode opcode) {
  return opcode == HloOpcode::kSend || opcode == HloOpcode::kSendDone ||
         opcode == HloOpcode::kRecv || opcode == HloOpcode::kRecvDone;
}

// A send and its recv meet only within one run of one module: each device
// runs every stage, so a channel cut across two stages would wait forever.
absl::Status CheckTransfersStayTogether(const std::vector<StagePlan>& plans) {
  absl::flat_hash_map<int64_t, std::pair<size_t, const HloInstruction*>> first_use;
  for (size_t s = 0; s < plans.size(); ++s) {
    for (const HloInstruction* instruction : plans[s].body) {
      if (!IsTransfer(instruction->opcode())) continue;
      std::optional<int64_t> channel = instruction->channel_id();
      if (!channel) continue;
      auto [it, inserted] = first_use.try_emplace(*channel, s, instruction);
      if (!inserted && it->second.first != s)
        return absl::FailedPreconditionError(absl::StrCat(
            "send/recv channel ", *channel, " would be cut: '", it->second.second->name(),
            "' falls into stage ", it->second.first, " and '", instruction->name(), "' into stage ",
            s, "; a channel's send and recv must run in one stage"));
    }
  }
  return absl::OkStatus();
}

// `value` and its operands, operands first. A chain of cheap reshapes can
// be as long as the input makes it: walked with a stack of our own.
void Rematerialize(StagePlan& plan, const HloInstruction* value) {
  if (!plan.rematerialized_set.insert(value).second) return;
  std::vector<std::pair<const HloInstruction*, int64_t>> stack = {{value, 0}};
  while (!stack.empty()) {
    auto& [at, next_operand] = stack.back();
    if (next_operand == at->operand_count()) {
      plan.rematerialized.push_back(at);
      stack.pop_back();
      continue;
    }
    const HloInstruction* operand = at->operand(next_operand++);
    if (plan.rematerialized_set.insert(operand).second) stack.push_back({operand, 0});
  }
}

int64_t AddOutput(StagePlan& plan, const HloInstruction* value, int64_t consumer) {
  auto [it, inserted] = plan.output_index.try_emplace(value, plan.outputs.size());
  if (inserted) {
    plan.outputs.push_back(value);
    plan.consumers.emplace_back();
  }
  std::vector<int64_t>& consumers = plan.consumers[it->second];
  if (consumers.empty() || consumers.back() != consumer) consumers.push_back(consumer);
  return it->second;
}

void AddParameter(StagePlan& plan, const HloInstruction* value, ValueSource source) {
  if (plan.parameter_index.try_emplace(value, plan.parameters.size()).second) {
    plan.parameters.push_back(value);
    plan.sources.push_back(source);
  }
}

std::string StageLabel(int32_t position, int32_t position_count,
                       absl::Span<const SpanSummary> spans, hopt::split::Stage& stage) {
  const int32_t last = position_count - 1;
  stage.direction = "none";
  if (position % 2 == 1) {
    const SpanSummary& span = spans[position / 2];
    stage.kind = "layer";
    stage.direction = std::string(DirectionName(span.direction));
    stage.boundary_count = span.boundary_count;
    stage.start_marker = span.start_marker;
    stage.end_marker = span.end_marker;
    return span.boundary_count ? absl::StrCat(stage.direction, "-bc", *span.boundary_count)
                               : stage.direction;
  }
  stage.kind = last == 0          ? "whole"
               : position == 0    ? "prologue"
               : position == last ? "epilogue"
                                  : "between";
  return stage.kind;
}

absl::StatusOr<std::unique_ptr<HloModule>> BuildStageModule(const HloModule& module,
                                                            const StagePlan& plan) {
  auto stage = std::make_unique<HloModule>(absl::StrCat(module.name(), ".", plan.name));
  stage->set_replica_count(module.replica_count());
  stage->set_num_partitions(module.num_partitions());
  stage->set_is_scheduled(module.is_scheduled());
  // The copies keep their metadata, whose stack_frame_id points into these.
  stage->ShareStackFramesFrom(module);
  HloComputation* entry = stage->AddComputation(module.entry_computation()->name(), true);
  hopt::InstructionCopier copier(*stage);
  for (size_t j = 0; j < plan.parameters.size(); ++j) {
    const HloInstruction* value = plan.parameters[j];
    copier.Map(value, entry->AddParameter(value->shape(), value->name(), static_cast<int64_t>(j)));
  }
  HOPT_RETURN_IF_ERROR(copier.Copy(plan.rematerialized, entry));
  HOPT_RETURN_IF_ERROR(copier.Copy(plan.body, entry));
  std::vector<HloInstruction*> outputs;
  std::vector<hopt::Shape> shapes;
  for (const HloInstruction* value : plan.outputs) {
    outputs.push_back(copier.Find(value));
    shapes.push_back(value->shape());
  }
  HloInstruction* root = entry->AddInstruction(
      HloOpcode::kTuple, hopt::Shape::MakeTuple(std::move(shapes)), outputs, "stage_outputs");
  HOPT_RETURN_IF_ERROR(entry->set_root_instruction(root, /*accept_different_shape=*/true));
  return stage;
}

}  // namespace

std::vector<SpanSummary> SummarizeSpans(const LayerBoundaries& boundaries) {
  std::vector<SpanSummary> summaries;
  for (const LayerSpan& span : boundaries.spans)
    summaries.push_back({std::string(span.start->name()), std::string(span.end->name()),
                         span.direction, span.boundary_count});
  return summaries;
}

SplitProgram::SplitProgram(const HloModule& module, hopt::split::Manifest manifest,
                           std::vector<StagePlan> plans)
    : module_(&module), manifest_(std::move(manifest)), plans_(std::move(plans)) {}
SplitProgram::SplitProgram(SplitProgram&&) = default;
SplitProgram::~SplitProgram() = default;

absl::StatusOr<std::unique_ptr<HloModule>> SplitProgram::BuildStage(int64_t stage) const {
  return BuildStageModule(*module_, plans_[stage]);
}

absl::StatusOr<SplitProgram> PlanStages(const HloModule& module,
                                        absl::Span<const SpanSummary> spans,
                                        const StageAssignment& assignment,
                                        int64_t input_instruction_count) {
  const HloComputation& entry = *module.entry_computation();
  const int32_t position_count = assignment.position_count();
  const HloInstruction* root = entry.root_instruction();
  const bool assembled = root->opcode() == HloOpcode::kTuple && root->user_count() == 0 &&
                         !root->has_control_successors();

  std::vector<std::vector<const HloInstruction*>> bodies(position_count);
  for (const HloInstruction* instruction : entry.instructions()) {
    if (assembled && instruction == root) continue;
    int32_t position = assignment.PositionOf(*instruction);
    if (position == StageAssignment::kParameter || position == StageAssignment::kRematerialized)
      continue;
    if (position < 0 || position >= position_count)
      return absl::InternalError(
          absl::StrCat("marker-splitter: '", instruction->name(), "' was given no stage"));
    bodies[position].push_back(instruction);
  }
  std::vector<const HloInstruction*> results;
  if (assembled)
    results.assign(root->operands().begin(), root->operands().end());
  else
    results.push_back(root);

  // Positions with code become stages; a result that is a cheap producer
  // is computed by the last stage, made if there is none.
  std::vector<StagePlan> plans;
  std::vector<int32_t> stage_of_position(position_count, -1);
  for (int32_t position = 0; position < position_count; ++position) {
    if (bodies[position].empty()) continue;
    stage_of_position[position] = static_cast<int32_t>(plans.size());
    plans.emplace_back();
    plans.back().position = position;
    plans.back().body = std::move(bodies[position]);
  }
  bool cheap_result = false;
  for (const HloInstruction* value : results)
    cheap_result |= assignment.PositionOf(*value) == StageAssignment::kRematerialized;
  if (plans.empty() && cheap_result) {
    stage_of_position[position_count - 1] = 0;
    plans.emplace_back();
    plans.back().position = position_count - 1;
  }

  HOPT_RETURN_IF_ERROR(CheckTransfersStayTogether(plans));

  for (size_t s = 0; s < plans.size(); ++s) {
    StagePlan& plan = plans[s];
    for (const HloInstruction* instruction : plan.body) {
      for (const HloInstruction* operand : instruction->operands()) {
        int32_t position = assignment.PositionOf(*operand);
        if (position == StageAssignment::kParameter) {
          AddParameter(plan, operand, ValueSource::EntryParameter(operand->parameter_number()));
        } else if (position == StageAssignment::kRematerialized) {
          Rematerialize(plan, operand);
        } else if (position != plan.position) {
          int32_t producer =
              position >= 0 && position < plan.position ? stage_of_position[position] : -1;
          if (producer < 0)
            return absl::InternalError(absl::StrCat("marker-splitter: '", instruction->name(),
                                                    "' reads '", operand->name(),
                                                    "', which no earlier stage computes"));
          if (!plan.parameter_index.contains(operand)) {
            int64_t output = AddOutput(plans[producer], operand, static_cast<int64_t>(s));
            AddParameter(plan, operand, ValueSource::StageOutput(producer, output));
          }
        }
      }
    }
  }

  hopt::split::Manifest manifest;
  manifest.module = std::string(module.name());
  manifest.replica_count = module.replica_count();
  manifest.num_partitions = module.num_partitions();
  manifest.instruction_count = input_instruction_count;
  for (const HloInstruction* parameter : entry.parameter_instructions())
    manifest.entry_parameters.push_back({parameter->parameter_number(),
                                         std::string(parameter->name()),
                                         parameter->shape().ToString()});
  manifest.result_shape = assembled ? root->shape().ToString() : results[0]->shape().ToString();
  manifest.result_is_tuple = assembled;
  for (const HloInstruction* value : results) {
    int32_t position = assignment.PositionOf(*value);
    if (position == StageAssignment::kParameter) {
      manifest.result.push_back(ValueSource::EntryParameter(value->parameter_number()));
      continue;
    }
    int32_t stage = position == StageAssignment::kRematerialized
                        ? static_cast<int32_t>(plans.size()) - 1
                    : position >= 0 && position < position_count ? stage_of_position[position]
                                                                 : -1;
    if (stage < 0)
      return absl::InternalError(
          absl::StrCat("marker-splitter: result '", value->name(), "' was given no stage"));
    if (position == StageAssignment::kRematerialized) Rematerialize(plans[stage], value);
    manifest.result.push_back(ValueSource::StageOutput(stage, AddOutput(plans[stage], value, -1)));
  }

  // Names sort in stage order.
  const int width = std::max<int>(
      2, static_cast<int>(std::to_string(std::max<size_t>(plans.size(), 1) - 1).size()));
  for (size_t s = 0; s < plans.size(); ++s) {
    StagePlan& plan = plans[s];
    hopt::split::Stage stage;
    stage.index = static_cast<int64_t>(s);
    std::string label = StageLabel(plan.position, position_count, spans, stage);
    stage.name = absl::StrFormat("stage-%0*d-%s", width, static_cast<int>(s), label);
    stage.file = stage.name + ".hlo";
    plan.name = stage.name;
    // What BuildStageModule makes: parameters, copies, the output tuple.
    stage.instruction_count = static_cast<int64_t>(plan.parameters.size() +
                                                   plan.rematerialized.size() + plan.body.size()) +
                              1;
    stage.rematerialized_count = static_cast<int64_t>(plan.rematerialized.size());
    for (size_t j = 0; j < plan.parameters.size(); ++j)
      stage.parameters.push_back({static_cast<int64_t>(j), std::string(plan.parameters[j]->name()),
                                  plan.parameters[j]->shape().ToString(), plan.sources[j]});
    for (size_t j = 0; j < plan.outputs.size(); ++j)
      stage.outputs.push_back({static_cast<int64_t>(j), std::string(plan.outputs[j]->name()),
                               plan.outputs[j]->shape().ToString(), plan.consumers[j]});
    manifest.stages.push_back(std::move(stage));
  }
  return SplitProgram(module, std::move(manifest), std::move(plans));
}

}  // namespace partition
}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0

#include "partition/stage_graph.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hopt/support/graphviz.h"

namespace neuron {
namespace partition {
namespace {

using hopt::split::Manifest;
using hopt::split::Stage;
using hopt::split::ValueSource;

// Values named on an edge; the rest are counted.
constexpr size_t kNamedValuesPerEdge = 3;
// Above this many stages the picture is summarised: Graphviz's layout of a
// 96-layer split with every edge takes minutes (the long edges from the
// parameters and from forward to backward layers); without the parameter
// edges and with bounded crossing minimisation it takes about a second.
constexpr size_t kLargeSplitStages = 32;

// "f32[2,4]{1,0}" -> "f32[2,4]": layouts make labels long and say little.
std::string WithoutLayouts(absl::string_view shape) {
  std::string out;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == '{' && k > 0 && shape[k - 1] == ']') {
      size_t close = shape.find('}', k);
      if (close != absl::string_view::npos) {
        k = close;
        continue;
      }
    }
    out.push_back(shape[k]);
  }
  return out;
}

std::string FillColor(const Stage& stage) {
  if (stage.kind != "layer") return "#e5e5e5";
  return stage.direction == "forward" ? "#cfe2ff" : "#f8d7da";
}

std::string NodeId(int64_t stage) { return stage < 0 ? "params" : absl::StrCat("s", stage); }

}  // namespace

std::string StageGraphDot(const Manifest& manifest) {
  std::string dot = "digraph stages {\n";
  absl::StrAppend(&dot, "  label=\"", hopt::EscapeDotString(manifest.module), ": ",
                  manifest.stages.size(), " stage(s), ", manifest.replica_count, " replica(s) x ",
                  manifest.num_partitions, " partition(s)\";\n  labelloc=t;\n",
                  "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n",
                  "  edge [fontname=\"Helvetica\", fontsize=10];\n");
  const bool large = manifest.stages.size() > kLargeSplitStages;
  if (large) dot += "  mclimit=0.01; nslimit=1; nslimit1=1; remincross=false; splines=false;\n";
  absl::StrAppend(&dot, "  params [shape=ellipse, fillcolor=white, label=\"entry parameters\\n",
                  manifest.entry_parameters.size(), " value(s)",
                  large ? "\\n(edges to the stages left out)" : "", "\"];\n");
  for (const Stage& stage : manifest.stages) {
    std::string label = absl::StrCat(stage.name, "\\n", stage.kind);
    if (stage.kind == "layer") {
      absl::StrAppend(&label, ", ", stage.direction);
      if (stage.boundary_count) absl::StrAppend(&label, ", boundaryCount=", *stage.boundary_count);
      absl::StrAppend(&label, "\\n", hopt::EscapeDotString(stage.start_marker), " .. ",
                      hopt::EscapeDotString(stage.end_marker));
    }
    absl::StrAppend(&label, "\\n", stage.instruction_count, " instruction(s)");
    absl::StrAppend(&dot, "  ", NodeId(stage.index), " [fillcolor=\"", FillColor(stage),
                    "\", label=\"", label, "\"];\n");
  }
  absl::StrAppend(&dot, "  result [shape=ellipse, fillcolor=white, label=\"result\\n",
                  hopt::EscapeDotString(WithoutLayouts(manifest.result_shape)), "\"];\n");

  // (from, to) -> the values passed; from -1 is the entry parameters, to -1
  // the result.
  std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> edges;
  auto describe = [](const std::string& name, const std::string& shape) {
    return absl::StrCat(name, " ", WithoutLayouts(shape));
  };
  for (const Stage& stage : manifest.stages)
    for (const auto& parameter : stage.parameters) {
      int64_t from =
          parameter.source.kind == ValueSource::Kind::kEntryParameter ? -1 : parameter.source.stage;
      edges[{from, stage.index}].push_back(describe(parameter.name, parameter.shape));
    }
  for (const ValueSource& source : manifest.result) {
    if (source.kind == ValueSource::Kind::kEntryParameter) {
      const auto& parameter = manifest.entry_parameters[source.entry_parameter];
      edges[{-1, -1}].push_back(describe(parameter.name, parameter.shape));
    } else {
      const auto& output = manifest.stages[source.stage].outputs[source.output];
      edges[{source.stage, -1}].push_back(describe(output.name, output.shape));
    }
  }
  for (const auto& [key, values] : edges) {
    if (large && key.first < 0 && key.second >= 0) continue;
    std::string label = absl::StrCat(values.size(), values.size() == 1 ? " value" : " values");
    for (size_t k = 0; k < values.size() && k < kNamedValuesPerEdge; ++k)
      absl::StrAppend(&label, "\\n", hopt::EscapeDotString(values[k]));
    if (values.size() > kNamedValuesPerEdge) absl::StrAppend(&label, "\\n...");
    absl::StrAppend(&dot, "  ", NodeId(key.first), " -> ",
                    key.second < 0 ? std::string("result") : NodeId(key.second), " [label=\"",
                    label, "\"", key.first < 0 ? ", style=dashed" : "", "];\n");
  }
  dot += "}\n";
  return dot;
}

}  // namespace partition
}  // namespace neuron

// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_PARTITION_STAGE_GRAPH_H_
#define HOPT_PLUGINS_PARTITION_STAGE_GRAPH_H_

// stages.dot: a split drawn as a Graphviz graph. One box per stage (name,
// kind, direction, boundaryCount, markers, instruction count; forward spans
// blue, backward spans red, other code grey), one node for the entry
// parameters and one for the result; an edge per pair of stages that
// passes values, labelled with how many and the first few (name and shape).

#include <string>

#include "hopt/support/split_manifest.h"

namespace neuron {
namespace partition {

// Rendered by hopt::RenderSvg (include/hopt/support/graphviz.h).
std::string StageGraphDot(const hopt::split::Manifest& manifest);

}  // namespace partition
}  // namespace neuron

#endif  // HOPT_PLUGINS_PARTITION_STAGE_GRAPH_H_

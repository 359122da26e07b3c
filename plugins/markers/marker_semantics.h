// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_
#define HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_

#include "hopt/pass_manager/registrar.h"

namespace neuron {

// Tells the interpreter (through the registrar) that the six marker targets
// compute the identity: a marker returns its operand, or with N != 1
// operands the tuple of them. Also draws them as markers in -emit-dot.
void AddMarkerSemantics(hopt::PluginRegistrar& registrar);

}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_

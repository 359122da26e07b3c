#ifndef HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_
#define HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_

namespace neuron {

// Tells the interpreter that the six marker targets compute the identity: a
// marker returns its operand, or with N != 1 operands the tuple of them.
// Idempotent.
void RegisterMarkerSemantics();

}  // namespace neuron

#endif  // HOPT_PLUGINS_MARKERS_MARKER_SEMANTICS_H_

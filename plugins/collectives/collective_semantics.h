// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_
#define HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_

#include "hopt/ir/instruction.h"
#include "hopt/pass_manager/registrar.h"

namespace neuron {

// Tells the interpreter (through the registrar) what the custom-calls of
// this plugin compute:
// every AwsNeuron* collective target of the naming contract, and
void AddNeuronCollectiveSemantics(hopt::PluginRegistrar& registrar);
// fuse-send-recv's fused calls, whatever fuse-send-recv{target=...} names
// them: recognised by their form (IsFusedSendRecv), not their target.
void AddSendRecvSemantics(hopt::PluginRegistrar& registrar);

// The form fuse-send-recv emits: one operand, result (T, token[]),
// backend_config "channel_id=N".
bool IsFusedSendRecv(const hopt::HloInstruction& call);

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_

#ifndef HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_
#define HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_

#include <string>

namespace neuron {

// Tells the interpreter what the custom-calls of this plugin compute. Both
// are idempotent.
// Every AwsNeuron* collective target of the naming contract.
void RegisterNeuronCollectiveSemantics();
// A fused send/recv target (fuse-send-recv registers its own when it runs,
// as -fuse-send-recv-target may rename it).
void RegisterSendRecvSemantics(const std::string& target);

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_COLLECTIVE_SEMANTICS_H_

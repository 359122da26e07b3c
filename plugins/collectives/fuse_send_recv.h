// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_PLUGINS_COLLECTIVES_FUSE_SEND_RECV_H_
#define HOPT_PLUGINS_COLLECTIVES_FUSE_SEND_RECV_H_

#include <string>

#include "hopt/pass_manager/pass.h"

namespace neuron {

inline constexpr absl::string_view kDefaultSendRecvTarget = "AwsNeuronSendRecv";

// fuse-send-recv: each channel's send / send-done / recv / recv-done becomes
// one custom-call named `target` (see the .cc; docs/plugins/collectives.md).
class FuseSendRecv : public hopt::Pass {
 public:
  explicit FuseSendRecv(std::string target = std::string(kDefaultSendRecvTarget))
      : target_(std::move(target)) {}
  absl::string_view name() const override { return "fuse-send-recv"; }
  absl::StatusOr<bool> Run(hopt::HloModule& module) override;

 private:
  std::string target_;
};

}  // namespace neuron

#endif  // HOPT_PLUGINS_COLLECTIVES_FUSE_SEND_RECV_H_

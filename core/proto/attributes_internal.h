// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_ATTRIBUTES_INTERNAL_H_
#define HOPT_CORE_PROTO_ATTRIBUTES_INTERNAL_H_

// Shared between attributes.cc (driver, scalar and list fields) and
// attributes_structured.cc (window, convolution, dot, gather/scatter,
// padding, precision, sharding).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/hlo.pb.h"
#include "hopt/ir/opcode.h"

namespace hopt {
namespace proto_attributes_internal {

// One attribute's mapping to typed proto fields.
struct AttributeCodec {
  const char* name;
  // Whether the codec handles the attribute for this opcode (null: always).
  bool (*applies)(HloOpcode opcode);
  // Reads the attribute's value text into the proto's field(s).
  absl::Status (*encode)(absl::string_view text, xla::HloInstructionProto* proto);
  // The canonical value text, or nullopt when the field is unset; the opcode
  // says whether XLA prints the field even at its default. An error means the
  // proto holds something the text form cannot say.
  absl::StatusOr<std::optional<std::string>> (*decode)(const xla::HloInstructionProto& proto,
                                                       HloOpcode opcode);
};

const std::vector<AttributeCodec>& StructuredCodecs();

// Helpers both files use.
absl::Status Malformed(absl::string_view what, absl::string_view text);
std::string JoinInts(const google::protobuf::RepeatedField<int64_t>& values,
                     absl::string_view separator);
// `{1,2,3}` into a repeated field.
absl::Status ReadIntList(absl::string_view text, google::protobuf::RepeatedField<int64_t>* out);
std::string IntListText(const google::protobuf::RepeatedField<int64_t>& values);
absl::StatusOr<xla::OpMetadata> ParseOpMetadata(absl::string_view text);
std::string OpMetadataText(const xla::OpMetadata& metadata);

}  // namespace proto_attributes_internal
}  // namespace hopt

#endif  // HOPT_CORE_PROTO_ATTRIBUTES_INTERNAL_H_

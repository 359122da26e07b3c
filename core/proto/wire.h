// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_WIRE_H_
#define HOPT_CORE_PROTO_WIRE_H_

// Just enough of protobuf's wire format to take a serialized message apart
// at one field without parsing the rest.
//
// Why: parsing a whole HloProto of a 500,000-instruction module into
// generated messages costs seconds and over half a gigabyte, because every
// HloInstructionProto is a large object. The reader (io.cc) instead
// splits the module and computation messages at their repeated fields,
// keeps the payloads as views into the file's bytes and parses one
// instruction at a time into a reused message.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hopt/ir/shape.h"

namespace google::protobuf {
class MessageLite;
}  // namespace google::protobuf

namespace hopt {

// How deep messages may nest in what hopt reads: a tuple shape at the
// deepest every reader accepts (kMaxTupleNesting), inside an instruction,
// a computation, a module, an HloProto and an HloSnapshot, with room to
// spare. (protobuf's default, 100, refused tuples the text parser reads
// and the writers write; the text-format parser had no limit and ran out
// of stack.)
inline constexpr int kMaxMessageNesting = kMaxTupleNesting + 32;

// ParseFromArray, but with kMaxMessageNesting as the recursion limit.
bool ParseMessage(absl::string_view bytes, google::protobuf::MessageLite* message);

// A message split at one length-delimited field.
struct SplitMessage {
  // Every occurrence of the field, in order (views into the input).
  std::vector<absl::string_view> payloads;
  // Every other field, byte for byte: itself a valid serialization of the
  // message without the field.
  std::string rest;
};

// Splits `bytes` at `field`. Fails (InvalidArgument naming the byte offset)
// when `bytes` is not well-formed wire data at this level: a truncated tag,
// varint or payload, a wire type that does not exist, an unbalanced group,
// or `field` with a wire type other than length-delimited. Payloads are not
// looked into.
absl::StatusOr<SplitMessage> SplitMessageAtField(absl::string_view bytes, int field);

// The fields of an HloInstructionProto that the converter maps itself.
// Most instructions of a large module (elementwise arithmetic, parameters,
// tuples) have nothing else, and decoding them here is several times
// cheaper than a generated parse followed by the attribute codec.
struct PlainInstruction {
  absl::string_view name, opcode, shape;  // shape: a serialized ShapeProto
  bool has_shape = false;
  int64_t id = 0;
  int64_t parameter_number = 0;
  std::vector<int64_t> operand_ids, control_predecessor_ids, called_computation_ids;
};

// Decodes `bytes` into `out` if the message holds no field but those of
// PlainInstruction, each non-repeated one at most once, with ASCII strings
// (so that nothing the generated parser would check or merge is skipped).
// False otherwise, and for malformed data: the caller then takes the
// generated parser's path, which reports errors.
bool DecodePlainInstruction(absl::string_view bytes, PlainInstruction* out);

// Appends a length-delimited `field` holding `payload` to `out`.
void AppendLengthDelimited(int field, absl::string_view payload, std::string* out);
// Only the tag and the length, for a payload appended separately.
void AppendLengthDelimitedHeader(int field, size_t length, std::string* out);

// The offset of the first field of `bytes` numbered above `field`, or the
// size when there is none: where a serializer that writes fields in number
// order (as protobuf's does) would have put `field`. `bytes` must be
// well-formed (a message protobuf serialized).
size_t OffsetAfterField(absl::string_view bytes, int field);

// The payloads of a non-repeated message field as one message: protobuf
// merges repeated occurrences, which is what parsing their concatenation
// does. Empty when there are none.
std::string JoinPayloads(const std::vector<absl::string_view>& payloads);

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_WIRE_H_

// SPDX-License-Identifier: Apache-2.0

#include "core/proto/wire.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/message_lite.h"

namespace hopt {
namespace {

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Reads wire data from a byte range; every read is bounds-checked.
class WireReader {
 public:
  explicit WireReader(absl::string_view bytes) : bytes_(bytes) {}

  bool done() const { return at_ == bytes_.size(); }
  size_t offset() const { return at_; }

  bool ReadVarint(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == bytes_.size()) return false;
      uint8_t byte = static_cast<uint8_t>(bytes_[at_++]);
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *value = result;
        return true;
      }
    }
    return false;  // more than ten bytes
  }

  bool Skip(uint64_t count) {
    if (count > bytes_.size() - at_) return false;
    at_ += count;
    return true;
  }

  bool ReadPayload(absl::string_view* payload) {
    uint64_t length;
    if (!ReadVarint(&length) || length > bytes_.size() - at_) return false;
    *payload = bytes_.substr(at_, length);
    at_ += length;
    return true;
  }

  // Skips the value of a field whose tag was just read. A group is skipped
  // up to its matching end tag; `depth` bounds how deep groups may nest.
  bool SkipValue(uint32_t field, uint32_t wire_type, int depth) {
    uint64_t ignored;
    absl::string_view payload;
    switch (wire_type) {
      case kVarint: return ReadVarint(&ignored);
      case kFixed64: return Skip(8);
      case kLengthDelimited: return ReadPayload(&payload);
      case kFixed32: return Skip(4);
      case kStartGroup: {
        if (depth > 100) return false;
        while (true) {
          uint64_t tag;
          if (!ReadVarint(&tag) || tag > UINT32_MAX || (tag >> 3) == 0) return false;
          uint32_t inner_type = tag & 7;
          if (inner_type == kEndGroup) return (tag >> 3) == field;
          if (!SkipValue(static_cast<uint32_t>(tag >> 3), inner_type, depth + 1)) return false;
        }
      }
      default: return false;
    }
  }

 private:
  absl::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace

absl::StatusOr<SplitMessage> SplitMessageAtField(absl::string_view bytes, int field) {
  SplitMessage split;
  WireReader reader(bytes);
  while (!reader.done()) {
    size_t start = reader.offset();
    auto malformed = [&](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrCat(what, " at byte ", start));
    };
    uint64_t tag;
    if (!reader.ReadVarint(&tag) || tag > UINT32_MAX || (tag >> 3) == 0)
      return malformed("malformed field tag");
    uint32_t number = static_cast<uint32_t>(tag >> 3), wire_type = tag & 7;
    if (number == static_cast<uint32_t>(field)) {
      if (wire_type != kLengthDelimited)
        return malformed(absl::StrCat("field ", field, " is not length-delimited"));
      absl::string_view payload;
      if (!reader.ReadPayload(&payload)) return malformed("truncated field");
      split.payloads.push_back(payload);
      continue;
    }
    if (!reader.SkipValue(number, wire_type, 0)) return malformed("truncated or malformed field");
    split.rest.append(bytes.data() + start, reader.offset() - start);
  }
  return split;
}

namespace {

// HloInstructionProto field numbers (core/proto/hlo.proto).
enum PlainField : uint32_t {
  kName = 1,
  kOpcode = 2,
  kShape = 3,
  kParameterNumber = 9,
  kId = 35,
  kOperandIds = 36,
  kControlPredecessorIds = 37,
  kCalledComputationIds = 38,
};

bool IsAscii(absl::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// A repeated int64, packed or not.
bool ReadInt64s(WireReader* reader, uint32_t wire_type, std::vector<int64_t>* out) {
  uint64_t value;
  if (wire_type == kVarint) {
    if (!reader->ReadVarint(&value)) return false;
    out->push_back(static_cast<int64_t>(value));
    return true;
  }
  if (wire_type != kLengthDelimited) return false;
  absl::string_view packed;
  if (!reader->ReadPayload(&packed)) return false;
  WireReader values(packed);
  while (!values.done()) {
    if (!values.ReadVarint(&value)) return false;
    out->push_back(static_cast<int64_t>(value));
  }
  return true;
}

}  // namespace

bool DecodePlainInstruction(absl::string_view bytes, PlainInstruction* out) {
  out->name = out->opcode = out->shape = absl::string_view();
  out->has_shape = false;
  out->id = out->parameter_number = 0;
  out->operand_ids.clear();
  out->control_predecessor_ids.clear();
  out->called_computation_ids.clear();
  uint32_t seen = 0;  // bit per non-repeated field
  WireReader reader(bytes);
  while (!reader.done()) {
    uint64_t tag;
    if (!reader.ReadVarint(&tag) || tag > UINT32_MAX) return false;
    uint32_t field = static_cast<uint32_t>(tag >> 3), wire_type = tag & 7;
    auto once = [&](uint32_t bit) {
      if (seen & bit) return false;
      seen |= bit;
      return true;
    };
    uint64_t value;
    switch (field) {
      case kName:
      case kOpcode:
      case kShape: {
        absl::string_view* target = field == kName     ? &out->name
                                    : field == kOpcode ? &out->opcode
                                                       : &out->shape;
        if (wire_type != kLengthDelimited || !once(1u << field) || !reader.ReadPayload(target))
          return false;
        if (field == kShape)
          out->has_shape = true;
        else if (!IsAscii(*target))
          return false;
        break;
      }
      case kParameterNumber:
      case kId:
        if (wire_type != kVarint || !once(field == kId ? 1u << 4 : 1u << 5) ||
            !reader.ReadVarint(&value))
          return false;
        (field == kId ? out->id : out->parameter_number) = static_cast<int64_t>(value);
        break;
      case kOperandIds:
        if (!ReadInt64s(&reader, wire_type, &out->operand_ids)) return false;
        break;
      case kControlPredecessorIds:
        if (!ReadInt64s(&reader, wire_type, &out->control_predecessor_ids)) return false;
        break;
      case kCalledComputationIds:
        if (!ReadInt64s(&reader, wire_type, &out->called_computation_ids)) return false;
        break;
      default: return false;
    }
  }
  return true;
}

namespace {

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

}  // namespace

void AppendLengthDelimitedHeader(int field, size_t length, std::string* out) {
  AppendVarint((static_cast<uint64_t>(field) << 3) | kLengthDelimited, out);
  AppendVarint(length, out);
}

void AppendLengthDelimited(int field, absl::string_view payload, std::string* out) {
  AppendLengthDelimitedHeader(field, payload.size(), out);
  out->append(payload.data(), payload.size());
}

size_t OffsetAfterField(absl::string_view bytes, int field) {
  WireReader reader(bytes);
  while (!reader.done()) {
    size_t start = reader.offset();
    uint64_t tag;
    if (!reader.ReadVarint(&tag)) return bytes.size();
    if ((tag >> 3) > static_cast<uint64_t>(field)) return start;
    if (!reader.SkipValue(static_cast<uint32_t>(tag >> 3), tag & 7, 0)) return bytes.size();
  }
  return bytes.size();
}

std::string JoinPayloads(const std::vector<absl::string_view>& payloads) {
  std::string joined;
  for (absl::string_view p : payloads) joined.append(p.data(), p.size());
  return joined;
}

bool ParseMessage(absl::string_view bytes, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kMaxMessageNesting);
  return message->ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
}

}  // namespace hopt

// SPDX-License-Identifier: Apache-2.0

#include "core/proto/tooling/io.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/ir/growing_bytes.h"
#include "core/ir/tooling/input_limits.h"
#include "core/ir/tooling/mapped_file.h"
#include "core/proto/convert.h"
#include "core/proto/hlo.pb.h"
#include "core/proto/legacy_fields.h"
#include "core/proto/wire.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "hopt/ir/parser.h"
#include "hopt/support/diagnostic.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace {

bool IsGzip(absl::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Into GrowingBytes: what the bomb costs is what it inflates to, at most
// the input limit and a byte.
absl::StatusOr<GrowingBytes> Inflate(absl::string_view compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return absl::InternalError("zlib: cannot initialize");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  // Never more than one byte past the limit: that byte proves the excess.
  const uint64_t limit = MaxInputBytes();
  const size_t cap = limit != 0 && limit < std::numeric_limits<size_t>::max()
                         ? static_cast<size_t>(limit) + 1
                         : std::numeric_limits<size_t>::max();
  GrowingBytes out;
  int status = Z_OK;
  while (status == Z_OK) {
    if (out.available() == 0) {
      if (out.capacity() >= cap) break;
      absl::Status grown = out.Grow(cap);
      if (!grown.ok()) {
        inflateEnd(&stream);
        return grown;
      }
    }
    size_t room = std::min<size_t>(out.available(), 1u << 30);
    stream.next_out = reinterpret_cast<Bytef*>(out.end());
    stream.avail_out = static_cast<uInt>(room);
    status = inflate(&stream, Z_NO_FLUSH);
    out.Commit(room - stream.avail_out);
  }
  inflateEnd(&stream);
  if (limit != 0 && out.size() > limit) return InputTooLarge("the gzip data inflates past");
  if (status != Z_STREAM_END)
    return absl::InvalidArgumentError(
        status == Z_BUF_ERROR
            ? std::string("truncated gzip data")
            : absl::StrCat(
                  "corrupt gzip data (zlib: ", stream.msg != nullptr ? stream.msg : "error", ")"));
  return out;
}

absl::StatusOr<std::string> Deflate(absl::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return absl::InternalError("zlib: cannot initialize");
  std::string out;
  out.resize(deflateBound(&stream, data.size()));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int status = deflate(&stream, Z_FINISH);
  size_t produced = stream.total_out;
  deflateEnd(&stream);
  if (status != Z_STREAM_END) return absl::InternalError("zlib: compression failed");
  out.resize(produced);
  return out;
}

// Reading errors name the file (FILE: error: ...), the way the text
// parser's name the place (include/hopt/support/diagnostic.h).
absl::Status WithName(absl::string_view name, const absl::Status& status) {
  if (IsLocated(status)) return status;
  return LocatedError(status.code(), name, 0, 0, status.message());
}

// Converts the module of an HloProto and keeps the rest of the wrapper.
absl::StatusOr<std::unique_ptr<HloModule>> FromHloProto(xla::HloProto* proto,
                                                        absl::string_view display_name,
                                                        ProtoSideTable* side) {
  auto module = ModuleFromProto(proto->mutable_hlo_module(), side);
  if (!module.ok()) return WithName(display_name, module.status());
  if (side == nullptr) return module;
  proto->clear_hlo_module();
  std::string rest;
  proto->SerializeToString(&rest);
  side->set_wrapper(std::move(rest));
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> FromModuleProto(xla::HloModuleProto* proto,
                                                           absl::string_view display_name,
                                                           ProtoSideTable* side) {
  auto module = ModuleFromProto(proto, side);
  if (!module.ok()) return WithName(display_name, module.status());
  return module;
}

// protobuf's words for a field or enum value hlo.proto does not declare,
// said in hopt's: which schema lacks it, and where such a field can be read.
std::string ExplainSchemaError(const std::string& message) {
  constexpr absl::string_view kHint =
      "hopt's schema does not know it (a newer XLA's? hopt reads fields it does not know "
      "from binary .pb dumps, not from text)";
  constexpr absl::string_view kNoField = "\" has no field named \"";
  absl::string_view rest = message;
  if (absl::ConsumePrefix(&rest, "Message type \"")) {
    size_t end = rest.find(kNoField);
    if (end == absl::string_view::npos) return message;
    absl::string_view type = rest.substr(0, end);
    absl::string_view field = rest.substr(end + kNoField.size());
    absl::ConsumeSuffix(&field, ".");
    absl::ConsumeSuffix(&field, "\"");
    return absl::StrCat("unknown field \"", field, "\" of ", type, ": ", kHint);
  }
  if (absl::ConsumePrefix(&rest, "Unknown enumeration value of \""))
    return absl::StrCat("unknown enumeration value \"", rest.substr(0, rest.find('"')),
                        "\": ", kHint);
  return message;
}

// Text-format parse errors as `name:line:column: message`.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!found_) {
      found_ = true;
      line_ = line + 1;
      column_ = column + 1;
      message_ = ExplainSchemaError(message);
    }
  }
  bool found() const { return found_; }
  // FILE:LINE:COL: error: message
  absl::Status Located(absl::string_view file) const {
    return LocatedError(absl::StatusCode::kInvalidArgument, file, line_, column_, message_);
  }

 private:
  bool found_ = false;
  int64_t line_ = 0;
  int64_t column_ = 0;
  std::string message_;
};

// The HloProto is built on `arena`: a large module needs millions of small
// messages, which the arena allocates by bumping a pointer (in 1 MB
// blocks) and frees at once.
absl::StatusOr<xla::HloProto*> BuildHloProto(const HloModule& module, const ProtoSideTable* side,
                                             google::protobuf::Arena* arena) {
  auto* proto = google::protobuf::Arena::CreateMessage<xla::HloProto>(arena);
  if (side != nullptr) {
    HOPT_RETURN_IF_ERROR(side->CheckBelongsTo(module));
    if (!side->wrapper().empty()) proto->MergeFromString(side->wrapper());
  }
  HOPT_RETURN_IF_ERROR(ModuleToProto(module, proto->mutable_hlo_module(), side));
  return proto;
}

google::protobuf::ArenaOptions WriterArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 << 10;
  options.max_block_size = 1 << 20;
  return options;
}

// Field numbers the reader splits at (core/proto/hlo.proto).
constexpr int kHloProtoModuleField = 1;           // HloProto.hlo_module
constexpr int kModuleComputationsField = 3;       // HloModuleProto.computations
constexpr int kComputationInstructionsField = 2;  // HloComputationProto.instructions
constexpr int kSnapshotHloField = 1;              // HloSnapshot.hlo

// A binary HloModuleProto split at its computations and those at their
// instructions; the views point into the file's bytes or into `wrapper`.
struct EncodedModule {
  xla::HloModuleProto fields;
  std::vector<EncodedComputation> computations;
  std::string wrapper;  // the module's bytes when they had to be joined
};

// False when `bytes` is not an HloModuleProto with computations.
bool DecodeModule(absl::string_view bytes, EncodedModule* out) {
  auto split = SplitMessageAtField(bytes, kModuleComputationsField);
  if (!split.ok() || split->payloads.empty()) return false;
  out->fields.Clear();
  if (!ParseMessage(split->rest, &out->fields)) return false;
  out->computations.clear();
  out->computations.resize(split->payloads.size());
  for (size_t k = 0; k < split->payloads.size(); ++k) {
    auto computation = SplitMessageAtField(split->payloads[k], kComputationInstructionsField);
    if (!computation.ok()) return false;
    EncodedComputation& c = out->computations[k];
    if (!ParseMessage(computation->rest, &c.fields)) return false;
    c.instructions = std::move(computation->payloads);
  }
  return true;
}

// False when `bytes` is not an HloProto with a module with computations;
// `rest` receives the HloProto's other fields.
bool DecodeHloProto(absl::string_view bytes, EncodedModule* out, std::string* rest) {
  auto split = SplitMessageAtField(bytes, kHloProtoModuleField);
  if (!split.ok() || split->payloads.empty()) return false;
  xla::HloProto others;
  if (!ParseMessage(split->rest, &others)) return false;
  absl::string_view module = split->payloads[0];
  if (split->payloads.size() > 1) {
    out->wrapper = JoinPayloads(split->payloads);
    module = out->wrapper;
  }
  if (!DecodeModule(module, out)) return false;
  *rest = std::move(split->rest);
  return true;
}

// `wrapper_rest`: what an HloProto held besides the module.
absl::StatusOr<std::unique_ptr<HloModule>> Convert(EncodedModule* module, std::string wrapper_rest,
                                                   absl::string_view display_name,
                                                   ProtoSideTable* side) {
  auto converted = ModuleFromEncodedProto(&module->fields, &module->computations, side);
  if (!converted.ok()) return WithName(display_name, converted.status());
  if (side != nullptr) side->set_wrapper(std::move(wrapper_rest));
  return converted;
}

// The first string field (in a depth-first walk) that is not valid UTF-8.
// The binary reader refuses those, as protobuf does for proto3 strings; the
// text-format parser lets them through, and a module read from them could
// not be written back.
std::optional<std::string> FindNonUtf8String(const google::protobuf::Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    using Type = google::protobuf::FieldDescriptor;
    if (field->type() == Type::TYPE_STRING) {
      int n = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
      for (int k = 0; k < n; ++k) {
        std::string scratch;
        const std::string& value =
            field->is_repeated()
                ? reflection->GetRepeatedStringReference(message, field, k, &scratch)
                : reflection->GetStringReference(message, field, &scratch);
        if (!google::protobuf::internal::IsStructurallyValidUTF8(value.data(),
                                                                 static_cast<int>(value.size())))
          return field->full_name();
      }
    } else if (field->cpp_type() == Type::CPPTYPE_MESSAGE) {
      int n = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
      for (int k = 0; k < n; ++k) {
        const google::protobuf::Message& child =
            field->is_repeated() ? reflection->GetRepeatedMessage(message, field, k)
                                 : reflection->GetMessage(message, field);
        if (auto found = FindNonUtf8String(child)) return found;
      }
    }
  }
  return std::nullopt;
}

absl::Status NonUtf8Error(absl::string_view display_name, absl::string_view field) {
  return LocatedError(absl::StatusCode::kInvalidArgument, display_name, 0, 0,
                      absl::StrCat("field '", field, "' is not valid UTF-8"));
}

}  // namespace

std::optional<HloFileFormat> ParseHloFileFormat(absl::string_view name) {
  if (name == "text" || name == "hlo") return HloFileFormat::kText;
  if (name == "pb") return HloFileFormat::kProto;
  if (name == "pbtxt") return HloFileFormat::kProtoText;
  return std::nullopt;
}

HloFileFormat HloFileFormatFromPath(absl::string_view path) {
  if (absl::EndsWith(path, ".pb") || absl::EndsWith(path, ".pb.gz")) return HloFileFormat::kProto;
  if (absl::EndsWith(path, ".pbtxt")) return HloFileFormat::kProtoText;
  return HloFileFormat::kText;
}

namespace {

// An HloSnapshot is read for its module: hopt writes an HloProto.
void ReportSnapshotFields(const xla::HloSnapshot& others, ProtoSideTable* side) {
  const google::protobuf::Reflection* reflection = others.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(others, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields)
    side->mutable_dropped_fields()->Add(DroppedFields::Kind::kNotKept, "HloSnapshot",
                                        field->number(), field->name(),
                                        "hopt reads the snapshot's module and writes an HloProto");
  CountUnknownFields(others, DroppedFields::Kind::kUnknown, side->mutable_dropped_fields());
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromPlainProtoBinary(
    absl::string_view bytes, absl::string_view display_name, ProtoSideTable* side) {
  // Split at the repeated fields rather than parsed whole (wire.h).
  // A message of one type often splits as another; each candidate must
  // also hold a module with computations.
  EncodedModule module;
  std::string wrapper_rest;
  if (DecodeHloProto(bytes, &module, &wrapper_rest))
    return Convert(&module, std::move(wrapper_rest), display_name, side);
  if (DecodeModule(bytes, &module)) return Convert(&module, "", display_name, side);
  if (auto snapshot = SplitMessageAtField(bytes, kSnapshotHloField);
      snapshot.ok() && !snapshot->payloads.empty()) {
    xla::HloSnapshot others;  // arguments and result: not kept
    std::string hlo = JoinPayloads(snapshot->payloads);
    if (ParseMessage(snapshot->rest, &others) && DecodeHloProto(hlo, &module, &wrapper_rest)) {
      auto converted = Convert(&module, std::move(wrapper_rest), display_name, side);
      if (converted.ok() && side != nullptr) ReportSnapshotFields(others, side);
      return converted;
    }
  }
  return LocatedError(
      absl::StatusCode::kInvalidArgument, display_name, 0, 0,
      absl::StrCat("not an XLA HloProto, HloModuleProto or HloSnapshot with a module (",
                   bytes.empty() ? "the file is empty" : "truncated, or another kind of file",
                   ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoBinary(absl::string_view bytes,
                                                                 absl::string_view display_name,
                                                                 ProtoSideTable* side) {
  if (side != nullptr) side->Clear();
  // protobuf logs bad input (invalid UTF-8, ...) to stderr; hopt reports it
  // once, in its own message.
  google::protobuf::LogSilencer silence_protobuf;
  if (!IsGzip(bytes)) return ModuleFromPlainProtoBinary(bytes, display_name, side);
  // Inflated once: gzip inside gzip (a quine inflates to itself) is no proto.
  auto inflated = Inflate(bytes);
  if (!inflated.ok()) return WithName(display_name, inflated.status());
  return ModuleFromPlainProtoBinary(inflated->view(), display_name, side);
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoText(absl::string_view text,
                                                               absl::string_view display_name,
                                                               ProtoSideTable* side) {
  if (side != nullptr) side->Clear();
  google::protobuf::LogSilencer silence_protobuf;
  google::protobuf::TextFormat::Parser parser;
  // Unbounded by default: deep nesting would exhaust the stack.
  parser.SetRecursionLimit(kMaxMessageNesting);
  FirstError hlo_error;
  parser.RecordErrorsTo(&hlo_error);
  xla::HloProto hlo;
  auto parse = [&](google::protobuf::Message* message) {
    google::protobuf::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
    return parser.Parse(&stream, message);
  };
  if (parse(&hlo) && hlo.has_hlo_module()) {
    if (auto field = FindNonUtf8String(hlo)) return NonUtf8Error(display_name, *field);
    return FromHloProto(&hlo, display_name, side);
  }
  FirstError module_error;
  parser.RecordErrorsTo(&module_error);
  xla::HloModuleProto module;
  if (parse(&module)) {
    if (auto field = FindNonUtf8String(module)) return NonUtf8Error(display_name, *field);
    return FromModuleProto(&module, display_name, side);
  }
  // Report against the message the text looks like.
  size_t first = text.find_first_not_of(" \t\r\n");
  bool looks_hlo = first != absl::string_view::npos && text.compare(first, 10, "hlo_module") == 0;
  const FirstError& error = looks_hlo ? hlo_error : module_error;
  if (error.found()) return error.Located(display_name);
  return LocatedError(absl::StatusCode::kInvalidArgument, display_name, 0, 0,
                      "not an HloProto or HloModuleProto in text format");
}

absl::StatusOr<std::unique_ptr<HloModule>> ReadHloModuleFile(const std::string& path,
                                                             absl::string_view display_name,
                                                             HloFileFormat format,
                                                             ProtoSideTable* side) {
  if (side != nullptr) side->Clear();
  if (format == HloFileFormat::kText) return ParseHloModuleFromFile(path, display_name);
  HOPT_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path, format == HloFileFormat::kProto
                                                              ? MappedFile::Content::kProto
                                                              : MappedFile::Content::kProtoText));
  if (format == HloFileFormat::kProto)
    return ModuleFromProtoBinary(file->bytes(), display_name, side);
  return ModuleFromProtoText(file->bytes(), display_name, side);
}

absl::StatusOr<std::string> ModuleToProtoBinary(const HloModule& module, bool gzip,
                                                const ProtoSideTable* side) {
  std::vector<std::string> pieces;
  HOPT_RETURN_IF_ERROR(ModuleToEncodedProto(module, &pieces, side));
  size_t size = 0;
  for (const std::string& piece : pieces) size += piece.size();
  // The HloProto around it: the module first, then what the wrapper held
  // besides (field numbers above the module's), as protobuf would order them.
  // (ModuleToEncodedProto has checked that `side` belongs to the module.)
  const std::string* rest =
      side != nullptr && !side->wrapper().empty() ? &side->wrapper() : nullptr;
  std::string bytes;
  bytes.reserve(size + 16 + (rest != nullptr ? rest->size() : 0));
  AppendLengthDelimitedHeader(kHloProtoModuleField, size, &bytes);
  for (std::string& piece : pieces) {
    bytes.append(piece);
    std::string().swap(piece);
  }
  if (rest != nullptr) bytes.append(*rest);
  if (gzip) return Deflate(bytes);
  return bytes;
}

absl::StatusOr<std::string> ModuleToProtoText(const HloModule& module, const ProtoSideTable* side) {
  google::protobuf::Arena arena(WriterArenaOptions());
  HOPT_ASSIGN_OR_RETURN(auto proto, BuildHloProto(module, side, &arena));
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  if (!printer.PrintToString(*proto, &text)) return absl::InternalError("cannot print the module");
  return text;
}

}  // namespace hopt

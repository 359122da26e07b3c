#include "core/ir/proto_io.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/ir/parser.h"
#include "core/ir/proto/hlo.pb.h"
#include "core/ir/proto_convert.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"

namespace hopt {
namespace {

// Key of HloModule::proto_extras() for what an HloProto held besides the
// module (buffer assignment...), written back around it.
constexpr absl::string_view kHloProtoExtras = "p:";

absl::Status ReadFile(const std::string& path, std::string* out) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  if (f != stdin && std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0) out->reserve(static_cast<size_t>(size));
    std::rewind(f);
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) out->append(buffer, n);
  bool ok = !std::ferror(f);
  int error = errno;
  if (f != stdin) std::fclose(f);
  if (!ok)
    return absl::DataLossError(absl::StrCat("cannot read '", path, "': ", std::strerror(error)));
  return absl::OkStatus();
}

bool IsGzip(absl::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

absl::StatusOr<std::string> Inflate(absl::string_view compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return absl::InternalError("zlib: cannot initialize");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  out.resize(std::max<size_t>(compressed.size() * 4, 1 << 16));
  int status = Z_OK;
  while (status == Z_OK) {
    if (stream.total_out == out.size()) out.resize(out.size() * 2);
    stream.next_out = reinterpret_cast<Bytef*>(&out[stream.total_out]);
    stream.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - stream.total_out, 1u << 30));
    status = inflate(&stream, Z_NO_FLUSH);
  }
  size_t produced = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END)
    return absl::InvalidArgumentError(
        status == Z_BUF_ERROR ? std::string("truncated gzip data")
                              : absl::StrCat("corrupt gzip data (zlib: ",
                                             stream.msg != nullptr ? stream.msg : "error", ")"));
  out.resize(produced);
  return out;
}

absl::StatusOr<std::string> Deflate(absl::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
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

absl::Status WithName(absl::string_view name, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(name, ": ", status.message()));
}

// Converts the module of an HloProto and keeps the rest of the wrapper.
absl::StatusOr<std::unique_ptr<HloModule>> FromHloProto(xla::HloProto* proto,
                                                        absl::string_view display_name) {
  auto module = ModuleFromProto(proto->mutable_hlo_module());
  if (!module.ok()) return WithName(display_name, module.status());
  proto->clear_hlo_module();
  std::string rest;
  proto->SerializeToString(&rest);
  if (!rest.empty()) (*module)->proto_extras()[std::string(kHloProtoExtras)] = std::move(rest);
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> FromModuleProto(xla::HloModuleProto* proto,
                                                           absl::string_view display_name) {
  auto module = ModuleFromProto(proto);
  if (!module.ok()) return WithName(display_name, module.status());
  return module;
}

// Text-format parse errors as `name:line:column: message`.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (message_.empty()) message_ = absl::StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

absl::StatusOr<xla::HloProto> BuildHloProto(const HloModule& module) {
  xla::HloProto proto;
  const auto& extras = module.proto_extras();
  if (auto rest = extras.find(kHloProtoExtras); rest != extras.end())
    proto.MergeFromString(rest->second);
  absl::Status status = ModuleToProto(module, proto.mutable_hlo_module());
  if (!status.ok()) return status;
  return proto;
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

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoBinary(std::string bytes,
                                                                 absl::string_view display_name) {
  if (IsGzip(bytes)) {
    auto inflated = Inflate(bytes);
    if (!inflated.ok()) return WithName(display_name, inflated.status());
    bytes = *std::move(inflated);
  }
  // Parsed on an arena: a dump of a large module holds millions of small
  // messages, which an arena allocates and frees in bulk.
  google::protobuf::Arena arena;
  // A message of one type often parses as another; each candidate must
  // also hold a module with computations.
  auto* hlo = google::protobuf::Arena::CreateMessage<xla::HloProto>(&arena);
  if (hlo->ParseFromString(bytes) && hlo->hlo_module().computations_size() > 0)
    return FromHloProto(hlo, display_name);
  auto* module = google::protobuf::Arena::CreateMessage<xla::HloModuleProto>(&arena);
  if (module->ParseFromString(bytes) && module->computations_size() > 0)
    return FromModuleProto(module, display_name);
  auto* snapshot = google::protobuf::Arena::CreateMessage<xla::HloSnapshot>(&arena);
  if (snapshot->ParseFromString(bytes) && snapshot->hlo().hlo_module().computations_size() > 0)
    return FromHloProto(snapshot->mutable_hlo(), display_name);
  return absl::InvalidArgumentError(absl::StrCat(
      display_name, ": not an XLA HloProto, HloModuleProto or HloSnapshot with a module (",
      bytes.empty() ? "the file is empty" : "truncated, or another kind of file", ")"));
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoText(const std::string& text,
                                                               absl::string_view display_name) {
  google::protobuf::TextFormat::Parser parser;
  FirstError hlo_error;
  parser.RecordErrorsTo(&hlo_error);
  xla::HloProto hlo;
  if (parser.ParseFromString(text, &hlo) && hlo.has_hlo_module())
    return FromHloProto(&hlo, display_name);
  FirstError module_error;
  parser.RecordErrorsTo(&module_error);
  xla::HloModuleProto module;
  if (parser.ParseFromString(text, &module)) return FromModuleProto(&module, display_name);
  // Report against the message the text looks like.
  size_t first = text.find_first_not_of(" \t\r\n");
  bool looks_hlo = first != std::string::npos && text.compare(first, 10, "hlo_module") == 0;
  const std::string& message = looks_hlo ? hlo_error.message() : module_error.message();
  return absl::InvalidArgumentError(absl::StrCat(
      display_name, ":", message.empty() ? " not an HloProto or HloModuleProto in text format"
                                         : message));
}

absl::StatusOr<std::unique_ptr<HloModule>> ReadHloModuleFile(const std::string& path,
                                                             absl::string_view display_name,
                                                             HloFileFormat format) {
  if (format == HloFileFormat::kText) {
    if (path != "-") return ParseHloModuleFromFile(path, display_name);
    std::string text;
    absl::Status read = ReadFile(path, &text);
    if (!read.ok()) return read;
    return ParseHloModule(std::move(text), display_name);
  }
  std::string bytes;
  absl::Status read = ReadFile(path, &bytes);
  if (!read.ok()) return read;
  if (format == HloFileFormat::kProto) return ModuleFromProtoBinary(std::move(bytes), display_name);
  return ModuleFromProtoText(bytes, display_name);
}

absl::StatusOr<std::string> ModuleToProtoBinary(const HloModule& module, bool gzip) {
  auto proto = BuildHloProto(module);
  if (!proto.ok()) return proto.status();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);  // maps in key order
    if (!proto->SerializeToCodedStream(&coded))
      return absl::InternalError("cannot serialize the module (over 2 GB?)");
  }
  if (gzip) return Deflate(bytes);
  return bytes;
}

absl::StatusOr<std::string> ModuleToProtoText(const HloModule& module) {
  auto proto = BuildHloProto(module);
  if (!proto.ok()) return proto.status();
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  if (!printer.PrintToString(*proto, &text)) return absl::InternalError("cannot print the module");
  return text;
}

}  // namespace hopt

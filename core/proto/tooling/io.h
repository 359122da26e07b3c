// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_PROTO_TOOLING_IO_H_
#define HOPT_CORE_PROTO_TOOLING_IO_H_

// Reading and writing HLO modules as files in any of the three forms XLA
// dumps: HLO text, binary protobuf (.pb, optionally gzipped) and protobuf
// text format (.pbtxt).
//
// What a proto held that the IR does not model goes into the caller's
// ProtoSideTable (side_table.h) when one is given, and is written back
// from it: pass the same table to the reader and the writer of one module
// for a lossless .pb -> .pb trip. Without a table it is dropped.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/side_table.h"
#include "hopt/ir/module.h"

namespace hopt {

enum class HloFileFormat {
  kText,       // HLO text (include/hopt/ir/parser.h, printer.h)
  kProto,      // binary HloProto; reading also takes HloModuleProto, HloSnapshot, gzip
  kProtoText,  // protobuf text format of HloProto (reading also HloModuleProto)
};

// "text", "pb", "pbtxt".
std::optional<HloFileFormat> ParseHloFileFormat(absl::string_view name);
// From the file name: `.pb` and `.pb.gz` are kProto, `.pbtxt` kProtoText,
// everything else (and "-") kText.
HloFileFormat HloFileFormatFromPath(absl::string_view path);

// Reads one module from `path` ("-": standard input). Errors are one line
// naming `display_name`. `side` (cleared first) receives what the IR does
// not model; HLO text leaves it empty.
absl::StatusOr<std::unique_ptr<HloModule>> ReadHloModuleFile(const std::string& path,
                                                             absl::string_view display_name,
                                                             HloFileFormat format,
                                                             ProtoSideTable* side = nullptr);

// The same from bytes already in memory. Binary input is tried as
// HloProto, then HloModuleProto, then HloSnapshot (XLA's loader's order),
// after inflating it when it starts with the gzip magic bytes.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoBinary(absl::string_view bytes,
                                                                 absl::string_view display_name,
                                                                 ProtoSideTable* side = nullptr);
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProtoText(absl::string_view text,
                                                               absl::string_view display_name,
                                                               ProtoSideTable* side = nullptr);

// An HloProto holding the module: binary (deterministic, so equal modules
// give equal bytes; `gzip` compresses it) or protobuf text format. `side`:
// the table the module was read with, its content written back (a
// non-empty table read with another module is an error).
absl::StatusOr<std::string> ModuleToProtoBinary(const HloModule& module, bool gzip = false,
                                                const ProtoSideTable* side = nullptr);
absl::StatusOr<std::string> ModuleToProtoText(const HloModule& module,
                                              const ProtoSideTable* side = nullptr);

}  // namespace hopt

#endif  // HOPT_CORE_PROTO_TOOLING_IO_H_

// SPDX-License-Identifier: Apache-2.0

#include "core/proto/attributes.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/ir/text_cursor.h"
#include "core/proto/attributes_internal.h"
#include "hopt/ir/attributes.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace proto_attributes_internal {

using Proto = xla::HloInstructionProto;
using Decoded = absl::StatusOr<std::optional<std::string>>;

absl::Status Malformed(absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("malformed ", what, ": '", text, "'"));
}

std::string JoinInts(const google::protobuf::RepeatedField<int64_t>& values,
                     absl::string_view separator) {
  return absl::StrJoin(values.begin(), values.end(), separator);
}

absl::Status ReadIntList(absl::string_view text, google::protobuf::RepeatedField<int64_t>* out) {
  HOPT_ASSIGN_OR_RETURN(auto values, ParseIntList(text));
  out->Clear();
  for (int64_t v : values) out->Add(v);
  return absl::OkStatus();
}

std::string IntListText(const google::protobuf::RepeatedField<int64_t>& values) {
  return absl::StrCat("{", JoinInts(values, ","), "}");
}

namespace {

// --- generic field codecs ---------------------------------------------------
// Templates over the generated accessors keep the table below one line per
// attribute.

template <auto Set>
absl::Status EncodeInt(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseInt(text));
  (proto->*Set)(v);
  return absl::OkStatus();
}

// Printed when non-zero (XLA's "unset" for these fields).
template <auto Get>
Decoded DecodeNonZeroInt(const Proto& proto, HloOpcode) {
  int64_t v = (proto.*Get)();
  if (v == 0) return std::optional<std::string>();
  return std::optional<std::string>(absl::StrCat(v));
}

template <auto Get>
Decoded DecodeAnyInt(const Proto& proto, HloOpcode) {
  return std::optional<std::string>(absl::StrCat((proto.*Get)()));
}

template <auto Set>
absl::Status EncodeBool(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseBool(text));
  (proto->*Set)(v);
  return absl::OkStatus();
}

// XLA prints these flags only when true.
template <auto Get>
Decoded DecodeTrue(const Proto& proto, HloOpcode) {
  if (!(proto.*Get)()) return std::optional<std::string>();
  return std::optional<std::string>("true");
}

template <auto Mutable>
absl::Status EncodeIntList(absl::string_view text, Proto* proto) {
  return ReadIntList(text, (proto->*Mutable)());
}

template <const google::protobuf::RepeatedField<int64_t>& (Proto::*Get)() const>
Decoded DecodeNonEmptyIntList(const Proto& proto, HloOpcode) {
  const auto& values = (proto.*Get)();
  if (values.empty()) return std::optional<std::string>();
  return std::optional<std::string>(IntListText(values));
}

template <auto Mutable>
absl::Status EncodeQuoted(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto s, ParseQuotedString(text));
  *(proto->*Mutable)() = std::move(s);
  return absl::OkStatus();
}

template <auto Get>
Decoded DecodeNonEmptyQuoted(const Proto& proto, HloOpcode) {
  const std::string& s = (proto.*Get)();
  if (s.empty()) return std::optional<std::string>();
  return std::optional<std::string>(QuoteString(s));
}

// Enums spelled as XLA's enum value names (api_version=API_VERSION_...), or
// lower-cased (distribution=rng_uniform); looked up through the descriptor.
using EnumDescriptorFn = const google::protobuf::EnumDescriptor* (*)();

template <EnumDescriptorFn Descriptor, typename Enum, auto Set, bool kLower>
absl::Status EncodeEnum(absl::string_view text, Proto* proto) {
  std::string name(text);
  if (kLower) {
    if (name != absl::AsciiStrToLower(name)) return Malformed("enum", text);
    name = absl::AsciiStrToUpper(name);
  }
  const auto* value = Descriptor()->FindValueByName(name);
  if (value == nullptr) return Malformed("enum", text);
  (proto->*Set)(static_cast<Enum>(value->number()));
  return absl::OkStatus();
}

// kSkip, kSkipAlso: the values XLA does not print (-1: printed always).
template <EnumDescriptorFn Descriptor, auto Get, bool kLower, int kSkip, int kSkipAlso = kSkip>
Decoded DecodeEnum(const Proto& proto, HloOpcode) {
  int number = static_cast<int>((proto.*Get)());
  if (number == kSkip || number == kSkipAlso) return std::optional<std::string>();
  const auto* value = Descriptor()->FindValueByNumber(number);
  if (value == nullptr) return Malformed("enum value", absl::StrCat(number));
  return std::optional<std::string>(kLower ? absl::AsciiStrToLower(value->name()) : value->name());
}

bool Is(HloOpcode opcode, std::initializer_list<HloOpcode> set) {
  return std::find(set.begin(), set.end(), opcode) != set.end();
}

// --- attribute-specific codecs ---------------------------------------------

bool NotIota(HloOpcode op) { return op != HloOpcode::kIota; }
bool IsIota(HloOpcode op) { return op == HloOpcode::kIota; }

// XLA prints dimensions={} for these even when empty (scalar operands).
Decoded DecodeDimensions(const Proto& proto, HloOpcode op) {
  if (proto.dimensions().empty() && !Is(op, {HloOpcode::kBroadcast, HloOpcode::kTranspose,
                                             HloOpcode::kReduce, HloOpcode::kReverse}))
    return std::optional<std::string>();
  return std::optional<std::string>(IntListText(proto.dimensions()));
}

absl::Status EncodeIotaDimension(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseInt(text));
  proto->clear_dimensions();
  proto->add_dimensions(v);
  return absl::OkStatus();
}

Decoded DecodeIotaDimension(const Proto& proto, HloOpcode) {
  if (proto.dimensions_size() > 1)
    return Malformed("iota dimensions", IntListText(proto.dimensions()));
  return std::optional<std::string>(
      absl::StrCat(proto.dimensions().empty() ? 0 : proto.dimensions(0)));
}

Decoded DecodeTupleIndex(const Proto& proto, HloOpcode op) {
  if (op != HloOpcode::kGetTupleElement && proto.tuple_index() == 0)
    return std::optional<std::string>();
  return std::optional<std::string>(absl::StrCat(proto.tuple_index()));
}

absl::Status EncodeSlice(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto slice, ParseSlice(text));
  proto->clear_slice_dimensions();
  for (const SliceDimension& d : slice) {
    auto* out = proto->add_slice_dimensions();
    out->set_start(d.start);
    out->set_limit(d.limit);
    out->set_stride(d.stride);
  }
  return absl::OkStatus();
}

Decoded DecodeSlice(const Proto& proto, HloOpcode op) {
  if (proto.slice_dimensions().empty() && op != HloOpcode::kSlice)
    return std::optional<std::string>();
  std::vector<SliceDimension> slice;
  for (const auto& d : proto.slice_dimensions())
    slice.push_back({d.start(), d.limit(), d.stride()});
  return std::optional<std::string>(FormatSlice(slice));
}

bool PrintsReplicaGroups(HloOpcode op) {
  return Is(op, {HloOpcode::kAllReduce, HloOpcode::kAllReduceStart, HloOpcode::kAllGather,
                 HloOpcode::kAllGatherStart, HloOpcode::kReduceScatter, HloOpcode::kAllToAll,
                 HloOpcode::kRaggedAllToAll, HloOpcode::kCollectiveBroadcast});
}

// Explicit groups go to XLA's legacy field 49 (what most readers look at);
// the iota form only exists in collective_device_list (87).
absl::Status EncodeReplicaGroups(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto groups, ParseReplicaGroups(text));
  proto->clear_replica_groups();
  proto->clear_collective_device_list();
  if (groups.is_iota) {
    auto* iota = proto->mutable_collective_device_list()->mutable_iota_replica_group_list();
    iota->set_num_replica_groups(groups.num_groups);
    iota->set_num_devices_per_group(groups.group_size);
    for (int64_t d : groups.reshape_dims) iota->add_iota_reshape_dims(d);
    for (int64_t p : groups.transpose_perm) iota->add_iota_transpose_perm(static_cast<int32_t>(p));
    return absl::OkStatus();
  }
  for (const auto& group : groups.groups) {
    auto* out = proto->add_replica_groups();
    for (int64_t id : group) out->add_replica_ids(id);
  }
  return absl::OkStatus();
}

std::string GroupsText(const google::protobuf::RepeatedPtrField<xla::ReplicaGroup>& groups) {
  std::string out = "{";
  for (int i = 0; i < groups.size(); ++i) {
    if (i) out.push_back(',');
    absl::StrAppend(&out, "{", JoinInts(groups[i].replica_ids(), ","), "}");
  }
  out.push_back('}');
  return out;
}

Decoded DecodeReplicaGroups(const Proto& proto, HloOpcode op) {
  if (!proto.replica_groups().empty())
    return std::optional<std::string>(GroupsText(proto.replica_groups()));
  if (proto.has_collective_device_list()) {
    const auto& list = proto.collective_device_list();
    if (list.has_iota_replica_group_list()) {
      const auto& iota = list.iota_replica_group_list();
      std::string out =
          absl::StrCat("[", iota.num_replica_groups(), ",", iota.num_devices_per_group(), "]<=[",
                       JoinInts(iota.iota_reshape_dims(), ","), "]");
      if (!iota.iota_transpose_perm().empty())
        absl::StrAppend(&out, "T(", absl::StrJoin(iota.iota_transpose_perm(), ","), ")");
      return std::optional<std::string>(out);
    }
    if (!list.replica_groups().empty() || PrintsReplicaGroups(op))
      return std::optional<std::string>(GroupsText(list.replica_groups()));
  }
  if (PrintsReplicaGroups(op)) return std::optional<std::string>("{}");
  return std::optional<std::string>();
}

absl::Status EncodeSourceTargetPairs(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto pairs, ParseSourceTargetPairs(text));
  proto->clear_source_target_pairs();
  for (const auto& [source, target] : pairs) {
    auto* out = proto->add_source_target_pairs();
    out->set_source(source);
    out->set_target(target);
  }
  return absl::OkStatus();
}

Decoded DecodeSourceTargetPairs(const Proto& proto, HloOpcode op) {
  if (proto.source_target_pairs().empty() &&
      !Is(op, {HloOpcode::kCollectivePermute, HloOpcode::kCollectivePermuteStart}))
    return std::optional<std::string>();
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const auto& p : proto.source_target_pairs()) pairs.emplace_back(p.source(), p.target());
  return std::optional<std::string>(FormatSourceTargetPairs(pairs));
}

absl::Status EncodeDirection(absl::string_view text, Proto* proto) {
  if (text != "EQ" && text != "NE" && text != "LT" && text != "LE" && text != "GT" && text != "GE")
    return Malformed("comparison direction", text);
  proto->set_comparison_direction(std::string(text));
  return absl::OkStatus();
}

Decoded DecodeDirection(const Proto& proto, HloOpcode) {
  if (proto.comparison_direction().empty()) return std::optional<std::string>();
  return std::optional<std::string>(proto.comparison_direction());
}

// Bare words (type=TOTALORDER, kind=kLoop) stored as they are written.
bool IsBareWord(absl::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

template <auto Mutable>
absl::Status EncodeWord(absl::string_view text, Proto* proto) {
  if (!IsBareWord(text)) return Malformed("word", text);
  *(proto->*Mutable)() = std::string(text);
  return absl::OkStatus();
}

template <auto Get>
Decoded DecodeWord(const Proto& proto, HloOpcode) {
  if ((proto.*Get)().empty()) return std::optional<std::string>();
  return std::optional<std::string>((proto.*Get)());
}

Decoded DecodeCustomCallTarget(const Proto& proto, HloOpcode op) {
  if (proto.custom_call_target().empty() && op != HloOpcode::kCustomCall)
    return std::optional<std::string>();
  return std::optional<std::string>(QuoteString(proto.custom_call_target()));
}

// XLA prints a backend config bare when it lexes as a JSON object and quoted
// otherwise; deciding by content keeps hopt's raw/quoted distinction without
// an extra field (a quoted config that looks like JSON falls back to text).
bool LexesAsJsonObject(absl::string_view s) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      if (i >= s.size()) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0 && i + 1 != s.size()) return false;
    }
  }
  return depth == 0;
}

absl::Status EncodeBackendConfig(absl::string_view text, Proto* proto) {
  if (!text.empty() && text.front() == '"') {
    HOPT_ASSIGN_OR_RETURN(auto s, ParseQuotedString(text));
    proto->set_backend_config(s);
    return absl::OkStatus();
  }
  if (!LexesAsJsonObject(text)) return Malformed("backend_config", text);
  proto->set_backend_config(std::string(text));
  return absl::OkStatus();
}

Decoded DecodeBackendConfig(const Proto& proto, HloOpcode) {
  const std::string& config = proto.backend_config();
  if (config.empty()) return std::optional<std::string>();
  if (LexesAsJsonObject(config)) return std::optional<std::string>(config);
  return std::optional<std::string>(QuoteString(config));
}

absl::Status EncodeMetadata(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto metadata, ParseOpMetadata(text));
  *proto->mutable_metadata() = std::move(metadata);
  return absl::OkStatus();
}

Decoded DecodeMetadata(const Proto& proto, HloOpcode) {
  if (!proto.has_metadata()) return std::optional<std::string>();
  std::string text = OpMetadataText(proto.metadata());
  if (text == "{}") return std::optional<std::string>();  // XLA prints no empty metadata
  return std::optional<std::string>(text);
}

absl::Status EncodeFrontendAttributes(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto attrs, ParseFrontendAttributes(text));
  auto* map = proto->mutable_frontend_attributes()->mutable_map();
  for (const auto& [key, value] : attrs)
    if (!map->insert({key, value}).second)
      return Malformed("frontend_attributes (duplicate key)", text);
  return absl::OkStatus();
}

// A protobuf map has no order; XLA prints the keys sorted.
Decoded DecodeFrontendAttributes(const Proto& proto, HloOpcode) {
  const auto& map = proto.frontend_attributes().map();
  if (map.empty()) return std::optional<std::string>();
  std::vector<std::pair<std::string, std::string>> attrs(map.begin(), map.end());
  std::sort(attrs.begin(), attrs.end());
  // Like backend_config, a value that lexes as a JSON object prints bare.
  std::string out = "{";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) out.push_back(',');
    const std::string& value = attrs[i].second;
    absl::StrAppend(&out, attrs[i].first, "=",
                    LexesAsJsonObject(value) ? value : QuoteString(value));
  }
  out.push_back('}');
  return std::optional<std::string>(out);
}

absl::Status EncodeEpsilon(absl::string_view text, Proto* proto) {
  float v;
  if (!absl::SimpleAtof(text, &v)) return Malformed("epsilon", text);
  proto->set_epsilon(v);
  return absl::OkStatus();
}

Decoded DecodeEpsilon(const Proto& proto, HloOpcode op) {
  if (proto.epsilon() == 0 && !Is(op, {HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference,
                                       HloOpcode::kBatchNormTraining}))
    return std::optional<std::string>();
  return std::optional<std::string>(absl::StrCat(proto.epsilon()));
}

bool IsBatchNorm(HloOpcode op) {
  return Is(op, {HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference,
                 HloOpcode::kBatchNormTraining});
}

absl::Status EncodeParameterReplication(absl::string_view text, Proto* proto) {
  TextCursor cursor(text);
  auto* out = proto->mutable_parameter_replication();
  if (!cursor.Consume('{')) return Malformed("parameter_replication", text);
  if (!cursor.Consume('}')) {
    do {
      absl::string_view word = cursor.ReadWord();
      if (word != "true" && word != "false") return Malformed("parameter_replication", text);
      out->add_replicated_at_leaf_buffers(word == "true");
    } while (cursor.Consume(','));
    if (!cursor.Consume('}')) return Malformed("parameter_replication", text);
  }
  cursor.SkipSpace();
  if (!cursor.AtEnd()) return Malformed("parameter_replication", text);
  return absl::OkStatus();
}

Decoded DecodeParameterReplication(const Proto& proto, HloOpcode) {
  if (!proto.has_parameter_replication()) return std::optional<std::string>();
  std::vector<std::string> parts;
  for (bool b : proto.parameter_replication().replicated_at_leaf_buffers())
    parts.push_back(b ? "true" : "false");
  return std::optional<std::string>(absl::StrCat("{", absl::StrJoin(parts, ","), "}"));
}

absl::Status EncodeCrossProgramPrefetch(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseInt(text));
  proto->set_cross_program_prefetch_index(static_cast<int32_t>(v));
  return absl::OkStatus();
}

Decoded DecodeCrossProgramPrefetch(const Proto& proto, HloOpcode) {
  if (proto.optional_cross_program_prefetch_index_case() != Proto::kCrossProgramPrefetchIndex)
    return std::optional<std::string>();
  return std::optional<std::string>(absl::StrCat(proto.cross_program_prefetch_index()));
}

bool IsTriangularSolve(HloOpcode op) { return op == HloOpcode::kTriangularSolve; }
bool IsCholesky(HloOpcode op) { return op == HloOpcode::kCholesky; }
bool IsRngBitGenerator(HloOpcode op) { return op == HloOpcode::kRngBitGenerator; }

template <auto Set>
absl::Status EncodeTriangularBool(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseBool(text));
  (proto->mutable_triangular_solve_options()->*Set)(v);
  return absl::OkStatus();
}

template <auto Get>
Decoded DecodeTriangularBool(const Proto& proto, HloOpcode) {
  if (!(proto.triangular_solve_options().*Get)()) return std::optional<std::string>();
  return std::optional<std::string>("true");
}

absl::Status EncodeTransposeA(absl::string_view text, Proto* proto) {
  const auto* value =
      xla::TriangularSolveOptions_Transpose_descriptor()->FindValueByName(std::string(text));
  if (value == nullptr || value->number() == 0) return Malformed("transpose_a", text);
  proto->mutable_triangular_solve_options()->set_transpose_a(
      static_cast<xla::TriangularSolveOptions::Transpose>(value->number()));
  return absl::OkStatus();
}

Decoded DecodeTransposeA(const Proto& proto, HloOpcode) {
  auto value = proto.triangular_solve_options().transpose_a();
  if (value == xla::TriangularSolveOptions::TRANSPOSE_INVALID) return std::optional<std::string>();
  const auto* name = xla::TriangularSolveOptions_Transpose_descriptor()->FindValueByNumber(value);
  if (name == nullptr) return Malformed("transpose_a value", absl::StrCat(value));
  return std::optional<std::string>(name->name());
}

absl::Status EncodeCholeskyLower(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseBool(text));
  proto->mutable_cholesky_options()->set_lower(v);
  return absl::OkStatus();
}

Decoded DecodeCholeskyLower(const Proto& proto, HloOpcode) {
  if (!proto.cholesky_options().lower()) return std::optional<std::string>();
  return std::optional<std::string>("true");
}

template <auto Mutable>
absl::Status EncodeQuotedBytes(absl::string_view text, Proto* proto) {
  return EncodeQuoted<Mutable>(text, proto);
}

using P = Proto;

const AttributeCodec kScalarCodecs[] = {
    {"dimensions", NotIota, EncodeIntList<&P::mutable_dimensions>, DecodeDimensions},
    {"iota_dimension", IsIota, EncodeIotaDimension, DecodeIotaDimension},
    {"index", nullptr, EncodeInt<&P::set_tuple_index>, DecodeTupleIndex},
    {"slice", nullptr, EncodeSlice, DecodeSlice},
    {"dynamic_slice_sizes", nullptr, EncodeIntList<&P::mutable_dynamic_slice_sizes>,
     DecodeNonEmptyIntList<&P::dynamic_slice_sizes>},
    {"channel_id", nullptr, EncodeInt<&P::set_channel_id>, DecodeNonZeroInt<&P::channel_id>},
    {"replica_groups", nullptr, EncodeReplicaGroups, DecodeReplicaGroups},
    {"source_target_pairs", nullptr, EncodeSourceTargetPairs, DecodeSourceTargetPairs},
    {"constrain_layout", nullptr, EncodeBool<&P::set_constrain_layout>,
     DecodeTrue<&P::constrain_layout>},
    {"use_global_device_ids", nullptr, EncodeBool<&P::set_use_global_device_ids>,
     DecodeTrue<&P::use_global_device_ids>},
    {"is_host_transfer", nullptr, EncodeBool<&P::set_is_host_transfer>,
     DecodeTrue<&P::is_host_transfer>},
    {"is_stable", nullptr, EncodeBool<&P::set_is_stable>, DecodeTrue<&P::is_stable>},
    // topk prints largest=true or largest=false.
    {"largest", [](HloOpcode op) { return op == HloOpcode::kTopK; }, EncodeBool<&P::set_largest>,
     [](const P& proto, HloOpcode) -> Decoded {
       return std::optional<std::string>(proto.largest() ? "true" : "false");
     }},
    {"k", nullptr, EncodeInt<&P::set_k>, DecodeNonZeroInt<&P::k>},
    {"indices_are_sorted", nullptr, EncodeBool<&P::set_indices_are_sorted>,
     DecodeTrue<&P::indices_are_sorted>},
    {"unique_indices", nullptr, EncodeBool<&P::set_unique_indices>, DecodeTrue<&P::unique_indices>},
    {"custom_call_has_side_effect", nullptr, EncodeBool<&P::set_custom_call_has_side_effect>,
     DecodeTrue<&P::custom_call_has_side_effect>},
    {"is_composite", nullptr, EncodeBool<&P::set_is_composite>, DecodeTrue<&P::is_composite>},
    {"direction", nullptr, EncodeDirection, DecodeDirection},
    {"type", [](HloOpcode op) { return op == HloOpcode::kCompare; },
     EncodeWord<&P::mutable_comparison_type>, DecodeWord<&P::comparison_type>},
    {"kind", [](HloOpcode op) { return op == HloOpcode::kFusion; },
     EncodeWord<&P::mutable_fusion_kind>, DecodeWord<&P::fusion_kind>},
    {"custom_call_target", nullptr, EncodeQuoted<&P::mutable_custom_call_target>,
     DecodeCustomCallTarget},
    {"backend_config", nullptr, EncodeBackendConfig, DecodeBackendConfig},
    {"api_version", nullptr,
     EncodeEnum<xla::CustomCallApiVersion_descriptor, xla::CustomCallApiVersion,
                &P::set_custom_call_api_version, false>,
     DecodeEnum<xla::CustomCallApiVersion_descriptor, &P::custom_call_api_version, false,
                xla::API_VERSION_UNSPECIFIED, xla::API_VERSION_ORIGINAL>},
    {"schedule", nullptr,
     EncodeEnum<xla::CustomCallSchedule_descriptor, xla::CustomCallSchedule,
                &P::set_custom_call_schedule, false>,
     DecodeEnum<xla::CustomCallSchedule_descriptor, &P::custom_call_schedule, false,
                xla::SCHEDULE_NONE>},
    {"metadata", nullptr, EncodeMetadata, DecodeMetadata},
    {"frontend_attributes", nullptr, EncodeFrontendAttributes, DecodeFrontendAttributes},
    {"exponent_bits", nullptr, EncodeInt<&P::set_exponent_bits>,
     DecodeNonZeroInt<&P::exponent_bits>},
    {"mantissa_bits", [](HloOpcode op) { return op == HloOpcode::kReducePrecision; },
     EncodeInt<&P::set_mantissa_bits>, DecodeAnyInt<&P::mantissa_bits>},
    {"fft_type", [](HloOpcode op) { return op == HloOpcode::kFft; },
     EncodeEnum<xla::FftType_descriptor, xla::FftType, &P::set_fft_type, false>,
     DecodeEnum<xla::FftType_descriptor, &P::fft_type, false, -1>},
    {"fft_length", nullptr, EncodeIntList<&P::mutable_fft_length>,
     DecodeNonEmptyIntList<&P::fft_length>},
    {"distribution", [](HloOpcode op) { return op == HloOpcode::kRng; },
     EncodeEnum<xla::RandomDistribution_descriptor, xla::RandomDistribution, &P::set_distribution,
                true>,
     DecodeEnum<xla::RandomDistribution_descriptor, &P::distribution, true, -1>},
    {"algorithm", IsRngBitGenerator,
     EncodeEnum<xla::RandomAlgorithm_descriptor, xla::RandomAlgorithm, &P::set_rng_algorithm, true>,
     DecodeEnum<xla::RandomAlgorithm_descriptor, &P::rng_algorithm, true, -1>},
    {"epsilon", IsBatchNorm, EncodeEpsilon, DecodeEpsilon},
    {"feature_index", IsBatchNorm, EncodeInt<&P::set_feature_index>,
     DecodeAnyInt<&P::feature_index>},
    {"parameter_replication", nullptr, EncodeParameterReplication, DecodeParameterReplication},
    {"delta", nullptr, EncodeInt<&P::set_delta>, DecodeNonZeroInt<&P::delta>},
    {"cross_program_prefetch_index", nullptr, EncodeCrossProgramPrefetch,
     DecodeCrossProgramPrefetch},
    {"async_execution_thread", nullptr, EncodeQuoted<&P::mutable_async_execution_thread>,
     DecodeNonEmptyQuoted<&P::async_execution_thread>},
    {"outfeed_config", nullptr, EncodeQuotedBytes<&P::mutable_outfeed_config>,
     DecodeNonEmptyQuoted<&P::outfeed_config>},
    {"infeed_config", nullptr, EncodeQuotedBytes<&P::mutable_infeed_config>,
     DecodeNonEmptyQuoted<&P::infeed_config>},
    {"left_side", IsTriangularSolve,
     EncodeTriangularBool<&xla::TriangularSolveOptions::set_left_side>,
     DecodeTriangularBool<&xla::TriangularSolveOptions::left_side>},
    {"lower", IsTriangularSolve, EncodeTriangularBool<&xla::TriangularSolveOptions::set_lower>,
     DecodeTriangularBool<&xla::TriangularSolveOptions::lower>},
    {"unit_diagonal", IsTriangularSolve,
     EncodeTriangularBool<&xla::TriangularSolveOptions::set_unit_diagonal>,
     DecodeTriangularBool<&xla::TriangularSolveOptions::unit_diagonal>},
    {"transpose_a", IsTriangularSolve, EncodeTransposeA, DecodeTransposeA},
    {"lower", IsCholesky, EncodeCholeskyLower, DecodeCholeskyLower},
};

const std::vector<AttributeCodec>& ScalarCodecs() {
  static const auto* const kCodecs =
      new std::vector<AttributeCodec>(std::begin(kScalarCodecs), std::end(kScalarCodecs));
  return *kCodecs;
}

// Where XLA prints each attribute among the codec's (computation references
// are placed by the structure converter). Families never mix within one
// opcode, so one table serves all; unknown names sit in the middle.
int Rank(absl::string_view name, HloOpcode opcode) {
  static const auto* const kRanks =
      new absl::flat_hash_map<std::string, int>{{"kind", 0},
                                                {"window", 1},
                                                {"dim_labels", 2},
                                                {"lhs_batch_dims", 3},
                                                {"lhs_contracting_dims", 4},
                                                {"rhs_batch_dims", 5},
                                                {"rhs_contracting_dims", 6},
                                                {"lhs_ragged_dims", 7},
                                                {"rhs_group_dims", 8},
                                                {"feature_group_count", 9},
                                                {"batch_group_count", 10},
                                                {"operand_precision", 11},
                                                {"algorithm", 12},
                                                {"sparsity", 13},
                                                {"padding_type", 14},
                                                {"custom_call_target", 15},
                                                {"operand_layout_constraints", 16},
                                                {"custom_call_has_side_effect", 17},
                                                {"literal", 18},
                                                {"output_to_operand_aliasing", 19},
                                                {"schedule", 20},
                                                {"api_version", 21},
                                                {"channel_id", 30},
                                                {"replica_groups", 31},
                                                {"source_target_pairs", 31},
                                                {"constrain_layout", 32},
                                                {"use_global_device_ids", 34},
                                                {"is_host_transfer", 36},
                                                {"index", 40},
                                                {"iota_dimension", 40},
                                                {"slice", 40},
                                                {"dynamic_slice_sizes", 40},
                                                {"padding", 40},
                                                {"direction", 40},
                                                {"type", 41},
                                                {"epsilon", 40},
                                                {"feature_index", 41},
                                                {"exponent_bits", 40},
                                                {"mantissa_bits", 41},
                                                {"fft_type", 40},
                                                {"fft_length", 41},
                                                {"distribution", 40},
                                                {"k", 40},
                                                {"largest", 41},
                                                {"is_stable", 42},
                                                {"parameter_replication", 40},
                                                {"is_composite", 40},
                                                {"outfeed_shape", 40},
                                                {"outfeed_config", 41},
                                                {"infeed_config", 40},
                                                {"left_side", 40},
                                                {"lower", 41},
                                                {"unit_diagonal", 42},
                                                {"transpose_a", 43},
                                                {"delta", 40},
                                                {"cross_program_prefetch_index", 40},
                                                {"offset_dims", 50},
                                                {"collapsed_slice_dims", 51},
                                                {"start_index_map", 52},
                                                {"operand_batching_dims", 53},
                                                {"start_indices_batching_dims", 54},
                                                {"update_window_dims", 50},
                                                {"inserted_window_dims", 51},
                                                {"scatter_dims_to_operand_dims", 52},
                                                {"input_batching_dims", 53},
                                                {"scatter_indices_batching_dims", 54},
                                                {"index_vector_dim", 55},
                                                {"slice_sizes", 56},
                                                {"indices_are_sorted", 57},
                                                {"unique_indices", 58},
                                                {"sharding", 300},
                                                {"frontend_attributes", 310},
                                                {"metadata", 400},
                                                {"backend_config", 410}};
  if (name == "dimensions") {
    // All-gather and all-to-all print their dimensions before
    // use_global_device_ids, reduce-scatter after; elsewhere it is the
    // operation's main attribute.
    if (Is(opcode, {HloOpcode::kAllGather, HloOpcode::kAllGatherStart, HloOpcode::kAllToAll}))
      return 33;
    if (opcode == HloOpcode::kReduceScatter) return 35;
    return 40;
  }
  auto it = kRanks->find(name);
  return it == kRanks->end() ? 100 : it->second;
}

const AttributeCodec* FindCodec(absl::string_view name, HloOpcode opcode) {
  for (const auto* codecs : {&ScalarCodecs(), &StructuredCodecs()})
    for (const AttributeCodec& codec : *codecs)
      if (name == codec.name && (codec.applies == nullptr || codec.applies(opcode))) return &codec;
  return nullptr;
}

using Attributes = std::vector<std::pair<std::string, std::string>>;

// Encodes every attribute, typed where the field reproduces the text exactly.
void EncodeAll(const Attributes& attributes, HloOpcode opcode, Proto* proto) {
  for (const auto& [name, value] : attributes) {
    const AttributeCodec* codec = FindCodec(name, opcode);
    if (codec != nullptr) {
      Proto alone;
      if (codec->encode(value, &alone).ok()) {
        Decoded back = codec->decode(alone, opcode);
        if (back.ok() && back->has_value() && **back == value && codec->encode(value, proto).ok())
          continue;
      }
    }
    auto* text = proto->add_hopt_text_attributes();
    text->set_name(name);
    text->set_value(value);
  }
}

void AddOrderEntry(const Attributes& attributes, Proto* proto) {
  std::vector<absl::string_view> names;
  for (const auto& attribute : attributes) names.push_back(attribute.first);
  auto* entry = proto->add_hopt_text_attributes();
  entry->set_name(kAttributeOrderEntry);
  entry->set_value(absl::StrJoin(names, ","));
}

}  // namespace
}  // namespace proto_attributes_internal

using proto_attributes_internal::Attributes;

bool IsStructuralAttribute(absl::string_view name) {
  return IsComputationReferenceAttribute(name) || name == "control-predecessors";
}

absl::Status AttributesToProto(const HloInstruction& instruction, xla::HloInstructionProto* proto) {
  using namespace proto_attributes_internal;  // NOLINT: the codec's own helpers
  Attributes expected;
  for (const HloAttribute& attr : instruction.attributes()) {
    if (attr.kind != HloAttribute::Kind::kText || IsStructuralAttribute(attr.name)) continue;
    expected.emplace_back(std::string(attr.name), std::string(attr.value));
  }
  HloOpcode opcode = instruction.opcode();
  // Most instructions have no attribute; nothing is written for them when
  // an empty message decodes to nothing for the opcode (once per opcode).
  if (expected.empty()) {
    thread_local std::array<int8_t, 256> empty_decodes_empty = [] {
      std::array<int8_t, 256> unknown;
      unknown.fill(-1);
      return unknown;
    }();
    int8_t& known = empty_decodes_empty[static_cast<uint8_t>(opcode)];
    if (known < 0) {
      Attributes decoded;
      known = AttributesFromProto(Proto(), opcode, &decoded).ok() && decoded.empty();
    }
    if (known) return absl::OkStatus();
  }
  // Typed where possible; then make sure the whole list decodes back as it
  // was, recording the order if XLA's differs, and as the last resort keeping
  // every attribute as text (which always decodes back exactly).
  Proto scratch;
  EncodeAll(expected, opcode, &scratch);
  Attributes decoded;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt == 1) AddOrderEntry(expected, &scratch);
    if (attempt == 2) {
      scratch.Clear();
      for (const auto& [name, value] : expected) {
        auto* text = scratch.add_hopt_text_attributes();
        text->set_name(name);
        text->set_value(value);
      }
      AddOrderEntry(expected, &scratch);
    }
    decoded.clear();
    if (AttributesFromProto(scratch, opcode, &decoded).ok() && decoded == expected) {
      proto->MergeFrom(scratch);
      return absl::OkStatus();
    }
  }
  return absl::InternalError(absl::StrCat("instruction ", instruction.name(),
                                          ": attributes do not survive the proto round trip"));
}

absl::Status AttributesFromProto(const xla::HloInstructionProto& proto, HloOpcode opcode,
                                 std::vector<std::pair<std::string, std::string>>* attributes) {
  using namespace proto_attributes_internal;  // NOLINT: the codec's own helpers
  struct Entry {
    std::string name;
    std::string value;
    int rank;
  };
  std::vector<Entry> entries;
  const std::string* order = nullptr;
  absl::flat_hash_map<std::string, int> text_names;
  for (const auto& text : proto.hopt_text_attributes()) {
    if (text.name() == kAttributeOrderEntry)
      order = &text.value();
    else
      text_names[text.name()]++;
  }
  for (const auto* codecs : {&ScalarCodecs(), &StructuredCodecs()}) {
    for (const AttributeCodec& codec : *codecs) {
      if (codec.applies != nullptr && !codec.applies(opcode)) continue;
      // A text entry of the same name wins over the typed field.
      if (!text_names.empty() && text_names.contains(codec.name)) continue;
      Decoded value = codec.decode(proto, opcode);
      if (!value.ok())
        return absl::InvalidArgumentError(
            absl::StrCat("attribute ", codec.name, ": ", value.status().message()));
      if (value->has_value()) entries.push_back({codec.name, **value, Rank(codec.name, opcode)});
    }
  }
  for (const auto& text : proto.hopt_text_attributes())
    if (text.name() != kAttributeOrderEntry)
      entries.push_back({text.name(), text.value(), Rank(text.name(), opcode)});
  if (order != nullptr) {
    // The recorded order lists exactly the attributes the text had; a typed
    // field XLA prints at its default but the text lacked is left out.
    absl::flat_hash_map<std::string, int> position;
    int i = 0;
    for (absl::string_view name : absl::StrSplit(*order, ',')) position.emplace(name, i++);
    std::vector<Entry> kept;
    for (Entry& e : entries) {
      auto it = position.find(e.name);
      if (it == position.end()) continue;
      e.rank = it->second;
      kept.push_back(std::move(e));
    }
    entries = std::move(kept);
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
  attributes->clear();
  for (Entry& e : entries) attributes->emplace_back(std::move(e.name), std::move(e.value));
  return absl::OkStatus();
}

}  // namespace hopt

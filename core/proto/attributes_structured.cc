// SPDX-License-Identifier: Apache-2.0
// OpMetadata text, and the attribute codecs whose proto side is a message:
// window, convolution dimension labels, padding, dot / gather / scatter
// dimension numbers, precision config, output-operand aliasing (sharding is in
// attributes_sharding.cc). Each formatter produces XLA's spelling; the
// driver in attributes.cc types an attribute only when the formatter
// reproduces its text exactly.

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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

// OpMetadata keys in the order XLA's OpMetadataToString prints them. The
// attributes.h parser keeps only four keys; this one keeps every key the proto
// has and rejects the rest, so nothing is silently dropped.
absl::StatusOr<xla::OpMetadata> ParseOpMetadata(absl::string_view text) {
  TextCursor cursor(text);
  xla::OpMetadata metadata;
  if (!cursor.Consume('{')) return Malformed("metadata", text);
  while (!cursor.Consume('}')) {
    if (cursor.AtEnd()) return Malformed("metadata", text);
    absl::string_view key = cursor.ReadWord();
    if (key.empty() || !cursor.Consume('=')) return Malformed("metadata", text);
    cursor.SkipSpace();
    absl::string_view value;
    if (cursor.Peek() == '"') {
      if (!cursor.ReadQuoted(&value)) return Malformed("metadata", text);
      HOPT_ASSIGN_OR_RETURN(auto s, ParseQuotedString(value));
      if (key == "op_type")
        metadata.set_op_type(s);
      else if (key == "op_name")
        metadata.set_op_name(s);
      else if (key == "source_file")
        metadata.set_source_file(s);
      else if (key == "deduplicated_name")
        metadata.set_deduplicated_name(s);
      else if (key == "scheduling_name")
        metadata.set_scheduling_name(s);
      else
        return Malformed("metadata key", key);
    } else {
      if (!cursor.ReadValue(&value)) return Malformed("metadata", text);
      int64_t n;
      if (!absl::SimpleAtoi(value, &n)) return Malformed("metadata value", value);
      if (key == "source_line")
        metadata.set_source_line(static_cast<int32_t>(n));
      else if (key == "source_end_line")
        metadata.set_source_end_line(static_cast<int32_t>(n));
      else if (key == "source_column")
        metadata.set_source_column(static_cast<int32_t>(n));
      else if (key == "source_end_column")
        metadata.set_source_end_column(static_cast<int32_t>(n));
      else if (key == "stack_frame_id")
        metadata.set_stack_frame_id(static_cast<int32_t>(n));
      else
        return Malformed("metadata key", key);
    }
  }
  cursor.SkipSpace();
  if (!cursor.AtEnd()) return Malformed("metadata", text);
  return metadata;
}

std::string OpMetadataText(const xla::OpMetadata& m) {
  std::vector<std::string> parts;
  auto str = [&](const char* key, const std::string& v) {
    if (!v.empty()) parts.push_back(absl::StrCat(key, "=", QuoteString(v)));
  };
  auto num = [&](const char* key, int64_t v) {
    if (v != 0) parts.push_back(absl::StrCat(key, "=", v));
  };
  str("op_type", m.op_type());
  str("op_name", m.op_name());
  str("source_file", m.source_file());
  num("source_line", m.source_line());
  num("source_end_line", m.source_end_line());
  num("source_column", m.source_column());
  num("source_end_column", m.source_end_column());
  str("deduplicated_name", m.deduplicated_name());
  str("scheduling_name", m.scheduling_name());
  num("stack_frame_id", m.stack_frame_id());
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

namespace {

using Proto = xla::HloInstructionProto;
using Decoded = absl::StatusOr<std::optional<std::string>>;
using IntField = google::protobuf::RepeatedField<int64_t>;

std::optional<std::string> None() { return std::nullopt; }

// "1x2x3" (an empty text is an empty list).
absl::Status ReadXList(absl::string_view text, std::vector<int64_t>* out) {
  if (text.empty()) return absl::OkStatus();
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v) || part.empty() || part[0] == '+')
      return Malformed("window", text);
    out->push_back(v);
  }
  return absl::OkStatus();
}

// --- window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}

absl::Status EncodeWindow(absl::string_view text, Proto* proto) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    return Malformed("window", text);
  absl::string_view body = text.substr(1, text.size() - 2);
  xla::Window* window = proto->mutable_window();
  window->Clear();
  std::vector<int64_t> size, stride, lhs, rhs, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  bool seen_size = false;
  for (absl::string_view field : absl::StrSplit(body, ' ', absl::SkipEmpty())) {
    size_t eq = field.find('=');
    if (eq == absl::string_view::npos) return Malformed("window", text);
    absl::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    absl::Status status;
    if (key == "size") {
      status = ReadXList(value, &size);
      seen_size = true;
    } else if (key == "stride")
      status = ReadXList(value, &stride);
    else if (key == "lhs_dilate")
      status = ReadXList(value, &lhs);
    else if (key == "rhs_dilate")
      status = ReadXList(value, &rhs);
    else if (key == "rhs_reversal")
      status = ReadXList(value, &reversal);
    else if (key == "pad") {
      for (absl::string_view dim : absl::StrSplit(value, 'x')) {
        std::vector<absl::string_view> lh = absl::StrSplit(dim, '_');
        int64_t lo, hi;
        if (lh.size() != 2 || !absl::SimpleAtoi(lh[0], &lo) || !absl::SimpleAtoi(lh[1], &hi))
          return Malformed("window padding", text);
        pad.emplace_back(lo, hi);
      }
    } else {
      return Malformed("window field", key);
    }
    if (!status.ok()) return status;
  }
  if (!seen_size) return absl::OkStatus();
  size_t rank = size.size();
  auto fits = [&](size_t n) { return n == 0 || n == rank; };
  if (!fits(stride.size()) || !fits(lhs.size()) || !fits(rhs.size()) || !fits(reversal.size()) ||
      !fits(pad.size()))
    return Malformed("window (field lengths differ)", text);
  for (size_t i = 0; i < rank; ++i) {
    auto* d = window->add_dimensions();
    d->set_size(size[i]);
    d->set_stride(stride.empty() ? 1 : stride[i]);
    d->set_padding_low(pad.empty() ? 0 : pad[i].first);
    d->set_padding_high(pad.empty() ? 0 : pad[i].second);
    d->set_base_dilation(lhs.empty() ? 1 : lhs[i]);
    d->set_window_dilation(rhs.empty() ? 1 : rhs[i]);
    if (!reversal.empty() && reversal[i] != 0 && reversal[i] != 1)
      return Malformed("window reversal", text);
    d->set_window_reversal(!reversal.empty() && reversal[i] == 1);
  }
  return absl::OkStatus();
}

Decoded DecodeWindow(const Proto& proto, HloOpcode) {
  if (!proto.has_window()) return None();
  const auto& dims = proto.window().dimensions();
  std::string out = "{";
  auto field = [&](const char* heading, auto format) {
    absl::StrAppend(&out, heading, "=");
    for (int i = 0; i < dims.size(); ++i) {
      if (i) out.push_back('x');
      absl::StrAppend(&out, format(dims[i]));
    }
  };
  auto any = [&](auto pred) { return std::any_of(dims.begin(), dims.end(), pred); };
  using D = xla::WindowDimension;
  if (!dims.empty()) field("size", [](const D& d) { return absl::StrCat(d.size()); });
  if (any([](const D& d) { return d.stride() != 1; }))
    field(" stride", [](const D& d) { return absl::StrCat(d.stride()); });
  if (any([](const D& d) { return d.padding_low() != 0 || d.padding_high() != 0; }))
    field(" pad", [](const D& d) { return absl::StrCat(d.padding_low(), "_", d.padding_high()); });
  if (any([](const D& d) { return d.base_dilation() != 1; }))
    field(" lhs_dilate", [](const D& d) { return absl::StrCat(d.base_dilation()); });
  if (any([](const D& d) { return d.window_dilation() != 1; }))
    field(" rhs_dilate", [](const D& d) { return absl::StrCat(d.window_dilation()); });
  if (any([](const D& d) { return d.window_reversal(); }))
    field(" rhs_reversal", [](const D& d) { return d.window_reversal() ? "1" : "0"; });
  out.push_back('}');
  return std::optional<std::string>(out);
}

// --- dim_labels=b01f_01io->b01f ---------------------------------------------

// One side of the labels: `batch`/`feature` letters and spatial digits at
// their positions.
absl::Status ReadLabels(absl::string_view labels, char first, char second, int64_t* first_dim,
                        int64_t* second_dim, IntField* spatial) {
  *first_dim = *second_dim = -1;
  std::vector<int64_t> by_digit(labels.size(), -1);
  for (size_t i = 0; i < labels.size(); ++i) {
    char c = labels[i];
    if (c == first && *first_dim < 0)
      *first_dim = static_cast<int64_t>(i);
    else if (c == second && *second_dim < 0)
      *second_dim = static_cast<int64_t>(i);
    else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < labels.size() &&
             by_digit[c - '0'] < 0)
      by_digit[c - '0'] = static_cast<int64_t>(i);
    else
      return Malformed("dim_labels", labels);
  }
  if (*first_dim < 0 || *second_dim < 0) return Malformed("dim_labels", labels);
  size_t spatial_count = labels.size() - 2;
  spatial->Clear();
  for (size_t d = 0; d < spatial_count; ++d) {
    if (by_digit[d] < 0) return Malformed("dim_labels", labels);
    spatial->Add(by_digit[d]);
  }
  return absl::OkStatus();
}

absl::Status EncodeDimLabels(absl::string_view text, Proto* proto) {
  size_t underscore = text.find('_'), arrow = text.find("->");
  if (underscore == absl::string_view::npos || arrow == absl::string_view::npos ||
      arrow < underscore)
    return Malformed("dim_labels", text);
  auto* dn = proto->mutable_convolution_dimension_numbers();
  int64_t a, b;
  HOPT_RETURN_IF_ERROR(ReadLabels(text.substr(0, underscore), 'b', 'f', &a, &b,
                                  dn->mutable_input_spatial_dimensions()));
  dn->set_input_batch_dimension(a);
  dn->set_input_feature_dimension(b);
  HOPT_RETURN_IF_ERROR(ReadLabels(text.substr(underscore + 1, arrow - underscore - 1), 'i', 'o', &a,
                                  &b, dn->mutable_kernel_spatial_dimensions()));
  dn->set_kernel_input_feature_dimension(a);
  dn->set_kernel_output_feature_dimension(b);
  HOPT_RETURN_IF_ERROR(ReadLabels(text.substr(arrow + 2), 'b', 'f', &a, &b,
                                  dn->mutable_output_spatial_dimensions()));
  dn->set_output_batch_dimension(a);
  dn->set_output_feature_dimension(b);
  return absl::OkStatus();
}

absl::StatusOr<std::string> Labels(int64_t first_dim, char first, int64_t second_dim, char second,
                                   const IntField& spatial) {
  size_t rank = spatial.size() + 2;
  std::string out(rank, '?');
  auto put = [&](int64_t at, char c) {
    if (at < 0 || static_cast<size_t>(at) >= rank || out[at] != '?') return false;
    out[at] = c;
    return true;
  };
  bool ok = put(first_dim, first) && put(second_dim, second);
  for (int i = 0; ok && i < spatial.size(); ++i)
    ok = i < 10 && put(spatial[i], static_cast<char>('0' + i));
  if (!ok) return Malformed("convolution dimension numbers", out);
  return out;
}

Decoded DecodeDimLabels(const Proto& proto, HloOpcode) {
  if (!proto.has_convolution_dimension_numbers()) return None();
  const auto& dn = proto.convolution_dimension_numbers();
  HOPT_ASSIGN_OR_RETURN(auto lhs,
                        Labels(dn.input_batch_dimension(), 'b', dn.input_feature_dimension(), 'f',
                               dn.input_spatial_dimensions()));
  HOPT_ASSIGN_OR_RETURN(
      auto rhs, Labels(dn.kernel_input_feature_dimension(), 'i',
                       dn.kernel_output_feature_dimension(), 'o', dn.kernel_spatial_dimensions()));
  HOPT_ASSIGN_OR_RETURN(auto out,
                        Labels(dn.output_batch_dimension(), 'b', dn.output_feature_dimension(), 'f',
                               dn.output_spatial_dimensions()));
  return std::optional<std::string>(absl::StrCat(lhs, "_", rhs, "->", out));
}

// feature_group_count / batch_group_count: XLA prints them when not 1.
template <auto Set>
absl::Status EncodeGroupCount(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseInt(text));
  (proto->*Set)(v);
  return absl::OkStatus();
}

template <auto Get>
Decoded DecodeGroupCount(const Proto& proto, HloOpcode) {
  int64_t v = (proto.*Get)();
  if (v == 0 || v == 1) return None();
  return std::optional<std::string>(absl::StrCat(v));
}

// --- padding=0_0x1_1_0 ------------------------------------------------------

absl::Status EncodePadding(absl::string_view text, Proto* proto) {
  auto* config = proto->mutable_padding_config();
  config->Clear();
  for (absl::string_view dim : absl::StrSplit(text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    int64_t v[3] = {0, 0, 0};
    if (parts.size() < 2 || parts.size() > 3) return Malformed("padding", text);
    for (size_t i = 0; i < parts.size(); ++i)
      if (!absl::SimpleAtoi(parts[i], &v[i])) return Malformed("padding", text);
    auto* d = config->add_dimensions();
    d->set_edge_padding_low(v[0]);
    d->set_edge_padding_high(v[1]);
    d->set_interior_padding(v[2]);
  }
  return absl::OkStatus();
}

Decoded DecodePadding(const Proto& proto, HloOpcode) {
  if (!proto.has_padding_config()) return None();
  const auto& dims = proto.padding_config().dimensions();
  bool interior = std::any_of(dims.begin(), dims.end(),
                              [](const auto& d) { return d.interior_padding() != 0; });
  std::vector<std::string> parts;
  for (const auto& d : dims)
    parts.push_back(interior ? absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high(), "_",
                                            d.interior_padding())
                             : absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high()));
  if (parts.empty()) return None();
  return std::optional<std::string>(absl::StrJoin(parts, "x"));
}

// --- dot dimension numbers (dot: field 30; ragged-dot: field 90) ------------

bool IsRaggedDot(HloOpcode op) { return op == HloOpcode::kRaggedDot; }
bool NotRaggedDot(HloOpcode op) { return op != HloOpcode::kRaggedDot; }

template <bool kRagged>
xla::DotDimensionNumbers* MutableDot(Proto* proto) {
  if (kRagged)
    return proto->mutable_ragged_dot_dimension_numbers()->mutable_dot_dimension_numbers();
  return proto->mutable_dot_dimension_numbers();
}

template <bool kRagged>
const xla::DotDimensionNumbers& GetDot(const Proto& proto) {
  if (kRagged) return proto.ragged_dot_dimension_numbers().dot_dimension_numbers();
  return proto.dot_dimension_numbers();
}

template <bool kRagged, IntField* (xla::DotDimensionNumbers::*Mutable)()>
absl::Status EncodeDotDims(absl::string_view text, Proto* proto) {
  return ReadIntList(text, (MutableDot<kRagged>(proto)->*Mutable)());
}

// Contracting dimensions print always for dots, batch dimensions when any.
template <bool kRagged, const IntField& (xla::DotDimensionNumbers::*Get)() const, bool kAlways>
Decoded DecodeDotDims(const Proto& proto, HloOpcode op) {
  const IntField& values = (GetDot<kRagged>(proto).*Get)();
  bool dot = op == HloOpcode::kDot || op == HloOpcode::kRaggedDot;
  if (values.empty() && !(kAlways && dot)) return None();
  return std::optional<std::string>(IntListText(values));
}

template <IntField* (xla::RaggedDotDimensionNumbers::*Mutable)()>
absl::Status EncodeRaggedDims(absl::string_view text, Proto* proto) {
  return ReadIntList(text, (proto->mutable_ragged_dot_dimension_numbers()->*Mutable)());
}

template <const IntField& (xla::RaggedDotDimensionNumbers::*Get)() const>
Decoded DecodeRaggedDims(const Proto& proto, HloOpcode) {
  const IntField& values = (proto.ragged_dot_dimension_numbers().*Get)();
  if (values.empty()) return None();
  return std::optional<std::string>(IntListText(values));
}

// --- operand_precision={default,high} and algorithm=dot_bf16_bf16_f32 --------

absl::Status EncodeOperandPrecision(absl::string_view text, Proto* proto) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}')
    return Malformed("operand_precision", text);
  auto* config = proto->mutable_precision_config();
  config->clear_operand_precision();
  for (absl::string_view word : absl::StrSplit(text.substr(1, text.size() - 2), ',')) {
    const auto* value =
        xla::PrecisionConfig_Precision_descriptor()->FindValueByName(absl::AsciiStrToUpper(word));
    if (value == nullptr || word != absl::AsciiStrToLower(word))
      return Malformed("precision", text);
    config->add_operand_precision(static_cast<xla::PrecisionConfig::Precision>(value->number()));
  }
  return absl::OkStatus();
}

Decoded DecodeOperandPrecision(const Proto& proto, HloOpcode) {
  const auto& precisions = proto.precision_config().operand_precision();
  if (std::all_of(precisions.begin(), precisions.end(),
                  [](int p) { return p == xla::PrecisionConfig::DEFAULT; }))
    return None();
  std::vector<std::string> words;
  for (int p : precisions) {
    const auto* value = xla::PrecisionConfig_Precision_descriptor()->FindValueByNumber(p);
    if (value == nullptr) return Malformed("precision value", absl::StrCat(p));
    words.push_back(absl::AsciiStrToLower(value->name()));
  }
  return std::optional<std::string>(absl::StrCat("{", absl::StrJoin(words, ","), "}"));
}

bool NotRngBitGenerator(HloOpcode op) { return op != HloOpcode::kRngBitGenerator; }

absl::Status EncodeAlgorithm(absl::string_view text, Proto* proto) {
  if (text != absl::AsciiStrToLower(text)) return Malformed("algorithm", text);
  const auto* value = xla::PrecisionConfig_Algorithm_descriptor()->FindValueByName(
      absl::StrCat("ALG_", absl::AsciiStrToUpper(text)));
  if (value == nullptr) return Malformed("algorithm", text);
  proto->mutable_precision_config()->set_algorithm(
      static_cast<xla::PrecisionConfig::Algorithm>(value->number()));
  return absl::OkStatus();
}

Decoded DecodeAlgorithm(const Proto& proto, HloOpcode) {
  int algorithm = proto.precision_config().algorithm();
  if (algorithm == xla::PrecisionConfig::ALG_UNSET) return None();
  const auto* value = xla::PrecisionConfig_Algorithm_descriptor()->FindValueByNumber(algorithm);
  if (value == nullptr) return Malformed("algorithm value", absl::StrCat(algorithm));
  return std::optional<std::string>(absl::AsciiStrToLower(value->name().substr(4)));
}

// --- gather / scatter dimension numbers -------------------------------------

bool IsScatter(HloOpcode op) { return op == HloOpcode::kScatter; }
bool IsGather(HloOpcode op) { return op == HloOpcode::kGather; }

template <typename Message, Message* (Proto::*MutableMessage)(), IntField* (Message::*Mutable)()>
absl::Status EncodeDims(absl::string_view text, Proto* proto) {
  return ReadIntList(text, ((proto->*MutableMessage)()->*Mutable)());
}

// kAlways: printed even when empty (XLA's required fields of the message).
template <typename Message, const Message& (Proto::*GetMessage)() const,
          const IntField& (Message::*Get)() const, bool kAlways>
Decoded DecodeDims(const Proto& proto, HloOpcode) {
  const IntField& values = ((proto.*GetMessage)().*Get)();
  if (values.empty() && !kAlways) return None();
  return std::optional<std::string>(IntListText(values));
}

template <typename Message, Message* (Proto::*MutableMessage)()>
absl::Status EncodeIndexVectorDim(absl::string_view text, Proto* proto) {
  HOPT_ASSIGN_OR_RETURN(auto v, ParseInt(text));
  ((proto->*MutableMessage)())->set_index_vector_dim(v);
  return absl::OkStatus();
}

// Printed always for gather and scatter.
template <typename Message, const Message& (Proto::*GetMessage)() const>
Decoded DecodeIndexVectorDim(const Proto& proto, HloOpcode) {
  return std::optional<std::string>(absl::StrCat(((proto.*GetMessage)()).index_vector_dim()));
}

// --- output_to_operand_aliasing={{1}: (2, {}), {2}: (3, {0})} ------------

bool ReadIndex(TextCursor& cursor, IntField* out) {
  if (!cursor.Consume('{')) return false;
  if (cursor.Consume('}')) return true;
  do {
    int64_t v;
    if (!cursor.ReadInt(&v)) return false;
    out->Add(v);
  } while (cursor.Consume(','));
  return cursor.Consume('}');
}

absl::Status EncodeAliasing(absl::string_view text, Proto* proto) {
  TextCursor cursor(text);
  proto->clear_output_operand_aliasing();
  if (!cursor.Consume('{')) return Malformed("output_to_operand_aliasing", text);
  if (!cursor.Consume('}')) {
    do {
      auto* alias = proto->add_output_operand_aliasing();
      int64_t operand;
      if (!ReadIndex(cursor, alias->mutable_output_shape_index()) || !cursor.Consume(':') ||
          !cursor.Consume('(') || !cursor.ReadInt(&operand) || !cursor.Consume(',') ||
          !ReadIndex(cursor, alias->mutable_operand_shape_index()) || !cursor.Consume(')'))
        return Malformed("output_to_operand_aliasing", text);
      alias->set_operand_index(operand);
    } while (cursor.Consume(','));
    if (!cursor.Consume('}')) return Malformed("output_to_operand_aliasing", text);
  }
  cursor.SkipSpace();
  if (!cursor.AtEnd()) return Malformed("output_to_operand_aliasing", text);
  return absl::OkStatus();
}

Decoded DecodeAliasing(const Proto& proto, HloOpcode) {
  if (proto.output_operand_aliasing().empty()) return None();
  std::vector<std::string> parts;
  for (const auto& a : proto.output_operand_aliasing())
    parts.push_back(absl::StrCat("{", JoinInts(a.output_shape_index(), ","), "}: (",
                                 a.operand_index(), ", {", JoinInts(a.operand_shape_index(), ","),
                                 "})"));
  return std::optional<std::string>(absl::StrCat("{", absl::StrJoin(parts, ", "), "}"));
}

using G = xla::GatherDimensionNumbers;
using S = xla::ScatterDimensionNumbers;
#define GATHER_DIMS(field, always)                                              \
  EncodeDims<G, &Proto::mutable_gather_dimension_numbers, &G::mutable_##field>, \
      DecodeDims<G, &Proto::gather_dimension_numbers, &G::field, always>
#define SCATTER_DIMS(field, always)                                              \
  EncodeDims<S, &Proto::mutable_scatter_dimension_numbers, &S::mutable_##field>, \
      DecodeDims<S, &Proto::scatter_dimension_numbers, &S::field, always>

}  // namespace

absl::Status EncodeSharding(absl::string_view text, Proto* proto);
Decoded DecodeSharding(const Proto& proto, HloOpcode opcode);

const std::vector<AttributeCodec>& StructuredCodecs() {
  static const auto* const kCodecs = new std::vector<AttributeCodec>{
      {"window", nullptr, EncodeWindow, DecodeWindow},
      {"dim_labels", nullptr, EncodeDimLabels, DecodeDimLabels},
      {"lhs_batch_dims", NotRaggedDot,
       EncodeDotDims<false, &xla::DotDimensionNumbers::mutable_lhs_batch_dimensions>,
       DecodeDotDims<false, &xla::DotDimensionNumbers::lhs_batch_dimensions, false>},
      {"lhs_contracting_dims", NotRaggedDot,
       EncodeDotDims<false, &xla::DotDimensionNumbers::mutable_lhs_contracting_dimensions>,
       DecodeDotDims<false, &xla::DotDimensionNumbers::lhs_contracting_dimensions, true>},
      {"rhs_batch_dims", NotRaggedDot,
       EncodeDotDims<false, &xla::DotDimensionNumbers::mutable_rhs_batch_dimensions>,
       DecodeDotDims<false, &xla::DotDimensionNumbers::rhs_batch_dimensions, false>},
      {"rhs_contracting_dims", NotRaggedDot,
       EncodeDotDims<false, &xla::DotDimensionNumbers::mutable_rhs_contracting_dimensions>,
       DecodeDotDims<false, &xla::DotDimensionNumbers::rhs_contracting_dimensions, true>},
      {"lhs_batch_dims", IsRaggedDot,
       EncodeDotDims<true, &xla::DotDimensionNumbers::mutable_lhs_batch_dimensions>,
       DecodeDotDims<true, &xla::DotDimensionNumbers::lhs_batch_dimensions, false>},
      {"lhs_contracting_dims", IsRaggedDot,
       EncodeDotDims<true, &xla::DotDimensionNumbers::mutable_lhs_contracting_dimensions>,
       DecodeDotDims<true, &xla::DotDimensionNumbers::lhs_contracting_dimensions, true>},
      {"rhs_batch_dims", IsRaggedDot,
       EncodeDotDims<true, &xla::DotDimensionNumbers::mutable_rhs_batch_dimensions>,
       DecodeDotDims<true, &xla::DotDimensionNumbers::rhs_batch_dimensions, false>},
      {"rhs_contracting_dims", IsRaggedDot,
       EncodeDotDims<true, &xla::DotDimensionNumbers::mutable_rhs_contracting_dimensions>,
       DecodeDotDims<true, &xla::DotDimensionNumbers::rhs_contracting_dimensions, true>},
      {"lhs_ragged_dims", IsRaggedDot,
       EncodeRaggedDims<&xla::RaggedDotDimensionNumbers::mutable_lhs_ragged_dimensions>,
       DecodeRaggedDims<&xla::RaggedDotDimensionNumbers::lhs_ragged_dimensions>},
      {"rhs_group_dims", IsRaggedDot,
       EncodeRaggedDims<&xla::RaggedDotDimensionNumbers::mutable_rhs_group_dimensions>,
       DecodeRaggedDims<&xla::RaggedDotDimensionNumbers::rhs_group_dimensions>},
      {"feature_group_count", nullptr, EncodeGroupCount<&Proto::set_feature_group_count>,
       DecodeGroupCount<&Proto::feature_group_count>},
      {"batch_group_count", nullptr, EncodeGroupCount<&Proto::set_batch_group_count>,
       DecodeGroupCount<&Proto::batch_group_count>},
      {"operand_precision", nullptr, EncodeOperandPrecision, DecodeOperandPrecision},
      {"algorithm", NotRngBitGenerator, EncodeAlgorithm, DecodeAlgorithm},
      {"padding", nullptr, EncodePadding, DecodePadding},
      {"offset_dims", IsGather, GATHER_DIMS(offset_dims, true)},
      {"collapsed_slice_dims", IsGather, GATHER_DIMS(collapsed_slice_dims, true)},
      {"start_index_map", IsGather, GATHER_DIMS(start_index_map, true)},
      {"operand_batching_dims", IsGather, GATHER_DIMS(operand_batching_dims, false)},
      {"start_indices_batching_dims", IsGather, GATHER_DIMS(start_indices_batching_dims, false)},
      {"update_window_dims", IsScatter, SCATTER_DIMS(update_window_dims, true)},
      {"inserted_window_dims", IsScatter, SCATTER_DIMS(inserted_window_dims, true)},
      {"scatter_dims_to_operand_dims", IsScatter, SCATTER_DIMS(scatter_dims_to_operand_dims, true)},
      {"input_batching_dims", IsScatter, SCATTER_DIMS(input_batching_dims, false)},
      {"scatter_indices_batching_dims", IsScatter,
       SCATTER_DIMS(scatter_indices_batching_dims, false)},
      {"index_vector_dim", IsGather,
       EncodeIndexVectorDim<G, &Proto::mutable_gather_dimension_numbers>,
       DecodeIndexVectorDim<G, &Proto::gather_dimension_numbers>},
      {"index_vector_dim", IsScatter,
       EncodeIndexVectorDim<S, &Proto::mutable_scatter_dimension_numbers>,
       DecodeIndexVectorDim<S, &Proto::scatter_dimension_numbers>},
      {"slice_sizes", IsGather,
       [](absl::string_view text, Proto* proto) {
         return ReadIntList(text, proto->mutable_gather_slice_sizes());
       },
       [](const Proto& proto, HloOpcode) -> Decoded {
         return std::optional<std::string>(IntListText(proto.gather_slice_sizes()));
       }},
      {"output_to_operand_aliasing", nullptr, EncodeAliasing, DecodeAliasing},
      {"sharding", nullptr, EncodeSharding, DecodeSharding},
  };
  return *kCodecs;
}

#undef GATHER_DIMS
#undef SCATTER_DIMS

}  // namespace proto_attributes_internal
}  // namespace hopt

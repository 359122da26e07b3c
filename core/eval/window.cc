#include "core/eval/window.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hopt {
namespace eval {

absl::StatusOr<Window> ParseWindow(absl::string_view text, int64_t rank, absl::string_view op) {
  Window w;
  w.size.assign(rank, 1);
  w.stride.assign(rank, 1);
  w.pad_low.assign(rank, 0);
  w.pad_high.assign(rank, 0);
  w.lhs_dilate.assign(rank, 1);
  w.rhs_dilate.assign(rank, 1);
  w.reversal.assign(rank, false);
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", why));
  };
  auto bad = [&] { return invalid(absl::StrCat("malformed window ", text)); };
  bool sized = false;
  absl::string_view body = text;
  if (!body.empty() && body.front() == '{') body.remove_prefix(1);
  if (!body.empty() && body.back() == '}') body.remove_suffix(1);
  for (absl::string_view field : absl::StrSplit(body, ' ', absl::SkipEmpty())) {
    size_t eq = field.find('=');
    if (eq == absl::string_view::npos) return bad();
    absl::string_view key = field.substr(0, eq);
    sized |= key == "size";
    std::vector<absl::string_view> dims = absl::StrSplit(field.substr(eq + 1), 'x');
    if (static_cast<int64_t>(dims.size()) != rank) return bad();
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<absl::string_view> parts = absl::StrSplit(dims[d], '_');
      int64_t v = 0;
      if (parts.empty() || !absl::SimpleAtoi(parts[0], &v)) return bad();
      if (key == "pad") {
        // `lo_hi`; a lone `lo` leaves the high side unpadded, as shape
        // inference reads it.
        w.pad_low[d] = v;
        if (parts.size() > 2 || (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &w.pad_high[d])))
          return bad();
      } else if (parts.size() != 1) {
        return bad();
      } else if (key == "rhs_reversal") {
        w.reversal[d] = v != 0;
      } else {
        std::vector<int64_t>* target = key == "size"         ? &w.size
                                       : key == "stride"     ? &w.stride
                                       : key == "lhs_dilate" ? &w.lhs_dilate
                                       : key == "rhs_dilate" ? &w.rhs_dilate
                                                             : nullptr;
        if (target == nullptr) return bad();
        if (v <= 0) return invalid(absl::StrCat("window ", text, ": ", key, " must be positive"));
        (*target)[d] = v;
      }
    }
  }
  // XLA's windows have one dimension per input dimension: `{}` is only a
  // scalar's.
  if (rank > 0 && !sized) return invalid(absl::StrCat("window ", text, " has no size"));
  return w;
}

absl::StatusOr<int64_t> WindowOutputSize(const Window& window, int64_t d, int64_t input_size,
                                         absl::string_view op) {
  // In 128 bits: the fields come from the text, as large as they like.
  __int128 base = input_size == 0 ? 0 : static_cast<__int128>(input_size - 1) *
                                                window.lhs_dilate[d] + 1;
  __int128 padded = base + window.pad_low[d] + window.pad_high[d];
  __int128 span = static_cast<__int128>(window.size[d] - 1) * window.rhs_dilate[d] + 1;
  if (padded < span) return 0;
  __int128 size = (padded - span) / window.stride[d] + 1;
  if (size > INT64_MAX)
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the window's output has more than 2^63 elements along dimension ", d));
  return static_cast<int64_t>(size);
}

int64_t WindowInputCoordinate(const Window& window, int64_t d, int64_t o, int64_t k,
                              int64_t input_size) {
  // In 128 bits: the fields come from the text, as large as it likes.
  __int128 dilated = static_cast<__int128>(o) * window.stride[d] +
                     static_cast<__int128>(k) * window.rhs_dilate[d] - window.pad_low[d];
  if (dilated < 0 || dilated % window.lhs_dilate[d] != 0) return -1;
  __int128 p = dilated / window.lhs_dilate[d];
  return p < input_size ? static_cast<int64_t>(p) : -1;
}

std::vector<std::vector<int64_t>> WindowTaps(const Window& window, int64_t d, int64_t input_size,
                                             int64_t output_size) {
  std::vector<std::vector<int64_t>> taps(output_size);
  const int64_t size = window.size[d];
  for (int64_t o = 0; o < output_size; ++o) {
    std::vector<int64_t>& t = taps[o];
    if (size <= input_size) {
      for (int64_t k = 0; k < size; ++k) {
        int64_t p = WindowInputCoordinate(window, d, o, k, input_size);
        if (p >= 0) t.push_back(p);
      }
      continue;
    }
    // A window wider than the input: ask each input element which window
    // position (if any) reads it; positions grow with the coordinate, so
    // the order is the window's.
    for (int64_t i = 0; i < input_size; ++i) {
      __int128 offset = static_cast<__int128>(i) * window.lhs_dilate[d] + window.pad_low[d] -
                        static_cast<__int128>(o) * window.stride[d];
      if (offset < 0 || offset % window.rhs_dilate[d] != 0) continue;
      if (offset / window.rhs_dilate[d] < size) t.push_back(i);
    }
  }
  return taps;
}

}  // namespace eval
}  // namespace hopt

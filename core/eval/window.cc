// SPDX-License-Identifier: Apache-2.0

#include "core/eval/window.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hopt {
namespace eval {

absl::StatusOr<Window> ParseWindow(absl::string_view text, int64_t rank, absl::string_view op) {
  // A rank derived from operands (a convolution's rank - 2) may be negative
  // in a module nobody verified.
  if (rank < 0) return absl::InvalidArgumentError(absl::StrCat(op, ": a window of rank ", rank));
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
  __int128 base =
      input_size == 0 ? 0 : static_cast<__int128>(input_size - 1) * window.lhs_dilate[d] + 1;
  __int128 padded = base + window.pad_low[d] + window.pad_high[d];
  __int128 span = static_cast<__int128>(window.size[d] - 1) * window.rhs_dilate[d] + 1;
  if (padded < span) return 0;
  __int128 size = (padded - span) / window.stride[d] + 1;
  if (size > INT64_MAX)
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the window's output has more than 2^63 elements along dimension ", d));
  return static_cast<int64_t>(size);
}

int64_t WindowInputCoordinate(const Window& window, int64_t d, int64_t o, int64_t k,
                              int64_t input_size) {
  // Convolution asks this for every window position of every output row:
  // 64-bit arithmetic unless the fields (from the text, as large as they
  // like) overflow it.
  int64_t a, b, dilated;
  if (!__builtin_mul_overflow(o, window.stride[d], &a) &&
      !__builtin_mul_overflow(k, window.rhs_dilate[d], &b) &&
      !__builtin_add_overflow(a, b, &dilated) &&
      !__builtin_sub_overflow(dilated, window.pad_low[d], &dilated)) {
    if (dilated < 0 || dilated % window.lhs_dilate[d] != 0) return -1;
    int64_t p = dilated / window.lhs_dilate[d];
    return p < input_size ? p : -1;
  }
  __int128 wide = static_cast<__int128>(o) * window.stride[d] +
                  static_cast<__int128>(k) * window.rhs_dilate[d] - window.pad_low[d];
  if (wide < 0 || wide % window.lhs_dilate[d] != 0) return -1;
  __int128 p = wide / window.lhs_dilate[d];
  return p < input_size ? static_cast<int64_t>(p) : -1;
}

namespace {

// floor(a / b) and ceil(a / b) for b > 0.
__int128 FloorDiv(__int128 a, __int128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
__int128 CeilDiv(__int128 a, __int128 b) { return -FloorDiv(-a, b); }

// x with a * x = 1 (mod m), for a and m coprime, m >= 1.
__int128 Inverse(__int128 a, __int128 m) {
  __int128 r0 = m, r1 = ((a % m) + m) % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    __int128 q = r0 / r1, r = r0 - q * r1, t = t0 - q * t1;
    r0 = r1, r1 = r, t0 = t1, t1 = t;
  }
  return ((t0 % m) + m) % m;
}

}  // namespace

std::vector<WindowTaps> WindowTapsAlong(const Window& window, int64_t d, int64_t input_size,
                                        int64_t output_size) {
  std::vector<WindowTaps> taps(output_size);
  const __int128 rd = window.rhs_dilate[d], ld = window.lhs_dilate[d];
  __int128 g = rd, h = ld;  // gcd(rd, ld)
  while (h != 0) {
    __int128 r = g % h;
    g = h, h = r;
  }
  // Window position k reads base position c + k * rd, an input element
  // i = that / ld when it divides: k must be k0 modulo ld / g, and i then
  // grows by rd / g from one such k to the next.
  const __int128 k_step = ld / g, i_step = rd / g;
  const __int128 inverse = Inverse(i_step, k_step);
  for (int64_t o = 0; o < output_size; ++o) {
    const __int128 c = static_cast<__int128>(o) * window.stride[d] - window.pad_low[d];
    const __int128 m = ((-c) % ld + ld) % ld;  // k * rd = m (mod ld)
    if (m % g != 0) continue;                  // only holes
    const __int128 k0 = (m / g) * inverse % k_step;
    const __int128 i0 = (c + k0 * rd) / ld;  // exact
    // t-th tap: k = k0 + t * k_step, i = i0 + t * i_step.
    __int128 t_low = std::max<__int128>(0, CeilDiv(-i0, i_step));
    __int128 t_high =
        std::min(FloorDiv(input_size - 1 - i0, i_step), FloorDiv(window.size[d] - 1 - k0, k_step));
    if (t_high < t_low) continue;
    taps[o] = {static_cast<int64_t>(i0 + t_low * i_step), static_cast<int64_t>(i_step),
               static_cast<int64_t>(t_high - t_low + 1)};
  }
  return taps;
}

}  // namespace eval
}  // namespace hopt

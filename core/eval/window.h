// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_WINDOW_H_
#define HOPT_CORE_EVAL_WINDOW_H_

// The `window={...}` attribute of convolution, reduce-window and
// select-and-scatter, internal to the interpreter (not installed).
//
// Along each dimension the window slides over the base (the input) after
// lhs_dilate - 1 holes were put between its elements and pad_low/pad_high
// elements of padding around it (negative padding crops); window position k
// of output position o reads the dilated, padded base at
//   o * stride + k * rhs_dilate
// which is an input element only where that lands neither in the padding
// nor on a hole.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hopt {
namespace eval {

// One entry per dimension in each field.
struct Window {
  std::vector<int64_t> size, stride, pad_low, pad_high, lhs_dilate, rhs_dilate;
  std::vector<bool> reversal;  // convolution only (rhs_reversal)
};

// Parses `{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=..
// rhs_reversal=..}` for `rank` dimensions; missing fields take their
// neutral values, but `size` must be there unless `rank` is 0. Errors are
// InvalidArgument, prefixed with `op`.
absl::StatusOr<Window> ParseWindow(absl::string_view text, int64_t rank, absl::string_view op);

// The number of window positions along dimension `d` over an input with
// `input_size` elements there (XLA: an empty input dilates to nothing).
absl::StatusOr<int64_t> WindowOutputSize(const Window& window, int64_t d, int64_t input_size,
                                         absl::string_view op);

// The input coordinate that window position `k` of output position `o`
// reads along dimension `d` of an input with `input_size` elements there,
// or -1 where it reads padding or a hole of lhs dilation.
int64_t WindowInputCoordinate(const Window& window, int64_t d, int64_t o, int64_t k,
                              int64_t input_size);

// The input coordinates one window reads along one dimension, in window
// order: first, first + step, ... (`count` of them). They always form such
// a progression, so a window costs no memory however wide it is (a
// cumulative sum is a reduce-window as wide as its input).
struct WindowTaps {
  int64_t first = 0, step = 1, count = 0;
};

// The taps of each output position along dimension `d`.
std::vector<WindowTaps> WindowTapsAlong(const Window& window, int64_t d, int64_t input_size,
                                        int64_t output_size);

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_WINDOW_H_

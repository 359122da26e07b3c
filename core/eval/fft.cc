// SPDX-License-Identifier: Apache-2.0
// XLA's fft on literals (core/eval/linalg_ops.h). The transform runs on a
// complex<double> grid shaped [batch..., fft_length...]: each axis in turn
// gets a 1-D transform, radix-2 for powers of two, the plain DFT for other
// short lengths and Bluestein's chirp-z (through a power-of-two transform)
// for other long ones, so every length costs O(n log n) at most and stays
// accurate to a few ulps of double.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/eval/linalg_ops.h"
#include "core/eval/ops.h"

namespace hopt {
namespace eval {
namespace {

using Complex = std::complex<double>;

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// e^(sign * 2 pi i k / n), k reduced modulo n first so the angle stays small.
Complex UnitRoot(int64_t k, int64_t n, double sign) {
  return std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>(k % n) / static_cast<double>(n));
}

// In place, unscaled; `sign` -1 for the forward transform, +1 for the
// inverse. data.size() is a power of two.
void Radix2(std::vector<Complex>& data, double sign) {
  const int64_t n = static_cast<int64_t>(data.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  std::vector<Complex> roots(n / 2);
  for (int64_t k = 0; k < n / 2; ++k) roots[k] = UnitRoot(k, n, sign);
  for (int64_t half = 1; half < n; half *= 2) {
    const int64_t step = n / (2 * half);
    for (int64_t start = 0; start < n; start += 2 * half) {
      for (int64_t k = 0; k < half; ++k) {
        Complex even = data[start + k];
        Complex odd = data[start + k + half] * roots[k * step];
        data[start + k] = even + odd;
        data[start + k + half] = even - odd;
      }
    }
  }
}

// One length's plan: Bluestein's chirp and the transformed kernel are made
// once and reused for every line of that length.
class Transform1D {
 public:
  Transform1D(int64_t n, double sign) : n_(n), sign_(sign) {
    if (n_ <= 1 || IsPowerOfTwo(n_)) return;
    if (n_ <= kLargestDirect) {
      roots_.resize(n_);
      for (int64_t k = 0; k < n_; ++k) roots_[k] = UnitRoot(k, n_, sign_);
      return;
    }
    padded_ = 1;
    while (padded_ < 2 * n_ - 1) padded_ *= 2;
    chirp_.resize(n_);
    // k^2 mod 2n keeps the angle of e^(sign i pi k^2 / n) exact.
    for (int64_t k = 0; k < n_; ++k) chirp_[k] = UnitRoot((k * k) % (2 * n_), 2 * n_, sign_);
    kernel_.assign(padded_, Complex(0));
    for (int64_t k = 0; k < n_; ++k) {
      kernel_[k] = std::conj(chirp_[k]);
      if (k > 0) kernel_[padded_ - k] = std::conj(chirp_[k]);
    }
    Radix2(kernel_, -1);
  }

  // Unscaled transform of `line` (size n) in place.
  void Run(std::vector<Complex>& line) const {
    if (n_ <= 1) return;
    if (IsPowerOfTwo(n_)) return Radix2(line, sign_);
    if (!roots_.empty()) return Direct(line);
    std::vector<Complex> work(padded_, Complex(0));
    for (int64_t k = 0; k < n_; ++k) work[k] = line[k] * chirp_[k];
    Radix2(work, -1);
    for (int64_t k = 0; k < padded_; ++k) work[k] *= kernel_[k];
    Radix2(work, +1);
    const double inverse_size = 1.0 / static_cast<double>(padded_);
    for (int64_t k = 0; k < n_; ++k) line[k] = work[k] * chirp_[k] * inverse_size;
  }

 private:
  // Short lines take the plain DFT, whose exact roots of unity keep, for
  // instance, the DC term of a real signal free of rounding noise.
  static constexpr int64_t kLargestDirect = 64;

  void Direct(std::vector<Complex>& line) const {
    std::vector<Complex> out(n_, Complex(0));
    for (int64_t k = 0; k < n_; ++k)
      for (int64_t j = 0; j < n_; ++j) out[k] += line[j] * roots_[(j * k) % n_];
    line = std::move(out);
  }

  int64_t n_;
  double sign_;
  std::vector<Complex> roots_;  // direct DFT only
  int64_t padded_ = 0;
  std::vector<Complex> chirp_;
  std::vector<Complex> kernel_;
};

// Calls `line(start, stride)` for every 1-D line along `axis` of a row-major
// grid of `dims`.
template <typename Fn>
void ForEachLine(absl::Span<const int64_t> dims, size_t axis, Fn&& line) {
  const int64_t stride = ProductOf(dims, axis + 1, dims.size());
  const int64_t outer = ProductOf(dims, 0, axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < stride; ++in) line(o * dims[axis] * stride + in, stride);
}

// Copies between grids of the same rank: element `index` of `to` takes
// element `index` of `from` when `index` is within `limits`, else zero.
void CopyGrid(absl::Span<const int64_t> from_dims, absl::Span<const int64_t> to_dims,
              absl::Span<const int64_t> limits, const std::function<Complex(int64_t)>& read,
              const std::function<void(int64_t, Complex)>& write) {
  const size_t rank = to_dims.size();
  const int64_t count = ProductOf(to_dims, 0, rank);
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    bool inside = true;
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d) {
      inside = inside && index[d] < limits[d];
      source = source * from_dims[d] + index[d];
    }
    write(linear, inside ? read(source) : Complex(0));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < to_dims[d]) break;
      index[d] = 0;
    }
  }
}

absl::string_view FftTypeName(FftType type) {
  switch (type) {
    case FftType::kFft: return "FFT";
    case FftType::kIfft: return "IFFT";
    case FftType::kRfft: return "RFFT";
    case FftType::kIrfft: return "IRFFT";
  }
  return "?";
}

absl::Status CheckFftShapes(const Shape& in, FftType type, absl::Span<const int64_t> lengths,
                            const Shape& out) {
  const int64_t rank = static_cast<int64_t>(lengths.size());
  if (rank < 1 || rank > 3)
    return absl::InvalidArgumentError(
        absl::StrCat("fft: fft_length must have 1 to 3 entries, got ", rank));
  for (int64_t n : lengths)
    if (n < 0) return absl::InvalidArgumentError("fft: negative fft_length");
  if (!in.IsArray() || !out.IsArray() || in.rank() < rank || out.rank() != in.rank())
    return absl::InvalidArgumentError(absl::StrCat(
        "fft: the operand (", in.ToString(false), ") and result (", out.ToString(false),
        ") must be arrays of the same rank, at least the fft rank ", rank));
  const PrimitiveType t = in.element_type();
  const PrimitiveType want_in = type == FftType::kRfft
                                    ? (t == PrimitiveType::F64 ? t : PrimitiveType::F32)
                                    : (t == PrimitiveType::C128 ? t : PrimitiveType::C64);
  const bool wide = t == PrimitiveType::F64 || t == PrimitiveType::C128;
  const PrimitiveType want_out = type == FftType::kIrfft
                                     ? (wide ? PrimitiveType::F64 : PrimitiveType::F32)
                                     : (wide ? PrimitiveType::C128 : PrimitiveType::C64);
  if (t != want_in || out.element_type() != want_out)
    return absl::InvalidArgumentError(
        absl::StrCat("fft: ", FftTypeName(type), " maps ",
                     type == FftType::kRfft    ? "f32->c64 or f64->c128"
                     : type == FftType::kIrfft ? "c64->f32 or c128->f64"
                                               : "c64->c64 or c128->c128",
                     "; got ", in.ToString(false), " -> ", out.ToString(false)));
  const int64_t batch_rank = in.rank() - rank;
  for (int64_t d = 0; d < batch_rank; ++d)
    if (in.dimensions(d) != out.dimensions(d))
      return absl::InvalidArgumentError("fft: the operand and result batch dimensions differ");
  if (type == FftType::kFft || type == FftType::kIfft) {
    if (in.dimensions() != out.dimensions())
      return absl::InvalidArgumentError("fft: FFT and IFFT keep the operand's shape");
    return absl::OkStatus();
  }
  // RFFT and IRFFT: XLA's shape inference fixes every innermost dimension.
  const int64_t n = lengths.back();
  const int64_t half = n / 2 + 1;
  const Shape& real = type == FftType::kRfft ? in : out;
  const Shape& spectrum = type == FftType::kRfft ? out : in;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t d = batch_rank + k;
    bool last = k == rank - 1;
    bool ok = real.dimensions(d) == lengths[k] &&
              spectrum.dimensions(d) == (last ? (n == 0 ? 0 : half) : lengths[k]);
    if (type == FftType::kIrfft && last && n == 0 && spectrum.dimensions(d) == 1) ok = false;
    if (!ok)
      return absl::InvalidArgumentError(absl::StrCat(
          "fft: ", FftTypeName(type), " with fft_length={", absl::StrJoin(lengths, ","),
          "} needs the real side's innermost dimensions equal to "
          "fft_length and the complex side's last one fft_length/2+1; got ",
          in.ToString(false), " -> ", out.ToString(false)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FftType> ParseFftType(absl::string_view text) {
  if (text == "FFT") return FftType::kFft;
  if (text == "IFFT") return FftType::kIfft;
  if (text == "RFFT") return FftType::kRfft;
  if (text == "IRFFT") return FftType::kIrfft;
  return absl::InvalidArgumentError(
      absl::StrCat("fft: unknown fft_type=", text, " (FFT, IFFT, RFFT or IRFFT)"));
}

absl::StatusOr<Literal> Fft(const Literal& operand, FftType type, absl::Span<const int64_t> lengths,
                            const Shape& result) {
  const Shape& in = operand.shape();
  if (absl::Status s = CheckFftShapes(in, type, lengths, result); !s.ok()) return s;
  const size_t rank = in.dimensions().size();
  const size_t batch_rank = rank - lengths.size();
  std::vector<int64_t> in_dims(in.dimensions().begin(), in.dimensions().end());
  std::vector<int64_t> out_dims(result.dimensions().begin(), result.dimensions().end());
  std::vector<int64_t> grid(in_dims.begin(), in_dims.begin() + batch_rank);
  grid.insert(grid.end(), lengths.begin(), lengths.end());

  Literal out(result);
  std::vector<Complex> data(ProductOf(grid, 0, rank));
  if (data.empty() || out.element_count() == 0) return out;

  // Only the first n/2+1 entries of IRFFT's last axis are read; the rest
  // of the spectrum follows from Hermitian symmetry below.
  const int64_t n_last = lengths.back();
  std::vector<int64_t> read_limits = in_dims;
  if (type == FftType::kIrfft) read_limits.back() = std::min(read_limits.back(), n_last / 2 + 1);
  const bool real_input = type == FftType::kRfft;
  auto read = [&](int64_t i) {
    return real_input ? Complex(operand.GetAsDouble(i)) : operand.GetAsComplex(i);
  };
  CopyGrid(in_dims, grid, read_limits, read, [&](int64_t i, Complex v) { data[i] = v; });

  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  const double sign = inverse ? 1.0 : -1.0;
  auto transform_axis = [&](size_t axis, bool expand_hermitian) {
    const int64_t n = grid[axis];
    const Transform1D transform(n, sign);
    std::vector<Complex> line(n);
    ForEachLine(grid, axis, [&](int64_t start, int64_t stride) {
      for (int64_t k = 0; k < n; ++k) line[k] = data[start + k * stride];
      if (expand_hermitian)
        for (int64_t k = n / 2 + 1; k < n; ++k) line[k] = std::conj(line[n - k]);
      transform.Run(line);
      const double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
      for (int64_t k = 0; k < n; ++k) data[start + k * stride] = line[k] * scale;
    });
  };
  // IRFFT inverts the other axes first, on the half spectrum; what is
  // left along the last axis is then the spectrum of real lines.
  for (size_t axis = batch_rank; axis + 1 < rank; ++axis) transform_axis(axis, false);
  transform_axis(rank - 1, type == FftType::kIrfft);

  std::vector<int64_t> write_limits = grid;
  if (type == FftType::kRfft) write_limits.back() = n_last / 2 + 1;
  const bool real_output = type == FftType::kIrfft;
  CopyGrid(
      grid, out_dims, write_limits, [&](int64_t i) { return data[i]; },
      [&](int64_t i, Complex v) {
        if (real_output)
          out.SetFromDouble(i, v.real());
        else
          out.SetFromComplex(i, v);
      });
  return out;
}

}  // namespace eval
}  // namespace hopt

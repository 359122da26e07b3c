// SPDX-License-Identifier: Apache-2.0
// XLA's convolution in the interpreter (see ops.h).
//
// For output element (b, f, o) with feature group gf = f / (F / fgc) and
// batch group gb = f / (F / bgc), the sum over window positions w and
// kernel input features i < I (the kernel's input feature size) of
//   lhs[gb * (B / bgc) + b, gf * I + i, p] * rhs[i, f, w or its reverse]
// where p = o * stride - pad_low + w * rhs_dilate must be a multiple of
// lhs_dilate and p / lhs_dilate inside the input; other positions add
// nothing (they are padding or the holes of lhs dilation).
//
// The fast path lays each group's window positions out as the rows of a
// matrix (im2col: one row per output batch and position, one column per
// window position and input feature) and multiplies it with the kernel's
// matrix (window position and input feature by output feature) on the GEMM
// of dense_kernels.h.

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/eval/dense_kernels.h"
#include "core/eval/ops.h"
#include "core/eval/window.h"
#include "core/ir/shape_inference.h"
#include "hopt/support/status_macros.h"

namespace hopt {
namespace eval {
namespace {

constexpr absl::string_view kOp = "convolution";
constexpr int64_t kMaxResultElements = int64_t{1} << 28;
// Elements of the im2col matrix built at once: rows are taken in chunks.
constexpr int64_t kColumnElements = int64_t{1} << 24;

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(kOp, ": ", message));
}

// Where each role sits among an operand's (or the result's) dimensions.
struct Labels {
  int64_t batch = -1, feature = -1;  // b/f, or i/o for the kernel
  std::vector<int64_t> spatial;
};

struct Conv {
  Labels lhs, rhs, out;
  Window window;
  int64_t feature_groups = 1, batch_groups = 1;
  Shape result;
};

absl::StatusOr<Labels> ParseLabels(absl::string_view text, char batch, char feature,
                                   int64_t spatial, absl::string_view dim_labels) {
  Labels labels;
  auto bad = [&] { return Invalid(absl::StrCat("malformed dim_labels=", dim_labels)); };
  // Operands of rank below 2 leave a negative count (the verifier refuses
  // them; a module built in memory may not have been verified).
  if (spatial < 0) return bad();
  labels.spatial.assign(spatial, -1);
  if (static_cast<int64_t>(text.size()) != spatial + 2) return bad();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    int64_t* slot = c == batch                      ? &labels.batch
                    : c == feature                  ? &labels.feature
                    : c >= '0' && c - '0' < spatial ? &labels.spatial[c - '0']
                                                    : nullptr;
    if (slot == nullptr || *slot >= 0) return bad();
    *slot = static_cast<int64_t>(i);
  }
  return labels;
}

absl::Status CheckOperand(const Literal& literal, absl::string_view what) {
  if (!literal.shape().IsArray())
    return Invalid(absl::StrCat(what, " must be an array, got ", literal.shape().ToString()));
  if (literal.is_elided())
    return Invalid(
        absl::StrCat(what, " ", literal.shape().ToString(), " has elided (unknown) values"));
  for (int64_t d : literal.shape().dimensions())
    if (d < 0)
      return Invalid(absl::StrCat(what, " ", literal.shape().ToString(),
                                  " has a negative or unbounded dimension"));
  return absl::OkStatus();
}

absl::StatusOr<Conv> Prepare(const Literal& lhs, const Literal& rhs, absl::string_view window,
                             absl::string_view dim_labels, int64_t feature_group_count,
                             int64_t batch_group_count, PrimitiveType result_type) {
  HOPT_RETURN_IF_ERROR(CheckOperand(lhs, "the lhs"));
  HOPT_RETURN_IF_ERROR(CheckOperand(rhs, "the rhs"));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (!IsArrayType(result_type))
    return Invalid(absl::StrCat("the result type ", PrimitiveTypeString(result_type),
                                " is not an array element type"));
  Domain domain =
      std::max({DomainOf(ls.element_type()), DomainOf(rs.element_type()), DomainOf(result_type)});
  if (DomainOf(result_type) != domain)
    return Invalid(absl::StrCat("a ", PrimitiveTypeString(result_type),
                                " result cannot hold"
                                " the convolution of ",
                                ls.ToString(), " and ", rs.ToString()));
  auto inferred =
      InferConvolutionShape(ls, rs, window, dim_labels, batch_group_count, feature_group_count);
  if (!inferred.ok())
    return absl::Status(inferred.status().code(),
                        absl::StrCat(kOp, ": ", inferred.status().message()));
  Conv conv;
  conv.feature_groups = feature_group_count;
  conv.batch_groups = batch_group_count;
  conv.result = Shape(result_type, inferred->dimensions());
  int64_t spatial = ls.rank() - 2;
  size_t underscore = dim_labels.find('_'), arrow = dim_labels.find("->");
  HOPT_ASSIGN_OR_RETURN(
      conv.lhs, ParseLabels(dim_labels.substr(0, underscore), 'b', 'f', spatial, dim_labels));
  HOPT_ASSIGN_OR_RETURN(
      conv.rhs, ParseLabels(dim_labels.substr(underscore + 1, arrow - underscore - 1), 'i', 'o',
                            spatial, dim_labels));
  HOPT_ASSIGN_OR_RETURN(conv.out,
                        ParseLabels(dim_labels.substr(arrow + 2), 'b', 'f', spatial, dim_labels));
  HOPT_ASSIGN_OR_RETURN(conv.window, ParseWindow(window, spatial, kOp));
  for (int64_t d = 0; d < spatial; ++d)
    if (conv.window.size[d] != rs.dimensions(conv.rhs.spatial[d]))
      return Invalid(absl::StrCat("window ", window, " has size ", conv.window.size[d],
                                  " in spatial dimension ", d, ", the kernel ", rs.ToString(),
                                  " has ", rs.dimensions(conv.rhs.spatial[d])));
  bool empty = false, too_large = false;
  int64_t elements = 1;
  for (int64_t d : conv.result.dimensions()) {
    if (d == 0)
      empty = true;
    else
      too_large |= __builtin_mul_overflow(elements, d, &elements) || elements > kMaxResultElements;
  }
  if (!empty && too_large)
    return Invalid(absl::StrCat("the result ", conv.result.ToString(), " has more than 2^28 (",
                                kMaxResultElements, ") elements; refusing to build it"));
  return conv;
}

// The lhs element offset of window position `w` for output position `o`
// along spatial dimension d, or -1 where it adds nothing.
int64_t InputCoordinate(const Conv& c, const Shape& ls, int64_t d, int64_t o, int64_t w) {
  return WindowInputCoordinate(c.window, d, o, w, ls.dimensions(c.lhs.spatial[d]));
}

int64_t KernelCoordinate(const Conv& c, int64_t d, int64_t w) {
  return c.window.reversal[d] ? c.window.size[d] - 1 - w : w;
}

Literal Reference(const Conv& c, const Literal& lhs, const Literal& rhs) {
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const int64_t spatial = static_cast<int64_t>(c.lhs.spatial.size());
  const std::vector<int64_t> lst = RowMajorStrides(ls), rst = RowMajorStrides(rs);
  const int64_t out_features = rs.dimensions(c.rhs.feature);
  const int64_t in_group = rs.dimensions(c.rhs.batch);  // the kernel's input features
  const int64_t batch_group_size = ls.dimensions(c.lhs.batch) / c.batch_groups;
  // Prepare made sure that the result's kind is the widest.
  const Domain domain = DomainOf(c.result.element_type());
  Literal out(c.result);
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(c.result.rank(), 0), w(spatial, 0);
  for (int64_t o = 0; o < out.element_count(); ++o, NextIndex(index, c.result.dimensions())) {
    const int64_t f = index[c.out.feature];
    const int64_t feature_group = f / (out_features / c.feature_groups);
    const int64_t batch_group = f / (out_features / c.batch_groups);
    const int64_t lhs_base =
        (index[c.out.batch] + batch_group * batch_group_size) * lst[c.lhs.batch] +
        feature_group * in_group * lst[c.lhs.feature];
    const int64_t rhs_base = f * rst[c.rhs.feature];
    uint64_t int_sum = 0;
    double real_sum = 0;
    std::complex<double> complex_sum = 0;
    std::fill(w.begin(), w.end(), 0);
    do {
      int64_t l = lhs_base, r = rhs_base;
      bool inside = true;
      for (int64_t d = 0; d < spatial && inside; ++d) {
        int64_t p = InputCoordinate(c, ls, d, index[c.out.spatial[d]], w[d]);
        inside = p >= 0;
        l += p * lst[c.lhs.spatial[d]];
        r += KernelCoordinate(c, d, w[d]) * rst[c.rhs.spatial[d]];
      }
      if (!inside) continue;
      for (int64_t i = 0; i < in_group; ++i) {
        int64_t li = l + i * lst[c.lhs.feature], ri = r + i * rst[c.rhs.batch];
        switch (domain) {
          case Domain::kInteger:
            int_sum += static_cast<uint64_t>(lhs.GetAsInt64(li)) *
                       static_cast<uint64_t>(rhs.GetAsInt64(ri));
            break;
          case Domain::kReal: real_sum += lhs.GetAsDouble(li) * rhs.GetAsDouble(ri); break;
          case Domain::kComplex: complex_sum += lhs.GetAsComplex(li) * rhs.GetAsComplex(ri); break;
        }
      }
    } while (NextIndex(w, c.window.size));
    switch (domain) {
      case Domain::kInteger: out.SetFromInt64(o, static_cast<int64_t>(int_sum)); break;
      case Domain::kReal: out.SetFromDouble(o, real_sum); break;
      case Domain::kComplex: out.SetFromComplex(o, complex_sum); break;
    }
  }
  return out;
}

template <typename T>
Literal OnGemm(const Conv& c, const Literal& lhs, const Literal& rhs) {
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const Shape& os = c.result;
  const int64_t spatial = static_cast<int64_t>(c.lhs.spatial.size());
  const std::vector<int64_t> lst = RowMajorStrides(ls), rst = RowMajorStrides(rs),
                             ost = RowMajorStrides(os);
  const int64_t groups = c.feature_groups * c.batch_groups;
  const int64_t in_group = rs.dimensions(c.rhs.batch);
  const int64_t n = rs.dimensions(c.rhs.feature) / groups;  // output features per group
  const int64_t out_batch = os.dimensions(c.out.batch);
  std::vector<int64_t> out_spatial(spatial);
  int64_t positions = 1, window = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    out_spatial[d] = os.dimensions(c.out.spatial[d]);
    positions *= out_spatial[d];
    window *= c.window.size[d];
  }
  const int64_t m = out_batch * positions, k = window * in_group;
  Literal out(os);
  if (out.element_count() == 0) return out;

  // The kernel's matrices, one per group: [window position, input feature]
  // by output feature; a reversed dimension walks the kernel backwards.
  std::vector<int64_t> kernel_dims = {groups}, kernel_steps = {n * rst[c.rhs.feature]};
  int64_t kernel_base = 0;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t step = rst[c.rhs.spatial[d]];
    kernel_dims.push_back(c.window.size[d]);
    kernel_steps.push_back(c.window.reversal[d] ? -step : step);
    if (c.window.reversal[d]) kernel_base += (c.window.size[d] - 1) * step;
  }
  kernel_dims.push_back(in_group);
  kernel_steps.push_back(rst[c.rhs.batch]);
  kernel_dims.push_back(n);
  kernel_steps.push_back(rst[c.rhs.feature]);
  std::vector<T> kernel(groups * k * n);
  GatherValues(rhs, kernel_base, kernel_dims, kernel_steps, kernel.data());

  // Rows in chunks (a multiple of the GEMM's block) so that the im2col
  // matrix stays small.
  int64_t chunk = std::max<int64_t>(256, kColumnElements / std::max<int64_t>(k, 1) / 256 * 256);
  chunk = std::min(chunk, m);
  GemmBuffer<T> columns = MakeGemmBuffer<T>(chunk * k), products = MakeGemmBuffer<T>(chunk * n);
  std::vector<int64_t> o(spatial), w(spatial);
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t batch_offset = c.batch_groups > 1 ? g * out_batch : 0;
    const int64_t feature_offset = c.feature_groups > 1 ? g * in_group : 0;
    for (int64_t first = 0; first < m; first += chunk) {
      const int64_t rows = std::min(chunk, m - first);
      T* row = columns.get();
      for (int64_t r = first; r < first + rows; ++r) {
        int64_t rest = r % positions;
        for (int64_t d = spatial - 1; d >= 0; --d) {
          o[d] = rest % out_spatial[d];
          rest /= out_spatial[d];
        }
        const int64_t base =
            (r / positions + batch_offset) * lst[c.lhs.batch] + feature_offset * lst[c.lhs.feature];
        std::fill(w.begin(), w.end(), 0);
        do {
          int64_t l = base;
          bool inside = true;
          for (int64_t d = 0; d < spatial && inside; ++d) {
            int64_t p = InputCoordinate(c, ls, d, o[d], w[d]);
            inside = p >= 0;
            l += p * lst[c.lhs.spatial[d]];
          }
          for (int64_t i = 0; i < in_group; ++i)
            row[i] = inside ? static_cast<T>(lhs.GetAsDouble(l + i * lst[c.lhs.feature])) : T(0);
          row += in_group;
        } while (NextIndex(w, c.window.size));
      }
      Gemm(1, rows, n, k, columns.get(), kernel.data() + g * k * n, products.get());
      for (int64_t r = first; r < first + rows; ++r) {
        int64_t rest = r % positions, at = (r / positions) * ost[c.out.batch];
        for (int64_t d = spatial - 1; d >= 0; --d) {
          at += (rest % out_spatial[d]) * ost[c.out.spatial[d]];
          rest /= out_spatial[d];
        }
        const T* p = products.get() + (r - first) * n;
        for (int64_t j = 0; j < n; ++j)
          out.SetFromDouble(at + (g * n + j) * ost[c.out.feature], p[j]);
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> Convolution(const Literal& lhs, const Literal& rhs,
                                    absl::string_view window, absl::string_view dim_labels,
                                    int64_t feature_group_count, int64_t batch_group_count,
                                    PrimitiveType result_type) {
  HOPT_ASSIGN_OR_RETURN(Conv conv, Prepare(lhs, rhs, window, dim_labels, feature_group_count,
                                           batch_group_count, result_type));
  PrimitiveType gemm =
      GemmType(lhs.shape().element_type(), rhs.shape().element_type(), result_type);
  // BLAS takes int sizes: the contraction (window x input features) must fit.
  int64_t k = lhs.shape().dimensions(conv.lhs.feature) / feature_group_count;
  for (int64_t s : conv.window.size) k = s > 0 && k > INT_MAX / s ? INT_MAX : k * s;
  if (gemm != PrimitiveType::INVALID) {
    HOPT_RETURN_IF_ERROR(GemmAvailable());
  }
  if (k < INT_MAX) {
    if (gemm == PrimitiveType::F32) return OnGemm<float>(conv, lhs, rhs);
    if (gemm == PrimitiveType::F64) return OnGemm<double>(conv, lhs, rhs);
  }
  return Reference(conv, lhs, rhs);
}

absl::StatusOr<Literal> ConvolutionReference(const Literal& lhs, const Literal& rhs,
                                             absl::string_view window, absl::string_view dim_labels,
                                             int64_t feature_group_count, int64_t batch_group_count,
                                             PrimitiveType result_type) {
  HOPT_ASSIGN_OR_RETURN(Conv conv, Prepare(lhs, rhs, window, dim_labels, feature_group_count,
                                           batch_group_count, result_type));
  return Reference(conv, lhs, rhs);
}

}  // namespace eval
}  // namespace hopt

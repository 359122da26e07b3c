// SPDX-License-Identifier: Apache-2.0
// Dense products on OpenBLAS (see dense_kernels.h).
//
// OpenBLAS is loaded on the first product (dlopen), not linked: linking
// it made every hopt start its thread pool and reserve some 170 MB of
// address space, which tools that never run a dot must not pay.
//
// OpenBLAS's own threading splits a product by the thread count, and its
// edge kernels sum in another order than its full ones, so the same sgemm
// on 1 and 2 threads differs in the last bits. It therefore runs on one
// thread, and the parallelism is ours: a product above kParallelWork is cut
// into blocks of kBlock rows (or columns, whichever is longer) that do not
// depend on the thread count, and the blocks are shared out among threads.

#include "core/eval/dense_kernels.h"

#include <cblas.h>
#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"

namespace hopt {
namespace eval {
namespace {

// Rows (or columns) per block: a multiple of every OpenBLAS kernel's unroll,
// large enough that one call still runs at full speed.
constexpr int64_t kBlock = 256;
// Multiply-adds under which a product is one call on the calling thread
// (starting threads costs more than it saves).
constexpr int64_t kParallelWork = int64_t{1} << 22;
// Elements from which a gather into the GEMM's layout runs on threads.
constexpr int64_t kParallelCopy = int64_t{1} << 20;

std::atomic<int64_t> running_devices{0};
std::atomic<int> fixed_threads{0};

// OpenBLAS's entry points, resolved once.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  std::string error;
};

const Blas& LoadBlas() {
  static const Blas blas = [] {
    Blas b;
    // The runtime package's soname; its alternative may point to the
    // pthread, openmp or serial build, all single-threaded below.
    void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      b.error = absl::StrCat("cannot load OpenBLAS (libopenblas.so.0: ", dlerror(),
                             "); install libopenblas0-pthread (scripts/setup.sh)");
      return b;
    }
    auto set_threads = reinterpret_cast<decltype(&openblas_set_num_threads)>(
        dlsym(handle, "openblas_set_num_threads"));
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(handle, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(handle, "cblas_dgemm"));
    if (set_threads == nullptr || b.sgemm == nullptr || b.dgemm == nullptr) {
      b.sgemm = nullptr;
      b.dgemm = nullptr;
      b.error = "libopenblas.so.0 lacks cblas_sgemm, cblas_dgemm or openblas_set_num_threads";
      return b;
    }
    set_threads(1);
    return b;
  }();
  return blas;
}

int AvailableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void Call(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
          float* c, int64_t ldc) {
  LoadBlas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                   static_cast<int>(n), static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b,
                   static_cast<int>(ldb), 0.0f, c, static_cast<int>(ldc));
}

void Call(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double* c, int64_t ldc) {
  LoadBlas().dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                   static_cast<int>(n), static_cast<int>(k), 1.0, a, static_cast<int>(lda), b,
                   static_cast<int>(ldb), 0.0, c, static_cast<int>(ldc));
}

template <typename T>
void GemmImpl(int64_t batch, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + batch * m * n, T(0));
    return;
  }
  // Callers keep every size below INT_MAX (BLAS takes int sizes) and
  // batch * m * n to a result's size, so the product below fits.
  const bool large = batch * m * n * k >= kParallelWork;
  const bool by_rows = m >= n;
  const int64_t length = by_rows ? m : n;
  const bool blocked = large && length > kBlock;
  const int64_t blocks = blocked ? (length + kBlock - 1) / kBlock : 1;
  const int64_t items = batch * blocks;
  auto run = [&](int64_t item) {
    int64_t i = item / blocks, block = item % blocks;
    int64_t from = blocked ? block * kBlock : 0;
    int64_t to = blocked ? std::min(length, from + kBlock) : length;
    const T* ai = a + i * m * k;
    const T* bi = b + i * k * n;
    T* ci = c + i * m * n;
    if (by_rows)
      Call(to - from, n, k, ai + from * k, k, bi, n, ci + from * n, n);
    else
      Call(m, to - from, k, ai, k, bi + from, n, ci + from, n);
  };
  int threads = static_cast<int>(std::min<int64_t>(items, large ? DenseKernelThreads() : 1));
  if (threads <= 1) {
    for (int64_t item = 0; item < items; ++item) run(item);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t item; (item = next.fetch_add(1)) < items;) run(item);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) {
    // Without a thread to spare (a large mesh under a limit), the workers
    // already running take its share.
    try {
      helpers.emplace_back(worker);
    } catch (const std::system_error&) {
      break;
    }
  }
  worker();
  for (std::thread& t : helpers) t.join();
}

}  // namespace

absl::Status GemmAvailable() {
  const Blas& blas = LoadBlas();
  if (blas.sgemm != nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("interpreter: ", blas.error));
}

void FreeDeleter::operator()(void* p) const { std::free(p); }

void* AllocateGemmBytes(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  if (bytes < 2 * kHugePage) {
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  return p;
}

PrimitiveType GemmType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result) {
  bool wide = false;
  for (PrimitiveType t : {lhs, rhs, result}) {
    if (!IsFloatingPointType(t)) return PrimitiveType::INVALID;
    if (PrimitiveTypeBitWidth(t) > 32) wide = true;
  }
  return wide ? PrimitiveType::F64 : PrimitiveType::F32;
}

void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float* c) {
  GemmImpl(batch, m, n, k, a, b, c);
}

void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double* c) {
  GemmImpl(batch, m, n, k, a, b, c);
}

namespace {

// GatherValues for the rows [first, last) of `dims` without its innermost
// dimension.
template <typename T>
void GatherRows(const Literal& source, int64_t base, absl::Span<const int64_t> dims,
                absl::Span<const int64_t> steps, int64_t first, int64_t last, T* out) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t inner = rank == 0 ? 1 : dims[rank - 1];
  const int64_t inner_step = rank == 0 ? 0 : steps[rank - 1];
  // The row-major index of row `first`, with `from` in step.
  std::vector<int64_t> index(std::max<int64_t>(rank - 1, 0), 0);
  int64_t from = base;
  for (int64_t d = rank - 2, rest = first; d >= 0; --d) {
    index[d] = rest % dims[d];
    rest /= dims[d];
    from += index[d] * steps[d];
  }
  const double* reals = source.real_data();
  for (int64_t row = first; row < last; ++row) {
    T* to = out + row * inner;
    if (reals != nullptr) {
      const double* values = reals + from;
      for (int64_t j = 0; j < inner; ++j) to[j] = static_cast<T>(values[j * inner_step]);
    } else {
      for (int64_t j = 0; j < inner; ++j)
        to[j] = static_cast<T>(source.GetAsDouble(from + j * inner_step));
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      from += steps[d];
      if (++index[d] < dims[d]) break;
      from -= steps[d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace

template <typename T>
void GatherValues(const Literal& source, int64_t base, absl::Span<const int64_t> dims,
                  absl::Span<const int64_t> steps, T* out) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  const int64_t inner = dims.empty() ? 1 : dims.back();
  const int64_t rows = count / inner;
  // Large copies are mostly page faults on `out`, which threads take in
  // parallel; the values do not depend on the split.
  int threads = count >= kParallelCopy ? DenseKernelThreads() : 1;
  threads = static_cast<int>(std::min<int64_t>(threads, rows));
  if (threads <= 1) {
    GatherRows(source, base, dims, steps, 0, rows, out);
    return;
  }
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) {
    auto share = [&, t] {
      GatherRows(source, base, dims, steps, rows * t / threads, rows * (t + 1) / threads, out);
    };
    try {
      helpers.emplace_back(share);
    } catch (const std::system_error&) {
      share();  // no thread to spare: done here
    }
  }
  GatherRows(source, base, dims, steps, 0, rows / threads, out);
  for (std::thread& t : helpers) t.join();
}

template void GatherValues<float>(const Literal&, int64_t, absl::Span<const int64_t>,
                                  absl::Span<const int64_t>, float*);
template void GatherValues<double>(const Literal&, int64_t, absl::Span<const int64_t>,
                                   absl::Span<const int64_t>, double*);

int DenseKernelThreads() {
  if (int fixed = fixed_threads.load(); fixed > 0) return fixed;
  static const int cpus = AvailableCpus();
  int64_t devices = std::max<int64_t>(1, running_devices.load());
  return static_cast<int>(std::max<int64_t>(1, cpus / devices));
}

void SetDenseKernelThreadsForTesting(int threads) { fixed_threads.store(std::max(0, threads)); }

RunningDevices::RunningDevices(int64_t devices) : devices_(devices) {
  running_devices.fetch_add(devices_);
}

RunningDevices::~RunningDevices() { running_devices.fetch_sub(devices_); }

template <typename T>
void StoreValues(const T* values, int64_t count, Literal* out) {
  PrimitiveType type = out->shape().element_type();
  double* reals = out->mutable_real_data();
  // f32 values in an f32 result (f64 in f64) are stored as they are; other
  // results round each value.
  if (reals != nullptr && PrimitiveTypeBitWidth(type) == 8 * static_cast<int>(sizeof(T))) {
    for (int64_t i = 0; i < count; ++i) reals[i] = values[i];
    return;
  }
  for (int64_t i = 0; i < count; ++i) out->SetFromDouble(i, values[i]);
}

template void StoreValues<float>(const float*, int64_t, Literal*);
template void StoreValues<double>(const double*, int64_t, Literal*);

}  // namespace eval
}  // namespace hopt

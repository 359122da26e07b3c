// SPDX-License-Identifier: Apache-2.0

#ifndef HOPT_CORE_EVAL_DENSE_KERNELS_H_
#define HOPT_CORE_EVAL_DENSE_KERNELS_H_

// The interpreter's dense matrix products (dot, and convolution through
// im2col) on OpenBLAS's single-threaded sgemm/dgemm, split into blocks whose
// bounds depend only on the product's shape. The blocks run on as many
// threads as the devices leave free, and since every output element is
// computed by one BLAS call whatever thread runs it, results are identical
// run to run and for any thread count (docs/hlo-run.md, "Dense kernels").

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hopt/ir/literal.h"
#include "hopt/ir/shape.h"

namespace hopt {
namespace eval {

// The GEMM a product with these element types runs on: F32 when operands
// and result are floating point of at most 32 bits (bf16, f16 and f8 values
// are exact in f32; the sum is rounded to the result type at the end), F64
// when one of them is f64, INVALID otherwise (integers,
// complex, mixed integer/float: the exact loop).
PrimitiveType GemmType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result);

// Loads OpenBLAS on first use; FailedPrecondition when it cannot (Gemm
// must not be called then).
absl::Status GemmAvailable();

// C[i] = A[i] * B[i] for i < batch: row-major m x k times k x n into m x n,
// each matrix contiguous, one after the other. k == 0 gives zeros.
void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);
void Gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double* c);

// An uninitialized buffer of `count` T for a GEMM operand or result. Large
// ones are backed by transparent huge pages where the kernel offers them:
// on a VM, faulting in tens of MB 4 KB at a time costs as much as the
// product.
struct FreeDeleter {
  void operator()(void* p) const;
};
template <typename T>
using GemmBuffer = std::unique_ptr<T[], FreeDeleter>;
void* AllocateGemmBytes(size_t bytes);
template <typename T>
GemmBuffer<T> MakeGemmBuffer(int64_t count) {
  return GemmBuffer<T>(static_cast<T*>(AllocateGemmBytes(sizeof(T) * std::max<int64_t>(count, 1))));
}

// The elements base + sum_d i[d] * steps[d] of `source` for every index i
// of `dims` in row-major order, as T (the values are exact in T: GemmType
// chose it).
template <typename T>
void GatherValues(const Literal& source, int64_t base, absl::Span<const int64_t> dims,
                  absl::Span<const int64_t> steps, T* out);

// Stores `count` GEMM results into `out` (an array of that many elements)
// in row-major order, rounded to its element type.
template <typename T>
void StoreValues(const T* values, int64_t count, Literal* out);

// Threads one product may use now: the CPUs this process may run on,
// divided among the interpreter's device threads running at the moment.
int DenseKernelThreads();
// Fixes the count (0: back to automatic); for tests.
void SetDenseKernelThreadsForTesting(int threads);

// While alive, `devices` interpreter threads count as running (RunModule
// holds one across its device threads so that a mesh does not ask for more
// threads than there are CPUs).
class RunningDevices {
 public:
  explicit RunningDevices(int64_t devices);
  ~RunningDevices();
  RunningDevices(const RunningDevices&) = delete;
  RunningDevices& operator=(const RunningDevices&) = delete;

 private:
  int64_t devices_;
};

}  // namespace eval
}  // namespace hopt

#endif  // HOPT_CORE_EVAL_DENSE_KERNELS_H_

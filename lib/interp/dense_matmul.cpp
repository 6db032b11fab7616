// The matmul inner loops of dense_ops.h, compiled once per vector width
// the machine may have (GCC's target_clones: the loader picks the widest
// the CPU runs). The numerics check evaluates the input at full size four
// times in f32 and four in f64, and these loops were most of it (QKNorm+GQA:
// 0.67 s after the search). AVX-512F has fused multiply-adds, so this
// file is compiled with -ffp-contract=off (CMakeLists.txt): every clone
// multiplies, rounds and adds each product as the portable loop does, and
// the results are the same bits (operators_test, "matmul rounds each
// product and sum as the portable loop does").
#include "dense_matmul.h"

#include <algorithm>

namespace mirage::interp::dense {
namespace {

template <typename T>
inline __attribute__((always_inline)) void rowBlocks(const T* A, const T* B, T* C, int64_t m, int64_t k, int64_t n,
                                                     int64_t block) {
  for (int64_t i0 = 0; i0 < m; i0 += block) {
    const int64_t i1 = std::min(m, i0 + block);
    for (int64_t p = 0; p < k; ++p) {
      const T* __restrict r = B + p * n;
      for (int64_t i = i0; i < i1; ++i) {
        T* __restrict c = C + i * n;  // the result never aliases an operand
        const T x = A[i * k + p];
        for (int64_t j = 0; j < n; ++j) c[j] += x * r[j];
      }
    }
  }
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void matmulRowBlocks(const float* A, const float* B,
                                                                                  float* C, int64_t m, int64_t k,
                                                                                  int64_t n, int64_t block) {
  rowBlocks(A, B, C, m, k, n, block);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void matmulRowBlocks(const double* A, const double* B,
                                                                                  double* C, int64_t m, int64_t k,
                                                                                  int64_t n, int64_t block) {
  rowBlocks(A, B, C, m, k, n, block);
}

}  // namespace mirage::interp::dense

// C[i, :] += A[i, p] * B[p, :] for one matrix of a matmul, rows of C in
// blocks of `block` (dense_ops.h); one definition per element type, each
// compiled for several vector widths (dense_matmul.cpp).
#pragma once

#include <cstdint>

namespace mirage::interp::dense {

void matmulRowBlocks(const float* A, const float* B, float* C, int64_t m, int64_t k, int64_t n, int64_t block);
void matmulRowBlocks(const double* A, const double* B, double* C, int64_t m, int64_t k, int64_t n, int64_t block);

}  // namespace mirage::interp::dense

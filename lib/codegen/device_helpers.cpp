// The device helpers emitted into every generated file. Kept as one raw
// string so that what the file contains is visible in one place.
#include "device_helpers.h"

namespace mirage::codegen {

const std::string& devicePreamble() {
  static const std::string text = R"CUDA(
#if defined(MIRAGE_HOST_SHIM)
// Built for the host: blocks and threads are emulated by the shim.
#include "mirage_host_shim.h"
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#include <stddef.h>
#endif
#define MG_DYNAMIC_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#define MG_LAUNCH(kernel, grid, block, smem, stream, ...) \
  kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)

// D = A * B + D on tensor cores: one m16n8k16 tile per warp, f32 accumulate.
__device__ __forceinline__ void mg_mma_m16n8k16_f16(float* d, const unsigned* a, const unsigned* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mg_mma_m16n8k16_bf16(float* d, const unsigned* a, const unsigned* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The B fragment of m16n8k16 from a row-major k x n tile in shared memory:
// lanes 0-15 give the addresses of rows k0 .. k0+15 (8 columns, 16 bytes
// each); .trans hands each lane the column pairs the fragment needs.
__device__ __forceinline__ void mg_ldmatrix_x2_trans(unsigned* r, const unsigned short* row) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(s));
}

// 16-byte copy from device memory into shared memory: cp.async on sm_80+
// (completed by mg_copy16_wait), a 128-bit load and store before.
__device__ __forceinline__ void mg_copy16(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#else
  *reinterpret_cast<uint4*>(smem) = *reinterpret_cast<const uint4*>(gmem);
#endif
}
// One 16-byte store of a vector staged in registers.
__device__ __forceinline__ void mg_store16(void* dst, const void* src) {
  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
}
__device__ __forceinline__ void mg_copy16_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::);
#endif
}
// Double buffering: close the group of copies issued so far; wait until at
// most the newest group is still in flight.
__device__ __forceinline__ void mg_cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
__device__ __forceinline__ void mg_cp_async_wait_1() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 1;\n" ::);
#endif
}
#endif  // MIRAGE_HOST_SHIM

__device__ __forceinline__ float mg_f32(__half x) { return __half2float(x); }
__device__ __forceinline__ float mg_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float mg_f32(float x) { return x; }
__device__ __forceinline__ void mg_store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void mg_store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void mg_store(float* p, float v) { *p = v; }
__device__ __forceinline__ float mg_neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float mg_pos_inf() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ float mg_nan() { return __int_as_float(0x7fc00000); }
// Two 16-bit values as one 32-bit fragment register, the first in the low half.
__device__ __forceinline__ unsigned mg_pack2(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

// Two adjacent 16-bit values (4-byte aligned) as one fragment register.
__device__ __forceinline__ unsigned mg_ld2(const unsigned short* p) {
#if defined(MIRAGE_HOST_SHIM)
  return mg_pack2(p[0], p[1]);
#else
  return *reinterpret_cast<const unsigned*>(p);
#endif
}

__device__ __forceinline__ float mg_exp(float x) { return expf(x); }
__device__ __forceinline__ float mg_square(float x) { return x * x; }
__device__ __forceinline__ float mg_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ float mg_rsqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ float mg_silu(float x) { return x / (1.0f + expf(-x)); }
__device__ __forceinline__ float mg_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float mg_relu(float x) { return x < 0.0f ? 0.0f : x; }  // NaN stays NaN
// The larger of a and b; NaN wins, as in NumPy (fmaxf would drop it).
__device__ __forceinline__ float mg_max(float a, float b) { return (b > a || b != b) ? b : a; }
__device__ __forceinline__ float mg_min(float a, float b) { return (b < a || b != b) ? b : a; }
__device__ __forceinline__ float mg_neg(float x) { return -x; }
__device__ __forceinline__ float mg_abs(float x) { return fabsf(x); }
__device__ __forceinline__ float mg_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ float mg_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ float mg_log(float x) { return logf(x); }

// Butterfly reductions over the 32 lanes of a warp; every lane gets the result.
__device__ __forceinline__ float mg_warp_sum(float v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}
__device__ __forceinline__ float mg_warp_max(float v) {
  for (int m = 16; m > 0; m >>= 1) v = mg_max(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}
)CUDA";
  return text;
}

const std::string& hopperPreamble() {
  static const std::string text = R"CUDA(
// ---- Hopper (sm_90+): TMA bulk copies completed on mbarriers ----
// MG_HOPPER_PATH picks, inside the kernels, the TMA pipeline (sm_90+ devices,
// and the host shim, which emulates it) or the same stages filled by cp.async
// (sm_80 to sm_89, and nvcc's host pass). Defining it beforehand forces a branch.
#if !defined(MG_HOPPER_PATH)
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900) || defined(MIRAGE_HOST_SHIM)
#define MG_HOPPER_PATH 1
#else
#define MG_HOPPER_PATH 0
#endif
#endif

#if !defined(MIRAGE_HOST_SHIM)
__device__ __forceinline__ unsigned mg_smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// An mbarrier that completes a phase after `count` arrivals and once the
// bytes announced by arrive.expect_tx have landed; starts in phase 0.
__device__ __forceinline__ void mg_mbarrier_init(unsigned long long* bar, unsigned count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(mg_smem_u32(bar)), "r"(count) : "memory");
#else
  __trap();  // only MG_HOPPER_PATH code calls it
#endif
}
// Makes initialised mbarriers visible to the async proxy (the bulk copies'
// complete_tx) before any copy is issued.
__device__ __forceinline__ void mg_fence_mbarrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
// Orders this block's earlier shared-memory accesses (generic proxy) before
// the bulk copies issued next (async proxy): a stage is refilled only after
// every thread has read it (a __syncthreads() precedes the fence).
__device__ __forceinline__ void mg_fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
// One arrival, announcing `bytes` that bulk copies will complete in this phase.
__device__ __forceinline__ void mg_mbarrier_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(mg_smem_u32(bar)),
               "r"(bytes)
               : "memory");
#else
  __trap();
#endif
}
// TMA bulk copy of `bytes` (a multiple of 16; both addresses 16-byte aligned)
// from device memory into this block's shared memory; on arrival the bytes
// are counted off the mbarrier's transaction count.
__device__ __forceinline__ void mg_bulk_copy_g2s(void* smem, const void* gmem, unsigned bytes,
                                                 unsigned long long* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   mg_smem_u32(smem)),
               "l"(gmem), "r"(bytes), "r"(mg_smem_u32(bar))
               : "memory");
#else
  __trap();
#endif
}
// Waits until the phase of parity `parity` has completed (the barrier has
// moved past it); acquire: the copies' bytes are visible afterwards.
__device__ __forceinline__ void mg_mbarrier_wait_parity(unsigned long long* bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(mg_smem_u32(bar)), "r"(parity)
        : "memory");
#else
  __trap();
#endif
}
// The N-stage cp.async pipeline below sm_90: wait until at most N commit
// groups are still in flight.
template <int N>
__device__ __forceinline__ void mg_cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}
#endif  // !MIRAGE_HOST_SHIM
)CUDA";
  return text;
}

}  // namespace mirage::codegen

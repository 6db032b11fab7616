// A stand-in for libcuda.so.1 that the backend tests load instead of the real
// driver, so the GPU path (loading, launching, argument marshalling, timing,
// fault handling) is exercised on machines without a GPU. "Device memory" is
// host memory; three kernels are simulated by name:
//   mirage_copy(src, dst)      copies as many bytes as both buffers hold
//   mirage_sub(a, b, out)      out = a - b on floats (checks argument order)
//   mirage_fault()             the launch succeeds, the next synchronize faults
//   mirage_empty()             does nothing
//   mirage_too_big()           the launch fails with LAUNCH_OUT_OF_RESOURCES
// Events report the elapsed time set with fake_cuda_set_elapsed_ms. Built with
// FAKE_CUDA_NO_DEVICE it is a driver that finds no device.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kNotFound = 500;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kOutOfResources = 701;

struct Function {
  std::string name;
};

std::map<CUdeviceptr, size_t> allocations;
int launches = 0;
unsigned lastGrid[3], lastBlock[3], lastShared = 0;
float elapsedMs = 1.0f;
bool pendingFault = false;
bool sticky = false;
int attributeFailures = 0;

// The allocation holding p, and how many bytes of it lie at or after p.
size_t bytesFrom(CUdeviceptr p) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin()) return 0;
  --it;
  if (p >= it->first + it->second) return 0;
  return it->first + it->second - p;
}

CUdeviceptr arg(void** params, int i) { return *static_cast<CUdeviceptr*>(params[i]); }

}  // namespace

extern "C" {

// Test controls.
void fake_cuda_set_elapsed_ms(float ms) { elapsedMs = ms; }
int fake_cuda_launch_count() { return launches; }
int fake_cuda_live_allocations() { return static_cast<int>(allocations.size()); }
void fake_cuda_last_launch(unsigned* grid, unsigned* block, unsigned* shared) {
  std::copy(std::begin(lastGrid), std::end(lastGrid), grid);
  std::copy(std::begin(lastBlock), std::end(lastBlock), block);
  *shared = lastShared;
}
void fake_cuda_reset() {
  launches = 0;
  pendingFault = false;
  sticky = false;
  elapsedMs = 1.0f;
}

CUresult cuInit(unsigned) {
#ifdef FAKE_CUDA_NO_DEVICE
  return kNoDevice;
#else
  return kSuccess;
#endif
}
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  return kSuccess;
}
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int* d, int ordinal) {
  if (ordinal != 0) return kInvalidValue;
  *d = 0;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "Fake H200", static_cast<size_t>(len));
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int* v, int which, int) {
  switch (which) {
    case 13: *v = 1980000; break;       // clock, kHz
    case 16: *v = 132; break;           // SMs
    case 36: *v = 2619000; break;       // memory clock, kHz
    case 37: *v = 6144; break;          // bus width, bits
    case 38: *v = 1 << 20; break;       // L2 (small, keeps the flush buffer small)
    case 39: *v = 2048; break;
    case 75: *v = 9; break;
    case 76: *v = 0; break;
    case 81: *v = 233472; break;
    case 82: *v = 65536; break;
    case 97: *v = 232448; break;
    default: ++attributeFailures; return kInvalidValue;
  }
  return kSuccess;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
  *bytes = size_t{141} << 30;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) {
  static int context;
  *ctx = &context;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxSetCurrent(void*) { return kSuccess; }
CUresult cuModuleLoadData(void** module, const void* image) {
  const char* text = static_cast<const char*>(image);
  if (!text || std::strncmp(text, "bad", 3) == 0) return kInvalidImage;
  static int moduleObject;
  *module = &moduleObject;
  return kSuccess;
}
CUresult cuModuleUnload(void*) { return kSuccess; }
CUresult cuModuleGetFunction(void** f, void*, const char* name) {
  static Function copy{"mirage_copy"}, sub{"mirage_sub"}, fault{"mirage_fault"}, empty{"mirage_empty"},
      tooBig{"mirage_too_big"};
  for (Function* fn : {&copy, &sub, &fault, &empty, &tooBig})
    if (fn->name == name) {
      *f = fn;
      return kSuccess;
    }
  return kNotFound;
}
CUresult cuFuncSetAttribute(void*, int attr, int value) {
  return attr == 8 && value <= 232448 ? kSuccess : kInvalidValue;
}
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void*, void** params, void**) {
  if (sticky) return kIllegalAddress;
  if (static_cast<Function*>(f)->name == "mirage_too_big") return kOutOfResources;
  ++launches;
  lastGrid[0] = gx, lastGrid[1] = gy, lastGrid[2] = gz;
  lastBlock[0] = bx, lastBlock[1] = by, lastBlock[2] = bz;
  lastShared = shared;
  const std::string& name = static_cast<Function*>(f)->name;
  if (name == "mirage_copy") {
    CUdeviceptr src = arg(params, 0), dst = arg(params, 1);
    std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src),
                std::min(bytesFrom(src), bytesFrom(dst)));
  } else if (name == "mirage_sub") {
    auto* a = reinterpret_cast<const float*>(arg(params, 0));
    auto* b = reinterpret_cast<const float*>(arg(params, 1));
    auto* out = reinterpret_cast<float*>(arg(params, 2));
    size_t n = bytesFrom(arg(params, 2)) / sizeof(float);
    for (size_t i = 0; i < n; ++i) out[i] = a[i] - b[i];
  } else if (name == "mirage_fault") {
    pendingFault = true;
  }
  return kSuccess;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t size) {
  void* m = std::malloc(size);
  if (!m) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  *p = reinterpret_cast<CUdeviceptr>(m);
  allocations[*p] = size;
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  if (!allocations.erase(p)) return kInvalidValue;
  std::free(reinterpret_cast<void*>(p));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  if (bytesFrom(dst) < n) return kInvalidValue;
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  if (sticky) return kIllegalAddress;
  if (bytesFrom(src) < n) return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<void*>(src), n);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void*) {
  if (bytesFrom(dst) < n || bytesFrom(src) < n) return kInvalidValue;
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), n);
  return kSuccess;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void*) {
  if (bytesFrom(p) < n) return kInvalidValue;
  std::memset(reinterpret_cast<void*>(p), v, n);
  return kSuccess;
}
CUresult cuStreamCreate(void** s, unsigned) {
  static int stream;
  *s = &stream;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void*) { return kSuccess; }
static CUresult synchronize() {
  if (pendingFault) {
    pendingFault = false;
    sticky = true;
  }
  return sticky ? kIllegalAddress : kSuccess;
}
CUresult cuStreamSynchronize(void*) { return synchronize(); }
CUresult cuEventCreate(void** e, unsigned) {
  *e = new int(0);
  return kSuccess;
}
CUresult cuEventDestroy_v2(void* e) {
  delete static_cast<int*>(e);
  return kSuccess;
}
CUresult cuEventRecord(void*, void*) { return sticky ? kIllegalAddress : kSuccess; }
CUresult cuEventSynchronize(void*) { return synchronize(); }
CUresult cuEventElapsedTime(float* ms, void*, void*) {
  *ms = elapsedMs;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case kNoDevice: *s = "CUDA_ERROR_NO_DEVICE"; return kSuccess;
    case kInvalidImage: *s = "CUDA_ERROR_INVALID_IMAGE"; return kSuccess;
    case kNotFound: *s = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
    case kIllegalAddress: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return kSuccess;
    case kOutOfResources: *s = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return kSuccess;
    case kInvalidValue: *s = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
    default: *s = nullptr; return kInvalidValue;
  }
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  switch (r) {
    case kNoDevice: *s = "no CUDA-capable device is detected"; return kSuccess;
    case kIllegalAddress: *s = "an illegal memory access was encountered"; return kSuccess;
    default: *s = "fake error"; return kSuccess;
  }
}

}  // extern "C"

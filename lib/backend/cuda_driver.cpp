// Resolving the CUDA driver API with dlopen/dlsym.
#include "cuda_driver.h"

#include <dlfcn.h>

#include <memory>

#include <fmt/format.h>

namespace mirage::backend {

namespace {

// Binds `*slot` to the symbol `name` (the versioned name cuda.h's macros
// select, e.g. cuMemAlloc_v2). False when missing.
template <typename Fn>
bool bind(void* handle, const char* name, Fn* slot, std::string* missing) {
  void* symbol = dlsym(handle, name);
  if (!symbol) {
    if (missing->empty()) *missing = name;
    return false;
  }
  *slot = reinterpret_cast<Fn>(symbol);
  return true;
}

}  // namespace

std::unique_ptr<CudaDriver> CudaDriver::load(const std::string& library, std::string* whyNot) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    *whyNot = fmt::format("cannot load the CUDA driver ({}): {}", library,
                          err ? err : "unknown error");
    return nullptr;
  }
  std::unique_ptr<CudaDriver> d(new CudaDriver());
  d->handle_ = handle;
  std::string missing;
  bool ok = true;
  ok &= bind(handle, "cuInit", &d->cuInit, &missing);
  ok &= bind(handle, "cuDriverGetVersion", &d->cuDriverGetVersion, &missing);
  ok &= bind(handle, "cuDeviceGetCount", &d->cuDeviceGetCount, &missing);
  ok &= bind(handle, "cuDeviceGet", &d->cuDeviceGet, &missing);
  ok &= bind(handle, "cuDeviceGetName", &d->cuDeviceGetName, &missing);
  ok &= bind(handle, "cuDeviceGetAttribute", &d->cuDeviceGetAttribute, &missing);
  ok &= bind(handle, "cuDeviceTotalMem_v2", &d->cuDeviceTotalMem, &missing);
  ok &= bind(handle, "cuDevicePrimaryCtxRetain", &d->cuDevicePrimaryCtxRetain, &missing);
  ok &= bind(handle, "cuDevicePrimaryCtxRelease_v2", &d->cuDevicePrimaryCtxRelease, &missing);
  ok &= bind(handle, "cuCtxSetCurrent", &d->cuCtxSetCurrent, &missing);
  ok &= bind(handle, "cuModuleLoadData", &d->cuModuleLoadData, &missing);
  ok &= bind(handle, "cuModuleUnload", &d->cuModuleUnload, &missing);
  ok &= bind(handle, "cuModuleGetFunction", &d->cuModuleGetFunction, &missing);
  ok &= bind(handle, "cuFuncSetAttribute", &d->cuFuncSetAttribute, &missing);
  ok &= bind(handle, "cuLaunchKernel", &d->cuLaunchKernel, &missing);
  ok &= bind(handle, "cuMemAlloc_v2", &d->cuMemAlloc, &missing);
  ok &= bind(handle, "cuMemFree_v2", &d->cuMemFree, &missing);
  ok &= bind(handle, "cuMemcpyHtoD_v2", &d->cuMemcpyHtoD, &missing);
  ok &= bind(handle, "cuMemcpyDtoH_v2", &d->cuMemcpyDtoH, &missing);
  ok &= bind(handle, "cuMemcpyDtoDAsync_v2", &d->cuMemcpyDtoDAsync, &missing);
  ok &= bind(handle, "cuMemsetD8Async", &d->cuMemsetD8Async, &missing);
  ok &= bind(handle, "cuStreamCreate", &d->cuStreamCreate, &missing);
  ok &= bind(handle, "cuStreamDestroy_v2", &d->cuStreamDestroy, &missing);
  ok &= bind(handle, "cuStreamSynchronize", &d->cuStreamSynchronize, &missing);
  ok &= bind(handle, "cuEventCreate", &d->cuEventCreate, &missing);
  ok &= bind(handle, "cuEventDestroy_v2", &d->cuEventDestroy, &missing);
  ok &= bind(handle, "cuEventRecord", &d->cuEventRecord, &missing);
  ok &= bind(handle, "cuEventSynchronize", &d->cuEventSynchronize, &missing);
  ok &= bind(handle, "cuEventElapsedTime", &d->cuEventElapsedTime, &missing);
  ok &= bind(handle, "cuGetErrorName", &d->cuGetErrorName, &missing);
  ok &= bind(handle, "cuGetErrorString", &d->cuGetErrorString, &missing);
  if (!ok) {
    *whyNot = fmt::format("the CUDA driver ({}) lacks {}: it is too old or not a CUDA driver",
                          library, missing);
    return nullptr;  // the destructor closes the handle
  }
  return d;
}

CudaDriver::~CudaDriver() {
  if (handle_) dlclose(handle_);
}

std::string CudaDriver::errorText(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  return fmt::format("{} ({})", name ? name : fmt::format("CUDA error {}", r),
                     text ? text : "no description");
}

}  // namespace mirage::backend

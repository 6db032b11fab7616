// Running and timing launch plans through the dlopen'ed CUDA driver.
#include "mirage/backend/gpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "cuda_driver.h"

namespace mirage::backend {

namespace {

constexpr std::string_view kNoGpu = "no usable GPU: ";
constexpr uint32_t kDefaultDynamicSharedLimit = 48 * 1024;

// IEEE binary16 bits of a float, round to nearest even (finite, small inputs).
uint16_t floatToHalfBits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exponent = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent <= 0) {  // subnormal or zero in half
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

uint16_t floatToBf16Bits(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// Deterministic values in [-0.5, 0.5): timing inputs that keep exp() and
// divisions finite.
std::vector<uint8_t> timingInput(const PlanBuffer& buffer, uint32_t seed) {
  const int64_t n = ir::numElements(buffer.shape);
  std::vector<uint8_t> bytes(static_cast<size_t>(buffer.bytes()));
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
    const size_t at = static_cast<size_t>(i) * static_cast<size_t>(ir::dtypeBytes(buffer.dtype));
    if (buffer.dtype == ir::DType::F32) {
      std::memcpy(&bytes[at], &v, 4);
    } else {
      const uint16_t h = buffer.dtype == ir::DType::F16 ? floatToHalfBits(v) : floatToBf16Bits(v);
      std::memcpy(&bytes[at], &h, 2);
    }
  }
  return bytes;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

// Device memory owned for the length of one run or timing.
struct DeviceMemory {
  CudaDriver* driver = nullptr;
  CUdeviceptr ptr = 0;
  size_t size = 0;
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() {
    if (ptr) driver->cuMemFree(ptr);
  }
};

struct Gpu::Prepared {
  CudaDriver* driver = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;  // one per plan launch
  std::vector<std::unique_ptr<DeviceMemory>> inputs, outputs;
  std::unique_ptr<DeviceMemory> workspace;
  // Per launch: the pointer values and the array of their addresses
  // cuLaunchKernel reads.
  std::vector<std::vector<CUdeviceptr>> argValues;
  std::vector<std::vector<void*>> argPointers;
  std::vector<std::pair<CUdeviceptr, CUdeviceptr>> copies;  // (destination, source) per plan copy
  const LaunchPlan* plan = nullptr;
  ~Prepared() {
    // Buffers first, then the module, all in the still-current context.
    inputs.clear();
    outputs.clear();
    workspace.reset();
    if (module) driver->cuModuleUnload(module);
  }
};

std::string defaultDriverLibrary() {
  const char* env = std::getenv("MIRAGE_CUDA_DRIVER");
  return env && *env ? std::string(env) : std::string("libcuda.so.1");
}

std::string DeviceProps::archString() const { return fmt::format("sm_{}", smArch); }

double DeviceProps::peakBandwidthGBs() const {
  // Double data rate: two transfers per memory clock over the whole bus.
  return 2.0 * memoryClockKHz * 1e3 * (memoryBusWidthBits / 8.0) / 1e9;
}

Gpu::Gpu() = default;

Gpu::~Gpu() {
  if (!driver_) return;
  if (context_) driver_->cuCtxSetCurrent(static_cast<CUcontext>(context_));
  if (stream_) driver_->cuStreamDestroy(static_cast<CUstream>(stream_));
  if (context_) driver_->cuDevicePrimaryCtxRelease(device_);
}

std::unique_ptr<Gpu> Gpu::open(std::string* whyNot, int ordinal, const std::string& driverLibrary) {
  std::string reason;
  std::unique_ptr<CudaDriver> driver = CudaDriver::load(driverLibrary, &reason);
  if (!driver) {
    *whyNot = std::string(kNoGpu) + reason;
    return nullptr;
  }
  CudaDriver& d = *driver;
  auto fail = [&](const std::string& what) {
    *whyNot = std::string(kNoGpu) + what;
    return nullptr;
  };
  if (CUresult r = d.cuInit(0); r != kCudaSuccess)
    return fail(fmt::format("cuInit failed: {}", d.errorText(r)));
  int count = 0;
  if (CUresult r = d.cuDeviceGetCount(&count); r != kCudaSuccess)
    return fail(fmt::format("cuDeviceGetCount failed: {}", d.errorText(r)));
  if (count == 0) return fail("the CUDA driver sees no device");
  if (ordinal < 0 || ordinal >= count)
    return fail(fmt::format("device {} was asked for, the driver sees {}", ordinal, count));

  std::unique_ptr<Gpu> gpu(new Gpu());
  CUdevice device = 0;
  if (CUresult r = d.cuDeviceGet(&device, ordinal); r != kCudaSuccess)
    return fail(fmt::format("cuDeviceGet({}) failed: {}", ordinal, d.errorText(r)));
  gpu->device_ = device;
  DeviceProps& p = gpu->props_;
  p.ordinal = ordinal;
  char name[256] = {};
  if (d.cuDeviceGetName(name, sizeof name - 1, device) == kCudaSuccess) p.name = name;
  auto attr = [&](int which) {
    int v = 0;
    return d.cuDeviceGetAttribute(&v, which, device) == kCudaSuccess ? v : 0;
  };
  p.smArch = attr(kAttrComputeCapabilityMajor) * 10 + attr(kAttrComputeCapabilityMinor);
  p.numSMs = attr(kAttrMultiprocessorCount);
  p.clockKHz = attr(kAttrClockRate);
  p.memoryClockKHz = attr(kAttrMemoryClockRate);
  p.memoryBusWidthBits = attr(kAttrGlobalMemoryBusWidth);
  p.l2Bytes = attr(kAttrL2CacheSize);
  p.maxThreadsPerSM = attr(kAttrMaxThreadsPerMultiprocessor);
  p.smemBytesPerSM = attr(kAttrMaxSharedMemoryPerMultiprocessor);
  p.smemBytesPerBlockOptin = attr(kAttrMaxSharedMemoryPerBlockOptin);
  p.regsPerSM = attr(kAttrMaxRegistersPerMultiprocessor);
  size_t total = 0;
  if (d.cuDeviceTotalMem(&total, device) == kCudaSuccess) p.totalMemoryBytes = static_cast<int64_t>(total);
  d.cuDriverGetVersion(&p.driverVersion);
  if (p.smArch < 80)
    return fail(fmt::format("{} is sm_{}; generated kernels need sm_80 or newer", p.name, p.smArch));

  CUcontext context = nullptr;
  if (CUresult r = d.cuDevicePrimaryCtxRetain(&context, device); r != kCudaSuccess)
    return fail(fmt::format("cannot create a context on {}: {}", p.name, d.errorText(r)));
  gpu->context_ = context;
  gpu->driver_ = std::move(driver);  // from here on the destructor releases the context
  CudaDriver& dd = *gpu->driver_;
  if (CUresult r = dd.cuCtxSetCurrent(context); r != kCudaSuccess)
    return fail(fmt::format("cuCtxSetCurrent failed: {}", dd.errorText(r)));
  CUstream stream = nullptr;
  // A blocking stream: it waits for the legacy default stream, where the
  // synchronous cuMemcpyHtoD copies from pageable memory run.
  if (CUresult r = dd.cuStreamCreate(&stream, 0); r != kCudaSuccess)
    return fail(fmt::format("cannot create a stream: {}", dd.errorText(r)));
  gpu->stream_ = stream;
  return gpu;
}

ArchSpec Gpu::archSpec() const {
  const DeviceProps& p = props_;
  ArchSpec a;
  if (p.smArch >= 90)
    a = (p.name.find("H200") != std::string::npos || p.totalMemoryBytes > (int64_t{100} << 30))
            ? h200Spec()
            : h100Spec();
  else
    a = a100Spec();
  const bool sameFamily = p.name.find("A100") != std::string::npos ||
                          p.name.find("H100") != std::string::npos ||
                          p.name.find("H200") != std::string::npos;
  a.name = p.name;
  a.smArch = p.smArch;
  // Peak rates scale with SMs x clock from the family's figures.
  const double clockGHz = p.clockKHz > 0 ? p.clockKHz / 1e6 : a.clockGHz;
  const double scale = (static_cast<double>(p.numSMs) * clockGHz) / (a.numSMs * a.clockGHz);
  if (p.numSMs > 0) {
    a.tensorTflops *= scale;
    a.fp32Tflops *= scale;
    a.l2BandwidthGBs *= scale;
    a.numSMs = p.numSMs;
    a.clockGHz = clockGHz;
  }
  // The driver's memory clock understates HBM3e; keep the datasheet figure
  // for the known parts, measure the others.
  const double measured = p.peakBandwidthGBs();
  if (!sameFamily && measured > 0) a.dramBandwidthGBs = measured;
  else a.dramBandwidthGBs = std::max(a.dramBandwidthGBs, measured);
  if (p.l2Bytes > 0) a.l2Bytes = p.l2Bytes;
  if (p.smemBytesPerSM > 0) a.smemBytesPerSM = p.smemBytesPerSM;
  if (p.smemBytesPerBlockOptin > 0) a.smemBytesPerBlock = p.smemBytesPerBlockOptin;
  if (p.regsPerSM > 0) a.regsPerSM = p.regsPerSM;
  if (p.maxThreadsPerSM > 0) a.maxThreadsPerSM = p.maxThreadsPerSM;
  return a;
}

bool Gpu::check(int result, const char* what, std::string* error) {
  if (result == kCudaSuccess) return true;
  *error = fmt::format("{} failed: {}", what, driver_->errorText(result));
  // Faults inside a kernel are sticky: the context is lost for the life of
  // the process. (cuda.h: ILLEGAL_ADDRESS 700, LAUNCH_TIMEOUT 702, ASSERT 710,
  // HARDWARE_STACK_ERROR 714, ILLEGAL_INSTRUCTION 715, MISALIGNED_ADDRESS 716,
  // INVALID_ADDRESS_SPACE 717, INVALID_PC 718, LAUNCH_FAILED 719; not
  // LAUNCH_OUT_OF_RESOURCES 701, a bad launch configuration.)
  switch (result) {
    case 700: case 702: case 710: case 714: case 715: case 716: case 717: case 718: case 719:
      broken_ = *error;
      break;
    default: break;
  }
  return false;
}

bool Gpu::prepare(const LaunchPlan& plan, const CompileResult& binary, Prepared* p,
                  std::string* error) {
  CudaDriver& d = *driver_;
  p->driver = &d;
  p->plan = &plan;
  // A plan of copies only needs no module (and its file may have no kernel).
  if (!plan.launches.empty()) {
    if (!loadKernels(plan, binary, p, error)) return false;
  }
  return allocateBuffers(plan, p, error);
}

bool Gpu::loadKernels(const LaunchPlan& plan, const CompileResult& binary, Prepared* p,
                      std::string* error) {
  CudaDriver& d = *driver_;
  if (!binary.ok) {
    *error = "the candidate did not compile: " + binary.error;
    return false;
  }
  const std::string& image = binary.cubin.empty() ? binary.ptx : binary.cubin;
  if (image.empty()) {
    *error = "the compile result holds neither a cubin nor PTX";
    return false;
  }
  // PTX must be NUL-terminated for the driver's JIT; a std::string is.
  if (!check(d.cuModuleLoadData(&p->module, image.c_str()), "cuModuleLoadData", error)) {
    p->module = nullptr;
    return false;
  }
  for (const PlanLaunch& launch : plan.launches) {
    auto lowered = binary.loweredNames.find(launch.kernel);
    const std::string& symbol =
        lowered != binary.loweredNames.end() ? lowered->second : launch.kernel;
    CUfunction f = nullptr;
    if (!check(d.cuModuleGetFunction(&f, p->module, symbol.c_str()),
               fmt::format("cuModuleGetFunction({})", launch.kernel).c_str(), error))
      return false;
    if (launch.sharedBytes > kDefaultDynamicSharedLimit &&
        !check(d.cuFuncSetAttribute(f, kFuncAttrMaxDynamicSharedBytes,
                                    static_cast<int>(launch.sharedBytes)),
               fmt::format("raising {}'s dynamic shared memory to {} bytes", launch.kernel,
                           launch.sharedBytes).c_str(),
               error))
      return false;
    p->functions.push_back(f);
  }
  return true;
}

bool Gpu::allocateBuffers(const LaunchPlan& plan, Prepared* p, std::string* error) {
  CudaDriver& d = *driver_;
  auto allocate = [&](int64_t bytes, std::unique_ptr<DeviceMemory>* out) {
    auto m = std::make_unique<DeviceMemory>();
    m->driver = &d;
    m->size = static_cast<size_t>(std::max<int64_t>(bytes, 1));
    if (!check(d.cuMemAlloc(&m->ptr, m->size), "cuMemAlloc", error)) {
      m->ptr = 0;
      *error += fmt::format(" ({} bytes)", m->size);
      return false;
    }
    *out = std::move(m);
    return true;
  };
  for (const PlanBuffer& b : plan.inputs) {
    p->inputs.emplace_back();
    if (!allocate(b.bytes(), &p->inputs.back())) return false;
  }
  for (const PlanBuffer& b : plan.outputs) {
    p->outputs.emplace_back();
    if (!allocate(b.bytes(), &p->outputs.back())) return false;
  }
  if (!allocate(plan.workspaceBytes, &p->workspace)) return false;
  auto address = [&](const PlanArg& a) -> CUdeviceptr {
    switch (a.kind) {
      case PlanArg::Kind::Input: return p->inputs[static_cast<size_t>(a.index)]->ptr + static_cast<CUdeviceptr>(a.offset);
      case PlanArg::Kind::Output: return p->outputs[static_cast<size_t>(a.index)]->ptr + static_cast<CUdeviceptr>(a.offset);
      case PlanArg::Kind::Workspace: return p->workspace->ptr + static_cast<CUdeviceptr>(a.offset);
    }
    return 0;
  };
  for (const PlanLaunch& launch : plan.launches) {
    std::vector<CUdeviceptr> values;
    for (const PlanArg& a : launch.args) values.push_back(address(a));
    p->argValues.push_back(std::move(values));
  }
  for (const PlanCopy& c : plan.copies) p->copies.emplace_back(address(c.destination), address(c.source));
  // Addresses are taken only once argValues stops growing.
  for (std::vector<CUdeviceptr>& values : p->argValues) {
    std::vector<void*> pointers;
    for (CUdeviceptr& v : values) pointers.push_back(&v);
    p->argPointers.push_back(std::move(pointers));
  }
  return true;
}

bool Gpu::launchAll(const Prepared& p, std::string* error) {
  CudaDriver& d = *driver_;
  for (size_t i = 0; i < p.plan->launches.size(); ++i) {
    const PlanLaunch& l = p.plan->launches[i];
    void** params = const_cast<void**>(p.argPointers[i].data());
    if (!check(d.cuLaunchKernel(p.functions[i], l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                l.block[1], l.block[2], l.sharedBytes,
                                static_cast<CUstream>(stream_), params, nullptr),
               fmt::format("cuLaunchKernel({})", l.kernel).c_str(), error))
      return false;
  }
  for (size_t i = 0; i < p.copies.size(); ++i)
    if (!check(d.cuMemcpyDtoDAsync(p.copies[i].first, p.copies[i].second,
                                   static_cast<size_t>(p.plan->copies[i].bytes),
                                   static_cast<CUstream>(stream_)),
               "cuMemcpyDtoDAsync", error))
      return false;
  return true;
}

RunResult Gpu::run(const LaunchPlan& plan, const CompileResult& binary,
                   const std::vector<std::vector<uint8_t>>& inputs) {
  RunResult result;
  if (!broken_.empty()) {
    result.error = "the GPU context is unusable after an earlier fault: " + broken_;
    return result;
  }
  if (inputs.size() != plan.inputs.size()) {
    result.error = fmt::format("{} input buffers given, the plan has {}", inputs.size(),
                               plan.inputs.size());
    return result;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (static_cast<int64_t>(inputs[i].size()) != plan.inputs[i].bytes()) {
      result.error = fmt::format("input {} ({}) has {} bytes, expected {}", i, plan.inputs[i].name,
                                 inputs[i].size(), plan.inputs[i].bytes());
      return result;
    }
  CudaDriver& d = *driver_;
  if (!check(d.cuCtxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent", &result.error))
    return result;
  Prepared p;
  if (!prepare(plan, binary, &p, &result.error)) return result;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty() &&
        !check(d.cuMemcpyHtoD(p.inputs[i]->ptr, inputs[i].data(), inputs[i].size()),
               "cuMemcpyHtoD", &result.error))
      return result;
  // Outputs start as NaN-like garbage (0xff bytes) so an unwritten element shows.
  for (auto& out : p.outputs)
    if (!check(d.cuMemsetD8Async(out->ptr, 0xff, out->size, static_cast<CUstream>(stream_)),
               "cuMemsetD8Async", &result.error))
      return result;
  if (!launchAll(p, &result.error)) return result;
  if (!check(d.cuStreamSynchronize(static_cast<CUstream>(stream_)), "running the kernels",
             &result.error))
    return result;
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    std::vector<uint8_t> host(static_cast<size_t>(plan.outputs[i].bytes()));
    if (!host.empty() &&
        !check(d.cuMemcpyDtoH(host.data(), p.outputs[i]->ptr, host.size()), "cuMemcpyDtoH",
               &result.error))
      return result;
    result.outputs.push_back(std::move(host));
  }
  result.ok = true;
  return result;
}

TimingResult Gpu::time(const LaunchPlan& plan, const CompileResult& binary,
                       const TimingOptions& options) {
  TimingResult result;
  if (!broken_.empty()) {
    result.error = "the GPU context is unusable after an earlier fault: " + broken_;
    return result;
  }
  CudaDriver& d = *driver_;
  CUstream stream = static_cast<CUstream>(stream_);
  if (!check(d.cuCtxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent", &result.error))
    return result;
  Prepared p;
  if (!prepare(plan, binary, &p, &result.error)) return result;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    std::vector<uint8_t> host = timingInput(plan.inputs[i], static_cast<uint32_t>(i + 1));
    if (!host.empty() && !check(d.cuMemcpyHtoD(p.inputs[i]->ptr, host.data(), host.size()),
                                "cuMemcpyHtoD", &result.error))
      return result;
  }
  // Writing a buffer twice the L2's size before each run evicts the inputs,
  // so every run reads them from device memory as a cold call would.
  DeviceMemory flush;
  flush.driver = &d;
  if (options.flushL2) {
    const int64_t l2 = props_.l2Bytes > 0 ? props_.l2Bytes : int64_t{64} << 20;
    flush.size = static_cast<size_t>(2 * l2);
    if (!check(d.cuMemAlloc(&flush.ptr, flush.size), "cuMemAlloc (L2 flush buffer)", &result.error)) {
      flush.ptr = 0;
      return result;
    }
  }
  struct Events {
    CudaDriver* d;
    CUevent start = nullptr, stop = nullptr;
    ~Events() {
      if (start) d->cuEventDestroy(start);
      if (stop) d->cuEventDestroy(stop);
    }
  } events{&d};
  if (!check(d.cuEventCreate(&events.start, 0), "cuEventCreate", &result.error) ||
      !check(d.cuEventCreate(&events.stop, 0), "cuEventCreate", &result.error))
    return result;

  for (int i = 0; i < options.warmupRuns; ++i)
    if (!launchAll(p, &result.error)) return result;
  if (!check(d.cuStreamSynchronize(stream), "the warm-up runs", &result.error)) return result;

  const auto begin = std::chrono::steady_clock::now();
  while (true) {
    if (flush.ptr && !check(d.cuMemsetD8Async(flush.ptr, static_cast<unsigned char>(result.runs),
                                              flush.size, stream),
                            "flushing L2", &result.error))
      return result;
    if (!check(d.cuEventRecord(events.start, stream), "cuEventRecord", &result.error) ||
        !launchAll(p, &result.error) ||
        !check(d.cuEventRecord(events.stop, stream), "cuEventRecord", &result.error) ||
        !check(d.cuEventSynchronize(events.stop), "a timed run", &result.error))
      return result;
    float ms = 0;
    if (!check(d.cuEventElapsedTime(&ms, events.start, events.stop), "cuEventElapsedTime",
               &result.error))
      return result;
    result.samplesUs.push_back(static_cast<double>(ms) * 1e3);
    ++result.runs;
    if (result.runs < options.minRuns) continue;
    const double median = percentile(result.samplesUs, 0.5);
    const double spread =
        (percentile(result.samplesUs, 0.75) - percentile(result.samplesUs, 0.25)) / median;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (spread < options.stableSpread || result.runs >= options.maxRuns ||
        seconds >= options.maxSeconds)
      break;
  }
  result.medianUs = percentile(result.samplesUs, 0.5);
  result.minUs = *std::min_element(result.samplesUs.begin(), result.samplesUs.end());
  result.maxUs = *std::max_element(result.samplesUs.begin(), result.samplesUs.end());
  const double bandwidth = archSpec().dramBandwidthGBs * 1e3;  // bytes per microsecond
  result.boundUs = static_cast<double>(plan.minimumBytes()) / bandwidth;
  if (result.medianUs < options.boundSlack * result.boundUs) {
    result.error = fmt::format(
        "measured {:.2f} us, below the physical bound of {:.2f} us ({} bytes at {:.0f} GB/s): "
        "a failed run, not a win",
        result.medianUs, result.boundUs, plan.minimumBytes(), bandwidth / 1e3);
    return result;
  }
  result.ok = true;
  return result;
}

TimingResult Gpu::timeEmptyLaunch(Compiler& compiler, const TimingOptions& options) {
  CompileRequest request;
  request.source = "extern \"C\" __global__ void mirage_empty() {}\n";
  request.arch = props_.archString();
  request.label = "the empty kernel";
  CompileResult binary = compiler.compile(request);
  LaunchPlan plan;
  PlanLaunch launch;
  launch.kernel = "mirage_empty";
  launch.block = {32, 1, 1};
  plan.launches = {launch};
  TimingOptions noFlush = options;
  noFlush.flushL2 = false;  // nothing to evict
  return time(plan, binary, noFlush);
}

GpuStatus probeGpu(int ordinal, const std::string& driverLibrary) {
  GpuStatus status;
  std::unique_ptr<Gpu> gpu = Gpu::open(&status.reason, ordinal, driverLibrary);
  if (!gpu) return status;
  status.usable = true;
  status.props = gpu->props();
  return status;
}

}  // namespace mirage::backend

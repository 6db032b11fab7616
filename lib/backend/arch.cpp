// Published GPU figures for the cost model; docs/cost-model.md cites them.
#include "mirage/backend/arch.h"

#include <algorithm>
#include <cctype>

namespace mirage::backend {

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

ArchSpec makeA100() {
  ArchSpec a;
  a.name = "A100-SXM4-80GB";
  a.smArch = 80;
  a.numSMs = 108;
  a.clockGHz = 1.41;
  a.dramBandwidthGBs = 2039;   // HBM2e
  a.l2BandwidthGBs = 5000;     // microbenchmarks, not a datasheet figure
  a.l2Bytes = 40 * kMiB;
  a.tensorTflops = 312;        // dense FP16/BF16, FP32 accumulate
  a.mmaSyncFraction = 1.0;     // mma.sync is Ampere's native tensor-core path
  a.fp32Tflops = 19.5;
  a.smemBytesPerClockPerSM = 128;
  a.smemBytesPerSM = 164 * kKiB;
  a.smemBytesPerBlock = 163 * kKiB;
  a.launchOverheadUs = 2.5;
  a.memLatencyUs = 0.6;
  return a;
}

ArchSpec makeH100() {
  ArchSpec a;
  a.name = "H100-SXM5-80GB";
  a.smArch = 90;
  a.numSMs = 132;
  a.clockGHz = 1.98;
  a.dramBandwidthGBs = 3350;   // HBM3
  a.l2BandwidthGBs = 10000;    // microbenchmarks, not a datasheet figure
  a.l2Bytes = 50 * kMiB;
  a.tensorTflops = 989;        // dense FP16/BF16, FP32 accumulate (wgmma)
  a.mmaSyncFraction = 0.6;     // the sm_80 instruction on Hopper; estimate
  a.fp32Tflops = 67;
  a.smemBytesPerClockPerSM = 128;
  a.smemBytesPerSM = 228 * kKiB;
  a.smemBytesPerBlock = 227 * kKiB;
  a.launchOverheadUs = 2.0;
  a.memLatencyUs = 0.6;
  return a;
}

ArchSpec makeH200() {
  ArchSpec a = makeH100();
  a.name = "H200-SXM-141GB";
  a.dramBandwidthGBs = 4800;   // HBM3e; compute as H100 SXM
  return a;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

const ArchSpec& a100Spec() {
  static const ArchSpec spec = makeA100();
  return spec;
}

const ArchSpec& h100Spec() {
  static const ArchSpec spec = makeH100();
  return spec;
}

const ArchSpec& h200Spec() {
  static const ArchSpec spec = makeH200();
  return spec;
}

std::optional<int> parseSmArch(std::string_view arch) {
  std::string_view digits;
  if (arch.starts_with("sm_"))
    digits = arch.substr(3);
  else if (arch.starts_with("compute_"))
    digits = arch.substr(8);
  else
    return std::nullopt;
  // Feature suffixes: sm_90a (arch-specific), sm_100f (family).
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
  int value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<ArchSpec> archSpecFor(std::string_view target) {
  std::string t = lower(target);
  if (t == "a100") return a100Spec();
  if (t == "h100") return h100Spec();
  if (t == "h200") return h200Spec();
  std::optional<int> sm = parseSmArch(t);
  if (!sm) return std::nullopt;
  if (*sm < 80) return std::nullopt;  // below the generator's minimum (cp.async, bf16 mma)
  if (*sm < 90) {
    ArchSpec a = a100Spec();
    a.smArch = *sm;
    return a;
  }
  ArchSpec a = h100Spec();
  a.smArch = *sm;
  return a;
}

}  // namespace mirage::backend

// The options the driver passes the search: the backend's cost model for
// sm_90 and its lower bounds (shared by the bound and schedule tests).
#pragma once

#include "mirage/backend/arch.h"
#include "mirage/backend/cost_model.h"
#include "mirage/driver/driver.h"
#include "mirage/search/search.h"

namespace mirage::test {

inline const backend::ArchSpec& h100() {
  static const backend::ArchSpec spec = *backend::archSpecFor("sm_90");
  return spec;
}

// The options the driver passes: the backend's model and its bounds.
inline search::Options modelOptions(double seconds, bool bound) {
  search::Options o;
  o.timeLimitSeconds = seconds;
  o.jobs = 2;
  o.cost = driver::modelCost(h100());
  if (bound) driver::setCostBounds(h100(), o);
  return o;
}

// Two programs whose spaces, within smallSpaceOptions' limits, a search
// explores whole in about a second (RMSNorm+Linear and a gated MLP at
// small shapes): the schedule and provisional-bound tests compare complete
// searches of them under different options.
inline constexpr const char* kSmallSpacePrograms[] = {
    "graph r { X = input f16[4, 256]\n W = input f16[256, 64]\n Y = matmul(rms_norm(X), W)\n output Y }",
    "graph m { X = input f16[8, 64]\n W1 = input f16[64, 128]\n W2 = input f16[64, 128]\n"
    " O = mul(silu(matmul(X, W1)), matmul(X, W2))\n output O }",
};

// The driver's options within limits small enough to explore whole.
inline search::Options smallSpaceOptions() {
  search::Options o = modelOptions(0, true);
  o.jobs = 2;
  o.limits.maxKernels = 2;
  o.limits.maxBlockOps = 6;
  o.limits.maxDiscrepancies = 2;
  return o;
}

}  // namespace mirage::test

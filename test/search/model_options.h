// The options the driver passes the search: the backend's cost model for
// sm_90 and its lower bounds (shared by the bound and schedule tests).
#pragma once

#include "mirage/backend/arch.h"
#include "mirage/backend/cost_model.h"
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
  o.cost = [](const ir::Graph& g) { return backend::estimateCost(g, h100()).totalUs; };
  if (bound) {
    o.kernelFloor = [](const search::KernelFloor& f) {
      backend::KernelFloor b;
      b.blocks = f.blocks;
      b.forloop = f.forloop;
      b.dramBytes = f.dramBytes;
      b.blockLoadBytes = f.blockLoadBytes;
      b.blockSmemBytes = f.blockSmemBytes;
      b.smemPerBlock = f.smemPerBlock;
      b.blockMatmulFlops = f.blockMatmulFlops;
      b.tensorCores = f.tensorCores;
      b.blockElements = f.blockElements;
      return backend::kernelFloorUs(b, h100());
    };
    o.launchesFloor = [](int n, double bytes) { return backend::launchesFloorUs(n, bytes, h100()); };
  }
  return o;
}

}  // namespace mirage::test

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

}  // namespace mirage::test

// The seen-set skips a state only where an earlier exploration had at least
// its budget in both operators and discrepancies left.
#include <catch2/catch.hpp>

#include "seen_states.h"

using mirage::search::SeenStates;

TEST_CASE("seen-set: a visit is skipped only under a budget that covers it", "[seen]") {
  SeenStates seen;
  CHECK(seen.visit(7, 5, 0));
  CHECK_FALSE(seen.visit(7, 5, 0));
  CHECK_FALSE(seen.visit(7, 4, 0));
  CHECK(seen.visit(7, 3, 1));  // more discrepancies: explored again
  CHECK_FALSE(seen.visit(7, 3, 1));
  CHECK_FALSE(seen.visit(7, 2, 1));
  // Neither (5, 0) nor (3, 1) explored (4, 1): merging them into (5, 1)
  // would skip it.
  CHECK(seen.visit(7, 4, 1));
  CHECK_FALSE(seen.visit(7, 3, 1));
  CHECK_FALSE(seen.visit(7, 5, 0));  // (5, 0) is still known
  CHECK(seen.visit(7, 6, 2));        // covers both
  CHECK_FALSE(seen.visit(7, 5, 1));
  CHECK(seen.visit(8, 1, 0));  // another state
}

TEST_CASE("seen-set: many states, each remembered", "[seen]") {
  SeenStates seen;
  for (uint64_t s = 0; s < 100000; ++s) CHECK(seen.visit(s * 0x9e3779b97f4a7c15ull, 3, 1));
  for (uint64_t s = 0; s < 100000; ++s) CHECK_FALSE(seen.visit(s * 0x9e3779b97f4a7c15ull, 3, 1));
  for (uint64_t s = 0; s < 100000; ++s) CHECK(seen.visit(s * 0x9e3779b97f4a7c15ull, 4, 1));
}

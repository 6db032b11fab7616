// The saturated-state table skips a state only where an earlier walk
// explored its whole subtree with at least as many operators left.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "saturated_states.h"

using mirage::search::SaturatedStates;

TEST_CASE("saturated states: covered only with no more operators left than explored", "[seen]") {
  SaturatedStates table;
  CHECK_FALSE(table.covers(7, 0));
  table.record(7, 4);
  CHECK(table.covers(7, 4));
  CHECK(table.covers(7, 2));
  CHECK_FALSE(table.covers(7, 5));  // a deeper subtree than was explored
  CHECK_FALSE(table.covers(8, 0));  // another state
  table.record(7, 3);               // a smaller walk forgets nothing
  CHECK(table.covers(7, 4));
  table.record(7, 6);
  CHECK(table.covers(7, 6));
}

TEST_CASE("saturated states: shared by threads", "[seen]") {
  SaturatedStates table;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t)
    threads.emplace_back([&table, t] {
      for (uint64_t s = 0; s < 20000; ++s) table.record((s * 4 + t) * 0x9e3779b97f4a7c15ull, 3);
    });
  for (std::thread& t : threads) t.join();
  for (uint64_t s = 0; s < 80000; ++s) CHECK(table.covers(s * 0x9e3779b97f4a7c15ull, 3));
}

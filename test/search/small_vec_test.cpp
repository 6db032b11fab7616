// Body values keep their dims inline (small_vec.h): it must behave as the
// std::vector it replaced wherever the search uses it, and refuse, not
// truncate, a dim past its capacity.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "small_vec.h"

using mirage::search::SmallVec;

TEST_CASE("small vector: the vector operations the body search uses", "[small_vec]") {
  SmallVec<long, 4> a = std::vector<long>{3, 1, 2};
  CHECK(a.size() == 3);
  CHECK(a[0] == 3);
  CHECK(a.back() == 2);
  CHECK(a == std::vector<long>{3, 1, 2});
  CHECK(a != std::vector<long>{3, 1});
  SmallVec<long, 4> b;
  b.assign(a.begin(), a.end() - 1);
  CHECK(b == std::vector<long>{3, 1});
  b.push_back(2);
  CHECK(a == b);
  b.assign(2, 7);
  CHECK(b == SmallVec<long, 4>{7, 7});
  CHECK(b.toVector() == std::vector<long>{7, 7});
  SmallVec<long, 4> empty;
  CHECK(empty.empty());
  CHECK(empty == std::vector<long>{});
}

TEST_CASE("small vector: a dim past its capacity throws", "[small_vec]") {
  SmallVec<int, 2> v{1, 2};
  CHECK_THROWS_AS(v.push_back(3), std::length_error);
  CHECK_THROWS_AS(v.assign(3, 0), std::length_error);
  CHECK(v == std::vector<int>{1, 2});
}

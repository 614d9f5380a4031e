// test/models/test_quantile.cpp — the type-7 quantile by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "models/quantile.h"

using ringsched::models::quantile;

TEST_CASE("models::quantile: linear between order statistics (type 7), by hand", "[models]") {
  const std::vector<double> v = {7.0, 1.0, 3.0, 5.0};  // sorted: 1 3 5 7
  CHECK(quantile(v, 0.0) == 1.0);
  CHECK(quantile(v, 1.0) == 7.0);
  CHECK(quantile(v, 0.5) == 4.0);          // position 1.5: 3 + 0.5 x 2
  CHECK(quantile(v, 0.9) == Approx(6.4));  // position 2.7: 5 + 0.7 x 2
  CHECK(quantile({2.5}, 0.95) == 2.5);     // one value
  CHECK(quantile({}, 0.5) == 0.0);         // none: 0
}

// test/models/test_scale_table.cpp — the scale_table speed kind by hand: measured counts, log2 interpolation, the
// ends, zero throughput, bad points.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "models/scale_table.h"

using ringsched::models::ScaleTableStepTime;

TEST_CASE("models::ScaleTableStepTime: measured counts, log2 interpolation and the ends, by hand", "[models]") {
  const ScaleTableStepTime t({{4, 30.0}, {1, 10.0}, {2, 16.0}});  // unsorted on purpose
  CHECK(t.step_seconds(1, 1, 7.0) == Approx(1.0 / 10.0));
  CHECK(t.step_seconds(2, 5, 7.0) == Approx(1.0 / 16.0));  // nodes and batch ignored
  CHECK(t.step_seconds(4, 1, 1.0) == Approx(1.0 / 30.0));
  // w = 3: log2 3 = 1.585 between 1 and 2: 16 + 0.585 x 14 = 24.19
  CHECK(1.0 / t.step_seconds(3, 1, 1.0) == Approx(16.0 + (std::log2(3.0) - 1.0) * 14.0));
  CHECK(1.0 / t.step_seconds(8, 1, 1.0) == Approx(30.0));  // above: no speedup past what was measured
  CHECK(t.measured(2) == 16.0);
  CHECK(t.measured(3) == 0.0);
  const ScaleTableStepTime from2({{2, 8.0}, {4, 12.0}});
  CHECK(1.0 / from2.step_seconds(1, 1, 1.0) == Approx(4.0));  // below: linear from the smallest count
  CHECK(t.kind() == "scale_table");
}

TEST_CASE("models::ScaleTableStepTime: zero throughput cannot run and bad points throw", "[models]") {
  const ScaleTableStepTime t({{1, 2.0}, {2, 0.0}, {4, 5.0}});
  CHECK(std::isinf(t.step_seconds(2, 1, 1.0)));
  CHECK(std::isinf(t.step_seconds(3, 1, 1.0)));  // next to a 0: cannot run
  CHECK(t.step_seconds(4, 1, 1.0) == Approx(0.2));
  CHECK_THROWS_AS(ScaleTableStepTime({}), std::invalid_argument);
  CHECK_THROWS_AS(ScaleTableStepTime({{0, 1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(ScaleTableStepTime({{1, -1.0}}), std::invalid_argument);
  CHECK_THROWS_AS(ScaleTableStepTime({{1, NAN}}), std::invalid_argument);
  CHECK_THROWS_WITH(ScaleTableStepTime({{2, 1.0}, {2, 3.0}}), Catch::Contains("GPU count 2 twice"));
}

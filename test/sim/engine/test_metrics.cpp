// test/sim/engine/test_metrics.cpp — the metric table: unique names, standard metrics in output order, access by name
// reads and writes the named field, unknown names fail.
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "sim/engine/metrics.h"

using namespace ringsched;

TEST_CASE("sim::Metrics: one table names every metric once, and access by name reads its field", "[sim][metrics]") {
  std::set<std::string> seen;
  for (const auto& m : metric_table()) {
    CHECK(seen.insert(m.name).second);
    CHECK(std::string(m.label).size() > 0);
    CHECK(m.display_scale > 0.0);
  }
  CHECK(metric_names() == std::vector<std::string>{"mean_jct_s", "median_jct_s", "p95_jct_s", "makespan_s",
                                                   "mean_queue_s", "gpu_utilisation", "restarts_per_job"});
  CHECK(metric_names().size() + extra_metric_names().size() == metric_table().size());
  RunMetrics r;
  r.p95_jct_s = 123.0;
  r.fragmentation = 0.25;
  CHECK(metric_value(r, "p95_jct_s") == 123.0);
  CHECK(metric_value(r, "fragmentation") == 0.25);
  set_metric_value(r, "makespan_s", 7.5);
  CHECK(r.makespan_s == 7.5);
  CHECK(metric_info("mean_queue_s").display_scale == Approx(1.0 / 60.0));  // seconds shown in minutes
  CHECK_THROWS_AS(metric_value(r, "mean_jct_minutes"), std::invalid_argument);
}

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
  // metric_names(): the standard rows in table order (the goldens pin the built-ins' order), mean JCT first.
  std::vector<std::string> standard;
  for (const auto& m : metric_table())
    if (m.standard) standard.emplace_back(m.name);
  CHECK(metric_names() == standard);
  CHECK(metric_names().front() == "mean_jct_s");
  CHECK(metric_names().size() + extra_metric_names().size() == metric_table().size());
  RunMetrics r;
  r.p95_jct_s = 123.0;
  r.fragmentation = 0.25;
  CHECK(metric_value(r, "p95_jct_s") == 123.0);
  CHECK(metric_value(r, "fragmentation") == 0.25);
  set_metric_value(r, "makespan_s", 7.5);
  CHECK(r.makespan_s == 7.5);
  // A metric without a RunMetrics field keeps its value by name.
  CHECK(metric_info("restarts_per_job").field == nullptr);
  set_metric_value(r, "restarts_per_job", 2.5);
  CHECK(r.computed.at("restarts_per_job") == 2.5);
  CHECK(metric_value(r, "restarts_per_job") == 2.5);
  CHECK(metric_info("mean_queue_s").display_scale == Approx(1.0 / 60.0));  // seconds shown in minutes
  CHECK_THROWS_AS(metric_value(r, "mean_jct_minutes"), std::invalid_argument);
}

TEST_CASE("sim::Metrics: a measurement window takes JCT, queueing and restarts over its jobs only", "[metrics]") {
  RunResult run;
  for (int i = 0; i < 4; ++i) {
    JobResult j;
    j.id = i;
    j.arrival = 10.0 * i;
    j.first_start = j.arrival + i;           // queue i
    j.finish = j.arrival + 100.0 * (i + 1);  // JCT 100, 200, 300, 400
    j.restarts = i;
    run.jobs.push_back(j);
  }
  run.first_arrival = 0.0;
  run.last_finish = 430.0;
  run.allocated_gpu_seconds = 430.0;
  const RunMetrics all = compute_metrics(run, 2);
  CHECK(all.jobs == 4);
  CHECK(all.mean_jct_s == 250.0);
  const RunMetrics mid = compute_metrics(run, 2, MeasureWindow{1, 3});
  CHECK(mid.jobs == 2);
  CHECK(mid.mean_jct_s == 250.0);  // (200 + 300) / 2
  CHECK(mid.mean_queue_s == 1.5);
  CHECK(metric_value(mid, "restarts_per_job") == 1.5);  // a metric that computes itself (restarts_metric.cpp)
  CHECK(mid.p95_jct_s == Approx(295.0));                // type 7 between 200 and 300
  CHECK(mid.makespan_s == all.makespan_s);              // the whole run
  CHECK(mid.gpu_utilisation == all.gpu_utilisation);    // the whole run
  const RunMetrics tail = compute_metrics(run, 2, MeasureWindow{3, -1});
  CHECK(tail.mean_jct_s == 400.0);
}

// test/sim/experiments/test_breakdown_metrics.cpp — the queueing and fairness metrics of issue 40 on four hand-made
// Philly jobs (test/fixtures/metrics/queue-cluster.json: one 4-GPU node, no restart cost), with every value worked by
// hand: queue_delay_mean/median/p95, rho, Jain's index, breakdown.csv's rows per user, VC and size, and series.csv's
// rows at interval boundaries under srtf (which preempts and resumes). The schedules, from the trace (submit s,
// duration s, GPUs): A 0 1000 x4 (u1, v1); B 50 500 x2 (u2, v1); C 200 200 x2 (u1, v2); D 300 60 x1 (u3, v2).
//   fifo (no backfill): A 0-1000; B 1000-1500; C 1000-1200; D 1200-1260.
//     delays 0, 950, 800, 900; JCTs 1000, 1450, 1000, 960; rho = JCT / duration = 1, 2.9, 5, 16.
//   srtf[oracle]: A runs 0-50, is preempted by B (500 < 950 s left), resumes 610-1560; B 50-300, preempted by D and
//     C (60 and 100 s left < its 250), resumes 360-610; C 200-400; D 300-360. Delays all 0; rho 1.56, 1.12, 1, 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/fairness_metric.h"
#include "sim/experiments/breakdown_report.h"
#include "sim/experiments/replicate.h"
#include "sim/experiments/runner.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

const std::string kMetricsFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/metrics";

ExperimentConfig queue_cluster_config(double series_s = 0.0) {
  nlohmann::json doc = read_json_file(kMetricsFixtures + "/queue-cluster.json");
  doc["output"]["breakdown"] = true;
  if (series_s > 0.0) doc["output"]["series_s"] = series_s;
  return parse_experiment(doc, "queue-cluster.json", kMetricsFixtures);
}

// Splits CSV text (no quoted fields) into rows of fields.
std::vector<std::vector<std::string>> breakdown_test_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream l(line);
    std::string f;
    while (std::getline(l, f, ','))
      fields.push_back(f);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

double metric_of(const CellRun& run, const std::string& name) {
  return metric_value(run.metrics, name);
}

}  // namespace

TEST_CASE("sim::QueueFairnessMetrics: fifo's queueing delays, rho and Jain's index as worked by hand",
          "[metrics][breakdown]") {
  const ExperimentConfig c = queue_cluster_config();
  const ExperimentResult r = run_experiment(c, 1);
  REQUIRE(r.runs.size() == 2);
  const CellRun& fifo = r.runs[0];
  REQUIRE(fifo.error.empty());
  // Delays 0, 800, 900, 950 (sorted): mean 662.5; type-7 median at rank 1.5 = 850; p95 at rank 2.85 = 900 + 0.85 x 50.
  CHECK(metric_of(fifo, "queue_delay_mean") == Approx(662.5));
  CHECK(metric_of(fifo, "queue_delay_mean") == Approx(fifo.metrics.mean_queue_s));
  CHECK(metric_of(fifo, "queue_delay_median") == Approx(850.0));
  CHECK(metric_of(fifo, "queue_delay_p95") == Approx(942.5));
  // rho = JCT / alone time (the trace's duration at its GPUs): 1000/1000, 1450/500, 1000/200, 960/60.
  REQUIRE(fifo.jobs.size() == 4);
  CHECK(fifo.jobs[0].alone_s == Approx(1000.0));
  CHECK(fifo.jobs[3].alone_s == Approx(60.0));
  CHECK(job_rho(fifo.jobs[1], 4, 4) == Approx(2.9));
  CHECK(metric_of(fifo, "rho_mean") == Approx((1.0 + 2.9 + 5.0 + 16.0) / 4.0));
  CHECK(metric_of(fifo, "rho_max") == Approx(16.0));
  // Jain over x = 1/rho = 1, 1/2.9, 0.2, 0.0625: (sum x)^2 / (4 sum x^2).
  const double sum = 1.0 + 1.0 / 2.9 + 0.2 + 0.0625;
  const double squares = 1.0 + 1.0 / (2.9 * 2.9) + 0.04 + 0.00390625;
  CHECK(metric_of(fifo, "jain_index") == Approx(sum * sum / (4.0 * squares)));
  CHECK(metric_of(fifo, "jain_index") == Approx(0.5554).epsilon(1e-3));
}

TEST_CASE("sim::QueueFairnessMetrics: srtf preempts yet starts every job on arrival, and rho counts the preemptions",
          "[metrics][breakdown]") {
  const ExperimentConfig c = queue_cluster_config();
  const ExperimentResult r = run_experiment(c, 1);
  const CellRun& srtf = r.runs[1];
  REQUIRE(srtf.error.empty());
  CHECK(srtf.jobs[0].restarts == 1);
  CHECK(srtf.jobs[0].finish == Approx(1560.0));
  CHECK(srtf.jobs[1].finish == Approx(610.0));
  CHECK(metric_of(srtf, "queue_delay_mean") == 0.0);
  CHECK(metric_of(srtf, "queue_delay_p95") == 0.0);
  // rho 1560/1000, 560/500, 1, 1.
  CHECK(metric_of(srtf, "rho_mean") == Approx((1.56 + 1.12 + 1.0 + 1.0) / 4.0));
  CHECK(metric_of(srtf, "rho_max") == Approx(1.56));
  CHECK(jain_index({1.0 / 1.56, 1.0 / 1.12, 1.0, 1.0}) == Approx(metric_of(srtf, "jain_index")));
  CHECK(metric_of(srtf, "jain_index") == Approx(0.97318).epsilon(1e-4));
}

TEST_CASE("sim::QueueFairnessMetrics: Jain's index is 1 for equal values, 1/n for one holding all, 0 for none",
          "[metrics][breakdown]") {
  CHECK(jain_index({2.0, 2.0, 2.0}) == Approx(1.0));
  CHECK(jain_index({1.0, 1e-12, 1e-12, 1e-12}) == Approx(0.25).epsilon(1e-6));
  CHECK(jain_index({1.0, 3.0}) == Approx(16.0 / 20.0));
  CHECK(jain_index({}) == 0.0);
}

TEST_CASE("sim::Breakdown: breakdown.csv's rows per user, VC and job size as worked by hand (fifo)",
          "[metrics][breakdown]") {
  const ExperimentConfig c = queue_cluster_config();
  const ExperimentResult r = run_experiment(c, 1);
  const auto rows = breakdown_test_rows(breakdown_csv_header() + breakdown_rows(c, r.runs[0]));
  REQUIRE(rows.size() == 10);
  CHECK(rows[0] == std::vector<std::string>{"level", "strategy", "seed", "group_kind", "group", "jobs", "mean_jct_s",
                                            "queue_delay_mean_s", "queue_delay_median_s", "queue_delay_p95_s",
                                            "gpu_hours", "rho_mean"});
  // group_kind, group, jobs, mean JCT, delay mean, median, p95, GPU-hours, rho mean.
  struct Want {
    const char* kind;
    const char* group;
    int jobs;
    double jct, qmean, qmedian, qp95, gpu_h, rho;
  };
  const Want want[] = {
      {"all", "all", 4, 1102.5, 662.5, 850, 942.5, 5460.0 / 3600, 6.225},
      {"user", "u1", 2, 1000, 400, 400, 760, 4400.0 / 3600, 3},      // A, C: delays 0, 800
      {"user", "u2", 1, 1450, 950, 950, 950, 1000.0 / 3600, 2.9},    // B
      {"user", "u3", 1, 960, 900, 900, 900, 60.0 / 3600, 16},        // D
      {"vc", "v1", 2, 1225, 475, 475, 902.5, 5000.0 / 3600, 1.95},   // A, B: delays 0, 950
      {"vc", "v2", 2, 980, 850, 850, 895, 460.0 / 3600, 10.5},       // C, D: delays 800, 900
      {"size", "1", 1, 960, 900, 900, 900, 60.0 / 3600, 16},         // D
      {"size", "2", 2, 1225, 875, 875, 942.5, 1400.0 / 3600, 3.95},  // B, C
      {"size", "3-4", 1, 1000, 0, 0, 0, 4000.0 / 3600, 1},           // A
  };
  for (std::size_t i = 0; i < std::size(want); ++i) {
    const auto& row = rows[i + 1];
    INFO("row " << i + 1);
    REQUIRE(row.size() == 12);
    CHECK(row[0] == "trace");
    CHECK(row[1] == "fifo");
    CHECK(row[2] == "1");
    CHECK(row[3] == want[i].kind);
    CHECK(row[4] == want[i].group);
    CHECK(std::stoi(row[5]) == want[i].jobs);
    CHECK(std::stod(row[6]) == Approx(want[i].jct).epsilon(1e-5));
    CHECK(std::stod(row[7]) == Approx(want[i].qmean).epsilon(1e-5));
    CHECK(std::stod(row[8]) == Approx(want[i].qmedian).epsilon(1e-5));
    CHECK(std::stod(row[9]) == Approx(want[i].qp95).epsilon(1e-5));
    CHECK(std::stod(row[10]) == Approx(want[i].gpu_h).epsilon(1e-5));
    CHECK(std::stod(row[11]) == Approx(want[i].rho).epsilon(1e-5));
  }
}

TEST_CASE("sim::Breakdown: size groups are 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64 and 65+ GPUs", "[metrics][breakdown]") {
  CHECK(size_group(1) == "1");
  CHECK(size_group(2) == "2");
  CHECK(size_group(3) == "3-4");
  CHECK(size_group(4) == "3-4");
  CHECK(size_group(5) == "5-8");
  CHECK(size_group(16) == "9-16");
  CHECK(size_group(17) == "17-32");
  CHECK(size_group(64) == "33-64");
  CHECK(size_group(65) == "65+");
  CHECK(size_group(1024) == "65+");
}

TEST_CASE("sim::TimeSeries: srtf's busy GPUs, queued and running jobs at every 100 s boundary, by hand",
          "[metrics][series]") {
  const ExperimentConfig c = queue_cluster_config(100.0);
  const ExperimentResult r = run_experiment(c, 1);
  const CellRun& srtf = r.runs[1];
  REQUIRE(srtf.error.empty());
  // Last finish 1560 s: boundaries 0, 100, ..., 1600 (17 rows). State after the changes at times <= t.
  // {busy GPUs, queued, running}: 0: A x4. 100: B x2 (A preempted at 50). 200: B, C. 300: C x2, D x1 (B preempted).
  // 400-600: B x2 (D ended 360, C 400), A waits. 700-1500: A x4. 1600: all done.
  struct Want {
    int busy, queued, running;
  };
  std::vector<Want> want = {{4, 0, 1}, {2, 1, 1}, {4, 1, 2}, {3, 2, 2}, {2, 1, 1}, {2, 1, 1}, {2, 1, 1}};
  for (int k = 7; k <= 15; ++k)
    want.push_back({4, 0, 1});
  want.push_back({0, 0, 0});
  REQUIRE(srtf.series.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    INFO("t = " << 100 * k);
    CHECK(srtf.series[k].time == 100.0 * static_cast<double>(k));
    CHECK(srtf.series[k].busy_gpus == want[k].busy);
    CHECK(srtf.series[k].queued_jobs == want[k].queued);
    CHECK(srtf.series[k].running_jobs == want[k].running);
  }
  const std::string rows = series_rows(c, srtf);
  CHECK(rows.rfind("trace,srtf[oracle],1,0,4,1,0,1\ntrace,srtf[oracle],1,100,2,0.5,1,1\n", 0) == 0);
}

TEST_CASE("sim::TimeSeries: the allocation log is recorded for the series but kept for events.csv only as asked",
          "[metrics][series]") {
  nlohmann::json doc = read_json_file(kMetricsFixtures + "/queue-cluster.json");
  doc["output"] = {{"series_s", 100.0}, {"events", "none"}};
  const ExperimentConfig c = parse_experiment(doc, "queue-cluster.json", kMetricsFixtures);
  const ExperimentResult r = run_experiment(c, 1);
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0].events.empty());
  CHECK(r.runs[1].events.empty());
  CHECK(r.runs[0].series.size() == 16);  // fifo's last finish 1500 s: 0, 100, ..., 1500
  CHECK(r.runs[1].series.size() == 17);  // srtf's 1560 s: 0, 100, ..., 1600
  const ExperimentConfig plain = queue_cluster_config();
  CHECK(run_experiment(plain, 1).runs[0].series.empty());
}

TEST_CASE("sim::TimeSeries: with boundaries at every event time the series integrates to the allocated GPU-seconds",
          "[metrics][series]") {
  const ExperimentConfig c = queue_cluster_config(10.0);
  const ExperimentResult r = run_experiment(c, 1);
  for (const CellRun& run : r.runs) {
    INFO(c.strategies[static_cast<std::size_t>(run.strategy)].label);
    double gpu_seconds = 0.0;
    for (const JobResult& j : run.jobs)
      gpu_seconds += j.gpu_seconds;
    double integral = 0.0;
    for (const SeriesPoint& p : run.series)
      integral += 10.0 * p.busy_gpus;  // every change falls on a 10 s boundary: the step function is exact
    CHECK(integral == Approx(gpu_seconds));
    CHECK(gpu_seconds == Approx(5460.0));
  }
}

TEST_CASE("sim::TimeSeries: the same rows for any thread count and run after run", "[metrics][series]") {
  const ExperimentConfig c = queue_cluster_config(50.0);
  const ExperimentResult a = run_experiment(c, 1);
  const ExperimentResult b = run_experiment(c, 2);
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    CHECK(series_rows(c, a.runs[i]) == series_rows(c, b.runs[i]));
    CHECK(breakdown_rows(c, a.runs[i]) == breakdown_rows(c, b.runs[i]));
  }
}

TEST_CASE("sim::TimeSeries: output.series_s outside 0.001..1e9 s is refused naming the JSON path",
          "[metrics][series]") {
  for (const double bad : {0.0, -5.0, 1e-4, 2e9}) {
    INFO(bad);
    nlohmann::json doc = read_json_file(kMetricsFixtures + "/queue-cluster.json");
    doc["output"]["series_s"] = bad;
    try {
      (void)parse_experiment(doc, "queue-cluster.json", kMetricsFixtures);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("output.series_s") != std::string::npos);
    }
  }
  nlohmann::json doc = read_json_file(kMetricsFixtures + "/queue-cluster.json");
  doc["output"]["series_s"] = 1e-3;
  doc["workload"]["trace"]["time_scale"] = 1e6;  // a run of ~1.6e9 s at 1 ms: 1.6e12 rows
  const ExperimentConfig c = parse_experiment(doc, "queue-cluster.json", kMetricsFixtures);
  const ExperimentResult r = run_experiment(c, 1);
  CHECK(r.runs[0].error.find("more than 10,000,000 per run") != std::string::npos);
}

TEST_CASE(
    "sim::QueueFairnessMetrics: a job without a GPU request is timed alone on min(8, its class's max) GPUs, the "
    "same under every strategy",
    "[metrics][breakdown]") {
  const ExperimentConfig c = parse_experiment(nlohmann::json::parse(R"({
    "cluster": {"nodes": 2, "gpus_per_node": 8},
    "workload": {"catalog": "paper", "jobs": 5, "arrival": {"process": "poisson"}},
    "levels": [{"name": "mid", "load": 1.0}],
    "strategies": ["eight", "precompute"],
    "seeds": 1, "base_seed": 3})"),
                                              "poisson.json", ".");
  const ExperimentResult r = run_experiment(c, 1);
  const Workload wl = make_workload(c, 0, c.base_seed);
  REQUIRE(r.runs.size() == 2);
  for (std::size_t i = 0; i < wl.jobs.size(); ++i) {
    const JobTruth& t = wl.jobs[i];
    const JobClass& cls = wl.catalog->classes[static_cast<std::size_t>(t.class_index)];
    const int w = std::max(cls.min_gpus, std::min(8, cls.max_gpus));
    const double alone = r.runs[0].jobs[i].work / class_throughput(cls, w, packed_nodes(w, 8), t.speed_factor);
    INFO("job " << i << " class " << cls.name);
    CHECK(t.requested_gpus == 0);
    CHECK(r.runs[0].jobs[i].alone_s == Approx(alone).epsilon(1e-12));
    CHECK(r.runs[1].jobs[i].alone_s == r.runs[0].jobs[i].alone_s);
  }
}

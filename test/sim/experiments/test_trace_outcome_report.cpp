// test/sim/experiments/test_trace_outcome_report.cpp — a trace's recorded outcomes and left-out rows in the printed
// notes and summary.json (sim/experiments/trace_outcome_report.h): hand-computed shares, and nothing at all for a
// trace that records no outcome (so generic, Pollux and Gavel outputs stay byte-identical); jobs.csv's outcome column.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/experiments/trace_outcome_report.h"

using namespace ringsched;

TEST_CASE("sim::TraceOutcomeReport: shares by count and GPU time, rows left out, nothing without outcomes",
          "[trace][outcomes]") {
  TraceNotes n;
  // 3 completed (36,000 GPU-s), 1 failed (7,200), 0 killed: failed 25.0% of jobs, 16.7% of GPU time.
  n.outcomes.jobs = {0, 3, 1, 0};
  n.outcomes.gpu_seconds = {0.0, 36000.0, 7200.0, 0.0};
  n.skipped.never_ran = 2;
  n.skipped.zero_gpus = 1;
  CHECK(trace_outcomes_text(n) ==
        "  outcomes: completed 3 (10.0 GPU-h), failed 1 (2.0 GPU-h), killed 0 (0.0 GPU-h); failed 25.0% of jobs, 16.7% "
        "of GPU time (as recorded)\n  rows left out: 2 never ran, 0 still running, 1 with 0 GPUs\n");
  nlohmann::json j = nlohmann::json::object();
  add_trace_outcomes_json(n, j);
  CHECK(j.at("outcomes").at("failed").at("jobs") == 1);
  CHECK(j.at("outcomes").at("completed").at("gpu_seconds").get<double>() == 36000.0);
  CHECK(j.at("outcomes").at("failed_share_jobs").get<double>() == Approx(0.25));
  CHECK(j.at("outcomes").at("failed_share_gpu_time").get<double>() == Approx(7200.0 / 43200.0));
  CHECK(j.at("skipped").at("never_ran") == 2);
  const TraceNotes none;
  CHECK(trace_outcomes_text(none).empty());
  nlohmann::json k = nlohmann::json::object();
  add_trace_outcomes_json(none, k);
  CHECK(k.empty());
}

TEST_CASE("sim::TraceOutcomeReport: jobs.csv carries each replayed job's recorded outcome", "[trace][outcomes]") {
  // workloads/examples/philly-log.json: application_1 failed after 1,200 s on 8 GPUs, application_0 completed,
  // application_2 was killed (the hand-written log in workloads/examples/traces/).
  char dir[] = "/tmp/ringsched-outcome-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string cmd = RINGSCHED_BINARY;
  cmd += " simulate --config " + std::string(RINGSCHED_SOURCE_DIR) +
         "/workloads/examples/philly-log.json --strategies fifo --out " + dir + "/out > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(std::string(dir) + "/out/jobs.csv");
  std::string header;
  std::getline(in, header);
  CHECK(header.find(",work_samples,outcome,measured") != std::string::npos);
  CHECK(header.find(",class,user,vc,arrival_s,") != std::string::npos);  // the log's users and VCs (issue 40)
  std::map<std::string, std::string> outcome;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    REQUIRE(f.size() == 19);
    outcome[f[4]] = f[17];
  }
  CHECK(outcome.at("application_1") == "failed");
  CHECK(outcome.at("application_0") == "completed");
  CHECK(outcome.at("application_2") == "killed");
  std::filesystem::remove_all(dir);
}

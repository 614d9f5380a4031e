// test/sim/experiments/test_trace_outcome_report.cpp — a trace's recorded outcomes and left-out rows in the printed
// notes and summary.json (sim/experiments/trace_outcome_report.h): hand-computed shares, and nothing at all for a
// trace that records no outcome (so generic, Pollux and Gavel outputs stay byte-identical).
#include <catch2/catch.hpp>

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

// test/sim/failures/test_preemptions.cpp — preemptible capacity (cluster.failures.preemptions): the capacity trace's
// format and its errors, and what a preemption does to a job: with enough notice to write a checkpoint nothing is
// lost (the checkpoint's cost is charged, the eviction counted as a preemption, not a failure); without, it is a
// failure (hand-worked, as the failure test beside it).
#include <catch2/catch.hpp>

#include <string>

#include "sim/cluster/failures/failure_config.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/scripted_strategy.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

// One job of 100,000 samples (linear class: 100 w samples/s on w GPUs) that wants both GPUs of a 2-node cluster.
RunResult preempt_run(const fail::FailureOptions& f) {
  Workload w;
  w.catalog = test::linear_catalog();
  JobTruth j;
  j.id = 0;
  j.name = "long";
  j.work_samples = 100000.0;
  w.jobs = {j};
  EngineConfig ec;
  ec.cluster.nodes = 2;
  ec.cluster.gpus_per_node = 1;
  ec.cluster.placement = "packed";
  ec.cluster.failures = f;
  ec.restart.cost_s = 10.0;
  ec.seed = 1;
  test::ScriptedStrategy strat(
      [](const Snapshot& s) { return std::vector<int>(s.jobs.size(), s.total_gpus >= 2 ? 2 : 0); });
  auto beliefs = make_belief_source("none", "test");
  return simulate(w, strat, *beliefs, ec);
}

}  // namespace

TEST_CASE("failures::Preemptions: the capacity trace has time_s,node,duration_s,notice_s and names bad rows",
          "[failures][input]") {
  const auto rows =
      fail::parse_failure_trace("time_s,node,duration_s,notice_s\n10,1,5,30\n20,0,1,0\n", "cap.csv", 2, true);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].notice_s == 30.0);
  CHECK(rows[1].notice_s == 0.0);
  CHECK(test::error_of([] {
          (void)fail::parse_failure_trace("time_s,node,duration_s\n1,0,1\n", "cap.csv", 2, true);
        }).find("notice_s") != std::string::npos);
  CHECK(test::error_of([] {
          (void)fail::parse_failure_trace("time_s,node,duration_s,notice_s\n1,0,1,-5\n", "cap.csv", 2, true);
        }).find("cap.csv:2") != std::string::npos);
  // A failure trace keeps its three columns.
  CHECK(test::error_of([] {
          (void)fail::parse_failure_trace("time_s,node,duration_s,notice_s\n1,0,1,5\n", "f.csv", 2);
        }).find("exactly the columns time_s,node,duration_s") != std::string::npos);
  fail::FailureOptions o;
  o.checkpoint.enabled = true;
  o.checkpoint.cost_s = 20.0;
  CHECK(o.notice_suffices(20.0));
  CHECK(!o.notice_suffices(19.0));
  CHECK(!fail::FailureOptions{}.notice_suffices(0.0));  // no notice: a failure
  CHECK(fail::FailureOptions{}.notice_suffices(1.0));   // no checkpoints: a clean stop keeps everything
}

TEST_CASE("failures::Preemptions: enough notice keeps the work and charges one checkpoint, none is a failure",
          "[failures]") {
  // As the hand-worked failure: 200 samples/s on both GPUs, checkpoints every 100 s costing 5 s (progress at
  // 100 / 105 of the rate). Node 0 leaves at t = 250 for 100 s.
  fail::FailureOptions f;
  f.checkpoint.enabled = true;
  f.checkpoint.interval_s = 100.0;
  f.checkpoint.cost_s = 5.0;
  f.preemptions = {{250.0, 0, 100.0, 60.0}};  // 60 s of notice >= the 5 s a checkpoint takes
  const RunResult kept = preempt_run(f);
  const JobResult& k = kept.jobs[0];
  CHECK(k.failure.preemptions == 1);
  CHECK(k.failure.failures == 0);
  CHECK(k.failure.lost_work == 0.0);
  // Work at 250: 250 x 200 x 100/105; the rest after the restart at 350 + 10 s at the same rate.
  const double rate = 200.0 * 100.0 / 105.0;
  CHECK(k.finish == Approx(360.0 + (100000.0 - 250.0 * rate) / rate));
  // The checkpoint within the notice (5 s on 2 GPUs) on top of the running share (5/105 of each running second x 2).
  CHECK(k.failure.checkpoint_gpu_s == Approx((250.0 + (k.finish - 360.0)) * 5.0 / 105.0 * 2.0 + 5.0 * 2.0));
  f.preemptions = {{250.0, 0, 100.0, 2.0}};  // 2 s of notice < 5 s: a failure
  const RunResult lost = preempt_run(f);
  const JobResult& l = lost.jobs[0];
  CHECK(l.failure.failures == 1);
  CHECK(l.failure.preemptions == 0);
  CHECK(l.failure.lost_work > 0.0);
  CHECK(l.finish > k.finish);
}

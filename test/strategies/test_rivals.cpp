// test/strategies/test_rivals.cpp — the rival strategies (srtf, tiresias, afs) against small hand-worked schedules,
// and `ringsched table3 --strategies all` running every registered strategy.
#include <catch2/catch.hpp>

#include <memory>

#include "scene.h"
#include "sim/engine/engine.h"
#include "strategies/common/allocation.h"
#include "test/sim/cli_util.h"
#include "test/sim/linear_catalog.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using namespace ringsched::test;
using ringsched::test::run_cli;

using ringsched::test::linear_catalog;

namespace {

Workload jobs_at(std::vector<std::pair<double, double>> arrival_work) {
  Workload w;
  w.catalog = linear_catalog();
  for (std::size_t i = 0; i < arrival_work.size(); ++i) {
    JobTruth j;
    j.id = static_cast<int>(i);
    j.arrival = arrival_work[i].first;
    j.work_samples = arrival_work[i].second;
    j.name = "j";
    j.name += std::to_string(i);
    w.jobs.push_back(j);
  }
  return w;
}

RunResult run(const Workload& w, const std::string& strategy, const nlohmann::json& params,
              const std::string& beliefs) {
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = 0.0;
  auto s = strategy_named(strategy, params);
  auto b = make_belief_source(beliefs, "test");
  return simulate(w, *s, *b, ec);
}

}  // namespace

TEST_CASE("strategies::srtf: ranks by believed remaining time on the rigid size", "[rivals]") {
  FnScene sc;
  auto lin = [](int w) { return static_cast<double>(w); };
  sc.add(lin, 1000, 1, 8);  // 250 s on 4
  sc.add(lin, 100, 1, 8);   // 25 s
  sc.add(lin, 400, 1, 8);   // 100 s
  CHECK(strategy_named("srtf", {{"gpus", 4}})->decide(sc.make(8)).gpus() == std::vector<int>{0, 4, 4});
  // A job that does not fit is skipped; a smaller one behind it runs.
  sc.add(lin, 10, 1, 8, 2);  // trace request 2 GPUs: 5 s
  CHECK(strategy_named("srtf", {{"gpus", 4}})->decide(sc.make(7)).gpus() == std::vector<int>{0, 4, 0, 2});
}

TEST_CASE("strategies::srtf: a shorter arrival preempts the running job", "[rivals]") {
  // a: t=0, 40,000 samples at 400/s. b arrives at 50 with 10,000 (25 s) while a has 20,000 left (50 s): b preempts,
  // ends at 75; a resumes (no restart cost) and ends at 75 + 50 = 125.
  const RunResult r = run(jobs_at({{0, 40000}, {50, 10000}}), "srtf", {{"gpus", 4}}, "oracle");
  CHECK(r.jobs[1].finish == Approx(75.0));
  CHECK(r.jobs[0].finish == Approx(125.0));
  CHECK(r.jobs[0].restarts == 1);
}

TEST_CASE("strategies::tiresias: a job demoted past the threshold yields to a new one", "[rivals]") {
  // Threshold 100 GPU-s. a (t=0, 40,000 at 400/s) reaches 100 GPU-s at t=25 on 4 GPUs. b arrives at 10 (4,000
  // samples): both in queue 0, FIFO keeps a. At 25 a drops to queue 1 and b runs 25..35; a resumes with 30,000
  // left and ends at 35 + 75 = 110.
  const RunResult r = run(jobs_at({{0, 40000}, {10, 4000}}), "tiresias", {{"gpus", 4}, {"thresholds", {100}}}, "none");
  CHECK(r.jobs[1].first_start == Approx(25.0));
  CHECK(r.jobs[1].finish == Approx(35.0));
  CHECK(r.jobs[0].finish == Approx(110.0));
  // With a threshold beyond a's whole run, it is plain FIFO: a ends at 100, b at 110.
  const RunResult f = run(jobs_at({{0, 40000}, {10, 4000}}), "tiresias", {{"gpus", 4}, {"thresholds", {1e6}}}, "none");
  CHECK(f.jobs[0].finish == Approx(100.0));
  CHECK(f.jobs[1].finish == Approx(110.0));
}

TEST_CASE("strategies::tiresias: thresholds must increase", "[rivals]") {
  CHECK_THROWS_AS(strategy_named("tiresias", {{"thresholds", {100, 50}}}), InputError);
}

TEST_CASE("strategies::afs: the shorter job keeps the GPU unless the longer one gains more, relatively", "[rivals]") {
  // A: Q = 100, f(w) = w. B: Q = 1000, f = 1, 1.9, 2.7, 3.4. Four GPUs, one at a time (A is shorter):
  //   1: A waits (gain inf) -> A.  2: A 1 -> 2 gains 1/1 = 1; B 0 -> 1 gains 1/1 = 1, not more -> A.
  //   3: A 2 -> 3 gains 1/2; B gains 1 -> B.  4: A gains 1/2; B 1 -> 1.9 gains 0.9/1.9 = 0.47 -> A.  A = 3, B = 1.
  FnScene sc;
  sc.add([](int w) { return static_cast<double>(w); }, 100, 1, 4);
  const double fb[] = {0, 1, 1.9, 2.7, 3.4};
  sc.add([&](int w) { return fb[w]; }, 1000, 1, 4);
  const Snapshot& s = sc.make(4);
  CHECK(strategy_named("afs")->decide(s).gpus() == std::vector<int>{3, 1});
  // Unit greedy on remaining time gives B the GPUs instead (1000 (1 - 1/1.9) > 100 (1 - 1/2)).
  CHECK(unit_greedy_allocation(s, all_jobs(s), 4) == std::vector<int>{1, 3});

  // A scales poorly (f = 1, 1.1), B linearly: B's relative gains 1, 1/2, 1/3 all beat A's 0.1 -> A = 1, B = 3.
  FnScene poor;
  const double fa[] = {0, 1, 1.1, 1.15, 1.2};
  poor.add([&](int w) { return fa[w]; }, 100, 1, 4);
  poor.add([](int w) { return static_cast<double>(w); }, 1000, 1, 4);
  CHECK(strategy_named("afs")->decide(poor.make(4)).gpus() == std::vector<int>{1, 3});
}

TEST_CASE("strategies::rivals: table3 --strategies all runs every registered strategy", "[rivals][cli]") {
  const ringsched::test::TempDir tmp;
  const CliResult r = run_cli(
      "table3 --strategies all --seeds 1 --jobs 12 --threads 1 --format csv --optimality-gap "
      "--out " +
      tmp / "t3");
  REQUIRE(r.code == 0);
  for (const auto& info : ringsched::strategy_infos())  // all but Gavel's policies, which need GPU pools
    if (!info.needs_gpu_types) CHECK_THAT(r.out, Catch::Contains(info.name));
  // The gap report is in --out's placement.csv (stdout holds one CSV table).
  CHECK_THAT(ringsched::test::read_whole_file(tmp / "t3/placement.csv"), Catch::Contains("gap_mean"));
}

TEST_CASE("strategies::fifo: runs each job at its requested size in arrival order, the head blocks unless backfill",
          "[rivals]") {
  // 4 GPUs at 100 samples/s per GPU. j0 (t=0) asks 3 GPUs, 3000 samples: runs 0..10. j1 (t=1) asks 2, 400 samples:
  // waits for j0, runs 10..12. j2 (t=2) asks 1, 100 samples: strict FIFO keeps it behind j1 (starts 10, ends 11);
  // with backfill it takes the free GPU at t=2 (ends 3).
  Workload w = jobs_at({{0, 3000}, {1, 400}, {2, 100}});
  const int asked[] = {3, 2, 1};
  for (std::size_t i = 0; i < 3; ++i)
    w.jobs[i].requested_gpus = asked[i];
  const RunResult strict = run(w, "fifo", nlohmann::json::object(), "none");
  CHECK(strict.jobs[0].finish == Approx(10.0));
  CHECK(strict.jobs[1].finish == Approx(12.0));
  CHECK(strict.jobs[2].finish == Approx(11.0));
  CHECK(strict.jobs[0].max_gpus == 3);
  CHECK(strict.jobs[1].max_gpus == 2);
  const RunResult backfill = run(w, "fifo", {{"backfill", true}}, "none");
  CHECK(backfill.jobs[2].finish == Approx(3.0));
  CHECK(backfill.jobs[1].finish == Approx(12.0));
  // Without a request, a job gets `gpus` (capped by its class maximum, 4 here).
  const RunResult plain = run(jobs_at({{0, 800}}), "fifo", {{"gpus", 2}}, "none");
  CHECK(plain.jobs[0].finish == Approx(4.0));
}

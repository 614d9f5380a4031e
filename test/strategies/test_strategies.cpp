// test/strategies/test_strategies.cpp — strategy behaviour on hand-built snapshots: eight's strict FCFS (and its
// backfill option), exploratory's walk through widths 1, 2, 4, 8 driven by a fake Probe and its use of the fitted
// speed afterwards, and the registry's error messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "models/speed_model.h"
#include "strategies/registry.h"
#include "test/input_error_of.h"
#include "test/strategies/scene.h"

using namespace ringsched;
using Catch::Matchers::Equals;
using ringsched::test::error_of;

namespace {

std::unique_ptr<Strategy> make(const std::string& name, const nlohmann::json& params = nlohmann::json::object()) {
  return find_strategy(name, "test").make(JsonReader(params, "test"));
}

JobPublic pub(int id, int min_gpus, int max_gpus) {
  JobPublic p;
  p.id = id;
  p.name = "job-" + std::to_string(id);
  p.cls.min_gpus = min_gpus;
  p.cls.max_gpus = max_gpus;
  p.cls.batch_mode = BatchMode::kFixedGlobal;
  p.cls.batch_size = 1000.0;
  p.cls.model_size_mparams = 1.0;
  return p;
}

// Returns the true throughput of the job at the width the test says it currently has; records each call.
class FakeProbe final : public Probe {
 public:
  explicit FakeProbe(std::function<double(int)> truth) : truth_(std::move(truth)) {}
  double measure_throughput(int job_id, double sigma) override {
    calls.push_back({job_id, current_gpus, sigma});
    return current_gpus > 0 ? truth_(current_gpus) : 0.0;
  }
  struct Call {
    int job;
    int gpus;
    double sigma;
  };
  std::vector<Call> calls;
  int current_gpus = 0;

 private:
  std::function<double(int)> truth_;
};

}  // namespace

TEST_CASE("strategies::eight: strict FCFS, running jobs keep their GPUs, backfill is opt-in", "[strategies][eight]") {
  // 12 GPUs. Job 0 runs on 8; job 1 (max 64) needs 8 but only 4 are free; job 2 (max 2) would fit in 4.
  std::vector<JobPublic> pubs = {pub(0, 1, 64), pub(1, 1, 64), pub(2, 1, 2)};
  std::vector<JobView> views(3);
  for (std::size_t i = 0; i < 3; ++i)
    views[i].pub = &pubs[i];
  views[0].gpus = 8;
  views[0].state = JobState::kRunning;
  Snapshot s;
  s.total_gpus = 12;
  s.gpus_per_node = 4;
  s.jobs = views;
  // Strict FCFS: the head of the queue (job 1) blocks job 2.
  CHECK(make("eight")->decide(s).gpus() == std::vector<int>{8, 0, 0});
  // With backfill job 2 starts on its max of 2.
  CHECK(make("eight", {{"backfill", true}})->decide(s).gpus() == std::vector<int>{8, 0, 2});
  // gpus = 4: job 1 now fits exactly, job 2 then waits for 2 more.
  CHECK(make("eight", {{"gpus", 4}})->decide(s).gpus() == std::vector<int>{8, 4, 0});
  // Once job 0 is gone, job 1 gets 8 and job 2 its 2 (<= 4 free left).
  std::vector<JobView> later = {views[1], views[2]};
  s.jobs = later;
  const Decision d = make("eight")->decide(s);
  CHECK(d.gpus() == std::vector<int>{8, 2});
  CHECK(std::isinf(d.wakeup_at));
}

TEST_CASE("strategies::exploratory: walks widths 1, 2, 4, 8 then allocates with its fitted speed",
          "[strategies][exploratory]") {
  // True speed (Eq. 5, fixed global batch m = 1000): step(w) = 0.0016 x 1000 / w + 0.01 (w - 1) seconds:
  //   step(1) = 1.6, step(2) = 0.81, step(4) = 0.43, step(8) = 0.27, step(16) = 0.25, step(32) = 0.36.
  const models::Eq5Coeffs truth_c{0.0016, 0.01, 0.0, 0.0};
  auto truth = [truth_c](int w) { return 1000.0 / models::eq5_step_time(truth_c, w, 1000.0, 1.0); };
  // The job's own belief source says it scales perfectly (f = 1000 w); exploratory must use only its total work.
  std::vector<JobPublic> pubs = {pub(0, 1, 64)};
  test::FnBelief belief([](int w) { return 1000.0 * w; }, 1e7);
  std::vector<JobView> views(1);
  views[0].pub = &pubs[0];
  views[0].belief = &belief;
  FakeProbe probe(truth);
  Snapshot s;
  s.total_gpus = 64;
  s.gpus_per_node = 8;
  s.jobs = views;
  s.probe = &probe;
  auto strat = make("exploratory");

  const std::vector<int> widths = {1, 2, 4, 8};
  for (std::size_t phase = 0; phase < widths.size(); ++phase) {
    s.now = 150.0 * static_cast<double>(phase);
    const Decision d = strat->decide(s);
    REQUIRE(d.jobs.size() == 1);
    CHECK(d.jobs[0].gpus == widths[phase]);
    CHECK(d.wakeup_at == Approx(s.now + 150.0));
    views[0].gpus = d.jobs[0].gpus;
    views[0].state = JobState::kRunning;
    probe.current_gpus = d.jobs[0].gpus;
  }
  // One measurement per finished phase so far (after phases at 1, 2, 4), default sigma 0.05.
  REQUIRE(probe.calls.size() == 3);
  // A call between phase ends measures nothing and keeps the width.
  s.now = 500.0;
  CHECK(strat->decide(s).gpus() == std::vector<int>{8});
  CHECK(probe.calls.size() == 3);
  // At 600 s the phase at 8 ends: the fourth measurement, then Eq. 5 is fitted to the four exact points and the
  // doubling heuristic runs on it with Q = 1e7 samples: t(w) = 1e4 step(w), gains per GPU 1->2: 7900, 2->4: 1900,
  // 4->8: 400, 8->16: 25 > 0, 16->32: (2500 - 3600) / 16 < 0, so 16 GPUs (the perfect-scaling belief would give 64).
  s.now = 600.0;
  const Decision d = strat->decide(s);
  REQUIRE(probe.calls.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(probe.calls[k].job == 0);
    CHECK(probe.calls[k].gpus == widths[k]);
    CHECK(probe.calls[k].sigma == 0.05);
  }
  CHECK(d.gpus() == std::vector<int>{16});
  CHECK(std::isinf(d.wakeup_at));  // nothing left to explore
}

TEST_CASE("strategies::exploratory: reclaim takes GPUs from explored jobs, without it new jobs wait",
          "[strategies][exploratory]") {
  // 16 GPUs, perfect scaling (step = 0.001 x 1000 / w, f = 1000 w). Job 0 explores alone (1, 2, 4, 8 GPUs), then
  // doubling gives it all 16. At 700 s job 1 arrives and needs a reservation of 8 to explore.
  for (const bool reclaim : {true, false}) {
    auto f = [](int w) { return 1000.0 * w; };
    std::vector<JobPublic> pubs = {pub(0, 1, 64), pub(1, 1, 64)};
    test::FnBelief belief(f, 1e7);
    std::vector<JobView> views(2);
    for (std::size_t i = 0; i < 2; ++i) {
      views[i].pub = &pubs[i];
      views[i].belief = &belief;
    }
    FakeProbe probe(f);
    Snapshot s;
    s.total_gpus = 16;
    s.gpus_per_node = 8;
    s.probe = &probe;
    auto strat = make("exploratory", {{"reclaim", reclaim}});
    std::vector<int> got;
    for (int phase = 0; phase <= 4; ++phase) {
      s.now = 150.0 * phase;
      s.jobs = std::span<const JobView>(views.data(), 1);
      const Decision d = strat->decide(s);
      views[0].gpus = d.jobs[0].gpus;
      probe.current_gpus = d.jobs[0].gpus;
      got.push_back(d.jobs[0].gpus);
    }
    CHECK(got == std::vector<int>{1, 2, 4, 8, 16});
    s.now = 700.0;
    s.jobs = views;
    const Decision d = strat->decide(s);
    if (reclaim) {
      // Job 1 reserves 8 and starts at 1; job 0 is doubled within the remaining 8.
      CHECK(d.gpus() == std::vector<int>{8, 1});
      CHECK(d.wakeup_at == Approx(850.0));
    } else {
      // No GPU is free: job 1 waits and job 0 keeps 16.
      CHECK(d.gpus() == std::vector<int>{16, 0});
      CHECK(std::isinf(d.wakeup_at));
    }
  }
}

TEST_CASE("strategies::registry: unknown names and bad params fail with the valid choices", "[strategies][registry]") {
  CHECK_THAT(
      error_of([] { (void)find_strategy("fastest", "cfg.json: strategies[0]"); }),
      Equals("cfg.json: strategies[0]: unknown strategy 'fastest' (valid: " + join_names(strategy_names()) + ")"));
  const auto names = strategy_names();
  for (const char* n : {"eight", "exploratory", "optimus", "precompute"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  const nlohmann::json bad = {{"phase_s", -1}};
  CHECK_THAT(error_of([&] { (void)find_strategy("exploratory", "x").make(JsonReader(bad, "c.json", "p")); }),
             Equals("c.json: p.phase_s: must be > 0, got -1"));
}

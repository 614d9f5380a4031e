// test/sim/engine/test_engine_invariants.cpp — property tests of the engine: invariants checked after every event batch
// (EngineChecker) on random workloads for every registered strategy, and work conservation: integrating each job's
// true rate over its logged allocations (minus restart pauses) gives exactly its work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

// Three classes with different shapes: the paper's class (fixed per-worker batch, Eq. 5), a binary-blocks
// all-reduce class with noisy work and a 2..4-GPU class with a large-batch penalty.
std::shared_ptr<const Catalog> mixed_catalog() {
  const std::string text = R"({"name": "mixed", "classes": [
    {"name": "resnet", "weight": 2, "batch": {"mode": "fixed_per_worker", "size": 128}, "model_size_mparams": 1.7,
     "work": {"epochs": 20, "dataset_samples": 50000}, "gpus": {"max": 64},
     "speed": {"kind": "eq5", "t0": 0.0026484, "t1": 0.002, "t2": 0.0918, "t3": 0.010}},
    {"name": "bb", "weight": 1, "batch": {"mode": "fixed_global", "size": 1000}, "model_size_mparams": 2.5,
     "work": {"samples": 3000000, "sigma": 0.5}, "gpus": {"max": 32},
     "speed": {"kind": "allreduce", "compute_per_sample_s": 0.001, "algorithm": "binary_blocks",
               "intra_node": {"alpha_s": 0, "beta_s_per_byte": 1e-9},
               "inter_node": {"alpha_s": 0.00001, "beta_s_per_byte": 4e-9}, "gradient_bytes": 10000000}},
    {"name": "small", "weight": 1, "batch": {"mode": "fixed_per_worker", "size": 32, "large_batch_penalty": 0.1},
     "model_size_mparams": 0.5, "work": {"samples": 400000, "sigma": 0.2}, "gpus": {"min": 2, "max": 4},
     "speed": {"kind": "eq5", "t0": 0.001, "t1": 0.003, "t2": 0.01, "t3": 0.002}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "mixed.json"), "mixed.json"));
}

struct Tracked {
  double work_done = 0.0;
  double work_lost = 0.0;  // taken back by failures (cluster.failures; 0 here)
  JobState state = JobState::kWaiting;
  int gpus = 0;
};

// Checks every invariant after every event batch and keeps what the end-of-run checks need.
struct InvariantChecker {
  double last_now = -1.0;
  int last_in_use = 0;
  int last_finished = 0;
  double gpu_integral = 0.0;  // integral of GPUs in use over time
  std::map<int, Tracked> jobs;
  long checks = 0;

  void operator()(const EngineCheckView& v) {
    ++checks;
    REQUIRE(v.now >= last_now);  // time is monotone
    if (last_now >= 0.0) gpu_integral += static_cast<double>(last_in_use) * (v.now - last_now);
    REQUIRE(v.gpus_in_use >= 0);
    REQUIRE(v.gpus_in_use <= v.total_gpus);
    REQUIRE(v.finished >= last_finished);
    int sum = 0;
    for (const auto& j : v.active) {
      sum += j.gpus;
      REQUIRE(j.work_done >= 0.0);
      REQUIRE(j.work_done <= j.work);  // never exceeds the work
      // GPU count and state agree: waiting <=> no GPUs.
      REQUIRE((j.gpus == 0) == (j.state == JobState::kWaiting));
      auto it = jobs.find(j.id);
      if (it != jobs.end()) {
        const Tracked& prev = it->second;
        // Progress never goes backwards, counting the work failures took back (test/sim/failures/ runs with them).
        REQUIRE(j.work_done + j.work_lost >= prev.work_done + prev.work_lost);
        // Between two checks nothing changes allocations or states, so a job that was restarting or waiting at the
        // previous check made no progress since.
        if (prev.state != JobState::kRunning) REQUIRE(j.work_done == prev.work_done);
      }
      jobs[j.id] = {j.work_done, j.work_lost, j.state, j.gpus};
    }
    REQUIRE(sum == v.gpus_in_use);
    last_now = v.now;
    last_in_use = v.gpus_in_use;
    last_finished = v.finished;
  }
};

// Integrates a job's true rate over its allocation log: after a resize/resume the job pauses for the restart cost
// of its new width, a start does not pause, a preempt stops it. Returns the samples processed and fills gpu-seconds.
double integrate_work(const Workload& wl, const EngineConfig& ec, const std::vector<AllocationEvent>& log, int job,
                      double& gpu_seconds) {
  const JobTruth& t = wl.jobs[static_cast<std::size_t>(job)];
  const JobClass& cls = wl.catalog->classes[static_cast<std::size_t>(t.class_index)];
  double work = 0.0;
  gpu_seconds = 0.0;
  int w = 0;
  double since = 0.0;  // time of the last allocation change
  double ready = 0.0;  // progress starts here (after a restart pause)
  for (const auto& e : log) {
    if (e.job != job) continue;
    if (w > 0) {
      gpu_seconds += w * (e.time - since);
      const double from = std::max(since, ready);
      if (e.time > from)
        work += class_throughput(cls, w, packed_nodes(w, ec.cluster.gpus_per_node), t.speed_factor) * (e.time - from);
    }
    REQUIRE(e.from == w);  // the log is a consistent chain
    w = e.to;
    since = e.time;
    ready = e.time;
    if (e.kind == AllocKind::kResize || e.kind == AllocKind::kResume) {
      ready = e.time + ec.restart.cost_s + ec.restart.cost_per_gpu_s * e.to;
    }
  }
  REQUIRE(w == 0);  // ends with the finish event
  return work;
}

}  // namespace

TEST_CASE("sim::Engine: invariants hold after every event for every strategy, seed and load",
          "[sim][engine][property]") {
  const auto cat = mixed_catalog();
  EngineConfig ec;
  ec.cluster.nodes = 2;
  ec.cluster.gpus_per_node = 8;
  ec.restart.cost_s = 10.0;
  ec.restart.cost_per_gpu_s = 0.5;
  for (const auto& info : strategy_infos()) {
    if (info.needs_gpu_types) continue;  // Gavel's policies: their own invariant test on GPU pools
    for (const double load : {0.5, 1.5}) {
      for (const std::uint64_t seed : {1u, 2u, 3u}) {
        DYNAMIC_SECTION(info.name << " load " << load << " seed " << seed) {
          PoissonSpec spec;
          spec.rate_per_s = rate_for_load(*cat, load, ec.total_gpus(), ec.cluster.gpus_per_node);
          spec.jobs = 30;
          spec.speed_sigma = 0.2;
          const Workload wl = generate_poisson_workload(cat, spec, seed);
          const nlohmann::json no_params = nlohmann::json::object();
          auto strat = info.make(JsonReader(no_params, "test"));
          auto beliefs = make_belief_source(info.default_beliefs, "test");
          ec.seed = seed;
          InvariantChecker chk;
          const RunResult rr = simulate(wl, *strat, *beliefs, ec, std::ref(chk));
          CHECK(chk.checks > 0);
          CHECK(chk.last_finished == spec.jobs);  // every job completes
          REQUIRE(rr.jobs.size() == wl.jobs.size());
          double sum_gs = 0.0;
          for (const auto& j : rr.jobs) {
            CHECK(j.first_start >= j.arrival);
            CHECK(j.finish > j.first_start);
            CHECK(j.finish <= rr.last_finish);
            CHECK(j.max_gpus >= 1);
            CHECK(j.max_gpus <= ec.total_gpus());
            CHECK(j.restarts >= 0);
            sum_gs += j.gpu_seconds;
            // Work conservation and per-job GPU-seconds from the allocation log.
            double gs = 0.0;
            const double done = integrate_work(wl, ec, rr.events, j.id, gs);
            CHECK(done == Approx(j.work).epsilon(1e-9));
            CHECK(gs == Approx(j.gpu_seconds).epsilon(1e-9));
          }
          // GPU-seconds: per job, in total, and as the integral of GPUs in use seen by the checker.
          CHECK(sum_gs == Approx(rr.allocated_gpu_seconds).epsilon(1e-9));
          CHECK(chk.gpu_integral == Approx(rr.allocated_gpu_seconds).epsilon(1e-9));
          CHECK(rr.allocated_gpu_seconds <= ec.total_gpus() * (rr.last_finish - rr.first_arrival) * (1 + 1e-12));
          CHECK(rr.first_arrival == wl.jobs.front().arrival);
        }
      }
    }
  }
}

namespace {
template <class T>
concept HasSpeed = requires(const T& t) {
  t.speed;
};
template <class T>
concept HasWork = requires(const T& t) {
  t.work_samples;
};
}  // namespace

TEST_CASE("sim::public_facts: a job's public part is its class's facts adjusted to the cluster, with no truth",
          "[engine]") {
  // The compiler keeps a strategy from the truth: JobPublic embeds ClassFacts, which holds no model and no work.
  static_assert(HasSpeed<JobClass> && HasWork<JobClass>);
  static_assert(!HasSpeed<JobPublic> && !HasWork<JobPublic>);
  static_assert(!HasSpeed<ClassFacts> && !HasWork<ClassFacts>);
  JobClass c;
  c.name = "k";
  c.batch_mode = BatchMode::kFixedPerWorker;
  c.batch_size = 32;
  c.model_size_mparams = 25;
  c.min_gpus = 2;
  c.max_gpus = 64;
  c.target_loss = 0.5;
  c.loss_interval_samples = 100;
  c.work_samples = 1e6;
  JobTruth t;
  t.id = 3;
  t.name = "j3";
  t.arrival = 7.0;
  t.requested_gpus = 4;
  const JobPublic p = public_facts(t, c, 16);
  CHECK(p.id == 3);
  CHECK(p.name == "j3");
  CHECK(p.arrival == 7.0);
  CHECK(p.requested_gpus == 4);
  CHECK(p.cls.name == "k");
  CHECK(p.cls.batch_mode == BatchMode::kFixedPerWorker);
  CHECK(p.cls.batch_size == 32);
  CHECK(p.cls.model_size_mparams == 25);
  CHECK(p.cls.min_gpus == 2);
  CHECK(p.cls.max_gpus == 16);      // the cluster's GPUs
  CHECK(p.cls.target_loss == 0.0);  // no loss curve: the class reports no loss
  CHECK(p.cls.loss_interval_samples == 0.0);
  c.convergence = std::make_shared<const LossCurve>(std::vector<models::LossPoint>{{0.0, 2.0}, {1e6, 0.4}});
  const JobPublic q = public_facts(t, c, 128);
  CHECK(q.cls.max_gpus == 64);
  CHECK(q.cls.target_loss == 0.5);
  CHECK(q.cls.loss_interval_samples == 100);
}

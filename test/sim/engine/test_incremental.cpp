// test/sim/engine/test_incremental.cpp — incremental strategies (Strategy::decide_changes) decide exactly what their
// dense decide() decides: every run compared field by field, bit for bit, over loads from light to overloaded,
// rigid requests, parameters, restart costs and round-based scheduling (issue 13).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>

#include "sim/beliefs/belief_sources.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"
#include "test/sanitized.h"
#include "test/sim/same_run.h"
#include "workloads/io/json_reader.h"
#include "workloads/rng.h"
#include "workloads/workload.h"

using namespace ringsched;
using ringsched::test::require_same_run;

namespace {

std::shared_ptr<const Catalog> two_class_catalog() {
  const std::string text = R"({"name": "two", "classes": [
    {"name": "resnet", "weight": 2, "batch": {"mode": "fixed_per_worker", "size": 128}, "model_size_mparams": 1.7,
     "work": {"epochs": 5, "dataset_samples": 50000, "sigma": 0.6}, "gpus": {"max": 16},
     "speed": {"kind": "eq5", "t0": 0.0026484, "t1": 0.002, "t2": 0.0918, "t3": 0.010}},
    {"name": "small", "weight": 1, "batch": {"mode": "fixed_per_worker", "size": 32, "large_batch_penalty": 0.1},
     "model_size_mparams": 0.5, "work": {"samples": 400000, "sigma": 0.4}, "gpus": {"min": 2, "max": 4},
     "speed": {"kind": "eq5", "t0": 0.001, "t1": 0.003, "t2": 0.01, "t3": 0.002}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "two.json"), "two.json"));
}

// One class of 1..16 GPUs: when jobs outnumber GPUs every job needs one, the greedy strategies' saturated case.
std::shared_ptr<const Catalog> one_class_catalog() {
  const std::string text = R"({"name": "one", "classes": [
    {"name": "resnet", "batch": {"mode": "fixed_per_worker", "size": 128}, "model_size_mparams": 1.7,
     "work": {"epochs": 5, "dataset_samples": 50000, "sigma": 0.6}, "gpus": {"max": 16},
     "speed": {"kind": "eq5", "t0": 0.0026484, "t1": 0.002, "t2": 0.0918, "t3": 0.010}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "one.json"), "one.json"));
}

struct Variant {
  std::string strategy;
  std::string params;
  std::string beliefs;
};

// Beliefs with chosen speed shapes, for afs's chain rule: by job id, concave, exactly linear (every job of that shape
// has the same r and g at every count), superlinear (g >= 1: a running job the waiting ones cannot take over from),
// exactly doubling from 1 to 2 GPUs (g = 1 = a waiting job's r: a tie the waiting job loses), a slow second GPU
// then a fast third (r rises with the count), and flat after 3 GPUs (its end point below max); speeds scaled by 1, 2 or
// 4 (exact: the same r and g, other lengths) and works in three equal groups, so lengths tie often. `learns`: every
// observation of progress shifts the job's shape and work (a belief that is not fixed, as `online` and `agent`).
class AfsShapeBelief final : public Belief {
 public:
  AfsShapeBelief(int id, bool learns) : id_(id), learns_(learns) {}
  [[nodiscard]] double throughput(int w, int nodes) const override {
    const double scale = static_cast<double>(1 << (id_ % 3));
    const double x = static_cast<double>(w);
    switch ((id_ + seen_ / 2) % 6) {
      case 0:
        return scale * x / (1.0 + 0.15 * x) / (1.0 + 0.05 * static_cast<double>(nodes - 1));
      case 1:
        return scale * x;
      case 2:
        return scale * std::pow(x, 1.5);
      case 3:
        return scale * (w <= 2 ? x : 2.0 + 0.5 * (x - 2.0));
      case 4:
        return scale * (w <= 2 ? 0.9 + 0.1 * x : 1.1 + 1.4 * std::min(x - 2.0, 1.0) + 0.2 * std::max(x - 3.0, 0.0));
      default:
        return scale * std::min(x, 3.0);
    }
  }
  [[nodiscard]] double total_work() const override { return 2e5 * static_cast<double>(1 + (id_ / 7 + seen_) % 3); }
  [[nodiscard]] std::string source() const override { return "afs-shapes"; }
  [[nodiscard]] bool fixed() const override { return !learns_; }
  [[nodiscard]] bool observes() const override { return learns_; }
  void observe_progress(double /*work_done*/) override { ++seen_; }

 private:
  int id_;
  bool learns_;
  int seen_ = 0;
};

class AfsShapeSource final : public BeliefSource {
 public:
  explicit AfsShapeSource(bool learns) : learns_(learns) {}
  [[nodiscard]] std::string name() const override { return "afs-shapes"; }
  [[nodiscard]] std::unique_ptr<Belief> make(const JobPublic& pub, const BeliefContext&,
                                             const JobTruth*) const override {
    return std::make_unique<AfsShapeBelief>(pub.id, learns_);
  }

 private:
  bool learns_;
};

}  // namespace

TEST_CASE("sim::Engine: incremental strategies decide exactly what their dense decide() decides",
          "[sim][engine][incremental]") {
  const auto two = two_class_catalog();
  const auto one = one_class_catalog();
  const std::vector<Variant> variants = {
      {"afs", "{}", "history"},
      {"afs", "{}", "oracle"},
      {"afs", "{}", "agent"},
      {"eight", "{}", "none"},
      {"eight", R"({"backfill": true, "gpus": 6})", "none"},
      {"fifo", "{}", "none"},
      {"fifo", R"({"backfill": true})", "none"},
      {"precompute", "{}", "oracle"},
      {"precompute", "{}", "history"},
      {"optimus", "{}", "oracle"},
      {"optimus", R"({"placement_order": "smallest_first"})", "history"},
      {"srtf", "{}", "history"},
      {"srtf", R"({"gpus": 4})", "oracle"},
      {"sjf", "{}", "oracle"},
      {"sjf", R"({"backfill": true, "gpus": 4})", "history"},
      {"qssf", "{}", "none"},
      {"qssf", R"({"backfill": true, "prior_s": 0})", "none"},
      {"qssf", R"({"estimator": "oracle"})", "oracle"},
      {"tiresias", "{}", "none"},
      {"tiresias", R"({"thresholds": [200, 3000, 20000], "queue_order": "entry", "gpus": 4})", "none"},
      {"tiresias", R"({"thresholds": [50], "queue_order": "arrival"})", "none"},
      {"exploratory", "{}", "history"},
      {"exploratory", R"({"reclaim": false, "widths": [2, 4], "phase_s": 60})", "oracle"},
      {"exploratory", R"({"widths": [1, 16], "phase_s": 400, "measurement_sigma": 0})", "history"},
  };
  int incremental_seen = 0;
  for (const auto& v : variants) {
    for (const double load : {0.1, 0.4, 1.2, 4.0}) {
      for (const double interval : {0.0, 60.0}) {
        for (const std::uint64_t seed : {1u, 2u, 3u}) {
          // Two classes on 12 GPUs, where jobs compete for GPUs at every load, and on 96 (seed 2), where light loads
          // leave GPUs over; one class of 1-GPU minimum on 12 GPUs (seed 3).
          const int nodes = seed == 2 ? 24 : 3;
          const auto& cat = seed == 3 ? one : two;
          DYNAMIC_SECTION(v.strategy << " " << v.params << " load " << load << " interval " << interval << " seed "
                                     << seed) {
            EngineConfig ec;
            ec.cluster.nodes = nodes;
            ec.cluster.gpus_per_node = 4;
            ec.restart.cost_s = seed == 1 ? 10.0 : 0.0;
            ec.restart.cost_per_gpu_s = 0.5;
            ec.scheduler.interval_s = interval;
            ec.seed = seed;
            PoissonSpec spec;
            spec.rate_per_s = rate_for_load(*cat, load, ec.total_gpus(), ec.cluster.gpus_per_node);
            spec.jobs = 120;
            spec.speed_sigma = 0.3;
            Workload wl = generate_poisson_workload(cat, spec, seed);
            // Rigid requests of 1..12 GPUs on two jobs in three (a trace's num_gpus), some above a class's max.
            for (auto& j : wl.jobs) {
              if (j.id % 3 != 0) j.requested_gpus = 1 + (j.id * 7) % 12;
            }
            const auto params = nlohmann::json::parse(v.params);
            const StrategyInfo info = find_strategy(v.strategy, "test");
            auto inc = info.make(JsonReader(params, "test"));
            auto dense = info.make(JsonReader(params, "test"));
            REQUIRE(inc->incremental());
            ++incremental_seen;
            auto beliefs = make_belief_source(v.beliefs, "test");
            const RunResult a = simulate(wl, *inc, *beliefs, ec);
            ec.dense_snapshots = true;
            const RunResult b = simulate(wl, *dense, *beliefs, ec);
            REQUIRE(a.jobs.size() == 120);
            require_same_run(a, b);
          }
        }
      }
    }
  }
  CHECK(incremental_seen > 0);
}

TEST_CASE(
    "sim::Engine: greedy strategies, srtf, exploratory and afs match their dense decide() with hundreds of jobs "
    "competing",
    "[sim][engine][incremental]") {
  // Hundreds of active jobs on 320 GPUs with GPUs left over at their minimum: the lazy greedy's regime (it starts at
  // 256 active jobs), and the saturated and plentiful ones as the queue grows and drains.
  const auto cat = one_class_catalog();
  for (const char* strategy : {"precompute", "optimus", "srtf", "exploratory", "afs"}) {
    for (const double load : {0.9, 1.3}) {
      DYNAMIC_SECTION(strategy << " load " << load) {
        EngineConfig ec;
        ec.cluster.nodes = 40;
        ec.cluster.gpus_per_node = 8;
        ec.restart.cost_s = 10.0;
        ec.seed = 5;
        PoissonSpec spec;
        spec.rate_per_s = rate_for_load(*cat, load, ec.total_gpus(), ec.cluster.gpus_per_node);
        spec.jobs = ringsched::test::kSanitized ? 500 : 1500;
        spec.speed_sigma = 0.3;
        const Workload wl = generate_poisson_workload(cat, spec, 5);
        const StrategyInfo info = find_strategy(strategy, "test");
        const nlohmann::json params = nlohmann::json::object();
        auto inc = info.make(JsonReader(params, "test"));
        auto dense = info.make(JsonReader(params, "test"));
        auto beliefs = make_belief_source("oracle", "test");
        const RunResult a = simulate(wl, *inc, *beliefs, ec);
        ec.dense_snapshots = true;
        const RunResult b = simulate(wl, *dense, *beliefs, ec);
        require_same_run(a, b);
      }
    }
  }
}

TEST_CASE(
    "sim::Engine: exploratory matches its dense decide() when explored jobs outnumber the GPUs exploration leaves",
    "[sim][engine][incremental]") {
  // Two classes of 1-GPU minimum with different reservations (8 and 2 GPUs), on 16 GPUs: explored jobs outnumber the
  // GPUs left (the greedy's saturated case) under a budget that changes whenever an exploration starts or ends, and a
  // narrow job that starts exploring before an earlier wide one joins the greedy first.
  const std::string text = R"({"name": "mixed", "classes": [
    {"name": "wide", "batch": {"mode": "fixed_per_worker", "size": 128}, "model_size_mparams": 1.7,
     "work": {"samples": 300000, "sigma": 0.8}, "gpus": {"max": 16},
     "speed": {"kind": "eq5", "t0": 0.0026484, "t1": 0.002, "t2": 0.0918, "t3": 0.010}},
    {"name": "narrow", "batch": {"mode": "fixed_per_worker", "size": 32}, "model_size_mparams": 0.5,
     "work": {"samples": 100000, "sigma": 0.8}, "gpus": {"max": 2},
     "speed": {"kind": "eq5", "t0": 0.001, "t1": 0.003, "t2": 0.01, "t3": 0.002}}
  ]})";
  const auto cat = std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "mixed.json"), "mixed.json"));
  for (const char* params : {R"({"phase_s": 60})", R"({"phase_s": 90, "reclaim": false})"}) {
    for (const double load : {1.5, 4.0}) {
      DYNAMIC_SECTION(params << " load " << load) {
        EngineConfig ec;
        ec.cluster.nodes = 2;
        ec.cluster.gpus_per_node = 8;
        ec.restart.cost_s = 5.0;
        ec.seed = 11;
        PoissonSpec spec;
        spec.rate_per_s = rate_for_load(*cat, load, ec.total_gpus(), ec.cluster.gpus_per_node);
        spec.jobs = 400;
        spec.speed_sigma = 0.3;
        const Workload wl = generate_poisson_workload(cat, spec, 11);
        const StrategyInfo info = find_strategy("exploratory", "test");
        const nlohmann::json p = nlohmann::json::parse(params);
        auto inc = info.make(JsonReader(p, "test"));
        auto dense = info.make(JsonReader(p, "test"));
        auto beliefs = make_belief_source("history", "test");
        ec.dense_snapshots = true;
        RunResult b;
        REQUIRE_NOTHROW(b = simulate(wl, *dense, *beliefs, ec));
        ec.dense_snapshots = false;
        const RunResult a = simulate(wl, *inc, *beliefs, ec);
        REQUIRE(a.jobs.size() == 400);
        require_same_run(a, b);
      }
    }
  }
}

TEST_CASE("sim::Engine: afs matches its dense decide() with hundreds of jobs, ties and multi-GPU minimums",
          "[sim][engine][incremental]") {
  // Hundreds of jobs wait for 160 GPUs (the hand-out fills every GPU, the frontier passes jobs whose minimum no
  // longer fits) or fit with GPUs left over as the queue drains (the end-point case); the two-class catalog's jobs
  // need 2 GPUs at least. Beliefs: the catalog's (history: every job of a class has the same speeds and work, so
  // waiting jobs tie on length; oracle), and shaped beliefs, fixed and learning.
  const auto one = one_class_catalog();
  const auto two = two_class_catalog();
  const AfsShapeSource shapes(false);
  const AfsShapeSource learning(true);
  const auto history = make_belief_source("history", "test");
  const auto oracle = make_belief_source("oracle", "test");
  const std::vector<std::pair<std::string, const BeliefSource*>> sources = {
      {"history", history.get()}, {"oracle", oracle.get()}, {"shapes", &shapes}, {"learning shapes", &learning}};
  for (const auto& [belief_name, source] : sources) {
    for (const bool two_classes : {false, true}) {
      for (const double load : {0.7, 1.5}) {
        DYNAMIC_SECTION(belief_name << (two_classes ? " two classes" : " one class") << " load " << load) {
          const auto& cat = two_classes ? two : one;
          EngineConfig ec;
          ec.cluster.nodes = 20;
          ec.cluster.gpus_per_node = 8;
          ec.restart.cost_s = 10.0;
          ec.seed = 7;
          PoissonSpec spec;
          spec.rate_per_s = rate_for_load(*cat, load, ec.total_gpus(), ec.cluster.gpus_per_node);
          spec.jobs = ringsched::test::kSanitized ? 250 : 700;
          spec.speed_sigma = belief_name == "history" ? 0.0 : 0.3;
          const Workload wl = generate_poisson_workload(cat, spec, 7);
          const StrategyInfo info = find_strategy("afs", "test");
          const nlohmann::json params = nlohmann::json::object();
          auto inc = info.make(JsonReader(params, "test"));
          auto dense = info.make(JsonReader(params, "test"));
          const RunResult a = simulate(wl, *inc, *source, ec);
          ec.dense_snapshots = true;
          const RunResult b = simulate(wl, *dense, *source, ec);
          REQUIRE(a.jobs.size() == static_cast<std::size_t>(spec.jobs));
          require_same_run(a, b);
        }
      }
    }
  }
}

// test/strategies/test_typed_strategies.cpp — srtf, tiresias, afs and exploratory on a typed cluster (Snapshot::pools):
// hand-computed decisions on two pools with beliefs per GPU type, and runs on a typed cluster with oracle beliefs
// checking that every job completes and no pool holds more GPUs than it has.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.h"
#include "strategies/common/allocation.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"
#include "workloads/workload.h"

using namespace ringsched;

namespace {

// Believed throughput per GPU type from a table: tput_on("slow"/"fast", w) = the w-th entry (w >= 1; past the table's
// end, the last entry); throughput() answers as "fast".
class StTableBelief final : public Belief {
 public:
  StTableBelief(std::vector<double> slow, std::vector<double> fast, double work)
      : slow_(std::move(slow)), fast_(std::move(fast)), work_(work) {}
  [[nodiscard]] double throughput(int w, int nodes) const override { return throughput_on("fast", w, nodes); }
  [[nodiscard]] double throughput_on(const std::string& type, int w, int /*nodes*/) const override {
    const auto& t = type == "fast" ? fast_ : slow_;
    if (w <= 0) return 0.0;
    return t[std::min(static_cast<std::size_t>(w), t.size()) - 1];
  }
  [[nodiscard]] double total_work() const override { return work_; }
  [[nodiscard]] std::string source() const override { return "table"; }

 private:
  std::vector<double> slow_, fast_;
  double work_;
};

// Linear speeds: `slow` and `fast` samples/s per GPU, up to 8 GPUs.
StTableBelief st_linear(double slow, double fast, double work) {
  std::vector<double> s, f;
  for (int w = 1; w <= 8; ++w) {
    s.push_back(slow * w);
    f.push_back(fast * w);
  }
  return StTableBelief(s, f, work);
}

// A typed snapshot of jobs 0..n-1 (pools slow then fast), with their beliefs, sizes and limits.
struct StScene {
  std::vector<JobPublic> pubs;
  std::vector<StTableBelief> beliefs;
  std::vector<JobView> views;
  std::vector<PoolInfo> pools;
  Snapshot snap;
  void add(StTableBelief b, int min_gpus, int max_gpus, int requested = 0) {
    JobPublic p;
    p.id = static_cast<int>(pubs.size());
    p.requested_gpus = requested;
    p.cls.min_gpus = min_gpus;
    p.cls.max_gpus = max_gpus;
    p.cls.batch_mode = BatchMode::kFixedGlobal;
    p.cls.batch_size = 100.0;
    p.cls.model_size_mparams = 1.0;
    pubs.push_back(p);
    beliefs.push_back(std::move(b));
  }
  Snapshot& make(int slow_gpus, int fast_gpus, bool with_beliefs = true) {
    pools = {{"slow", slow_gpus, slow_gpus}, {"fast", fast_gpus, fast_gpus}};
    views.assign(pubs.size(), JobView{});
    for (std::size_t i = 0; i < pubs.size(); ++i) {
      views[i].pub = &pubs[i];
      views[i].belief = with_beliefs ? &beliefs[i] : nullptr;
    }
    snap.total_gpus = slow_gpus + fast_gpus;
    snap.gpus_per_node = std::max(slow_gpus, fast_gpus);
    snap.jobs = views;
    snap.pools = pools;
    return snap;
  }
};

std::unique_ptr<Strategy> st_make(const std::string& name, const nlohmann::json& params) {
  return find_strategy(name, "test").make(JsonReader(params, "test"));
}

}  // namespace

TEST_CASE(
    "strategies::srtf: on GPU pools, shortest believed time on the fastest type first, each to its fastest "
    "pool with room",
    "[strategies][pools]") {
  // Pools: slow 4, fast 4. A: 4 GPUs, 800 samples, 5/10 per GPU (slow/fast): at best 800 / 40 = 20 s. B: 2 GPUs, 200
  // samples, 8/10: 200 / 20 = 10 s. C: 2 GPUs, 1,000 samples, 9/10: 1,000 / 20 = 50 s. Order B, A, C.
  // B: fast (20 > 16). A: fast has 2 left, so slow (4). C: slow is full, fast has 2.
  StScene sc;
  sc.add(st_linear(5, 10, 800), 1, 8, 4);
  sc.add(st_linear(8, 10, 200), 1, 8, 2);
  sc.add(st_linear(9, 10, 1000), 1, 8, 2);
  Snapshot& s = sc.make(4, 4);
  auto srtf = st_make("srtf", nlohmann::json::object());
  const Decision d = srtf->decide(s);
  CHECK(d.gpus() == std::vector<int>{4, 2, 2});
  CHECK(d.jobs[0].pool == 0);
  CHECK(d.jobs[1].pool == 1);
  CHECK(d.jobs[2].pool == 1);
  // C alone, equally fast on both (10/GPU): the pool it holds (slow) wins the tie; not holding, the first pool.
  StScene one;
  one.add(st_linear(10, 10, 1000), 1, 8, 2);
  Snapshot& s1 = one.make(4, 4);
  CHECK(srtf->decide(s1).jobs[0].pool == 0);
  one.views[0].gpus = 2;
  one.views[0].pool = 1;
  const Decision kept = srtf->decide(s1);
  CHECK(kept.jobs[0].gpus == 2);
  CHECK(kept.jobs[0].pool == 1);
  // A job larger than every pool's room waits (skipped), later ones still start.
  StScene big;
  big.add(st_linear(1, 1, 10), 1, 8, 6);  // shortest, but 6 GPUs fit no pool of 4
  big.add(st_linear(1, 2, 1000), 1, 8, 4);
  Snapshot& sb = big.make(4, 4);
  const Decision db = srtf->decide(sb);
  CHECK(db.gpus() == std::vector<int>{0, 4});
  CHECK(db.jobs[1].pool == 1);
}

TEST_CASE("strategies::tiresias: on GPU pools, LAS queues as before, each job to the fastest pool with room",
          "[strategies][pools]") {
  // Pools: slow 4, fast 4; threshold 100 GPU-seconds. A: 4 GPUs, 0 attained (queue 0), 5/10 per GPU. B: 4 GPUs, 500
  // attained (queue 1), 8/10. C: 2 GPUs, 0 attained (queue 0), 9/10. Order A, C (queue 0, arrival), B.
  // With beliefs: A fast (40 > 20); C slow (fast is full); B: 2 left on slow, none on fast: waits.
  // Without beliefs: A slow (the first pool), C fast, B waits.
  StScene sc;
  sc.add(st_linear(5, 10, 1000), 1, 8, 4);
  sc.add(st_linear(8, 10, 1000), 1, 8, 4);
  sc.add(st_linear(9, 10, 1000), 1, 8, 2);
  Snapshot& s = sc.make(4, 4);
  sc.views[1].attained_gpu_seconds = 500.0;
  auto tiresias = st_make("tiresias", {{"thresholds", {100}}});
  const Decision d = tiresias->decide(s);
  CHECK(d.gpus() == std::vector<int>{4, 0, 2});
  CHECK(d.jobs[0].pool == 1);
  CHECK(d.jobs[2].pool == 0);
  // The wake-up: A crosses 100 GPU-seconds at 100 / 4 = 25 s, C at 100 / 2 = 50 s.
  CHECK(d.wakeup_at == Approx(25.0));
  Snapshot& blind = sc.make(4, 4, false);
  sc.views[1].attained_gpu_seconds = 500.0;
  const Decision b = tiresias->decide(blind);
  CHECK(b.gpus() == std::vector<int>{4, 0, 2});
  CHECK(b.jobs[0].pool == 0);
  CHECK(b.jobs[2].pool == 1);
}

TEST_CASE("strategies::afs: on GPU pools, the AFS rule over (job, pool) steps", "[strategies][pools]") {
  // Pools: slow 2, fast 2 (one node each). Throughputs (slow / fast) at 1, 2 GPUs:
  //   A: 100 samples, 5, 5.5 / 10, 11 (scales poorly); length 100 / 10 = 10 s.
  //   C: 500 samples, 6, 12 / 10, 20;                      length 50 s.
  //   B: 1,000 samples, 4, 8 / 10, 20;                     length 100 s.
  // Order A, C, B. GPU 1: A waiting, best on fast (10): gain inf; nobody beats inf. A 1 fast.
  // GPU 2: A's step 2 on fast (11; slow at 2 gives 5.5): relative gain 0.1. C waiting (fast 10): 10/10 = 1 > 0.1
  //   wins, its own gain inf. B: 1 > inf no. C 1 fast; fast is full.
  // GPU 3: A: 2 on slow is 5.5 < 10, no step. C: 2 on slow (a move) 12 > 10, gain 0.2. B waiting: 1 on slow (4),
  //   4/4 = 1 > 0.2: B wins. B 1 slow.
  // GPU 4: A: no room for 2 anywhere. C: no room for 2. B: 2 on slow, (8 - 4) / 4 = 1: B 2 slow.
  StScene sc;
  sc.add(StTableBelief({5, 5.5}, {10, 11}, 100), 1, 2);
  sc.add(StTableBelief({4, 8}, {10, 20}, 1000), 1, 2);
  sc.add(StTableBelief({6, 12}, {10, 20}, 500), 1, 2);
  Snapshot& s = sc.make(2, 2);
  auto afs = st_make("afs", nlohmann::json::object());
  const Decision d = afs->decide(s);
  CHECK(d.gpus() == std::vector<int>{1, 2, 1});
  CHECK(d.jobs[0].pool == 1);
  CHECK(d.jobs[1].pool == 0);
  CHECK(d.jobs[2].pool == 1);
  // Without B: at GPU 3 C moves to slow with 2 GPUs (12 > 10), freeing a fast GPU; then A grows to 2 on fast (11).
  StScene two;
  two.add(StTableBelief({5, 5.5}, {10, 11}, 100), 1, 2);
  two.add(StTableBelief({6, 12}, {10, 20}, 500), 1, 2);
  Snapshot& s2 = two.make(2, 2);
  const Decision d2 = afs->decide(s2);
  CHECK(d2.gpus() == std::vector<int>{2, 2});
  CHECK(d2.jobs[0].pool == 1);
  CHECK(d2.jobs[1].pool == 0);
}

namespace {

// Measures a job's speed as 100 samples/s per GPU on the slow pool and 300 on the fast one (no noise), from the
// views the test keeps.
class StPoolProbe final : public Probe {
 public:
  explicit StPoolProbe(const std::vector<JobView>& views) : views_(views) {}
  double measure_throughput(int job_id, double /*sigma*/) override {
    const JobView& v = views_[static_cast<std::size_t>(job_id)];
    ++calls;
    return (v.pool == 1 ? 300.0 : 100.0) * v.gpus;
  }
  int calls = 0;

 private:
  const std::vector<JobView>& views_;
};

}  // namespace

TEST_CASE("strategies::exploratory: on GPU pools, each width on each type in turn, then doubling over types",
          "[strategies][pools]") {
  // Pools: slow 2, fast 2; widths [1, 2], phase 10 s: a job's phases are slow 1, slow 2, fast 1, fast 2, holding a
  // reservation of 2 on the pool of its phase. A and B arrive at 0 (1,000,000 samples each, 1..2 GPUs).
  StScene sc;
  sc.add(st_linear(1, 1, 1e6), 1, 2);
  sc.add(st_linear(1, 1, 1e6), 1, 2);
  Snapshot& s = sc.make(2, 2);
  StPoolProbe probe(sc.views);
  s.probe = &probe;
  auto ex = st_make("exploratory", {{"widths", {1, 2}}, {"phase_s", 10}, {"measurement_sigma", 0}});
  const auto step = [&](double now) {
    s.now = now;
    const Decision d = ex->decide(s);
    for (std::size_t i = 0; i < sc.views.size(); ++i) {
      sc.views[i].gpus = d.jobs[i].gpus;
      sc.views[i].pool = d.jobs[i].gpus > 0 ? d.jobs[i].pool : 0;
    }
    return d;
  };
  // t=0: A enters slow (reservation 2: all of it); B waits for room on slow.
  Decision d = step(0.0);
  CHECK(d.gpus() == std::vector<int>{1, 0});
  CHECK(d.jobs[0].pool == 0);
  CHECK(d.wakeup_at == Approx(10.0));
  // t=10: A measured slow 1, runs slow 2.
  d = step(10.0);
  CHECK(d.gpus() == std::vector<int>{2, 0});
  CHECK(d.jobs[0].pool == 0);
  // t=20: A moves to fast (room for its reservation there); B enters slow.
  d = step(20.0);
  CHECK(d.gpus() == std::vector<int>{1, 1});
  CHECK(d.jobs[0].pool == 1);
  CHECK(d.jobs[1].pool == 0);
  CHECK(d.wakeup_at == Approx(30.0));
  d = step(30.0);  // A fast 2, B slow 2
  CHECK(d.gpus() == std::vector<int>{2, 2});
  CHECK(d.jobs[0].pool == 1);
  // t=40: A is explored (Eq. 5 fitted per type: 100 w on slow, 300 w on fast); B moves to fast and its reservation
  // (2) fits there. The explored A shares what reservations leave: slow 2, fast 0: 1 on slow, doubled to 2 (twice as
  // fast).
  d = step(40.0);
  CHECK(d.gpus() == std::vector<int>{2, 1});
  CHECK(d.jobs[0].pool == 0);
  CHECK(d.jobs[1].pool == 1);
  // t=60: B explored too; no reservation is left. Entry in arrival order at 1 GPU on the type where each finishes
  // soonest: A fast (300 > 100), B fast. Growing either to 2 needs 2 free GPUs: only on slow, where 2 GPUs (200/s)
  // are slower than 1 fast (300/s): no gain, so both stay at 1 on fast and the slow pool idles.
  step(50.0);
  d = step(60.0);
  CHECK(d.gpus() == std::vector<int>{1, 1});
  CHECK(d.jobs[0].pool == 1);
  CHECK(d.jobs[1].pool == 1);
  CHECK(probe.calls == 8);  // four phases each
}

namespace {

// Two classes on two types: "lin" 2x faster on fast, "flat" scales poorly and is 4x faster on fast.
std::shared_ptr<const Catalog> st_typed_catalog() {
  const std::string text = R"({"name": "typed", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 256}, "model_size_mparams": 25,
     "work": {"samples": 2000000, "sigma": 0.3}, "gpus": {"min": 1, "max": 8},
     "speed": {"kind": "eq5", "t0": 0.0005, "t1": 0.004, "t2": 0.0005, "t3": 0.01},
     "speed_by_type": {"fast": {"kind": "eq5", "t0": 0.0005, "t1": 0.004, "t2": 0.0005, "t3": 0.01},
                       "slow": {"kind": "eq5", "t0": 0.001, "t1": 0.004, "t2": 0.0005, "t3": 0.02}}},
    {"name": "flat", "batch": {"mode": "fixed_global", "size": 64}, "model_size_mparams": 100,
     "work": {"samples": 400000, "sigma": 0.3}, "gpus": {"min": 1, "max": 4},
     "speed": {"kind": "eq5", "t0": 0.004, "t1": 0.002, "t2": 0.0002, "t3": 0.02},
     "speed_by_type": {"fast": {"kind": "eq5", "t0": 0.004, "t1": 0.002, "t2": 0.0002, "t3": 0.02},
                       "slow": {"kind": "eq5", "t0": 0.016, "t1": 0.002, "t2": 0.0002, "t3": 0.08}}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "typed.json"), "typed.json"));
}

}  // namespace

TEST_CASE(
    "strategies::typed strategies: srtf, tiresias, afs, exploratory, sjf and qssf complete every job on GPU pools "
    "without over-using a pool",
    "[strategies][pools][engine]") {
  const auto cat = st_typed_catalog();
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"slow", 2, 4, nullptr}, GpuPool{"fast", 1, 4, nullptr}};
  ec.cluster.nodes = 3;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = 10.0;
  // exploratory twice: reclaiming GPUs for exploration (the default) and waiting for free ones.
  const std::vector<std::pair<std::string, nlohmann::json>> runs = {
      {"srtf", nlohmann::json::object()},    {"tiresias", nlohmann::json::object()},
      {"afs", nlohmann::json::object()},     {"exploratory", nlohmann::json::object()},
      {"exploratory", {{"reclaim", false}}}, {"sjf", nlohmann::json::object()},
      {"qssf", nlohmann::json::object()}};
  for (const auto& [name, params] : runs) {
    REQUIRE(find_strategy(name, "test").gpu_types);
    for (const std::string beliefs : {"oracle", "history"}) {
      for (const std::uint64_t seed : {1u, 2u}) {
        DYNAMIC_SECTION(name << " " << params.dump() << " beliefs " << beliefs << " seed " << seed) {
          PoissonSpec spec;
          spec.rate_per_s = rate_for_load(*cat, 1.2, ec.total_gpus(), 4);
          spec.jobs = 25;
          spec.speed_sigma = 0.2;
          const Workload wl = generate_poisson_workload(cat, spec, seed);
          auto strat = st_make(name, params);
          auto source = make_belief_source(beliefs, "test");
          ec.seed = seed;
          int finished = 0;
          long checks = 0;
          std::vector<std::string> problems;
          const RunResult r = simulate(wl, *strat, *source, ec, [&](const EngineCheckView& v) {
            ++checks;
            finished = v.finished;
            if (v.pool_gpus.size() != 2) problems.push_back("pools");
            int sum = 0;
            for (std::size_t p = 0; p < v.pool_gpus.size(); ++p) {
              if (v.pool_gpus_in_use[p] < 0 || v.pool_gpus_in_use[p] > v.pool_gpus[p]) problems.push_back("pool");
              sum += v.pool_gpus_in_use[p];
            }
            if (sum != v.gpus_in_use) problems.push_back("sum");
          });
          CHECK(checks > 0);
          CHECK(problems.empty());
          CHECK(finished == spec.jobs);
          REQUIRE(r.jobs.size() == wl.jobs.size());
          REQUIRE(r.pool_gpu_seconds.size() == 2);
          double fast_use = r.pool_gpu_seconds[1];
          CHECK(fast_use > 0.0);  // every one of them uses the fast type
          for (const auto& j : r.jobs) {
            CHECK(j.finish > j.arrival);
            CHECK((j.gpu_type == "fast" || j.gpu_type == "slow"));
          }
        }
      }
    }
  }
}

TEST_CASE("strategies::typed_greedy_allocation: a move to another type looks past the next count",
          "[strategies][pools]") {
  // Pools: fast 1 GPU, slow 4. One job, 1,200 samples, at most 4 GPUs: 12 per GPU on fast, 5 per GPU on slow.
  // Entry: fast 1 (100 s; slow 1 takes 240 s). Fast is full. On slow, 2 GPUs take 120 s (a loss of 20 s per added
  // GPU) but 4 take 60 s: (100 - 60) / 3 = 13.3 s per added GPU, the best step for doubling and for unit steps (3 GPUs
  // take 80 s: 10 per added GPU). So it moves to slow 4 (before, only 2 was looked at and it stayed on fast at 1).
  StScene sc;
  sc.add(st_linear(5, 12, 1200), 1, 4);
  Snapshot& s = sc.make(4, 1);
  for (const bool unit : {false, true}) {
    const Decision d = typed_greedy_allocation(s, {0}, unit);
    CHECK(d.jobs[0].gpus == 4);
    CHECK(d.jobs[0].pool == 0);
  }
}

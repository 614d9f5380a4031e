// test/strategies/test_gavel_policies_more.cpp — the rest of Gavel's policies (gavel_policies_more.h): each program on
// a small instance solved by hand, Gavel's own test cases (scheduler/tests/policies_tests.py test_isolated,
// test_allox), priority weights from a trace to the max-min program, and an engine run of each new strategy on
// Gavel's cluster keeping the invariants.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/engine/engine.h"
#include "sim/engine/public_facts.h"
#include "sim/experiments/replicate.h"
#include "strategies/gavel/gavel_allocation.h"
#include "strategies/gavel/gavel_policies_more.h"
#include "strategies/registry.h"
#include "traces/gavel_trace.h"
#include "traces/trace_workload.h"
#include "workloads/gavel.h"

using namespace ringsched;

namespace {

GavelProblem more_problem(std::vector<std::vector<double>> tput, std::vector<int> sf, std::vector<int> workers) {
  GavelProblem p;
  p.throughput = std::move(tput);
  p.scale_factor = std::move(sf);
  p.priority_weight.assign(p.scale_factor.size(), 1.0);
  p.workers = std::move(workers);
  for (std::size_t i = 0; i < p.scale_factor.size(); ++i)
    p.ids.push_back(static_cast<int>(i));
  return p;
}

std::shared_ptr<const Catalog> more_gavel_cat() {
  static const auto cat = std::make_shared<const Catalog>(gavel_catalog(default_gavel_dir()));
  return cat;
}

// 8 V100 + 8 P100 + 8 K80 and `jobs` jobs from Gavel's generator at `rate` per hour (single- or multi-GPU), one seed.
nlohmann::json more_gavel_config(int jobs, double rate, bool multi_gpu) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"pools": [{"gpu_type": "v100", "nodes": 8, "gpus_per_node": 1},
                          {"gpu_type": "p100", "nodes": 8, "gpus_per_node": 1},
                          {"gpu_type": "k80", "nodes": 8, "gpus_per_node": 1}]},
    "workload": {"catalog": "gavel", "arrival": {"process": "gavel"}},
    "scheduler": {"interval_s": 360}, "restart": {"cost_s": 0}, "seeds": 1})");
  doc["workload"]["jobs"] = jobs;
  doc["workload"]["arrival"]["multi_gpu"] = multi_gpu;
  doc["levels"] = nlohmann::json::array({{{"name", "r"}, {"rate_per_hour", rate}}});
  return doc;
}

// One run with the engine's checks after every event: time never goes back, no pool holds more GPUs than it has.
RunResult more_checked_run(const ExperimentConfig& c, const StrategySpec& spec, const Workload& wl, int& violations) {
  auto strat = find_strategy(spec.name, "test").make(JsonReader(spec.params, "test"));
  auto beliefs = make_belief_source(spec.beliefs, "test");
  const EngineConfig ec = engine_config(c, 1, false);
  double last = 0.0;
  violations = 0;
  return simulate(wl, *strat, *beliefs, ec, [&](const EngineCheckView& v) {
    violations += v.now < last ? 1 : 0;
    last = v.now;
    for (std::size_t p = 0; p < v.pool_gpus.size(); ++p)
      violations += v.pool_gpus_in_use[p] > v.pool_gpus[p] || v.pool_gpus_in_use[p] < 0 ? 1 : 0;
  });
}

}  // namespace

TEST_CASE("strategies::GavelMaxSumThroughput: two jobs, two single GPUs, by hand", "[gavel]") {
  // Job 0: 2 and 1 steps/s on types 0 and 1; job 1: 3 and 1; one GPU of each. The assignment polytope's two vertices:
  // job 0 on type 0 and job 1 on type 1, 2 + 1 = 3; the other way, 1 + 3 = 4: the unique optimum.
  const GavelAllocation a = max_sum_throughput(more_problem({{2.0, 1.0}, {3.0, 1.0}}, {1, 1}, {1, 1}));
  REQUIRE(a.optimal);
  CHECK(a.objective == Approx(4.0));
  CHECK(a.x[0][0] == Approx(0.0).margin(1e-9));
  CHECK(a.x[0][1] == Approx(1.0));
  CHECK(a.x[1][0] == Approx(1.0));
  CHECK(a.x[1][1] == Approx(0.0).margin(1e-9));
}

TEST_CASE("strategies::GavelMaxSumThroughput: a 2-GPU job takes the fast type, scale factors in the capacity rows",
          "[gavel]") {
  // T = [[4, 1], [3, 2], [1, 1.5]] steps/s (job x type), s = [2, 1, 1], N = [2, 2]. Candidate: job 0 on both type-0
  // GPUs (4), jobs 1 and 2 on type 1 (2 + 1.5): 7.5, though job 1 makes more per GPU on type 0 (3 > 2). Duals: type
  // capacities u = (1.95, 0.9), job budgets v = (0.1, 1.1, 0.6): T[i][k] <= s[i] u[k] + v[i] for every (i, k), equal
  // on the three used pairs, strictly above on the others (x01: 1.9 > 1, x10: 3.05 > 3, x20: 2.55 > 1), and the dual
  // objective 2 (1.95 + 0.9) + 0.1 + 1.1 + 0.6 = 7.5: optimal and, complementary slackness being strict, unique.
  // Gavel's objective has no normalisation (its `scale` = 1 / sum_k T is computed and unused).
  const GavelAllocation a = max_sum_throughput(more_problem({{4.0, 1.0}, {3.0, 2.0}, {1.0, 1.5}}, {2, 1, 1}, {2, 2}));
  REQUIRE(a.optimal);
  CHECK(a.objective == Approx(7.5));
  const std::vector<std::vector<double>> want = {{1.0, 0.0}, {0.0, 1.0}, {0.0, 1.0}};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t k = 0; k < 2; ++k)
      CHECK(a.x[i][k] == Approx(want[i][k]).margin(1e-9));
  CHECK(max_sum_throughput(more_problem({}, {}, {1, 1})).optimal);  // no job: nothing to allocate
}

TEST_CASE("strategies::GavelIsolated: each job's 1/m share, normalised to one unit of time, by hand", "[gavel]") {
  // N = [4, 2], s = [1, 2, 1], m = 3. Job 0: (4/3, 2/3), sum 2 -> (2/3, 1/3); job 1: (4/6, 2/6), sum 1 -> kept;
  // job 2 as job 0. Type 0 holds 2/3 + 2 x 2/3 + 2/3 = 8/3 of its 4 GPUs, type 1 4/3 of 2.
  const GavelAllocation a = isolated_allocation(more_problem({{1, 1}, {1, 1}, {0, 5}}, {1, 2, 1}, {4, 2}));
  REQUIRE(a.optimal);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a.x[i][0] == Approx(2.0 / 3.0));
    CHECK(a.x[i][1] == Approx(1.0 / 3.0));
  }
}

TEST_CASE("strategies::GavelGandivaFair: Shockwave's equal time share, not divided by a job's GPUs, by hand",
          "[gavel]") {
  // N = [2, 1], s = [1, 2, 1], m = 3: gandiva_fair gives every job (2/3, 1/3) (row sum 1, kept), the 2-GPU job
  // too; isolated divides job 1's share by its 2 GPUs, (1/3, 1/6) (row sum 1/2, kept), and gives the others (2/3, 1/3).
  const GavelAllocation a = gandiva_fair_allocation(more_problem({{1, 1}, {1, 1}, {0, 5}}, {1, 2, 1}, {2, 1}));
  const GavelAllocation iso = isolated_allocation(more_problem({{1, 1}, {1, 1}, {0, 5}}, {1, 2, 1}, {2, 1}));
  REQUIRE(a.optimal);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a.x[i][0] == Approx(2.0 / 3.0));
    CHECK(a.x[i][1] == Approx(1.0 / 3.0));
  }
  CHECK(iso.x[1][0] == Approx(1.0 / 3.0));
  CHECK(iso.x[1][1] == Approx(1.0 / 6.0));
  CHECK(iso.x[0][0] == Approx(2.0 / 3.0));
}

TEST_CASE("strategies::GavelIsolated: Gavel's test_isolated, the smallest GPU share equals LAS's", "[gavel]") {
  // policies_tests.py test_isolated: T0 = (2, 1, 0.5), T1 = (3, 2, 1) on (v100, p100, k80); for every scale factor
  // pair and cluster, min_i s[i] sum_k x[i][k] is the same under isolated and max-min fairness (LAS). E.g. s = (2, 1)
  // on 4 + 4 + 4: isolated gives job 1 (4/2 each type, sum 6) 1/3 of each, s sum x = 1; LAS's t* = 1 (job 1's budget).
  const std::vector<std::vector<int>> sfs = {{1, 1}, {2, 1}, {2, 2}, {4, 1}};
  const std::vector<std::vector<int>> clusters = {{4, 4, 4}, {4, 8, 6}};
  for (const auto& sf : sfs) {
    for (const auto& n : clusters) {
      const GavelProblem p = more_problem({{2.0, 1.0, 0.5}, {3.0, 2.0, 1.0}}, sf, n);
      const GavelAllocation iso = isolated_allocation(p);
      const GavelAllocation las = max_min_fairness(p, false);
      REQUIRE(las.optimal);
      const auto least = [&](const GavelAllocation& a) {
        double out = 1e300;
        for (std::size_t i = 0; i < 2; ++i)
          out = std::min(out, sf[i] * std::accumulate(a.x[i].begin(), a.x[i].end(), 0.0));
        return out;
      };
      INFO(sf[0] << "," << sf[1] << " on " << n[0] << "," << n[1] << "," << n[2]);
      CHECK(least(iso) == Approx(least(las)));
    }
  }
  CHECK(sfs.size() * clusters.size() == 8);
}

TEST_CASE("strategies::GavelAgnostic: min_total_duration plans with the reference type's throughput, by hand",
          "[gavel]") {
  // Two jobs of 200 steps, 2 steps/s on v100 (type 0) and 1 on k80 (type 1), one GPU of each. Agnostic: 2 steps/s on
  // both, each job alone on a GPU finishes in 100 s: T* = 100. Perf: the best is 1.5 steps/s each (half of each
  // GPU), T* = 200 / 1.5 = 133.3 s. Gavel's 5% search then stops where gavel_makespan_search says.
  const GavelProblem p = more_problem({{2.0, 1.0}, {2.0, 1.0}}, {1, 1}, {1, 1});
  const GavelProblem agnostic = with_reference_throughputs(p, 0);
  CHECK(agnostic.throughput == std::vector<std::vector<double>>{{2.0, 2.0}, {2.0, 2.0}});
  const GavelAllocation a = min_total_duration(agnostic, {200.0, 200.0});
  const GavelAllocation perf = min_total_duration(p, {200.0, 200.0});
  REQUIRE(a.optimal);
  REQUIRE(perf.optimal);
  CHECK(a.objective == Approx(gavel_makespan_search(100.0)));
  CHECK(perf.objective == Approx(gavel_makespan_search(200.0 / 1.5)));
  CHECK(a.objective < perf.objective);
  CHECK_THROWS_AS(with_reference_throughputs(p, 2), std::invalid_argument);
}

TEST_CASE("strategies::GavelAllox: the least total completion time by hand, then a kept job and an arrival",
          "[gavel]") {
  // One fast and one slow GPU. Remaining / throughput q: A (400 steps at 4 and 1 steps/s) 100 and 400; B (400 at 2
  // and 1) 200 and 400; C (100 at 1 and 1) 100 and 100. A queue's cost is sum of position-from-the-end x q. Every
  // split of {A, B, C} over the two queues, each queue in its best order: fast [B, A] (A first) + slow [C]: 2 x 100 +
  // 200 + 100 = 500; fast [A, C] + slow [B]: 300 + 400 = 700; fast [B, C] + [A]: 400 + 400; fast [A] + slow [B, C]:
  // 100 + 600; all on fast: 300 + 200 + 200 = 700; the rest more. The unique optimum 500: A heads the fast queue, C
  // the slow one, B waits (allocation 0).
  GavelProblem p = more_problem({{4.0, 1.0}, {2.0, 1.0}, {1.0, 1.0}}, {1, 1, 1}, {1, 1});
  AlloxState state;
  const GavelAllocation a = allox_allocation(p, {0.0, 0.0, 0.0}, {400.0, 400.0, 100.0}, state);
  REQUIRE(a.optimal);
  CHECK(a.objective == Approx(500.0));
  CHECK(a.x == std::vector<std::vector<double>>{{1.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}});
  // A finished; D (50 steps at 1 and 1 steps/s, q = 50) arrived. C keeps the slow GPU (its 1.0 kept); B (waiting
  // longer) and D share the fast GPU's queue: D first, 2 x 50 + 200 = 300 against B first, 2 x 200 + 50 = 450.
  GavelProblem q = more_problem({{2.0, 1.0}, {1.0, 1.0}, {1.0, 1.0}}, {1, 1, 1}, {1, 1});
  q.ids = {1, 2, 3};
  const GavelAllocation b = allox_allocation(q, {500.0, 500.0, 0.0}, {400.0, 60.0, 50.0}, state);
  REQUIRE(b.optimal);
  CHECK(b.objective == Approx(300.0));
  CHECK(b.x == std::vector<std::vector<double>>{{0.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}});
  CHECK_THROWS_AS(allox_allocation(more_problem({{1.0, 1.0}}, {2}, {2, 2}), {0.0}, {1.0}, state),
                  std::invalid_argument);
}

TEST_CASE("strategies::GavelAllox: Gavel's test_allox, kept allocations and GPUs never over-used", "[gavel]") {
  // policies_tests.py test_allox: four jobs on 2 v100 + 1 p100 + 3 k80, then job 0 gone and job 4 come. Gavel checks
  // that a job present in both keeps its allocation and no type gives more GPUs than it has; here also that each
  // job has at most one whole type and every GPU free at the first call is taken (4 jobs, 6 GPUs: all run).
  GavelProblem p =
      more_problem({{2.0, 1.0, 0.5}, {3.0, 2.0, 1.0}, {4.0, 3.0, 2.0}, {1.0, 1.0, 1.0}}, {1, 1, 1, 1}, {2, 1, 3});
  AlloxState state;
  const GavelAllocation a = allox_allocation(p, {0, 0, 0, 0}, {300, 500, 1000, 500}, state);
  GavelProblem q =
      more_problem({{3.0, 2.0, 1.0}, {4.0, 3.0, 2.0}, {1.0, 1.0, 1.0}, {4.0, 2.0, 1.0}}, {1, 1, 1, 1}, {2, 1, 3});
  q.ids = {1, 2, 3, 4};
  const GavelAllocation b = allox_allocation(q, {200, 200, 200, 0}, {100, 800, 400, 100}, state);
  REQUIRE(a.optimal);
  REQUIRE(b.optimal);
  for (std::size_t i = 1; i < 4; ++i)
    CHECK(b.x[i - 1] == a.x[i]);
  for (const GavelAllocation* x : {&a, &b}) {
    for (std::size_t k = 0; k < 3; ++k) {
      double used = 0.0;
      for (const auto& row : x->x)
        used += row[k];
      CHECK(used <= p.workers[k]);
    }
    for (const auto& row : x->x)
      CHECK(std::accumulate(row.begin(), row.end(), 0.0) <= 1.0);
  }
  for (const auto& row : a.x)
    CHECK(std::accumulate(row.begin(), row.end(), 0.0) == 1.0);
}

TEST_CASE("strategies::GavelPriorityWeights: a Gavel trace's weights reach the job, bad ones refused", "[gavel]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ringsched-gavel-weights-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.trace").string();
  std::ofstream(path) << "A3C\tcmd\tdir\t--n\t1\t100\t1\t2.5\t-1\t0\n"
                      << "A3C\tcmd\tdir\t--n\t1\t100\t1\t1\t-1\t10\n";
  const Trace t = read_gavel_trace(path, "s");
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.jobs[0].priority_weight == 2.5);
  CHECK(t.jobs[1].priority_weight == 1.0);
  const Workload w = workload_from_trace(t, more_gavel_cat(), TraceWorkloadSpec{}, 1);
  CHECK(w.jobs[0].priority_weight == 2.5);
  const JobPublic pub = public_facts(w.jobs[0], w.catalog->classes[0], 8);
  CHECK(pub.priority_weight == 2.5);
  for (const char* bad : {"0", "-2", "nan", "inf"}) {
    INFO(bad);
    std::ofstream(path) << "A3C\tcmd\tdir\t--n\t1\t100\t1\t" << bad << "\t-1\t0\n";
    CHECK_THROWS_AS(read_gavel_trace(path, "s"), InputError);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("strategies::GavelPriorityWeights: under LAS a job of weight 2 runs two rounds in three, by hand",
          "[gavel]") {
  // Two A3C jobs of four rounds' work alone each on one V100; job 0 has weight 2. LAS: t = min(x0 / 2, x1) with
  // x0 + x1 <= 1: x = (2/3, 1/3), unique. Priorities x / (time on the type / all time on it), time seeded with half
  // a round each: round 1 (360 s) 4/3 vs 2/3: job 0; round 2: 0.89 vs 1.33: job 1; round 3: 1.33 vs 0.67: job 0;
  // round 4: 1.07 vs 0.89: job 0; round 5: 0.95 vs 1.11: job 1; round 6: 1.14 vs 0.80: job 0, its fourth: it ends
  // at 360 + 6 x 360 = 2520. Job 1 has had two rounds and runs alone from then: ends at 3240. With equal weights the
  // jobs alternate and job 0 ends at 360 + 7 x 360 = 2880 (test_gavel_round.cpp's two-job case, four rounds).
  Workload w;
  w.catalog = more_gavel_cat();
  const int a3c = w.catalog->find("A3C");
  const double tput = class_throughput_on(w.catalog->classes[static_cast<std::size_t>(a3c)], "v100", 1, 1);
  for (int i = 0; i < 2; ++i) {
    JobTruth j;
    j.id = i;
    j.class_index = a3c;
    j.requested_gpus = 1;
    j.work_samples = tput * 360.0 * 4.0;
    j.name = "j" + std::to_string(i);
    j.priority_weight = i == 0 ? 2.0 : 1.0;
    w.jobs.push_back(j);
  }
  EngineConfig ec;
  ec.cluster.pools = {GpuPool{"v100", 1, 1, nullptr}};
  ec.scheduler.interval_s = 360.0;
  ec.restart.cost_s = 0.0;
  const nlohmann::json none = nlohmann::json::object();
  for (const char* name : {"max_min_fairness", "max_min_fairness_perf"}) {
    INFO(name);
    auto strat = find_strategy(name, "test").make(JsonReader(none, "test"));
    auto beliefs = make_belief_source("oracle", "test");
    const RunResult r = simulate(w, *strat, *beliefs, ec);
    CHECK(r.jobs[0].finish == Approx(2520.0));
    CHECK(r.jobs[1].finish == Approx(3240.0));
  }
  w.jobs[0].priority_weight = 1.0;  // equal weights: the jobs alternate
  auto strat = find_strategy("max_min_fairness", "test").make(JsonReader(none, "test"));
  auto beliefs = make_belief_source("oracle", "test");
  const RunResult equal = simulate(w, *strat, *beliefs, ec);
  CHECK(std::min(equal.jobs[0].finish, equal.jobs[1].finish) == Approx(2880.0));
}

TEST_CASE("strategies::GavelPoliciesMore: every new policy keeps the invariants on GPU pools and finishes every job",
          "[gavel]") {
  for (const bool multi : {true, false}) {
    nlohmann::json doc = more_gavel_config(40, 30.0, multi);  // more jobs than GPUs for hours: queues form
    doc["strategies"] = nlohmann::json::parse(
        R"(["max_sum_throughput_perf", "min_total_duration", "finish_time_fairness", "isolated", "gandiva_fair",
            "allox"])");
    if (multi) doc["strategies"].erase(5);  // AlloX runs single-GPU jobs only (below)
    const ExperimentConfig c = parse_experiment(doc, "gavel.json", "");
    const Workload wl = make_workload(c, 0, 1);
    for (const auto& spec : c.strategies) {
      DYNAMIC_SECTION(spec.label << (multi ? " multi-GPU" : " single-GPU")) {
        int violations = 0;
        const RunResult r = more_checked_run(c, spec, wl, violations);
        CHECK(violations == 0);
        REQUIRE(r.jobs.size() == wl.jobs.size());
        int waited = 0;  // jobs that started a round or more after arriving
        for (const auto& j : r.jobs) {
          waited += j.first_start >= j.arrival + 360.0 ? 1 : 0;
          CHECK(j.finish > j.arrival);
          CHECK(j.max_gpus == wl.jobs[static_cast<std::size_t>(j.id)].requested_gpus);
        }
        CHECK(waited > 0);
      }
    }
  }
}

TEST_CASE("strategies::GavelPoliciesMore: AlloX on multi-GPU jobs and an absent reference type are input errors",
          "[gavel]") {
  nlohmann::json doc = more_gavel_config(10, 3.0, true);
  doc["strategies"] = nlohmann::json::parse(R"([{"name": "allox"}])");
  const ExperimentConfig c = parse_experiment(doc, "gavel.json", "");
  const Workload wl = make_workload(c, 0, 1);
  REQUIRE(std::any_of(wl.jobs.begin(), wl.jobs.end(), [](const JobTruth& j) { return j.requested_gpus > 1; }));
  int violations = 0;
  CHECK_THROWS_WITH(more_checked_run(c, c.strategies[0], wl, violations),
                    Catch::Contains("allox: job") && Catch::Contains("runs only single-GPU jobs"));
  for (const char* name : {"min_total_duration", "finish_time_fairness"}) {  // refused with the config
    doc["strategies"] = nlohmann::json::array({{{"name", name}, {"params", {{"reference_type", "a100"}}}}});
    CHECK_THROWS_WITH(parse_experiment(doc, "gavel.json", ""),
                      Catch::Contains("gavel.json: strategies[0]") && Catch::Contains("no GPU pool of type 'a100'"));
    doc["strategies"] = nlohmann::json::array({name});  // Gavel's v100 by default
    nlohmann::json without_v100 = doc;
    without_v100["cluster"]["pools"].erase(0);
    CHECK_THROWS_WITH(parse_experiment(without_v100, "gavel.json", ""), Catch::Contains("no GPU pool of type 'v100'"));
    CHECK_NOTHROW(parse_experiment(doc, "gavel.json", ""));
  }
  doc["strategies"] = nlohmann::json::parse(R"([{"name": "allox", "params": {"alpha": 2}}])");
  CHECK_THROWS_AS(parse_experiment(doc, "gavel.json", ""), InputError);
}

TEST_CASE("strategies::GavelAllox: the merged transportation LP reaches the matching's optimum over single GPUs",
          "[gavel]") {
  // Random instances (3-6 jobs, two types of 1-3 GPUs): the least total cost over every assignment of jobs to single
  // GPUs, each queue in its best order (shortest q first: it carries the largest position), by enumeration, equals
  // the LP's optimum, and no type has more queue heads than GPUs.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t m = 3 + static_cast<std::size_t>(trial % 4);
    const std::vector<int> n = {1 + trial % 3, 1 + (trial / 3) % 3};
    std::vector<std::vector<double>> tput;
    std::vector<double> remaining;
    for (std::size_t i = 0; i < m; ++i) {
      tput.push_back({0.5 + 4.0 * u(rng), 0.5 + 2.0 * u(rng)});
      remaining.push_back(100.0 + 1000.0 * u(rng));
    }
    std::vector<std::size_t> gpu_type;  // one entry per GPU
    for (std::size_t k = 0; k < 2; ++k)
      gpu_type.insert(gpu_type.end(), static_cast<std::size_t>(n[k]), k);
    const std::size_t w = gpu_type.size();
    double best = 1e300;
    std::vector<std::size_t> pick(m, 0);
    for (std::size_t code = 0, total = static_cast<std::size_t>(std::pow(w, m)); code < total; ++code) {
      std::size_t c = code;
      for (std::size_t i = 0; i < m; ++i, c /= w)
        pick[i] = c % w;
      double cost = 0.0;
      for (std::size_t g = 0; g < w; ++g) {
        std::vector<double> q;
        for (std::size_t i = 0; i < m; ++i)
          if (pick[i] == g) q.push_back(remaining[i] / tput[i][gpu_type[g]]);
        std::sort(q.begin(), q.end());
        for (std::size_t r = 0; r < q.size(); ++r)
          cost += static_cast<double>(q.size() - r) * q[r];
      }
      best = std::min(best, cost);
    }
    AlloxState state;
    const GavelAllocation a =
        allox_allocation(more_problem(tput, std::vector<int>(m, 1), n), std::vector<double>(m, 0.0), remaining, state);
    INFO("trial " << trial);
    REQUIRE(a.optimal);
    CHECK(a.objective == Approx(best).epsilon(1e-9));
    for (std::size_t k = 0; k < 2; ++k) {
      double heads = 0.0;
      for (const auto& row : a.x)
        heads += row[k];
      CHECK(heads <= n[k]);
    }
  }
}

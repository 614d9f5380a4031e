// test/strategies/test_sjf_qssf.cpp — sjf and qssf (issue 40, Helios' policies) against hand-worked schedules: a
// generic CSV trace run through a config (sjf against fifo), workloads built here with users and job names on a
// 4-GPU node (the linear catalog: 100 samples/s per GPU, so a job of d s on g GPUs does 100 g d samples), the history
// estimator's levels with exact estimates, dense against incremental decisions, and the params refused.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scene.h"
#include "sim/engine/engine.h"
#include "sim/experiments/runner.h"
#include "strategies/common/service_estimator.h"
#include "test/input_error_of.h"
#include "test/sim/linear_catalog.h"
#include "test/sim/same_run.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Catch::Matchers::Contains;

namespace {

struct SqJob {
  double arrival;
  double duration_s;  // on `gpus` GPUs
  int gpus;
  std::string user;
  std::string name;
};

Workload sq_workload(const std::vector<SqJob>& jobs) {
  Workload w;
  w.catalog = ringsched::test::linear_catalog();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobTruth j;
    j.id = static_cast<int>(i);
    j.arrival = jobs[i].arrival;
    j.requested_gpus = jobs[i].gpus;
    j.work_samples = 100.0 * jobs[i].gpus * jobs[i].duration_s;
    j.user = jobs[i].user;
    j.name = jobs[i].name.empty() ? "j" + std::to_string(i) : jobs[i].name;
    w.jobs.push_back(j);
  }
  return w;
}

// One node of 4 GPUs, no restart cost.
RunResult sq_run(const Workload& w, const std::string& strategy, const nlohmann::json& params,
                 const std::string& beliefs, bool dense = false) {
  EngineConfig ec;
  ec.cluster.nodes = 1;
  ec.cluster.gpus_per_node = 4;
  ec.restart.cost_s = 0.0;
  ec.dense_snapshots = dense;
  auto s = ringsched::test::strategy_named(strategy, params);
  auto b = make_belief_source(beliefs, "test");
  return simulate(w, *s, *b, ec);
}

// The config's error (InputError: exit 2) for one strategy entry.
std::string sq_config_error(const nlohmann::json& strategy) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": "paper", "jobs": 4, "arrival": {"process": "poisson"}},
    "levels": [{"name": "mid", "load": 0.6}],
    "seeds": 1
  })");
  doc["strategies"] = nlohmann::json::array({strategy});
  return ringsched::test::error_of([&] { (void)parse_experiment(doc, "cfg.json", ""); });
}

}  // namespace

TEST_CASE("strategies::sjf: starts the shortest waiting job first where fifo starts the earliest (generic trace)",
          "[sjf]") {
  // One node of 4 GPUs; every job asks for all 4. a (t=0, 100 s) runs 0..100; b (t=1, 50 s) and c (t=2, 10 s) wait.
  // fifo: b 100..150, c 150..160. sjf (oracle durations = the trace's): c 100..110, b 110..160.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ringsched-sjf-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "t.csv") << "timestamp,duration,num_gpus\n0,100,4\n1,50,4\n2,10,4\n";
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": "paper", "trace": {"format": "generic", "file": "t.csv"}},
    "strategies": ["fifo", "sjf"],
    "seeds": 1
  })");
  const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.string());
  const ExperimentResult r = run_experiment(c, 1);
  fs::remove_all(dir);
  REQUIRE(r.runs.size() == 2);
  const auto& fifo = r.runs[0].jobs;
  const auto& sjf = r.runs[1].jobs;
  REQUIRE(sjf.size() == 3);
  CHECK(fifo[1].first_start == Approx(100.0));
  CHECK(fifo[2].first_start == Approx(150.0));
  CHECK(sjf[0].finish == Approx(100.0));
  CHECK(sjf[2].first_start == Approx(100.0));
  CHECK(sjf[2].finish == Approx(110.0));
  CHECK(sjf[1].first_start == Approx(110.0));
  CHECK(sjf[1].finish == Approx(160.0));
}

TEST_CASE("strategies::sjf: the head of the queue blocks the rest unless backfill", "[sjf]") {
  // a (t=0, 100 s, 2 GPUs) runs 0..100. b (t=1, 10 s, 4 GPUs) is the shortest waiting job but 2 GPUs are free;
  // c (t=2, 50 s, 2 GPUs) would fit. Strict: b blocks c: b 100..110, c 110..160. Backfill: c 2..52, b 100..110.
  const Workload w = sq_workload({{0, 100, 2, "", ""}, {1, 10, 4, "", ""}, {2, 50, 2, "", ""}});
  const RunResult strict = sq_run(w, "sjf", nlohmann::json::object(), "oracle");
  CHECK(strict.jobs[1].first_start == Approx(100.0));
  CHECK(strict.jobs[2].first_start == Approx(110.0));
  CHECK(strict.jobs[2].finish == Approx(160.0));
  const RunResult back = sq_run(w, "sjf", {{"backfill", true}}, "oracle");
  CHECK(back.jobs[2].first_start == Approx(2.0));
  CHECK(back.jobs[2].finish == Approx(52.0));
  CHECK(back.jobs[1].first_start == Approx(100.0));
  CHECK(back.jobs[1].finish == Approx(110.0));
}

TEST_CASE("strategies::sjf: on GPU pools the shortest job is placed first, each on a pool with room", "[sjf][pools]") {
  // Pools of 2 GPUs each; beliefs alike on both types, so a job goes to the first pool with room. Durations at the
  // requested 2, 2 and 1 GPUs: 10,000 / 200 = 50 s, 2,000 / 200 = 10 s, 100,000 / 100 = 1,000 s. sjf: job 1 takes
  // pool 0, job 0 pool 1, job 2 waits; fifo places job 0 first (pool 0).
  ringsched::test::FnScene sc;
  sc.add([](int w) { return 100.0 * w; }, 10000, 1, 4, 2);
  sc.add([](int w) { return 100.0 * w; }, 2000, 1, 4, 2);
  sc.add([](int w) { return 100.0 * w; }, 100000, 1, 4, 1);
  const std::vector<PoolInfo> pools = {{"slow", 2, 2, 0}, {"fast", 2, 2, 0}};
  Snapshot& s = const_cast<Snapshot&>(sc.make(4, 2));
  s.pools = pools;
  const Decision d = ringsched::test::strategy_named("sjf")->decide(s);
  CHECK(d.gpus() == std::vector<int>{2, 2, 0});
  CHECK(d.jobs[1].pool == 0);
  CHECK(d.jobs[0].pool == 1);
  const Decision f = ringsched::test::strategy_named("fifo")->decide(s);
  CHECK(f.jobs[0].pool == 0);
  CHECK(f.jobs[1].pool == 1);
}

TEST_CASE("strategies::ServiceEstimator: each fallback level answers with the mean of its finished jobs",
          "[qssf][estimator]") {
  ServiceEstimator e(3600.0);
  auto check = [&](const std::string& user, const std::string& name, int gpus, double run_s, const char* level) {
    INFO(user << " " << name << " " << gpus);
    const ServiceEstimator::Estimate got = e.estimate(user, name, gpus);
    CHECK(got.run_s == Approx(run_s).epsilon(1e-12));
    CHECK(std::string(to_string(got.level)) == level);
    CHECK(e.service(user, name, gpus) == Approx(run_s * gpus).epsilon(1e-12));
  };
  check("alice", "train", 2, 3600.0, "prior");  // nothing finished yet
  e.record("alice", "train", 2, 100.0);
  e.record("alice", "train", 2, 300.0);
  e.record("alice", "train", 4, 1100.0);
  e.record("bob", "train", 1, 60.0);
  e.record("bob", "eval", 1, 20.0);
  e.record("", "anon", 8, 4.0);
  CHECK(e.finished() == 6);
  check("alice", "train", 2, 200.0, "user+name+gpus");   // (100 + 300) / 2
  check("alice", "train", 4, 1100.0, "user+name+gpus");  // the one 4-GPU run
  check("alice", "train", 8, 500.0, "user+name");        // (100 + 300 + 1100) / 3
  check("carol", "train", 2, 390.0, "name");             // (100 + 300 + 1100 + 60) / 4
  check("alice", "eval", 1, 20.0, "name");               // bob's: the name level comes before alice's own
  check("alice", "new", 1, 500.0, "user");               // alice's three runs
  check("dave", "new", 1, 1584.0 / 6.0, "all");          // every run
  check("", "train", 2, 390.0, "name");                  // no user: the name level, any user
  check("", "anon", 8, 4.0, "name");                     // a run without user counts for its name ...
  check("", "new", 1, 1584.0 / 6.0, "all");              // ... and for all, never as a user's
  check("alicetrain", "", 2, 1584.0 / 6.0, "all");       // keys do not run user and name together
  e.record("alice", "train", 2, 200.0);
  check("alice", "train", 2, 200.0, "user+name+gpus");  // (100 + 300 + 200) / 3
}

TEST_CASE("strategies::qssf: ranks by the GPU-time its history predicts, not by the true duration", "[qssf]") {
  // Learning: a (u1 "big", 4 GPUs) runs 0..20; b (u2 "small", 4 GPUs) runs 30..35. Then blocker c (u3, 4 GPUs)
  // runs 40..140; d (u1 "big", truly 3 s) arrives at 41 and waits alone (new into an empty queue: not ranked yet);
  // e (u2 "small", truly 50 s) arrives at 42: both ranked now, d at 20 s x 4 = 80 GPU-s, e at 5 s x 4 = 20. qssf:
  // e 140..190, d 190..193. sjf (oracle durations): d 140..143, e 143..193.
  const Workload w = sq_workload({{0, 20, 4, "u1", "big"},
                                  {30, 5, 4, "u2", "small"},
                                  {40, 100, 4, "u3", "blocker"},
                                  {41, 3, 4, "u1", "big"},
                                  {42, 50, 4, "u2", "small"}});
  const RunResult q = sq_run(w, "qssf", nlohmann::json::object(), "none");
  CHECK(q.jobs[4].first_start == Approx(140.0));
  CHECK(q.jobs[3].first_start == Approx(190.0));
  CHECK(q.jobs[3].finish == Approx(193.0));
  const RunResult s = sq_run(w, "sjf", nlohmann::json::object(), "oracle");
  CHECK(s.jobs[3].first_start == Approx(140.0));
  CHECK(s.jobs[4].first_start == Approx(143.0));
  // The oracle estimator ranks by true duration x GPUs: as sjf here (equal GPUs).
  const RunResult o = sq_run(w, "qssf", {{"estimator", "oracle"}}, "oracle");
  CHECK(o.jobs[3].first_start == Approx(140.0));
  CHECK(o.jobs[4].first_start == Approx(143.0));
}

TEST_CASE("strategies::qssf: service is run time x GPUs: a longer 1-GPU job goes before a shorter 4-GPU one",
          "[qssf]") {
  // History: x (u1 "a", 1 GPU) runs 0..30, y (u2 "b", 4 GPUs) runs 40..50. Blocker z (4 GPUs) 60..160. p (u1 "a",
  // 1 GPU) at 61 and q (u2 "b", 4 GPUs) at 62: p's estimate 30 s x 1 = 30 GPU-s, q's 10 s x 4 = 40. p starts at 160
  // (truly 30 s: to 190); q needs 4 GPUs and waits for it (strict): q 190..200. Ranked by time alone, q would go first.
  const Workload w = sq_workload({{0, 30, 1, "u1", "a"},
                                  {40, 10, 4, "u2", "b"},
                                  {60, 100, 4, "u3", "z"},
                                  {61, 30, 1, "u1", "a"},
                                  {62, 10, 4, "u2", "b"}});
  const RunResult r = sq_run(w, "qssf", nlohmann::json::object(), "none");
  CHECK(r.jobs[3].first_start == Approx(160.0));
  CHECK(r.jobs[4].first_start == Approx(190.0));
  CHECK(r.jobs[4].finish == Approx(200.0));
}

TEST_CASE("strategies::qssf: the estimate falls back level by level as the jobs ranked find less history", "[qssf]") {
  // History: h (u1 "n", 4 GPUs) runs 0..40; i (u2 "m", 4 GPUs) runs 50..60. Blocker k (4 GPUs) runs 70..170. Then,
  // all on 4 GPUs and truly 1 s each: j1 (u1 "n") arrives at 71 and waits unranked (alone in the queue); at 72 j2
  // (u3 "m") comes and both are ranked, then j3 (u2 "zz") at 73 and j4 (u4 "zz") at 74:
  //   j1: user+name+gpus 40 s -> 160 GPU-s     j2: name "m" (u3 has no history) 10 s -> 40
  //   j3: user u2 10 s -> 40                    j4: all (40 + 10) / 2 = 25 s -> 100
  // Order j2, j3 (tie: arrival), j4, j1: they start at 170, 171, 172, 173.
  const Workload w = sq_workload({{0, 40, 4, "u1", "n"},
                                  {50, 10, 4, "u2", "m"},
                                  {70, 100, 4, "u9", "k"},
                                  {71, 1, 4, "u1", "n"},
                                  {72, 1, 4, "u3", "m"},
                                  {73, 1, 4, "u2", "zz"},
                                  {74, 1, 4, "u4", "zz"}});
  const RunResult r = sq_run(w, "qssf", nlohmann::json::object(), "none");
  CHECK(r.jobs[4].first_start == Approx(170.0));
  CHECK(r.jobs[5].first_start == Approx(171.0));
  CHECK(r.jobs[6].first_start == Approx(172.0));
  CHECK(r.jobs[3].first_start == Approx(173.0));
  // Nothing finished yet: every job is ranked at prior_s x GPUs, so fewer GPUs first, then arrival.
  const Workload fresh = sq_workload({{0, 100, 4, "", ""}, {1, 5, 4, "", ""}, {2, 5, 2, "", ""}, {3, 5, 1, "", ""}});
  const RunResult p = sq_run(fresh, "qssf", {{"prior_s", 10}}, "none");
  CHECK(p.jobs[3].first_start == Approx(100.0));  // 1 GPU: 10 GPU-s
  CHECK(p.jobs[2].first_start == Approx(100.0));  // 2 GPUs: 20 GPU-s (both fit at once)
  CHECK(p.jobs[1].first_start == Approx(105.0));  // 4 GPUs: 40 GPU-s, after both
}

TEST_CASE("strategies::qssf: jobs arriving together into an empty queue go by GPU count, fewest first", "[qssf]") {
  // At t=0: a 4 GPUs, b 1 GPU, c 2 GPUs, none ranked yet (the artifact's rule): b and c start, a waits for them.
  const Workload w = sq_workload({{0, 10, 4, "", ""}, {0, 10, 1, "", ""}, {0, 20, 2, "", ""}});
  const RunResult r = sq_run(w, "qssf", nlohmann::json::object(), "none");
  CHECK(r.jobs[1].first_start == 0.0);
  CHECK(r.jobs[2].first_start == 0.0);
  CHECK(r.jobs[0].first_start == Approx(20.0));
  const RunResult f = sq_run(w, "fifo", nlohmann::json::object(), "none");
  CHECK(
      f.jobs[0].first_start ==
      0.0);  // With history that would rank them the other way: h1 (u1 "big", 1 GPU) ran 0..100, h2 (u2 "tiny", 4 GPUs)
  // 100..101. At 200 p (u1 "big", 1 GPU; 100 GPU-s by history) and q (u2 "tiny", 4 GPUs; 4 GPU-s) arrive together
  // into the empty queue: unranked, p (fewer GPUs) starts at 200 and q waits for it (to 210). Ranked, q would go first.
  const Workload h = sq_workload(
      {{0, 100, 1, "u1", "big"}, {100, 1, 4, "u2", "tiny"}, {200, 10, 1, "u1", "big"}, {200, 10, 4, "u2", "tiny"}});
  const RunResult g = sq_run(h, "qssf", nlohmann::json::object(), "none");
  CHECK(g.jobs[2].first_start == Approx(200.0));
  CHECK(g.jobs[3].first_start == Approx(210.0));
}

TEST_CASE(
    "strategies::qssf: a job's run time is measured from its start to its end, even when nothing is left to "
    "decide at its end",
    "[qssf]") {
  // x (u1 "a", 4 GPUs) runs 0..20; nothing waits then, so no decision comes until y arrives at 30 (u2 "b", 4 GPUs,
  // 30..55). Blocker z 55..155; p (u1 "a") at 56, q (u2 "b") at 57, 1 s each on 4 GPUs: p is estimated at 20 s x 4 =
  // 80 GPU-s (30 s, were x's end taken at the next decision: 120), q at 25 s x 4 = 100. p starts at 155, q at 156.
  const Workload w = sq_workload({{0, 20, 4, "u1", "a"},
                                  {30, 25, 4, "u2", "b"},
                                  {55, 100, 4, "u3", "z"},
                                  {56, 1, 4, "u1", "a"},
                                  {57, 1, 4, "u2", "b"}});
  const RunResult r = sq_run(w, "qssf", nlohmann::json::object(), "none");
  CHECK(r.jobs[3].first_start == Approx(155.0));
  CHECK(r.jobs[4].first_start == Approx(156.0));
}

TEST_CASE("strategies::sjf and qssf: incremental decisions equal dense ones, and runs repeat exactly",
          "[sjf][qssf][incremental]") {
  // 300 jobs of 1..4 GPUs on 4 GPUs, 5 users and 7 names (every estimator level occurs), arrivals in bursts with
  // ties; light and heavy load.
  for (const double gap : {2.0, 40.0}) {
    std::vector<SqJob> jobs;
    for (int i = 0; i < 300; ++i) {
      const int gpus = 1 + (i * 7) % 4;
      const double duration = 5.0 + static_cast<double>((i * 37) % 90);
      jobs.push_back({gap * static_cast<double>(i / 3), duration, gpus, i % 11 == 0 ? "" : "u" + std::to_string(i % 5),
                      "n" + std::to_string((i * 3) % 7)});
    }
    const Workload w = sq_workload(jobs);
    const std::vector<std::pair<std::string, nlohmann::json>> variants = {
        {"sjf", nlohmann::json::object()},
        {"sjf", {{"backfill", true}}},
        {"qssf", nlohmann::json::object()},
        {"qssf", {{"backfill", true}, {"prior_s", 0}}},
        {"qssf", {{"estimator", "oracle"}}}};
    for (const auto& [name, params] : variants) {
      DYNAMIC_SECTION(name << " " << params.dump() << " gap " << gap) {
        const std::string beliefs = name == "sjf" || params.contains("estimator") ? "oracle" : "none";
        const RunResult inc = sq_run(w, name, params, beliefs);
        const RunResult dense = sq_run(w, name, params, beliefs, true);
        const RunResult again = sq_run(w, name, params, beliefs);
        REQUIRE(inc.jobs.size() == 300);
        for (const auto& j : inc.jobs)
          REQUIRE(j.finish > j.arrival);
        ringsched::test::require_same_run(inc, dense);
        ringsched::test::require_same_run(inc, again);
      }
    }
  }
}

TEST_CASE("strategies::sjf and qssf: bad params are refused naming the JSON path (exit 2)", "[sjf][qssf]") {
  CHECK_THAT(sq_config_error({{"name", "qssf"}, {"params", {{"prior", 5}}}}),
             Contains("cfg.json: strategies[0].params") && Contains("prior"));
  CHECK_THAT(sq_config_error({{"name", "qssf"}, {"params", {{"prior_s", -1}}}}),
             Contains("cfg.json: strategies[0].params.prior_s"));
  CHECK_THAT(sq_config_error({{"name", "qssf"}, {"params", {{"prior_s", std::nan("")}}}}),
             Contains("cfg.json: strategies[0].params.prior_s"));
  CHECK_THAT(sq_config_error({{"name", "qssf"}, {"params", {{"estimator", "lgbm"}}}}),
             Contains("cfg.json: strategies[0].params.estimator: unknown value 'lgbm' (valid: history, oracle)"));
  CHECK_THAT(sq_config_error({{"name", "sjf"}, {"params", {{"gpus", 0}}}}),
             Contains("cfg.json: strategies[0].params.gpus"));
  CHECK_THAT(sq_config_error({{"name", "sjf"}, {"params", {{"prior_s", 10}}}}),
             Contains("cfg.json: strategies[0].params") && Contains("prior_s"));
  CHECK_THAT(sq_config_error("sjf[none]"), Contains("strategy 'sjf' plans with beliefs"));
  CHECK(sq_config_error({{"name", "qssf"}, {"params", {{"prior_s", 0}, {"backfill", true}}}}).empty());
  CHECK_THAT(sq_config_error({{"name", "qssf"}, {"params", {{"estimator", "oracle"}}}}),
             Contains("cfg.json: strategies[0]: strategy 'qssf' plans with beliefs under these params; \"none\" gives "
                      "it none (give it a source, e.g. qssf[oracle])"));
  CHECK(sq_config_error({{"name", "qssf[oracle]"}, {"params", {{"estimator", "oracle"}}}}).empty());
  // Run directly (no config) without beliefs: refused when it first ranks a job, naming what to do.
  const Workload w = sq_workload({{0, 10, 4, "", ""}, {1, 10, 4, "", ""}, {2, 10, 4, "", ""}});
  CHECK_THAT(ringsched::test::error_of([&] {
               (void)sq_run(w, "qssf", {{"estimator", "oracle"}}, "none");
             }),
             Contains("estimator \"oracle\"") && Contains("qssf[oracle]"));
}

TEST_CASE("strategies::sjf: jobs of equal recorded duration go by arrival whatever their GPU counts (generic trace)",
          "[sjf]") {
  // Four nodes of 8 GPUs; a (32 GPUs, 100 s) runs first; then 16 jobs of 17, 18, ..., 32 GPUs, all of the same
  // recorded duration D, wait (any two need more than 32 GPUs: one at a time). Their believed durations, the trace's
  // duration x speed / speed, differ from D in the last bits by amounts that depend on the GPU count; compared to the
  // microsecond they tie, so they start in arrival order, each at the previous one's end (the Helios artifact's SJF:
  // a stable sort by duration).
  namespace fs = std::filesystem;
  for (const double d : {10.0, 13.7, 0.3, 2.9, 1234.567}) {
    INFO("D = " << d);
    const fs::path dir = fs::temp_directory_path() / ("ringsched-sjf-ties-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
      std::ofstream f(dir / "t.csv");
      f << "timestamp,duration,num_gpus\n0,100,32\n";
      for (int g = 17; g <= 32; ++g)
        f << g << ',' << d << ',' << g << '\n';
    }
    const nlohmann::json doc = nlohmann::json::parse(R"({
      "cluster": {"nodes": 4, "gpus_per_node": 8},
      "workload": {"catalog": "paper", "trace": {"format": "generic", "file": "t.csv"}},
      "strategies": ["sjf"],
      "seeds": 1
    })");
    const ExperimentConfig c = parse_experiment(doc, "cfg.json", dir.string());
    const ExperimentResult r = run_experiment(c, 1);
    fs::remove_all(dir);
    REQUIRE(r.runs.size() == 1);
    const auto& jobs = r.runs[0].jobs;
    REQUIRE(jobs.size() == 17);
    CHECK(jobs[1].first_start == Approx(100.0));
    for (std::size_t k = 2; k < jobs.size(); ++k) {
      CHECK(jobs[k].first_start > jobs[k - 1].first_start);
      CHECK(jobs[k].first_start == Approx(jobs[k - 1].finish));
    }
  }
}

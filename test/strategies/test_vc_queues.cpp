// test/strategies/test_vc_queues.cpp — virtual clusters (cluster.virtual_clusters) under fifo and srtf: the Helios
// artifact's placements (consolidate's best fit, whole free nodes and its remainder quirk; "random" = first fit), one
// queue per VC with head-of-line blocking (and backfill), srtf's preemptive pass per VC, and the engine's invariants
// (no node over its GPUs, no job outside its VC's nodes). Hand-worked timelines on 2 VCs x 2 nodes x 4 GPUs: a job of
// w GPUs runs at 100 w samples/s whatever nodes it spans, so its run time is its work / (100 w).
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "sim/engine/engine.h"
#include "strategies/common/vc_queues.h"
#include "strategies/registry.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Pieces = std::vector<std::pair<int, int>>;

namespace {

// Fixed global batch 100, step 1/w s: 100 w samples/s on w GPUs (1..16), no communication cost.
std::shared_ptr<const Catalog> vc_test_catalog() {
  const std::string text = R"({"name": "vclin", "classes": [
    {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"max": 16},
     "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
  ]})";
  return std::make_shared<const Catalog>(parse_catalog(parse_json_text(text, "vclin.json"), "vclin.json"));
}

struct VcTestJob {
  std::string vc;
  int gpus;
  double arrival;
  double duration;  // on its GPUs
};

struct VcTestRun {
  RunResult result;
  std::map<int, std::vector<int>> first_nodes;  // each job's nodes when first seen holding GPUs
  std::vector<std::string> problems;
};

// Runs `jobs` (ids in order; arrivals ascending) on 4 nodes x 4 GPUs split into VC "A" (nodes 0, 1) and "B" (2, 3).
VcTestRun vc_test_run(const std::vector<VcTestJob>& jobs, const std::string& strategy,
                      const nlohmann::json& params = nlohmann::json::object(),
                      const std::string& placement = "consolidate", double restart_s = 0.0) {
  Workload w;
  w.catalog = vc_test_catalog();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobTruth t;
    t.id = static_cast<int>(i);
    t.name = "j" + std::to_string(i);
    t.arrival = jobs[i].arrival;
    t.requested_gpus = jobs[i].gpus;
    t.work_samples = 100.0 * jobs[i].gpus * jobs[i].duration;
    t.vc = jobs[i].vc;
    w.jobs.push_back(t);
  }
  EngineConfig ec;
  ec.cluster.nodes = 4;
  ec.cluster.gpus_per_node = 4;
  ec.cluster.placement = "packed";
  VirtualClusters vcs;
  vcs.table = {{"A", 2}, {"B", 2}};
  vcs.placement = placement;
  vcs.origin = "test";
  ec.cluster.virtual_clusters = vcs;
  ec.restart.cost_s = restart_s;
  const StrategyInfo info = find_strategy(strategy, "test");
  const std::unique_ptr<Strategy> strat = info.make(JsonReader(params, "test"));
  const bool oracle = strategy == "srtf" || strategy == "sjf" || params.contains("estimator");
  const auto beliefs = make_belief_source(oracle ? "oracle" : "none", "test");
  VcTestRun out;
  out.result = simulate(w, *strat, *beliefs, ec, [&](const EngineCheckView& v) {
    std::vector<int> used(4, 0);
    for (const auto& j : v.active) {
      if (j.gpus == 0) continue;
      const int first = jobs[static_cast<std::size_t>(j.id)].vc == "A" ? 0 : 2;
      int sum = 0;
      for (std::size_t n = 0; n < j.nodes.size(); ++n) {
        used[n] += j.nodes[n];
        sum += j.nodes[n];
        if (j.nodes[n] > 0 && (static_cast<int>(n) < first || static_cast<int>(n) >= first + 2))
          out.problems.push_back("job " + std::to_string(j.id) + " outside its VC");
      }
      if (sum != j.gpus) out.problems.push_back("job " + std::to_string(j.id) + " nodes do not sum to its GPUs");
      out.first_nodes.emplace(j.id, j.nodes);
    }
    for (int u : used)
      if (u > 4) out.problems.push_back("a node over its GPUs");
  });
  return out;
}

void vc_check_times(const RunResult& r, const std::vector<std::pair<double, double>>& start_finish) {
  REQUIRE(r.jobs.size() == start_finish.size());
  for (std::size_t i = 0; i < r.jobs.size(); ++i) {
    INFO("job " << i);
    CHECK(r.jobs[i].first_start == Approx(start_finish[i].first).margin(1e-9));
    CHECK(r.jobs[i].finish == Approx(start_finish[i].second).margin(1e-9));
  }
}

}  // namespace

TEST_CASE("strategies::VcQueues: consolidate places as the Helios artifact's consolidate.py", "[strategies][vc]") {
  // <= G GPUs: best fit, the first such node on ties.
  CHECK(VcQueues::consolidate({3, 1, 2, 4}, 4, 2) == Pieces{{2, 2}});
  CHECK(VcQueues::consolidate({3, 1, 2, 4}, 4, 1) == Pieces{{1, 1}});
  CHECK(VcQueues::consolidate({3, 1, 2, 4}, 4, 4) == Pieces{{3, 4}});
  CHECK(VcQueues::consolidate({2, 2}, 4, 2) == Pieces{{0, 2}});
  CHECK(VcQueues::consolidate({2, 2, 0}, 4, 3).empty());  // enough free GPUs, no node holds it
  // k x G: k wholly free nodes (by free GPUs, most first; node order on ties).
  CHECK(VcQueues::consolidate({4, 3, 4, 4}, 4, 8) == Pieces{{0, 4}, {2, 4}});
  CHECK(VcQueues::consolidate({4, 3, 2, 1}, 4, 8).empty());
  // k x G + r: k whole nodes, then r on the next node by free GPUs (the most free: not the best fit).
  CHECK(VcQueues::consolidate({4, 2, 3, 0}, 4, 6) == Pieces{{0, 4}, {2, 2}});
  CHECK(VcQueues::consolidate({4, 4, 4, 1}, 4, 6) == Pieces{{0, 4}, {1, 2}});
  // ... and fails unless the first k nodes are wholly free, though 3 + 3 would hold it.
  CHECK(VcQueues::consolidate({3, 3, 3, 3}, 4, 6).empty());
  CHECK(VcQueues::consolidate({1, 1}, 4, 3).empty());  // the total free check
}

TEST_CASE("strategies::VcQueues: random is first fit in node order, taking what each node has", "[strategies][vc]") {
  CHECK(VcQueues::first_fit({0, 2, 4, 1}, 5) == Pieces{{1, 2}, {2, 3}});
  CHECK(VcQueues::first_fit({0, 2, 4, 1}, 1) == Pieces{{1, 1}});
  CHECK(VcQueues::first_fit({0, 2, 4, 1}, 7) == Pieces{{1, 2}, {2, 4}, {3, 1}});
  CHECK(VcQueues::first_fit({0, 2, 4, 1}, 8).empty());
}

TEST_CASE("strategies::fifo: with VCs each VC queues its own jobs, head of line blocks, best fit",
          "[strategies][vc][fifo]") {
  // A: j0 2 GPUs at 0 for 100 s on node 0; j1 1 GPU at 1 for 50 s on node 0 too (best fit: 2 free there, 4 on
  // node 1); j2 8 GPUs at 2 needs both nodes wholly free: at 100; j3 1 GPU at 3 waits behind it although node 1 is
  // free (head-of-line blocking), starts at 110. B: j4 4 GPUs at 4 runs at once, whatever A's queue holds.
  const std::vector<VcTestJob> jobs = {
      {"A", 2, 0, 100}, {"A", 1, 1, 50}, {"A", 8, 2, 10}, {"A", 1, 3, 10}, {"B", 4, 4, 20}};
  const VcTestRun r = vc_test_run(jobs, "fifo");
  CHECK(r.problems.empty());
  vc_check_times(r.result, {{0, 100}, {1, 51}, {100, 110}, {110, 120}, {4, 24}});
  CHECK(r.first_nodes.at(0) == std::vector<int>{2, 0, 0, 0});
  CHECK(r.first_nodes.at(1) == std::vector<int>{1, 0, 0, 0});
  CHECK(r.first_nodes.at(2) == std::vector<int>{4, 4, 0, 0});
  CHECK(r.first_nodes.at(3) == std::vector<int>{1, 0, 0, 0});
  CHECK(r.first_nodes.at(4) == std::vector<int>{0, 0, 4, 0});
  // With backfill j3 starts at 3 beside j0 and j1 (best fit: node 0 has 1 free).
  const VcTestRun b = vc_test_run(jobs, "fifo", {{"backfill", true}});
  CHECK(b.problems.empty());
  vc_check_times(b.result, {{0, 100}, {1, 51}, {100, 110}, {3, 13}, {4, 24}});
  CHECK(b.first_nodes.at(3) == std::vector<int>{1, 0, 0, 0});
}

TEST_CASE("strategies::fifo: with VCs placement random (first fit) starts a job consolidate cannot place",
          "[strategies][vc][fifo]") {
  // A: j0 2 GPUs on node 0 for 100 s; j1 3 GPUs at 1 for 10 s; j2 3 GPUs at 2 for 10 s. consolidate: j1 on node 1
  // (best fit), j2 finds no node with 3 free (2 and 1) and waits for j1: 11..21. random: j1 takes node 0's 2 and 1 of
  // node 1, j2 node 1's other 3 at once: 2..12.
  const std::vector<VcTestJob> jobs = {{"A", 2, 0, 100}, {"A", 3, 1, 10}, {"A", 3, 2, 10}};
  const VcTestRun c = vc_test_run(jobs, "fifo");
  CHECK(c.problems.empty());
  vc_check_times(c.result, {{0, 100}, {1, 11}, {11, 21}});
  CHECK(c.first_nodes.at(1) == std::vector<int>{0, 3, 0, 0});
  CHECK(c.first_nodes.at(2) == std::vector<int>{0, 3, 0, 0});
  const VcTestRun f = vc_test_run(jobs, "fifo", nlohmann::json::object(), "random");
  CHECK(f.problems.empty());
  vc_check_times(f.result, {{0, 100}, {1, 11}, {2, 12}});
  CHECK(f.first_nodes.at(1) == std::vector<int>{2, 1, 0, 0});
  CHECK(f.first_nodes.at(2) == std::vector<int>{0, 3, 0, 0});
}

TEST_CASE("strategies::sjf and qssf: with VCs each VC serves its queue shortest first, by run time or GPU-time",
          "[strategies][vc][sjf][qssf]") {
  // A: j0 8 GPUs at 0 for 100 s holds both nodes; then j1 8 GPUs for 50 s (service 400), j2 2 GPUs for 10 s (20), j3
  // 4 GPUs for 8 s (32) wait. At 100 sjf takes j3 (8 s) first: node 0 (best fit, first on the tie), j2 node 1; j1
  // needs two free nodes: at 110 (j2's end), 110..160. qssf takes j2 (20 GPU-s) first: node 0, j3 node 1; the same
  // times. B: j4 4 GPUs 4..24 whatever A's queue holds.
  const std::vector<VcTestJob> jobs = {
      {"A", 8, 0, 100}, {"A", 8, 1, 50}, {"A", 2, 2, 10}, {"A", 4, 3, 8}, {"B", 4, 4, 20}};
  const std::vector<std::pair<double, double>> times = {{0, 100}, {110, 160}, {100, 110}, {100, 108}, {4, 24}};
  const VcTestRun sjf = vc_test_run(jobs, "sjf");
  CHECK(sjf.problems.empty());
  vc_check_times(sjf.result, times);
  CHECK(sjf.first_nodes.at(3) == std::vector<int>{4, 0, 0, 0});
  CHECK(sjf.first_nodes.at(2) == std::vector<int>{0, 2, 0, 0});
  // qssf with the oracle's durations, and with its history (nothing finished when A's jobs arrive: prior_s x GPUs,
  // the same order).
  for (const nlohmann::json& params : {nlohmann::json{{"estimator", "oracle"}}, nlohmann::json::object()}) {
    INFO(params.dump());
    const VcTestRun q = vc_test_run(jobs, "qssf", params);
    CHECK(q.problems.empty());
    vc_check_times(q.result, times);
    CHECK(q.first_nodes.at(2) == std::vector<int>{2, 0, 0, 0});
    CHECK(q.first_nodes.at(3) == std::vector<int>{0, 4, 0, 0});
  }
  // fifo: j1 first at 100..150, then j2 and j3 at 150.
  const VcTestRun f = vc_test_run(jobs, "fifo");
  vc_check_times(f.result, {{0, 100}, {100, 150}, {150, 160}, {150, 158}, {4, 24}});
}

TEST_CASE("strategies::srtf: with VCs each VC preempts by remaining time within its own GPUs",
          "[strategies][vc][srtf]") {
  // A: j0 8 GPUs at 0 for 100 s. j1 4 GPUs at 10 for 20 s: ranked first (20 < 90), so j0 no longer fits the VC's 8
  // GPUs and is preempted; j1 on node 0 (best fit on a tie) 10..30. j3 3 GPUs at 12 for 5 s: j3, j1 fit (7 of 8), j0
  // still not; j3 on node 1, 12..17. At 30 j0 resumes on both nodes, pays the 5 s restart: 35..125. B: j2 runs
  // 15..25 whatever A does.
  const std::vector<VcTestJob> jobs = {{"A", 8, 0, 100}, {"A", 4, 10, 20}, {"B", 4, 15, 10}, {"A", 3, 12, 5}};
  // (ids follow arrival order: sort by arrival) j0 0, j1 10, j3 12, j2 15.
  const std::vector<VcTestJob> sorted = {jobs[0], jobs[1], jobs[3], jobs[2]};
  const VcTestRun r = vc_test_run(sorted, "srtf", nlohmann::json::object(), "consolidate", 5.0);
  CHECK(r.problems.empty());
  vc_check_times(r.result, {{0, 125}, {10, 30}, {12, 17}, {15, 25}});
  CHECK(r.result.jobs[0].restarts == 1);
  CHECK(r.result.jobs[1].restarts == 0);
  CHECK(r.first_nodes.at(1) == std::vector<int>{4, 0, 0, 0});
  CHECK(r.first_nodes.at(2) == std::vector<int>{0, 3, 0, 0});
  CHECK(r.first_nodes.at(3) == std::vector<int>{0, 0, 4, 0});
}

TEST_CASE("strategies::srtf: with VCs a job taken within the VC's GPUs that no node holds waits",
          "[strategies][vc][srtf]") {
  // A: a 3 GPUs at 0 for 50 s on node 0; b 3 GPUs at 1 for 60 s on node 1; c 2 GPUs at 2 for 5 s ranks first and all
  // three fit the VC's 8 GPUs, but nodes 0 and 1 have 1 free each: c waits (nothing is preempted for it) until a
  // ends at 50, then runs on node 0: 50..55.
  const std::vector<VcTestJob> jobs = {{"A", 3, 0, 50}, {"A", 3, 1, 60}, {"A", 2, 2, 5}};
  const VcTestRun r = vc_test_run(jobs, "srtf");
  CHECK(r.problems.empty());
  vc_check_times(r.result, {{0, 50}, {1, 61}, {50, 55}});
  CHECK(r.first_nodes.at(1) == std::vector<int>{0, 3, 0, 0});
  CHECK(r.first_nodes.at(2) == std::vector<int>{2, 0, 0, 0});
}

TEST_CASE("strategies::VcQueues: many jobs keep every node within its GPUs and every job in its VC, repeatably",
          "[strategies][vc]") {
  std::vector<VcTestJob> jobs;
  const int sizes[] = {1, 2, 3, 4, 6, 8, 1, 2};
  for (int i = 0; i < 120; ++i)
    jobs.push_back({i % 3 == 0 ? "B" : "A", sizes[(i * 5) % 8], i * 7.0, 20.0 + (i * 37) % 90});
  for (const std::string strategy : {"fifo", "srtf"}) {
    for (const std::string placement : {"consolidate", "random"}) {
      INFO(strategy << " " << placement);
      const VcTestRun a = vc_test_run(jobs, strategy, nlohmann::json::object(), placement, 3.0);
      const VcTestRun b = vc_test_run(jobs, strategy, nlohmann::json::object(), placement, 3.0);
      CHECK(a.problems.empty());
      REQUIRE(a.result.jobs.size() == jobs.size());
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        CHECK(a.result.jobs[i].finish > a.result.jobs[i].first_start);
        CHECK(a.result.jobs[i].finish == b.result.jobs[i].finish);
        CHECK(a.result.jobs[i].restarts == b.result.jobs[i].restarts);
      }
      CHECK(a.result.events.size() == b.result.events.size());
    }
  }
}

TEST_CASE("strategies::VcQueues: a job of no VC of the cluster is refused before the run", "[strategies][vc]") {
  std::vector<VcTestJob> jobs = {{"A", 1, 0, 10}, {"C", 1, 1, 10}};
  CHECK_THROWS_WITH(vc_test_run(jobs, "fifo"),
                    "job 'j1': virtual cluster 'C' is not in cluster.virtual_clusters (test: A, B)");
  jobs[1].vc = "";
  CHECK_THROWS_WITH(vc_test_run(jobs, "fifo"),
                    "job 'j1': names no virtual cluster; a cluster with cluster.virtual_clusters (test: A, B) runs "
                    "only jobs of its VCs");
}

namespace {

// Starts each arriving job at once with the nodes `nodes_for(job id)` names (empty: none named).
class VcNodesStrategy final : public Strategy {
 public:
  explicit VcNodesStrategy(std::function<std::vector<int>(int)> nodes_for) : nodes_for_(std::move(nodes_for)) {}
  [[nodiscard]] std::string name() const override { return "vc_nodes"; }
  Decision decide(const Snapshot& /*s*/) override { return {}; }
  [[nodiscard]] bool incremental() const override { return true; }
  Decision decide_changes(const Snapshot& s) override {
    Decision d;
    for (int id : s.arrived)
      d.changes.push_back({id, s.views->view(id).pub->requested_gpus, 0, nodes_for_(id)});
    return d;
  }

 private:
  std::function<std::vector<int>(int)> nodes_for_;
};

// Two jobs of VC "A" (`gpus` GPUs each, at 0 and 1) on the 2-VC cluster under `strat`; the engine's error, if any.
std::string vc_nodes_error(Strategy& strat, int gpus = 2) {
  Workload w;
  w.catalog = vc_test_catalog();
  for (int i = 0; i < 2; ++i) {
    JobTruth t;
    t.id = i;
    t.name = "j" + std::to_string(i);
    t.arrival = i;
    t.requested_gpus = gpus;
    t.work_samples = 100.0 * gpus * 10;
    t.vc = "A";
    t.user = "u" + std::to_string(i);
    w.jobs.push_back(t);
  }
  EngineConfig ec;
  ec.cluster.nodes = 4;
  ec.cluster.gpus_per_node = 4;
  ec.cluster.placement = "packed";
  VirtualClusters vcs;
  vcs.table = {{"A", 2}, {"B", 2}};
  vcs.origin = "test";
  ec.cluster.virtual_clusters = vcs;
  const auto beliefs = make_belief_source("none", "test");
  try {
    (void)simulate(w, strat, *beliefs, ec);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sim::Engine: with VCs every start names nodes of its job's VC, none over its GPUs", "[strategies][vc]") {
  VcNodesStrategy good([](int id) { return id == 0 ? std::vector<int>{2, 0, 0, 0} : std::vector<int>{2, 0, 0, 0}; });
  CHECK(vc_nodes_error(good).empty());  // node 0 holds both jobs: 4 GPUs
  VcNodesStrategy outside([](int) { return std::vector<int>{0, 0, 2, 0}; });
  CHECK(vc_nodes_error(outside) ==
        "strategy 'vc_nodes' placed job j0 on node 2, outside its virtual cluster A (nodes 0..1)");
  VcNodesStrategy unnamed([](int) { return std::vector<int>{}; });
  CHECK(vc_nodes_error(unnamed) == "strategy 'vc_nodes' gave job j0 GPUs without its nodes on a cluster with VCs");
  VcNodesStrategy over([](int id) { return id == 0 ? std::vector<int>{3, 0, 0, 0} : std::vector<int>{2, 0, 0, 0}; });
  CHECK(vc_nodes_error(over) == "strategy 'vc_nodes' placed a job on other GPUs than it allocated (job j0)");
  VcNodesStrategy split([](int id) { return id == 0 ? std::vector<int>{1, 1, 0, 0} : std::vector<int>{0, 2, 0, 0}; });
  CHECK(vc_nodes_error(split).empty());
  VcNodesStrategy crowded([](int) { return std::vector<int>{3, 0, 0, 0}; });
  CHECK(vc_nodes_error(crowded, 3) == "strategy 'vc_nodes' placed 6 GPUs on node 0, which has 4");
  VcNodesStrategy short_list([](int) { return std::vector<int>{2, 0}; });
  CHECK(vc_nodes_error(short_list) == "strategy 'vc_nodes' gave job j0 a placement of 2 nodes; the cluster has 4");
}

TEST_CASE("sim::Engine: a job's public facts carry its user and its VC's index, max GPUs capped at its VC's",
          "[strategies][vc]") {
  const auto cat = vc_test_catalog();
  JobTruth t;
  t.name = "x";
  t.user = "alice";
  t.vc = "B";
  ClusterConfig c;
  c.nodes = 4;
  c.gpus_per_node = 4;
  VirtualClusters vcs;
  vcs.table = {{"A", 1}, {"B", 2}};
  vcs.origin = "test";
  const JobPublic plain = public_facts(t, cat->classes[0], 16);
  CHECK(plain.user == "alice");
  CHECK(plain.vc == -1);
  CHECK(plain.cls.max_gpus == 16);
  CHECK(with_vc(plain, t, c).vc == -1);  // no VCs: unchanged
  c.virtual_clusters = vcs;
  const JobPublic p = with_vc(plain, t, c);
  CHECK(p.vc == 1);
  CHECK(p.cls.max_gpus == 8);
}

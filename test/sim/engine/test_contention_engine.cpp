// test/sim/engine/test_contention_engine.cpp — link contention in the engine (issue 36): two jobs whose rings cross
// the same leaf-spine link slow each other down by the hand-computed factor, re-rated when one starts or ends; a
// lone job keeps its speed exactly; the per-job time-averaged slowdown; cluster.network needs a topology.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/input_error.h"
#include "models/step_time_model.h"
#include "sim/cluster/cluster_config.h"
#include "sim/engine/engine.h"
#include "strategies/registry.h"

using namespace ringsched;

namespace {

// Every job gets one GPU on two nodes: job 0 on nodes 0 and 2, job 1 on nodes 1 and 3 (leaves {0,1} and {2,3}), so
// both rings cross leaf 0 -> spine -> leaf 1 and back.
class CrossLeaves final : public Strategy {
 public:
  [[nodiscard]] std::string name() const override { return "cross-leaves"; }
  Decision decide(const Snapshot& s) override {
    Decision d;
    for (const JobView& j : s.jobs) {
      Assignment a;
      a.gpus = 2;
      a.nodes = j.pub->id == 0 ? std::vector<int>{1, 0, 1, 0} : std::vector<int>{0, 1, 0, 1};
      d.jobs.push_back(a);
    }
    return d;
  }
};

// 4 nodes x 2 GPUs, 2 nodes per leaf, 1 spine: node-leaf 100 GB/s, leaf-spine 1 GB/s (the bottleneck).
// A perfect-scaling class: 100 w samples/s (batch 100: a step of 1/w s, 0.5 s on 2 GPUs), 62.5 M parameters of 4
// bytes = 2.5e8 gradient bytes: on 2 nodes each node sends 2 (2-1)/2 x 2.5e8 bytes per iteration, 0.25 s at 1 GB/s
// (half of the step alone).
RunResult run_pair(const std::vector<double>& work, bool contention, const std::string& activity = "always") {
  auto cat = std::make_shared<Catalog>();
  JobClass c;
  c.name = "lin";
  c.batch_mode = BatchMode::kFixedGlobal;
  c.batch_size = 100;
  c.max_gpus = 8;
  c.model_size_mparams = 62.5;
  c.speed = std::make_shared<models::Eq5StepTime>(models::Eq5Coeffs{0.01, 0, 0, 0}, 1.0);
  cat->classes.push_back(c);
  Workload w;
  w.catalog = cat;
  for (std::size_t i = 0; i < work.size(); ++i) {
    JobTruth j;
    j.id = static_cast<int>(i);
    j.work_samples = work[i];
    j.name = "j" + std::to_string(i);
    w.jobs.push_back(j);
  }
  EngineConfig ec;
  ec.cluster.nodes = 4;
  ec.cluster.gpus_per_node = 2;
  ec.cluster.topology =
      std::make_shared<const Topology>(Topology::fat_tree(4, 2, 2, 1, {100e9, 0.0}, {100e9, 0.0}, {1e9, 0.0}));
  ec.cluster.placement = "packed";
  net::NetworkOptions n;
  n.contention = contention;
  n.activity = activity;
  ec.cluster.network = n;
  CrossLeaves s;
  auto none = make_belief_source("none", "test");
  return simulate(w, s, *none, ec);
}

std::string network_error(const std::string& text) {
  const nlohmann::json doc = nlohmann::json::parse(text);
  try {
    (void)parse_cluster(JsonReader(doc, "cfg.json", "cluster"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sim::Contention: a lone job keeps its speed exactly", "[contention]") {
  const RunResult on = run_pair({1000}, true);
  const RunResult off = run_pair({1000}, false);
  // 1000 samples at 200 samples/s.
  CHECK(on.jobs[0].finish == 5.0);
  CHECK(off.jobs[0].finish == 5.0);
  CHECK(on.jobs[0].contention_slowdown == 1.0);
  CHECK_FALSE(on.jobs[0].shared_link);
}

TEST_CASE("sim::Contention: two rings on one leaf-spine link slow each other by the hand-computed factor",
          "[contention]") {
  // Always on: each flow gets 0.5 GB/s, 0.5 s instead of 0.25 s per iteration: 0.5 + 0.25 = 0.75 s per 0.5 s step,
  // a slowdown of 1.5. Both jobs (1000 samples each) run at 200 / 1.5 samples/s: 7.5 s.
  const RunResult r = run_pair({1000, 1000}, true);
  CHECK(r.jobs[0].finish == Approx(7.5));
  CHECK(r.jobs[1].finish == Approx(7.5));
  CHECK(r.jobs[0].contention_slowdown == Approx(1.5));
  CHECK(r.jobs[0].shared_link);
  CHECK(r.contention);
  // Contention off: the same placement, no slowdown.
  const RunResult off = run_pair({1000, 1000}, false);
  CHECK(off.jobs[0].finish == 5.0);
  CHECK(off.jobs[1].contention_slowdown == 1.0);
}

TEST_CASE("sim::Contention: when one job ends the other runs alone again (re-rated, time-averaged slowdown)",
          "[contention]") {
  // Job 1 (500 samples) at 200 / 1.5 samples/s ends at 3.75 s; job 0 has done 500 of 1000 then, and runs the rest
  // alone at 200 samples/s: 2.5 s more, 6.25 s. Its slowdown: 1.5 over 3.75 s, 1 over 2.5 s: 8.125 / 6.25 = 1.3.
  const RunResult r = run_pair({1000, 500}, true);
  CHECK(r.jobs[1].finish == Approx(3.75));
  CHECK(r.jobs[0].finish == Approx(6.25));
  CHECK(r.jobs[0].contention_slowdown == Approx(1.3));
  CHECK(r.jobs[1].contention_slowdown == Approx(1.5));
}

TEST_CASE("sim::Contention: expected activity counts the other job by the share of time it communicates",
          "[contention]") {
  // Each job communicates a share a of its time; the other's flow counts with weight a: a flow gets C / (1 + a),
  // its communication takes 0.25 (1 + a) s of a 0.5 + 0.25 a s iteration, so a = 0.25 (1 + a) / (0.5 + 0.25 a):
  // a^2 + a - 1 = 0, a = (sqrt 5 - 1) / 2 = 0.618034, and the slowdown is (0.5 + 0.25 a) / 0.5 = 1.309017.
  const RunResult always = run_pair({1000, 1000}, true, "always");
  const RunResult expected = run_pair({1000, 1000}, true, "expected");
  const double a = (std::sqrt(5.0) - 1.0) / 2.0;
  CHECK(expected.jobs[0].contention_slowdown == Approx(1.0 + 0.5 * a).epsilon(1e-6));
  CHECK(expected.jobs[0].finish == Approx(5.0 * (1.0 + 0.5 * a)).epsilon(1e-6));
  CHECK(expected.jobs[0].contention_slowdown < always.jobs[0].contention_slowdown);
}

TEST_CASE("sim::Contention: cluster.network needs a topology and names the path", "[contention]") {
  const std::string e = network_error(R"({"nodes": 4, "gpus_per_node": 8, "network": {"contention": true}})");
  CHECK(e.find("cfg.json") != std::string::npos);
  CHECK(e.find("cluster.network") != std::string::npos);
  CHECK(e.find("needs cluster.topology") != std::string::npos);
}

TEST_CASE("sim::Contention: a graph whose nodes meet only through another node is refused for contention",
          "[contention]") {
  // c hangs off b (a node-node link): its flows to a would pass through b.
  const std::string graph = R"({"nodes": 3, "gpus_per_node": 1,
      "topology": {"kind": "graph", "intra_node": {"bandwidth_gb_s": 100, "latency_us": 1},
                   "nodes": ["a", "b", "c"], "switches": ["s"],
                   "links": [{"a": "a", "b": "s", "bandwidth_gb_s": 10, "latency_us": 1},
                             {"a": "b", "b": "s", "bandwidth_gb_s": 10, "latency_us": 1},
                             {"a": "c", "b": "b", "bandwidth_gb_s": 10, "latency_us": 1}]},
      "network": NET})";
  const auto with = [&](const std::string& net) {
    std::string text = graph;
    text.replace(text.find("NET"), 3, net);
    return network_error(text);
  };
  const std::string e = with(R"({"contention": true})");
  CHECK(e.find("cluster.topology") != std::string::npos);
  CHECK(e.find("meet only through another node") != std::string::npos);
  CHECK(with(R"({"contention": false})").empty());
}

// test/sim/cluster/test_topology.cpp — ring bandwidth and latency on hand-drawn topologies (one node, two nodes, a fat
// tree, a graph where the widest path is not the shortest), bandwidth levels, ring-derived speeds, and bad topology
// input.
#include <catch2/catch.hpp>

#include <memory>
#include <numeric>

#include "models/step_time_model.h"
#include "sim/cluster/placement.h"
#include "sim/cluster/topology.h"
#include "sim/experiments/builtin_configs.h"
#include "sim/experiments/runner.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;

namespace {

constexpr double kGigabyte = 1e9;
constexpr double kMicrosecond = 1e-6;

std::vector<int> range(int a, int b) {
  std::vector<int> v(static_cast<std::size_t>(b - a));
  std::iota(v.begin(), v.end(), a);
  return v;
}

}  // namespace

TEST_CASE("sim::Topology: one node rings run at the intra-node link", "[topology]") {
  // GPU - node switch - GPU: bandwidth 100 GB/s, latency 2 x 1 us per neighbour path.
  const Topology t = Topology::two_level(1, 8, {100 * kGigabyte, 1 * kMicrosecond}, {10 * kGigabyte, 5 * kMicrosecond});
  const RingComm r = t.ring(range(0, 8));
  CHECK(r.gpus == 8);
  CHECK(r.nodes == 1);
  CHECK(r.bandwidth == Approx(100 * kGigabyte));
  CHECK(r.alpha == Approx(2 * kMicrosecond));
  CHECK(r.latency_sum == Approx(8 * 2 * kMicrosecond));
  const RingComm one = t.ring({3});
  CHECK(one.nodes == 1);
  CHECK(one.alpha == 0.0);
}

TEST_CASE("sim::Topology: a ring over two nodes runs at the inter-node link", "[topology]") {
  // 2 nodes x 8, intra 100 GB/s 1 us, network port 10 GB/s 5 us to one switch.
  const Topology t = Topology::two_level(2, 8, {100 * kGigabyte, 1 * kMicrosecond}, {10 * kGigabyte, 5 * kMicrosecond});
  const RingComm r = t.ring(range(0, 9));  // GPUs 0..7 on node 0, GPU 8 on node 1
  CHECK(r.nodes == 2);
  CHECK(r.bandwidth == Approx(10 * kGigabyte));
  // Cross-node path: GPU-node (1) + node-switch (5) + switch-node (5) + node-GPU (1) = 12 us.
  CHECK(r.alpha == Approx(12 * kMicrosecond));
  // 7 intra pairs x 2 us + (7,8) and (8,0) x 12 us = 38 us.
  CHECK(r.latency_sum == Approx(38 * kMicrosecond));
  CHECK(t.ring(range(0, 8)).bandwidth == Approx(100 * kGigabyte));  // 8 GPUs fit one node
  REQUIRE(t.levels().size() == 1);
  CHECK(t.levels()[0] == Approx(10 * kGigabyte));
}

TEST_CASE("sim::Topology: fat tree rings take the slowest level they cross", "[topology]") {
  // 4 nodes x 4 GPUs, 2 nodes per leaf, 2 spines; intra 100 GB/s 1 us, node-leaf 25 GB/s 2 us, leaf-spine
  // 10 GB/s 3 us.
  const Topology t = Topology::fat_tree(4, 4, 2, 2, {100 * kGigabyte, 1 * kMicrosecond},
                                        {25 * kGigabyte, 2 * kMicrosecond}, {10 * kGigabyte, 3 * kMicrosecond});
  CHECK(t.gpus() == 16);
  // Nodes 0 and 1 share leaf 0: min(100, 25) GB/s, latency 1 + 2 + 2 + 1 = 6 us.
  const RingComm same_leaf = t.ring(range(0, 8));
  CHECK(same_leaf.bandwidth == Approx(25 * kGigabyte));
  CHECK(same_leaf.alpha == Approx(6 * kMicrosecond));
  CHECK(same_leaf.nodes == 2);
  // Nodes 0 and 2 (leaves 0 and 1): via a spine, min(100, 25, 10) GB/s, 1 + 2 + 3 + 3 + 2 + 1 = 12 us.
  std::vector<int> cross = range(0, 4);
  for (int g : range(8, 12))
    cross.push_back(g);
  const RingComm c = t.ring(cross);
  CHECK(c.bandwidth == Approx(10 * kGigabyte));
  CHECK(c.alpha == Approx(12 * kMicrosecond));
  CHECK(t.ring(range(0, 16)).bandwidth == Approx(10 * kGigabyte));
  // Levels: 25 GB/s groups are the leaves, 10 GB/s is everything.
  REQUIRE(t.levels().size() == 2);
  CHECK(t.levels()[0] == Approx(25 * kGigabyte));
  CHECK(t.group_count(0) == 2);
  CHECK(t.group_of(0, 0) == t.group_of(0, 1));
  CHECK(t.group_of(0, 1) != t.group_of(0, 2));
  CHECK(t.group_count(1) == 1);
}

TEST_CASE("sim::Topology: the widest path wins over the shortest", "[topology]") {
  // n0 -s0- n1 is short but narrow (1 GB/s on s0-n1); n0 -s1- s2 - n1 is 50 GB/s all the way.
  TopologySpec spec;
  spec.nodes = {{"n0", 2, {100 * kGigabyte, 1 * kMicrosecond}}, {"n1", 2, {100 * kGigabyte, 1 * kMicrosecond}}};
  spec.switches = {"s0", "s1", "s2"};
  spec.links = {{"n0", "s0", {100 * kGigabyte, 1 * kMicrosecond}},
                {"s0", "n1", {1 * kGigabyte, 1 * kMicrosecond}},
                {"n0", "s1", {50 * kGigabyte, 4 * kMicrosecond}},
                {"s1", "s2", {50 * kGigabyte, 4 * kMicrosecond}},
                {"s2", "n1", {50 * kGigabyte, 4 * kMicrosecond}}};
  const Topology t(spec);
  const LinkClass p = t.node_path(0, 1);
  CHECK(p.bandwidth == Approx(50 * kGigabyte));
  CHECK(p.latency == Approx(12 * kMicrosecond));
  const RingComm r = t.ring({0, 2});
  CHECK(r.bandwidth == Approx(50 * kGigabyte));
  CHECK(r.alpha == Approx(14 * kMicrosecond));  // 1 + 12 + 1
}

TEST_CASE("sim::Topology: invalid graphs are refused", "[topology]") {
  TopologySpec spec;
  spec.nodes = {{"n0", 2, {100 * kGigabyte, 0.0}}, {"n1", 2, {100 * kGigabyte, 0.0}}};
  spec.switches = {"s0"};
  spec.links = {{"n0", "s0", {10 * kGigabyte, 0.0}}};
  CHECK_THROWS_WITH(Topology(spec), Catch::Contains("disconnected") && Catch::Contains("n1"));
  spec.links.push_back({"n1", "s0", {0.0, 0.0}});
  CHECK_THROWS_WITH(Topology(spec), Catch::Contains("bandwidth must be > 0"));
  spec.links.back().link.bandwidth = kGigabyte;
  spec.nodes[1].gpus = 0;
  CHECK_THROWS_WITH(Topology(spec), Catch::Contains("has no GPUs"));
}

TEST_CASE("sim::ring_throughput: eq5 is unchanged in one node and its t2 scales with the bottleneck", "[topology]") {
  const Topology t = Topology::two_level(2, 8, {100 * kGigabyte, 1 * kMicrosecond}, {10 * kGigabyte, 5 * kMicrosecond});
  JobClass c;
  c.batch_mode = BatchMode::kFixedGlobal;
  c.batch_size = 100;
  const models::Eq5Coeffs k{0.001, 0.002, 0.01, 0.005};
  c.speed = std::make_shared<models::Eq5StepTime>(k, 2.0);
  const RingComm ref = t.reference_ring();
  // 8 GPUs in one node: exactly the class model.
  CHECK(ring_throughput(c, t.ring(range(0, 8)), ref, 1.0) == Approx(class_throughput(c, 8, 1)));
  // 16 GPUs over two nodes: t1 x 12/2 = 0.012, t2 x 100/10 = 0.1.
  // step = 0.001 * 100 / 16 + 0.012 * 15 + 0.1 * 15 * 2 / 16 + 0.005 = 0.00625 + 0.18 + 0.1875 + 0.005 = 0.37875.
  CHECK(ring_throughput(c, t.ring(range(0, 16)), ref, 1.0) == Approx(100.0 / 0.37875));
}

TEST_CASE("sim::parse_experiment: bad topology and placement input names the JSON path", "[topology]") {
  auto doc = [](const nlohmann::json& cluster) {
    nlohmann::json d = parse_json_text(table3_config_text(), "t.json");
    d["cluster"] = cluster;
    return d;
  };
  const nlohmann::json link = {{"bandwidth_gb_s", 10}, {"latency_us", 1}};
  nlohmann::json good = {{"nodes", 2},
                         {"gpus_per_node", 8},
                         {"topology", {{"kind", "two_level"}, {"intra_node", link}, {"inter_node", link}}},
                         {"placement", "topology"}};
  const ExperimentConfig c = parse_experiment(doc(good), "t.json", "");
  CHECK(c.cluster.topology != nullptr);
  CHECK(c.cluster.placement == "topology");

  nlohmann::json zero = good;
  zero["topology"]["inter_node"]["bandwidth_gb_s"] = 0;
  CHECK_THROWS_AS(parse_experiment(doc(zero), "t.json", ""), InputError);
  CHECK_THROWS_WITH(parse_experiment(doc(zero), "t.json", ""),
                    Catch::Contains("cluster.topology.inter_node.bandwidth_gb_s") && Catch::Contains("> 0"));

  nlohmann::json graph = good;
  graph["topology"] = {{"kind", "graph"},
                       {"intra_node", link},
                       {"nodes", {"a", "b"}},
                       {"switches", {"s"}},
                       {"links", {{{"a", "a"}, {"b", "s"}, {"bandwidth_gb_s", 10}}}}};
  CHECK_THROWS_WITH(parse_experiment(doc(graph), "t.json", ""),
                    Catch::Contains("cluster.topology") && Catch::Contains("disconnected"));
  graph["topology"]["links"][0]["a"] = "nosuch";
  CHECK_THROWS_WITH(parse_experiment(doc(graph), "t.json", ""),
                    Catch::Contains("cluster.topology.links[0]") && Catch::Contains("nosuch"));
  graph["topology"]["nodes"] = {{{"name", "a"}, {"gpus", 0}}, "b"};
  CHECK_THROWS_WITH(parse_experiment(doc(graph), "t.json", ""),
                    Catch::Contains("cluster.topology.nodes[0].gpus") && Catch::Contains("no GPUs"));

  nlohmann::json bad_policy = good;
  bad_policy["placement"] = {{"policy", "random"}};
  CHECK_THROWS_WITH(parse_experiment(doc(bad_policy), "t.json", ""),
                    Catch::Contains("cluster.placement.policy") && Catch::Contains("packed, spread, topology"));

  // A job class whose limits exceed the cluster: min 32 GPUs on 16.
  nlohmann::json big = doc(good);
  big["workload"]["catalog"] = parse_json_text(R"({"name": "big", "classes": [
    {"name": "big", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
     "work": {"samples": 1000}, "gpus": {"min": 32, "max": 64},
     "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}]})",
                                               "inline");
  CHECK_THROWS_AS(parse_experiment(big, "t.json", ""), InputError);
  CHECK_THROWS_WITH(parse_experiment(big, "t.json", ""), Catch::Contains("workload"));
}
